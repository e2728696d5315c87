"""Durable matches: a restart resumes a match at the same move and settles every hand once;
an unexpected error inside a table ends its match settled and the server goes on.

Real servers (uvicorn on a loopback port), real WebSocket clients, SQLite and PostgreSQL.
The crash test with ``kill -9`` of a ``wuhan-mahjong serve`` process is in
``test_durable_crash.py``; both check the outcome against :func:`uninterrupted`, a
replay of the stored walls and actions through the engine in one go.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from typing import Any

import pytest

from wuhan_mahjong.engine import Match, SeededRandom, seat_view
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.server.protocol import encode_view
from wuhan_mahjong.server.table import replay_log
from wuhan_mahjong.store import MatchEvent, Store, applied_actions, compute_escape, compute_game

from .harness import Client, StartServer, decision_key, play, register, seat_four

PASSWORD = "Plum-Kettle-Zephyr-42"
RICH = 100_000
STAKE = 5
"""Starting silver of the test accounts: enough to sit at any stake used here."""


def uninterrupted(store: Store, match_id: str) -> Match:
    """The match rebuilt from its stored key and log in one go, as if nothing had crashed."""
    logged = store.load_match(match_id)
    assert logged is not None
    cfg = logged.config
    rules = get_rules(cfg["profile"], {k: v for k, v in cfg["rules"].items() if k != "profile"})
    match = Match(rules, cfg["hands"], rng=SeededRandom(bytes.fromhex(logged.seed)))
    replay_log(match, logged.events)
    return match


def persisted_views(store: Store, match_id: str) -> set[tuple[Any, ...]]:
    """(seat, decision key) of every state the stored log passes through, event by event:
    a frame a player saw must be one of them (it was written before it was sent)."""
    logged = store.load_match(match_id)
    assert logged is not None
    cfg = logged.config
    rules = get_rules(cfg["profile"], {k: v for k, v in cfg["rules"].items() if k != "profile"})
    match = Match(rules, cfg["hands"], rng=SeededRandom(bytes.fromhex(logged.seed)))
    seen: set[tuple[Any, ...]] = set()
    for ev in logged.events:
        replay_log(match, [ev])
        hand = match.hand
        if hand is not None:
            for seat in range(4):
                view = json.loads(encode_view(seat_view(hand, seat)))
                seen.add((seat, *decision_key(view)))
    return seen


def expected_silver(match: Match, accounts: list[int], start: Mapping[int, int], stake: int,
                    fee: int) -> dict[int, int]:
    """Balances after settling the replayed hands one by one (the fee with the last hand)."""
    balances = {a: start[a] for a in accounts}
    penalty = match.rules.escape
    for summary in match.history:
        for hand_no, seat, _deltas in match.escapes:  # settled when they happen
            if hand_no == summary.hand_no:
                others = [accounts[(seat + k) % 4] for k in (1, 2, 3)]
                out = compute_escape(balances, accounts[seat], others, penalty * stake, 0,
                                     penalty)
                for a, o in out.items():
                    balances[a] += o.silver_net
        last = summary.hand_no == match.hands - 1
        out = compute_game(balances, stake, {a: summary.result.deltas[s]
                                             for s, a in enumerate(accounts)},
                           fee if stake > 0 and last else 0)
        for a, o in out.items():
            balances[a] += o.silver_net
    return balances


def check_settled_like_uninterrupted(store: Store, match_id: str, start: Mapping[int, int]) -> Match:
    """The stored outcome of a finished match equals the uninterrupted replay's:
    the same hand records line for line, the same totals, one settlement per hand, the same
    silver; and the ledger balances."""
    logged = store.load_match(match_id)
    assert logged is not None and logged.status == "finished", logged
    match = uninterrupted(store, match_id)
    assert match.finished
    accounts = [s["account_id"] for s in logged.config["seats"]]
    assert list(logged.totals) == match.totals
    for summary in match.history:
        record = store.hand_record(match_id, summary.hand_no, viewer=accounts[0])
        assert record is not None
        assert record.events == "\n".join(summary.records)
        assert store.is_settled(f"{match_id}/{summary.hand_no}")
    assert not store.is_settled(f"{match_id}/{match.hands}")
    cfg = logged.config
    want = expected_silver(match, accounts, start, cfg["stake"], cfg["fee"])
    assert {a: store.account(a).silver for a in accounts} == want
    assert store.audit().ok
    return match


async def quiet(clients: list[Client], for_seconds: float = 0.6, at_most: float = 20) -> None:
    """Wait until no client received a frame for ``for_seconds`` (the table waits on them)."""
    end = time.monotonic() + at_most
    while time.monotonic() < end:
        last = max((c.frames[-1].at for c in clients if c.frames), default=0.0)
        if time.monotonic() - last >= for_seconds:
            return
        await asyncio.sleep(0.1)


async def play_some(clients: list[Client], actions: int) -> None:
    """The clients answer decisions (random bots) until ``actions`` were sent in all."""
    sent = 0
    answered: set[tuple[Any, ...]] = set()
    from wuhan_mahjong.bots import get_bot

    bots = [get_bot("random", i) for i in range(4)]
    while sent < actions:
        progressed = False
        for i, c in enumerate(clients):
            while not c.inbox.empty():
                msg = c.inbox.get_nowait()
                if msg["type"] != "state" or msg["answered"] or not msg["view"]["legal_actions"]:
                    continue
                key = (i, *decision_key(msg["view"]))
                if key in answered:
                    continue
                answered.add(key)
                action = bots[i].choose(msg["view"])
                await c.send({"type": "action", "action": action.to_json(),
                              "hand_no": msg["view"]["hand_no"], "decision": msg["view"]["decision"]})
                sent += 1
                progressed = True
        if not progressed:
            await asyncio.sleep(0.02)


def last_view(client: Client) -> dict[str, Any]:
    return [f.msg for f in client.frames if f.msg["type"] == "state"][-1]["view"]


@pytest.mark.slow
def test_restart_resumes_the_match_at_the_same_move(start_server: StartServer) -> None:
    slow = {"turn_seconds": 60.0, "claim_seconds": 60.0, "starting_silver": RICH}
    first = start_server(**slow)
    tokens = [register(first, f"player{i}", PASSWORD) for i in range(4)]
    store = first.store

    async def before() -> tuple[str, list[dict[str, Any]], list[int]]:
        clients = await seat_four(first, tokens, hands=2, stake=STAKE, profile="bianfeng")
        table = clients[0].of_type("table")[0]
        await play_some(clients, 14)
        await quiet(clients)
        views = [last_view(c) for c in clients]
        seats = [c.of_type("table")[0]["seat"] for c in clients]
        for c in clients:
            await c.close()
        return table["match_id"], views, seats

    match_id, views, seats = asyncio.run(before())
    first.stop()  # a graceful stop drains: the match stays running in the store
    logged = store.load_match(match_id)
    assert logged is not None and logged.status == "running" and logged.next_seq > 14
    accounts = [s["account_id"] for s in logged.config["seats"]]
    start = dict.fromkeys(accounts, RICH)

    second = start_server(**slow)

    async def after() -> list[Client]:
        clients = [Client(second, t) for t in tokens]
        states = []
        for c, view, seat in zip(clients, views, seats, strict=True):
            welcome = await c.connect()
            assert welcome["at_table"] is True
            table = await c.expect("table")
            assert table["match_id"] == match_id and table["seat"] == seat
            state = await c.expect("state")
            assert decision_key(state["view"]) == decision_key(view)
            assert state["view"]["hand"] == view["hand"]
            states.append(state)
        # the seat to act may get no other offer of its decision than the state it checked
        # (when it reconnects last): played from there, not left to its 60 s timer
        ends = await asyncio.gather(*(play(c, seed=10 + i, timeout=120, first=state)
                                      for i, (c, state) in enumerate(zip(clients, states, strict=True))))
        assert {e["match_id"] for e in ends} == {match_id}
        assert all(e.get("reason") is None for e in ends)
        # the room's options are in the log: the resumed match reopens its room too
        assert ends[0]["rematch"] and {e["rematch"] for e in ends} == {ends[0]["rematch"]}
        for c in clients:
            await c.close()
        return clients

    clients = asyncio.run(after())
    match = check_settled_like_uninterrupted(second.store, match_id, start)
    # every action was its player's: no decision was left to a timer, before or after the restart
    finished = second.store.load_match(match_id)
    assert finished is not None
    assert {e.source for e in applied_actions(finished.events) if e.kind == "act"} == {"player"}
    end = clients[0].of_type("match_end")[0]
    assert end["totals"] == match.totals
    silver = {line["seat"]: line["silver"] - line["fee"] for line in end["results"]}
    assert {accounts[s]: RICH + silver[s] for s in range(4)} == {
        a: second.store.account(a).silver for a in accounts}
    # One history line per match, its hands summed.
    history = second.store.match_history(accounts[0])
    assert [h.match_id for h in history] == [match_id]


@pytest.mark.slow
def test_a_table_error_ends_the_match_settled_and_the_server_goes_on(
        start_server: StartServer, monkeypatch: Any) -> None:
    server = start_server(starting_silver=RICH)
    tokens = [register(server, f"player{i}", PASSWORD) for i in range(4)]
    real_apply = Match.apply

    def failing_apply(self: Match, seat: int, action: Any) -> None:
        if self.hand is not None and self.hand.hand_no == 1:  # the engine fails in hand 2
            raise RuntimeError("injected engine failure")
        real_apply(self, seat, action)

    monkeypatch.setattr(Match, "apply", failing_apply)

    async def scenario() -> tuple[list[Client], list[Client]]:
        clients = await seat_four(server, tokens, hands=3, stake=STAKE, profile="bianfeng")
        ends = await asyncio.gather(*(play(c, seed=i) for i, c in enumerate(clients)))
        for c in clients:
            await c.close()
        # The server goes on: the same players sit down again and finish a match.
        again = await seat_four(server, tokens, hands=1, stake=STAKE, profile="bianfeng")
        await asyncio.gather(*(play(c, seed=20 + i) for i, c in enumerate(again)))
        for c in again:
            await c.close()
        assert all(e["reason"] == "server_error" for e in ends)
        return clients, again

    clients, again = asyncio.run(scenario())
    match_id = clients[0].of_type("table")[0]["match_id"]
    store = server.store
    for c in clients:
        assert [h["hand_no"] for h in c.of_type("hand_end")] == [0]
        errors = c.of_type("error")
        assert [e["code"] for e in errors] == ["server_error"]
        assert "settled" in errors[0]["message"]
        end = c.of_type("match_end")[0]
        assert end["totals"] == c.of_type("hand_end")[0]["totals"]
    logged = store.load_match(match_id)
    assert logged is not None and logged.status == "aborted" and logged.hands_done == 1
    assert store.is_settled(f"{match_id}/0") and not store.is_settled(f"{match_id}/1")
    accounts = [s["account_id"] for s in logged.config["seats"]]
    end = clients[0].of_type("match_end")[0]
    assert sum(line["silver"] for line in end["results"]) == 0
    assert any(line["silver"] != 0 for line in end["results"]) or end["totals"] == [0] * 4
    # No fee for a match that did not finish; silver moved only by hand 1's settlement.
    assert all(line["fee"] == 0 for line in end["results"])
    assert store.audit().ok
    second_id = again[0].of_type("match_end")[0]["match_id"]
    assert second_id != match_id
    done = store.load_match(second_id)
    assert done is not None and done.status == "finished"
    assert store.running_matches() == []
    assert json.dumps(accounts)  # the seats are stored with the match


@pytest.mark.slow
def test_an_escape_survives_a_restart_and_is_settled_once(start_server: StartServer) -> None:
    slow = {"turn_seconds": 60.0, "claim_seconds": 60.0, "starting_silver": RICH}
    first = start_server(**slow)
    tokens = [register(first, f"player{i}", PASSWORD) for i in range(4)]

    async def before() -> tuple[str, int]:
        clients = await seat_four(first, tokens, hands=2, stake=STAKE, profile="laizishanzhuang")
        match_id = clients[0].of_type("table")[0]["match_id"]
        await play_some(clients, 8)
        await clients[3].send({"type": "leave"})
        left = await clients[3].expect("left")
        assert left["escaped"] is True
        await quiet(clients[:3])
        for c in clients:
            await c.close()
        return match_id, clients[3].of_type("table")[0]["seat"]

    match_id, escaper = asyncio.run(before())
    first.stop()
    second = start_server(**slow)

    async def after() -> None:
        clients = [Client(second, t) for t in tokens]
        welcomes = [await c.connect() for c in clients]
        assert [w["at_table"] for w in welcomes] == [True, True, True, False]
        ends = await asyncio.gather(*(play(c, seed=30 + i, timeout=120)
                                      for i, c in enumerate(clients[:3])))
        assert {e["match_id"] for e in ends} == {match_id}
        for c in clients:
            await c.close()

    asyncio.run(after())
    store = second.store
    logged = store.load_match(match_id)
    assert logged is not None
    accounts = [s["account_id"] for s in logged.config["seats"]]
    match = check_settled_like_uninterrupted(store, match_id, dict.fromkeys(accounts, RICH))
    assert [seat for _n, seat, _d in match.escapes] == [escaper]
    game_id = f"{match_id}#escape{escaper}"
    assert store.is_settled(game_id)
    penalties = [e for e in store.ledger(accounts[escaper], limit=None)
                 if e.reference == game_id and e.reason == "escape_penalty"]
    assert len(penalties) == 1 and penalties[0].delta == -match.rules.escape * STAKE


def test_a_log_that_does_not_replay_ends_its_match_and_the_server_starts(
        start_server: StartServer) -> None:
    slow = {"turn_seconds": 60.0, "claim_seconds": 60.0, "starting_silver": RICH}
    first = start_server(**slow)
    tokens = [register(first, f"player{i}", PASSWORD) for i in range(4)]

    async def before() -> str:
        clients = await seat_four(first, tokens, hands=2, stake=STAKE, profile="bianfeng")
        await play_some(clients, 6)
        await quiet(clients)
        for c in clients:
            await c.close()
        match_id: str = clients[0].of_type("table")[0]["match_id"]
        return match_id

    match_id = asyncio.run(before())
    first.stop()
    store = first.store
    logged = store.load_match(match_id)
    assert logged is not None
    # A damaged log (or one from an engine that knew other actions): it does not replay.
    bad = MatchEvent(seq=logged.next_seq, hand_no=0, kind="act", seat=0,
                     data='{"type":"no_such_action"}', source="player")
    store.append_match_events(match_id, logged.epoch, [bad])
    before_silver = {a: store.account(a).silver for a in
                     (s["account_id"] for s in logged.config["seats"])}

    second = start_server(**slow)

    async def after() -> None:
        client = Client(second, tokens[0])
        welcome = await client.connect()
        assert welcome["at_table"] is False
        await client.close()

    asyncio.run(after())
    ended = second.store.load_match(match_id)
    assert ended is not None and ended.status == "aborted"
    assert ended.reason is not None and "could not be resumed" in ended.reason
    assert second.store.running_matches() == []
    assert {a: second.store.account(a).silver for a in before_silver} == before_silver
    assert second.store.audit().ok
