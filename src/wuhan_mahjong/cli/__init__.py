"""The ``wuhan-mahjong`` command.  Every sub-command is thin: it parses, calls the
library and prints.  Errors are one line on stderr with exit status 2.

The package, one module per layer it calls:

- :mod:`.common`: the parser class, :class:`UsageError`, the rule options (public helpers);
- :mod:`.core`: ``rules``, ``score``, ``hand`` (the standard-library rules core only);
- :mod:`.engine`: ``simulate``, ``replay``, ``verify``;
- :mod:`.bots`: ``bot``, ``arena``, ``puzzle``;
- :mod:`.serve`: ``serve`` (the ``[server]`` extra).
- :mod:`.admin`: ``admin`` (the ``[server]`` extra).
- :mod:`.rl`: ``dataset`` (the ``[rl]`` extra).

Start-up stays fast because the top-level parser knows only each command's
name and one-line help (:data:`COMMANDS`): the module of a command is imported,
and its arguments added, only for the command being run.  ``--help``,
``rules``, ``score`` and ``hand`` never import the engine's match loop, the bots
or the server stack (Starlette, pydantic, SQLAlchemy).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from .common import (
    PROG,
    ArgumentParser,
    UsageError,
    add_rules_options,
    fail,
    one_line,
    read_input,
    rules_from_args,
)

__all__ = ["COMMANDS", "ArgumentParser", "Command", "UsageError", "add_rules_options", "build_parser",
           "fail", "main", "one_line", "read_input", "rules_from_args", "version"]

Handler = Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class Command:
    """A sub-command: its name, the module (in this package) that defines it, its one-line help."""

    name: str
    module: str
    help: str


COMMANDS: tuple[Command, ...] = (
    Command("rules", "core", "print a rule profile's options, one line each"),
    Command("score", "core", "settle one won hand (JSON record on stdin or in a file)"),
    Command("hand", "core", "waits, shanten and the value of each wait for a hand"),
    Command("simulate", "engine", "play random legal hands and summarise, or play a scripted hand"),
    Command("replay", "engine", "print a recorded hand move by move"),
    Command("verify", "engine", "check a hand record against its commitment and replay it"),
    Command("serve", "serve", "run the game server (browser client, WebSocket protocol, HTTP API)"),
    Command("admin", "admin", "operator tools: grant, ban, unban, reset-password, audit, "
            "tables, drain, backup, restore"),
    Command("bot", "bots", "play one seat as a bot over JSON lines (stdin/stdout)"),
    Command("arena", "bots", "play policies against each other on duplicate deals"),
    Command("puzzle", "bots", "print discard puzzles (何切) or win questions (胡不胡), and their "
            "answers"),
    Command("dataset", "rl", "write a learning dataset of a bot's play (.npz)"),
)


def version() -> str:
    """The installed distribution's version (``importlib.metadata``), else the package's own."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("wuhan-mahjong")
    except PackageNotFoundError:  # run from a source tree that is not installed
        from .. import __version__

        return __version__


class _VersionAction(argparse.Action):
    """``--version``: looked up only when asked (``importlib.metadata`` costs start-up time)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"{PROG} {version()}")
        parser.exit()


def _command_in(argv: Sequence[str]) -> str | None:
    """The sub-command named in ``argv``: its first word that is not an option (the
    top-level options, ``--help`` and ``--version``, take no value)."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word
    return None


def build_parser(only: Collection[str] | None = None) -> ArgumentParser:
    """The ``wuhan-mahjong`` parser.  With ``only``, just those sub-commands get their
    arguments (and just their modules are imported); the others keep their help line."""
    p = ArgumentParser(prog=PROG,
                       description="Wuhan Mahjong (武汉麻将): rules, scoring, engine, bots, server.")
    p.add_argument("--version", action=_VersionAction, help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    sub.required = True
    for c in COMMANDS:
        s = sub.add_parser(c.name, help=c.help)
        if only is None or c.name in only:
            configure: Callable[[ArgumentParser], None] = (
                import_module(f"{__name__}.{c.module}").CONFIGURE[c.name])
            configure(s)
    return p


def _library_errors() -> tuple[type[Exception], ...]:
    """The core's input errors: a bad profile or option, tile string or record is exit 2."""
    from ..rules import RulesError
    from ..tiles import TileError
    from ..win_record import RecordError

    return (RulesError, TileError, RecordError)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``wuhan-mahjong`` with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    command = _command_in(words)
    args = build_parser(only=[command] if command else []).parse_args(words)
    func: Handler = args.func
    try:
        try:
            return func(args)
        except _library_errors() as e:
            raise UsageError(str(e)) from None
    except UsageError as e:
        return fail(str(e))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
