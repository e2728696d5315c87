"""Abandoned tables end; one table per account, a bounded number per address (issue 10,
findings 3 and the table limits of 4).

Before: after the humans left, 64-hand bot tables played on (203 tables, nobody
connected).  Now a table nobody is connected to for ``abandon_seconds`` ends by the
escape rules, a table whose players all escaped ends after the hand in progress, and
one address runs at most ``tables_per_address`` tables.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from .harness import Client, Server, StartServer, guest_token


async def _connect(server: Server, token: str) -> Client:
    c = Client(server, token)
    await c.connect()
    return c


async def _bot_room(c: Client, hands: int = 64) -> dict[str, object]:
    """``c`` alone in a free room of ``hands`` hands, bots in the other seats."""
    await c.send({"type": "create_room", "options": {"hands": hands}})
    await c.expect("room")
    await c.send({"type": "ready"})
    await c.expect("room")
    await c.send({"type": "start"})
    return await c.expect("table")


async def _until_no_tables(server: Server, timeout: float = 30) -> float:
    start = time.monotonic()
    while server.hub.tables:
        assert time.monotonic() - start < timeout, "the table did not end"
        await asyncio.sleep(0.05)
    return time.monotonic() - start


def _history(server: Server, token: str) -> list[dict[str, object]]:
    r = httpx.get(f"{server.http}/api/profile", headers={"Authorization": f"Bearer {token}"})
    history: list[dict[str, object]] = r.json()["history"]
    return history


def test_a_table_nobody_is_connected_to_ends_by_the_escape_rules(start_server: StartServer) -> None:
    server = start_server(abandon_seconds=0.6)
    token = guest_token(server)

    async def scenario() -> tuple[str, float]:
        c = await _connect(server, token)
        table = await _bot_room(c)
        await c.expect("state")
        await c.close()  # the player goes away; his seat waits for him ...
        waited = await _until_no_tables(server)
        back = Client(server, token)
        welcome = await back.connect()
        assert welcome["at_table"] is False  # ... for abandon_seconds, then he has escaped
        await back.close()
        return str(table["match_id"]), waited

    match_id, waited = asyncio.run(scenario())
    assert waited >= 0.5
    kinds = sorted((h["kind"], h["escaped"]) for h in _history(server, token))
    assert kinds == [("escape", True), ("game", False)]  # escaped, then the match was settled
    hands = httpx.get(f"{server.http}/api/matches/{match_id}/hands",
                      headers={"Authorization": f"Bearer {token}"}).json()["hands"]
    assert len(hands) < 64  # it ended after the hand in progress
    assert server.store.audit().ok


@pytest.mark.slow
def test_a_table_whose_players_all_escaped_ends_at_once(start_server: StartServer) -> None:
    server = start_server(abandon_seconds=120.0)
    token = guest_token(server)

    async def scenario() -> float:
        c = await _connect(server, token)
        await _bot_room(c)
        await c.expect("state")
        await c.send({"type": "leave"})
        assert (await c.expect("left"))["escaped"] is True
        waited = await _until_no_tables(server)
        await c.close()
        return waited

    assert asyncio.run(scenario()) < 60  # not the 120 s of the abandon time, nor 64 hands
    assert len([h for h in _history(server, token) if h["kind"] == "game"]) == 1
    assert server.store.audit().ok


@pytest.mark.slow
def test_one_table_per_account_and_a_bounded_number_per_address(start_server: StartServer) -> None:
    server = start_server(tables_per_address=1)

    async def scenario() -> None:
        a, b = [await _connect(server, guest_token(server)) for _ in range(2)]
        await _bot_room(a)
        await a.send({"type": "create_room", "options": {}})  # one place per account
        assert (await a.expect("error"))["code"] == "busy"
        for msg in ({"type": "quick_match"}, {"type": "create_room", "options": {}}):
            await b.send(msg)  # another account from the same address
            err = await b.expect("error")
            assert err["code"] == "busy" and "tables running" in err["message"], err
        await a.send({"type": "leave"})  # a escapes: his table ends, the address is free
        await _until_no_tables(server)
        await b.send({"type": "quick_match"})
        await b.expect("queued")
        await b.send({"type": "leave"})
        await b.expect("left")
        for c in (a, b):
            await c.close()

    asyncio.run(scenario())
