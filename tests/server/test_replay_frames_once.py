"""Replay frames replay the hand once (``server/replay_frames.py``).

The frames routes used to replay a stored hand through the engine twice per request:
once with ``engine.records.replay`` to check and parse the record, then again step by
step to take the views.  Now the views are taken in the replay's own pass
(``replay(events, on_step)``).  The work is counted, not timed: each ``act`` line of the
record is applied to a hand state exactly once.  The frames are still exactly the
engine's views after each step (the oracle of ``test_replay_frames.py``), for hands with
escapes and with concealed kongs (a seat sees the faces of his own, the others do not).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from wuhan_mahjong.engine import HandState, Match, SeededRandom, load_records, random_policy
from wuhan_mahjong.engine.records import VerifyError
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.server.replay_frames import hand_frames

from .test_replay_frames import check_frames

PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")


def _hands(profile: str, seed: int, escape: bool) -> Iterator[list[dict[str, Any]]]:
    """The records (events) of a three-hand match played at random (one seat escaping in
    its first hand with ``escape``)."""
    rng = random.Random(seed)
    policy = random_policy(rng)
    match = Match(get_rules(profile), 3, rng=SeededRandom(bytes([seed]) * 32))
    while not match.finished:
        hand = match.start_hand()
        if escape and not match.escaped and not hand.ended:
            match.escape(seed % 4)
        while not hand.ended:
            seat = next(s for s in hand.to_act() if s not in match.escaped)
            match.apply(seat, policy(hand, seat))
    for summary in match.history:
        yield load_records("\n".join(summary.records))[0]


def _sample() -> list[list[dict[str, Any]]]:
    """Hands of every profile, some with an escape, at least one with a concealed kong."""
    out = [events for i, profile in enumerate(PROFILES) for seed in range(2)
           for events in _hands(profile, 10 * i + seed, escape=seed % 2 == 1)]
    seed = 100
    while not any(_has_concealed_kong(e) for e in out):
        assert seed < 400, "no concealed kong in 300 random matches"
        out.extend(_hands("yuanhang", seed, escape=False))
        seed += 1
    return out


def _has_concealed_kong(events: list[dict[str, Any]]) -> bool:
    return any(e["e"] == "act" and e["action"].get("type") == "kong"
               and e["action"].get("kind") == "concealed" for e in events)


SAMPLE = _sample()


def test_the_sample_has_escapes_and_concealed_kongs() -> None:
    assert any(e["e"] == "escape" for events in SAMPLE for e in events)
    assert any(_has_concealed_kong(events) for events in SAMPLE)


@pytest.mark.parametrize("k", range(len(SAMPLE)))
def test_the_frames_are_the_engine_views_after_each_step(k: int) -> None:
    events = SAMPLE[k]
    plain = [{key: v for key, v in e.items() if key != "_line"} for e in events]
    check_frames(json.loads(json.dumps(hand_frames(events))), plain)


def test_each_act_of_the_record_is_applied_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The work of a request: one replay of the record, not two."""
    applied = 0
    apply = HandState.apply

    def counting(self: HandState, seat: int, action: Any) -> None:
        nonlocal applied
        applied += 1
        apply(self, seat, action)

    monkeypatch.setattr(HandState, "apply", counting)
    for events in SAMPLE:
        applied = 0
        hand_frames(events)
        assert applied == sum(e["e"] == "act" for e in events)


def test_a_record_that_stops_before_the_end_of_the_hand_has_no_frames() -> None:
    events = SAMPLE[0]
    acts = [i for i, e in enumerate(events) if e["e"] == "act"]
    cut = [e for i, e in enumerate(events) if i < acts[len(acts) // 2] or e["e"] == "reveal"]
    with pytest.raises(VerifyError, match="did not finish"):
        hand_frames(cut)
