"""A hand reviewed by a bot (复盘, ``bots/review.py``), checked against an independent walk
of the same record with the engine: every decision of the seat that had an alternative is
there, with the bot's choice on the view the player had, and the plain marks (a slower
discard, a win passed) agree with the engine's own legal actions and a shanten read from
the state after each legal discard.  Hands played by a careless player, so that the marks
are not all false."""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

import pytest

from wuhan_mahjong.analysis import shanten
from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.review import review_hand
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import new_hand, seat_view
from wuhan_mahjong.engine.actions import WIN, Discard, LaiziDiscard, action_from_json
from wuhan_mahjong.engine.match import play_hand, simple_policy
from wuhan_mahjong.engine.records import VerifyError, load_records, record_lines, start_state
from wuhan_mahjong.engine.state import HandState
from wuhan_mahjong.rules import get_rules


def _careless(rng: random.Random) -> Any:
    """The engine's simple player, who one time in three does anything legal instead."""
    def policy(state: HandState, seat: int) -> Any:
        acts = state.legal_actions(seat)
        return rng.choice(acts) if rng.random() < 1 / 3 else simple_policy(state, seat)
    return policy


def _hand(profile: str, seed: int) -> list[dict[str, Any]]:
    state = new_hand(get_rules(profile), dealer=seed % 4, rng=random.Random(seed))
    play_hand(state, _careless(random.Random(seed + 1000)))
    return load_records("\n".join(record_lines(state)))[0]


@lru_cache(maxsize=1 << 16)
def _shanten(tiles: tuple[int, ...], melds: tuple[Any, ...], laizi: int, rules: Any) -> int:
    """The rules core's shanten, each hand asked once (the walks of the four seats and the
    acceptance's draws reach the same hands many times over)."""
    return shanten(list(tiles), list(melds), laizi, rules)


def _shanten_of(tiles: list[int], r: SeatReading) -> int:
    return _shanten(tuple(sorted(tiles)), tuple(r.melds), r.laizi, r.rules)


def _shanten_after(state: HandState, seat: int, action: Any) -> int:
    """The shanten of the seat's concealed tiles once the engine applied the discard, the
    tiles that may only leave as kongs set aside."""
    after = state.copy()
    after.apply(seat, action)
    reading = SeatReading(seat_view(after, seat))
    return _shanten_of([x for x in reading.hand if x not in reading.must], reading)


def _acceptance_after(state: HandState, seat: int, action: Any) -> int:
    """进张 of the seat's concealed tiles once the engine applied the discard: each unseen
    kind drawn in turn and the shanten asked again (not the bots' hand evaluator, which the
    review uses)."""
    after = state.copy()
    after.apply(seat, action)
    r = SeatReading(seat_view(after, seat))
    rest = [x for x in r.hand if x not in r.must]
    now = _shanten_of(rest, r)
    return sum(n for kind, n in enumerate(r.unseen) if n and kind not in r.must
               and _shanten_of([*rest, kind], r) < now)


def _expected(events: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """The review, from a walk of the record with the engine's state and legal actions."""
    bot = get_bot("expert", 0)
    state = start_state(events)
    out = []
    step = 0
    for ev in events[1:]:
        if ev["e"] not in ("act", "escape"):
            continue
        if ev["e"] == "act":
            who, action = ev["seat"], action_from_json(ev["action"])
            legal = state.legal_actions(who)
            if who == seat and len(legal) >= 2:
                discards = [a for a in legal if isinstance(a, (Discard, LaiziDiscard))]
                played_s = best_s = None
                if isinstance(action, (Discard, LaiziDiscard)):
                    played_s = _shanten_after(state, seat, action)
                    best_s = min(_shanten_after(state, seat, a) for a in discards)
                suggested = bot.choose(seat_view(state, seat))
                out.append({"step": step, "played": action.to_json(),
                            "suggested": suggested.to_json(),
                            "accept_played": _acceptance_after(state, seat, action)
                            if isinstance(action, (Discard, LaiziDiscard)) else None,
                            "accept_suggested": _acceptance_after(state, seat, suggested)
                            if isinstance(suggested, (Discard, LaiziDiscard)) else None,
                            "slower": played_s is not None and best_s is not None
                            and played_s > best_s,
                            "missed_win": WIN in legal and action != WIN,
                            "shanten_played": played_s, "shanten_best": best_s})
            state.apply(who, action)
        else:
            state.note_escape(ev["seat"], ev["penalty"], ev["deltas"])
        step += 1
    return out


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
def test_the_review_agrees_with_a_walk_of_the_record(profile: str) -> None:
    marks = {"slower": 0, "missed_win": 0, "disagree": 0}
    for seed in range(8):
        events = _hand(profile, seed)
        for seat in range(4):
            review = review_hand(events, seat)
            got = [{k: d[k] for k in ("step", "played", "suggested", "slower", "missed_win",
                                      "shanten_played", "shanten_best", "accept_played",
                                      "accept_suggested")}
                   for d in review["decisions"]]
            assert got == _expected(events, seat), (profile, seed, seat)
            summary = review["summary"]
            decisions = review["decisions"]
            assert summary == {"decisions": len(decisions),
                               "agreed": sum(d["played"] == d["suggested"] for d in decisions),
                               "slower": sum(d["slower"] for d in decisions),
                               "missed_wins": sum(d["missed_win"] for d in decisions)}
            assert all(d["agree"] == (d["played"] == d["suggested"]) for d in decisions)
            marks["slower"] += summary["slower"]
            marks["missed_win"] += summary["missed_wins"]
            marks["disagree"] += summary["decisions"] - summary["agreed"]
    assert marks["slower"] > 0 and marks["disagree"] > 0, marks  # the marks can be true


def test_a_missed_win_is_marked() -> None:
    found = 0
    for seed in range(40):
        events = _hand("yuanhang", seed)
        for seat in range(4):
            found += review_hand(events, seat)["summary"]["missed_wins"]
        if found:
            break
    assert found > 0


def test_the_same_review_every_time_and_bad_input() -> None:
    events = _hand("bianfeng", 3)
    assert review_hand(events, 2) == review_hand(events, 2)
    for seat in (-1, 4):
        with pytest.raises(ValueError, match="not one of 0-3"):
            review_hand(events, seat)
    cut = [*[ev for ev in events if ev["e"] != "act"][:3], events[-1]]  # no actions left
    with pytest.raises(VerifyError):
        review_hand(cut, 0)
