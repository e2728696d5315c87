"""Why one policy's wins are smaller than another's: every win of a run against three
greedy seats on a TUNING seed, its payments decomposed into the factors that made them,
beside the wins of the same seat played by greedy on the same deals (all four seats
greedy), and the decisions where a seat gave up a factor (a win offer passed, a special
kong or a laizi discard not taken, a claim of a closed hand passed, 红中 held to the end).
Written for the thirty-eighth hunt (docs/bots-log.md).

    nice -n 19 python3 bench/bots_win_factors.py --profile bianfeng --seed 455 --deals 300

Each payment is ``base × M(winner) × M(loser)``, capped; in log2 units it splits into
the base, each of the winner's factors (openings, kongs of each kind, laizi discards,
dealer, hard hand, self-draw), the loser's own factors (his openings and kongs, 放冲),
less what the cap took.  The tables give the mean of each part per payment.
Never run it on a publication seed (docs/bots.md, Evaluation protocol).
"""

from __future__ import annotations

import collections
import json
import math
import statistics
from typing import Any

from bots_wins import run_args  # bench/bots_wins.py
from wuhan_mahjong.bots.arena import BotPool, _seed_for, arrangements, deal
from wuhan_mahjong.bots.view import int_view
from wuhan_mahjong.engine.actions import Chi, Kong, LaiziDiscard, Peng, SpecialKong, Win
from wuhan_mahjong.engine.state import HandState, new_hand
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import RED

GIVEN_UP = ("win_passed", "red_kong_passed", "laizi_kong_passed", "pi_kong_passed",
            "laizi_discard_passed", "closed_claim_passed", "closed_claim_taken",
            "red_held_at_end", "laizi_held_at_win", "minimum_refused_discard",
            "minimum_refused_self_draw", "minimum_refused_holding_laizi")


def _decisions(state: HandState, s: int, action: object, tally: set[str]) -> None:
    """What seat ``s`` gave up at this decision (added to the hand's ``tally``)."""
    legal = state.legal_actions(s)
    kinds = {a.kind for a in legal if isinstance(a, SpecialKong)}
    if any(isinstance(a, Win) for a in legal) and not isinstance(action, Win):
        tally.add("win_passed")
    for k in ("red", "laizi", "pi"):
        if k in kinds and not (isinstance(action, SpecialKong) and action.kind == k):
            tally.add(f"{k}_kong_passed")
    if any(isinstance(a, LaiziDiscard) for a in legal) and not isinstance(action, LaiziDiscard):
        tally.add("laizi_discard_passed")
    if state.phase == "claim" and not state.melds[s] and any(
            isinstance(a, Chi | Peng | Kong) for a in legal):
        took = isinstance(action, Chi | Peng | Kong)
        tally.add("closed_claim_taken" if took else "closed_claim_passed")


def _refused(state: HandState, me: int, tally: set[str]) -> None:
    """Whether seat ``me`` could have won now but for the minimum score (asked at every
    discard of another seat and every turn of its own: with ``auto_pass`` a seat with no
    legal claim is never asked)."""
    if state.ended or (state.phase == "claim" and state.pending_from == me) or (
            state.phase == "turn" and state.current != me) or state.phase not in ("claim", "turn"):
        return
    state.win_now(me)
    if "minimum score" in state._win_why[me]:  # the shape was complete, the settlement refused
        tally.add("minimum_refused_" + ("discard" if state.phase == "claim" else "self_draw"))
        if state.counts[me][state.laizi]:
            tally.add("minimum_refused_holding_laizi")


def _win_row(state: HandState, label: str) -> dict[str, Any]:
    res = state.result
    assert res is not None and res.winner is not None and res.settlement is not None
    w, se = res.winner, res.settlement
    parts: collections.defaultdict[str, float] = collections.defaultdict(float)
    for p in se.payments:
        scorer = p.factors[0].seat  # the base's: the winner, or the konger in 杠进杠出
        for f in p.factors:
            key = f.id if f.seat == scorer else "loser_" + f.id
            parts[key] += math.log2(f.total)
        parts["cap_cut"] -= math.log2(p.raw / p.amount) if p.amount else 0.0
    n = len(se.payments)
    return {"who": label, "gain": res.deltas[w], "by": res.win_by, "live": state.live,
            "big": bool(se.hands), "parts": {k: v / n for k, v in parts.items()},
            "limits": dict(collections.Counter(p.limit for p in se.payments)),
            "raw": sum(float(p.raw) for p in se.payments),
            "wf": {f.id: f.count for f in se.factors[w]},
            "laizi_held": state.counts[w][state.laizi]}


def play(profile: str, seed: int, first: int, deals: int, policy: str) -> dict[str, Any]:
    """Wins and given-up tallies: the policy's seat, the greedy seats beside it, and
    greedy in the policy's seat on the same deals (``ref``)."""
    rules = get_rules(profile)
    pool = BotPool()
    wins: list[dict[str, Any]] = []
    hands: collections.Counter[str] = collections.Counter()
    tally: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for g in range(first, first + deals):
        wall, salt = deal(seed, g)
        for r, mixed in enumerate(arrangements([policy, "greedy", "greedy", "greedy"], False)):
            me = mixed.index(policy)
            for table in ("mixed", "ref"):
                pols = mixed if table == "mixed" else ("greedy",) * 4
                bots = [pool.get(pols[i], _seed_for(seed, g, r, i, 4)) for i in range(4)]
                st = new_hand(rules, 0, wall=wall, salt=salt, hand_no=g * 4 + r, auto_pass=True)
                mine = policy if table == "mixed" else "ref"
                hands[mine] += 1
                seen: set[str] = set()
                while not st.ended:
                    s = st.to_act()[0]
                    a = bots[s].choose(int_view(st, s))  # type: ignore[arg-type]
                    if s == me:
                        _decisions(st, s, a, seen)
                    st.apply(s, a)
                    _refused(st, me, seen)
                tally[mine].update(seen)
                res = st.result
                assert res is not None
                if res.winner is None:
                    if st.counts[me][RED]:
                        tally[mine]["red_held_at_end"] += 1
                    continue
                label = mine if res.winner == me else ("greedy" if table == "mixed" else "ref_other")
                row = _win_row(st, label)
                row["deal"], row["rot"] = g, r
                if res.winner != me and st.counts[me][RED]:
                    tally[mine]["red_held_at_end"] += 1
                if res.winner == me and row["laizi_held"]:
                    tally[mine]["laizi_held_at_win"] += 1
                wins.append(row)
    pool.close()
    return {"wins": wins, "hands": dict(hands), "tally": {k: dict(v) for k, v in tally.items()}}


def report(data: dict[str, Any], policy: str) -> None:
    wins = data["wins"]
    groups = [policy, "ref", "greedy"]
    keys = sorted({k for x in wins for k in x["parts"]})
    print("| part (log2 per payment) | " + " | ".join(groups) + " |")
    print("|---|" + "---|" * len(groups))
    rows = {gname: [x for x in wins if x["who"] == gname] for gname in groups}
    print("| wins | " + " | ".join(str(len(rows[gn])) for gn in groups) + " |")
    print("| mean gain | " + " | ".join(
        f"{statistics.fmean(x['gain'] for x in rows[gn]):+.0f}" if rows[gn] else "–"
        for gn in groups) + " |")
    print("| raw before caps | " + " | ".join(
        f"{statistics.fmean(x['raw'] for x in rows[gn]):.0f}" if rows[gn] else "–"
        for gn in groups) + " |")
    for k in keys:
        print(f"| {k} | " + " | ".join(
            f"{statistics.fmean(x['parts'].get(k, 0.0) for x in rows[gn]):+.3f}" if rows[gn] else "–"
            for gn in groups) + " |")
    for label, fn in (("self-drawn", lambda x: x["by"] == "self_draw"), ("big", lambda x: x["big"]),
                      ("capped payment in it", lambda x: x["limits"].get("none", 0) < 3)):
        print(f"| share {label} | " + " | ".join(
            f"{sum(map(fn, rows[gn])) / max(1, len(rows[gn])):.1%}" for gn in groups) + " |")
    print("| live wall at the win | " + " | ".join(
        f"{statistics.fmean(x['live'] for x in rows[gn]):.1f}" if rows[gn] else "–"
        for gn in groups) + " |")
    print()
    print("share of the seat's hands with each (once or more):", json.dumps(data["hands"]))
    for gn in (policy, "ref"):
        t = data["tally"].get(gn, {})
        h = max(1, data["hands"].get(gn, 1))
        print(f"  {gn}: " + ", ".join(f"{k} {t.get(k, 0) / h:.3f}" for k in GIVEN_UP))


def main() -> int:
    a = run_args(__doc__, 100, [("--out", "the wins and tallies as JSON")])
    data = play(a.profile, a.seed, a.first, a.deals, a.policy)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
    report(data, a.policy)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
