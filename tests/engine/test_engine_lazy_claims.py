"""Lazy claim windows: a discard nobody can use costs a bit test, and changes nothing else."""

from __future__ import annotations

import random

from engine_helpers import keen_policy, scenario, t

from wuhan_mahjong.engine import PASS, WIN, Discard, load_records, new_hand, record_lines, verify
from wuhan_mahjong.rules import get_rules

PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")


def test_the_bit_test_never_hides_a_claim() -> None:
    """Whenever _may_claim says no, the full option list is only 'pass' (a superset check
    over thousands of windows, opened hands and wins included)."""
    rng = random.Random(12)
    checked = claims = wins = 0
    for h in range(150):
        state = new_hand(get_rules(PROFILES[h % 3]), h % 4, rng=rng)  # every seat answers
        policy = keen_policy(rng)
        while not state.ended:
            if state.phase == "claim":
                d, tile = state.pending_from, state.pending_tile
                assert d is not None and tile is not None
                for s in range(4):
                    if s == d:
                        continue
                    full = state._claim_options(s, tile, d)
                    if not state._may_claim(s, tile, d):
                        assert full == (PASS,)
                        checked += 1
                    claims += len(full) > 1
                    wins += full[0] is WIN
            seat = state.to_act()[0]
            state.apply(seat, policy(state, seat))
    assert checked > 5000 and claims > 1000 and wins > 20


def test_a_dead_discard_skips_the_window_but_logs_every_pass() -> None:
    st = scenario({0: "9m"}, draws="1z")
    n = len(st.log)
    st.apply(0, Discard(t("9m")))
    assert st.phase == "turn" and st.current == 1  # no window: seat 1 has drawn
    assert st.log[n:n + 4] == [("act", 0, Discard(t("9m"))), ("act", 1, PASS), ("act", 2, PASS),
                               ("act", 3, PASS)]
    assert st.log[n + 4][0] == "draw"


def test_a_usable_discard_still_opens_the_window() -> None:
    st = scenario({0: "3m", 2: "3m3m"})
    st.apply(0, Discard(t("3m")))
    assert st.phase == "claim" and st.to_act() == (2,)
    assert st.legal_actions(1) == () and st.answers[1] is PASS and st.answers[3] is PASS


def test_lazy_and_full_windows_write_the_same_records() -> None:
    """The same choices with and without auto_pass give line-identical records (passes
    included) and the same decision ids, and both verify."""
    for h in range(40):
        profile = PROFILES[h % 3]
        seed = random.Random(h).getrandbits(32)
        lines, decisions = [], []
        for auto in (True, False):
            rng = random.Random(seed)
            state = new_hand(get_rules(profile), h % 4, rng=rng, auto_pass=auto)
            policy = keen_policy(random.Random(seed + 1))
            while not state.ended:
                seat = state.to_act()[0]
                acts = state.legal_actions(seat)
                state.apply(seat, PASS if acts == (PASS,) else policy(state, seat))
            lines.append(record_lines(state))
            decisions.append(state.decision)
        assert decisions[0] == decisions[1]  # a skipped window still takes its decision id
        fast, full = lines
        (events,) = load_records("\n".join(fast))
        verify(events)
        assert sorted(fast) == sorted(full)  # pass lines may come in another seat order
        assert [x for x in fast if '"pass"' not in x] == [x for x in full if '"pass"' not in x]
