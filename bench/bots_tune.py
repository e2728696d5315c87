"""Paired tuning runs for docs/bots.md: several variants of a bot, each against three
greedy seats, on the same duplicate deals of a TUNING seed, compared deal by deal with
the first variant (the base), so the luck of the deal cancels twice (rotations within a
deal, and the same deals for every variant).

    nice -n 19 python3 bench/bots_tune.py --profile laizishanzhuang --seed 31 --deals 300 \\
        base=expert 'def0=expert:defence=0'

A variant is ``NAME=POLICY[:OPT=VALUE,...]`` with ``POLICY`` ``expert`` or ``search``
and options passed to its constructor (numbers; 0/1 for booleans).  For each variant:
points per hand against greedy (variant − greedy per deal, with its 95% interval), win
and deal-in rates, p99 decision CPU ms, and variant − base per deal with its interval.
Never run it on a publication seed (docs/bots.md, Evaluation protocol).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

from wuhan_mahjong.bots import Bot, register
from wuhan_mahjong.bots.arena import BotPool, ci95, percentile, play_group
from wuhan_mahjong.rules import get_rules

PUBLICATION = {20261201, 20261202, 20261203}


def _factory(policy: str, opts: dict[str, float]) -> Callable[[int | None], Bot]:
    def make(seed: int | None) -> Bot:
        if policy == "search":
            from wuhan_mahjong.bots.search import SearchBot
            return SearchBot(seed, **opts)  # type: ignore[arg-type]
        from wuhan_mahjong.bots.expert import ExpertBot
        return ExpertBot(seed, **opts)  # type: ignore[arg-type]
    return make


def _parse(spec: str) -> tuple[str, str, dict[str, float]]:
    name, _, rest = spec.partition("=")
    policy, _, optstr = rest.partition(":")
    opts: dict[str, float] = {}
    for kv in filter(None, optstr.split(",")):
        k, _, v = kv.partition("=")
        opts[k] = float(v)
    return name, policy, opts


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--profile", required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--first", type=int, default=0, help="first deal number")
    p.add_argument("--progress", action="store_true", help="running differences on stderr")
    p.add_argument("variants", nargs="+")
    args = p.parse_args()
    if args.seed in PUBLICATION:
        sys.exit(f"seed {args.seed} is a publication seed (docs/bots.md)")
    rules = get_rules(args.profile)
    names = []
    for spec in args.variants:
        name, policy, opts = _parse(spec)
        register("tune_" + name, _factory(policy, opts))
        names.append(name)
    pool = BotPool()
    base = names[0]
    diff: dict[str, list[float]] = {n: [] for n in names}  # variant − greedy per deal
    stats = {n: {"hands": 0, "wins": 0, "deal_ins": 0, "win_pts": 0, "deal_pts": 0} for n in names}
    times: dict[str, list[float]] = {n: [] for n in names}
    c0, w0 = time.process_time(), time.perf_counter()
    for g in range(args.first, args.first + args.deals):
        for n in names:
            me = "tune_" + n
            mine, theirs = [], []
            for h in play_group(rules, [me, "greedy", "greedy", "greedy"], args.seed, g, pool):
                for s, pol in enumerate(h.policies):
                    if pol != me:
                        theirs.append(h.deltas[s])
                        continue
                    mine.append(h.deltas[s])
                    times[n].extend(h.times[s])
                    st = stats[n]
                    st["hands"] += 1
                    if h.winner == s:
                        st["wins"] += 1
                        st["win_pts"] += h.deltas[s]
                    elif h.from_seat == s and h.win_by != "self_draw":
                        st["deal_ins"] += 1
                        st["deal_pts"] += h.deltas[s]
            diff[n].append(statistics.fmean(mine) - statistics.fmean(theirs))
        if args.progress and (g + 1) % 10 == 0:
            print(f"deal {g + 1}: " + " ".join(
                f"{n} {statistics.fmean(a - b for a, b in zip(diff[n], diff[base], strict=True)):+.1f}"
                for n in names[1:]), file=sys.stderr, flush=True)
    print(f"profile {args.profile} seed {args.seed} deals {args.first}..{args.first + args.deals - 1}"
          f" ({4 * args.deals} hands per variant); {time.process_time() - c0:.0f} s CPU,"
          f" {time.perf_counter() - w0:.0f} s wall")
    print("| variant | − greedy [95% CI] | win | deal-in | pts/win | pts/deal-in | p99 ms |"
          " − base [95% CI] |")
    print("|---|---|---|---|---|---|---|---|")
    for n in names:
        st = stats[n]
        m, h = ci95(diff[n])
        d = [a - b for a, b in zip(diff[n], diff[base], strict=True)]
        bm, bh = ci95(d) if n != base else (0.0, 0.0)
        print(f"| {n} | {m:+.2f} [{m - h:+.2f}, {m + h:+.2f}] |"
              f" {st['wins'] / st['hands']:.1%} | {st['deal_ins'] / st['hands']:.1%} |"
              f" {st['win_pts'] / max(1, st['wins']):+.0f} | {st['deal_pts'] / max(1, st['deal_ins']):+.0f} |"
              f" {1000 * percentile(times[n], 99):.1f} |"
              f" {bm:+.2f} [{bm - bh:+.2f}, {bm + bh:+.2f}] |")
    pool.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
