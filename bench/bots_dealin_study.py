"""Which of the expert's deal-ins could a reader have avoided, and does the opponent model see them?

    nice -n 19 python3 bench/bots_dealin_study.py --profile yuanhang --seed 60 --deals 50

The expert plays one seat against three greedy seats (the four rotations of each
duplicate deal, as the arena).  At every discard of the expert, every legal discard is
tried on a copy of the real position (which no player sees): does some opponent get a win
offer on it?  A discard that deals in is *avoidable at a cost of at most k tiles* when
another discard keeps the same shanten, loses at most k of the unseen tiles that would
improve the hand, and deals in to nobody.  For those, the tile the opponent model rates
safest among the same alternatives and the tile itself is checked too; and at every
discard, the first-order effect of always playing that tile (the deal-ins it would have
made, the hand played on as it was).  An analysis tool for docs/bots-log.md, not
a bot: it sees the real hands.  Never run it on a publication seed.
"""

from __future__ import annotations

import argparse
import random
import sys

from _expert_deals import deals_in, expert_decisions
from _seeds import PUBLICATION_SEEDS  # bench/_seeds.py
from wuhan_mahjong.bots.greedy import evaluator
from wuhan_mahjong.bots.opponents import OpponentModel
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.rules import get_rules

SLACK = (0, 1, 2, 4, 8)
"""The acceptance (unseen improving tiles) a swap may give up, in tiles."""


def _scorers(t: SeatReading, models: list[str], sh: dict[int, int]) -> dict[str, dict[int, float]]:
    """Danger scores of each candidate discard (higher: more dangerous): each reading's
    P(deal in), and plain features."""
    out: dict[str, dict[int, float]] = {}
    for m in models:
        om = OpponentModel(t, random.Random(0), waits=m)
        out[f"{m} reading"] = {d: om.risk(d, sh[d])[0] for d in sh}
    opened = [o for o in range(4) if o != t.me and t.seats[o].openings]
    thrown = {x for o in opened for x in t.seats[o].discards}
    out["not thrown by an opened seat"] = {d: float(d not in thrown) for d in sh}
    out["unseen copies"] = {d: float(t.unseen[d]) for d in sh}
    out["2/5/8"] = {d: float(d < 27 and d % 9 in (1, 4, 7)) for d in sh}
    out["suited, 3 to 7"] = {d: float(d < 27 and 2 <= d % 9 <= 6) for d in sh}
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--profile", required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--deals", type=int, default=50)
    p.add_argument("--waits", default="sampled,shapes",
                   help="the opponent models' wait readings to compare (default sampled,shapes)")
    p.add_argument("--auc", action="store_true",
                   help="also try every legal discard at every decision, and print how well "
                        "each reading (and some plain features) ranks the tiles that deal in "
                        "above those that do not, within a decision (AUC, 0.5 = chance)")
    args = p.parse_args()
    if args.seed in PUBLICATION_SEEDS:
        sys.exit("a publication seed")
    rules = get_rules(args.profile)
    discards = dealt = 0
    oracle = dict.fromkeys(SLACK, 0)  # deal-ins avoidable within the slack
    models: list[str] = args.waits.split(",")
    keys = [(m, k) for m in models for k in SLACK]
    model = dict.fromkeys(keys, 0)  # ... where the model's safest of them (or the tile) is safe
    policy = dict.fromkeys(keys, 0)  # deal-ins had the model's safest always been played
    swaps = dict.fromkeys(keys, 0)  # decisions where that is another tile
    by_shanten: dict[int, list[int]] = {}  # shanten after the discard: [deal-ins, discards]
    auc: dict[str, list[float]] = {}  # scorer: [pairs ranked right (ties half), pairs]
    done = 0
    for dec in expert_decisions(rules, args.seed, args.deals):
        if dec.group != done:
            done = dec.group
            print(f"deal {done}: {discards} discards, {dealt} dealt in", file=sys.stderr, flush=True)
        state, s, view, action = dec.state, dec.seat, dec.view, dec.action
        if s == dec.me and view["phase"] == "turn" and isinstance(action, Discard):
            t = SeatReading(view)
            ev = evaluator(t.hand, t.melds, t)
            tiles = sorted({d for d in t.hand if d != t.laizi and d not in t.must
                            and Discard(d) in state.legal_actions(s)})
            sh = {d: ev.shanten_after(d, -1) for d in tiles}
            acc = {d: ev.with_tile(d, -1).acceptance(t.unseen, t.laizi)[0] for d in tiles}
            chosen = action.tile
            discards += 1
            row = by_shanten.setdefault(sh[chosen], [0, 0])
            row[1] += 1
            hit = {chosen: deals_in(state, s, chosen)}
            if args.auc and any(t.seats[o].openings for o in range(4) if o != t.me):
                for d in tiles:
                    if d not in hit:
                        hit[d] = deals_in(state, s, d)
                bad = [d for d in tiles if hit[d]]
                good = [d for d in tiles if not hit[d]]
                if bad and good:
                    scores = _scorers(t, models, sh)
                    for name, f in scores.items():
                        row2 = auc.setdefault(name, [0.0, 0])
                        for b in bad:
                            for g2 in good:
                                row2[0] += 1.0 if f[b] > f[g2] else 0.5 if f[b] == f[g2] else 0.0
                                row2[1] += 1
            dealt += hit[chosen]
            row[0] += hit[chosen]
            for m in models:
                om = OpponentModel(t, random.Random(0), waits=m)
                risk = {d: om.risk(d, sh[d])[0] for d in tiles}
                for k in SLACK:
                    alts = [d for d in tiles
                            if sh[d] == sh[chosen] and acc[d] >= acc[chosen] - k]
                    pick = min(alts, key=lambda d: (risk[d], -acc[d], d))
                    if pick not in hit:
                        hit[pick] = deals_in(state, s, pick)
                    policy[m, k] += hit[pick]
                    swaps[m, k] += pick != chosen
                    if hit[chosen]:
                        for d in alts:
                            if d not in hit:
                                hit[d] = deals_in(state, s, d)
                        if m == models[0]:
                            oracle[k] += any(not hit[d] for d in alts)
                        model[m, k] += not hit[pick]
    hands = args.deals * 4
    print(f"{args.profile} seed {args.seed}: {hands} hands, {discards} expert discards, "
          f"{dealt} deal-ins on a discard ({dealt / hands:.1%} of hands)")
    for k in SLACK:
        print(f"  avoidable at equal shanten giving up <= {k} tiles: {oracle[k]} "
              f"({oracle[k] / max(1, dealt):.0%} of deal-ins, {oracle[k] / hands:.1%} of hands)")
        for m in models:
            print(f"    {m} waits: the model's safest of them and the tile safe in {model[m, k]}; "
                  f"always playing the model's safest: {policy[m, k]} deal-ins "
                  f"({policy[m, k] / hands:.1%} of hands), {swaps[m, k]} swaps")
    for name, (wins, pairs) in auc.items():
        print(f"  AUC {name}: {wins / max(1, pairs):.3f} over {pairs} (dealing, safe) pairs")
    for k2, (d, n) in sorted(by_shanten.items()):
        print(f"  shanten after {k2}: {n} discards, {d} deal-ins ({d / max(1, n):.2%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
