"""The rules core's sub-commands: ``rules``, ``score`` and ``hand``.

They import only the standard-library rules core (never the engine, the bots or
the server), so they start fast in a plain install without extras.
"""

from __future__ import annotations

import argparse
import json

from .common import ArgumentParser, UsageError, add_rules_options, read_input, rules_from_args

__all__ = ["CONFIGURE", "cmd_hand", "cmd_rules", "cmd_score"]


def cmd_rules(args: argparse.Namespace) -> int:
    from ..rules import get_rules

    rules = get_rules(args.profile_name)
    if args.json:
        print(json.dumps(rules.to_dict(), ensure_ascii=False, indent=2))
        return 0
    print(f"Profile {args.profile_name}")
    width = max(len(n) for n, _, _ in rules.describe())
    for name, value, doc in rules.describe():
        shown = ",".join(value) if isinstance(value, tuple) else value
        print(f"  {name:<{width}}  {shown!s:<16} {doc}")
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    from ..calculator import score_record
    from ..win_record import RecordError

    text = read_input(args.record)
    try:
        answer = score_record(text)  # the same call as POST /api/score
    except RecordError as e:
        raise UsageError(str(e)) from None
    indent = None if args.compact or not answer.settled else 2
    print(json.dumps(answer.body, ensure_ascii=False, indent=indent))
    return 0 if answer.settled else 1


def cmd_hand(args: argparse.Namespace) -> int:
    from ..handinfo import HandInputError, hand_report

    rules = rules_from_args(args)
    try:
        report = hand_report(args.hand, args.indicator, args.meld, rules, dealer=args.dealer)
    except HandInputError as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print(report.text())
    return 0


def add_rules_command(p: ArgumentParser) -> None:
    from ..rules import PROFILES

    p.add_argument("profile_name", nargs="?", default="yuanhang", metavar="PROFILE",
                   choices=sorted(PROFILES), help="yuanhang (default), bianfeng, laizishanzhuang")
    p.add_argument("--json", action="store_true", help="print the options as JSON")
    p.set_defaults(func=cmd_rules)


def add_score_command(p: ArgumentParser) -> None:
    p.description = ("Read a settlement record (JSON) and print the settlement. "
                     "Exit 0: settled; 1: not a legal win; 2: malformed input.")
    p.add_argument("record", nargs="?", help="record file (default: standard input)")
    p.add_argument("--compact", action="store_true", help="one-line JSON output")
    p.set_defaults(func=cmd_score)


def add_hand_command(p: ArgumentParser) -> None:
    p.add_argument("hand", help="concealed tiles, e.g. 234m567p11s or 13 tiles with melds")
    p.add_argument("--indicator", required=True, help="the laizi indicator tile (癞子皮)")
    p.add_argument("--meld", action="append", default=[], metavar="TYPE:TILES",
                   help="an exposed meld: chi:234m, peng:777s, kong:9999p, ankong:1111z")
    p.add_argument("--dealer", action="store_true", help="you are the dealer")
    p.add_argument("--json", action="store_true", help="JSON output")
    add_rules_options(p)
    p.set_defaults(func=cmd_hand)


CONFIGURE = {"rules": add_rules_command, "score": add_score_command, "hand": add_hand_command}
"""Sub-command name -> the function that adds its arguments (read by ``cli.build_parser``)."""
