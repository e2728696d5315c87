"""Legality and its explanations come from one table of requirements (engine/legality.py).

Over random states of every profile: an action is legal exactly when no
requirement explains why not; the explanation names a requirement of the table,
``why_illegal`` and ``IllegalAction`` say the same, and an illegal action changes
nothing.  Every requirement of the table explains some action somewhere (no dead
rules).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engine_helpers import fingerprint, keen_policy, scenario
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_kongs import _added_kong_declared

from wuhan_mahjong.engine import HandState, IllegalAction, new_hand
from wuhan_mahjong.engine.actions import (
    ADDED_KONGS,
    CHIS,
    CONCEALED_KONGS,
    DIRECT_KONGS,
    DISCARDS,
    LAIZI_DISCARD,
    PASS,
    PENGS,
    SPECIAL_KONGS,
    WIN,
    Action,
    Chi,
    Discard,
    Kong,
    Peng,
)
from wuhan_mahjong.engine.legality import ACTION_REQUIREMENTS, SEAT_REQUIREMENTS, explain
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import NUM_KINDS

EVERY_ACTION: tuple[Action, ...] = (
    *DISCARDS, *CHIS, *PENGS, *DIRECT_KONGS, *ADDED_KONGS, *CONCEALED_KONGS,
    *SPECIAL_KONGS.values(), LAIZI_DISCARD, WIN, PASS,
)
RULE_NAMES = {r.name for r in (*SEAT_REQUIREMENTS, *ACTION_REQUIREMENTS)}
RULES = [
    get_rules("yuanhang"),
    get_rules("bianfeng", {"pi_kong": "on"}),
    get_rules("laizishanzhuang", {"pi_kong": "on", "end_phase_wall": 20}),
]


def check_state(state: HandState, seen: Counter[str], actions: tuple[Action, ...] = EVERY_ACTION) -> None:
    """Legal exactly when unexplained, for every seat (and two that do not exist)."""
    for seat in (-1, 0, 1, 2, 3, 4):
        legal = set(state.legal_actions(seat))
        for action in actions:
            v = explain(state, seat, action)
            if action in legal:
                assert v is None, (seat, action, v, state.phase)
                continue
            assert v is not None, f"seat {seat} may not {action} in {state.phase}, and nothing says why"
            assert v.rule in RULE_NAMES and v.message
            assert state.why_illegal(seat, action) == v.message
            seen[v.rule] += 1


def play_and_check(state: HandState, rng: random.Random, seen: Counter[str], every: int) -> None:
    policy = keen_policy(rng)
    step = 0
    while True:
        if step % every == 0 or state.ended:
            check_state(state, seen)
        if state.ended:
            return
        seat = state.to_act()[0]
        # now and then an illegal action: refused with the same requirement, nothing changes
        if step % 7 == 3:
            wrong = next(a for a in rng.sample(EVERY_ACTION, len(EVERY_ACTION))
                         if a not in state.legal_actions(seat))
            before = fingerprint(state)
            v = explain(state, seat, wrong)
            assert v is not None
            try:
                state.apply(seat, wrong)
            except IllegalAction as e:
                assert e.rule == v.rule and str(e) == v.message
            else:  # pragma: no cover - the assertion below reports it
                raise AssertionError(f"{wrong} was applied")
            assert fingerprint(state) == before
        state.apply(seat, policy(state, seat))
        step += 1


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.sampled_from(RULES), st.integers(0, 3), st.booleans())
def test_legal_exactly_when_no_requirement_explains_why_not(
        seed: int, rules: Any, dealer: int, auto_pass: bool) -> None:
    rng = random.Random(seed)
    state = new_hand(rules, dealer, rng=rng, auto_pass=auto_pass)
    play_and_check(state, rng, Counter(), every=3)


def test_every_requirement_explains_something() -> None:
    """No dead rule: each requirement of the table is the reason for some refusal."""
    seen: Counter[str] = Counter()
    for seed in range(6):
        rules = RULES[seed % 3]
        rng = random.Random(seed)
        play_and_check(new_hand(rules, seed % 4, rng=rng, auto_pass=seed % 2 == 0), rng, seen, every=2)
    # 癞子皮杠 when the indicator is a must-kong tile (红中): that tile is played as 红中杠
    state = scenario({0: "7z"}, indicator="7z", pi_kong="on")
    check_state(state, seen)
    assert state.why_illegal(0, SPECIAL_KONGS["pi"]).startswith("癞子皮杠 is not played in this hand")
    # actions made by hand with tiles that do not exist
    check_state(state, seen, (Discard(NUM_KINDS), Kong("concealed", -1), Peng(99), Chi(40)))
    # a robbing window (抢杠)
    check_state(_added_kong_declared(), seen)
    assert set(seen) == RULE_NAMES, sorted(RULE_NAMES - set(seen))


def test_an_explanation_names_the_requirement() -> None:
    state = new_hand(get_rules("yuanhang"), 0, rng=random.Random(5))
    held = {a.tile for a in state.legal_actions(0) if isinstance(a, Discard)}
    missing = next(t for t in range(27) if t not in held and state.counts[0][t] == 0)
    v = explain(state, 0, DISCARDS[missing])
    assert v is not None and v.rule == "discard.in_hand"
    assert v.message == f"{DISCARDS[missing].to_json()['tile']} is not in seat 0's hand"
    assert explain(state, 1, PASS) == explain(state, 1, DISCARDS[missing])  # not his turn, whatever it is
    assert explain(state, 1, PASS) is not None and explain(state, 1, PASS).rule == "turn.own"  # type: ignore[union-attr]
