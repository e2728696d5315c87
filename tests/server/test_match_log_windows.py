"""A window's answers are one ``window`` event of the match log (``server/table.py``
``Table._flush``, ``store/matchlog.py``), and a log of either form replays the same.

A window's answers reach the engine together when it closes, so they are written as one
row: three answers a discard were three ``act`` rows before, most of the log's rows.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

import pytest

from wuhan_mahjong.engine import Match, SeededRandom
from wuhan_mahjong.engine.actions import Action
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.server.table import ResumeError, replay_log
from wuhan_mahjong.store import MatchEvent, applied_actions, window_data

from .harness import StartServer
from .test_bot_worker import auto_table, play_auto_match, replays_identically


def _fresh_match(config: Mapping[str, Any], seed: str) -> Match:
    rules = get_rules(str(config["profile"]),
                      {k: v for k, v in dict(config["rules"]).items() if k != "profile"})
    return Match(rules, int(config["hands"]), rng=SeededRandom(bytes.fromhex(seed)))


def test_a_played_hand_logs_each_window_as_one_event(start_server: StartServer) -> None:
    server = start_server(bot="greedy", bot_worker="inline")
    match_id = play_auto_match(server)
    events = replays_identically(server.store, match_id)
    windows = [e for e in events if e.kind == "window"]
    acts = [e for e in events if e.kind == "act"]
    discards = [e for e in acts if json.loads(e.data or "")["type"] == "discard"]
    assert discards and windows
    # every answer to a window is inside a window event: no act is a pass or a claim
    assert {json.loads(e.data or "")["type"] for e in acts} <= {
        "discard", "kong", "special_kong", "laizi_discard", "win"}
    for w in windows:
        assert w.seat is None and w.source is None
        answers = json.loads(w.data or "")
        seats = [a[0] for a in answers]
        assert seats == sorted(set(seats)) and 1 <= len(seats) <= 3
        assert all(a[2] in ("player", "timeout", "auto", "bot") for a in answers)
    # a discard's claim window is one row for its three answers
    spelled = applied_actions(events)
    assert len(spelled) > len(events)
    assert sum(len(json.loads(w.data or "")) for w in windows) == len(spelled) - len(events) + len(
        windows)

    # The same log written the old way (each answer an act of its own) replays the same.
    logged = server.store.load_match(match_id)
    assert logged is not None
    new, old = (_fresh_match(logged.config, logged.seed) for _ in range(2))
    replay_log(new, events)
    replay_log(old, spelled)
    assert new.totals == old.totals == list(logged.totals)
    assert [h.records for h in new.history] == [h.records for h in old.history]


def test_applied_actions_spells_a_window_out_in_order() -> None:
    events = [
        MatchEvent(0, 0, "deal", data="c0"),
        MatchEvent(1, 0, "act", seat=1, data='{"type":"discard","tile":"1m"}', source="player"),
        MatchEvent(2, 0, "window", data=window_data([(2, {"type": "pass"}, "timeout"),
                                                     (3, {"type": "peng", "tile": "1m"}, "bot")])),
        MatchEvent(3, 0, "auto", seat=2, data="on"),
    ]
    assert applied_actions(events) == [
        events[0], events[1],
        MatchEvent(2, 0, "act", seat=2, data='{"type":"pass"}', source="timeout"),
        MatchEvent(2, 0, "act", seat=3, data='{"type":"peng","tile":"1m"}', source="bot"),
        events[3],
    ]
    assert applied_actions([MatchEvent(0, 0, "window", data="[]")]) == []


@pytest.mark.parametrize("data", [None, "", "{}", "[1]", "[[1,2]]", '[[true,{"type":"pass"},null]]',
                                  '[["1",{"type":"pass"},null]]', '[[1,"pass",null]]',
                                  '[[1,{"type":"pass"},7]]', "[[1,{},null]"])
def test_a_malformed_window_does_not_replay(data: str | None) -> None:
    with pytest.raises(ValueError):
        applied_actions([MatchEvent(0, 0, "window", data=data)])
    match = Match(get_rules("yuanhang"), 1, rng=SeededRandom(bytes(32)))
    with pytest.raises(ResumeError):
        replay_log(match, [MatchEvent(0, 0, "deal"), MatchEvent(1, 0, "window", data=data)])


def test_a_window_answer_the_engine_refuses_does_not_replay() -> None:
    match = Match(get_rules("yuanhang"), 1, rng=SeededRandom(bytes(32)))
    with pytest.raises(ResumeError):
        replay_log(match, [MatchEvent(0, 0, "deal"),
                           MatchEvent(1, 0, "window", data=window_data([(1, {"type": "pass"},
                                                                          "player")]))])


def test_a_window_the_engine_fails_halfway_aborts_the_match_before_it(
        start_server: StartServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A window closes by handing its answers to the engine one by one (``Table._flush``).
    Should the engine fail on one after taking another (a fault: each answer was legal when
    it came), the table aborts the match: the player is told, the stored log ends before the
    window (nothing of it half-written) and replays, and the unfinished hand moves no points."""
    server = start_server(bot="greedy", bot_worker="inline")
    real_apply = Match.apply
    windows: dict[tuple[int, int, int, int | None], int] = {}
    failed: list[int] = []

    def apply(self: Match, seat: int, action: Action) -> None:
        hand = self.hand
        if not failed and hand is not None and hand.phase == "claim":
            key = (id(self), hand.hand_no, sum(len(r) for r in hand.rivers), hand.pending_from)
            windows[key] = windows.get(key, 0) + 1
            if windows[key] == 2:  # the second answer of the first window
                failed.append(seat)
                raise RuntimeError("the engine refuses an answer (injected)")
        real_apply(self, seat, action)

    monkeypatch.setattr(Match, "apply", apply)

    async def scenario() -> str:
        c, table = await auto_table(server)
        end = await c.expect("match_end", timeout=120)
        assert end.get("reason") == "server_error", end
        await c.close()
        return str(table["match_id"])

    match_id = asyncio.run(scenario())
    assert failed  # the fault fired once; the engine is itself again from here
    logged = server.store.load_match(match_id)
    assert logged is not None and logged.status == "aborted"
    # every window closed before the failing one is logged whole (one with a single answer
    # can come first, as the deal falls), and nothing of the failing one: the windows seen
    # are those, plus the failing one (whose second answer raised)
    assert len([e for e in logged.events if e.kind == "window"]) == len(windows) - 1
    # the guest's "auto on" may reach the table after the first discard, while the window is
    # open, and is then logged after that discard: it is no answer to the window
    played = [e for e in logged.events if e.kind != "auto"]
    last = played[-1]
    assert last.kind == "act" and json.loads(last.data or "")["type"] == "discard"
    assert all(e.kind == "auto" for e in logged.events[logged.events.index(last) + 1:])
    match = _fresh_match(logged.config, logged.seed)
    replay_log(match, logged.events)  # the log replays: it stops at the window's discard
    hand = match.hand
    assert hand is not None and hand.phase == "claim" and not any(hand.answers)
    assert list(logged.totals) == [0, 0, 0, 0] == match.totals
