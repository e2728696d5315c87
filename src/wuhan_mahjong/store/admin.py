"""What an operator does to a live database (``wuhan-mahjong admin ...``, ``docs/operations.md``).

Every action is written down: a grant is a ledger row of the named source
``operator_grant`` (:meth:`Store.grant`); every action, grants included, is a
row of the ``admin_actions`` event log with who did it (``actor``) and the
details as JSON.  A running server polls that log and the ``server_flags``
(``server/admin.py``): a ban closes the account's connections within seconds,
``drain`` stops new matches.

A banned account (``account_bans``) cannot log in (:class:`AccountBanned`,
refused in :meth:`Store.login`), its sessions authenticate nothing
(:meth:`Store.account_for_token`) and it cannot sit (the server checks
:func:`account_banned` before a queue or a room).

Backups: SQLite through its online backup API (``sqlite3.Connection.backup``:
a consistent copy of a database in use, WAL included, which copying the file
is not); PostgreSQL through ``pg_dump --format=custom`` and ``pg_restore``.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sqlite3
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, delete, func, inspect, select, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from .accounts import check_password_rules
from .announcements import Announcement, announce, current, end_announcement, recent
from .clubs import Club, ClubError
from .clubs import club as club_page
from .clubs import dissolve as dissolve_club
from .clubs import listing as club_listing
from .core import shown_name
from .database import PG_CLIENT_TIMEOUTS, READ_ONLY, create_store_engine, error_line
from .errors import AccountInMatch, AuthenticationFailed, StoreError, UnknownAccount
from .export import account_export
from .fairplay import FedPair, fed_pairs
from .models import (
    AccountRow,
    AdminActionRow,
    AuthSessionRow,
    BanRow,
    ClubRow,
    MatchRow,
    ReportRow,
    ServerFlagRow,
    SettlementRow,
    TournamentRow,
    utcnow,
)
from .serve_lock import DatabaseInUse, hold_serve_lock
from .staff import StaffMember, StaffRole, a_role, staff_list, write_role
from .tournaments import Tournament, TournamentError, call_off, listing

if TYPE_CHECKING:
    from .account_store import Account
    from .ledger_store import Audit, LedgerEntry, MatchResult
    from .store import Store

__all__ = [
    "DRAIN_FLAG",
    "AccountBanned",
    "AccountSummary",
    "Admin",
    "AdminAction",
    "AdminError",
    "BackupNotLogged",
    "Overview",
    "RunningTable",
    "ServerPoll",
    "account_banned",
    "backup",
    "is_banned",
    "last_action_id",
    "poll_server_state",
    "restore",
]

DRAIN_FLAG = "drain"
"""The ``server_flags`` row of ``admin drain``: ``on`` or ``off``."""

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_DUMP_MAGIC = b"PGDMP"


class AdminError(StoreError, ValueError):
    """An operator's request that cannot be done (an unknown account, a file in the way ...);
    ``not_found`` says whether what it names does not exist (the staff API's 404)."""

    def __init__(self, message: str, *, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


class AccountBanned(AuthenticationFailed):
    """The account is banned: no login, no session, no seat."""

    def __init__(self) -> None:
        StoreError.__init__(self, "this account is banned")


def is_banned(session: Session, account_id: int) -> bool:
    return session.get(BanRow, account_id) is not None


def _read_session(store: Store) -> Session:
    return Session(store.engine.execution_options(**{READ_ONLY: True}), expire_on_commit=False)


def account_banned(store: Store, account_id: int) -> bool:
    """Whether the account is banned now (the server asks before seating it)."""
    with _read_session(store) as session, session.begin():
        return is_banned(session, account_id)


def log_action(session: Session, actor: str, action: str, account_id: int | None = None,
               detail: Mapping[str, Any] | None = None) -> None:
    """Add a row to the admin event log (in ``session``'s transaction)."""
    session.add(AdminActionRow(
        created_at=utcnow(), actor=actor[:128], action=action, account_id=account_id,
        detail=None if detail is None else json.dumps(dict(detail), ensure_ascii=False,
                                                      sort_keys=True, default=str)))


@dataclass(frozen=True, slots=True)
class AdminAction:
    id: int
    created_at: datetime
    actor: str
    action: str
    account_id: int | None
    detail: Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class RunningTable:
    """A match the store has as running (``admin tables``)."""

    match_id: str
    table_id: str
    profile: str
    hands_done: int
    hands: int
    stake: int
    players: tuple[str, ...]
    """Seat order East to North; a bot's name ends with `` (bot)``."""
    owner: str | None
    """The server process (host:pid) that runs it."""
    started: datetime
    updated: datetime


@dataclass(frozen=True, slots=True)
class ServerPoll:
    """What a running server reads on each poll (:func:`poll_server_state`)."""

    last_id: int
    banned: tuple[int, ...]
    """Accounts banned since the last poll (their connections are closed)."""
    draining: bool
    closed: tuple[int, ...] = ()
    """Accounts closed by an operator since the last poll (their connections are closed)."""
    logged_out: tuple[int, ...] = ()
    """Accounts whose password an operator reset since the last poll: every session of
    theirs ended, so their connections close too (as after the player's own change)."""
    actions: tuple[AdminAction, ...] = ()
    """Every admin action logged since the last poll (the server's event log shows them)."""
    announcement: Announcement | None = None
    """The notice to every player shown now (``store/announcements.py``)."""


def last_action_id(store: Store) -> int:
    with _read_session(store) as session, session.begin():
        return int(session.scalar(select(func.max(AdminActionRow.id))) or 0)


def poll_server_state(store: Store, since_id: int) -> ServerPoll:
    """The bans logged after ``since_id`` and the drain flag, in one read."""
    with _read_session(store) as session, session.begin():
        rows = session.scalars(select(AdminActionRow).where(AdminActionRow.id > since_id)
                               .order_by(AdminActionRow.id).limit(1000)).all()
        flag = session.get(ServerFlagRow, DRAIN_FLAG)
        notice = current(session)
    actions = tuple(_action(r) for r in rows)
    last = actions[-1].id if actions else since_id
    banned = tuple(a.account_id for a in actions
                   if a.action == "ban" and a.account_id is not None)
    closed = tuple(a.account_id for a in actions
                   if a.action == "close_account" and a.account_id is not None)
    logged_out = tuple(a.account_id for a in actions
                       if a.action == "reset_password" and a.account_id is not None)
    return ServerPoll(last_id=int(last), banned=banned, closed=closed, logged_out=logged_out,
                      draining=flag is not None and flag.value == "on", actions=actions,
                      announcement=notice)


REASON_MAX = 500
"""The longest reason an operator gives (a ban's, a grant's ...)."""


def _reason(text: str | None) -> str | None:
    """An operator's reason as it is kept: one line of visible characters (NFC, spaces
    folded), ``None`` for none; :class:`AdminError` for control characters (a NUL, which
    PostgreSQL refuses in any text) or more than :data:`REASON_MAX` characters."""
    if text is None or not text.strip():
        return None
    kept = shown_name(text, REASON_MAX)
    if kept is None:
        raise AdminError(f"a reason is one line of at most {REASON_MAX} visible characters")
    return kept


def _closed(username: str) -> str:
    return f"'{username}' is a closed account (注销): nothing can use it any more"


def _role_words(role: str | None) -> str:
    return "no staff member" if role is None else a_role(role)


def _action(r: AdminActionRow) -> AdminAction:
    return AdminAction(id=r.id, created_at=r.created_at, actor=r.actor, action=r.action,
                       account_id=r.account_id,
                       detail=None if r.detail is None else json.loads(r.detail))


@dataclass(frozen=True, slots=True)
class AccountSummary:
    """What an operator answering a player's question looks at first (``admin show``)."""

    account: Account
    is_bot: bool
    ban: tuple[str | None, datetime] | None
    """(reason, since) of a ban in force."""
    live_sessions: int
    last_login: datetime | None
    """When his newest session began (a login, a sign-up or a guest's start)."""
    ledger: list[LedgerEntry]
    """His newest silver changes, newest first."""
    matches: list[MatchResult]
    """His newest settled matches and escapes, newest first."""
    table: RunningTable | None
    """The running match he sits in."""
    reports_open: int
    """Open reports about him."""
    reports_total: int


@dataclass(frozen=True, slots=True)
class Overview:
    """The platform at a glance from the database, for the staff pages' first screen."""

    players: int
    """Registered accounts, not closed."""
    new_players: int
    """Of them, registered since ``since``."""
    banned: int
    matches_running: int
    matches_since: int
    """Matches settled since ``since``."""
    reports_open: int
    clubs: int
    tournaments_open: int
    tournaments_running: int
    draining: bool
    announcement: Announcement | None


class Admin:
    """The operator's actions on an open store; ``actor`` names the operator in the log."""

    def __init__(self, store: Store, actor: str) -> None:
        self.store = store
        self.actor = actor

    def _write(self) -> Session:
        return Session(self.store.engine, expire_on_commit=False)

    def account(self, username: str) -> Account:
        """The account called ``username`` (case-insensitive); :class:`AdminError` if none."""
        found = self.store.account_by_username(username)
        if found is None:
            raise AdminError(f"no account named '{username}'", not_found=True)
        return found

    def log(self, action: str, account_id: int | None = None,
            detail: Mapping[str, Any] | None = None) -> None:
        with self._write() as session, session.begin():
            log_action(session, self.actor, action, account_id, detail)

    def grant(self, username: str, amount: int, reason: str | None = None) -> int:
        """Create (or, negative, remove) silver: a ledger row ``operator_grant``; the balance."""
        if amount == 0:
            raise AdminError("a grant of 0 silver changes nothing")
        reason = _reason(reason)
        account = self.account(username)
        reference = reason or f"operator grant by {self.actor}"

        def record(session: Session, balance: int) -> None:
            log_action(session, self.actor, "grant", account.id,
                       {"amount": amount, "reason": reason, "balance": balance})

        try:
            return self.store.grant(account.id, amount, reference=reference[:128], record=record)
        except UnknownAccount:  # closed (注销): silver granted to it would reach nobody
            raise AdminError(_closed(account.username)) from None

    def ban(self, username: str, reason: str | None = None) -> Account:
        reason = _reason(reason)
        account = self.account(username)
        with self._write() as session, session.begin():
            if is_banned(session, account.id):
                raise AdminError(f"'{account.username}' is banned already")
            session.add(BanRow(account_id=account.id, reason=reason, actor=self.actor[:128],
                               banned_at=utcnow()))
            log_action(session, self.actor, "ban", account.id, {"reason": reason})
        return account

    def unban(self, username: str) -> Account:
        account = self.account(username)
        with self._write() as session, session.begin():
            if not is_banned(session, account.id):
                raise AdminError(f"'{account.username}' is not banned")
            session.execute(delete(BanRow).where(BanRow.account_id == account.id))
            log_action(session, self.actor, "unban", account.id)
        return account

    def banned(self) -> list[tuple[str, str | None, datetime]]:
        """The banned accounts: (username, reason, since), oldest ban first."""
        with _read_session(self.store) as session, session.begin():
            return [(name, reason, when) for name, reason, when in session.execute(
                select(AccountRow.username, BanRow.reason, BanRow.banned_at)
                .join(AccountRow, AccountRow.id == BanRow.account_id)
                .order_by(BanRow.banned_at, BanRow.account_id))]

    def close(self, username: str, reason: str | None = None) -> tuple[Account, int]:
        """Close an account (注销, :func:`.closing.close_account`), as its player may; the
        account as it was and the silver that went to the house."""
        reason = _reason(reason)
        account = self.account(username)
        try:
            return account, self.store.close_account(account.id, None, operator=self.actor,
                                                     reason=reason)
        except AccountInMatch as exc:
            raise AdminError(f"'{account.username}' sits in a running match: close the "
                             "account once it is over") from exc

    def export(self, username: str, reason: str | None = None) -> tuple[Account, dict[str, Any]]:
        """Everything held about an account (:func:`.export.account_export`), for a player
        who asks an operator for it; the reading is logged (who read whose data)."""
        account = self.account(username)
        document = account_export(self.store, account.id)
        self.log("export", account.id, {"reason": reason, "hands": len(document["hands"])})
        return account, document

    def show(self, username: str, *, newest: int = 10) -> AccountSummary:
        """An account at a glance for support (``admin show``): a reading, not logged."""
        account = self.account(username)
        now = utcnow()
        with _read_session(self.store) as session, session.begin():
            row = session.get(AccountRow, account.id)
            ban = session.get(BanRow, account.id)
            live = session.scalar(select(func.count()).select_from(AuthSessionRow).where(
                AuthSessionRow.account_id == account.id,
                (AuthSessionRow.expires_at.is_(None)) | (AuthSessionRow.expires_at > now))) or 0
            last = session.scalar(select(func.max(AuthSessionRow.created_at))
                                  .where(AuthSessionRow.account_id == account.id))
            reports: dict[str, int] = {status: int(n) for status, n in session.execute(
                select(ReportRow.status, func.count()).where(ReportRow.reported_id == account.id)
                .group_by(ReportRow.status))}
            running = {match_id for match_id, config in session.execute(
                select(MatchRow.match_id, MatchRow.config).where(MatchRow.status == "running"))
                if any(isinstance(seat, dict) and seat.get("account_id") == account.id
                       for seat in json.loads(config).get("seats", []))}
        seated = [t for t in self.tables() if t.match_id in running] if running else []
        return AccountSummary(
            account=account, is_bot=bool(row is not None and row.is_bot),
            ban=None if ban is None else (ban.reason, ban.banned_at), live_sessions=int(live),
            last_login=last, ledger=self.store.ledger(account.id, limit=newest),
            matches=self.store.match_history(account.id, limit=newest),
            table=seated[0] if seated else None, reports_open=int(reports.get("open", 0)),
            reports_total=int(sum(reports.values())))

    def reset_password(self, username: str, password: str | None = None) -> str:
        """Set a new password (a random one if ``None``), end every session; the password."""
        account = self.account(username)
        if account.is_guest:
            raise AdminError(f"'{account.username}' is a guest account: it has no password")
        new = password if password is not None else secrets.token_urlsafe(12)
        new_hash = self.store.settings.password_hasher.hash(check_password_rules(new))
        with self._write() as session, session.begin():
            row = session.get(AccountRow, account.id, with_for_update=True)
            if row is None:
                raise AdminError(f"no account named '{username}'", not_found=True)
            if row.closed_at is not None:  # a password would open it again to anyone
                raise AdminError(_closed(account.username))
            row.password_hash = new_hash
            ended = session.execute(delete(AuthSessionRow)
                                    .where(AuthSessionRow.account_id == account.id))
            log_action(session, self.actor, "reset_password", account.id,
                       {"sessions_ended": int(getattr(ended, "rowcount", 0)),
                        "generated": password is None})
        return new

    def set_role(self, username: str, role: StaffRole | None) -> StaffRole | None:
        """Make a registered player a staff member (``store/staff.py``) of ``role``, or
        (``None``) a player again, logged; his role before."""
        account = self.account(username)
        with self._write() as session, session.begin():
            row = session.get(AccountRow, account.id, with_for_update=True)
            if row is None:
                raise AdminError(f"no account named '{username}'", not_found=True)
            before = write_role(session, row, role, self.actor)
            if before == role:
                raise AdminError(f"'{account.username}' is {_role_words(role)} already")
            log_action(session, self.actor, "role", account.id, {"role": role, "was": before})
        return before

    def staff(self) -> list[StaffMember]:
        """The staff, admins first."""
        return staff_list(self.store)

    def match_hands(self, match_id: str, reason: str | None = None
                    ) -> tuple[list[int], list[str | None]]:
        """The finished hands of any match and its players' names by seat, for the staff
        reading a report; the reading is logged (who read which match).  :class:`AdminError`
        (not found) for a match with no finished hand."""
        numbers = self.store.staff_hand_numbers(match_id)
        if not numbers:
            raise AdminError(f"no finished hand of match {match_id!r}", not_found=True)
        names = self.store.hand_players(match_id, numbers[0])  # who sat where: the first hand's
        self.log("read_match", None, {"match_id": match_id, "hands": len(numbers),
                                      "reason": reason})
        return numbers, names

    def tournaments(self) -> list[Tournament]:
        """The open and running tournaments, and those finished this week (``listing``)."""
        return listing(self.store, limit=200)

    def cancel_tournament(self, tournament_id: int, reason: str | None = None) -> str:
        """Call a tournament off, started or not (:func:`.tournaments.call_off`), logged;
        its status before."""
        try:
            before = call_off(self.store, tournament_id)
        except TournamentError as exc:
            raise AdminError(f"tournament {tournament_id}: {exc}",
                             not_found=exc.code == "not_found") from exc
        self.log("tournament_cancel", None, {"tournament": tournament_id, "was": before,
                                             "reason": reason})
        return before

    def clubs(self) -> list[Club]:
        """The newest clubs (亲友圈), with their owners and members."""
        return club_listing(self.store, limit=200)

    def dissolve_club(self, number: int, reason: str | None = None) -> Club:
        """Dissolve a club (a name or a notice against the rules, say), logged; the club as
        it was.  Its members' matches and hands stay theirs."""
        try:
            club = club_page(self.store, number)
            dissolve_club(self.store, number, None)
        except ClubError as exc:
            raise AdminError(f"club {number}: {exc}", not_found=exc.code == "not_found") from exc
        self.log("club_dissolve", None, {"club": number, "name": club.name,
                                         "owner": club.owner, "reason": reason})
        return club

    def fairplay(self, *, min_wins: int = 20, alpha: float = 0.001, profile: str | None = None,
                 since: datetime | None = None,
                 everything: bool = False) -> tuple[int, list[FedPair]]:
        """The fair-play screen (:func:`.fairplay.fed_pairs`), logged with what it found."""
        looked, pairs = fed_pairs(self.store, min_wins=min_wins, alpha=alpha, profile=profile,
                                  since=since, everything=everything)
        self.log("fairplay", None, {"min_wins": min_wins, "alpha": alpha, "profile": profile,
                                    "since": since, "pairs": looked,
                                    "flagged": [f"{p.feeder}>{p.winner}" for p in pairs
                                                if p.p_value < alpha / max(1, looked)][:50]})
        return looked, pairs

    def audit(self) -> Audit:
        """The ledger's invariants (:meth:`Store.audit`), logged with their verdict."""
        result = self.store.audit()
        self.log("audit", None, {"ok": result.ok, "total_balances": result.total_balances,
                                 "sources": dict(result.sources), "sinks": result.sinks})
        return result

    def actions(self, limit: int = 20) -> list[AdminAction]:
        """The newest ``limit`` rows of the admin event log, newest first."""
        with _read_session(self.store) as session, session.begin():
            return [_action(r) for r in session.scalars(
                select(AdminActionRow).order_by(AdminActionRow.id.desc()).limit(limit))]

    def tables(self) -> list[RunningTable]:
        """The matches running now (in any server process sharing this database), oldest first."""
        with _read_session(self.store) as session, session.begin():
            rows = session.scalars(select(MatchRow).where(MatchRow.status == "running")
                                   .order_by(MatchRow.created_at, MatchRow.match_id)).all()
        out = []
        for row in rows:
            cfg = json.loads(row.config)
            players = tuple(f"{s.get('name')}{' (bot)' if s.get('is_bot') else ''}"
                            for s in cfg.get("seats", []))
            out.append(RunningTable(
                match_id=row.match_id, table_id=row.table_id, profile=str(cfg.get("profile")),
                hands_done=row.hands_done, hands=int(cfg.get("hands", 0)),
                stake=int(cfg.get("stake", 0)), players=players, owner=row.owner,
                started=row.created_at, updated=row.updated_at))
        return out

    def overview(self, since: datetime) -> Overview:
        """Counts of the platform (one read): players, matches, reports, clubs, tournaments,
        the drain flag and the notice shown."""
        def count(query: Any) -> int:
            return int(session.scalar(query) or 0)

        with _read_session(self.store) as session, session.begin():
            registered = select(func.count()).select_from(AccountRow).where(
                AccountRow.is_guest.is_(False), AccountRow.is_house.is_(False),
                AccountRow.is_bot.is_(False), AccountRow.closed_at.is_(None))
            tournaments = dict(session.execute(
                select(TournamentRow.status, func.count()).where(
                    TournamentRow.status.in_(("open", "running"))).group_by(TournamentRow.status)
            ).all())
            flag = session.get(ServerFlagRow, DRAIN_FLAG)
            return Overview(
                players=count(registered),
                new_players=count(registered.where(AccountRow.created_at >= since)),
                banned=count(select(func.count()).select_from(BanRow)),
                matches_running=count(select(func.count()).select_from(MatchRow)
                                      .where(MatchRow.status == "running")),
                matches_since=count(select(func.count()).select_from(SettlementRow).where(
                    SettlementRow.kind == "game", SettlementRow.settled_at >= since)),
                reports_open=count(select(func.count()).select_from(ReportRow)
                                   .where(ReportRow.status == "open")),
                clubs=count(select(func.count()).select_from(ClubRow)),
                tournaments_open=int(tournaments.get("open", 0)),
                tournaments_running=int(tournaments.get("running", 0)),
                draining=flag is not None and flag.value == "on",
                announcement=current(session))

    def set_drain(self, on: bool) -> None:
        """Ask the running servers to start no new match (``on``) or to start them again."""
        value = "on" if on else "off"
        with self._write() as session, session.begin():
            row = session.get(ServerFlagRow, DRAIN_FLAG, with_for_update=True)
            if row is None:
                session.add(ServerFlagRow(name=DRAIN_FLAG, value=value, updated_at=utcnow()))
            else:
                row.value, row.updated_at = value, utcnow()
            log_action(session, self.actor, "drain" if on else "undrain")

    def announce(self, text: str, hours: float | None = None) -> Announcement:
        """Show a notice to every player (系统公告, ``store/announcements.py``), logged; the
        running servers send it within a poll."""
        with self._write() as session, session.begin():
            shown = announce(session, text, self.actor, hours)
            log_action(session, self.actor, "announce", None,
                       {"id": shown.id, "text": shown.text, "hours": hours})
        return shown

    def end_announcement(self) -> Announcement:
        """Take the notice shown now down, logged; :class:`AdminError` if none is shown."""
        with self._write() as session, session.begin():
            ended = end_announcement(session)
            if ended is None:
                raise AdminError("no notice is shown now")
            log_action(session, self.actor, "announce_end", None, {"id": ended.id})
        return ended

    def announcement(self) -> Announcement | None:
        """The notice shown now (:func:`.announcements.current`)."""
        with _read_session(self.store) as session, session.begin():
            return current(session)

    def announcements(self, limit: int = 20) -> list[Announcement]:
        """The newest notices, newest first, shown or not."""
        with _read_session(self.store) as session, session.begin():
            return recent(session, limit)

    def draining(self) -> bool:
        with _read_session(self.store) as session, session.begin():
            row = session.get(ServerFlagRow, DRAIN_FLAG)
            return row is not None and row.value == "on"


# --------------------------------------------------------------------------- backups
def _libpq(url: URL) -> tuple[str, dict[str, str], str | None]:
    """A libpq connection string for ``pg_dump``/``pg_restore``, its environment (the
    password travels in ``PGPASSWORD``, never on a command line), and the schema of a
    ``-csearch_path=`` option (a database confined to one schema, as the tests use)."""
    env = dict(os.environ)
    if url.password is not None:
        env["PGPASSWORD"] = str(url.password)
    options = url.query.get("options")
    schema = _options_schema(options) if isinstance(options, str) else None
    plain = url.set(drivername="postgresql", password=None).update_query_dict(
        {k: v for k, v in PG_CLIENT_TIMEOUTS.items() if k not in url.query})  # a silent host
    return plain.render_as_string(hide_password=False), env, schema


def _options_schema(options: str) -> str | None:
    """The first schema of the ``search_path`` that libpq's ``options`` set, in any of its
    spellings (``-csearch_path=S``, ``-c search_path=S``, ``--search_path=S``), among other
    settings: the whole text after ``-csearch_path=`` was taken for the schema, so a URL that
    also set ``-cstatement_timeout=0`` asked pg_dump for a schema of that name.

    >>> _options_schema("-csearch_path=club -cstatement_timeout=0")
    'club'
    >>> _options_schema("-c statement_timeout=0 -c search_path=club,public")
    'club'
    >>> _options_schema("-cstatement_timeout=0") is None
    True
    """
    words = options.split()
    for k, word in enumerate(words):
        if word == "-c":
            setting = words[k + 1] if k + 1 < len(words) else ""
        elif word.startswith(("-c", "--")):
            setting = word[2:]
        else:
            continue
        name, _, value = setting.partition("=")
        if name.replace("-", "_") == "search_path":
            return value.split(",")[0].strip().strip('"') or None
    return None


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise AdminError(f"{name} is not installed (PostgreSQL's client tools, e.g. "
                         "apt-get install postgresql-client)")
    return path


def _run(argv: Sequence[str], env: Mapping[str, str]) -> None:
    done = subprocess.run(list(argv), env=dict(env), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
        raise AdminError(f"{Path(argv[0]).name} failed: {lines[-1] if lines else done.returncode}")


def _sqlite_path(url: URL) -> Path:
    if not url.database or url.database == ":memory:":
        raise AdminError("only file-backed SQLite databases can be backed up")
    return Path(url.database).expanduser()


def backup(url: str | URL, dest: str | Path, *, force: bool = False,
           actor: str | None = None) -> Path:
    """Write a consistent copy of the database at ``url`` to ``dest`` (the database may be
    in use).  Refuses to overwrite a file unless ``force``.  Logged in the source's event log."""
    url = make_url(url)
    target = Path(dest).expanduser()
    if target.exists() and not force:
        raise AdminError(f"{target} exists (use --force to overwrite it)")
    if target.parent and not target.parent.is_dir():
        raise AdminError(f"no folder {target.parent}")
    backend = url.get_backend_name()
    if backend == "sqlite":
        source = _sqlite_path(url)
        if not source.is_file():
            raise AdminError(f"no database file {source}")
        if _is_the_database(target, source):
            raise AdminError(f"{target} is the database itself (or a file SQLite keeps beside "
                             "it): back up to another file")
        _write_whole(target, lambda partial: _sqlite_copy(source, partial, "backup"))
    elif backend == "postgresql":
        conninfo, env, schema = _libpq(url)

        def dump(partial: Path) -> None:
            argv = [_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges",
                    f"--file={partial}"]
            if schema:
                argv.append(f"--schema={schema}")
            _run([*argv, f"--dbname={conninfo}"], env)
        _write_whole(target, dump)
    else:
        raise AdminError(f"cannot back up a {backend} database")
    if actor is not None:
        try:
            _log_to(url, actor, "backup", {"file": str(target.resolve())})
        except (SQLAlchemyError, UnicodeError) as e:  # a read-only standby, say
            raise BackupNotLogged(target, error_line(e)) from None
    return target


class BackupNotLogged(AdminError):
    """The backup is written whole, but the database refused its row in the event log (a
    read-only standby, where backups are often taken): a warning, not a failed backup."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"backed up to {path}, but not logged in the event log: {why}")
        self.path = path


def _is_the_database(target: Path, source: Path) -> bool:
    """Whether ``target`` is the SQLite file ``source`` (by any name: a link, another
    spelling) or one SQLite keeps beside it: a backup renamed over the live file left a
    server on it with no tables."""
    real = source.resolve()
    beside = {real.with_name(real.name + end)
              for end in ("-wal", "-shm", "-journal", ".serve-lock")}  # serve_lock.py's too
    if target.resolve() == real or target.resolve() in beside:
        return True
    try:
        return target.exists() and os.path.samefile(target, source)
    except OSError:
        return False


def _write_whole(target: Path, write: Callable[[Path], None]) -> None:
    """Write a backup file whole or not at all: into ``<target>.partial``, synced to disk,
    then renamed over ``target``.  A backup that fails or is killed leaves the file it
    would have replaced as it was (pg_dump writing into ``target`` itself truncated the
    last good backup when it could not reach the database)."""
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        write(partial)
        with partial.open("rb") as f:
            os.fsync(f.fileno())
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, target)


def _sqlite_copy(source: Path, target: Path, what: str) -> None:
    """Copy a whole SQLite database page by page with the online backup API (the source
    may be in use: the copy is one consistent snapshot, its WAL included).

    A backup is left in the rollback-journal mode, one self-contained file: a copy in WAL
    mode cannot even be read from a read-only folder (SQLite must create its ``-shm``
    file beside it), as backups on a read-only volume are.  The store switches a restored
    database back to WAL when it opens it."""
    try:
        src = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            src.execute("PRAGMA schema_version").fetchone()  # not a database: fails here
            dst = sqlite3.connect(target, timeout=30)
            try:
                src.backup(dst)
                if what == "backup":
                    dst.execute("PRAGMA journal_mode=DELETE").fetchall()
            finally:
                dst.close()
        finally:
            src.close()
    except sqlite3.Error as e:
        raise AdminError(f"{what} failed: {e}") from None


def _backup_revision(path: Path, backend: str) -> str | None:
    """The schema revision in a backup (``alembic_version``), read without restoring it:
    ``None`` for a backup of some other program's database.  Checked before the target is
    touched, so a wrong file replaces nothing."""
    if backend == "sqlite":
        try:
            src = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
            try:
                found = src.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                    "name = 'alembic_version'").fetchone()
                row = src.execute("SELECT version_num FROM alembic_version").fetchone() \
                    if found else None
            finally:
                src.close()
        except sqlite3.Error as e:
            raise AdminError(f"restore failed: {e}") from None
        return str(row[0]) if row else None
    # pg_restore writes the table's rows as SQL (COPY ... FROM stdin; a row per line; \.)
    done = subprocess.run([_tool("pg_restore"), "--data-only", "--table=alembic_version",
                           "--file=-", str(path)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
        raise AdminError(f"pg_restore failed: {lines[-1] if lines else done.returncode}")
    rows = iter(done.stdout.splitlines())
    for line in rows:
        if line.startswith("COPY ") and "alembic_version" in line:
            first = next(rows, "\\.")
            return None if first == "\\." else first.strip()
    return None


def _dump_schema(path: Path) -> str | None:
    """The schema of a pg_dump's ``alembic_version`` table (the one our tables are in), from
    its table of contents; ``None`` if it has none."""
    done = subprocess.run([_tool("pg_restore"), "--list", str(path)], capture_output=True,
                          text=True, check=False)
    for line in done.stdout.splitlines():  # "207; 1259 16390 TABLE club alembic_version owner"
        words = line.split(";", 1)[-1].split()
        if len(words) >= 5 and words[2] == "TABLE" and words[4] == "alembic_version":
            return words[3]
    return None


def _check_same_schema(engine: Engine, url: URL, path: Path) -> None:
    """:class:`AdminError` unless the pg_dump ``path`` restores into the schema ``url`` names.

    pg_restore recreates a dump's objects in the schema they were dumped from, whatever the
    connection's ``search_path``: a backup of one schema restored with another schema's URL
    replaced the first schema's live contents (without --force: the named one was empty) and
    left the named one empty, a success to all appearances."""
    with engine.connect() as connection:
        target = connection.scalar(text("SELECT current_schema()"))
    if target is None:  # the search_path names a schema not created yet
        options = url.query.get("options")
        target = (_options_schema(options) if isinstance(options, str) else None) or "public"
    source = _dump_schema(path)
    if source is not None and source != target:
        raise AdminError(f"{path} is a backup of the schema {source!r}, which pg_restore "
                         f"would replace, not this database's {target!r}: restore it with a "
                         f"URL whose search_path is {source!r}")


def _log_to(url: URL, actor: str, action: str, detail: Mapping[str, Any]) -> None:
    engine = create_store_engine(url)
    try:
        with Session(engine) as session, session.begin():
            log_action(session, actor, action, None, detail)
    finally:
        engine.dispose()


def _has_tables(url: URL) -> bool:
    if url.get_backend_name() == "sqlite":
        path = _sqlite_path(url)
        if not path.exists() or path.stat().st_size == 0:
            return False
    engine = create_store_engine(url)
    try:
        return bool(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def restore(url: str | URL, source: str | Path, *, force: bool = False,
            actor: str | None = None) -> None:
    """Replace the database at ``url`` by the backup ``source``, then migrate it to the
    newest schema.  Refuses a database that has tables unless ``force``, and one a server
    serves, alone or as cluster nodes (their lock, ``store/serve_lock.py``)."""
    from .migrate import known_revision, upgrade

    url = make_url(url)
    path = Path(source).expanduser()
    try:
        with path.open("rb") as f:
            head = f.read(16)
    except OSError as e:
        raise AdminError(f"cannot read {path}: {e.strerror}") from None
    backend = url.get_backend_name()
    if backend == "sqlite" and head != SQLITE_MAGIC:
        raise AdminError(f"{path} is not an SQLite backup (an SQLite database restores "
                         "only from one)")
    if backend == "postgresql" and not head.startswith(PG_DUMP_MAGIC):
        raise AdminError(f"{path} is not a pg_dump backup (--format=custom)")
    if backend not in ("sqlite", "postgresql"):
        raise AdminError(f"cannot restore into a {backend} database")
    revision = _backup_revision(path, backend)
    if revision is None:
        raise AdminError(f"{path} is no wuhan-mahjong backup (it holds no schema revision "
                         "of ours)")
    if not known_revision(revision):
        raise AdminError(f"{path} is at schema revision {revision!r}, which this version of "
                         "wuhan-mahjong does not know (a newer version's backup?)")
    engine = create_store_engine(url)
    try:
        if backend == "postgresql":
            _check_same_schema(engine, url, path)
        try:  # a server's lock: none may serve the database while it is replaced, nor start
            lock = hold_serve_lock(engine, wait=0)
        except DatabaseInUse as e:
            raise AdminError(f"a wuhan-mahjong server serves this database ({e.holder}): stop "
                             "it first (a restore under it would mix its matches into the "
                             "backup's ledger)") from None
        try:
            _replace(url, path, backend, force=force)
            upgrade(engine)
        finally:
            lock.release()
    finally:
        engine.dispose()
    if actor is not None:
        _log_to(url, actor, "restore", {"file": str(path.resolve())})


def _replace(url: URL, path: Path, backend: str, *, force: bool) -> None:
    """Put the backup ``path`` in place of the database's contents (restore's copy)."""
    if _has_tables(url) and not force:
        raise AdminError("the database is not empty (use --force to replace its contents)")
    if backend == "sqlite":
        target = _sqlite_path(url)
        target.parent.mkdir(parents=True, exist_ok=True)
        _sqlite_copy(path, target, "restore")
    else:
        conninfo, env, _schema = _libpq(url)
        _run([_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--no-privileges",
              "--single-transaction", "--exit-on-error", f"--dbname={conninfo}", str(path)], env)
