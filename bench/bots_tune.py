"""Paired tuning runs for docs/bots.md: several variants of a bot, each against three
greedy seats, on the same duplicate deals of a TUNING seed, compared deal by deal with
the first variant (the base), so the luck of the deal cancels twice (rotations within a
deal, and the same deals for every variant).

    nice -n 19 python3 bench/bots_tune.py --profile laizishanzhuang --seed 31 --deals 300 \\
        base=expert 'def0=expert:defence=0'

A variant is ``NAME=POLICY[:OPT=VALUE,...]`` with ``POLICY`` ``expert`` or ``search``
and options passed to its constructor (numbers, 0/1 for booleans, or words), or
``greedy`` and its class attributes (``'g=greedy:haidi=0'``).  For each variant:
points per hand against greedy (variant − greedy per deal, with its 95% interval), win
and deal-in rates, p99 decision CPU ms, and variant − base per deal with its interval,
for the points and for the deal-in rate (percentage points of the hands).
Never run it on a publication seed (docs/bots.md, Evaluation protocol).

``--out FILE`` saves one JSON line per deal and variant and skips the pairs already in
the file, so a run stopped (``--until HH:MM`` UTC: start no deal after it) or killed
resumes with the same command; the tables cover the deals every variant has played.
``--report FILE...`` prints the tables of saved runs without playing, the deals of
several files (several tuning seeds, the same variants) pooled.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _seeds import PUBLICATION_SEEDS  # bench/_seeds.py
from wuhan_mahjong.bots import Bot, register
from wuhan_mahjong.bots.arena import BotPool, ci95, percentile, play_group
from wuhan_mahjong.rules import get_rules


def _factory(policy: str, opts: dict[str, float | str]) -> Callable[[int | None], Bot]:
    def make(seed: int | None) -> Bot:
        if policy == "greedy":  # its options are class attributes: set on the instance
            from wuhan_mahjong.bots.greedy import GreedyBot
            bot = GreedyBot(seed)
            for k, v in opts.items():
                if not hasattr(bot, k):
                    sys.exit(f"greedy has no option {k!r}")
                setattr(bot, k, type(getattr(bot, k))(v))
            return bot
        if policy == "search":
            from wuhan_mahjong.bots.search import SearchBot
            return SearchBot(seed, **opts)  # type: ignore[arg-type]
        from wuhan_mahjong.bots.expert import ExpertBot
        return ExpertBot(seed, **opts)  # type: ignore[arg-type]
    return make


def _parse(spec: str) -> tuple[str, str, dict[str, float | str]]:
    name, _, rest = spec.partition("=")
    policy, _, optstr = rest.partition(":")
    opts: dict[str, float | str] = {}
    for kv in filter(None, optstr.split(",")):
        k, _, v = kv.partition("=")
        try:
            opts[k] = float(v)
        except ValueError:
            opts[k] = v  # a word: waits=shapes
    return name, policy, opts


def _rule_option(text: str) -> tuple[str, Any]:
    """``NAME=VALUE`` of ``--option``: the value as JSON (``false``, ``2``), else a word."""
    name, _, value = text.partition("=")
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


def _deadline(until: str | None) -> dt.datetime | None:
    if not until:
        return None
    hh, mm = map(int, until.split(":"))
    now = dt.datetime.now(dt.UTC)
    at = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
    return at + dt.timedelta(days=1) if at < now else at


def _load(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(header, one record per deal and variant) of a saved run; a torn last line is dropped."""
    head: dict[str, Any] = {}
    recs: list[dict[str, Any]] = []
    if not path.exists():
        return head, recs
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "header" in obj:
            head = obj["header"]
        else:
            recs.append(obj)
    return head, recs


def _play_deal(rules: Any, pool: BotPool, seed: int, g: int, n: str) -> dict[str, Any]:
    """Deal ``g`` played by variant ``n`` against three greedy seats, the four rotations."""
    me = "tune_" + n
    mine, theirs = [], []
    rec: dict[str, Any] = {"deal": g, "variant": n, "hands": 0, "wins": 0, "deal_ins": 0,
                           "win_pts": 0, "deal_pts": 0, "times": []}
    for h in play_group(rules, [me, "greedy", "greedy", "greedy"], seed, g, pool):
        for s, pol in enumerate(h.policies):
            if pol != me:
                theirs.append(h.deltas[s])
                continue
            mine.append(h.deltas[s])
            rec["times"].extend(round(x, 6) for x in h.times[s])
            rec["hands"] += 1
            if h.winner == s:
                rec["wins"] += 1
                rec["win_pts"] += h.deltas[s]
            elif h.from_seat == s and h.win_by != "self_draw":
                rec["deal_ins"] += 1
                rec["deal_pts"] += h.deltas[s]
    rec["diff"] = statistics.fmean(mine) - statistics.fmean(theirs)
    return rec


def _table(names: list[str], recs: list[dict[str, Any]], title: str) -> None:
    """The tables over the deals (keyed by source and deal) every variant has played."""
    by: dict[str, dict[tuple[str, int], dict[str, Any]]] = {n: {} for n in names}
    for r in recs:
        if r["variant"] in by:
            by[r["variant"]][(r.get("src", ""), r["deal"])] = r
    keys = sorted(set.intersection(*(set(by[n]) for n in names)))
    base = names[0]
    print(f"{title}: {len(keys)} deals ({4 * len(keys)} hands per variant)")
    print("| variant | − greedy [95% CI] | win | deal-in | pts/win | pts/deal-in | p99 ms |"
          " − base [95% CI] | deal-in − base, points [95% CI] |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in names:
        rows = [by[n][k] for k in keys]
        hands = max(1, sum(r["hands"] for r in rows))
        wins = sum(r["wins"] for r in rows)
        deal_ins = sum(r["deal_ins"] for r in rows)
        times = [x for r in rows for x in r["times"]]
        m, h = ci95([r["diff"] for r in rows])
        d = [by[n][k]["diff"] - by[base][k]["diff"] for k in keys]
        bm, bh = ci95(d) if n != base else (0.0, 0.0)
        # the deal-in rate's difference, paired per deal (percentage points of the hands)
        dd = [100 * (by[n][k]["deal_ins"] / max(1, by[n][k]["hands"])
                     - by[base][k]["deal_ins"] / max(1, by[base][k]["hands"])) for k in keys]
        dm, dh = ci95(dd) if n != base else (0.0, 0.0)
        print(f"| {n} | {m:+.2f} [{m - h:+.2f}, {m + h:+.2f}] |"
              f" {wins / hands:.1%} | {deal_ins / hands:.1%} |"
              f" {sum(r['win_pts'] for r in rows) / max(1, wins):+.0f} |"
              f" {sum(r['deal_pts'] for r in rows) / max(1, deal_ins):+.0f} |"
              f" {1000 * percentile(times, 99):.1f} |"
              f" {bm:+.2f} [{bm - bh:+.2f}, {bm + bh:+.2f}] |"
              f" {dm:+.2f} [{dm - dh:+.2f}, {dm + dh:+.2f}] |")


def _report(files: list[str]) -> int:
    names: list[str] = []
    recs: list[dict[str, Any]] = []
    profiles = set()
    for f in files:
        head, rs = _load(Path(f))
        if not head:
            sys.exit(f"{f}: no run header")
        profiles.add(head["profile"])
        vs = [_parse(v)[0] for v in head["variants"]]
        names = names or vs
        if vs[0] != names[0]:
            sys.exit(f"{f}: another base ({vs[0]}, not {names[0]})")
        names = [n for n in names if n in vs]
        recs.extend({**r, "src": f} for r in rs)
    if len(profiles) != 1:
        sys.exit(f"several profiles: {sorted(profiles)}")
    _table(names, recs, f"profile {profiles.pop()}, {len(files)} file(s)")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--profile")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a table rule option over the profile (JSON value or a word), repeatable:"
                        " --option opening_scoring=per_opening")
    p.add_argument("--seed", type=int)
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--first", type=int, default=0, help="first deal number")
    p.add_argument("--progress", action="store_true", help="running differences on stderr")
    p.add_argument("--out", default=None, help="JSON lines, one per deal and variant (resumable)")
    p.add_argument("--until", default=None, help="HH:MM UTC: start no deal after it")
    p.add_argument("--report", nargs="+", default=None, metavar="FILE",
                   help="print the tables of saved runs (pooled) and exit")
    p.add_argument("variants", nargs="*")
    args = p.parse_args()
    if args.report:
        return _report(args.report)
    if args.profile is None or args.seed is None or not args.variants:
        p.error("--profile, --seed and at least one variant are required")
    if args.seed in PUBLICATION_SEEDS:
        sys.exit(f"seed {args.seed} is a publication seed (docs/bots.md)")
    table = dict(map(_rule_option, args.option))
    rules = get_rules(args.profile, table)
    names = []
    for spec in args.variants:
        name, policy, opts = _parse(spec)
        register("tune_" + name, _factory(policy, opts))
        names.append(name)
    head: dict[str, Any] = {}
    recs: list[dict[str, Any]] = []
    want: dict[str, Any] = {"profile": args.profile, "seed": args.seed, "variants": args.variants}
    if table:
        want["options"] = table
    path = Path(args.out) if args.out else None
    if path is not None:
        head, recs = _load(path)
        if head and (head["profile"], head["seed"], head.get("options", {})) != (
                args.profile, args.seed, table):
            sys.exit(f"{path} holds another run: {head}")
        specs = dict(_parse(v)[0:3:2] for v in head.get("variants", []))
        for name, _, opts in map(_parse, args.variants):
            if name in specs and specs[name] != opts:
                sys.exit(f"{path}: variant {name} was saved with other options {specs[name]}")
    done = {(r["deal"], r["variant"]) for r in recs}
    until = _deadline(args.until)
    pool = BotPool()
    c0, w0 = time.process_time(), time.perf_counter()
    out = path.open("a", encoding="utf-8") if path is not None else None
    if out is not None and head.get("variants") != args.variants:
        out.write(json.dumps({"header": want}) + "\n")
    base = names[0]
    try:
        for g in range(args.first, args.first + args.deals):
            if until is not None and dt.datetime.now(dt.UTC) >= until:
                print(f"stopped at the deadline before deal {g}", file=sys.stderr)
                break
            for n in names:
                if (g, n) in done:
                    continue
                rec = _play_deal(rules, pool, args.seed, g, n)
                recs.append(rec)
                if out is not None:
                    out.write(json.dumps(rec) + "\n")
                    out.flush()
            if args.progress and (g + 1) % 10 == 0:
                diff = {n: {r["deal"]: r["diff"] for r in recs if r["variant"] == n} for n in names}
                common = sorted(set.intersection(*(set(d) for d in diff.values())))
                print(f"deal {g + 1}: " + " ".join(
                    f"{n} {statistics.fmean(diff[n][k] - diff[base][k] for k in common):+.1f}"
                    for n in names[1:]), file=sys.stderr, flush=True)
    finally:
        if out is not None:
            out.close()
        pool.close()
    opts = "".join(f" {k}={v}" for k, v in table.items())
    print(f"profile {args.profile}{opts} seed {args.seed}; {time.process_time() - c0:.0f} s CPU,"
          f" {time.perf_counter() - w0:.0f} s wall this run")
    _table(names, recs, f"deals {args.first}..{args.first + args.deals - 1}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
