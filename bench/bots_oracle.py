"""How much a perfect reading of the opponents could give: the defence oracle (docs/bots-log.md).

Suphx's authors train with an *oracle* that sees hidden tiles; here an oracle measures the
room left.  Each hand of a TUNING seed is played on the same wall with three greedy seats
and, at seat 0, in turn: greedy, the expert, and each of them with **oracle defence**.  The
oracle defence looks into the engine: when the seat's chosen discard would let an opponent
win (he may win on it now, minimum score and all), it throws instead the discard nobody can
win on that keeps the hand fastest (shanten after the discard, then tiles accepted), if
there is one.  No reading of discards and melds can avoid more deal-ins at less cost in
speed, so its results bound what the push-or-fold layer and the opponent model can still
add (it does not bound what better offence can add).

    nice -n 19 python3 bench/bots_oracle.py --profile laizishanzhuang --seed 132 \\
        --deals 0:500 --out /tmp/oracle_lzsz.jsonl
    python3 bench/bots_oracle.py --report /tmp/oracle_lzsz.jsonl

Prints, per seat-0 policy: points per hand, the difference from greedy paired by deal with
its 95% interval (over deals, four hands each), win and deal-in rates, and how often the
oracle changed a discard.  Never run it on a publication seed (Evaluation protocol).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from _expert_deals import deals_in  # bench/_expert_deals.py
from _seeds import PUBLICATION_SEEDS  # bench/_seeds.py
from wuhan_mahjong.bots.arena import deal
from wuhan_mahjong.bots.base import Bot
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot, evaluator
from wuhan_mahjong.bots.opponents import OpponentModel
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import HandState, new_hand, seat_view
from wuhan_mahjong.engine.actions import Action, Discard
from wuhan_mahjong.rules import Rules, get_rules
from wuhan_mahjong.tiles import NUM_KINDS

POLICIES = ("greedy", "greedy+oracle", "expert", "expert+oracle", "expert+oracle0",
            "expert+reader")
"""Seat 0's policies: ``+oracle`` swaps to the fastest safe discard, ``+oracle0`` only to a
safe discard that keeps the hand's shanten (a free swap, as ``bench/bots_dealin_study.py``
counts them); ``+reader`` is the expert whose opponent model reads the truth (who is ready,
on which tiles), its own push-or-fold layer and prices deciding."""


class ReaderExpert(ExpertBot):
    """The expert with a perfect opponent model: each opponent's readiness and waits are
    the engine's (he is ready if some discard of this seat would let him win, and waits on
    exactly those kinds); his focus, contract reads and deal-in prices stay the model's."""

    state: HandState | None = None

    def model(self) -> OpponentModel:
        if self._model is None:
            model = super().model()
            assert self.state is not None
            probe = self.state.copy()
            for o, r in model.reads.items():
                if not r.can_win:
                    continue
                waits = [1.0 if probe._discard_win(o, k, self.t.me, rob=False) else 0.0
                         for k in range(NUM_KINDS)]
                model.reads[o] = replace(r, p_ready=1.0 if any(waits) else 0.0, waits=waits)
        return super().model()  # the one built above


def oracle_defence(state: HandState, seat: int, action: Action,
                   free_only: bool = False) -> tuple[Action, bool]:
    """``action``, or the fastest discard nobody may win on if ``action`` deals in (with
    ``free_only``, only one that keeps the shanten of ``action``)."""
    if not isinstance(action, Discard) or not deals_in(state, seat, action.tile):
        return action, False
    safe = [a for a in state.legal_actions(seat)
            if isinstance(a, Discard) and not deals_in(state, seat, a.tile)]
    if not safe:
        return action, False
    t = SeatReading(seat_view(state, seat))
    ev = evaluator(t.hand, t.melds, t)

    def speed(a: Discard) -> tuple[int, int, int]:
        after = ev.with_tile(a.tile, -1)
        return (ev.shanten_after(a.tile, -1), -after.acceptance(t.unseen, t.laizi)[0], a.tile)

    best = min(safe, key=speed)
    if free_only and ev.shanten_after(best.tile, -1) > ev.shanten_after(action.tile, -1):
        return action, False
    return best, True


def play(rules: Rules, seed: int, hand_no: int, dealer: int, policy: str) -> dict[str, Any]:
    """Seat 0's result in one hand with ``policy`` at seat 0 and greedy elsewhere."""
    wall, salt = deal(seed, hand_no // 4)
    bots: list[Bot] = [GreedyBot(1000 + i) for i in range(4)]
    reader = ReaderExpert(7) if policy == "expert+reader" else None
    if reader is not None:
        bots[0] = reader
    elif policy.startswith("expert"):
        bots[0] = ExpertBot(7)
    oracle = "+oracle" in policy  # (the reader's own layer defends)
    state = new_hand(rules, dealer, wall=wall, salt=salt, hand_no=hand_no, auto_pass=True)
    swaps = 0
    cpu = 0.0
    while not state.ended:
        seat = state.to_act()[0]
        if reader is not None:
            reader.state = state
        start = time.process_time()
        action = bots[seat].choose(seat_view(state, seat))
        if seat == 0:
            cpu += time.process_time() - start
            if oracle:
                action, swapped = oracle_defence(state, 0, action, policy.endswith("0"))
                swaps += swapped
        state.apply(seat, action)
    r = state.result
    assert r is not None
    return {"delta": r.deltas[0], "win": r.winner == 0,
            "deal_in": r.winner is not None and r.win_by == "discard" and r.from_seat == 0,
            "swaps": swaps, "cpu": cpu,
            "defended": bots[0].defended if isinstance(bots[0], ExpertBot) else 0}


def _paired(deals: list[dict[str, list[dict[str, Any]]]], a: str, b: str) -> str:
    """``a`` − ``b`` per hand, paired by deal: mean [95% interval over deals]."""
    diffs = [sum(float(h["delta"]) for h in d[a]) / 4
             - sum(float(h["delta"]) for h in d[b]) / 4
             for d in deals]
    m = statistics.mean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    return f"{m:+.1f} [{m - half:+.1f}, {m + half:+.1f}]"


def report(paths: list[Path]) -> None:
    rows = [json.loads(line) for p in paths for line in p.read_text().splitlines() if line]
    by_deal: dict[tuple[str, int], dict[str, list[dict[str, Any]]]] = defaultdict(
        lambda: defaultdict(list))
    for r in rows:
        by_deal[(r["profile"], r["deal"])][r["policy"]].append(r)
    for profile in sorted({p for p, _ in by_deal}):
        present = [x for x in POLICIES if any(r["policy"] == x and r["profile"] == profile
                                              for r in rows)]
        deals = [d for (p, _), d in by_deal.items() if p == profile
                 and all(len(d[x]) == 4 for x in present)]
        print(f"\n{profile}: {len(deals)} deals, {4 * len(deals)} hands per policy")
        print("| seat 0 | points/hand | − greedy [95% CI] | oracle's gain [95% CI] | win | "
              "deal-in | oracle swaps/hand | layer swaps/hand | CPU ms/hand |")
        print("|---|---|---|---|---|---|---|---|---|")
        for policy in present:
            hands = [h for d in deals for h in d[policy]]
            n = len(hands)
            mean = sum(float(h["delta"]) for h in hands) / n
            plain = policy.partition("+")[0]
            gain = _paired(deals, policy, plain) if plain != policy and plain in present else ""
            win = sum(bool(h["win"]) for h in hands) / n
            dealin = sum(bool(h["deal_in"]) for h in hands) / n
            swaps = sum(int(h["swaps"]) for h in hands) / n
            layer = sum(int(h.get("defended", 0)) for h in hands) / n
            cpu = 1000 * sum(float(h["cpu"]) for h in hands) / n
            print(f"| {policy} | {mean:+.1f} | {_paired(deals, policy, 'greedy')} | {gain} | "
                  f"{win:.1%} | {dealin:.1%} | {swaps:.2f} | {layer:.2f} | {cpu:.0f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", default="laizishanzhuang")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--deals", default="0:100", help="FIRST:END, deals of the seed (4 hands each)")
    ap.add_argument("--out", type=Path, help="one JSON line per hand and policy (appended)")
    ap.add_argument("--policies", default=",".join(POLICIES),
                    help="seat 0's, comma-separated (the report pairs the runs of several files "
                    "deal by deal: play greedy in one of them)")
    ap.add_argument("--report", type=Path, nargs="+", help="print the table of saved runs")
    args = ap.parse_args()
    policies = args.policies.split(",")
    if not set(policies) <= set(POLICIES):
        print(f"error: --policies: any of {', '.join(POLICIES)}", file=sys.stderr)
        return 2
    if args.report:
        report(args.report)
        return 0
    if args.seed is None or args.out is None:
        print("error: --seed and --out are needed to play", file=sys.stderr)
        return 2
    if args.seed in PUBLICATION_SEEDS:
        print(f"error: {args.seed} is a publication seed (docs/bots.md)", file=sys.stderr)
        return 2
    first_deal, _, end = args.deals.partition(":")
    rules = get_rules(args.profile)
    with args.out.open("a") as f:
        for d in range(int(first_deal), int(end)):
            for rotation in range(4):
                hand_no = d * 4 + rotation
                for policy in policies:
                    row = play(rules, args.seed, hand_no, rotation, policy)
                    row.update(profile=args.profile, seed=args.seed, deal=d, hand=hand_no,
                               policy=policy)
                    f.write(json.dumps(row) + "\n")
            f.flush()
    report([args.out])
    return 0


if __name__ == "__main__":
    sys.exit(main())
