"""Does the expert's defence layer pick safer tiles?  A check against the real hands.

    nice -n 19 python3 bench/bots_defence_check.py --profile laizishanzhuang --seed 31 --deals 100

The expert plays one seat against three greedy seats (the four rotations of each
duplicate deal).  At every discard where its push-or-fold layer replaced the core's
choice, both tiles are tried on copies of the real position (which no player sees):
does an opponent get a win offer on the core's tile, on the defended tile?  Also at
every searched-for decision the same for the core's tile and the safest tile of the
opponent model.  An analysis tool for docs/bots-log.md, not a bot; never run it on a
publication seed.
"""

from __future__ import annotations

import argparse
import sys

from _expert_deals import deals_in, expert_decisions
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import evaluator
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.rules import get_rules


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--profile", required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--deals", type=int, default=100)
    args = p.parse_args()
    if args.seed in (20261201, 20261202, 20261203):
        sys.exit("a publication seed")
    rules = get_rules(args.profile)
    # decisions, core tile deals in, alternative deals in, alternative gives up shanten
    rows = {"defended": [0, 0, 0, 0], "threat": [0, 0, 0, 0]}
    defended: dict[int, int] = {}  # each expert's count of changed discards so far
    done = 0
    for dec in expert_decisions(rules, args.seed, args.deals):
        if dec.group != done:
            done = dec.group
            if done % 10 == 0:
                print(f"deal {done}: {rows}", file=sys.stderr, flush=True)
        bot, state, s, action = dec.bot, dec.state, dec.seat, dec.action
        if s != dec.me or dec.view["phase"] != "turn":
            continue
        assert isinstance(bot, ExpertBot)
        before, defended[id(bot)] = defended.get(id(bot), 0), bot.defended
        t = bot.t
        threat = bot._anyone_open() and bot.model().threat() >= bot.threat_min
        if isinstance(action, Discard) and threat:
            ev = evaluator(t.hand, t.melds, t)
            core = bot._core_discard(t, ev)
            if isinstance(core, Discard):
                key = "defended" if bot.defended > before else "threat"
                alt = action.tile
                if key == "threat":
                    choices = [d for d in set(t.hand) if d != t.laizi and d not in t.must]
                    alt = min(choices, key=lambda d: (sum(bot.model().risk(
                        d, ev.shanten_after(d, -1))[1:]), ev.shanten_after(d, -1), d))
                row = rows[key]
                row[0] += 1
                row[1] += deals_in(state, s, core.tile)
                row[2] += deals_in(state, s, alt)
                row[3] += ev.shanten_after(alt, -1) > ev.shanten_after(core.tile, -1)
    for key, (n, c, a, lost) in rows.items():
        alt = "defended tile" if key == "defended" else "model's safest"
        print(f"{key}: {n} decisions; core tile deals in {c / max(1, n):.1%}, {alt} {a / max(1, n):.1%}; "
              f"alt gives up shanten {lost / max(1, n):.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
