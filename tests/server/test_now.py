"""``GET /api/now``: how many play now (the lobby's 在线 N 人 · M 桌), counted by the server:
the connected players and the running matches; answered again after a short reuse."""

from __future__ import annotations

import asyncio
import time

import httpx

from wuhan_mahjong.server.app import NOW_SECONDS

from .harness import Client, Server, register, seat_four


def _now(server: Server) -> dict[str, int]:
    r = httpx.get(f"{server.http}/api/now", timeout=10)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_how_many_play_now(server: Server) -> None:
    tokens = [register(server, f"now{k}") for k in range(5)]

    async def scenario() -> None:
        clients = await seat_four(server, tokens[:4], hands=4)
        idle = Client(server, tokens[4])
        await idle.connect()
        assert await asyncio.to_thread(_now, server) == {"online": 5, "tables": 1}
        for c in [*clients, idle]:
            await c.close()

    asyncio.run(scenario())
    deadline = time.monotonic() + NOW_SECONDS + 30
    while _now(server)["online"] != 0:  # the answer is reused a moment, then counted again
        assert time.monotonic() < deadline, _now(server)
        time.sleep(0.2)
