"""How well the expert's win-chance model (``ExpertBot.win_chance``, used by ``laizi_ev``
and the push-or-fold layer) predicts its wins: at each of the expert's discards in a run
against three greedy seats on a TUNING seed, the model's P(win) after its best discard
(lowest shanten, then the most accepting) against whether the seat went on to win that
hand, by shanten and live wall.  Decisions within one hand are not independent.

    nice -n 19 python3 bench/bots_win_chance.py --profile yuanhang --seed 51 --deals 150

Never run it on a publication seed (docs/bots.md, Evaluation protocol).
"""

from __future__ import annotations

import argparse
import collections
import sys
from typing import ClassVar

from _seeds import PUBLICATION_SEEDS  # bench/_seeds.py
from wuhan_mahjong.bots import register
from wuhan_mahjong.bots.arena import BotPool, play_group
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import discard_choices, evaluator
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.bots.view import IntView
from wuhan_mahjong.engine.actions import Action
from wuhan_mahjong.engine.views import SeatView
from wuhan_mahjong.rules import get_rules

WALLS = ("60+", "40-59", "20-39", "<20")


def _wall(wall: int) -> str:
    return WALLS[0] if wall >= 60 else WALLS[1] if wall >= 40 else WALLS[2] if wall >= 20 else WALLS[3]


class _Logged(ExpertBot):
    """The shipped expert; each discard decision logs (hand number, shanten, wall, P)."""

    rows: ClassVar[list[tuple[int, int, int, float]]] = []

    def choose(self, view: SeatView | IntView) -> Action:
        self._hand = view["hand_no"] if isinstance(view, dict) else view.hand_no
        return super().choose(view)

    def turn(self, t: SeatReading) -> Action:
        choices = discard_choices(t)
        if choices:
            ev = evaluator(t.hand, t.melds, t)
            sh = min(ev.shanten_after(d, -1) for d in choices)
            acc = max(ev.with_tile(d, -1).acceptance(t.unseen, t.laizi, current=sh)[0]
                      for d in choices if ev.shanten_after(d, -1) == sh)
            p = self.win_chance(sh, acc, max(1, t.unseen_total), max(0.5, t.wall / 4))
            self.rows.append((int(self._hand), sh, t.wall, p))
        return super().turn(t)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--profile", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--deals", type=int, default=150)
    args = ap.parse_args()
    if args.seed in PUBLICATION_SEEDS:
        sys.exit(f"seed {args.seed} is a publication seed (docs/bots.md)")
    register("win_chance_logged", _Logged)
    rules = get_rules(args.profile)
    pool = BotPool()
    won: dict[int, bool] = {}
    for g in range(args.deals):
        for h in play_group(rules, ["win_chance_logged", "greedy", "greedy", "greedy"], args.seed, g, pool):
            won[g * 4 + h.rotation] = h.winner == h.policies.index("win_chance_logged")
    pool.close()
    agg: dict[tuple[int, str], list[float]] = collections.defaultdict(lambda: [0, 0.0, 0])
    by_wall: collections.Counter[str] = collections.Counter()
    for hand, sh, wall, p in _Logged.rows:
        a = agg[(min(sh, 3), _wall(wall))]
        a[0] += 1
        a[1] += p
        a[2] += won[hand]
        by_wall[_wall(wall)] += 1
    print(f"{args.profile} seed {args.seed}: {len(won)} hands, expert win rate"
          f" {sum(won.values()) / len(won):.1%}; discards by live wall"
          f" {', '.join(f'{w} {by_wall[w]}' for w in WALLS)} ({len(_Logged.rows)})")
    print("| shanten after the discard | live wall | discards | model P(win) | won |")
    print("|---|---|---|---|---|")
    for (sh, w), (n, ps, k) in sorted(agg.items(), key=lambda kv: (kv[0][0], WALLS.index(kv[0][1]))):
        if n >= 20:
            print(f"| {sh if sh < 3 else '3+'} | {w} | {int(n)} | {ps / n:.2f} | {k / n:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
