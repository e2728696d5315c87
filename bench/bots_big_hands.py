"""What a big hand is worth in a profile, and how the expert prices it where the big target and
the fastest small hand part ways (docs/bots-log.md, the thirty-seventh hunt).

``wins``: every win of a run (``--seats expert`` = the expert against three greedy seats on
the arena's rotations; ``--seats greedy`` = four greedy seats, one rotation: greedy plays a
deal alike in all four), by the big hands it made (碰碰胡, 清一色 ...; several joined by
``+``): count, share of seat-hands, the winner's mean gain.
``--option NAME=VALUE`` overrides a rule, to ask which rule of a profile makes a big hand
rare (the minimum score, 发财 as a must-kong tile ...).

    nice -n 19 python3 bench/bots_big_hands.py wins --profile laizishanzhuang --seed 449 \\
        --deals 150 --seats greedy

``forks``: at each discard of the expert's (against three greedy seats, the arena's
duplicate deals, ``_expert_deals``) where a big target (碰碰胡, 清一色, 将一色, 风一色) can be
kept a step from where the fastest small hand is, and the expert's discard gives it up
(it falls two steps or more behind), both discards are played out on copies of the real
state (the actual wall: an oracle read only for the study), the seat then played by the
expert as it is (``small``) or, after the big discard, by the expert with ``big_target``
1.5 (a big target one step further ranks first, ``big``); the seat's result, and whether
it won a big hand, are logged beside the expert's prices (:meth:`ExpertBot.my_win_value`
for each, ``_big_at_typical``, and ``win_chance`` for each route).

    nice -n 19 python3 bench/bots_big_hands.py forks --profile laizishanzhuang --seed 450 \\
        --deals 100 --out /tmp/forks450.jsonl

``reverse``: the other way round, each discard of the expert's that keeps a big target as
close as the small hand where a discard as fast takes more tiles for the small hand and
keeps none (the expert after either).  ``pengs``: each claim where a peng is offered, the
expert does something else, and the peng keeps 碰碰胡 within a step of the small hand
(the peng's line played by the expert with ``big_target`` 1.5).  ``report FILE...``: the
table of saved forks.

Never run it on a publication seed (docs/bots.md, Evaluation protocol).
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from _expert_deals import expert_decisions  # bench/_expert_deals.py
from _seeds import PUBLICATION_SEEDS  # bench/_seeds.py
from wuhan_mahjong.bots.arena import BotPool, _seed_for, arrangements, deal
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot, after_claim, claim_discards, evaluator
from wuhan_mahjong.bots.opponents import typical_win
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.bots.view import int_view
from wuhan_mahjong.engine.actions import Action, Chi, Discard, Pass, Peng
from wuhan_mahjong.engine.state import HandState, new_hand
from wuhan_mahjong.engine.views import seat_view
from wuhan_mahjong.rules import get_rules, parse_overrides

BIG_NAMES = {"pph": "pengpenghu", "fys": "fengyise", "jys": "jiangyise", "qys": "qingyise"}


def wins(profile: str, options: dict[str, Any], seed: int, deals: int, seats: str
         ) -> tuple[int, list[dict[str, Any]]]:
    """(hands played, one row per won hand: the winner's policy, gain and big hands)."""
    rules = get_rules(profile, options)
    pool = BotPool()
    rows: list[dict[str, Any]] = []
    hands = 0
    table = ["expert", "greedy", "greedy", "greedy"] if seats == "expert" else ["greedy"] * 4
    # four greedy seats play a deal alike in every rotation: one is enough
    rotations = arrangements(table, False) if seats == "expert" else [tuple(table)]
    for g in range(deals):
        wall, salt = deal(seed, g)
        for r, policies in enumerate(rotations):
            bots = [pool.get(policies[i], _seed_for(seed, g, r, i, 4)) for i in range(4)]
            st = new_hand(rules, 0, wall=wall, salt=salt, hand_no=g * 4 + r, auto_pass=True)
            while not st.ended:
                s = st.to_act()[0]
                st.apply(s, bots[s].choose(int_view(st, s)))  # type: ignore[arg-type]
            hands += 1
            res = st.result
            if res is None or res.winner is None or res.settlement is None:
                continue
            se = res.settlement
            big = [h for h in se.hands if h != "small"]
            rows.append({"policy": policies[res.winner], "gain": res.deltas[res.winner],
                         "kind": "+".join(sorted(big)) or "small", "win_by": res.win_by})
    pool.close()
    return hands, rows


def report_wins(hands: int, rows: list[dict[str, Any]], policy: str, seats: int) -> None:
    """The wins of ``policy``, which sat at ``seats`` seats of each of ``hands`` hands."""
    rs = [x for x in rows if x["policy"] == policy]
    per = hands * seats
    print(f"{policy}: {len(rs)} wins in {hands} hands ({per} seat-hands)")
    by = collections.defaultdict(list)
    for x in rs:
        by[x["kind"]].append(x["gain"])
    small = by.get("small", [])
    big = [g for k, v in by.items() if k != "small" for g in v]
    print(f"  {'kind':<32} {'wins':>5} {'per seat-hand':>15} {'mean gain':>10}")
    for k, v in sorted(by.items(), key=lambda kv: -len(kv[1])):
        print(f"  {k:<32} {len(v):>5} {len(v) / per:>15.2%} {statistics.fmean(v):>10.0f}")
    if big and small:
        print(f"  big {len(big)} ({len(big) / per:.2%} of seat-hands), mean {statistics.fmean(big):.0f};"
              f" small mean {statistics.fmean(small):.0f}; ratio "
              f"{statistics.fmean(big) / statistics.fmean(small):.2f}")


# ---------------------------------------------------------------------------- forks
def _big_shanten(ev: Any, d: int) -> dict[str, int]:
    return {tg: ev.shanten_after(d, -1, tg) for tg in ev.allowed if tg != "small"}


def play_out(state: HandState, me: int, first: Action, bot_me: ExpertBot, seed: int,
             g: int, r: int) -> tuple[int, str]:
    """The seat's result and its win's big hands when ``first`` is played now and the hand
    goes on with ``bot_me`` at this seat and greedy elsewhere (the same seeds as the run)."""
    st = state.copy()
    st.apply(me, first)
    bots: list[ExpertBot | GreedyBot] = [
        bot_me if i == me else GreedyBot(_seed_for(seed, g, r, i)) for i in range(4)]
    while not st.ended:
        s = st.to_act()[0]
        st.apply(s, bots[s].choose(seat_view(st, s)))
    res = st.result
    assert res is not None
    kind = ""
    if res.winner == me and res.settlement is not None:
        kind = "+".join(sorted(h for h in res.settlement.hands if h != "small")) or "small"
    return res.deltas[me], kind


def forks(profile: str, seed: int, first: int, deals: int, out: Path, reverse: bool = False) -> None:
    rules = get_rules(profile)
    done = 0
    with out.open("a") as fh:
        for dec in expert_decisions(rules, seed, first + deals):
            if dec.group < first or dec.seat != dec.me or not isinstance(dec.action, Discard):
                continue
            view = dec.view
            t = SeatReading(view)
            if t.phase != "turn" or t.end_phase:
                continue
            ev = evaluator(t.hand, t.melds, t)
            choices = sorted(set(t.hand) - t.rules.must_kong_tiles - {t.laizi})
            if len(choices) < 2:
                continue
            small = {d: ev.shanten_after(d, -1, "small") for d in choices}
            s_best = min(small.values())
            d0 = dec.action.tile
            if small.get(d0, 99) != s_best or s_best < 0:
                continue
            big0 = _big_shanten(ev, d0)
            alts = []
            if reverse:
                # the expert's discard keeps a big target as close as the small hand; the
                # alternative, as fast, takes more tiles for the small hand and keeps none
                kept = [tg for tg, sh in big0.items() if sh == s_best]
                if not kept:
                    continue
                acc_d0 = ev.with_tile(d0, -1).acceptance(t.unseen, t.laizi, current=s_best)[0]
                for d in choices:
                    if small[d] != s_best or min(_big_shanten(ev, d).values(), default=99) <= s_best:
                        continue
                    acc = ev.with_tile(d, -1).acceptance(t.unseen, t.laizi, current=s_best)[0]
                    if acc > acc_d0:
                        alts.append((0, -acc, d, kept[0]))
            else:
                # the discard keeping a big target a step from the fastest small hand, which
                # the expert's discard leaves two steps or more behind
                for d in choices:
                    for tg, sh in _big_shanten(ev, d).items():
                        if sh == s_best + 1 and big0.get(tg, 99) >= s_best + 2:
                            alts.append((small[d], -ev.with_tile(d, -1).acceptance(
                                t.unseen, t.laizi, target=tg, current=sh)[0], d, tg))
            if not alts:
                continue
            alts.sort()
            _, negacc, d1, tg = alts[0]
            ev0 = ev.with_tile(d0, -1)
            acc0 = ev0.acceptance(t.unseen, t.laizi, current=s_best)[0]
            r = (4 - dec.me) % 4
            bot: ExpertBot = dec.bot  # type: ignore[assignment]
            turns = t.wall / 4
            row = {
                "deal": dec.group, "rot": r, "wall": t.wall, "opened": t.opened,
                "hand": " ".join(map(str, t.hand)), "d_small": d0, "d_big": d1,
                "target": BIG_NAMES.get(tg[:3], tg), "s_small": s_best,
                "s_big_after_small": min(big0.values(), default=99),
                "small_after_big": small[d1],
                "value_small": bot.my_win_value(t, ev, d0, big=False),
                "value_big": bot.my_win_value(t, ev, d1, big=True),
                "big_at_typical": ExpertBot._big_at_typical(t),
                "typical": typical_win(t.rules),
                "chance_small": ExpertBot.win_chance(s_best, acc0, t.unseen_total, turns),
                "chance_big": ExpertBot.win_chance(s_best + 1, -negacc, t.unseen_total, turns),
            }
            sd = _seed_for(seed, dec.group, r, dec.me)
            if reverse:  # d0 is the big one here: the same expert after either discard
                row.update(d_small=d1, d_big=d0, chance_small=ExpertBot.win_chance(
                    s_best, -negacc, t.unseen_total, turns), chance_big=ExpertBot.win_chance(
                    s_best, acc0, t.unseen_total, turns), value_small=bot.my_win_value(
                    t, ev, d1, big=False), value_big=bot.my_win_value(t, ev, d0, big=True))
            row["res_small"], row["kind_small"] = play_out(
                dec.state, dec.me, Discard(d1 if reverse else d0), ExpertBot(sd), seed, dec.group, r)
            row["res_big"], row["kind_big"] = play_out(
                dec.state, dec.me, Discard(d0 if reverse else d1),
                ExpertBot(sd, big_target=0.5 if reverse else 1.5), seed, dec.group, r)
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            done += 1
    print(f"{done} forks written to {out}", file=sys.stderr)


def peng_forks(profile: str, seed: int, first: int, deals: int, out: Path) -> None:
    """At each claim of the expert's where a peng is offered and it does something else
    (passes, or chis), and the peng keeps 碰碰胡 within a step of the small hand's shanten
    after the expert's action: both lines played out as :func:`forks` plays its two (the
    peng's with ``big_target`` 1.5 after it)."""
    rules = get_rules(profile)
    done = 0
    with out.open("a") as fh:
        for dec in expert_decisions(rules, seed, first + deals):
            if dec.group < first or dec.seat != dec.me or not isinstance(dec.action, Pass | Chi):
                continue
            t = SeatReading(dec.view)
            if t.phase != "claim" or t.on_table is None or t.end_phase:
                continue
            peng = Peng(t.on_table)
            if peng not in t.actions:
                continue
            ev = evaluator(t.hand, t.melds, t)
            res = after_claim(t, dec.action)
            if res is not None:  # a chi: the small hand's shanten after its best discard
                ev_a = evaluator(*res, t)
                s_action = min(ev_a.shanten_after(d, -1, "small") for d in claim_discards(t, res[0]))
            else:
                s_action = ev.shanten("small")
            hand_p, melds_p = after_claim(t, peng) or ([], [])
            ev_p = evaluator(hand_p, melds_p, t)
            ds = claim_discards(t, hand_p)
            if "pph" not in ev_p.allowed or not ds:
                continue
            s_pph = min(ev_p.shanten_after(d, -1, "pph") for d in ds)
            s_peng_small = min(ev_p.shanten_after(d, -1, "small") for d in ds)
            if s_pph > s_action + 1:
                continue
            r = (4 - dec.me) % 4
            sd = _seed_for(seed, dec.group, r, dec.me)
            row: dict[str, Any] = {
                "deal": dec.group, "rot": r, "wall": t.wall, "opened": t.opened,
                "action": str(dec.action), "target": "pengpenghu", "s_small": s_action,
                "s_pph_after_peng": s_pph, "small_after_big": s_peng_small,
                "value_small": 0.0, "value_big": 0.0, "big_at_typical": ExpertBot._big_at_typical(t),
                "chance_small": 0.0, "chance_big": 0.0}
            row["res_small"], row["kind_small"] = play_out(
                dec.state, dec.me, dec.action, ExpertBot(sd), seed, dec.group, r)
            row["res_big"], row["kind_big"] = play_out(
                dec.state, dec.me, peng, ExpertBot(sd, big_target=1.5), seed, dec.group, r)
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            done += 1
    print(f"{done} peng forks written to {out}", file=sys.stderr)


def report_forks(files: list[Path]) -> None:
    rows = [json.loads(line) for f in files for line in f.open()]
    if not rows:
        print("no forks")
        return
    print(f"{len(rows)} forks in {len({(x['deal'], x['rot']) for x in rows})} hands")
    groups: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for x in rows:
        groups[x["target"]].append(x)
        groups["all"].append(x)
    print(f"{'target':<12} {'forks':>5} {'value small':>11} {'value big':>9} {'big@typ':>8} "
          f"{'P small':>7} {'P big':>6} {'won small':>9} {'won big':>8} {'big made':>8} "
          f"{'mean big win':>12} {'mean small win':>14} {'res small':>9} {'res big':>8} "
          f"{'big - small [95% CI]':>22}")
    for k, xs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        n = len(xs)
        diffs = [x["res_big"] - x["res_small"] for x in xs]
        m = statistics.fmean(diffs)
        h = 1.96 * statistics.stdev(diffs) / n ** 0.5 if n > 1 else 0.0
        bigwins = [x["res_big"] for x in xs if x["kind_big"] not in ("", "small")]
        smallwins = [x["res_small"] for x in xs if x["kind_small"] == "small"]
        print(f"{k:<12} {n:>5} {statistics.fmean(x['value_small'] for x in xs):>11.0f} "
              f"{statistics.fmean(x['value_big'] for x in xs):>9.0f} "
              f"{statistics.fmean(x['big_at_typical'] for x in xs):>8.0f} "
              f"{statistics.fmean(x['chance_small'] for x in xs):>7.2f} "
              f"{statistics.fmean(x['chance_big'] for x in xs):>6.2f} "
              f"{sum(1 for x in xs if x['kind_small']) / n:>9.2f} "
              f"{sum(1 for x in xs if x['kind_big']) / n:>8.2f} "
              f"{len(bigwins) / n:>8.2f} "
              f"{statistics.fmean(bigwins) if bigwins else 0:>12.0f} "
              f"{statistics.fmean(smallwins) if smallwins else 0:>14.0f} "
              f"{statistics.fmean(x['res_small'] for x in xs):>9.1f} "
              f"{statistics.fmean(x['res_big'] for x in xs):>8.1f} "
              f"{m:>+10.1f} [{m - h:+.1f}, {m + h:+.1f}]")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("mode", choices=("wins", "forks", "reverse", "pengs", "report"))
    p.add_argument("--profile", default="laizishanzhuang")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seats", choices=("expert", "greedy"), default="greedy")
    p.add_argument("--out", type=Path, default=Path("/tmp/forks.jsonl"))
    p.add_argument("files", nargs="*", type=Path)
    a = p.parse_args()
    if a.seed in PUBLICATION_SEEDS:
        sys.exit(f"seed {a.seed} is a publication seed (docs/bots.md)")
    if a.mode == "report":
        report_forks(a.files)
    elif a.mode == "pengs":
        peng_forks(a.profile, a.seed, a.first, a.deals, a.out)
        report_forks([a.out])
    elif a.mode in ("forks", "reverse"):
        forks(a.profile, a.seed, a.first, a.deals, a.out, reverse=a.mode == "reverse")
        report_forks([a.out])
    else:
        hands, rows = wins(a.profile, parse_overrides(a.option), a.seed, a.deals, a.seats)
        for pol in dict.fromkeys(x["policy"] for x in rows):
            report_wins(hands, rows, pol, 1 if pol == "expert" else (3 if a.seats == "expert" else 4))
        print(f"{hands - len(rows)} hands of {hands} drawn (荒庄)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
