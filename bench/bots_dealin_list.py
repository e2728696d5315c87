"""Every deal-in of the expert, one JSON line each, with what a strong player would ask.

    nice -n 19 python3 bench/bots_dealin_list.py --profile yuanhang --seed 360 --deals 30 \
        --out /tmp/dealins.jsonl

The expert plays one seat against three greedy seats (the four rotations of each
duplicate deal, as the arena: ``_expert_deals.py``).  At each discard of the expert that
deals in (an opponent gets a win offer on it), a line records the wall, the expert's
hand and melds, the opponent model's threat, every legal discard (shanten after it,
improving tiles, the model's P(deal in) and expected deal-in plus contract cost, and
whether it would have dealt in, tried on a copy of the real position), each opponent's
melds, the model's readiness and big-hand read of him, the winner's real hand, and
what the expert paid.  ``--kinds`` prints, from saved files, the deal-ins sorted into
the kinds of the twenty-fourth hunt (docs/bots-log.md).  An analysis tool, not a bot:
it sees the real hands.  Never run it on a publication seed.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path
from typing import Any

from _expert_deals import deals_in, expert_decisions
from _seeds import PUBLICATION_SEEDS  # bench/_seeds.py
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import evaluator
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine.actions import WIN, Discard
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import format_tiles, tile_str


def _record(dec: Any) -> dict[str, Any]:
    """The line of one deal-in (``dec``: the expert's discard that deals in)."""
    state, s, view, action = dec.state, dec.seat, dec.view, dec.action
    bot: ExpertBot = dec.bot
    t = SeatReading(view)
    bot._prepare(t)
    ev = evaluator(t.hand, t.melds, t)
    model = bot.model() if bot._anyone_open() else None
    rows = []
    for d in sorted({d for d in t.hand if d != t.laizi and d not in t.must
                     and Discard(d) in state.legal_actions(s)}):
        sh = ev.shanten_after(d, -1)
        p, deal, contract = model.risk(d, sh) if model else (0.0, 0.0, 0.0)
        rows.append({"tile": tile_str(d), "sh": sh, "chosen": d == action.tile,
                     "acc": ev.with_tile(d, -1).acceptance(t.unseen, t.laizi, current=sh)[0],
                     "p": round(p, 3), "cost": round(deal + contract, 1),
                     "hit": deals_in(state, s, d)})
    after = state.copy()
    after.apply(s, action)
    winners = [o for o in range(4) if o != s and WIN in after.legal_actions(o)]
    opp = {}
    for o in range(4):
        if o != s:
            rd = model.reads[o] if model else None
            opp[str(o)] = {"melds": [m["tiles"] for m in view["seats"][o]["melds"]],
                           "river": len(view["seats"][o]["discards"]),
                           "p_ready": round(rd.p_ready, 3) if rd else 0.0,
                           "focus": rd.focus if rd else None,
                           "hand": format_tiles(state.hand_tiles(o)) if o in winners else None}
    return {"deal": dec.group, "me": s, "wall": t.wall, "hand": format_tiles(t.hand),
            "melds": [m["tiles"] for m in view["seats"][s]["melds"]],
            "tile": tile_str(action.tile), "threat": round(model.threat(), 3) if model else 0.0,
            "rows": rows, "opp": opp, "winners": winners}


def kind(r: dict[str, Any]) -> str:
    """The hunt's kinds: a ready push; no tile as fast (the same shanten, at most two
    improving tiles fewer) that dealt in to nobody; such a tile the model read no safer
    (more than a third of the cost, or above 0.5 points); one it read safer."""
    ch = next(x for x in r["rows"] if x["chosen"])
    if ch["sh"] == 0:
        return "ready, pushed"
    near = [x for x in r["rows"] if not x["chosen"] and x["sh"] == ch["sh"]
            and not x["hit"] and x["acc"] >= ch["acc"] - 2]
    if not near:
        return "no tile as fast that deals in to nobody"
    if any(x["cost"] <= max(0.5, ch["cost"] / 3) for x in near):
        return "a tile as fast the model read safer"
    return "a tile as fast dealt in to nobody, the model read it no safer"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--profile")
    p.add_argument("--seed", type=int)
    p.add_argument("--deals", type=int, default=30)
    p.add_argument("--out", help="JSON lines, appended")
    p.add_argument("--kinds", nargs="+", metavar="FILE", help="count the kinds in saved files")
    args = p.parse_args()
    if args.kinds:
        recs = [json.loads(line) for f in args.kinds
                for line in Path(f).read_text(encoding="utf-8").splitlines()]
        counts = collections.Counter(kind(r) for r in recs)
        print(f"{len(recs)} deal-ins")
        for k, n in counts.most_common():
            print(f"  {n:4d}  {k}")
        return 0
    if args.seed is None or args.profile is None or args.out is None:
        p.error("--profile, --seed and --out are needed to play")
    if args.seed in PUBLICATION_SEEDS:
        sys.exit("a publication seed")
    rules = get_rules(args.profile)
    pending: dict[str, Any] | None = None
    with open(args.out, "a", encoding="utf-8") as out:
        for dec in expert_decisions(rules, args.seed, args.deals):
            if (dec.seat == dec.me and dec.view["phase"] == "turn"
                    and isinstance(dec.action, Discard) and deals_in(dec.state, dec.seat, dec.action.tile)):
                pending = {"profile": args.profile, "seed": args.seed, **_record(dec)}
            elif pending is not None and dec.view["phase"] == "claim" and dec.seat in pending["winners"]:
                done = dec.state.copy()
                done.apply(dec.seat, dec.action)
                if done.result is not None:
                    pending["paid"] = done.result.deltas[pending["me"]]
                out.write(json.dumps(pending, ensure_ascii=False) + "\n")
                out.flush()
                pending = None
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
