"""What every sub-command shares: the parser class, the one-line error and the rule options.

These are the CLI package's public helpers (``wuhan_mahjong.cli`` re-exports them);
the command modules import them from here, never from each other.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

__all__ = ["PROG", "ArgumentParser", "UsageError", "add_rules_options", "check_database_url",
           "fail", "one_line", "read_input", "rules_from_args"]

PROG = "wuhan-mahjong"


class UsageError(Exception):
    """A bad argument or input; printed as one line, exit 2."""


def fail(message: str) -> int:
    """Print ``wuhan-mahjong: error: MESSAGE`` on standard error and return the exit status 2."""
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def one_line(e: BaseException) -> str:
    """The first line of an exception's message, for a one-line error: a driver's message
    can run to several (SQLAlchemy adds "Background on this error at: ..." on its own)."""
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


class ArgumentParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose errors are one line and exit status 2:
    the message and where to read the usage (argparse prints the usage first)."""

    def error(self, message: str) -> NoReturn:
        raise SystemExit(fail(f"{message} (see '{self.prog} --help')"))


def check_database_url(url: str) -> str:
    """``url`` if it is a URL SQLAlchemy reads; else a :class:`UsageError` (a file's path where
    ``sqlite:///`` was meant, a port that is no number: SQLAlchemy's traceback).  The URL is
    not shown: it may hold a password."""
    try:
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError
    except ModuleNotFoundError:  # no server extra: the command says so when it opens the store
        return url
    try:
        make_url(url)
    except (ArgumentError, ValueError):
        raise UsageError("the database setting (--db, $WUHAN_MAHJONG_DB_URL, db_url) is no "
                         "database URL: sqlite:////path/to/file.db or "
                         "postgresql://user@host:5432/dbname") from None
    return url


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
    """The text of ``path``, or of standard input for ``None`` or ``-``.

    Either must be UTF-8 (a leading byte-order mark, as some Windows editors write, is
    dropped); anything else is a :class:`UsageError` naming the first bad byte, and so is
    a standard input that is closed."""
    name = "standard input" if path is None or path == "-" else path
    if path is None or path == "-":
        if sys.stdin is None:  # started with standard input closed (``<&-``)
            raise UsageError(f"cannot read {name}: it is closed")
        raw = getattr(sys.stdin, "buffer", None)
        if raw is None:  # a text stream put in place of stdin (tests, embedding)
            return sys.stdin.read().removeprefix("\ufeff")
        data: bytes = raw.read()
    else:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise UsageError(f"cannot read {name}: {e.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"cannot read {name}: not UTF-8 text (byte {data[e.start]:#04x} "
                         f"at offset {e.start})") from None
