"""Where a policy's wins get their size: every win of a run against three greedy seats
on a TUNING seed, split by big hand / small hand, the winner's multiplier and the
factors that made it (openings, 红中 / laizi kongs, hard hand, self-draw...), and which
payments reached a cap.  Written for the expert's smaller wins (docs/bots-log.md).

    nice -n 19 python3 bench/bots_wins.py --profile yuanhang --seed 40 --deals 80 --policy expert

Never run it on a publication seed (docs/bots.md, Evaluation protocol).
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
from collections.abc import Sequence
from typing import Any

from _seeds import PUBLICATION_SEEDS  # bench/_seeds.py
from wuhan_mahjong.bots.arena import BotPool, _seed_for, arrangements, deal
from wuhan_mahjong.bots.view import int_view
from wuhan_mahjong.engine.state import new_hand
from wuhan_mahjong.rules import get_rules


def wins(profile: str, seed: int, first: int, deals: int, policy: str) -> list[dict[str, Any]]:
    """One row per won hand: the winner's policy, gain, big hands, factors, limits."""
    rules = get_rules(profile)
    pool = BotPool()
    rows: list[dict[str, Any]] = []
    for g in range(first, first + deals):
        wall, salt = deal(seed, g)
        for r, policies in enumerate(arrangements([policy, "greedy", "greedy", "greedy"], False)):
            bots = [pool.get(policies[i], _seed_for(seed, g, r, i, 4)) for i in range(4)]
            st = new_hand(rules, 0, wall=wall, salt=salt, hand_no=g * 4 + r, auto_pass=True)
            while not st.ended:
                s = st.to_act()[0]
                st.apply(s, bots[s].choose(int_view(st, s)))  # type: ignore[arg-type]
            res = st.result
            if res is None or res.winner is None or res.settlement is None:
                continue
            w, se = res.winner, res.settlement
            fac: collections.Counter[str] = collections.Counter()
            for f in se.factors[w]:
                fac[f.id] += f.count
            rows.append({"policy": policies[w], "gain": res.deltas[w],
                         "big": any(h != "small" for h in se.hands), "factors": fac,
                         "limits": collections.Counter(p.limit for p in se.payments),
                         "mult": float(se.multipliers[w])})
    pool.close()
    return rows


def run_args(doc: str | None, deals: int, extra: Sequence[tuple[str, str]] = ()) -> argparse.Namespace:
    """The arguments of a study of a policy's wins on a tuning seed (this script's and
    ``bots_win_factors.py``'s): ``extra`` adds optional ``(--name, help)`` strings."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--profile", required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--deals", type=int, default=deals)
    p.add_argument("--policy", default="expert")
    for name, text in extra:
        p.add_argument(name, default=None, help=text)
    a = p.parse_args()
    if a.seed in PUBLICATION_SEEDS:
        sys.exit(f"seed {a.seed} is a publication seed (docs/bots.md)")
    return a


def main() -> int:
    a = run_args(__doc__, 80)
    rows = wins(a.profile, a.seed, a.first, a.deals, a.policy)
    for pol in dict.fromkeys([a.policy, "greedy"]):
        rs = [x for x in rows if x["policy"] == pol]
        if not rs:
            continue
        n = len(rs)
        small = [x for x in rs if not x["big"]]
        fac: collections.Counter[str] = collections.Counter()
        for x in rs:
            fac.update(x["factors"])
        lim: collections.Counter[str] = collections.Counter()
        for x in rs:
            lim.update(x["limits"])
        print(f"{pol}: {n} wins, mean gain {statistics.fmean(x['gain'] for x in rs):+.0f}; "
              f"big {n - len(small)} ({(n - len(small)) / n:.1%}); small wins: mean gain "
              f"{statistics.fmean(x['gain'] for x in small):+.0f}, median multiplier "
              f"{statistics.median(x['mult'] for x in small):g}")
        for lk in (0, 1, 2):
            g = [x["gain"] for x in small if x["factors"].get("laizi_kong", 0) == lk]
            if g:
                print(f"  small wins with {lk} laizi kongs: {len(g)} ({len(g) / len(small):.0%}),"
                      f" mean gain {statistics.fmean(g):+.0f}")
        print("  factors per win: " + ", ".join(f"{k} {v / n:.2f}" for k, v in sorted(fac.items())))
        print("  payments per win: " + ", ".join(f"{k} {v / n:.2f}" for k, v in sorted(lim.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
