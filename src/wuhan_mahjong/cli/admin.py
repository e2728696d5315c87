"""``wuhan-mahjong admin``: an operator's tools on the server's database (``docs/operations.md``).

Every sub-command works on the database, never through the running server: the
database is found as ``serve`` finds it, by the same code (``--db``, else
``$WUHAN_MAHJONG_DB_URL``, else ``db_url`` in the TOML file of ``--config``, else
``$WUHAN_MAHJONG_DB``, else the SQLite file in ``--data-dir``).
What concerns a running server goes through the database too: it polls the
admin event log and the ``drain`` flag every few seconds (``server/admin.py``).
Each action is written down in the admin event log (``admin_actions``) with the
operator's name (``--as``, default the login name); a grant is also a ledger row
of the named source ``operator_grant``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..tiles import echo
from .common import ArgumentParser, UsageError, check_database_url, one_line

if TYPE_CHECKING:
    from ..store import Store
    from ..store.admin import Admin
    from ..store.reports import Report

__all__ = ["CONFIGURE", "add_admin_command", "admin_database_url"]

DRAIN_POLL_SECONDS = 1.0


def add_admin_command(s: ArgumentParser) -> None:
    from ..rules import PROFILES

    s.description = ("Operator tools on the game server's database. Each action is recorded "
                     "in the admin event log (and a grant in the silver ledger). A running "
                     "server notices bans and drain within a few seconds.")
    s.add_argument("--db", "--db-url", dest="db_url", metavar="URL",
                   help="database URL (default $WUHAN_MAHJONG_DB, else the SQLite file in "
                        "--data-dir)")
    s.add_argument("--data-dir", metavar="DIR", help="folder of the default SQLite file (as serve)")
    s.add_argument("--config", metavar="FILE", help="serve's TOML settings file (its db_url, "
                   "data_dir)")
    s.add_argument("--as", dest="actor", metavar="NAME",
                   help="operator name written to the event log (default: your login name)")
    sub = s.add_subparsers(dest="admin_command", metavar="ACTION", parser_class=ArgumentParser)
    sub.required = True

    p = sub.add_parser("grant", help="give (or, negative, take) silver: a ledger row "
                                     "'operator_grant'")
    p.add_argument("username")
    p.add_argument("amount", type=int, help="silver to add; negative to remove")
    p.add_argument("--reason", help="why (kept in the ledger row and the event log)")
    p.set_defaults(func=_grant)

    p = sub.add_parser("ban", help="ban an account: no login, no session, no seat; its "
                                   "connections close")
    p.add_argument("username")
    p.add_argument("--reason")
    p.set_defaults(func=_ban)

    p = sub.add_parser("unban", help="lift a ban")
    p.add_argument("username")
    p.set_defaults(func=_unban)

    p = sub.add_parser("close", help="close an account (注销) as its player may: its name, "
                                     "password, sessions and follows go, its silver goes to "
                                     "the house; its records stay under a tombstone name")
    p.add_argument("username")
    p.add_argument("--reason", help="why (kept in the event log)")
    p.set_defaults(func=_close)

    p = sub.add_parser("show", help="an account at a glance, for support: silver, level, "
                                    "ban, sessions, newest silver changes and matches, its "
                                    "running table, reports about it")
    p.add_argument("username")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_show)

    p = sub.add_parser("export", help="write everything held about an account (the player's "
                                      "right of access) as JSON, and its hands' records")
    p.add_argument("username")
    p.add_argument("--out", metavar="FILE",
                   help="write the JSON document to FILE (default: standard output)")
    p.add_argument("--records", metavar="FILE",
                   help="also write every hand the account sat at to FILE (JSON lines, for "
                        "'wuhan-mahjong verify' and 'replay')")
    p.add_argument("--reason", help="why (kept in the event log)")
    p.set_defaults(func=_export)

    p = sub.add_parser("reset-password",
                       help="set a new password (random and printed, or read from stdin) and "
                            "end every session")
    p.add_argument("username")
    p.add_argument("--password-stdin", action="store_true",
                   help="read the new password from the first line of standard input")
    p.set_defaults(func=_reset_password)

    p = sub.add_parser("role", help="name a registered player moderator or admin of the staff "
                                    "pages (#/staff), or (none) a player again; without a name, "
                                    "list the staff")
    p.add_argument("username", nargs="?")
    p.add_argument("role", nargs="?", choices=("moderator", "admin", "none"))
    p.add_argument("--json", action="store_true", help="print JSON (the list)")
    p.set_defaults(func=_role)

    p = sub.add_parser("announce", help="show a notice to every player (系统公告, e.g. a "
                                        "maintenance window): a banner in every client within "
                                        "seconds; without TEXT, the notices shown and before")
    p.add_argument("text", nargs="?", metavar="TEXT")
    p.add_argument("--hours", type=_hours, metavar="H",
                   help="take it down by itself after H hours (default: when --off)")
    p.add_argument("--off", action="store_true", help="take the notice shown now down")
    p.add_argument("--json", action="store_true", help="print JSON (the list)")
    p.set_defaults(func=_announce)

    p = sub.add_parser("audit", help="check the silver ledger's invariants (exit 1 if broken); "
                                     "show the event log")
    p.add_argument("--log", type=_count, default=10, metavar="N",
                   help="also print the newest N admin actions (default 10; 0: none)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_audit)

    p = sub.add_parser("fairplay", help="screen for collusion (通牌): pairs where one player "
                                        "deals into the other's wins far more than chance says")
    p.add_argument("--min-wins", type=_count, default=20, metavar="N",
                   help="look at a pair once the winner has N discard wins with the other at "
                        "the table (default 20)")
    p.add_argument("--alpha", type=_probability, default=0.001, metavar="P",
                   help="flag a pair whose count has a chance below P divided by the pairs "
                        "looked at (default 0.001)")
    p.add_argument("--profile", choices=sorted(PROFILES), help="only hands of this profile")
    p.add_argument("--days", type=_days, default=0, metavar="N",
                   help="only hands of the last N days (default 0: all)")
    p.add_argument("--all", dest="everything", action="store_true",
                   help="print every pair looked at, flagged or not")
    p.add_argument("--pair", nargs=2, metavar=("FEEDER", "WINNER"),
                   help="instead, list the hands (match id/hand number) in which FEEDER dealt "
                        "into WINNER's win, newest first")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_fairplay)

    p = sub.add_parser("reports", help="the players' open reports of players (举报), newest "
                                       "first, and who is reported most")
    p.add_argument("--all", dest="everything", action="store_true",
                   help="closed reports too")
    p.add_argument("--player", metavar="NAME", help="only the reports about this player")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_reports)

    p = sub.add_parser("report-close", help="close a report with a note of what was done")
    p.add_argument("id", type=_count, metavar="ID")
    p.add_argument("--note", help="what was done (kept with the report and in the event log)")
    p.set_defaults(func=_report_close)

    p = sub.add_parser("tournaments", help="the open and running tournaments, and those "
                                           "finished this week")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_tournaments)

    p = sub.add_parser("tournament-cancel", help="call a tournament off, started or not: no "
                                                 "table of it starts any more")
    p.add_argument("tournament_id", type=_row_id, metavar="ID")
    p.add_argument("--reason", help="why (kept in the event log)")
    p.set_defaults(func=_tournament_cancel)

    p = sub.add_parser("clubs", help="the newest clubs (亲友圈), with owners and members")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_clubs)

    p = sub.add_parser("club-dissolve", help="dissolve a club (its members' matches and hands "
                                             "stay theirs)")
    p.add_argument("number", type=_row_id, metavar="NUMBER")
    p.add_argument("--reason", help="why (kept in the event log)")
    p.set_defaults(func=_club_dissolve)

    p = sub.add_parser("tables", help="the matches running now, in every server on this database")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_tables)

    p = sub.add_parser("drain", help="stop new matches (running ones play on); --off reopens")
    p.add_argument("--off", action="store_true", help="start new matches again")
    p.add_argument("--wait", action="store_true",
                   help="then wait until no match is running (exit 2 after --timeout)")
    p.add_argument("--timeout", type=_seconds, default=3600.0, metavar="SECONDS",
                   help="longest wait of --wait (default 3600)")
    p.set_defaults(func=_drain)

    p = sub.add_parser("backup", help="write a consistent copy of the database to FILE "
                                      "(SQLite online backup; PostgreSQL pg_dump)")
    p.add_argument("file")
    p.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    p.set_defaults(func=_backup)

    p = sub.add_parser("restore", help="replace the database by a backup (stop the server "
                                       "first), then migrate it")
    p.add_argument("file")
    p.add_argument("--force", action="store_true",
                   help="replace a database that is not empty")
    p.set_defaults(func=_restore)

    for action in sub.choices.values():
        action.set_defaults(func=_naming_the_extra(action.get_default("func")))


BIGINT_MAX = 2**63 - 1
"""The largest number a database column (SQLite INTEGER, PostgreSQL BIGINT) holds: a count
beyond it was an OverflowError from the driver, a traceback."""
INTEGER_MAX = 2**31 - 1
"""The largest id of a PostgreSQL INTEGER column (a tournament's, a club's): one beyond it
was a DataError from the driver, a traceback."""
DAYS_MAX = 36_500
"""``fairplay --days``: a hundred years; many more reach before the year 1 (OverflowError)."""


def _whole(text: str, high: int) -> int:
    """A whole number from 0 to ``high`` (a bad one is a one-line usage error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {echo(text)!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    if value > high:
        raise argparse.ArgumentTypeError(f"must be at most {high}, got {echo(text)}")
    return value


def _count(text: str) -> int:
    """A whole number >= 0 that a database column holds (an argparse type)."""
    return _whole(text, BIGINT_MAX)


def _row_id(text: str) -> int:
    """A tournament's id or a club's number: a whole number >= 0 of an INTEGER column."""
    return _whole(text, INTEGER_MAX)


def _days(text: str) -> int:
    """``fairplay --days``: a whole number of days from 0 to :data:`DAYS_MAX`."""
    return _whole(text, DAYS_MAX)


def _probability(text: str) -> float:
    """A probability strictly between 0 and 1 (an argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def _seconds(text: str) -> float:
    """A finite number of seconds >= 0 (``nan`` would make ``--wait`` wait for ever)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


def _missing_extra(e: ModuleNotFoundError) -> UsageError:
    return UsageError(f"admin needs the server extra ({e.name} is not installed): "
                      "pip install 'wuhan-mahjong[server]'")


def _naming_the_extra(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``func``, saying in one line what to install when a module of the server extra is
    missing (an install of the core alone), as ``serve`` does: the actions import the store
    where they run, and most did so outside any guard (a traceback, exit status 1)."""
    def run(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except ModuleNotFoundError as e:
            raise _missing_extra(e) from None

    return run


def admin_database_url(args: argparse.Namespace) -> str:
    """The database URL exactly as ``serve`` resolves it (``server.config.database_url``)."""
    try:
        from ..server.config import database_url
        from ..server.settings import SettingsError, load_settings
    except ModuleNotFoundError as e:
        raise _missing_extra(e) from None
    flags = {name: getattr(args, name) for name in ("db_url", "data_dir")
             if getattr(args, name) is not None}
    try:
        settings = load_settings(flags, args.config)
    except ModuleNotFoundError as e:
        raise _missing_extra(e) from None
    except SettingsError as e:
        raise UsageError(str(e)) from None
    return check_database_url(database_url(settings.server))


def _shown(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _actor(args: argparse.Namespace) -> str:
    if args.actor:
        return str(args.actor)
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # no login name (a container without a passwd entry)
        return "operator"


def _open(args: argparse.Namespace) -> Store:
    url = admin_database_url(args)
    _must_exist(url)
    try:
        from ..store import open_store
    except ModuleNotFoundError as e:
        raise _missing_extra(e) from None
    try:
        return open_store(url)
    except ModuleNotFoundError as e:
        raise _missing_extra(e) from None
    except Exception as e:  # a bad URL, an unreachable server, a locked file ...
        raise UsageError(f"cannot open the database {_shown(url)}: {one_line(e)}") from None


def _must_exist(url: str) -> None:
    """An SQLite file that is not there is a mistyped path, not a new database to create."""
    from pathlib import Path

    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and \
            not Path(parsed.database).expanduser().is_file():
        raise UsageError(f"no database at {parsed.database} (see --db, --data-dir)")



def _with_admin(args: argparse.Namespace, work: Any) -> int:
    """Run ``work(admin)`` on an opened store; the store's refusals are one-line errors, and
    so are the database's (a read-only database or a PostgreSQL standby refusing a write, a
    lock held past the busy timeout, a server gone mid-command): each rolled its
    transaction back whole."""
    from sqlalchemy.exc import SQLAlchemyError

    from ..store import StoreError
    from ..store.admin import Admin

    store = _open(args)
    try:
        result: int = work(Admin(store, _actor(args)))
        return result
    except (StoreError, ValueError) as e:
        raise UsageError(one_line(e)) from None
    except SQLAlchemyError as e:
        shown = store.engine.url.render_as_string(hide_password=True)
        raise UsageError(f"the database {shown} refused: {one_line(e)}") from None
    finally:
        store.close()


def _grant(args: argparse.Namespace) -> int:
    def work(admin: Admin) -> int:
        balance = admin.grant(args.username, args.amount, args.reason)
        print(f"{args.username}: {args.amount:+d} silver (operator_grant), balance {balance}")
        return 0

    return _with_admin(args, work)


def _ban(args: argparse.Namespace) -> int:
    def work(admin: Admin) -> int:
        account = admin.ban(args.username, args.reason)
        print(f"banned {account.username} (account {account.id})")
        return 0

    return _with_admin(args, work)


def _close(args: argparse.Namespace) -> int:
    def work(admin: Admin) -> int:
        account, silver = admin.close(args.username, args.reason)
        print(f"closed {account.username} (account {account.id}); {silver} silver went to "
              "the house")
        return 0

    return _with_admin(args, work)


def _show(args: argparse.Namespace) -> int:
    from ..store.admin_docs import summary_doc

    def work(admin: Admin) -> int:
        found = admin.show(args.username)
        a = found.account
        if args.json:
            print(json.dumps(summary_doc(found), ensure_ascii=False))
            return 0
        kind = "bot" if found.is_bot else "guest" if a.is_guest else "registered"
        print(f"{a.username} (account {a.id}, {kind}, since {a.created_at:%Y-%m-%d})")
        print(f"  silver {a.silver}, points {a.points}, level {a.level.number} "
              f"{a.level.title_zh} ({a.level.title_en})")
        if found.ban is not None:
            print(f"  BANNED since {found.ban[1]:%Y-%m-%d %H:%M} UTC"
                  + (f": {found.ban[0]}" if found.ban[0] else ""))
        last = "never" if found.last_login is None else f"{found.last_login:%Y-%m-%d %H:%M} UTC"
        print(f"  {found.live_sessions} live session(s); last login {last}")
        if found.table is not None:
            t = found.table
            print(f"  playing now: {t.match_id} ({t.profile}, hand {t.hands_done + 1} of "
                  f"{t.hands}) on {t.owner or '?'}")
        print(f"  reports about him: {found.reports_open} open, {found.reports_total} in all"
              + (" (admin reports --player NAME)" if found.reports_total else ""))
        print("  newest silver changes:" if found.ledger else "  no silver changes")
        for e in found.ledger:
            print(f"    {e.created_at:%Y-%m-%d %H:%M} {e.delta:+d} -> {e.balance_after} "
                  f"{e.reason}" + (f" ({e.reference})" if e.reference else ""))
        print("  newest matches:" if found.matches else "  no settled match")
        for m in found.matches:
            print(f"    {m.finished_at:%Y-%m-%d %H:%M} {m.match_id} {m.profile}: "
                  f"{m.points_delta:+d} points, {m.silver_net:+d} silver"
                  + (" (escaped)" if m.escaped else ""))
        return 0

    return _with_admin(args, work)


def _new_file(path: str) -> Path:
    """``path`` as a file to create: refused (one line) if something is there already."""
    target = Path(path).expanduser()
    if target.exists():
        raise UsageError(f"{path} exists already: choose another file")
    if not target.parent.is_dir():
        raise UsageError(f"no folder {target.parent} for {path}")
    return target


def _write_new(target: Path, write: Callable[[TextIO], object]) -> None:
    """Write the new file ``target`` whole or not at all: into ``<target>.partial``, synced,
    then linked to its name (which refuses a file that appeared there meanwhile).  An
    export killed or failing mid-write (a full disk) left a truncated file under the name
    asked for: a file an operator could hand over as the player's data, and one the next
    run refused to replace.  A write that fails is a one-line error."""
    partial = target.with_name(target.name + ".partial")
    try:
        partial.unlink(missing_ok=True)  # a run killed before
        with partial.open("x", encoding="utf-8") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(partial, target)
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links (FAT): a rename, checked first
            if target.exists():
                raise FileExistsError(target) from None
            os.replace(partial, target)
    except FileExistsError:
        raise UsageError(f"{target} exists already: choose another file") from None
    except OSError as e:
        raise UsageError(f"cannot write {target}: {e.strerror or e}") from None
    finally:
        partial.unlink(missing_ok=True)


def _export(args: argparse.Namespace) -> int:
    from ..store.export import account_records

    out = None if args.out in (None, "-") else _new_file(args.out)
    records = None if args.records is None else _new_file(args.records)

    def work(admin: Admin) -> int:
        account, document = admin.export(args.username, args.reason)
        text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
        hands = 0

        def write_records(f: TextIO) -> None:
            nonlocal hands
            after = 0
            while batch := account_records(admin.store, account.id, after=after):
                f.writelines(events for _, events in batch)
                hands += len(batch)
                after = batch[-1][0]

        if records is not None:
            _write_new(records, write_records)
        if out is None:
            sys.stdout.write(text)
        else:
            _write_new(out, lambda f: f.write(text))
        where = [] if out is None else [f"the data to {out}"]
        where += [] if records is None else [f"{hands} hands to {records}"]
        if where:
            print(f"exported {account.username} (account {account.id}): {', '.join(where)}",
                  file=sys.stderr if out is None else sys.stdout)
        return 0

    return _with_admin(args, work)


def _unban(args: argparse.Namespace) -> int:
    def work(admin: Admin) -> int:
        account = admin.unban(args.username)
        print(f"unbanned {account.username} (account {account.id})")
        return 0

    return _with_admin(args, work)


def _reset_password(args: argparse.Namespace) -> int:
    password = None
    if args.password_stdin:
        if sys.stdin is None:  # started with standard input closed (``<&-``)
            raise UsageError("cannot read standard input: it is closed")
        try:
            password = sys.stdin.readline().rstrip("\r\n")
        except UnicodeDecodeError as e:  # a locale whose standard input decodes strictly
            raise UsageError(f"cannot read standard input: not UTF-8 text (byte "
                             f"{e.object[e.start]:#04x})") from None
        if not password:
            raise UsageError("no password on standard input")

    def work(admin: Admin) -> int:
        new = admin.reset_password(args.username, password)
        if password is None:
            print(f"new password of {args.username}: {new}")
        else:
            print(f"password of {args.username} set")
        print("every session of the account has ended")
        return 0

    return _with_admin(args, work)


def _hours(text: str) -> float:
    from ..store.announcements import LONGEST_HOURS

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number") from None
    if not (math.isfinite(value) and 0 < value <= LONGEST_HOURS):
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most {LONGEST_HOURS}")
    return value


def _announce(args: argparse.Namespace) -> int:
    from ..store.admin_docs import announcement_doc
    from ..store.models import utcnow

    if args.off and (args.text is not None or args.hours is not None):
        raise UsageError("--off takes the notice down: give no TEXT or --hours with it")
    if args.hours is not None and args.text is None:
        raise UsageError("--hours is how long TEXT is shown: give the TEXT too")

    def work(admin: Admin) -> int:
        if args.off:
            ended = admin.end_announcement()
            print(f"notice {ended.id} taken down: {ended.text}")
            return 0
        if args.text is not None:
            shown = admin.announce(args.text, args.hours)
            until = ("until taken down (--off)" if shown.expires_at is None
                     else f"until {shown.expires_at:%Y-%m-%d %H:%M} UTC")
            print(f"notice {shown.id} shown to every player {until}: {shown.text}")
            return 0
        found = admin.announcements()
        now = utcnow()
        if args.json:
            print(json.dumps([announcement_doc(a) for a in found], ensure_ascii=False))
            return 0
        print(f"{len(found)} notice{'s' if len(found) != 1 else ''} (newest first)")
        for a in found:
            state = ("taken down" if a.ended_at is not None else "until taken down"
                     if a.expires_at is None else
                     f"{'expired' if a.expires_at <= now else 'until'} "
                     f"{a.expires_at:%Y-%m-%d %H:%M} UTC")
            print(f"  #{a.id} {a.created_at:%Y-%m-%d %H:%M} UTC by {a.actor}, {state}: {a.text}")
        return 0

    return _with_admin(args, work)


def _role(args: argparse.Namespace) -> int:
    from ..store.admin_docs import staff_doc
    from ..store.staff import a_role

    if args.username is not None and args.role is None:
        raise UsageError("give the role too: moderator, admin or none")

    def work(admin: Admin) -> int:
        if args.username is None:
            staff = admin.staff()
            if args.json:
                print(json.dumps([staff_doc(m) for m in staff], ensure_ascii=False))
                return 0
            print(f"{len(staff)} staff member{'s' if len(staff) != 1 else ''}")
            for m in staff:
                print(f"  {m.username}: {m.role}, named by {m.granted_by} "
                      f"{m.granted_at:%Y-%m-%d %H:%M} UTC")
            return 0
        role = None if args.role == "none" else args.role
        before = admin.set_role(args.username, role)
        was = "a player" if before is None else a_role(before)
        now = "a player again" if role is None else a_role(role)
        print(f"{admin.account(args.username).username} is {now} (was {was})")
        return 0

    return _with_admin(args, work)


def _audit(args: argparse.Namespace) -> int:
    from ..store.admin_docs import audit_doc

    def work(admin: Admin) -> int:
        result = admin.audit()
        actions = admin.actions(args.log) if args.log > 0 else []
        banned = admin.banned()
        if args.json:
            print(json.dumps(audit_doc(result, banned, actions), ensure_ascii=False))
        else:
            print(f"ledger: {'ok' if result.ok else 'BROKEN'}")
            print(f"  balances {result.total_balances} (players {result.player_balances}, "
                  f"house {result.house_balance})")
            print("  sources " + ", ".join(f"{k} {v}" for k, v in result.sources.items()))
            print(f"  sinks {result.sinks} (fees {result.fee_income}, closed accounts "
                  f"{result.closure_income}), transfers {result.transfers}")
            for label, values in (("unknown reasons", result.unknown_reasons),
                                  ("accounts whose ledger does not sum", result.mismatched_accounts),
                                  ("negative accounts", result.negative_accounts)):
                if values:
                    print(f"  {label}: {', '.join(map(str, values))}")
            print(f"banned accounts: {len(banned)}"
                  + "".join(f"\n  {n} since {t:%Y-%m-%d %H:%M} UTC{': ' + r if r else ''}"
                            for n, r, t in banned))
            if actions:
                print("admin log (newest first):")
                for a in actions:
                    detail = "" if a.detail is None else " " + json.dumps(a.detail,
                                                                          ensure_ascii=False)
                    who = "" if a.account_id is None else f" account {a.account_id}"
                    print(f"  #{a.id} {a.created_at:%Y-%m-%d %H:%M:%S} {a.actor}: "
                          f"{a.action}{who}{detail}")
        return 0 if result.ok else 1

    return _with_admin(args, work)


def _fairplay(args: argparse.Namespace) -> int:
    from datetime import timedelta

    from ..store.admin_docs import pair_doc
    from ..store.fairplay import CHANCE_SHARE, fed_hands
    from ..store.models import utcnow
    from ..store.reports import reports_about_names

    def work(admin: Admin) -> int:
        if args.pair:
            feeder, winner = (admin.account(name).username for name in args.pair)
            hands = fed_hands(admin.store, feeder, winner)
            if args.json:
                print(json.dumps([{"match_id": m, "hand_no": n, "finished_at": t.isoformat()}
                                  for m, n, t in hands], ensure_ascii=False))
                return 0
            print(f"{len(hands)} hand{'s' if len(hands) != 1 else ''} in which {feeder} dealt "
                  f"into {winner}'s win (newest first):")
            for m, n, t in hands:
                print(f"  {m}/{n} ended {t:%Y-%m-%d %H:%M} UTC")
            return 0
        since = utcnow() - timedelta(days=args.days) if args.days else None
        looked, pairs = admin.fairplay(min_wins=args.min_wins, alpha=args.alpha,
                                       profile=args.profile, since=since,
                                       everything=args.everything)
        # what the players saw beside what the hands say: collusion reports of each player
        counts = reports_about_names(admin.store, [n for p in pairs for n in (p.feeder, p.winner)],
                                     "collusion")

        def reports(name: str) -> int:
            return counts.get(name, 0)

        if args.json:
            print(json.dumps({"pairs_looked_at": looked, "chance_share": CHANCE_SHARE,
                              "pairs": [pair_doc(p, counts) for p in pairs]},
                             ensure_ascii=False))
            return 0
        print(f"{looked} pair{'s' if looked != 1 else ''} of registered players with at least "
              f"{args.min_wins} discard wins at shared tables; "
              f"{'all of them' if args.everything else f'{len(pairs)} flagged'}:")
        for p in pairs:
            said = "" if not (reports(p.feeder) or reports(p.winner)) else (
                f"; reported for collusion: {p.feeder} {reports(p.feeder)}, "
                f"{p.winner} {reports(p.winner)}")
            print(f"  {p.feeder} -> {p.winner}: dealt in {p.fed} of {p.winner}'s {p.wins} "
                  f"discard wins at their tables ({p.share:.0%}, chance {CHANCE_SHARE:.0%}), "
                  f"p = {p.p_value:.2g}{said}")
        if pairs and not args.everything:
            print("a screen, not proof: read the pair's hands (their records and replays)")
        return 0

    return _with_admin(args, work)


def _report_line(r: Report) -> str:
    where = f" in {r.match_id} seat {r.seat}" if r.match_id is not None else ""
    closed = "" if r.status == "open" else (
        f"; closed by {r.closed_by}" + (f": {r.note}" if r.note else ""))
    return (f"  #{r.id} {r.created_at:%Y-%m-%d %H:%M} UTC: {r.reporter} reported {r.reported} "
            f"for {r.reason}{where}{closed}")


def _reports(args: argparse.Namespace) -> int:
    from collections import Counter

    from ..store.admin_docs import report_doc
    from ..store.reports import open_reports

    def work(admin: Admin) -> int:
        found = open_reports(admin.store, everything=args.everything)
        if args.player:
            who = admin.account(args.player).id
            found = [r for r in found if r.reported_id == who]
        if args.json:
            print(json.dumps([report_doc(r) for r in found], ensure_ascii=False))
            return 0
        kind = "reports" if args.everything else "open reports"
        print(f"{len(found)} {kind}" + (":" if found else ""))
        for r in found:
            print(_report_line(r))
        most = Counter(r.reported for r in found).most_common(5)
        if len(found) > 1:
            print("reported most: " + ", ".join(f"{name} ({n})" for name, n in most))
        return 0

    return _with_admin(args, work)


def _report_close(args: argparse.Namespace) -> int:
    from ..store.reports import close_report

    def work(admin: Admin) -> int:
        closed = close_report(admin.store, args.id, admin.actor, args.note)
        print("closed:\n" + _report_line(closed))
        return 0

    return _with_admin(args, work)


def _tournaments(args: argparse.Namespace) -> int:
    from ..store.admin_docs import tournament_doc

    def work(admin: Admin) -> int:
        found = admin.tournaments()
        if args.json:
            print(json.dumps([tournament_doc(t) for t in found], ensure_ascii=False))
            return 0
        print(f"{len(found)} tournament{'s' if len(found) != 1 else ''}")
        for t in found:
            state = f"round {t.round}/{t.rounds}" if t.status == "running" else t.status
            print(f"  #{t.id} {t.name!r} {t.profile}, {state}, {t.players}/{t.capacity} "
                  f"players, by {t.creator}, created {t.created_at:%Y-%m-%d %H:%M} UTC")
        return 0

    return _with_admin(args, work)


def _tournament_cancel(args: argparse.Namespace) -> int:
    def work(admin: Admin) -> int:
        before = admin.cancel_tournament(args.tournament_id, args.reason)
        print(f"tournament #{args.tournament_id} called off (it was {before})")
        return 0

    return _with_admin(args, work)


def _clubs(args: argparse.Namespace) -> int:
    from ..store.admin_docs import club_doc

    def work(admin: Admin) -> int:
        found = admin.clubs()
        if args.json:
            print(json.dumps([club_doc(c) for c in found], ensure_ascii=False))
            return 0
        print(f"{len(found)} club{'s' if len(found) != 1 else ''}")
        for c in found:
            print(f"  {c.number} {c.name!r} {c.profile}, {c.members} member"
                  f"{'s' if c.members != 1 else ''}, owner {c.owner}, "
                  f"founded {c.created_at:%Y-%m-%d %H:%M} UTC")
        return 0

    return _with_admin(args, work)


def _club_dissolve(args: argparse.Namespace) -> int:
    def work(admin: Admin) -> int:
        club = admin.dissolve_club(args.number, args.reason)
        print(f"club {club.number} {club.name!r} of {club.owner} dissolved "
              f"({club.members} member{'s' if club.members != 1 else ''})")
        return 0

    return _with_admin(args, work)


def _tables(args: argparse.Namespace) -> int:
    from ..store.admin_docs import table_doc

    def work(admin: Admin) -> int:
        tables = admin.tables()
        if args.json:
            print(json.dumps([table_doc(t) for t in tables], ensure_ascii=False))
            return 0
        state = "draining (no new matches)" if admin.draining() else "open"
        if tables and _no_server(admin):
            state += "; no server is running: these matches resume when one starts"
        print(f"{len(tables)} running match{'es' if len(tables) != 1 else ''}; servers: {state}")
        for t in tables:
            print(f"  {t.match_id} table {t.table_id} {t.profile} {t.hands_done}/{t.hands} "
                  f"hands done, stake {t.stake} [{', '.join(t.players)}] on {t.owner or '?'} "
                  f"since {t.started:%Y-%m-%d %H:%M} UTC")
        return 0

    return _with_admin(args, work)


def _drain(args: argparse.Namespace) -> int:
    def work(admin: Admin) -> int:
        admin.set_drain(not args.off)
        if args.off:
            print("servers start new matches again")
            return 0
        print("servers start no new match; running matches play to their end")
        if not args.wait:
            return 0
        deadline = time.monotonic() + args.timeout
        while True:
            left = len(admin.tables())
            if left == 0:
                print("no match is running")
                return 0
            if _no_server(admin):  # nothing will end them: they wait, stored, for a server
                print(f"no server is running: {left} match{'es' if left != 1 else ''} "
                      f"{'wait' if left != 1 else 'waits'} in the database and "
                      f"{'resume' if left != 1 else 'resumes'} where "
                      f"{'they' if left != 1 else 'it'} stopped when a server starts")
                return 0
            if time.monotonic() >= deadline:
                raise UsageError(f"{left} match{'es' if left != 1 else ''} still running after "
                                 f"{args.timeout:g} s")
            time.sleep(DRAIN_POLL_SECONDS)

    return _with_admin(args, work)


def _no_server(admin: Admin) -> bool:
    """Whether no server at all runs on the database: every server, alone or a cluster
    node, holds its serve lock while it lives (``store/serve_lock.py``)."""
    from ..store.serve_lock import lock_holder

    return lock_holder(admin.store.engine) is None


def _backup(args: argparse.Namespace) -> int:
    url = admin_database_url(args)
    try:
        from ..store.admin import AdminError, BackupNotLogged, backup
    except ModuleNotFoundError as e:
        raise _missing_extra(e) from None
    try:
        path = backup(url, args.file, force=args.force, actor=_actor(args))
    except BackupNotLogged as e:  # written whole: a warning (a read-only standby's backup)
        print(f"wuhan-mahjong: warning: {one_line(e)}", file=sys.stderr)
        path = e.path
    except AdminError as e:
        raise UsageError(one_line(e)) from None
    except Exception as e:  # the database cannot be reached ...
        raise UsageError(f"backup of {_shown(url)} failed: {one_line(e)}") from None
    print(f"backed up {_shown(url)} to {path}")
    return 0


def _restore(args: argparse.Namespace) -> int:
    url = admin_database_url(args)
    try:
        from ..store.admin import AdminError, restore
    except ModuleNotFoundError as e:
        raise _missing_extra(e) from None
    try:
        restore(url, args.file, force=args.force, actor=_actor(args))
    except AdminError as e:
        raise UsageError(one_line(e)) from None
    except Exception as e:
        raise UsageError(f"restore into {_shown(url)} failed: {one_line(e)}") from None
    print(f"restored {args.file} into {_shown(url)}")
    return 0


CONFIGURE = {"admin": add_admin_command}
"""Sub-command name -> the function that adds its arguments (read by ``cli.build_parser``)."""
