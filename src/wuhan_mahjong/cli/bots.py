"""The bots' sub-commands of ``wuhan-mahjong``: ``bot`` and ``arena``.

``wuhan-mahjong bot --policy greedy --jsonl`` reads one seat view per line on
standard input and writes one action per line (docs/bots.md).  Without
``--jsonl`` it reads a single view (a JSON document) and prints one action.

``wuhan-mahjong arena --seats expert,greedy,greedy,greedy --hands 4000
--profile yuanhang --seed 1`` plays duplicate deals and prints per-policy
statistics (``--json`` for JSON).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import sys

from .. import jsontext
from .common import ArgumentParser, UsageError, add_rules_options, read_input, rules_from_args

MAX_ARENA_HANDS = 10_000_000
"""More than a week of play for the slowest bots; past it a number is a typo."""
MAX_JOBS = 256
"""Worker processes: each is a whole Python process; more would only thrash."""


def cmd_bot(args: argparse.Namespace) -> int:
    from ..bots import get_bot
    from ..bots.jsonl import BotProtocolError, serve

    try:
        bot = get_bot(args.policy, args.seed)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.jsonl:
        stdin = sys.stdin
        if stdin is None:  # started with standard input closed (``<&-``)
            raise UsageError("cannot read standard input: it is closed")
        if isinstance(stdin, io.TextIOWrapper):
            # bytes that are no UTF-8 are a bad line (a lone surrogate, which the JSON
            # decoder refuses), whatever the locale, not a UnicodeDecodeError mid-loop
            stdin.reconfigure(errors="surrogateescape")
        try:
            serve(bot, stdin, sys.stdout)
        except BotProtocolError as e:
            raise UsageError(str(e)) from None
        return 0
    text = read_input(None)
    try:
        view = jsontext.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"the view is not JSON: {e.msg}") from None
    if not isinstance(view, dict) or "legal_actions" not in view or "viewer" not in view:
        raise UsageError("not a seat view (needs 'viewer' and 'legal_actions')")
    try:
        action = bot.choose(view)  # type: ignore[arg-type]
    except (KeyError, TypeError, ValueError) as e:
        raise UsageError(f"cannot decide: {e}") from None
    print(json.dumps(action.to_json()))
    return 0


def cmd_arena(args: argparse.Namespace) -> int:
    from ..bots import bot_names
    from ..bots.arena import ArenaError, main_progress, parse_seats, run_arena
    from ..bots.jsonl import BotProtocolError

    try:
        seats = parse_seats(args.seats)
    except ValueError as e:
        raise UsageError(str(e)) from None
    for s in seats:
        if not s.startswith("cmd:") and s not in bot_names():
            raise UsageError(f"unknown policy '{s}' (choose from {', '.join(bot_names())}, "
                             "or cmd:COMMAND)")
    if not 1 <= args.hands <= MAX_ARENA_HANDS:
        raise UsageError(f"--hands must be between 1 and {MAX_ARENA_HANDS:,}")
    if not 1 <= args.jobs <= MAX_JOBS:
        raise UsageError(f"--jobs must be between 1 and {MAX_JOBS} (worker processes)")
    if not (args.bot_timeout >= 0 and math.isfinite(args.bot_timeout)):
        raise UsageError("--bot-timeout must be a number of seconds >= 0 (0: no limit)")
    rules = rules_from_args(args)
    try:
        report = run_arena(rules, seats, args.hands, args.seed, jobs=args.jobs,
                           progress=main_progress(args.progress), permute=args.permute,
                           answer_seconds=args.bot_timeout or None)
    except (ArenaError, BotProtocolError, ValueError) as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps(report.to_json(), indent=2, allow_nan=False))  # strict JSON
    else:
        print(_printable(report.text()))
    return 0


def _printable(text: str) -> str:
    """``text`` with what standard output cannot encode escaped (``\\udcff``), as standard
    error escapes it: a ``cmd:`` seat whose path holds bytes that are no UTF-8 made the
    report a UnicodeEncodeError traceback once every hand had been played."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding)


def add_bot_command(b: ArgumentParser) -> None:
    b.description = ("Read seat views (JSON) and write actions (JSON). With --jsonl, "
                     "one view per input line and one action per output line, until end of input.")
    b.add_argument("--policy", default="greedy", help="random, greedy, expert or search (default: greedy)")
    b.add_argument("--seed", type=int, default=None, help="seed of the bot's own randomness")
    b.add_argument("--jsonl", action="store_true", help="JSON lines: one view per line, until EOF")
    b.set_defaults(func=cmd_bot)


def add_arena_command(a: ArgumentParser) -> None:
    a.description = ("Each deal is played four times with the seats rotated, so luck "
                     "cancels; 95% intervals are computed over deals.")
    a.add_argument("--seats", default="expert,greedy,greedy,greedy",
                   help="four policies, comma-separated; cmd:COMMAND runs an external JSON-lines bot")
    a.add_argument("--hands", type=int, default=400,
                   help="hands to play, rounded up to whole deals of four (default 400)")
    add_rules_options(a)
    a.add_argument("--seed", type=int, default=1, help="seed of the walls and bots (default 1)")
    a.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    a.add_argument("--permute", action="store_true",
                   help="play each deal in every distinct seat permutation, not only the four "
                   "rotations (balanced mixed pairings such as expert,greedy,random,random)")
    a.add_argument("--json", action="store_true", help="print the report as JSON")
    a.add_argument("--progress", action="store_true",
                   help="progress bar on stderr even when it is not a terminal")
    a.add_argument("--bot-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="wall-clock seconds an external cmd: bot may take to answer one view "
                   "before the run stops with an error (default 60; 0: no limit); a safety "
                   "net for a hung bot, never a limit on how it decides")
    a.set_defaults(func=cmd_arena)


def cmd_puzzle(args: argparse.Namespace) -> int:
    from datetime import date

    from ..bots.puzzles import PuzzleError, check_puzzle_id, daily_number, make_puzzle, puzzle_json

    numbers = [daily_number(date.today())] if args.daily else args.numbers or [1]
    try:
        for n in numbers:  # every number checked before the first is printed
            check_puzzle_id(args.profile, n)
    except PuzzleError as e:
        raise UsageError(str(e)) from None
    if args.win:
        from ..bots.win_puzzles import make_win_question, win_question_json

        for n in numbers:
            q = make_win_question(args.profile, n)
            # the record alone is what `wuhan-mahjong score` reads: the answer is its output
            shown = win_question_json(q, answer=args.answer) if args.json or args.answer \
                else q.record
            print(json.dumps(shown, ensure_ascii=False))
            sys.stdout.flush()
        return 0
    for n in numbers:
        p = make_puzzle(args.profile, n)
        if args.json:
            print(json.dumps(puzzle_json(p, answer=args.answer), ensure_ascii=False))
            continue
        shown = puzzle_json(p, answer=True)
        drew = f"  (drew {shown['drawn']})" if shown["drawn"] else "  (after a claim)"
        print(f"Puzzle {n} ({p.profile}): turn {p.turn}, {p.wall_left} tiles left"
              f"{', dealer' if p.dealer else ''}")
        print(f"  hand     {shown['hand']}{drew}")
        if p.melds:
            print("  melds    " + ", ".join(f"{m['type']} {m['tiles']}" for m in shown["melds"]))
        print(f"  laizi    {shown['laizi']} (indicator {shown['indicator']})")
        print("Which tile? The cut with the lowest shanten and the most acceptance (进张).")
        if args.answer:
            print(f"  answer   {shown['answer']}")
            print("  discard  shanten  进张  kinds")
            for c in shown["choices"]:
                print(f"  {c['tile']:<8} {c['shanten']:<8} {c['acceptance']:<5} {c['kinds']}")
        sys.stdout.flush()
    return 0


def add_puzzle_command(p: ArgumentParser) -> None:
    from ..bots.puzzles import PUZZLE_NUMBER_MAX
    from ..rules import PROFILES

    p.description = ("Print discard puzzles (何切): a position from bots' play and the "
                     "question which tile to cut, the answer with --answer; or, with --win, "
                     "win questions (胡不胡): may this hand win?")
    p.add_argument("numbers", nargs="*", type=int, metavar="NUMBER",
                   help=f"puzzle numbers, 1 to {PUZZLE_NUMBER_MAX:,} (default: 1)")
    p.add_argument("--profile", default="yuanhang", choices=sorted(PROFILES),
                   help="the rule profile (default yuanhang)")
    p.add_argument("--daily", action="store_true", help="today's puzzle (每日一题) instead")
    p.add_argument("--answer", action="store_true",
                   help="the answer and every choice's shanten and acceptance")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--win", action="store_true",
                   help="win questions (胡不胡) instead: each a settlement record on one line, "
                   "which `wuhan-mahjong score` answers (with --answer or --json: the "
                   "question's JSON, the answer in it with --answer)")
    p.set_defaults(func=cmd_puzzle)


CONFIGURE = {"bot": add_bot_command, "arena": add_arena_command, "puzzle": add_puzzle_command}
"""Sub-command name -> the function that adds its arguments (read by ``cli.build_parser``)."""
