"""Where the expert's edge over greedy comes from, decision by decision (docs/bots-log.md).

Each hand of a TUNING seed is played twice on the same wall: four greedy seats, and the
expert at seat 0 with three greedy seats.  The two games are identical until the expert
first decides otherwise than greedy would on the same view; that decision is classified
(a discard kept for a big-hand target, a push-or-fold swap, a claim passed or made...) and
credited with the difference of seat 0's result between the two games.  Later decisions
follow from the first, so the credit is the first deviation's and what it led to.

    nice -n 19 python3 bench/bots_first_deviation.py --profile laizishanzhuang --seed 116 \\
        --deals 0:1500 --out /tmp/fd_a.txt
    python3 bench/bots_first_deviation.py --report /tmp/fd_a.txt /tmp/fd_b.txt

Never run it on a publication seed (docs/bots.md, Evaluation protocol).
"""

from __future__ import annotations

import argparse
import ast
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from _seeds import PUBLICATION_SEEDS  # bench/_seeds.py
from wuhan_mahjong.bots.arena import deal
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot, evaluator
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView, new_hand, seat_view
from wuhan_mahjong.engine.actions import Action, Discard
from wuhan_mahjong.rules import Rules, get_rules


def classify(view: SeatView, mine: Action, greedy: Action, expert: ExpertBot,
             defended: bool) -> str:
    """What kind of decision the expert made differently (``defended``: its push-or-fold
    layer changed this decision)."""
    t = SeatReading(view)
    ev = evaluator(t.hand, t.melds, t)
    if isinstance(mine, Discard) and isinstance(greedy, Discard):
        sh_mine, sh_greedy = ev.shanten_after(mine.tile, -1), ev.shanten_after(greedy.tile, -1)
        target = expert.shanten_key(ev, mine.tile)[1]
        if defended:
            why = "defence"
        elif sh_mine == 0:
            why = "ready: value of the waits"
        else:
            why = "big target " + ("qys" if target.startswith("qys") else target)
        slower = "" if sh_mine == sh_greedy else f", {sh_mine - sh_greedy} step slower"
        return f"discard: {why}{slower}"
    name_mine, name_greedy = type(mine).__name__.lower(), type(greedy).__name__.lower()
    if view["phase"] in ("claim", "rob"):
        state = "opened" if t.opened else "closed"
        return f"claim: {name_mine} where greedy {name_greedy}s ({state}, shanten {min(ev.best()[0], 3)})"
    return f"turn: {name_mine} where greedy {name_greedy}s"


def play(rules: Rules, seed: int, hand_no: int, dealer: int, with_expert: bool) -> tuple[int, str | None]:
    """Seat 0's result, and the first decision where the expert left greedy's play."""
    wall, salt = deal(seed, hand_no // 4)
    bots: list[GreedyBot] = [GreedyBot(1000 + i) for i in range(4)]
    expert = ExpertBot(7) if with_expert else None
    if expert is not None:
        bots[0] = expert
    state = new_hand(rules, dealer, wall=wall, salt=salt, hand_no=hand_no, auto_pass=True)
    first: str | None = None
    while not state.ended:
        seat = state.to_act()[0]
        view = seat_view(state, seat)
        swaps = expert.defended if expert is not None else 0
        action = bots[seat].choose(view)
        if expert is not None and seat == 0 and first is None:
            greedy = GreedyBot(1000).choose(view)
            if greedy != action:
                first = classify(view, action, greedy, expert, expert.defended > swaps)
        state.apply(seat, action)
    assert state.result is not None
    return state.result.deltas[0], first


def report(paths: list[Path]) -> None:
    credit: dict[str, list[float]] = defaultdict(list)
    for path in paths:
        for line in path.read_text().splitlines():
            kind, _, value = line.rpartition(" ")
            credit[ast.literal_eval(kind)].append(float(value))
    hands = sum(len(xs) for xs in credit.values())
    total = sum(sum(xs) for xs in credit.values())
    print(f"{hands} first deviations, {total:+.0f} points in all")
    print("| first deviation | n | mean [95% CI] | total |\n|---|---|---|---|")
    for kind, xs in sorted(credit.items(), key=lambda kv: -sum(kv[1])):
        m = statistics.mean(xs)
        half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.nan
        print(f"| {kind} | {len(xs)} | {m:+.1f} [{m - half:+.1f}, {m + half:+.1f}] | {sum(xs):+.0f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", default="laizishanzhuang")
    ap.add_argument("--seed", type=int, default=116)
    ap.add_argument("--deals", default="0:100", help="FIRST:END, deals of the seed (4 hands each)")
    ap.add_argument("--out", type=Path, help="one line per first deviation (appended)")
    ap.add_argument("--report", type=Path, nargs="+", help="print the table of saved runs")
    args = ap.parse_args()
    if args.report:
        report(args.report)
        return 0
    if args.seed in PUBLICATION_SEEDS:
        print(f"error: {args.seed} is a publication seed (docs/bots.md)", file=sys.stderr)
        return 2
    first_deal, _, end = args.deals.partition(":")
    rules = get_rules(args.profile)
    lines = []
    for d in range(int(first_deal), int(end)):
        for rotation in range(4):
            hand_no = d * 4 + rotation
            base, _ = play(rules, args.seed, hand_no, rotation, with_expert=False)
            mine, first = play(rules, args.seed, hand_no, rotation, with_expert=True)
            if first is not None:
                lines.append(f"{first!r} {mine - base}")
    if args.out:
        with args.out.open("a") as f:
            f.write("".join(line + "\n" for line in lines))
        report([args.out])
    else:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
