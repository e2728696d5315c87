"""继续 between hands: the pause after a hand (``hand_pause``, long enough to read the
settlement) ends as soon as every player at the table has said he is ready for the next
hand (``next_hand``), as the apps' 准备 does; a seat on 托管 counts as ready, and a late
answer about an earlier hand counts for nothing.  Real sockets."""

from __future__ import annotations

import asyncio
from typing import Any

from .harness import Client, StartServer, play, register
from .test_end_vote import two_with_bots

PAUSE = 600.0
"""A pause no test outlives: the next hand comes only because the players said so."""


async def _next_deal(client: Client, timeout: float) -> dict[str, Any]:
    """The first ``state`` of the next hand."""
    while True:
        msg = await client.expect("state", timeout=timeout)
        if msg["view"]["hand_no"] == 1:
            return msg


async def _hand_over(clients: list[Client], act: tuple[bool, ...] = (True, True)
                     ) -> list[dict[str, Any]]:
    return list(await asyncio.gather(*(play(c, seed=i, until="hand_end", act=a)
                                       for i, (c, a) in enumerate(zip(clients, act, strict=True)))))


def test_the_next_hand_comes_when_both_players_are_ready(start_server: StartServer) -> None:
    server = start_server(hand_pause=PAUSE)
    tokens = [register(server, n) for n in ("ann", "bob")]

    async def scenario() -> None:
        clients, _ = await two_with_bots(server, tokens, hands=2)
        ends = await _hand_over(clients)
        assert ends[0]["hand_no"] == 0 and ends[0]["next_hand_in"] == PAUSE
        ann, bob = clients
        await ann.send({"type": "next_hand", "hand_no": 0})
        await bob.send({"type": "next_hand", "hand_no": 5})  # not the hand that ended
        with_one = asyncio.ensure_future(_next_deal(ann, timeout=PAUSE))
        await asyncio.sleep(1.0)
        assert not with_one.done(), "dealt while bob had not said he was ready"
        await bob.send({"type": "next_hand"})
        state = await asyncio.wait_for(with_one, 30)
        assert state["view"]["hand_no"] == 1
        for c in clients:
            await c.close()

    asyncio.run(scenario())


def test_a_seat_on_auto_play_counts_as_ready(start_server: StartServer) -> None:
    server = start_server(hand_pause=PAUSE)
    tokens = [register(server, n) for n in ("cat", "dan")]

    async def scenario() -> None:
        clients, _ = await two_with_bots(server, tokens, hands=2)
        cat, dan = clients
        await dan.send({"type": "auto", "on": True})
        await dan.expect("notice", code="auto_on")
        ends = await _hand_over(clients, act=(True, False))  # (an action takes 托管 off)
        assert all(e["hand_no"] == 0 for e in ends)
        await cat.send({"type": "next_hand", "hand_no": 0})
        state = await _next_deal(cat, timeout=30)
        assert state["view"]["hand_no"] == 1
        for c in clients:
            await c.close()

    asyncio.run(scenario())
