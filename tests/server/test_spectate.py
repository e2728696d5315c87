"""Spectating (``server/spectate.py``) on a real server over real sockets.

* The secrecy oracle for a spectator: over whole hands, every ``watch_state`` view is the
  engine's spectator view of a replayed state (in order), and before the hand's end it
  names no tile that is concealed at that state (any seat's hand, a concealed kong).
* The delay: the spectator's views are exactly the players' public views of the same hand
  ``spectator_delay_moves`` moves late (all of them but the last ones before the end, then
  the end at once), and whenever a player is asked to act the spectator has been sent
  nothing later than the move ``delay`` moves back.
* The players see the number of watchers; a private room that turns spectators off refuses
  watching and is not listed.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from wuhan_mahjong.engine import action_from_json, load_records, verify
from wuhan_mahjong.engine.records import start_state
from wuhan_mahjong.engine.state import HandState
from wuhan_mahjong.engine.views import spectator_view

from .harness import Client, Server, StartServer, guest_token, play, seat_four
from .test_secrecy import tile_kinds

DELAY = 3


def public_kinds(state: HandState) -> set[int]:
    """The tile kinds anybody may see in ``state`` (no seat's concealed tiles)."""
    out = {state.indicator, state.laizi} | set(state.must)
    for s in range(4):
        out |= {t for t, _c, _lz in state.rivers[s]}
        out |= {t for m in state.melds[s] if m.kind != "concealed" for t in m.tiles}
    if state.pending_tile is not None:
        out.add(state.pending_tile)
    return out


def public(view: dict[str, Any]) -> str:
    """A seat's view as a spectator sees it (the same state): its own secrets removed."""
    out = dict(view, viewer=None, hand=None, drawn=None, legal_actions=[])
    if view["result"] is None:
        out["seats"] = [dict(s, melds=[dict(m, tiles=None) if m["kind"] == "concealed" else m
                                       for m in s["melds"]]) for s in view["seats"]]
    return json.dumps(out, sort_keys=True)


def check_spectator_hand(record: dict[str, Any], views: list[dict[str, Any]]) -> int:
    """The oracle: ``views`` are spectator views of the replayed hand, in order, hiding all."""
    text = "\n".join(json.dumps(e, ensure_ascii=False) for e in record["events"])
    events = load_records(text)[0]
    verify(events)
    state = start_state(events)
    steps: list[tuple[dict[str, Any], set[int], set[int]]] = []

    def snapshot() -> None:
        hidden: set[int] = set()
        for s in range(4):
            hidden |= set(state.hand_tiles(s))
            hidden |= {t for m in state.melds[s] if m.kind == "concealed" for t in m.tiles}
        seen = public_kinds(state)
        steps.append((dict(spectator_view(state)), hidden - seen, seen))

    snapshot()
    for ev in events[1:]:
        if ev["e"] == "act":
            state.apply(ev["seat"], action_from_json(ev["action"]))
            snapshot()
        elif ev["e"] == "escape":
            state.note_escape(ev["seat"], ev["penalty"], ev["deltas"])
    k = 0
    for view in views:
        while k < len(steps) and steps[k][0] != view:
            k += 1
        assert k < len(steps), f"the spectator got a view that is no spectator view: {view}"
        assert view["viewer"] is None and view["hand"] is None and view["drawn"] is None
        assert view["legal_actions"] == []
        if view["result"] is None:
            named = tile_kinds(view)
            assert not named & steps[k][1], named & steps[k][1]
            assert named <= steps[k][2], named - steps[k][2]
            for seat in view["seats"]:
                assert all(m["tiles"] is None for m in seat["melds"] if m["kind"] == "concealed")
    return len(views)


@pytest.mark.slow
def test_a_spectator_sees_every_move_late_and_no_hidden_tile(start_server: StartServer) -> None:
    server = start_server(spectator_delay_moves=DELAY, claim_seconds=60.0, turn_seconds=60.0)
    tokens = [guest_token(server) for _ in range(4)]
    watcher = Client(server, guest_token(server), "watcher")
    hands = 3
    checkpoints: list[tuple[int, str, int]] = []
    """(hand_no, the public view a player was asked to act in, spectator frames of the hand
    received by then)."""

    async def scenario() -> list[Client]:
        clients = await seat_four(server, tokens, hands=hands, profile="laizishanzhuang")
        table_id = clients[0].of_type("table")[0]["table_id"]
        await watcher.connect()
        await watcher.send({"type": "watch", "table": table_id})
        watching = await watcher.expect("watching")
        assert watching["delay"] == DELAY and watching["watchers"] == 1

        def hook(msg: dict[str, Any]) -> None:
            view = msg["view"]
            if view["legal_actions"] and not msg["answered"]:
                seen = sum(1 for m in watcher.of_type("watch_state")
                           if m["hand_no"] == view["hand_no"])
                checkpoints.append((view["hand_no"], public(view), seen))

        await asyncio.gather(*(play(c, seed=40 + i, timeout=240, on_state=hook)
                               for i, c in enumerate(clients)))
        await watcher.expect("unwatched", reason="ended")
        for c in clients:
            await c.close()
        await watcher.close()
        return clients

    clients = asyncio.run(scenario())
    match_id = clients[0].of_type("match_end")[0]["match_id"]
    spectated = watcher.of_type("watch_state")
    assert all(m["match_id"] == match_id for m in spectated)
    total = 0
    for hand_no in range(hands):
        views = [m["view"] for m in spectated if m["hand_no"] == hand_no]
        rec = httpx.get(f"{server.http}/api/matches/{match_id}/hands/{hand_no}",
                        headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=10)
        assert rec.status_code == 200
        total += check_spectator_hand(rec.json(), views)
        # the moves as the players saw them (every public change reaches every seat)
        moves: list[str] = []
        for m in clients[0].of_type("state"):
            if m["hand_no"] == hand_no and (not moves or moves[-1] != public(m["view"])):
                moves.append(public(m["view"]))
        got = [json.dumps(v, sort_keys=True) for v in views]
        assert got[-1] == moves[-1] and views[-1]["result"] is not None  # the end, at once
        playing = moves[:-1]
        start = playing.index(got[0]) if hand_no == 0 else 0
        assert got[:-1] == playing[start:len(playing) - DELAY], hand_no
        for h, move, seen in checkpoints:
            if h != hand_no or seen == 0:
                continue
            last = start + seen - 1  # the latest move sent to the spectator by then
            assert last <= playing.index(move) - DELAY or got[seen - 1] == moves[-1]
    assert total > 50 * hands
    assert len([c for c in checkpoints if c[2] > 0]) > 30


def test_players_see_the_watchers_and_a_private_room_can_refuse(start_server: StartServer) -> None:
    server = start_server(claim_seconds=60.0, turn_seconds=60.0)
    open_tokens = [guest_token(server) for _ in range(4)]
    closed_tokens = [guest_token(server) for _ in range(4)]
    watcher = Client(server, guest_token(server), "watcher")

    async def scenario() -> None:
        opened = await seat_four(server, open_tokens, hands=1)
        closed = await seat_four(server, closed_tokens, hands=1, spectators=False)
        open_id = opened[0].of_type("table")[0]["table_id"]
        closed_id = closed[0].of_type("table")[0]["table_id"]
        assert opened[0].of_type("table")[0]["watchers"] == 0
        live = httpx.get(f"{server.http}/api/tables/live", timeout=10).json()
        listed = {t["table_id"] for t in live["tables"]}
        assert open_id in listed and closed_id not in listed
        assert live["delay"] == server.config.spectator_delay_moves

        await watcher.connect()
        await watcher.send({"type": "watch", "table": closed_id, "ref": "w1"})
        err = await watcher.expect("error", ref="w1")
        assert err["code"] == "not_watchable" and err["params"]["reason"] == "private"
        await watcher.send({"type": "watch", "table": "0" * 12, "ref": "w2"})
        assert (await watcher.expect("error", ref="w2"))["code"] == "not_found"
        # a seated player cannot watch
        await opened[1].send({"type": "watch", "table": closed_id, "ref": "w3"})
        assert (await opened[1].expect("error", ref="w3"))["code"] == "not_watchable"

        await watcher.send({"type": "watch", "table": open_id})
        assert (await watcher.expect("watching"))["watchers"] == 1
        for c in opened:  # every player is told, at once
            assert (await c.expect("watchers", table_id=open_id))["count"] == 1
        await opened[0].send({"type": "snapshot"})
        assert (await opened[0].expect("table"))["watchers"] == 1
        assert httpx.get(f"{server.http}/api/tables/live", timeout=10).json()["tables"][0][
            "watchers"] == 1
        await watcher.send({"type": "unwatch"})
        await watcher.expect("unwatched", reason="unwatch")
        for c in opened:
            assert (await c.expect("watchers", table_id=open_id))["count"] == 0
        await watcher.send({"type": "unwatch", "ref": "u"})
        assert (await watcher.expect("error", ref="u"))["code"] == "not_found"
        # a disconnected watcher stops counting
        await watcher.send({"type": "watch", "table": open_id})
        await watcher.expect("watching")
        for c in opened:
            assert (await c.expect("watchers", table_id=open_id))["count"] == 1
        await watcher.close()
        for c in opened:
            assert (await c.expect("watchers", table_id=open_id))["count"] == 0
        for c in opened + closed:
            await c.close()

    asyncio.run(scenario())


def test_watchers_are_bounded_per_table_and_rate_limited(start_server: StartServer) -> None:
    server = start_server(claim_seconds=60.0, turn_seconds=60.0, spectators_per_table=1,
                          watch_rate=0.001, watch_burst=2)
    tokens = [guest_token(server) for _ in range(4)]
    other_tokens = [guest_token(server) for _ in range(4)]
    first = Client(server, guest_token(server), "first")
    second = Client(server, guest_token(server), "second")
    third = Client(server, guest_token(server), "third")

    async def scenario() -> None:
        players = await seat_four(server, tokens, hands=1)
        table_id = players[0].of_type("table")[0]["table_id"]
        await first.connect()
        await second.connect()
        third_id = (await third.connect())["account"]["id"]
        await first.send({"type": "watch", "table": table_id})
        await first.expect("watching")
        await second.send({"type": "watch", "table": table_id, "ref": "full"})
        err = await second.expect("error", ref="full")
        assert err["code"] == "watchers_full" and err["params"]["max"] == 1
        await first.send({"type": "watch", "table": table_id})  # the burst's second
        await first.expect("watching")
        await first.send({"type": "watch", "table": table_id, "ref": "rl"})
        assert (await first.expect("error", ref="rl"))["code"] == "rate_limited"
        # one table at a time per account: watching another lets the first go
        others = await seat_four(server, other_tokens, hands=1)
        other_id = others[0].of_type("table")[0]["table_id"]
        await third.send({"type": "watch", "table": other_id})
        await third.expect("watching", table_id=other_id)
        assert server.hub.spectate.count(other_id) == 1
        for c in others:
            assert (await c.expect("watchers", table_id=other_id))["count"] == 1
        await first.send({"type": "unwatch"})
        await first.expect("unwatched")
        await third.send({"type": "watch", "table": table_id})
        await third.expect("watching", table_id=table_id)
        for c in others:
            assert (await c.expect("watchers", table_id=other_id))["count"] == 0
        assert server.hub.spectate.watching == {third_id: table_id}
        for c in [*players, *others, first, second, third]:
            await c.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("bad", [{"type": "watch"}, {"type": "watch", "table": "x" * 12},
                                 {"type": "watch", "table": "ab", "extra": 1}])
def test_bad_watch_messages_are_refused(server: Server, bad: dict[str, Any]) -> None:
    async def scenario() -> None:
        c = Client(server, guest_token(server))
        await c.connect()
        await c.send(dict(bad, ref="b"))
        assert (await c.expect("error", ref="b"))["code"] == "invalid_message"
        await c.close()

    asyncio.run(scenario())


def test_a_resumed_table_keeps_its_spectators_choice(start_server: StartServer) -> None:
    slow = {"turn_seconds": 60.0, "claim_seconds": 60.0}
    first = start_server(**slow)
    open_tokens = [guest_token(first) for _ in range(4)]
    closed_tokens = [guest_token(first) for _ in range(4)]
    watcher_token = guest_token(first)

    async def before() -> tuple[str, str]:
        opened = await seat_four(first, open_tokens, hands=2)
        closed = await seat_four(first, closed_tokens, hands=2, spectators=False)
        ids = (opened[0].of_type("table")[0]["table_id"], closed[0].of_type("table")[0]["table_id"])
        for c in opened + closed:
            await c.close()
        return ids

    open_id, closed_id = asyncio.run(before())
    first.stop()  # drains: both matches stay running in the store and resume on the next start
    second = start_server(**slow)
    assert {open_id, closed_id} <= set(second.hub.tables)
    listed = {t["table_id"] for t in
              httpx.get(f"{second.http}/api/tables/live", timeout=10).json()["tables"]}
    assert open_id in listed and closed_id not in listed

    async def after() -> None:
        w = Client(second, watcher_token)
        await w.connect()
        await w.send({"type": "watch", "table": closed_id, "ref": "c"})
        assert (await w.expect("error", ref="c"))["params"]["reason"] == "private"
        await w.send({"type": "watch", "table": open_id})
        assert (await w.expect("watching"))["table_id"] == open_id
        await w.close()

    asyncio.run(after())
