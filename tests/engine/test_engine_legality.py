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

import pytest
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
from wuhan_mahjong.engine.legality import (
    ACTION_REQUIREMENTS,
    SEAT_REQUIREMENTS,
    WIN_OR_PASS,
    allowed,
    claim_actions,
    claim_candidates,
    explain,
    phase_violation,
    seat_violation,
    turn_actions,
    turn_candidates,
    win_or_pass,
)
from wuhan_mahjong.meld import Meld
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
            # what the phase alone refuses (a reader of a view asks it) is never legal
            by_phase = phase_violation(state.phase, action)
            assert by_phase is None or v is not None, (seat, action, by_phase)
            if action in legal:
                assert v is None, (seat, action, v, state.phase)
                continue
            assert v is not None, f"seat {seat} may not {action} in {state.phase}, and nothing says why"
            assert v.rule in RULE_NAMES and v.message
            assert state.why_illegal(seat, action) == v.message
            seen[v.rule] += 1
    check_generators(state)


def check_generators(state: HandState, played: bool = True) -> None:
    """The generators of legal actions return what the table keeps of their candidates (and,
    in a ``played`` state, what ``legal_actions`` offers)."""
    for seat in range(4):
        if state.phase == "turn" and seat == state.current:
            generated = turn_actions(state, seat)
            reference = allowed(state, seat, turn_candidates(state, seat))
        elif state.phase == "claim" and seat != state.pending_from:
            generated = claim_actions(state, seat)
            reference = allowed(state, seat, claim_candidates(state, seat))
        elif (state.phase == "rob" and seat != state.pending_from) or (
                state.phase == "final" and seat == state.current):
            generated, reference = win_or_pass(state, seat), allowed(state, seat, WIN_OR_PASS)
        else:
            continue
        assert generated == reference, (state.phase, seat, generated, reference)
        if played and seat_violation(state, seat) is None and (
                state.phase != "claim" or len(state.legal_actions(seat)) > 1):
            assert state.legal_actions(seat) == generated


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


HANDS = (st.integers(0, 2**32), st.sampled_from(RULES), st.integers(0, 3), st.booleans())
"""A seed, the rules, the dealer, auto-pass or not."""


def check_hand(seed: int, rules: Any, dealer: int, auto_pass: bool) -> None:
    rng = random.Random(seed)
    state = new_hand(rules, dealer, rng=rng, auto_pass=auto_pass)
    play_and_check(state, rng, Counter(), every=3)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(*HANDS)
def test_legal_exactly_when_no_requirement_explains_why_not(
        seed: int, rules: Any, dealer: int, auto_pass: bool) -> None:
    check_hand(seed, rules, dealer, auto_pass)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(*HANDS)
def test_legal_exactly_when_no_requirement_explains_why_not_thoroughly(
        seed: int, rules: Any, dealer: int, auto_pass: bool) -> None:
    check_hand(seed, rules, dealer, auto_pass)


@pytest.mark.parametrize("hands", [4, pytest.param(6, marks=pytest.mark.slow)])
def test_every_requirement_explains_something(hands: int) -> None:
    """No dead rule: each requirement of the table is the reason for some refusal (in the
    first four hands already; CI plays two more)."""
    seen: Counter[str] = Counter()
    for seed in range(hands):
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


def test_the_phase_alone_refuses_what_no_state_makes_legal() -> None:
    """``phase_violation`` asks only the requirements marked ``phase_only``, without a
    state (reading one would fail here); in a claim window every claim type and the pass
    pass it, on a turn every move from the hand."""
    phases = ("turn", "claim", "rob", "final", "ended")
    offered = {p: {type(a).__name__ for a in EVERY_ACTION if phase_violation(p, a) is None}
               for p in phases}
    assert offered == {
        "turn": {"Discard", "Kong", "SpecialKong", "LaiziDiscard", "Win"},
        "claim": {"Chi", "Peng", "Kong", "Win", "Pass"},
        "rob": {"Win", "Pass"}, "final": {"Win", "Pass"}, "ended": set()}
    assert all(phase_violation("turn", k) is None for k in (*ADDED_KONGS, *CONCEALED_KONGS))
    assert all(phase_violation("turn", k) is not None for k in DIRECT_KONGS)
    assert all(phase_violation("claim", k) is None for k in DIRECT_KONGS)
    assert all(phase_violation("claim", k) is not None for k in (*ADDED_KONGS, *CONCEALED_KONGS))


def test_an_explanation_names_the_requirement() -> None:
    state = new_hand(get_rules("yuanhang"), 0, rng=random.Random(5))
    held = {a.tile for a in state.legal_actions(0) if isinstance(a, Discard)}
    missing = next(t for t in range(27) if t not in held and state.counts[0][t] == 0)
    v = explain(state, 0, DISCARDS[missing])
    assert v is not None and v.rule == "discard.in_hand"
    assert v.message == f"{DISCARDS[missing].to_json()['tile']} is not in seat 0's hand"
    assert explain(state, 1, PASS) == explain(state, 1, DISCARDS[missing])  # not his turn, whatever it is
    assert explain(state, 1, PASS) is not None and explain(state, 1, PASS).rule == "turn.own"  # type: ignore[union-attr]


def _synthetic_state(rules: Any, rng: random.Random) -> HandState:
    """A state the game rarely reaches: hands heavy in pairs, triples and fours (of the laizi,
    the indicator and the must-kong tiles too), pengs, the end phase, any phase and pending
    tile.  Legality reads only these fields, so the generators must still agree with the table."""
    state = new_hand(rules, rng.randrange(4), rng=rng)
    state.phase = rng.choice(["turn", "claim", "rob", "final"])
    state.current = rng.randrange(4)
    window = state.phase in ("claim", "rob")
    near_laizi = [k for k in range(state.laizi - 2, state.laizi + 3) if 0 <= k < NUM_KINDS]
    pending = rng.choice([rng.randrange(NUM_KINDS), rng.choice(near_laizi)])
    special = [state.laizi, state.indicator, *state.must, pending, *near_laizi]
    for s in range(4):
        pengs = rng.sample(range(NUM_KINDS), rng.randint(0, 2))
        room = [1 if k in pengs else 4 for k in range(NUM_KINDS)]  # four of a kind at most
        if window:
            room[pending] = min(room[pending], 3)
        counts = [0] * NUM_KINDS
        size = (13 if window or s != state.current else 14) - 3 * len(pengs)
        while sum(counts) < size:
            k = rng.choice(special) if rng.random() < 0.25 else rng.randrange(NUM_KINDS)
            counts[k] = min(room[k], counts[k] + rng.randint(1, size - sum(counts)))
        state.counts[s] = counts
        state.packed[s] = sum(n << (3 * k) for k, n in enumerate(counts) if k != state.laizi)
        state.melds[s] = [Meld("peng", (k, k, k), (s + 1) % 4) for k in pengs]
        state.openings[s] = len(pengs)
    state.end_phase = rng.random() < 0.4
    held = [k for k in range(NUM_KINDS) if state.counts[state.current][k]]
    state.drawn = rng.choice([None, rng.choice(held)])
    state.draw_source = "wall" if state.drawn is not None else None
    if window:
        state.pending_tile = pending
        state.pending_from = state.current
        state.waiting = [s != state.current for s in range(4)]
    state.decision += 1
    state._legal = [None] * 4
    return state


def test_generators_agree_with_the_table_on_unusual_states() -> None:
    for seed in range(1500):
        rng = random.Random(seed)
        check_generators(_synthetic_state(RULES[seed % 3], rng), played=False)
