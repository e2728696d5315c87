"""Following players (关注), as on lichess: a player follows others to see at a glance
whether they are online and at which table (``GET /api/following``); and blocking them
(屏蔽, ``GET /api/blocks``).

Following is one-way and needs no consent: it shows nothing a player's public page does
not (``GET /api/players/{name}``), so only those who have one can be followed (registered,
not banned).  Two players who follow each other are friends: only they may invite each
other into a room, so that following someone gives no way to send him anything.  A player
follows at most :data:`FOLLOW_MAX` others.  Following again, or unfollowing someone not
followed, changes nothing.

A player blocks another (one with a public page, as for following): every follow between
the two goes, and neither may follow the other while the block stands, so neither can invite
the other; the blocker's client hides the blocked player's quick chat at their tables.  A
follow refused for a block is refused as for nobody by that name: the blocked player is not
told.  A player blocks at most :data:`BLOCK_MAX` others.  Blocking again, or unblocking
someone not blocked, changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Literal

from sqlalchemy import and_, delete, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import InstrumentedAttribute, Session

from .errors import StoreError
from .models import AccountRow, BanRow, BlockRow, FollowRow, utcnow
from .ratings import public_account

if TYPE_CHECKING:
    from .store import Store

__all__ = ["BLOCK_MAX", "FOLLOW_MAX", "FollowError", "block", "blocked", "follow",
           "followers_among", "following", "unblock", "unfollow"]

FOLLOW_MAX = 200
"""The most players one account follows (a bound on the list's size and its page)."""
BLOCK_MAX = 500
"""The most players one account blocks."""


class FollowError(StoreError):
    """A follow that cannot be: ``code`` is ``not_found`` (nobody followable by that name),
    ``self`` or ``too_many`` (:data:`FOLLOW_MAX` already)."""

    def __init__(self, message: str, code: Literal["not_found", "self", "too_many"]) -> None:
        super().__init__(message)
        self.code = code


def _relate(store: Store, actor_id: int, username: str, *, verb: str, most: int,
            model: type[FollowRow] | type[BlockRow], actor: InstrumentedAttribute[int],
            before: Callable[[Session, int], None],
            make: Callable[[int], FollowRow | BlockRow]) -> str:
    """Add ``make(target_id)``, the row of ``model`` keyed (``actor_id``, the player
    ``username``, one with a public page): a follow or a block.  ``before(session,
    target_id)`` runs first (it may refuse); an existing row changes nothing; at most
    ``most`` rows per ``actor``.  His username."""
    name = ""
    try:
        with store._write() as session:
            target = public_account(store, session, username)
            if target is None:
                raise FollowError("no such player", "not_found")
            name = target.username
            if target.id == actor_id:
                raise FollowError(f"one cannot {verb} oneself", "self")
            before(session, target.id)
            if session.get(model, (actor_id, target.id)) is not None:
                return name
            count = session.scalar(select(func.count()).select_from(model)
                                   .where(actor == actor_id)) or 0
            if count >= most:
                raise FollowError(f"you {verb} {most} players already", "too_many")
            session.add(make(target.id))
    except IntegrityError:  # the same row, committed by a request at the same moment
        if not name:
            raise
    return name


def follow(store: Store, follower_id: int, username: str) -> str:
    """Follow ``username`` (one with a public page, :func:`~.ratings.public_account`);
    his username."""
    def not_blocked(session: Session, target_id: int) -> None:
        if _blocked_between(session, follower_id, target_id):  # said as for nobody
            raise FollowError("no such player", "not_found")

    return _relate(store, follower_id, username, verb="follow", most=FOLLOW_MAX,
                   model=FollowRow, actor=FollowRow.follower_id, before=not_blocked,
                   make=lambda target: FollowRow(follower_id=follower_id, followee_id=target,
                                                 created_at=utcnow()))


def unfollow(store: Store, follower_id: int, username: str) -> bool:
    """Stop following ``username``; whether he was followed."""
    account = store.account_by_username(username)
    if account is None:
        return False
    with store._write() as session:
        gone = session.execute(delete(FollowRow).where(FollowRow.follower_id == follower_id,
                                                       FollowRow.followee_id == account.id))
        return bool(getattr(gone, "rowcount", 0))


def followers_among(store: Store, account_id: int, candidates: Collection[int]) -> set[int]:
    """Which of ``candidates`` follow ``account_id``.  Asked both ways it says whether two
    players are friends, who may invite each other into a room (``server/invite.py``)."""
    if not candidates:
        return set()
    query = select(FollowRow.follower_id).where(FollowRow.followee_id == account_id,
                                                FollowRow.follower_id.in_(list(candidates)))
    with store._read() as session:
        return {int(a) for a in session.scalars(query)}


def following(store: Store, follower_id: int) -> list[tuple[int, str]]:
    """The players ``follower_id`` follows, as (account id, username) by name; a banned
    one drops out (and comes back if the ban is lifted)."""
    query = (select(AccountRow.id, AccountRow.username)
             .join(FollowRow, FollowRow.followee_id == AccountRow.id)
             .outerjoin(BanRow, BanRow.account_id == AccountRow.id)
             .where(FollowRow.follower_id == follower_id, BanRow.account_id.is_(None))
             .order_by(AccountRow.username_key, AccountRow.id))
    with store._read() as session:
        return [(int(i), str(n)) for i, n in session.execute(query)]


def _blocked_between(session: Session, one: int, other: int) -> bool:
    """Whether either of the two blocks the other."""
    return session.scalar(select(BlockRow.blocker_id).where(or_(
        and_(BlockRow.blocker_id == one, BlockRow.blocked_id == other),
        and_(BlockRow.blocker_id == other, BlockRow.blocked_id == one))).limit(1)) is not None


def block(store: Store, blocker_id: int, username: str) -> str:
    """Block ``username`` (one with a public page); his username.  Every follow between the
    two goes.  :class:`FollowError` ``not_found``, ``self`` or ``too_many``."""
    def end_follows(session: Session, target_id: int) -> None:
        session.execute(delete(FollowRow).where(or_(
            and_(FollowRow.follower_id == blocker_id, FollowRow.followee_id == target_id),
            and_(FollowRow.follower_id == target_id, FollowRow.followee_id == blocker_id))))

    return _relate(store, blocker_id, username, verb="block", most=BLOCK_MAX, model=BlockRow,
                   actor=BlockRow.blocker_id, before=end_follows,
                   make=lambda target: BlockRow(blocker_id=blocker_id, blocked_id=target,
                                                created_at=utcnow()))


def unblock(store: Store, blocker_id: int, username: str) -> bool:
    """Lift a block of ``username``; whether there was one."""
    account = store.account_by_username(username)
    if account is None:
        return False
    with store._write() as session:
        gone = session.execute(delete(BlockRow).where(BlockRow.blocker_id == blocker_id,
                                                      BlockRow.blocked_id == account.id))
        return bool(getattr(gone, "rowcount", 0))


def blocked(store: Store, blocker_id: int) -> list[tuple[int, str]]:
    """The players ``blocker_id`` blocks, as (account id, username) by name."""
    query = (select(AccountRow.id, AccountRow.username)
             .join(BlockRow, BlockRow.blocked_id == AccountRow.id)
             .where(BlockRow.blocker_id == blocker_id)
             .order_by(AccountRow.username_key, AccountRow.id))
    with store._read() as session:
        return [(int(i), str(n)) for i, n in session.execute(query)]
