"""Staff (管理人员): the players an operator trusts with the staff pages (``#/staff``).

Whoever holds the database is the root of trust: ``wuhan-mahjong admin role NAME admin``
names an admin, and only the command line does.  An admin names and removes moderators
from the staff pages.  What each role may do there is :data:`PERMISSIONS`:

* a **moderator** reads the players' reports and closes them, replays any finished hand
  (the one a report names; each match he opens is logged), looks an account up, bans and
  unbans, dissolves a club, calls a tournament off, sees the running tables, runs the
  fair-play screen and reads the event log;
* an **admin** may also grant silver, reset a password, close an account, audit the
  ledger, drain the servers, give the notice to every player (系统公告) and name
  moderators.

Every action goes through :class:`.admin.Admin`, so it is the same action as the command
line's, written to the same event log, under the actor ``web:NAME``.  A staff member acts
on players below his rank only (:func:`check`): a moderator on no staff member, an admin
on moderators but on no admin, nobody on himself.  The role is read from the database on
every request, so a removed moderator can do nothing more from that moment.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from .database import READ_ONLY
from .errors import StoreError
from .models import AccountRow, StaffRow, utcnow

if TYPE_CHECKING:
    from .store import Store

__all__ = [
    "PERMISSIONS",
    "STAFF_ROLES",
    "StaffAction",
    "StaffMember",
    "StaffRefused",
    "StaffRole",
    "a_role",
    "check",
    "role_of",
    "staff_list",
    "web_actor",
    "within_reach",
    "write_role",
]

StaffRole = Literal["moderator", "admin"]
STAFF_ROLES: tuple[StaffRole, ...] = ("moderator", "admin")
"""The roles, lowest first: a role's rank is its place here plus one (a player's is 0)."""

StaffAction = Literal[
    "reports", "report_close", "show", "ban", "unban", "tables", "clubs", "club_dissolve",
    "tournaments", "tournament_cancel", "fairplay", "log", "replays",
    "grant", "reset_password", "close", "audit", "drain", "role", "announce",
]

_MODERATOR: frozenset[StaffAction] = frozenset({
    "reports", "report_close", "show", "ban", "unban", "tables", "clubs", "club_dissolve",
    "tournaments", "tournament_cancel", "fairplay", "log", "replays"})
PERMISSIONS: dict[StaffRole, frozenset[StaffAction]] = {
    "moderator": _MODERATOR,
    "admin": _MODERATOR | {"grant", "reset_password", "close", "audit", "drain", "role",
                           "announce"},
}
"""What each role may do on the staff pages."""

RefusalReason = Literal["not_staff", "not_allowed", "rank", "self"]


class StaffRefused(StoreError, PermissionError):
    """A staff action this account may not take: ``reason`` says why (``not_staff``: he is
    no staff member; ``not_allowed``: not in his role; ``rank``: the player is of his rank
    or above; ``self``: on himself)."""

    def __init__(self, reason: RefusalReason, message: str) -> None:
        super().__init__(message)
        self.reason: RefusalReason = reason


@dataclass(frozen=True, slots=True)
class StaffMember:
    username: str
    role: StaffRole
    granted_by: str
    granted_at: datetime


def a_role(role: str) -> str:
    """The role with its article, for a sentence: "an admin", "a moderator".

    >>> a_role("admin"), a_role("moderator")
    ('an admin', 'a moderator')
    """
    return f"{'an' if role[:1] in 'aeiou' else 'a'} {role}"


def _rank(role: str | None) -> int:
    return {"moderator": 1, "admin": 2}.get(role or "", 0)


def _role(value: str) -> StaffRole | None:
    return next((r for r in STAFF_ROLES if r == value), None)


def _read(store: Store) -> Session:
    return Session(store.engine.execution_options(**{READ_ONLY: True}), expire_on_commit=False)


def role_of(store: Store, account_id: int) -> StaffRole | None:
    """The account's staff role now, or ``None`` for a player."""
    with _read(store) as session, session.begin():
        row = session.get(StaffRow, account_id)
        return None if row is None else _role(row.role)


def check(store: Store, account_id: int, action: StaffAction,
          target_id: int | None = None) -> StaffRole:
    """The role of ``account_id`` if it may take ``action`` (on the account ``target_id``);
    :class:`StaffRefused` if not.  One read: his role and the target's."""
    with _read(store) as session, session.begin():
        ids = [account_id] if target_id is None else [account_id, target_id]
        roles = {a: r for a, r in session.execute(
            select(StaffRow.account_id, StaffRow.role).where(StaffRow.account_id.in_(ids)))}
    role = _role(roles.get(account_id, ""))
    if role is None:
        raise StaffRefused("not_staff", "this account is no staff member")
    if action not in PERMISSIONS[role]:
        raise StaffRefused("not_allowed", f"{a_role(role)} may not {action.replace('_', ' ')}")
    if target_id is not None:
        if target_id == account_id:
            raise StaffRefused("self", "a staff member does not act on his own account here")
        if _rank(roles.get(target_id)) >= _rank(role):
            raise StaffRefused("rank", f"{roles[target_id]}s are beyond {a_role(role)}'s reach")
    return role


def within_reach(store: Store, account_id: int, target_ids: Iterable[int]) -> set[int]:
    """Of ``target_ids``, the accounts ``account_id`` may act on (:func:`check`'s rank rule:
    below his rank, never himself); one read."""
    targets = set(target_ids)
    with _read(store) as session, session.begin():
        ranks = {a: _rank(r) for a, r in session.execute(
            select(StaffRow.account_id, StaffRow.role)
            .where(StaffRow.account_id.in_(sorted(targets | {account_id}))))}
    mine = ranks.get(account_id, 0)
    return {t for t in targets if t != account_id and ranks.get(t, 0) < mine}


def write_role(session: Session, account: AccountRow, role: StaffRole | None,
               actor: str) -> StaffRole | None:
    """Make ``account`` a staff member of ``role`` (``None``: a player again), in
    ``session``'s transaction; his role before.  Guests, bots, the house and closed
    accounts are never staff."""
    if role is not None and (account.is_guest or account.is_bot or account.is_house
                             or account.closed_at is not None):
        raise StaffRefused("not_allowed", f"'{account.username}' cannot be staff: only a "
                           "registered player's account can")
    row = session.get(StaffRow, account.id, with_for_update=True)
    before = None if row is None else _role(row.role)
    if role is None:
        if row is not None:
            session.delete(row)
    elif row is None:
        session.add(StaffRow(account_id=account.id, role=role, granted_by=actor[:128],
                             granted_at=utcnow()))
    else:
        row.role, row.granted_by, row.granted_at = role, actor[:128], utcnow()
    return before


def staff_list(store: Store) -> list[StaffMember]:
    """Every staff member, admins first, then by name."""
    with _read(store) as session, session.begin():
        rows = session.execute(
            select(AccountRow.username, StaffRow.role, StaffRow.granted_by, StaffRow.granted_at)
            .join(AccountRow, AccountRow.id == StaffRow.account_id)).all()
    members = [StaffMember(name, role, by, at) for name, value, by, at in rows
               if (role := _role(value)) is not None]
    return sorted(members, key=lambda m: (-_rank(m.role), m.username.casefold()))


def web_actor(username: str) -> str:
    """The event log's actor of a staff member's action on the staff pages."""
    return f"web:{username}"
