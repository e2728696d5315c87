"""What every sub-command shares: the parser class, the one-line error and the rule options.

These are the CLI package's public helpers (``wuhan_mahjong.cli`` re-exports them);
the command modules import them from here, never from each other.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

__all__ = ["PROG", "ArgumentParser", "UsageError", "add_rules_options", "fail", "read_input",
           "rules_from_args"]

PROG = "wuhan-mahjong"


class UsageError(Exception):
    """A bad argument or input; printed as one line, exit 2."""


def fail(message: str) -> int:
    """Print ``wuhan-mahjong: error: MESSAGE`` on standard error and return the exit status 2."""
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


class ArgumentParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose errors are one line and exit status 2:
    the message and where to read the usage (argparse prints the usage first)."""

    def error(self, message: str) -> NoReturn:
        raise SystemExit(fail(f"{message} (see '{self.prog} --help')"))


def add_rules_options(p: argparse.ArgumentParser) -> None:
    """``--profile`` and repeatable ``--option NAME=VALUE``: read back with :func:`rules_from_args`."""
    from ..rules import PROFILES

    p.add_argument("--profile", default="yuanhang", choices=sorted(PROFILES),
                   help="rule profile (default: yuanhang)")
    p.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                   help="override one rule option (VALUE is JSON, or a bare string); repeatable")


def rules_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~wuhan_mahjong.rules.Rules` named by ``--profile`` and ``--option``."""
    from ..rules import get_rules, parse_overrides

    try:
        overrides = parse_overrides(args.option)
    except ValueError as e:
        raise UsageError(str(e)) from None
    return get_rules(args.profile, overrides)


def read_input(path: str | None) -> str:
    """The text of ``path``, or of standard input for ``None`` or ``-``."""
    if path is None or path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None
