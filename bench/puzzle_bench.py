"""Puzzles: CPU to find a discard puzzle (何切), its tile acceptance counted two ways, and
CPU to find a win question (胡不胡) against answering it.

    python bench/puzzle_bench.py [--puzzles 40] [--first 1]

A puzzle request (``server/puzzles_api.py``) finds puzzle ``number`` of a profile:
``bots/puzzles.py`` deals, lets four greedy bots play to one seat's turn and counts every
discard's shanten and 进张 until a position makes a puzzle.  Reported per profile: the CPU
ms to find one (median, p99, the largest; wall median beside), and for the found
positions the cost of counting every choice's acceptance with the bots' hand evaluator (as
the module does) against the peer, the rules core's ``analysis.shanten`` asked of every
draw (as the first version did), timed in the same run on the same positions; the two
counts are compared and must agree.

A win question (``bots/win_puzzles.py``) plays a whole deal with four greedy bots and asks
the settlement calculator of every winning shape met; the peer is answering the question
found, the calculator on its record as ``POST /api/score`` does (``calculator.score_record``),
timed in the same run.  CPU time is ``time.process_time``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from wuhan_mahjong.analysis import shanten
from wuhan_mahjong.bots.handeval import Evaluator
from wuhan_mahjong.bots.puzzles import Puzzle, make_puzzle
from wuhan_mahjong.bots.win_puzzles import make_win_question
from wuhan_mahjong.calculator import score_record
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import NUM_KINDS

PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _unseen(p: Puzzle) -> list[int]:
    seen = [p.hand.count(t) for t in range(NUM_KINDS)]
    for m in p.melds:
        for t in m.tiles:
            seen[t] += 1
    seen[p.indicator] += 1
    return [4 - n for n in seen]


def _by_evaluator(p: Puzzle) -> list[tuple[int, ...]]:
    rules = get_rules(p.profile)
    counts = [p.hand.count(t) for t in range(NUM_KINDS)]
    whole = Evaluator(counts, 0, p.melds, rules.must_kong_tiles, rules.pengpenghu)
    unseen = _unseen(p)
    out = []
    for c in sorted(p.choices, key=lambda c: c.tile):
        out.append(whole.with_tile(c.tile, -1).acceptance_kinds(unseen, p.laizi))
    return out


def _by_rules_core(p: Puzzle) -> list[tuple[int, ...]]:
    rules = get_rules(p.profile)
    unseen = _unseen(p)
    out = []
    for c in sorted(p.choices, key=lambda c: c.tile):
        rest = list(p.hand)
        rest.remove(c.tile)
        now = shanten(rest, p.melds, p.laizi, rules)
        out.append(tuple(t for t in range(NUM_KINDS)
                         if unseen[t] and t not in rules.must_kong_tiles
                         and shanten([*rest, t], p.melds, p.laizi, rules) < now))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--puzzles", type=int, default=40, help="puzzles per profile")
    parser.add_argument("--first", type=int, default=1, help="the first puzzle number")
    args = parser.parse_args()
    print("| profile | puzzles | find CPU ms: median / p99 / max | wall ms median "
          "| acceptance CPU ms per puzzle, evaluator / rules core (medians) | ratio | agree |")
    print("|---|---|---|---|---|---|---|")
    for profile in PROFILES:
        finds: list[float] = []
        walls: list[float] = []
        fast: list[float] = []
        core: list[float] = []
        agree = True
        for number in range(args.first, args.first + args.puzzles):
            cpu, wall = time.process_time(), time.perf_counter()
            p = make_puzzle(profile, number)
            finds.append((time.process_time() - cpu) * 1000)
            walls.append((time.perf_counter() - wall) * 1000)
            cpu = time.process_time()
            a = _by_evaluator(p)
            fast.append((time.process_time() - cpu) * 1000)
            cpu = time.process_time()
            b = _by_rules_core(p)
            core.append((time.process_time() - cpu) * 1000)
            agree = agree and a == b == [c.kinds for c in sorted(p.choices, key=lambda c: c.tile)]
        f, c = statistics.median(fast), statistics.median(core)
        print(f"| {profile} | {args.puzzles} | {statistics.median(finds):.1f} / "
              f"{_quantile(finds, 0.99):.1f} / {max(finds):.1f} | {statistics.median(walls):.1f} "
              f"| {f:.1f} / {c:.1f} | {c / f:.1f}× | {'yes' if agree else 'NO'} |")
    win_questions(args.puzzles, args.first)


def win_questions(count: int, first: int) -> None:
    print()
    print("| profile | questions | yes | find CPU ms: median / p99 / max | answer CPU ms median "
          "| find ÷ answer (medians) |")
    print("|---|---|---|---|---|---|")
    for profile in PROFILES:
        finds: list[float] = []
        answers: list[float] = []
        yes = 0
        for number in range(first, first + count):
            cpu = time.process_time()
            q = make_win_question(profile, number)
            finds.append((time.process_time() - cpu) * 1000)
            text = json.dumps(q.record)
            cpu = time.process_time()
            answered = score_record(text)
            answers.append((time.process_time() - cpu) * 1000)
            assert answered.body == q.answer
            yes += q.win
        f, a = statistics.median(finds), statistics.median(answers)
        print(f"| {profile} | {count} | {yes} | {f:.1f} / {_quantile(finds, 0.99):.1f} / "
              f"{max(finds):.1f} | {a:.2f} | {f / a:.0f}× |")


if __name__ == "__main__":
    main()
