"""Golden play: seeded hands of every profile give exactly the records they always gave.

The engine's speed work (lazy claim windows, claim masks, inline draws ...) must never
change a result.  These hashes were taken from the engine before that work: every line
of every record (deal, each action and pass, draws, claims, the settlement) and every
hand's deltas, for random play with and without ``auto_pass``.  A failure means the
engine now plays or records some hand differently.  If that is intended (a rule or the
record format changed on purpose), say so in the commit and regenerate the hashes with
``python tests/engine/test_engine_golden.py``.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from wuhan_mahjong.engine import new_hand, play_hand, random_policy, record_lines, simple_policy
from wuhan_mahjong.rules import get_rules

CASES: dict[str, tuple[str, dict[str, object]]] = {
    "yuanhang": ("yuanhang", {}),
    "bianfeng-per-opening": ("bianfeng", {"opening_scoring": "per_opening"}),  # 癞子皮杠 on
    "laizishanzhuang": ("laizishanzhuang", {}),  # 发财杠, many wins
    "yuanhang-long-end": ("yuanhang", {"end_phase_wall": 40, "winner_order": "from_discarder"}),
}
HANDS = 120  # per case and auto_pass setting, random play (a few wins)
WON_HANDS = 12  # per case, simple_policy at every seat (nearly all won: settlements)

GOLDEN = {
    "yuanhang": "4555f4e1e8d8992bdc65531400b0ce1290927ef678029796d707995de0c9e726",
    "bianfeng-per-opening": "d58304d57436b83529d09ddd8818dc99b29f32fcc3677936a9563bedaaad0569",
    "laizishanzhuang": "2a17e0c0fa2f1387e4a2b391d5c4a2aafa3b2e9939e1a1b3fb738339320cbca4",
    "yuanhang-long-end": "cd34770ae56273def99d5b440aa096cb92427e3ef63d55a60a4491d3d73fad16",
}


def play_digest(case: str) -> str:
    """sha256 over the records and deltas of HANDS seeded random hands with auto_pass,
    HANDS without, and WON_HANDS played by :func:`simple_policy`."""
    profile, options = CASES[case]
    rules = get_rules(profile, options)
    h = hashlib.sha256()
    for auto_pass, hands in ((True, HANDS), (False, HANDS), (None, WON_HANDS)):
        rng = random.Random(f"golden {case} {auto_pass}")
        policy = random_policy(rng) if auto_pass is not None else simple_policy
        for i in range(hands):
            state = play_hand(new_hand(rules, rng.randrange(4), rng=rng, hand_no=i,
                                       auto_pass=auto_pass is not False), policy)
            assert state.result is not None
            for line in record_lines(state):
                h.update(line.encode())
                h.update(b"\n")
            h.update(repr(state.result.deltas).encode())
    return h.hexdigest()


@pytest.mark.parametrize("case", [c if c in ("yuanhang", "laizishanzhuang")
                                  else pytest.param(c, marks=pytest.mark.slow) for c in sorted(CASES)])
def test_seeded_hands_play_and_record_as_they_always_did(case: str) -> None:
    assert play_digest(case) == GOLDEN[case], (
        f"seeded {case} hands now play or record differently (see the module docstring)")


if __name__ == "__main__":
    for name in CASES:
        print(f"    {name!r}: {play_digest(name)!r},")
