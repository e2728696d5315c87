"""``record_outcome``: how each seat fared, read from a record's lines, agrees with the
engine's own state (its result, its melds, its escapes) over many played hands."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from engine_helpers import keen_policy

from wuhan_mahjong.engine import HandRecordError, Match, load_records, record_outcome
from wuhan_mahjong.engine.records import SELF_DRAWN_WINS
from wuhan_mahjong.engine.state import HandState
from wuhan_mahjong.rules import PROFILES, get_rules


def _played(profile: str, seed: int, escape_at: int | None = None) -> list[tuple[HandState, str]]:
    """Two hands of a match between keen players; seat 2 escapes at move ``escape_at`` of
    the first hand when given.  Each hand's final state and record text."""
    rng = random.Random(seed)
    match = Match(get_rules(profile), 2, rng=rng)
    policy = keen_policy(rng)
    out = []
    while not match.finished:
        hand = match.start_hand()
        moves = 0
        while not hand.ended:
            if escape_at is not None and moves == escape_at and 2 not in match.escaped:
                match.escape(2)
                continue
            seat = hand.to_act()[0]
            match.apply(seat, policy(hand, seat))
            moves += 1
        out.append((hand, "\n".join(match.history[-1].records)))
    return out


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_outcomes_agree_with_the_engine_state(profile: str) -> None:
    seen = {"self_drawn": 0, "discard_win": 0, "exhausted": 0, "big": 0, "escaped": 0}
    for seed in range(40):
        for hand, text in _played(profile, seed, escape_at=seed if seed % 4 == 0 else None):
            [events] = load_records(text)
            out = record_outcome(events)
            result = hand.result
            assert result is not None
            assert out.profile == profile
            assert out.exhausted == (result.outcome == "exhausted")
            assert sum(line.points for line in out.seats) == 0
            escapers = {e[1] for e in hand.log if e[0] == "escape"}
            for seat, line in enumerate(out.seats):
                assert line.seat == seat
                assert line.points == result.deltas[seat]
                assert line.won == (result.winner == seat)
                assert line.self_drawn == (line.won and result.win_by in SELF_DRAWN_WINS)
                assert line.dealt_in == (result.winner is not None and result.from_seat == seat
                                         and result.win_by not in SELF_DRAWN_WINS)
                # a claimed discard leaves a meld fed by another seat
                assert line.claimed == any(m.from_seat not in (None, seat)
                                           for m in hand.melds[seat])
                assert line.escaped == (seat in escapers)
                settlement = result.settlement
                assert line.big_hands == (tuple(settlement.hands) if line.won and settlement
                                          else ())
            seen["exhausted"] += out.exhausted
            seen["escaped"] += any(line.escaped for line in out.seats)
            for line in out.seats:
                seen["self_drawn"] += line.self_drawn
                seen["discard_win"] += line.won and not line.self_drawn
                seen["big"] += bool(line.big_hands)
    # the cases were all there to check
    assert all(seen.values()), seen


def _hand(*lines: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"e": "header", "profile": "yuanhang"}, *lines]


WIN = {"e": "win", "seat": 0, "win_by": "rob_kong", "from": 3, "deltas": [30, -10, -10, -10],
       "settlement": {"hands": ["qiangganghu"]}}


def test_a_robbed_kong_is_a_deal_in_of_the_konger() -> None:
    out = record_outcome(_hand(WIN))
    assert [line.dealt_in for line in out.seats] == [False, False, False, True]
    assert not out.seats[0].self_drawn and out.seats[0].big_hands == ("qiangganghu",)


@pytest.mark.parametrize(("events", "why"), [
    ([], "header"),
    ([{"e": "deal"}], "header"),
    (_hand({"e": "claim", "seat": 1}), "not ended"),
    (_hand(WIN, {"e": "exhausted", "deltas": [0, 0, 0, 0]}), "ends once"),
    (_hand({"e": "exhausted", "deltas": [0, 0, 0]}), "four integers"),
    (_hand({"e": "exhausted", "deltas": [0, 0, 0, True]}), "four integers"),
    (_hand({"e": "exhausted"}), "deltas"),
    (_hand({**WIN, "seat": 4}), "seat out of range"),
    (_hand({**WIN, "win_by": "discard", "from": None}), "from"),
    (_hand({**WIN, "settlement": {"hands": "qingyise"}}), "list of names"),
    (_hand({**WIN, "settlement": None}), "settlement"),
    ([{"e": "header"}, WIN], "profile"),
])
def test_a_record_that_does_not_say_how_the_hand_ended_is_refused(
        events: list[dict[str, Any]], why: str) -> None:
    with pytest.raises(HandRecordError, match=why):
        record_outcome(json.loads(json.dumps(events)))
