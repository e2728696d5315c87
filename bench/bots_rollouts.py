"""Where could greedy do better?  A rollout analysis of its structural choices.

    nice python3 bench/bots_rollouts.py --profile laizishanzhuang --hands 800 --seed 7

Four greedy seats play.  At every decision of one seat per hand (seat ``hand %
4``) that offers a structural alternative (a kong or special kong instead of
the discard, a discard instead of greedy's kong, a pass instead of greedy's
claim, a claim instead of greedy's pass), both the alternative and greedy's own
choice are played out ``--rollouts`` times on reshuffles of the live wall,
greedy everywhere afterwards, with the same reshuffles for both (common random
numbers).  The table gives, per kind of choice and shanten, the mean of
Q(alternative) - Q(greedy's choice) in points for that seat, its 95% interval
and how often the alternative came out ahead.

This is an analysis tool, not a bot: the other hands stay as dealt (only the
wall order is resampled), which no player could know.  docs/bots-log.md records
what it found.  Not a test: 800 hands take about nine minutes on two cores.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import random
from collections import defaultdict
from collections.abc import Sequence

from wuhan_mahjong.bots.arena import deal
from wuhan_mahjong.bots.greedy import GreedyBot, after_claim, evaluator
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import new_hand, seat_view
from wuhan_mahjong.engine.actions import PASS, Action, Chi, Discard, Kong, Peng, SpecialKong
from wuhan_mahjong.engine.match import play_hand
from wuhan_mahjong.engine.state import HandState
from wuhan_mahjong.rules import get_rules

GREEDY = GreedyBot(0)  # stateless: one instance plays every seat


def greedy_policy(state: HandState, seat: int) -> Action:
    return GREEDY.choose(seat_view(state, seat))


def rollout(state: HandState, seat: int) -> int:
    result = play_hand(state, greedy_policy).result
    assert result is not None
    return result.deltas[seat]


def q_value(state: HandState, action: Action, seat: int, seeds: Sequence[int]) -> float:
    """Mean result for ``seat`` of ``action`` now, over reshuffles of the live wall."""
    total = 0
    for sd in seeds:
        c = state.copy()
        live = list(c.wall[c.head:c.tail])
        random.Random(sd).shuffle(live)
        c.wall = c.wall[:c.head] + tuple(live) + c.wall[c.tail:]
        c.apply(seat, action)
        total += rollout(c, seat)
    return total / len(seeds)


def label(a: Action) -> str:
    kind = getattr(a, "kind", None)
    return type(a).__name__ + (f":{kind}" if kind else "")


def alternatives(t: SeatReading, chosen: Action) -> list[Action]:
    if t.phase == "claim":
        if chosen is PASS:
            claims: list[Action] = [a for a in t.actions if isinstance(a, (Chi, Peng, Kong))]
            return claims[:2]
        return [PASS]
    if t.phase != "turn":
        return []
    if isinstance(chosen, Discard):
        kongs: list[Action] = [a for a in t.actions if isinstance(a, (Kong, SpecialKong))]
        return kongs
    disc = GREEDY.pick_discard(t, evaluator(t.hand, t.melds, t))
    return [disc] if disc is not None else []


def claim_note(t: SeatReading, claim: Action, sh: int) -> str:
    """' lower|equal|worse open|closed': what the claim does to the shanten."""
    note = ""
    res = after_claim(t, claim)
    if res is not None:
        ev2 = evaluator(res[0], res[1], t)
        after = min((ev2.shanten_after(d, -1) for d in set(res[0])
                     if d != t.laizi and d not in t.must), default=99)
        note = " lower" if after < sh else (" equal" if after == sh else " worse")
    return note + (" open" if t.opened else " closed")


def work(args: tuple[str, int, int, list[int]]) -> list[tuple[str, float]]:
    profile, seed, rollouts, hands = args
    rules = get_rules(profile)
    rows: list[tuple[str, float]] = []
    for h in hands:
        wall, salt = deal(seed, h)
        seat = h % 4
        state = new_hand(rules, 0, wall=wall, salt=salt, hand_no=h, auto_pass=True)
        n = 0
        while not state.ended:
            s = state.to_act()[0]
            view = seat_view(state, s)
            chosen = GREEDY.choose(view)
            if s == seat:
                t = SeatReading(view)
                alts = alternatives(t, chosen)
                if alts:
                    sh = min(evaluator(t.hand, t.melds, t).best()[0], 4)
                    seeds = [h * 7919 + n * 131 + k for k in range(rollouts)]
                    base = q_value(state, chosen, seat, seeds)
                    for a in alts:
                        claim = a if isinstance(a, (Chi, Peng)) else chosen
                        note = claim_note(t, claim, sh) if isinstance(claim, (Chi, Peng)) else ""
                        key = f"{t.phase} {label(a)} vs {label(chosen)}{note} | shanten {sh}"
                        rows.append((key, q_value(state, a, seat, seeds) - base))
                    n += 1
            state.apply(s, chosen)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--profile", default="laizishanzhuang")
    p.add_argument("--hands", type=int, default=800)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--rollouts", type=int, default=10)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--min-count", type=int, default=5)
    args = p.parse_args(argv)
    chunks = [(args.profile, args.seed, args.rollouts, list(range(k, min(args.hands, k + 4))))
              for k in range(0, args.hands, 4)]
    with mp.get_context("spawn").Pool(args.jobs) as pool:
        rows = [r for part in pool.map(work, chunks) for r in part]
    groups: dict[str, list[float]] = defaultdict(list)
    for key, d in rows:
        groups[key].append(d)
    print(f"{args.profile}, {args.hands} hands, seed {args.seed}, {args.rollouts} rollouts per choice")
    print(f"{'choice (alternative vs greedy)':<58}{'n':>6}  {'alt - greedy [95% CI]':<24}{'alt ahead':>9}")
    for key, xs in sorted(groups.items()):
        if len(xs) < args.min_count:
            continue
        m = sum(xs) / len(xs)
        sd = math.sqrt(sum((x - m) ** 2 for x in xs) / max(1, len(xs) - 1))
        hw = 1.96 * sd / math.sqrt(len(xs))
        ahead = sum(x > 0 for x in xs) / len(xs)
        print(f"{key:<58}{len(xs):>6}  {m:+8.2f} [{m - hw:+8.2f}, {m + hw:+8.2f}]{ahead:>8.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
