"""Does the expert's defence layer pick safer tiles?  A check against the real hands.

    nice -n 19 python3 bench/bots_defence_check.py --profile laizishanzhuang --seed 31 --deals 100

The expert plays one seat against three greedy seats (the four rotations of each
duplicate deal).  At every discard where its push-or-fold layer replaced the core's
choice, both tiles are tried on copies of the real position (which no player sees):
does an opponent get a win offer on the core's tile, on the defended tile?  Also at
every searched-for decision the same for the core's tile and the safest tile of the
opponent model.  An analysis tool for docs/bots.md, not a bot; never run it on a
publication seed.
"""

from __future__ import annotations

import argparse
import copy
import sys

from wuhan_mahjong.bots.arena import _seed_for, deal
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot, evaluator
from wuhan_mahjong.engine import new_hand, seat_view
from wuhan_mahjong.engine.actions import WIN, Discard
from wuhan_mahjong.engine.state import HandState
from wuhan_mahjong.rules import get_rules


def deals_in(state: HandState, seat: int, tile: int) -> bool:
    """Whether discarding ``tile`` from ``seat`` now gets some opponent a win offer."""
    s2 = copy.deepcopy(state)
    s2.apply(seat, Discard(tile))
    if s2.ended:
        return False
    return any(o != seat and any(a == WIN for a in _actions(s2, o)) for o in range(4))


def _actions(state: HandState, seat: int) -> list[object]:
    from wuhan_mahjong.engine import action_from_json
    return [action_from_json(a) for a in seat_view(state, seat)["legal_actions"]]


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
    for g in range(args.deals):
        wall, salt = deal(args.seed, g)
        for r in range(4):
            me = (4 - r) % 4  # the expert's seat in rotation r (seat i plays seats[(i + r) % 4])
            bots: list[object] = []
            for i in range(4):
                sd = _seed_for(args.seed, g, r, i)
                bots.append(ExpertBot(sd) if i == me else GreedyBot(sd))
            state = new_hand(rules, 0, wall=wall, salt=salt, hand_no=g * 4 + r, auto_pass=True)
            while not state.ended:
                s = state.to_act()[0]
                view = seat_view(state, s)
                bot = bots[s]
                if s == me and view["phase"] == "turn":
                    assert isinstance(bot, ExpertBot)
                    before = bot.defended
                    action = bot.choose(view)
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
                else:
                    action = bot.choose(view)  # type: ignore[attr-defined]
                state.apply(s, action)
        if (g + 1) % 10 == 0:
            print(f"deal {g + 1}: {rows}", file=sys.stderr, flush=True)
    for key, (n, c, a, lost) in rows.items():
        alt = "defended tile" if key == "defended" else "model's safest"
        print(f"{key}: {n} decisions; core tile deals in {c / max(1, n):.1%}, {alt} {a / max(1, n):.1%}; "
              f"alt gives up shanten {lost / max(1, n):.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
