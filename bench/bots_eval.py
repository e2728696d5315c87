"""The published evaluation of docs/bots.md: duplicate deals on a seed fixed in advance,
played in deal order and saved hand by hand, so a run on a shared machine can stop at
a deadline and resume, and the report covers a prefix of the deals chosen by time,
never by the results.

    nice -n 10 python3 bench/bots_eval.py play --profile yuanhang --seed 20261201 \\
        --seats expert,greedy,greedy,greedy --deals 2000 --until 02:05 --out bench/eval_yuanhang.jsonl
    python3 bench/bots_eval.py report bench/eval_yuanhang.jsonl [--markdown]
    python3 bench/bots_eval.py report eval_1.jsonl eval_2.jsonl   # two seeds, pooled

``play`` appends one JSON line per hand (the arena's ``HandOutcome``, decision times
in CPU seconds) and skips deals already in the file; ``--until HH:MM`` (UTC) stops
before starting a deal after that time.  ``report`` prints the arena's statistics
over the whole deals in the file (in several files of the same bots on other seeds,
pooled: each deal is a group of its own, so the interval is over all of them).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import sys
import time
from pathlib import Path

from wuhan_mahjong.bots.arena import BotPool, HandOutcome, play_group, report_from_hands
from wuhan_mahjong.rules import get_rules


def _load(path: Path) -> tuple[dict[str, object], list[HandOutcome]]:
    head: dict[str, object] = {}
    hands: list[HandOutcome] = []
    if not path.exists():
        return head, hands
    for line in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        if "header" in obj:
            head = obj["header"]
            continue
        obj["policies"] = tuple(obj["policies"])
        obj["deltas"] = tuple(obj["deltas"])
        obj["big_hands"] = tuple(obj["big_hands"])
        obj["times"] = tuple(obj["times"])
        obj["cap_hits"] = tuple(obj["cap_hits"])
        hands.append(HandOutcome(**obj))
    return head, hands


def play(args: argparse.Namespace) -> int:
    path = Path(args.out)
    seats = args.seats.split(",")
    head, hands = _load(path)
    want = {"profile": args.profile, "seed": args.seed, "seats": seats, "permute": args.permute}
    if head and head != want:
        sys.exit(f"{path} holds another run: {head}")
    done = {h.group for h in hands}
    per = {h.group: 0 for h in hands}
    for h in hands:
        per[h.group] += 1
    complete = {g for g in done if hands and per[g] == next(
        x.arrangements for x in hands if x.group == g)}
    until = None
    if args.until:
        hh, mm = map(int, args.until.split(":"))
        now = dt.datetime.now(dt.UTC)
        until = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
        if until < now:
            until += dt.timedelta(days=1)
    rules = get_rules(args.profile)
    pool = BotPool()
    with path.open("a", encoding="utf-8") as out:
        if not head:
            out.write(json.dumps({"header": want}) + "\n")
        for g in range(args.deals):
            if g in complete:
                continue
            if until is not None and dt.datetime.now(dt.UTC) >= until:
                print(f"stopped at the deadline before deal {g}", file=sys.stderr)
                break
            c0 = time.process_time()
            for h in play_group(rules, seats, args.seed, g, pool, args.permute):
                out.write(json.dumps(dataclasses.asdict(h)) + "\n")
            out.flush()
            if args.verbose:
                print(f"deal {g}: {time.process_time() - c0:.1f} s CPU", file=sys.stderr)
    pool.close()
    return 0


def pooled(paths: list[Path]) -> tuple[dict[str, object], list[HandOutcome]]:
    """The runs of ``paths`` as one: the same profile, seats and seat orders, on different
    seeds (the same bots, fixed before each run: a publication seed's protocol says so),
    each file's deals numbered after the previous file's.  The header is the first file's,
    with ``seeds`` listing them all."""
    head: dict[str, object] = {}
    hands: list[HandOutcome] = []
    seeds: list[int] = []
    for path in paths:
        h, part = _load(path)
        if not h:
            sys.exit(f"{path}: no run header")
        head = head or dict(h)
        if {k: v for k, v in h.items() if k != "seed"} != {k: v for k, v in head.items()
                                                            if k != "seed"}:
            sys.exit(f"{path} is another kind of run than {paths[0]}: {h}")
        seed = int(h["seed"])  # type: ignore[call-overload]
        if seed in seeds:
            sys.exit(f"{path}: seed {seed} is pooled twice")
        seeds.append(seed)
        offset = 1 + max((x.group for x in hands), default=-1)
        hands += [dataclasses.replace(x, group=x.group + offset) for x in part]
    head["seeds"] = seeds
    return head, hands


def report(args: argparse.Namespace) -> int:
    head, hands = pooled([Path(f) for f in args.files])
    if len(args.files) > 1:
        print(f"pooled: seeds {', '.join(map(str, head['seeds']))} "  # type: ignore[call-overload]
              f"({len({h.group for h in hands})} deals)")
    rules = get_rules(str(head["profile"]))
    seats = [str(s) for s in head["seats"]]  # type: ignore[attr-defined]
    hands.sort(key=lambda h: (h.group, h.rotation))
    rep = report_from_hands(rules, seats, int(head["seed"]), hands,  # type: ignore[call-overload]
                            permute=bool(head["permute"]))
    j = rep.to_json()
    if args.breakdown:
        print("| profile | policy | win | gain/win | deal-in | loss/deal-in | other loss | "
              "loss/other | no winner | from wins | from deal-ins | from others |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for name, b in breakdown(hands).items():
            print(f"| {rep.profile} | {name} | {b['win_rate']:.1%} | {b['gain_per_win']:+.0f} | "
                  f"{b['deal_in_rate']:.1%} | {b['loss_per_deal_in']:+.0f} | "
                  f"{b['other_loss_rate']:.1%} | {b['loss_per_other']:+.0f} | {b['draw_rate']:.1%} | "
                  f"{b['points_from_wins']:+.1f} | {b['points_from_deal_ins']:+.1f} | "
                  f"{b['points_from_others']:+.1f} |")
        return 0
    if not args.markdown:
        print(rep.text())
        return 0
    for name, p in j["policies"].items():
        lo, hi = p["ci95"]
        print(f"| {rep.profile} | {name} | {p['mean_points']:+.2f} [{lo:+.2f}, {hi:+.2f}] | "
              f"{p['win_rate']:.1%} | {p['deal_in_rate']:.1%} | {p['big_hand_rate']:.2%} | "
              f"{p['decision_ms_p50']:.2f} | {p['decision_ms_p99']:.2f} | {p['hands']} |")
    for key, d in j["differences"].items():
        lo, hi = d["ci95"]
        print(f"| {rep.profile} | {key} | {d['mean']:+.2f} | [{lo:+.2f}, {hi:+.2f}] | "
              f"{'yes' if d['excludes_zero'] else 'no'} | {rep.hands} | {rep.groups} |")
    return 0


def breakdown(hands: list[HandOutcome]) -> dict[str, dict[str, float]]:
    """Where each policy's points come from, per hand played: its wins (rate and mean
    gain), its deal-ins (a discard or a robbed kong won on: rate and mean loss, contract
    payments included), what it pays when another seat wins otherwise, and hands with
    no winner."""
    acc: dict[str, dict[str, float]] = {}
    for h in hands:
        for s, name in enumerate(h.policies):
            a = acc.setdefault(name, dict.fromkeys(
                ("hands", "wins", "win_points", "deal_ins", "deal_in_points", "other_losses",
                 "other_points", "draws"), 0.0))
            a["hands"] += 1
            d = h.deltas[s]
            if h.winner is None:
                a["draws"] += 1
            elif h.winner == s:
                a["wins"] += 1
                a["win_points"] += d
            elif h.from_seat == s and h.win_by != "self_draw":
                a["deal_ins"] += 1
                a["deal_in_points"] += d
            else:
                a["other_losses"] += 1
                a["other_points"] += d
    out = {}
    for name, a in acc.items():
        n = a["hands"]
        out[name] = {
            "win_rate": a["wins"] / n, "gain_per_win": a["win_points"] / max(1, a["wins"]),
            "deal_in_rate": a["deal_ins"] / n,
            "loss_per_deal_in": a["deal_in_points"] / max(1, a["deal_ins"]),
            "other_loss_rate": a["other_losses"] / n,
            "loss_per_other": a["other_points"] / max(1, a["other_losses"]),
            "draw_rate": a["draws"] / n,
            "points_from_wins": a["win_points"] / n, "points_from_deal_ins": a["deal_in_points"] / n,
            "points_from_others": a["other_points"] / n,
        }
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(required=True)
    a = sub.add_parser("play")
    a.add_argument("--profile", required=True)
    a.add_argument("--seed", type=int, required=True)
    a.add_argument("--seats", default="expert,greedy,greedy,greedy")
    a.add_argument("--deals", type=int, default=2000)
    a.add_argument("--permute", action="store_true")
    a.add_argument("--until", default=None, help="HH:MM UTC: start no deal after it")
    a.add_argument("--out", required=True)
    a.add_argument("--verbose", action="store_true")
    a.set_defaults(func=play)
    r = sub.add_parser("report")
    r.add_argument("files", nargs="+", metavar="file",
                   help="one run, or several runs of the same bots on other seeds, pooled")
    r.add_argument("--markdown", action="store_true")
    r.add_argument("--breakdown", action="store_true",
                   help="where each policy's points come from (wins, deal-ins, others' wins)")
    r.set_defaults(func=report)
    args = p.parse_args()
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
