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

from wuhan_mahjong.bots import Bot
from wuhan_mahjong.bots.arena import BotPool, arrangements, parse_seats, play_group
from wuhan_mahjong.engine import Action, SeatView
from wuhan_mahjong.rules import get_rules

PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")


class _Recorder:
    """A seat's bot that writes each of its decisions to the trace."""

    def __init__(self, bot: Bot, policy: str, seat: int, hand: list[str],
                 decisions: list[int], lines: list[str]) -> None:
        self.bot, self.policy, self.seat = bot, policy, seat
        self.hand, self.decisions, self.lines = hand, decisions, lines
        self.name = bot.name
        self.accepts_int_view = bool(getattr(bot, "accepts_int_view", False))

    def choose(self, view: SeatView) -> Action:
        action = self.bot.choose(view)
        digest = hashlib.blake2b(repr(view).encode(), digest_size=8).hexdigest()
        self.lines.append(f"{' '.join(self.hand)} {self.decisions[0]} {self.seat} {self.policy} "
                          f"{digest} {action!r}")
        self.decisions[0] += 1
        return action


class _RecordingPool(BotPool):
    """The arena's bots, each wrapped in a :class:`_Recorder`: :func:`play_group` asks for
    the four seats of each arrangement in turn, which names the hand and the seat."""

    def __init__(self, profile: str, arrangements_per_deal: int) -> None:
        super().__init__()
        self.profile, self.per = profile, arrangements_per_deal
        self.group = 0
        self.made = 0
        self.lines: list[str] = []
        self._hand: list[str] = []
        self._decisions = [0]

    def get(self, spec: str, seed: int) -> Bot:
        seat = self.made % 4
        if seat == 0:  # the first seat of the next hand
            rotation = (self.made // 4) % self.per
            self._hand, self._decisions = [self.profile, str(self.group), str(rotation)], [0]
        self.made += 1
        return _Recorder(super().get(spec, seed), spec, seat, self._hand, self._decisions, self.lines)


def trace(profile: str, seats: list[str], hands: int, seed: int) -> tuple[list[str], float]:
    """The decision lines of ``hands`` hands (rounded up to whole deals of four rotations)
    of ``profile``, played by the arena (:func:`~wuhan_mahjong.bots.arena.play_group`), and
    the CPU seconds the play took."""
    rules = get_rules(profile)
    pool = _RecordingPool(profile, len(arrangements(seats)))
    cpu = time.process_time()
    for group in range((hands + 3) // 4):
        pool.group = group
        play_group(rules, seats, seed, group, pool)
    return pool.lines, time.process_time() - cpu


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
