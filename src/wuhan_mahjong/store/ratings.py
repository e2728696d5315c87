"""Skill ratings per rule profile, for matches of four humans (openskill's Plackett-Luce).

The 24 level titles (:mod:`.levels`) measure how much someone has played; a
rating measures how well.  Each finished match whose four seats were all people
(guests included; a match with a bot seat is never rated) updates the four
players' ratings in its profile, once: :func:`rate_match` runs inside the
transaction that ends the match (:meth:`Store.end_match`), and the
``rated_results`` key (match, account) refuses a second rating of the same match.

Placing: the match's point totals decide the order (ties share a place); a
player who escaped (逃跑) is placed last whatever his points.  The shown rating
is openskill's ordinal ``mu - 3 sigma`` (a cautious estimate that only grows
with evidence) scaled to start at 1000: ``1000 + 40 (mu - 3 sigma)``.

Leaderboards (:func:`leaderboard`) rank registered, unbanned players of one
profile by that rating: ``all`` over everyone with at least ``min_matches``
rated matches, ``week`` over those with at least ``min_matches`` rated matches
since Monday 00:00 of the current week (in the time zone the caller names; the
server's ``timezone`` setting, UTC by default here).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta, tzinfo
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from .database import READ_ONLY
from .models import AccountRow, BanRow, MatchEventRow, MatchRow, RatedResultRow, RatingRow, utcnow

if TYPE_CHECKING:
    from .store import Store

__all__ = [
    "DISPLAY_ALPHA",
    "DISPLAY_TARGET",
    "HISTORY_POINTS",
    "MIN_MATCHES",
    "LeaderboardLine",
    "Period",
    "PublicPlayer",
    "PublicRating",
    "Rating",
    "RatingPoint",
    "display_rating",
    "leaderboard",
    "placings",
    "public_account",
    "public_player",
    "rate_match",
    "rating_history",
    "ratings_of",
    "registered_row",
    "week_start",
]

DISPLAY_ALPHA = 40.0
DISPLAY_TARGET = 1000.0
"""The shown rating is ``DISPLAY_TARGET + DISPLAY_ALPHA * (mu - 3 sigma)``: a new player has 1000."""

MIN_MATCHES = 5
"""Rated matches a player needs to appear on a leaderboard (per period)."""

HISTORY_POINTS = 100
"""Rated matches a player page's rating curve shows (the newest; one point each)."""

Period = Literal["all", "week"]


@cache
def _model() -> Any:
    """The openskill model (imported on first use: the ``[server]`` extra)."""
    from openskill.models import PlackettLuce

    return PlackettLuce()


def display_rating(mu: float, sigma: float) -> int:
    """The rating shown to players (openskill's ordinal, scaled; 1000 for a new player)."""
    return round(DISPLAY_TARGET + DISPLAY_ALPHA * (mu - 3.0 * sigma))


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's rating in one profile."""

    profile: str
    mu: float
    sigma: float
    matches: int

    @property
    def rating(self) -> int:
        return display_rating(self.mu, self.sigma)


@dataclass(frozen=True, slots=True)
class LeaderboardLine:
    rank: int
    account_id: int
    username: str
    rating: int
    mu: float
    sigma: float
    matches: int
    """Rated matches in the period (all time, or this week)."""


def placings(totals: Sequence[int], escaped: Sequence[bool]) -> list[int]:
    """Each seat's place, 1 = best: more points is better, an escaper is behind everyone
    who did not escape, equal results share a place.

    >>> placings([10, -5, -5, 0], [False, False, False, False])
    [1, 3, 3, 2]
    >>> placings([30, -10, -10, -10], [True, False, False, False])
    [4, 1, 1, 1]
    """
    keys = [(not gone, points) for points, gone in zip(totals, escaped, strict=True)]
    return [1 + sum(other > key for other in keys) for key in keys]


def _ordinal(mu: float, sigma: float) -> float:
    return mu - 3.0 * sigma


def rate_match(session: Session, match_id: str) -> bool:
    """Rate a finished match in ``session``'s transaction; ``False`` if it is not rated
    (a bot seat, not four seats, or rated already).  Locks the players' rating rows."""
    row = session.get(MatchRow, match_id)
    if row is None:
        return False
    config = json.loads(row.config)
    seats = config.get("seats") or []
    if (len(seats) != 4 or not all(isinstance(s, dict) for s in seats)
            or any(s.get("is_bot", True) for s in seats)):
        return False
    if session.scalar(select(RatedResultRow.account_id)
                      .where(RatedResultRow.match_id == match_id).limit(1)) is not None:
        return False
    profile = str(config["profile"])
    ids = [int(s["account_id"]) for s in seats]
    totals = [int(t) for t in json.loads(row.totals)]
    gone = set(session.scalars(select(MatchEventRow.seat).where(
        MatchEventRow.match_id == match_id, MatchEventRow.kind == "escape")))
    places = placings(totals, [seat in gone for seat in range(4)])
    model = _model()
    _ensure_rows(session, ids, profile, model)
    rows = {r.account_id: r for r in session.scalars(
        select(RatingRow).where(RatingRow.profile == profile, RatingRow.account_id.in_(ids))
        .order_by(RatingRow.account_id).with_for_update()
        .execution_options(populate_existing=True))}
    before = [model.rating(mu=rows[a].mu, sigma=rows[a].sigma) for a in ids]
    after = model.rate([[r] for r in before], ranks=places)
    now = utcnow()
    for seat, account_id in enumerate(ids):
        rating_row = rows[account_id]
        new = after[seat][0]
        session.add(RatedResultRow(
            match_id=match_id, account_id=account_id, profile=profile, place=places[seat],
            mu_before=rating_row.mu, sigma_before=rating_row.sigma, mu_after=float(new.mu),
            sigma_after=float(new.sigma), rated_at=now))
        rating_row.mu, rating_row.sigma = float(new.mu), float(new.sigma)
        rating_row.ordinal = _ordinal(rating_row.mu, rating_row.sigma)
        rating_row.matches += 1
        rating_row.updated_at = now
    return True


def _ensure_rows(session: Session, ids: Sequence[int], profile: str, model: Any) -> None:
    """Create the missing rating rows (a new player's prior); safe against a racing match end."""
    fresh = model.rating()
    values = [{"account_id": a, "profile": profile, "mu": float(fresh.mu),
               "sigma": float(fresh.sigma), "ordinal": _ordinal(fresh.mu, fresh.sigma),
               "matches": 0, "updated_at": utcnow()} for a in sorted(set(ids))]
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        session.execute(pg_insert(RatingRow).values(values).on_conflict_do_nothing())
    else:  # SQLite: writers are serialised by BEGIN IMMEDIATE
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        session.execute(sqlite_insert(RatingRow).values(values).on_conflict_do_nothing())


def _read_session(store: Store) -> Session:
    return Session(store.engine.execution_options(**{READ_ONLY: True}), expire_on_commit=False)


def ratings_of(store: Store, account_id: int) -> list[Rating]:
    """An account's ratings, one per profile it has rated matches in (by profile name)."""
    with _read_session(store) as session, session.begin():
        return [Rating(profile=r.profile, mu=r.mu, sigma=r.sigma, matches=r.matches)
                for r in session.scalars(select(RatingRow).where(
                    RatingRow.account_id == account_id, RatingRow.matches > 0)
                    .order_by(RatingRow.profile))]


@dataclass(frozen=True, slots=True)
class PublicRating:
    """One of a player's ratings as anyone may see it, with his place on the profile's
    all-time leaderboard (``None`` below :data:`MIN_MATCHES` rated matches)."""

    profile: str
    rating: int
    matches: int
    place: int | None
    history: tuple[RatingPoint, ...] = ()
    """His shown rating before his newest :data:`HISTORY_POINTS` rated matches and after
    each, oldest first: the curve of his page."""


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A shown rating (:func:`display_rating`) at a time: ``at`` is when the match that
    set it was rated (for the first point of a curve, the match after it)."""

    at: datetime
    rating: int


def rating_history(session: Session, account_id: int, profile: str,
                   points: int = HISTORY_POINTS) -> tuple[RatingPoint, ...]:
    """The shown rating before the account's newest ``points`` rated matches in ``profile``
    and after each of them, oldest first (empty without a rated match)."""
    rows = list(session.scalars(select(RatedResultRow).where(
        RatedResultRow.account_id == account_id, RatedResultRow.profile == profile)
        .order_by(RatedResultRow.rated_at.desc(), RatedResultRow.match_id.desc())
        .limit(points)))[::-1]
    if not rows:
        return ()
    first = RatingPoint(rows[0].rated_at, display_rating(rows[0].mu_before, rows[0].sigma_before))
    return (first, *(RatingPoint(r.rated_at, display_rating(r.mu_after, r.sigma_after))
                     for r in rows))


@dataclass(frozen=True, slots=True)
class PublicPlayer:
    """What anyone may see of a registered, unbanned player: no silver, no history."""

    account_id: int
    username: str
    points: int
    joined: datetime
    ratings: list[PublicRating]


def public_account(store: Store, session: Session, username: str) -> AccountRow | None:
    """The account ``username`` names (found as a login finds it: case and look-alikes
    folded) if it has a public page: registered and not banned.  A guest (a bot too), the
    house and a banned account have none, and are on no leaderboard; only an account with
    one can be followed (``store/social.py``).  Nor has a closed account
    (``store/closing.py``)."""
    account = store.account_by_username(username)
    return None if account is None else registered_row(session, account.id)


def registered_row(session: Session, account_id: int) -> AccountRow | None:
    """The account's row if it is a registered player in good standing: not a guest (nor
    a bot), not the house, not banned, not closed.  Such a player has a public page, may
    be followed and may enter tournaments."""
    row = session.get(AccountRow, account_id)
    if (row is None or row.is_guest or row.is_house or row.closed_at is not None
            or session.get(BanRow, account_id) is not None):
        return None
    return row


def public_player(store: Store, username: str, *,
                  min_matches: int = MIN_MATCHES) -> PublicPlayer | None:
    """The public page of ``username`` (:func:`public_account`), or ``None``."""
    with _read_session(store) as session, session.begin():
        account = public_account(store, session, username)
        if account is None:
            return None
        ratings = []
        for row in session.scalars(select(RatingRow).where(
                RatingRow.account_id == account.id, RatingRow.matches > 0)
                .order_by(RatingRow.profile)):
            place = None
            if row.matches >= min_matches:
                # those the leaderboard ranks before him: ordinal, then matches, then id
                ahead = _on_board(select(func.count()).select_from(RatingRow), row.profile,
                                  RatingRow.matches, min_matches).where(
                    or_(RatingRow.ordinal > row.ordinal,
                        and_(RatingRow.ordinal == row.ordinal,
                             or_(RatingRow.matches > row.matches,
                                 and_(RatingRow.matches == row.matches,
                                      RatingRow.account_id < row.account_id)))))
                place = 1 + int(session.scalar(ahead) or 0)
            ratings.append(PublicRating(profile=row.profile,
                                        rating=display_rating(row.mu, row.sigma),
                                        matches=row.matches, place=place,
                                        history=rating_history(session, account.id,
                                                               row.profile)))
        return PublicPlayer(account_id=account.id, username=account.username,
                            points=account.points, joined=account.created_at, ratings=ratings)


def _on_board(query: Any, profile: str, played: Any, min_matches: int) -> Any:
    """``query`` over the ratings a leaderboard of ``profile`` ranks: registered, unbanned,
    open players with at least ``min_matches`` (counted by ``played``: all time, or this week)."""
    return (query.join(AccountRow, AccountRow.id == RatingRow.account_id)
            .outerjoin(BanRow, BanRow.account_id == RatingRow.account_id)
            .where(RatingRow.profile == profile, played >= min_matches,
                   AccountRow.is_guest.is_(False), AccountRow.closed_at.is_(None),
                   BanRow.account_id.is_(None)))


def week_start(now: datetime, zone: tzinfo = UTC) -> datetime:
    """The start of ``now``'s week on the calendar of ``zone``: that Monday's midnight there,
    as a UTC time.

    >>> from zoneinfo import ZoneInfo
    >>> week_start(datetime(2026, 12, 6, 17, 0, tzinfo=UTC))  # a Sunday in UTC
    datetime.datetime(2026, 11, 30, 0, 0, tzinfo=datetime.timezone.utc)
    >>> week_start(datetime(2026, 12, 6, 17, 0, tzinfo=UTC), ZoneInfo("Asia/Shanghai"))
    datetime.datetime(2026, 12, 6, 16, 0, tzinfo=datetime.timezone.utc)
    """
    day = now.astimezone(zone).date()
    monday = day - timedelta(days=day.weekday())
    return datetime.combine(monday, time(0), tzinfo=zone).astimezone(UTC)


def leaderboard(store: Store, profile: str, period: Period = "all", *,
                min_matches: int = MIN_MATCHES, limit: int = 100,
                now: datetime | None = None, zone: tzinfo = UTC) -> list[LeaderboardLine]:
    """The best-rated registered, unbanned players of ``profile`` (see the module's doc);
    the week of ``"week"`` starts on Monday at midnight in ``zone``."""
    played: Any
    if period == "week":
        counted = (select(RatedResultRow.account_id, func.count().label("n"))
                   .where(RatedResultRow.profile == profile,
                          RatedResultRow.rated_at >= week_start(now or utcnow(), zone))
                   .group_by(RatedResultRow.account_id).subquery())
        played = counted.c.n
        query = (select(RatingRow, AccountRow.username, played)
                 .join(counted, counted.c.account_id == RatingRow.account_id))
    else:
        played = RatingRow.matches
        query = select(RatingRow, AccountRow.username, played)
    query = (_on_board(query, profile, played, min_matches)
             .order_by(RatingRow.ordinal.desc(), played.desc(), RatingRow.account_id)
             .limit(limit))
    with _read_session(store) as session, session.begin():
        rows = session.execute(query).all()
    return [LeaderboardLine(rank=k + 1, account_id=r.account_id, username=name,
                            rating=display_rating(r.mu, r.sigma), mu=r.mu, sigma=r.sigma,
                            matches=int(n))
            for k, (r, name, n) in enumerate(rows)]
