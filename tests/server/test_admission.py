"""Admission control (issue 11, item 6): a saturated node says ``busy`` at once.

Saturation is made deterministically: a cap of N tables with N running, and an
event loop blocked on purpose (never by loading the machine).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest
import websockets

from .harness import Client, Server, StartServer, guest_token

OVERLOADED = {"code": "busy", "params": {"reason": "overloaded"}}


def _overloaded(msg: dict[str, Any]) -> bool:
    return msg["type"] == "error" and all(msg.get(k) == v for k, v in OVERLOADED.items())


async def _seated(server: Server) -> Client:
    c = Client(server, guest_token(server))
    await c.connect()
    await c.send({"type": "quick_match"})
    await c.expect("table")
    return c


def test_a_node_at_its_table_cap_refuses_new_tables_and_connections(start_server: StartServer) -> None:
    # the seated humans never act and the timers are long: the two tables keep running
    server = start_server(max_tables=2, turn_seconds=120.0, claim_seconds=120.0, quick_hands=4)
    ready = httpx.get(f"{server.http}/readyz", timeout=10)
    assert ready.status_code == 200 and ready.json()["status"] == "ready"

    async def scenario() -> None:
        late = Client(server, guest_token(server))
        await late.connect()  # connected while the node had room
        first, second = await _seated(server), await _seated(server)
        assert len(server.hub.tables) == 2
        # the third table is refused at once, with the code the web client translates
        for msg in ({"type": "quick_match"}, {"type": "create_room", "options": {}}):
            await late.send(msg)
            refused = await late.expect("error", timeout=10)
            assert _overloaded(refused), refused
        assert len(server.hub.tables) == 2
        # readiness says so: the load balancer sends new sockets elsewhere
        busy = httpx.get(f"{server.http}/readyz", timeout=10)
        assert busy.status_code == 503 and busy.json()["status"] == "busy"
        assert busy.json()["busy"] == "tables"
        # a new connection is answered and closed at once (1013: try again later)
        token = guest_token(server)
        async with websockets.connect(server.ws) as ws:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert _overloaded(answer), answer
            await asyncio.wait_for(ws.wait_closed(), 10)
            assert ws.close_code == 1013
        # a player of a running table always gets back in, and his table goes on
        await first.close()
        again = Client(server, first.token)
        await again.connect()
        assert (await again.expect("state"))["view"]["hand_no"] >= 0
        for c in (again, second, late):
            await c.close()

    asyncio.run(scenario())


@pytest.mark.slow
def test_a_lagging_event_loop_makes_the_node_busy_until_it_recovers(start_server: StartServer) -> None:
    server = start_server(max_loop_lag=0.2)
    loop = next(iter(server.hub.tasks)).get_loop()
    assert server.hub.admission.busy() is None
    loop.call_soon_threadsafe(time.sleep, 3.0)  # the loop does nothing else for 3 s
    deadline = time.monotonic() + 30
    seen = None
    while time.monotonic() < deadline and seen is None:
        r = httpx.get(f"{server.http}/readyz", timeout=30)
        if r.status_code == 503:
            seen = r.json()
        time.sleep(0.02)
    assert seen is not None and seen["status"] == "busy" and seen["busy"] == "loop_lag"
    deadline = time.monotonic() + 60  # the lag is a moving average: it comes down
    while httpx.get(f"{server.http}/readyz", timeout=30).status_code != 200:
        assert time.monotonic() < deadline, "the node stayed busy"
        time.sleep(0.1)
