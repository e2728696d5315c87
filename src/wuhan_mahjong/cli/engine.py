"""The engine's sub-commands of ``wuhan-mahjong``: ``simulate``, ``replay`` and ``verify``.

Thin wrappers: parse, call the engine, print.  Malformed input is a
:class:`~wuhan_mahjong.cli.common.UsageError` (one line on stderr, exit 2).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from typing import Any

from .. import jsontext
from ..analysis import BIG_HAND_NAMES
from ..engine.actions import ActionFormatError, IllegalAction, action_from_json, parse_action
from ..engine.dealing import WallError, check_wall
from ..engine.match import Match, random_policy
from ..engine.records import HandRecordError, VerifyError, describe, load_records, record_lines, verify
from ..engine.state import SEAT_NAMES, HandState, new_hand
from ..rules import Rules
from ..tiles import TileError, parse_tiles
from .common import ArgumentParser, UsageError, add_rules_options, read_input, rules_from_args

MAX_SIMULATED_HANDS = 100_000
"""``simulate`` plays one match and keeps every hand's record (about 45 KB each) until it
summarises: this many hands take about 4.5 GB."""


def _seat_arg(text: str, where: str) -> int:
    t = text.strip().upper()
    if t in SEAT_NAMES:
        return SEAT_NAMES.index(t)
    if t.isascii() and t.isdigit() and (t.lstrip("0") or "0") in ("0", "1", "2", "3"):
        # ASCII digits only ("²".isdigit(), but int("²") fails), and never int() of a
        # run of more than 4,300 digits (a ValueError of its own)
        return int(t)
    raise UsageError(f"{where}: not a seat: '{text}' (0-3 or E, S, W, N)")


def run_script(state: HandState, text: str) -> int:
    """Apply a script to ``state``: one action per line, ``SEAT ACTION`` (``0 discard 5m``,
    ``S peng``, ``2 chi 3m``, ``N win``; ``#`` starts a comment), or JSON lines
    ``{"seat": 0, "action": {...}}`` (a record's ``act`` lines work as a script).
    Returns how many actions were applied."""
    n = 0
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("{") else raw.strip()
        if not line:
            continue
        where = f"script line {no}"
        try:
            if line.startswith("{"):
                obj = jsontext.loads(line)
                if isinstance(obj, dict) and obj.get("e") not in (None, "act"):
                    continue  # the other lines of a record
                if not isinstance(obj, dict) or "seat" not in obj or "action" not in obj:
                    raise UsageError(f"{where}: a JSON line needs 'seat' and 'action'")
                seat = _seat_arg(str(obj["seat"]), where)
                action = action_from_json(obj["action"])
            else:
                seat_text, _, rest = line.partition(" ")
                seat = _seat_arg(seat_text, where)
                action = parse_action(rest, pending=state.pending_tile)
        except (ActionFormatError, json.JSONDecodeError) as e:
            raise UsageError(f"{where}: {e}") from None
        if state.ended:
            raise UsageError(f"{where}: the hand is already over")
        try:
            state.apply(seat, action)
        except IllegalAction as e:
            raise UsageError(f"{where}: illegal action '{action}' by seat {seat}: {e}") from None
        n += 1
    return n


def _scripted(args: argparse.Namespace, rules: Rules) -> int:
    if not (args.wall and args.script):
        raise UsageError("--wall and --script go together")
    try:
        wall = check_wall(parse_tiles(read_input(args.wall)))
    except (TileError, WallError) as e:
        raise UsageError(f"--wall: {e}") from None
    rng = random.Random(args.seed) if args.seed is not None else None
    state = new_hand(rules, args.dealer, rng=rng, wall=wall, auto_pass=args.auto_pass)
    run_script(state, read_input(args.script))
    for line in record_lines(state):
        print(line)
    if not state.ended:
        print(f"wuhan-mahjong: note: the script ended before the hand did (phase {state.phase}, "
              f"seats to act: {list(state.to_act())})", file=sys.stderr)
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    if args.wall or args.script:
        return _scripted(args, rules)
    if args.hands < 1:
        raise UsageError("--hands must be at least 1")
    if args.hands > MAX_SIMULATED_HANDS:
        raise UsageError(f"--hands must be at most {MAX_SIMULATED_HANDS:,} (one match, held in "
                         "memory); run several with different --seed values")
    rng: random.Random = random.Random(args.seed) if args.seed is not None else random.SystemRandom()
    match = Match(rules, args.hands, rng=rng, auto_pass=True)
    match.run(random_policy(rng))
    summary = summarize(match)
    if args.records:
        try:
            with open(args.records, "w", encoding="utf-8") as f:
                for h in match.history:
                    f.write("\n".join(h.records) + "\n")
        except OSError as e:
            raise UsageError(f"cannot write {args.records}: {e.strerror}") from None
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=2))
        return 0
    print(f"simulate: profile {rules.profile}, {summary['hands']} hands, seed {args.seed}, "
          "random legal players (a win is always taken)")
    print(f"  wins                 {summary['wins']} ({summary['win_rate']:.1%})")
    print(f"  exhaustive draws 荒庄 {summary['draws']}")
    print("  wins by hand type:")
    for name, n in summary["by_hand"].items():
        zh = BIG_HAND_NAMES[name][0] if name in BIG_HAND_NAMES else "小胡"
        print(f"    {name:<14} {zh:<4} {n}")
    print("  wins by way:  " + ", ".join(f"{k} {v}" for k, v in summary["by_win_by"].items()))
    print(f"  mean points won per win   {summary['mean_win']:.1f}")
    print(f"  mean points per hand (winner's gain, 0 for 荒庄)  {summary['mean_per_hand']:.1f}")
    print("  totals: " + ", ".join(f"{SEAT_NAMES[s]}{s} {t:+d}" for s, t in enumerate(summary["totals"])))
    return 0


def summarize(match: Match) -> dict[str, Any]:
    by_hand: Counter[str] = Counter()
    by_way: Counter[str] = Counter()
    won = []
    for h in match.history:
        r = h.result
        if r.outcome == "win":
            assert r.settlement is not None and r.winner is not None and r.win_by is not None
            for name in r.settlement.hands or ("small",):
                by_hand[name] += 1
            by_way[r.win_by] += 1
            won.append(r.deltas[r.winner])
    n = len(match.history)
    return {
        "hands": n,
        "wins": len(won),
        "win_rate": len(won) / n if n else 0.0,
        "draws": n - len(won),
        "by_hand": dict(by_hand.most_common()),
        "by_win_by": dict(by_way.most_common()),
        "mean_win": sum(won) / len(won) if won else 0.0,
        "mean_per_hand": sum(won) / n if n else 0.0,
        "totals": list(match.totals),
    }


def _records(path: str) -> list[list[dict[str, Any]]]:
    try:
        return load_records(read_input(path))
    except HandRecordError as e:
        raise UsageError(str(e)) from None


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        for hand in _records(args.record):
            for line in describe(hand):
                print(line)
    except HandRecordError as e:
        raise UsageError(str(e)) from None
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    hands = _records(args.record)
    for i, events in enumerate(hands):
        try:
            state = verify(events)
        except HandRecordError as e:
            raise UsageError(str(e)) from None
        except VerifyError as e:
            print(f"wuhan-mahjong: verify: MISMATCH in hand {i + 1} of {len(hands)}: {e}",
                  file=sys.stderr)
            return 1
        r = state.result
        assert r is not None
        outcome = f"seat {r.winner} won ({r.win_by})" if r.outcome == "win" else "荒庄"
        print(f"ok: hand {state.hand_no}: commitment {state.commitment[:16]}… matches the revealed "
              f"wall and salt; replay identical ({len(events)} lines, {outcome})")
    return 0


def add_simulate_command(s: ArgumentParser) -> None:
    s.description = (
        "Play a match of random legal seats (a win is always taken) and print a "
        "summary; or, with --wall and --script, play scripted actions on a given wall and print "
        "the hand's record (JSON lines).")
    s.add_argument("--hands", type=int, default=100, help="hands to play (default 100)")
    s.add_argument("--seed", type=int, help="seed for walls, salts and players (default: OS CSPRNG)")
    s.add_argument("--records", metavar="FILE", help="write every hand's record (JSON lines) here")
    s.add_argument("--json", action="store_true", help="print the summary as JSON")
    s.add_argument("--wall", metavar="FILE", help="a 136-tile wall in order (e.g. 1m5p7z...)")
    s.add_argument("--script", metavar="FILE", help="actions, one per line: SEAT ACTION")
    s.add_argument("--dealer", type=int, default=0, choices=range(4), help="dealer of a scripted hand")
    s.add_argument("--auto-pass", action="store_true",
                   help="in a scripted hand, answer 'pass' for seats that can only pass")
    add_rules_options(s)
    s.set_defaults(func=cmd_simulate)


def add_replay_command(r: ArgumentParser) -> None:
    r.description = "Print a hand record (JSON lines) in readable text."
    r.add_argument("record", help="record file ('-' for standard input)")
    r.set_defaults(func=cmd_replay)


def add_verify_command(v: ArgumentParser) -> None:
    v.description = ("Exit 0: every hand checks out; 1: a commitment or replay "
                     "mismatch; 2: a malformed record.")
    v.add_argument("record", help="record file ('-' for standard input)")
    v.set_defaults(func=cmd_verify)


CONFIGURE = {"simulate": add_simulate_command, "replay": add_replay_command,
             "verify": add_verify_command}
"""Sub-command name -> the function that adds its arguments (read by ``cli.build_parser``)."""
