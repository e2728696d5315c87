"""Clubs (亲友圈, 俱乐部), as the Chinese mahjong apps keep them: a registered player founds a
club and is its owner; it is known by a 6-digit number (圈号) that he gives his friends; they
ask to join (申请) and the owner or an admin he named lets them in or turns them away.  The
members open tables with the club's rules (玩法, the ``preset``: a private room's options,
which the server reads), only members sit at them, and the club keeps standings (战绩) of
its members over what they played at its tables: by week, by month, or ever.

Roles: ``owner`` (one per club), ``admin`` (named by the owner: answers applications,
removes plain members, writes the notice), ``member``, and ``pending`` (asked to join).

* The owner changes the name, the rules and the notice, names and unnames admins, hands
  the club to another member (he stays as an admin), and dissolves it (解散: the club, its
  members and its standings go; the matches and hands stay with their players).
* A member leaves when he likes; the owner cannot leave (he hands the club on first).
* A player owns at most :data:`OWNED_MAX` clubs and is in (or asks to join) at most
  :data:`JOINED_MAX`; a club holds at most :data:`MEMBERS_MAX` members and
  :data:`PENDING_MAX` open applications.
* Closing an account (``store/closing.py``) takes it out of every club; a club it owned goes
  to its longest-standing admin, else member, and is dissolved if it had none.

A match opened from a club's table is written down for the club in the transaction that
opens it (:func:`match_opened`), so a standing counts every hand a member played there, a
resumed or a failed-over match included, exactly once.
"""

from __future__ import annotations

import json
import secrets
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import case, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..rules import PROFILES
from .core import shown_name
from .errors import StoreError
from .matchlog import seat_results
from .models import (
    AccountRow,
    ClubMatchRow,
    ClubMemberRow,
    ClubRow,
    HandRecordRow,
    HandStatRow,
    MatchRow,
    utcnow,
)
from .ratings import registered_row

if TYPE_CHECKING:
    from .core import StoreCore

__all__ = [
    "JOINED_MAX",
    "MEMBERS_MAX",
    "MEMBER_ROLES",
    "NAME_MAX",
    "NOTICE_MAX",
    "NUMBER_HIGH",
    "NUMBER_LOW",
    "OWNED_MAX",
    "PENDING_MAX",
    "RECENT_MAX",
    "ROLES",
    "Club",
    "ClubError",
    "ClubMatch",
    "ClubMember",
    "ClubPage",
    "ClubStanding",
    "MemberAction",
    "MemberRowAction",
    "answer",
    "answerers",
    "apply",
    "club",
    "club_matches",
    "create",
    "dissolve",
    "leave",
    "leave_all",
    "listing",
    "match_opened",
    "member_actions",
    "member_role",
    "members",
    "my_clubs",
    "page",
    "standings",
    "transfer",
    "update",
]

NAME_MAX = 20
"""Visible characters of a club's name."""
NOTICE_MAX = 200
"""Characters of a club's notice (公告)."""
OWNED_MAX = 3
"""Clubs one player may own."""
JOINED_MAX = 20
"""Clubs one player may be in, or have asked to join, at once (his own included)."""
MEMBERS_MAX = 500
"""Members of one club, its owner and admins included (applications not counted)."""
PENDING_MAX = 100
"""Applications one club may have waiting; more are refused until some are answered."""
RECENT_MAX = 50
"""The most matches :func:`club_matches` lists."""
NUMBER_LOW, NUMBER_HIGH = 100_000, 999_999
"""A club's number (圈号) has six digits and never starts with 0."""
ROLES = ("owner", "admin", "member", "pending")
MEMBER_ROLES = frozenset({"owner", "admin", "member"})
"""The roles of a club's members: they sit at its tables and see its page whole (an
applicant, ``pending``, does not yet)."""

ClubErrorCode = Literal["not_found", "not_member", "not_allowed", "bad_name", "bad_notice",
                        "invalid", "guest", "too_many", "full", "already", "owner", "no_player",
                        "applicant"]
"""Why a club request is refused.  ``not_member``: the asker is not in the club;
``no_player``: the player he names is neither in it nor asking to join; ``applicant``: the
player he names has only asked to join (let him in first)."""
MemberAction = Literal["approve", "reject", "remove", "admin", "member"]
"""What an owner or admin does with a player of the club (:func:`answer`): let an applicant
in, turn him away, remove a member, name an admin (the owner only), make an admin a plain
member again (the owner only)."""


MemberRowAction = Literal["approve", "reject", "remove", "admin", "member", "transfer"]
"""What one may do with a player of the club's member list: a :data:`MemberAction`, or
hand him the club (:func:`transfer`)."""


def member_actions(asker: str | None, member: str, *, own: bool) -> tuple[MemberRowAction, ...]:
    """What a player whose role in the club is ``asker`` may do with a player whose role is
    ``member`` (``own``: his own row): the one rule :func:`answer` and :func:`transfer`
    enforce and the club's page offers.

    >>> member_actions("owner", "member", own=False)
    ('admin', 'transfer', 'remove')
    >>> member_actions("admin", "pending", own=False), member_actions("admin", "admin", own=False)
    (('approve', 'reject'), ())
    """
    if own or asker not in ("owner", "admin") or member == "owner":
        return ()
    if member == "pending":
        return ("approve", "reject")
    if asker != "owner":
        return ("remove",) if member == "member" else ()
    return ("member" if member == "admin" else "admin", "transfer", "remove")


class ClubError(StoreError, ValueError):
    """A club request that cannot be: ``code`` says why (the API's reason), ``username``
    names the other player it is about, if any."""

    def __init__(self, message: str, code: ClubErrorCode, username: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.username = username


@dataclass(frozen=True, slots=True)
class Club:
    number: int
    name: str
    owner: str
    profile: str
    preset: dict[str, Any]
    """The options of the club's tables (a private room's, read by the server)."""
    notice: str
    members: int
    """Members, the owner and admins included; not the applicants."""
    created_at: datetime
    role: str | None = None
    """The asker's role in it (:data:`ROLES`), ``None`` when he has none."""
    pending: int = 0
    """Applications waiting, for an asker who answers them (owner, admin); else 0."""


@dataclass(frozen=True, slots=True)
class ClubMember:
    username: str
    role: str
    since: datetime
    """When he joined (or asked to, for an applicant)."""
    account_id: int
    """For the server (who is online); never sent."""


@dataclass(frozen=True, slots=True)
class ClubPage:
    """A club as its page shows it to one asker: the club, and for a member its members
    (applicants too for the owner and admins) and its latest matches."""

    club: Club
    members: tuple[ClubMember, ...] = ()
    matches: tuple[ClubMatch, ...] = ()


@dataclass(frozen=True, slots=True)
class ClubStanding:
    rank: int
    username: str
    points: int
    hands: int
    wins: int
    matches: int


@dataclass(frozen=True, slots=True)
class ClubMatch:
    match_id: str
    status: str
    """``running``, ``finished`` or ``aborted``."""
    hands_done: int
    hands: int
    results: tuple[tuple[str, int], ...]
    """Each seat's name and points so far, best first (bots too)."""
    created_at: datetime
    table_id: str
    """The table that plays (or played) it: to watch it while it runs."""


# ---------------------------------------------------------------------------- checks
def _clean_name(name: object) -> str:
    text = shown_name(name, NAME_MAX)
    if text is None:
        raise ClubError(f"a club's name has 1 to {NAME_MAX} visible characters", "bad_name")
    return text


def _clean_notice(notice: object) -> str:
    """Lines kept (a notice is a few lines), spaces within each folded, controls refused."""
    if not isinstance(notice, str):
        raise ClubError("the notice must be text", "bad_notice")
    lines = [" ".join(line.split()) for line in
             unicodedata.normalize("NFC", notice).replace("\r\n", "\n").split("\n")]
    text = "\n".join(lines).strip("\n")
    if len(text) > NOTICE_MAX or any(unicodedata.category(c).startswith("C")
                                     for c in text if c != "\n"):
        raise ClubError(f"a club's notice has at most {NOTICE_MAX} characters, "
                        "none of them control characters", "bad_notice")
    return text


def _clean_preset(profile: object, preset: object) -> tuple[str, str]:
    if profile not in PROFILES:
        raise ClubError(f"no profile {profile!r}", "invalid")
    if not isinstance(preset, Mapping) or preset.get("profile", profile) != profile:
        raise ClubError("the club's table options must be an object of its profile", "invalid")
    text = json.dumps(dict(preset), sort_keys=True, ensure_ascii=False)
    if len(text) > 4000:
        raise ClubError("the club's table options are too long", "invalid")
    return str(profile), text


def _registered(session: Session, account_id: int) -> AccountRow:
    row = registered_row(session, account_id)
    if row is None:
        raise ClubError("only registered players found or join clubs", "guest")
    return row


def _club_row(session: Session, number: int, *, lock: bool = False) -> ClubRow:
    query = select(ClubRow).where(ClubRow.number == number)
    if lock:
        query = query.with_for_update()
    row = session.scalar(query)
    if row is None:
        raise ClubError(f"no club {number}", "not_found")
    return row


def _role(session: Session, club_id: int, account_id: int) -> str | None:
    row = session.get(ClubMemberRow, (club_id, account_id))
    return None if row is None else row.role


def _count(session: Session, club_id: int, *, pending: bool) -> int:
    clause = (ClubMemberRow.role == "pending") if pending else (ClubMemberRow.role != "pending")
    return int(session.scalar(select(func.count()).select_from(ClubMemberRow)
                              .where(ClubMemberRow.club_id == club_id, clause)) or 0)


def _club(session: Session, row: ClubRow, role: str | None) -> Club:
    owner = session.get(AccountRow, row.owner_id)
    return Club(number=row.number, name=row.name, owner="" if owner is None else owner.username,
                profile=row.profile, preset=json.loads(row.preset), notice=row.notice,
                members=_count(session, row.id, pending=False), created_at=row.created_at,
                role=role, pending=(_count(session, row.id, pending=True)
                                    if role in ("owner", "admin") else 0))


def _joined(session: Session, account_id: int) -> int:
    return int(session.scalar(select(func.count()).select_from(ClubMemberRow)
                              .where(ClubMemberRow.account_id == account_id)) or 0)


# ---------------------------------------------------------------------------- founding
def create(store: StoreCore, owner_id: int, name: str, profile: str,
           preset: Mapping[str, Any], notice: str = "") -> Club:
    """Found a club: ``owner_id`` owns it; a fresh random number is drawn for it."""
    clean = _clean_name(name)
    text = _clean_notice(notice)
    profile, preset_text = _clean_preset(profile, preset)
    for _ in range(20):  # a number drawn twice at once: draw again
        number = NUMBER_LOW + secrets.randbelow(NUMBER_HIGH - NUMBER_LOW + 1)
        try:
            with store._write() as session:
                _registered(session, owner_id)
                owned = session.scalar(select(func.count()).select_from(ClubRow)
                                       .where(ClubRow.owner_id == owner_id)) or 0
                if owned >= OWNED_MAX:
                    raise ClubError(f"a player owns at most {OWNED_MAX} clubs", "too_many")
                if _joined(session, owner_id) >= JOINED_MAX:
                    raise ClubError(f"a player is in at most {JOINED_MAX} clubs", "too_many")
                if session.scalar(select(ClubRow.id).where(ClubRow.number == number)):
                    continue
                now = utcnow()
                row = ClubRow(number=number, name=clean, owner_id=owner_id, profile=profile,
                              preset=preset_text, notice=text, created_at=now)
                session.add(row)
                session.flush()
                session.add(ClubMemberRow(club_id=row.id, account_id=owner_id, role="owner",
                                          since=now))
                session.flush()
                return _club(session, row, "owner")
        except IntegrityError:
            continue
    raise ClubError("no free club number was found; try again", "too_many")  # pragma: no cover


def update(store: StoreCore, number: int, actor_id: int, *, name: str | None = None,
           notice: str | None = None, profile: str | None = None,
           preset: Mapping[str, Any] | None = None) -> Club:
    """Change what is given: the notice (owner or admin); the name or the rules (owner)."""
    with store._write() as session:
        row = _club_row(session, number, lock=True)
        role = _role(session, row.id, actor_id)
        if role not in ("owner", "admin"):
            raise ClubError("only the club's owner or an admin changes it", "not_allowed")
        if (name is not None or preset is not None) and role != "owner":
            raise ClubError("only the club's owner changes its name or its rules",
                            "not_allowed")
        if name is not None:
            row.name = _clean_name(name)
        if notice is not None:
            row.notice = _clean_notice(notice)
        if preset is not None:
            row.profile, row.preset = _clean_preset(profile or row.profile, preset)
        session.flush()
        return _club(session, row, role)


def dissolve(store: StoreCore, number: int, actor_id: int | None) -> None:
    """Dissolve a club (its owner, or an operator with ``actor_id`` ``None``): the club, its
    members and its list of matches go; the matches and hands stay with their players."""
    with store._write() as session:
        row = _club_row(session, number, lock=True)
        if actor_id is not None and row.owner_id != actor_id:
            raise ClubError("only the club's owner dissolves it", "not_allowed")
        _drop(session, row)


def _drop(session: Session, row: ClubRow) -> None:
    session.execute(delete(ClubMatchRow).where(ClubMatchRow.club_id == row.id))
    session.execute(delete(ClubMemberRow).where(ClubMemberRow.club_id == row.id))
    session.delete(row)
    session.flush()


def transfer(store: StoreCore, number: int, owner_id: int, username: str) -> None:
    """The owner hands the club to one of its members (or admins); he stays as an admin."""
    with store._write() as session:
        row = _club_row(session, number, lock=True)
        if row.owner_id != owner_id:
            raise ClubError("only the club's owner hands it on", "not_allowed")
        target = _member_named(session, row, username)
        if target.role not in ("admin", "member"):
            raise ClubError(f"{username} has only asked to join the club", "applicant", username)
        owned = session.scalar(select(func.count()).select_from(ClubRow)
                               .where(ClubRow.owner_id == target.account_id)) or 0
        if owned >= OWNED_MAX:
            raise ClubError(f"{username} owns {OWNED_MAX} clubs already", "too_many", username)
        if registered_row(session, target.account_id) is None:
            raise ClubError(f"{username} cannot own a club", "guest", username)
        old = session.get(ClubMemberRow, (row.id, owner_id))
        if old is not None:
            old.role = "admin"
        target.role = "owner"
        row.owner_id = target.account_id
        session.flush()


# ---------------------------------------------------------------------------- members
def apply(store: StoreCore, number: int, account_id: int) -> str:
    """Ask to join the club; returns the asker's role after (``pending``, or his role if he
    was in it already: asking twice changes nothing)."""
    with store._write() as session:
        row = _club_row(session, number, lock=True)
        role = _role(session, row.id, account_id)
        if role is not None:
            return role
        _registered(session, account_id)
        if _joined(session, account_id) >= JOINED_MAX:
            raise ClubError(f"a player is in (or asks to join) at most {JOINED_MAX} clubs",
                            "too_many")
        if _count(session, row.id, pending=False) >= MEMBERS_MAX:
            raise ClubError(f"the club has {MEMBERS_MAX} members, its most", "full")
        if _count(session, row.id, pending=True) >= PENDING_MAX:
            raise ClubError(f"the club has {PENDING_MAX} applications waiting; ask later",
                            "full")
        session.add(ClubMemberRow(club_id=row.id, account_id=account_id, role="pending",
                                  since=utcnow()))
        session.flush()
        return "pending"


def _member_named(session: Session, row: ClubRow, username: str) -> ClubMemberRow:
    found = None if "\x00" in username else session.scalar(  # PostgreSQL refuses a NUL
        select(ClubMemberRow).join(AccountRow, AccountRow.id == ClubMemberRow.account_id)
        .where(ClubMemberRow.club_id == row.id, AccountRow.username == username))
    if found is None:
        raise ClubError(f"nobody called {username!r} is in the club or asks to join it",
                        "no_player", username)
    return found


def answer(store: StoreCore, number: int, actor_id: int, username: str,
           action: MemberAction) -> str | None:
    """An owner or admin acts on the player ``username`` of the club (:data:`MemberAction`);
    returns his role after (``None``: no longer in it)."""
    with store._write() as session:
        row = _club_row(session, number, lock=True)
        actor = _role(session, row.id, actor_id)
        if actor not in ("owner", "admin"):
            raise ClubError("only the club's owner or an admin does that", "not_allowed")
        target = _member_named(session, row, username)
        if target.account_id == actor_id:
            raise ClubError("not of oneself", "not_allowed")
        if action in ("approve", "reject"):
            if target.role != "pending":
                raise ClubError(f"{username} has not asked to join", "already", username)
            if action == "reject":
                session.delete(target)
                session.flush()
                return None
            if _count(session, row.id, pending=False) >= MEMBERS_MAX:
                raise ClubError(f"the club has {MEMBERS_MAX} members, its most", "full")
            target.role, target.since = "member", utcnow()
            session.flush()
            return "member"
        if target.role == "pending":
            raise ClubError(f"{username} has only asked to join", "applicant", username)
        again = actor == "owner" and action == target.role  # an admin named again: no change
        if not again and action not in member_actions(actor, target.role, own=False):
            raise ClubError("the owner cannot be removed or changed" if target.role == "owner"
                            else "only the owner removes an admin" if action == "remove"
                            else "only the owner names or unnames admins", "not_allowed")
        if action == "remove":
            session.delete(target)
            session.flush()
            return None
        target.role = action
        session.flush()
        return action


def leave(store: StoreCore, number: int, account_id: int) -> None:
    """Leave the club (or withdraw an application).  The owner hands it on first."""
    with store._write() as session:
        row = _club_row(session, number, lock=True)
        role = _role(session, row.id, account_id)
        if role is None:
            raise ClubError("you are not in the club", "not_member")
        if role == "owner":
            raise ClubError("the owner hands the club to a member, or dissolves it, "
                            "before leaving", "owner")
        session.execute(delete(ClubMemberRow).where(ClubMemberRow.club_id == row.id,
                                                    ClubMemberRow.account_id == account_id))


def leave_all(session: Session, account_id: int) -> int:
    """In the transaction that closes an account: out of every club; a club it owned goes to
    its longest-standing admin, else member, or is dissolved.  Returns the clubs dissolved."""
    dissolved = 0
    owned = session.scalars(select(ClubRow).where(ClubRow.owner_id == account_id)
                            .order_by(ClubRow.id).with_for_update()).all()
    for row in owned:
        heir = session.scalar(
            select(ClubMemberRow).where(ClubMemberRow.club_id == row.id,
                                        ClubMemberRow.role.in_(("admin", "member")),
                                        ClubMemberRow.account_id != account_id)
            .order_by((ClubMemberRow.role == "member"), ClubMemberRow.since,
                      ClubMemberRow.account_id).limit(1))
        if heir is None:
            _drop(session, row)
            dissolved += 1
        else:
            heir.role = "owner"
            row.owner_id = heir.account_id
    session.execute(delete(ClubMemberRow).where(ClubMemberRow.account_id == account_id))
    session.flush()
    return dissolved


# ---------------------------------------------------------------------------- reading
def member_role(store: StoreCore, number: int, account_id: int) -> tuple[str | None, Club]:
    """(the account's role in the club, the club): what the lobby asks before it opens or
    seats a club's table."""
    with store._read() as session:
        row = _club_row(session, number)
        role = _role(session, row.id, account_id)
        return role, _club(session, row, role)


def answerers(store: StoreCore, number: int) -> list[int]:
    """The accounts that answer the club's applications: its owner and admins."""
    with store._read() as session:
        row = _club_row(session, number)
        return list(session.scalars(
            select(ClubMemberRow.account_id)
            .where(ClubMemberRow.club_id == row.id,
                   ClubMemberRow.role.in_(("owner", "admin")))
            .order_by(ClubMemberRow.account_id)))


def club(store: StoreCore, number: int, asker_id: int | None = None) -> Club:
    """A club's page: what anyone signed in may see (to ask to join), with his role."""
    with store._read() as session:
        row = _club_row(session, number)
        return _club(session, row, None if asker_id is None else _role(session, row.id, asker_id))


def my_clubs(store: StoreCore, account_id: int) -> list[Club]:
    """The clubs the account is in or asked to join, the ones it owns first."""
    with store._read() as session:
        rows = session.execute(
            select(ClubRow, ClubMemberRow.role)
            .join(ClubMemberRow, ClubMemberRow.club_id == ClubRow.id)
            .where(ClubMemberRow.account_id == account_id)
            .order_by(ClubMemberRow.since, ClubRow.id)).all()
        order = {role: k for k, role in enumerate(ROLES)}
        clubs = [_club(session, row, role) for row, role in rows]
        return sorted(clubs, key=lambda c: order.get(c.role or "", 9))


def listing(store: StoreCore, *, limit: int = 200) -> list[Club]:
    """The newest clubs, for the operators (``wuhan-mahjong admin clubs``)."""
    with store._read() as session:
        counted = (select(ClubMemberRow.club_id, func.count().label("n"))
                   .where(ClubMemberRow.role != "pending")
                   .group_by(ClubMemberRow.club_id).subquery())
        rows = session.execute(
            select(ClubRow, AccountRow.username, counted.c.n)
            .join(AccountRow, AccountRow.id == ClubRow.owner_id)
            .outerjoin(counted, counted.c.club_id == ClubRow.id)
            .order_by(ClubRow.created_at.desc(), ClubRow.id.desc()).limit(max(1, limit))).all()
        return [Club(number=row.number, name=row.name, owner=owner, profile=row.profile,
                     preset=json.loads(row.preset), notice=row.notice, members=int(n or 0),
                     created_at=row.created_at) for row, owner, n in rows]


def _members(session: Session, row: ClubRow) -> list[ClubMember]:
    rows = session.execute(
        select(AccountRow.username, ClubMemberRow.role, ClubMemberRow.since, AccountRow.id)
        .join(AccountRow, AccountRow.id == ClubMemberRow.account_id)
        .where(ClubMemberRow.club_id == row.id)).all()
    order = {role: k for k, role in enumerate(ROLES)}
    found = [ClubMember(username=u, role=r, since=s, account_id=a) for u, r, s, a in rows]
    return sorted(found, key=lambda m: (order.get(m.role, 9), m.since, m.username))


def members(store: StoreCore, number: int) -> list[ClubMember]:
    """Everybody in the club and every applicant: owner, admins, members (longest-standing
    first), then the applications, oldest first."""
    with store._read() as session:
        return _members(session, _club_row(session, number))


def page(store: StoreCore, number: int, asker_id: int) -> ClubPage:
    """The club's page for ``asker_id``, read in one transaction (the page asks again every
    few seconds while a member looks at it).  Its counts and its owner come from the member
    list it reads anyway."""
    with store._read() as session:
        row = _club_row(session, number)
        role = _role(session, row.id, asker_id)
        if role not in MEMBER_ROLES:
            return ClubPage(_club(session, row, role))
        everyone = _members(session, row)
        pending = sum(m.role == "pending" for m in everyone)
        club = Club(number=row.number, name=row.name,
                    owner=next((m.username for m in everyone if m.role == "owner"), ""),
                    profile=row.profile, preset=json.loads(row.preset), notice=row.notice,
                    members=len(everyone) - pending, created_at=row.created_at, role=role,
                    pending=pending if role in ("owner", "admin") else 0)
        shown = tuple(m for m in everyone
                      if m.role != "pending" or role in ("owner", "admin"))
        return ClubPage(club, shown, tuple(_matches(session, row, 20)))


def standings(store: StoreCore, number: int, since: datetime | None = None, *,
              asker_id: int | None = None) -> list[ClubStanding]:
    """The club's standings (战绩榜): each present member's points over every hand he played
    at the club's tables (in matches opened ``since``, if given), most points first; with his
    hands, wins and matches.  Bots and players who left are not listed.  With ``asker_id``,
    only for a member (``not_member`` for anyone else)."""
    with store._read() as session:
        row = _club_row(session, number)
        if asker_id is not None and _role(session, row.id, asker_id) not in MEMBER_ROLES:
            raise ClubError("only the club's members see its standings", "not_member")
        # Driven from the club's matches (its index by club and time), then each hand's
        # rows: joined to the members first, SQLite walked every member's hands anywhere.
        query = (
            select(HandStatRow.account_id, func.sum(HandStatRow.points), func.count(),
                   func.sum(case((HandStatRow.won, 1), else_=0)),
                   func.count(func.distinct(HandRecordRow.match_id)))
            .select_from(ClubMatchRow)
            .join(HandRecordRow, HandRecordRow.match_id == ClubMatchRow.match_id)
            .join(HandStatRow, HandStatRow.record_id == HandRecordRow.id)
            .where(ClubMatchRow.club_id == row.id)
            .group_by(HandStatRow.account_id))
        if since is not None:
            query = query.where(ClubMatchRow.created_at >= since)
        names = dict(session.execute(
            select(AccountRow.id, AccountRow.username)
            .join(ClubMemberRow, ClubMemberRow.account_id == AccountRow.id)
            .where(ClubMemberRow.club_id == row.id, ClubMemberRow.role != "pending")).all())
        totals = [t for t in session.execute(query).all() if t[0] in names]
        ordered = sorted(totals, key=lambda t: (-int(t[1] or 0), -int(t[3] or 0),
                                                names.get(t[0], "")))
        out: list[ClubStanding] = []
        for k, (account_id, points, hands, wins, matches) in enumerate(ordered):
            rank = k + 1
            if out and out[-1].points == int(points or 0):
                rank = out[-1].rank  # equal points share a rank
            out.append(ClubStanding(rank=rank, username=names.get(account_id, ""),
                                    points=int(points or 0), hands=int(hands),
                                    wins=int(wins or 0), matches=int(matches)))
        return out


def _matches(session: Session, row: ClubRow, limit: int) -> list[ClubMatch]:
    rows = session.execute(
        select(MatchRow, ClubMatchRow.created_at)
        .join(ClubMatchRow, ClubMatchRow.match_id == MatchRow.match_id)
        .where(ClubMatchRow.club_id == row.id)
        .order_by(ClubMatchRow.created_at.desc(), MatchRow.match_id.desc())
        .limit(max(1, min(int(limit), RECENT_MAX)))).all()
    return [ClubMatch(match_id=match.match_id, status=match.status,
                      hands_done=match.hands_done,
                      hands=int(json.loads(match.config).get("hands", 0)),
                      results=seat_results(match.config, match.totals), created_at=created,
                      table_id=match.table_id)
            for match, created in rows]


def club_matches(store: StoreCore, number: int, limit: int = 20) -> list[ClubMatch]:
    """The club's latest matches (at most :data:`RECENT_MAX`), newest first, running ones
    included, with each seat's points so far."""
    with store._read() as session:
        return _matches(session, _club_row(session, number), limit)


def match_opened(session: Session, match_id: str, config: Mapping[str, Any]) -> None:
    """In the transaction that opens a match: a club table's match (its room options name
    the club) is written down for the club, once (a retried open writes nothing more).  A
    club dissolved meanwhile keeps nothing."""
    room = config.get("room")
    number = room.get("club") if isinstance(room, Mapping) else None
    if not isinstance(number, int) or isinstance(number, bool):
        return
    club_id = session.scalar(select(ClubRow.id).where(ClubRow.number == number))
    if club_id is None or session.get(ClubMatchRow, match_id) is not None:
        return
    session.add(ClubMatchRow(match_id=match_id, club_id=club_id, created_at=utcnow()))
