"""Dropped connections keep their seat; timeouts play for the seat; two in a row mean 托管."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from wuhan_mahjong.engine import PASS, Discard, LaiziDiscard, new_hand
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.server.table import timeout_action
from wuhan_mahjong.tiles import parse_tile

from .harness import Client, Server, StartServer, guest_token, play, seat_four


async def _solo(server: Server, token: str) -> Client:
    c = Client(server, token)
    await c.connect()
    await c.send({"type": "quick_match"})
    await c.expect("table")
    return c


def test_reconnect_mid_hand_resumes_the_same_state(server: Server) -> None:
    token = guest_token(server)

    async def scenario() -> None:
        c = await _solo(server, token)
        # Play until it is our turn to discard, then drop the connection.
        seen: dict[str, Any] = {}

        def stop_at_turn(msg: dict[str, Any]) -> bool:
            view = msg["view"]
            if view["phase"] == "turn" and view["legal_actions"] and not seen:
                seen.update(msg)
                return False
            return not seen

        async def until_turn() -> None:
            while not seen:
                msg = await c.recv()
                if msg["type"] == "state" and not stop_at_turn(msg):
                    break
                if msg["type"] == "state" and msg["view"]["legal_actions"] and not msg["answered"]:
                    await c.send({"type": "action", "action": {"type": "pass"},
                                  "decision": msg["view"]["decision"]})

        await until_turn()
        before = seen["view"]
        await c.close()
        await asyncio.sleep(0.2)
        # Same token, in an Authorization header this time: a full snapshot of the same state.
        c2 = Client(server, token)
        welcome = await c2.connect(via_header=True)
        assert welcome["at_table"] is True
        table = await c2.expect("table")
        state = await c2.expect("state")
        assert table["match_id"] == state["match_id"] == seen["match_id"]
        assert state["view"] == before
        assert state["players"][table["seat"]]["connected"] is True
        # ... and play continues to the end of the match (a snapshot asks for the frames again).
        await c2.send({"type": "snapshot"})
        assert (await c2.expect("state"))["view"] == before
        await c2.inbox.put(state)
        end = await play(c2, seed=3)
        assert sum(end["totals"]) == 0
        assert c2.of_type("error") == []
        await c2.close()

    asyncio.run(scenario())


def test_a_second_connection_replaces_the_first(server: Server) -> None:
    token = guest_token(server)

    async def scenario() -> None:
        a = Client(server, token)
        await a.connect()
        b = Client(server, token)
        await b.connect()
        notice = await a.expect("notice")
        assert notice["code"] == "replaced"
        await asyncio.wait_for(a.closed.wait(), 5)
        assert a.close_code == 4000
        await b.send({"type": "ping", "ref": "x"})
        assert (await b.expect("pong"))["ref"] == "x"
        await b.close()

    asyncio.run(scenario())


def test_timeouts_then_auto_play_until_the_player_returns(start_server: StartServer) -> None:
    server = start_server(turn_seconds=0.05, claim_seconds=0.05, quick_hands=2)
    token = guest_token(server)

    async def scenario() -> Client:
        c = await _solo(server, token)
        notice = await c.expect("notice", timeout=30, code="auto_on")
        assert "托管" in notice["message"]
        state = await c.expect("state", timeout=10)
        assert state["auto"] is True
        assert state["players"][notice["seat"]]["auto"] is True
        # The player takes the seat back.
        await c.send({"type": "auto", "on": False})
        await c.expect("notice", code="auto_off")
        await c.expect("match_end", timeout=60)
        await c.close()
        return c

    c = asyncio.run(scenario())
    assert any(m["auto"] is False for m in c.of_type("state")[-3:]) or c.of_type("match_end")
    assert [h["hand_no"] for h in c.of_type("hand_end")] == [0, 1]


def test_timeout_action_discards_the_drawn_tile_or_passes() -> None:
    rules = get_rules("yuanhang")
    for seed in range(30):
        state = new_hand(rules, 0, rng=random.Random(seed))
        # The dealer's first turn: no drawn tile, so the last (highest) discardable tile.
        action = timeout_action(state, 0)
        legal = state.legal_actions(0)
        discards = [a for a in legal if isinstance(a, Discard)]
        if discards:
            assert action == max(discards, key=lambda a: a.tile)
        state.apply(0, action)
        if state.phase == "claim":
            for s in state.to_act():
                assert timeout_action(state, s) is PASS
                state.apply(s, PASS)
        if state.phase == "turn" and state.drawn is not None:
            seat = state.current
            drawn = state.drawn
            action = timeout_action(state, seat)
            if Discard(drawn) in state.legal_actions(seat):
                assert action == Discard(drawn)
            elif drawn == state.laizi and not any(isinstance(a, Discard)
                                                  for a in state.legal_actions(seat)):
                assert action == LaiziDiscard()
    assert parse_tile("7z") == 33


@pytest.mark.slow
def test_a_dropped_player_keeps_the_seat_while_the_others_play_on(start_server: StartServer) -> None:
    server = start_server(turn_seconds=0.2, claim_seconds=0.2)
    tokens = [guest_token(server) for _ in range(4)]

    async def scenario() -> None:
        clients = await seat_four(server, tokens, hands=1)
        dropped = clients[3]
        seat = dropped.of_type("table")[0]["seat"]
        await dropped.close()
        others = clients[:3]

        # The others play; the dropped seat times out into auto-play; everybody sees it.
        async def until_auto(c: Client) -> None:
            while True:
                msg = await c.recv(20)
                if msg["type"] == "state" and msg["players"][seat]["auto"]:
                    assert msg["players"][seat]["connected"] is False
                    return
                if msg["type"] == "state" and msg["view"]["legal_actions"] and not msg["answered"]:
                    acts = msg["view"]["legal_actions"]
                    passes = [a for a in acts if a["type"] == "pass"]
                    await c.send({"type": "action", "action": (passes or acts)[-1],
                                  "decision": msg["view"]["decision"]})

        await asyncio.gather(*(until_auto(c) for c in others))
        back = Client(server, tokens[3])
        assert (await back.connect())["at_table"] is True
        assert (await back.expect("table"))["seat"] == seat
        state = await back.expect("state")
        assert state["auto"] is True and state["players"][seat]["connected"] is True
        await back.send({"type": "auto", "on": False})
        await back.expect("notice", code="auto_off")
        ends = await asyncio.gather(*(play(c, seed=i) for i, c in enumerate([*others, back])))
        assert len({tuple(e["totals"]) for e in ends}) == 1
        for c in [*others, back]:
            await c.close()

    asyncio.run(scenario())
