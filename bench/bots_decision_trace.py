"""A trace of every bot decision over arena deals, to show that a speed-up changes none.

Plays ``--hands`` hands per profile (arena deals of ``--seed``, each deal in its four seat
rotations, as ``wuhan-mahjong arena`` plays them) with the seats ``--seats`` (default one
expert and three greedy seats: the expert shares greedy's hand evaluator) and writes one
line per decision: profile, deal, rotation, decision number, seat, policy, a digest of the
view and the action chosen.  Run it on the old code and on the new and compare the two
files: the first line that differs is the first decision that changed (``--compare``).

    git worktree add /tmp/old <commit>
    PYTHONPATH=/tmp/old/src nice -n 19 python3 bench/bots_decision_trace.py --out /tmp/old.trace
    nice -n 19 python3 bench/bots_decision_trace.py --out /tmp/new.trace
    python3 bench/bots_decision_trace.py --compare /tmp/old.trace /tmp/new.trace

The views are the arena's in-process views (:func:`wuhan_mahjong.bots.view.int_view`), so
the digest changes only when the game does: the same deals played with the same decisions
give the same file, whatever the bots' memos held before.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.arena import _seed_for, arrangements, deal, parse_seats
from wuhan_mahjong.bots.view import int_view
from wuhan_mahjong.engine.state import new_hand
from wuhan_mahjong.rules import get_rules

PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")


def trace(profile: str, seats: list[str], hands: int, seed: int) -> tuple[list[str], float]:
    """The decision lines of ``hands`` hands (rounded up to whole deals of four rotations)
    of ``profile``, and the CPU seconds the play took."""
    rules = get_rules(profile)
    lines: list[str] = []
    cpu = time.process_time()
    for group in range((hands + 3) // 4):
        wall, salt = deal(seed, group)
        arrs = arrangements(seats)
        for r, policies in enumerate(arrs):
            bots = [get_bot(policies[i], _seed_for(seed, group, r, i, max(4, len(arrs))))
                    for i in range(4)]
            state = new_hand(rules, 0, wall=wall, salt=salt, hand_no=group * len(arrs) + r,
                             auto_pass=True)
            n = 0
            while not state.ended:
                s = state.to_act()[0]
                view = int_view(state, s)
                action = bots[s].choose(view)  # type: ignore[arg-type]
                digest = hashlib.blake2b(repr(view).encode(), digest_size=8).hexdigest()
                lines.append(f"{profile} {group} {r} {n} {s} {policies[s]} {digest} {action!r}")
                n += 1
                state.apply(s, action)
    return lines, time.process_time() - cpu


def compare(old: Path, new: Path) -> int:
    """Print the decisions compared and the first difference; 0 when the files agree."""
    a = old.read_text().splitlines()
    b = new.read_text().splitlines()
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            print(f"first difference at decision {i}:\n  old {x}\n  new {y}")
            return 1
    if len(a) != len(b):
        print(f"the same first {min(len(a), len(b))} decisions, then one file ends "
              f"({len(a)} against {len(b)} lines)")
        return 1
    by_policy: dict[str, int] = {}
    for x in a:
        policy = x.split(" ")[5]
        by_policy[policy] = by_policy.get(policy, 0) + 1
    detail = ", ".join(f"{k} {v}" for k, v in sorted(by_policy.items()))
    print(f"identical: {len(a)} decisions ({detail})")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=200, help="hands per profile")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seats", default="expert,greedy,greedy,greedy")
    ap.add_argument("--profiles", default=",".join(PROFILES))
    ap.add_argument("--out", type=Path, help="the trace file to write")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    args = ap.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        ap.error("--out or --compare")
    seats = parse_seats(args.seats)
    out: list[str] = []
    for profile in args.profiles.split(","):
        lines, cpu = trace(profile, seats, args.hands, args.seed)
        print(f"{profile}: {len(lines)} decisions, {cpu:.1f} s CPU", file=sys.stderr)
        out.extend(lines)
    args.out.write_text("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
