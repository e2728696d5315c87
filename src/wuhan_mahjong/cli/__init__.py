"""The ``wuhan-mahjong`` command.  Every sub-command is thin: it parses, calls the
library and prints.  Errors are one line on stderr with exit status 2."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from ..rules import PROFILES, RulesError, get_rules
from ..tiles import TileError

Handler = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """A bad argument or input; printed as one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise SystemExit(_fail(message))


def _fail(message: str) -> int:
    print(f"wuhan-mahjong: error: {message}", file=sys.stderr)
    return 2


def _options_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", default="yuanhang", choices=sorted(PROFILES),
                   help="rule profile (default: yuanhang)")
    p.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                   help="override one rule option (VALUE is JSON, or a bare string); repeatable")


def _rules_from(args: argparse.Namespace) -> Any:
    overrides: dict[str, Any] = {}
    for item in args.option:
        if "=" not in item:
            raise UsageError(f"--option needs NAME=VALUE, got '{item}'")
        name, value = item.split("=", 1)
        try:
            overrides[name] = json.loads(value)
        except json.JSONDecodeError:
            overrides[name] = value
    return get_rules(args.profile, overrides)


# ---------------------------------------------------------------------------
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
    from ..analysis import NotAWin
    from ..scoring import settle
    from ..win_record import load_win_record

    if args.record and args.record != "-":
        try:
            with open(args.record, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise UsageError(f"cannot read {args.record}: {e.strerror}") from None
    else:
        text = sys.stdin.read()
    rec = load_win_record(text)
    try:
        result = settle(rec)
    except NotAWin as e:
        print(json.dumps({"valid": False, "reason": str(e)}, ensure_ascii=False))
        return 1
    print(json.dumps(result.to_json(), ensure_ascii=False, indent=None if args.compact else 2))
    return 0


def cmd_hand(args: argparse.Namespace) -> int:
    from ..handinfo import hand_report

    rules = _rules_from(args)
    report = hand_report(args.hand, args.indicator, args.meld, rules, dealer=args.dealer)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print(report.text())
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="wuhan-mahjong",
                description="Wuhan Mahjong (武汉麻将): rules, scoring, engine, bots, server.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    r = sub.add_parser("rules", help="print a rule profile's options, one line each")
    r.add_argument("profile_name", nargs="?", default="yuanhang", metavar="PROFILE",
                   choices=sorted(PROFILES), help="yuanhang (default), bianfeng, laizishanzhuang")
    r.add_argument("--json", action="store_true", help="print the options as JSON")
    r.set_defaults(func=cmd_rules)

    s = sub.add_parser("score", help="settle one won hand (JSON record on stdin or in a file)",
                       description="Read a settlement record (JSON) and print the settlement. "
                       "Exit 0: settled; 1: not a legal win; 2: malformed input.")
    s.add_argument("record", nargs="?", help="record file (default: standard input)")
    s.add_argument("--compact", action="store_true", help="one-line JSON output")
    s.set_defaults(func=cmd_score)

    h = sub.add_parser("hand", help="waits, shanten and the value of each wait for a hand")
    h.add_argument("hand", help="concealed tiles, e.g. 234m567p11s or 13 tiles with melds")
    h.add_argument("--indicator", required=True, help="the laizi indicator tile (癞子皮)")
    h.add_argument("--meld", action="append", default=[], metavar="TYPE:TILES",
                   help="an exposed meld: chi:234m, peng:777s, kong:9999p, ankong:1111z")
    h.add_argument("--dealer", action="store_true", help="you are the dealer")
    h.add_argument("--json", action="store_true", help="JSON output")
    _options_arg(h)
    h.set_defaults(func=cmd_hand)

    from .bots import add_bot_commands
    from .engine import add_commands
    from .serve import add_serve_command

    add_commands(sub)
    add_serve_command(sub)

    add_bot_commands(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from ..win_record import RecordError

    try:
        func: Handler = args.func
        return func(args)
    except (UsageError, RulesError, TileError, RecordError) as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
