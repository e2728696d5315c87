"""Tournaments (比赛), as a club or a city runs them: registered players enter, the creator
starts it, and it plays ``rounds`` rounds of matches of ``hands`` hands; the first round's
tables are drawn at random, every later round seats the players by their standing (the
best four together, as a Swiss system does), and bots fill the seats of a table short of
four.  The standing is the points won over the tournament's matches, then the matches
won (first at the table, ties shared), then the earlier entry.

The database is the truth, so that a tournament survives any process's death and runs on
a cluster:

* starting a round writes its tables (``pending``) in the transaction that moves the
  tournament to that round (:func:`start`, :func:`advance`);
* a server node *claims* a pending table (``starting``, with its name and the time: one
  ``UPDATE`` that only one node can win, :func:`claim`) and starts its match; the
  transaction that opens the match (``Store.open_match``) marks the table ``running`` with
  its match id only if the claim is still that node's (:func:`match_opened`), so a node
  that froze after claiming and was overtaken starts nothing (:class:`ClaimLost`); a claim
  left ``starting`` longer than :data:`CLAIM_STALE` (its node died) is claimed again;
* the transaction that ends the match (``Store.end_match``) marks the table ``finished``
  or ``aborted`` (:func:`match_ended`); a match whose node died is resumed by the durable
  matches and ends the same way;
* :func:`advance` (every node calls it now and then) moves a tournament whose round's
  tables have all ended to its next round, or to ``finished`` after the last: under the
  tournament row's lock, so twice is once.

A tournament may also start by itself at a time its creator set (定时开赛, ``starts_at``):
:func:`advance` starts it then with the players entered, or calls it off if they are fewer
than :data:`PLAYERS_MIN`; until then its creator may still start it by hand.

A player entered in a tournament that is open or running waits for it: the lobby refuses
him a queue or a room (:func:`entered`); he may withdraw (:func:`withdraw`), and is then
seated no more.
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.orm import Session

from ..rules import PROFILES
from .core import shown_name
from .errors import StoreError
from .matchlog import seat_points, seat_results
from .models import (
    AccountRow,
    MatchRow,
    TournamentPlayerRow,
    TournamentRow,
    TournamentTableRow,
    utcnow,
)
from .ratings import registered_row

if TYPE_CHECKING:
    from .store import Store

__all__ = [
    "CAPACITY_MAX",
    "CLAIM_STALE",
    "HANDS_MAX",
    "NAME_MAX",
    "OPEN_FOR",
    "OPEN_PER_CREATOR",
    "PLAYERS_MIN",
    "ROUNDS_MAX",
    "START_LEAD",
    "ClaimLost",
    "ClaimedTable",
    "Standing",
    "Tournament",
    "TournamentDetail",
    "TournamentError",
    "TournamentTable",
    "active_players",
    "advance",
    "call_off",
    "cancel",
    "claim",
    "claimable",
    "create",
    "detail",
    "entered",
    "join",
    "listing",
    "match_ended",
    "match_opened",
    "release",
    "seat_round",
    "skip",
    "standings",
    "start",
    "withdraw",
]

NAME_MAX = 40
PLAYERS_MIN = 4
"""Registered players needed to start (bots fill short tables, never a whole tournament)."""
CAPACITY_MAX = 64
ROUNDS_MAX = 8
HANDS_MAX = 8
OPEN_PER_CREATOR = 3
"""Tournaments one player may have open (not yet started) at once."""
CLAIM_STALE = timedelta(seconds=60)
"""A table claimed this long ago and still not started: its node died; claim it again."""
START_LEAD = timedelta(minutes=5)
"""A start time is at least this far ahead when the tournament is created (time to enter)."""
OPEN_FOR = timedelta(days=7)
"""A tournament not started this long after its creation is called off (its entrants, who
may play nothing else meanwhile, are free again)."""

TournamentErrorCode = Literal["not_found", "closed", "full", "not_creator", "too_few", "too_many",
                    "bad_name", "bad_start", "invalid", "not_entered", "guest"]


class TournamentError(StoreError, ValueError):
    """A tournament request that cannot be: ``code`` says why (the API's error code)."""

    def __init__(self, message: str, code: TournamentErrorCode) -> None:
        super().__init__(message)
        self.code = code


class ClaimLost(StoreError):
    """The match of a tournament table was opened by a node whose claim was taken over:
    the transaction is rolled back, the other node's match is the table's."""


@dataclass(frozen=True, slots=True)
class Tournament:
    id: int
    name: str
    profile: str
    hands: int
    rounds: int
    capacity: int
    status: str
    round: int
    creator: str
    players: int
    """Entered and not withdrawn."""
    created_at: datetime
    starts_at: datetime | None = None
    """When it starts by itself (``None``: when its creator starts it)."""


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    account_id: int
    username: str
    points: int
    matches: int
    firsts: int
    withdrawn: bool


@dataclass(frozen=True, slots=True)
class TournamentTable:
    round: int
    table_no: int
    players: tuple[tuple[int, str], ...]
    status: str
    match_id: str | None
    table_id: str | None
    results: tuple[tuple[str, int], ...] = ()
    """Each seat's name and points, best first, once the table's match has ended."""


def _results(config: str | None, totals: str | None) -> tuple[tuple[str, int], ...]:
    """A match's seats (name, points), best first (none before it opened)."""
    if config is None or totals is None:
        return ()
    return seat_results(config, totals)


@dataclass(frozen=True, slots=True)
class TournamentDetail:
    tournament: Tournament
    standings: tuple[Standing, ...]
    """Every entered player, in standing order (all at 0 before the first match ends)."""
    tables: tuple[TournamentTable, ...]
    """Every round's tables so far, the latest round first."""


@dataclass(frozen=True, slots=True)
class ClaimedTable:
    """A table a node claimed and must start (or :func:`release`)."""

    tournament_id: int
    round: int
    table_no: int
    players: tuple[tuple[int, str], ...]
    profile: str
    hands: int
    rounds: int
    name: str


def seat_round(order: Sequence[int]) -> list[list[int]]:
    """The tables of one round: ``order`` (best first) cut into tables of four, as evenly
    as the numbers allow (bots fill the rest): 9 players sit 3-3-3, 10 sit 4-3-3, never a
    table of one when there are more players than a table holds.

    >>> seat_round([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    [[1, 2, 3, 4], [5, 6, 7], [8, 9, 10]]
    >>> seat_round([1, 2, 3, 4, 5])
    [[1, 2, 3], [4, 5]]
    """
    n = len(order)
    if n == 0:
        return []
    tables = -(-n // 4)
    base, extra = divmod(n, tables)
    out, at = [], 0
    for k in range(tables):
        size = base + (1 if k < extra else 0)
        out.append(list(order[at:at + size]))
        at += size
    return out


def _clean_name(name: str) -> str:
    text = shown_name(name, NAME_MAX)
    if text is None:
        raise TournamentError(f"a tournament's name has 1 to {NAME_MAX} visible characters",
                              "bad_name")
    return text


def _bounded(name: str, value: int, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise TournamentError(f"{name} must be a whole number from {low} to {high}", "invalid")
    return value


def _registered(session: Session, account_id: int) -> AccountRow:
    row = registered_row(session, account_id)
    if row is None:
        raise TournamentError("only registered players enter tournaments", "guest")
    return row


def create(store: Store, creator_id: int, name: str, profile: str, *, hands: int, rounds: int,
           capacity: int, starts_at: datetime | None = None,
           now: datetime | None = None) -> int:
    """Create an open tournament (the creator enters it too); its id.  ``starts_at``: when
    it starts by itself, :data:`START_LEAD` to :data:`OPEN_FOR` from now."""
    text = _clean_name(name)
    at = now or utcnow()
    if starts_at is not None:
        if starts_at.tzinfo is None:
            raise TournamentError("the start time needs its time zone", "bad_start")
        if not at + START_LEAD <= starts_at < at + OPEN_FOR:
            raise TournamentError(
                f"the start time is {int(START_LEAD.total_seconds() // 60)} minutes to "
                f"{OPEN_FOR.days} days ahead", "bad_start")
    if profile not in PROFILES:
        raise TournamentError(f"unknown profile {str(profile)[:32]!r}", "invalid")
    _bounded("hands", hands, 1, HANDS_MAX)
    _bounded("rounds", rounds, 1, ROUNDS_MAX)
    _bounded("capacity", capacity, PLAYERS_MIN, CAPACITY_MAX)
    with store._write() as session:
        _registered(session, creator_id)
        mine = session.scalar(select(func.count()).select_from(TournamentRow).where(
            TournamentRow.creator_id == creator_id, TournamentRow.status == "open")) or 0
        if mine >= OPEN_PER_CREATOR:
            raise TournamentError(f"you have {OPEN_PER_CREATOR} open tournaments already",
                                  "too_many")
        now = at
        row = TournamentRow(name=text, profile=profile, hands=hands, rounds=rounds,
                            capacity=capacity, status="open", round=0,
                            seed=secrets.token_hex(16), creator_id=creator_id,
                            created_at=now, updated_at=now, starts_at=starts_at)
        session.add(row)
        session.flush()
        session.add(TournamentPlayerRow(tournament_id=row.id, account_id=creator_id,
                                        joined_at=now, withdrawn=False))
        return int(row.id)


def _locked(session: Session, tournament_id: int) -> TournamentRow:
    row = session.scalar(select(TournamentRow).where(TournamentRow.id == tournament_id)
                         .with_for_update().execution_options(populate_existing=True))
    if row is None:
        raise TournamentError("no such tournament", "not_found")
    return row


def _active(session: Session, tournament_id: int) -> list[TournamentPlayerRow]:
    return list(session.scalars(
        select(TournamentPlayerRow).where(TournamentPlayerRow.tournament_id == tournament_id,
                                          TournamentPlayerRow.withdrawn.is_(False))
        .order_by(TournamentPlayerRow.joined_at, TournamentPlayerRow.account_id)))


def join(store: Store, tournament_id: int, account_id: int) -> None:
    """Enter an open tournament; idempotent.  (Withdrawing from an open one deletes the
    entry, so an open tournament has no withdrawn entries.)"""
    with store._write() as session:
        _registered(session, account_id)
        row = _locked(session, tournament_id)
        if row.status != "open":
            raise TournamentError("the tournament has started: no more entries", "closed")
        if session.get(TournamentPlayerRow, (tournament_id, account_id)) is not None:
            return
        if len(_active(session, tournament_id)) >= row.capacity:
            raise TournamentError(f"the tournament is full ({row.capacity} players)", "full")
        session.add(TournamentPlayerRow(tournament_id=tournament_id, account_id=account_id,
                                        joined_at=utcnow(), withdrawn=False))


def withdraw(store: Store, tournament_id: int, account_id: int) -> None:
    """Leave a tournament: before it starts the entry goes; once it runs he is seated no
    more (his matches so far stay in the standings)."""
    with store._write() as session:
        row = _locked(session, tournament_id)
        entry = session.get(TournamentPlayerRow, (tournament_id, account_id))
        if entry is None or entry.withdrawn:
            raise TournamentError("you are not in this tournament", "not_entered")
        if row.status == "open":
            session.delete(entry)
        elif row.status == "running":
            entry.withdrawn = True
        else:
            raise TournamentError("the tournament is over", "closed")


def call_off(store: Store, tournament_id: int) -> str:
    """An operator calls a tournament off, started or not (``admin tournament-cancel``):
    no table of it starts any more (the running ones play their matches out, counted for
    nothing further); its status before."""
    with store._write() as session:
        row = _locked(session, tournament_id)
        before = row.status
        if before in ("finished", "cancelled"):
            raise TournamentError(f"the tournament is {before} already", "closed")
        row.status, row.updated_at = "cancelled", utcnow()
        session.execute(update(TournamentTableRow)
                        .where(TournamentTableRow.tournament_id == tournament_id,
                               TournamentTableRow.status.in_(("pending", "starting")))
                        .values(status="aborted"))
        return before


def _creators_open(session: Session, tournament_id: int, account_id: int,
                   doing: str) -> TournamentRow:
    """The tournament's locked row, if ``account_id`` created it and it has not started."""
    row = _locked(session, tournament_id)
    if row.creator_id != account_id:
        raise TournamentError(f"only its creator {doing} a tournament", "not_creator")
    if row.status != "open":
        raise TournamentError("the tournament has started or is over", "closed")
    return row


def cancel(store: Store, tournament_id: int, account_id: int) -> None:
    """The creator calls off a tournament that has not started."""
    with store._write() as session:
        row = _creators_open(session, tournament_id, account_id, "calls off")
        row.status, row.updated_at = "cancelled", utcnow()


def _seat(session: Session, row: TournamentRow, order: Sequence[int]) -> None:
    """Write round ``row.round``'s tables for players in ``order`` (best first)."""
    for k, players in enumerate(seat_round(order)):
        session.add(TournamentTableRow(tournament_id=row.id, round=row.round, table_no=k,
                                       players=json.dumps(players), status="pending"))


def _begin(session: Session, row: TournamentRow) -> None:
    """Start the (locked, open) tournament: round 1 drawn at random, its tables waiting for
    a server to start them.  :class:`TournamentError` ``too_few`` below :data:`PLAYERS_MIN`."""
    players = sorted(p.account_id for p in _active(session, row.id))
    if len(players) < PLAYERS_MIN:
        raise TournamentError(f"a tournament needs {PLAYERS_MIN} players to start", "too_few")
    random.Random(f"{row.seed}:1").shuffle(players)
    row.status, row.round, row.updated_at = "running", 1, utcnow()
    _seat(session, row, players)


def start(store: Store, tournament_id: int, account_id: int) -> None:
    """The creator starts the tournament (at its start time or before)."""
    with store._write() as session:
        _begin(session, _creators_open(session, tournament_id, account_id, "starts"))


def _table_results(session: Session, tournament_id: int) -> list[tuple[dict[int, int], int]]:
    """Each ended table's points per human account, and its best total."""
    out = []
    rows = session.execute(
        select(MatchRow.config, MatchRow.totals)
        .join(TournamentTableRow, TournamentTableRow.match_id == MatchRow.match_id)
        .where(TournamentTableRow.tournament_id == tournament_id,
               TournamentTableRow.status.in_(("finished", "aborted"))))
    for config, totals in rows:
        seats = seat_points(config, totals)
        out.append(({s.account_id: s.points for s in seats if not s.is_bot},
                    max((s.points for s in seats), default=0)))
    return out


def _standings(session: Session, tournament_id: int) -> list[Standing]:
    entries = list(session.execute(
        select(TournamentPlayerRow, AccountRow.username)
        .join(AccountRow, AccountRow.id == TournamentPlayerRow.account_id)
        .where(TournamentPlayerRow.tournament_id == tournament_id)
        .order_by(TournamentPlayerRow.joined_at, TournamentPlayerRow.account_id)))
    points: dict[int, int] = {}
    matches: dict[int, int] = {}
    firsts: dict[int, int] = {}
    for table, best in _table_results(session, tournament_id):
        for account_id, p in table.items():
            points[account_id] = points.get(account_id, 0) + p
            matches[account_id] = matches.get(account_id, 0) + 1
            firsts[account_id] = firsts.get(account_id, 0) + (p == best)
    order = sorted(entries, key=lambda e: (-points.get(e[0].account_id, 0),
                                           -firsts.get(e[0].account_id, 0)))
    return [Standing(rank=k + 1, account_id=entry.account_id, username=str(name),
                     points=points.get(entry.account_id, 0),
                     matches=matches.get(entry.account_id, 0),
                     firsts=firsts.get(entry.account_id, 0), withdrawn=bool(entry.withdrawn))
            for k, (entry, name) in enumerate(order)]


def standings(store: Store, tournament_id: int) -> list[Standing]:
    with store._read() as session:
        return _standings(session, tournament_id)


def _start_due(store: Store, now: datetime) -> list[int]:
    """Start the open tournaments whose start time has come (or call off those with too few
    players); the ids started."""
    due = and_(TournamentRow.status == "open", TournamentRow.starts_at.is_not(None),
               TournamentRow.starts_at <= now)
    with store._read() as session:
        found = list(session.scalars(select(TournamentRow.id).where(due)))
    started = []
    for tournament_id in found:
        with store._write() as session:
            row = _locked(session, tournament_id)
            if row.status != "open":  # another node started it meanwhile
                continue
            try:
                _begin(session, row)  # refuses before it changes anything
                started.append(tournament_id)
            except TournamentError:  # too few players at the start time
                row.status, row.updated_at = "cancelled", utcnow()
    return started


def advance(store: Store, *, now: datetime | None = None) -> list[int]:
    """Start the tournaments whose start time has come (calling off those with too few
    players); move every running tournament whose round has ended on: to its next round
    (seated by standing), or to ``finished``; call off those left open longer than
    :data:`OPEN_FOR`.  The ids started or moved on."""
    now = now or utcnow()
    begun = _start_due(store, now)
    stale = and_(TournamentRow.status == "open", TournamentRow.created_at < now - OPEN_FOR)
    with store._read() as session:  # reads first: most looks find nothing to do
        expired = session.scalar(select(func.count()).select_from(TournamentRow).where(stale))
    if expired:
        with store._write() as session:
            session.execute(update(TournamentRow).where(stale)
                            .values(status="cancelled", updated_at=now))
    round_over = and_(TournamentRow.status == "running", ~select(TournamentTableRow.round)
                      .where(TournamentTableRow.tournament_id == TournamentRow.id,
                             TournamentTableRow.round == TournamentRow.round,
                             TournamentTableRow.status.not_in(("finished", "aborted")))
                      .exists())
    with store._read() as session:
        ready = list(session.scalars(select(TournamentRow.id).where(round_over)))
    moved = []
    for tournament_id in ready:
        with store._write() as session:
            row = _locked(session, tournament_id)  # then asked again, under the lock
            if session.scalar(select(TournamentRow.id)
                              .where(TournamentRow.id == tournament_id, round_over)) is None:
                continue
            order = [s.account_id for s in _standings(session, row.id) if not s.withdrawn]
            if row.round >= row.rounds or not order:
                row.status = "finished"
            else:
                row.round += 1
                _seat(session, row, order)
            row.updated_at = utcnow()
            moved.append(tournament_id)
    return begun + moved


def _claimable_clause(now: datetime) -> Any:
    return or_(TournamentTableRow.status == "pending",
               and_(TournamentTableRow.status == "starting",
                    TournamentTableRow.claimed_at < now - CLAIM_STALE))


def claimable(store: Store) -> list[tuple[int, int, int, tuple[int, ...]]]:
    """The tables waiting for a node: (tournament, round, table, its players' ids)."""
    now = utcnow()
    with store._read() as session:
        return [(int(t), int(r), int(k), tuple(int(a) for a in json.loads(p)))
                for t, r, k, p in session.execute(
                    select(TournamentTableRow.tournament_id, TournamentTableRow.round,
                           TournamentTableRow.table_no, TournamentTableRow.players)
                    .join(TournamentRow, TournamentRow.id == TournamentTableRow.tournament_id)
                    .where(_claimable_clause(now), TournamentRow.status == "running")
                    .order_by(TournamentTableRow.tournament_id, TournamentTableRow.round,
                              TournamentTableRow.table_no))]


def claim(store: Store, tournament_id: int, round_no: int, table_no: int,
          owner: str) -> ClaimedTable | None:
    """Claim a waiting table for node ``owner`` (``None``: another node has it)."""
    now = utcnow()
    with store._write() as session:
        won = session.execute(
            update(TournamentTableRow)
            .where(TournamentTableRow.tournament_id == tournament_id,
                   TournamentTableRow.round == round_no, TournamentTableRow.table_no == table_no,
                   _claimable_clause(now))
            .values(status="starting", owner=owner[:128], claimed_at=now))
        if not getattr(won, "rowcount", 0):
            return None
        table = session.get(TournamentTableRow, (tournament_id, round_no, table_no))
        row = session.get(TournamentRow, tournament_id)
        assert table is not None and row is not None
        ids = [int(a) for a in json.loads(table.players)]
        names = dict(session.execute(select(AccountRow.id, AccountRow.username)
                                     .where(AccountRow.id.in_(ids))).all())
        return ClaimedTable(tournament_id=tournament_id, round=round_no, table_no=table_no,
                            players=tuple((a, str(names.get(a, a))) for a in ids),
                            profile=row.profile, hands=row.hands, rounds=row.rounds,
                            name=row.name)


def _set_claimed(store: Store, claimed: ClaimedTable, claimer: str,
                 values: Mapping[str, Any]) -> None:
    """Change a table ``claimer`` still claims (nothing if another node took it over)."""
    with store._write() as session:
        session.execute(
            update(TournamentTableRow)
            .where(TournamentTableRow.tournament_id == claimed.tournament_id,
                   TournamentTableRow.round == claimed.round,
                   TournamentTableRow.table_no == claimed.table_no,
                   TournamentTableRow.status == "starting", TournamentTableRow.owner == claimer)
            .values(**values))


def release(store: Store, claimed: ClaimedTable, owner: str) -> None:
    """Give a claimed table back (its node could not start it now)."""
    _set_claimed(store, claimed, owner, {"status": "pending", "owner": None, "claimed_at": None})


def skip(store: Store, claimed: ClaimedTable, owner: str) -> None:
    """End a claimed table without a match: every player of it has withdrawn."""
    _set_claimed(store, claimed, owner, {"status": "aborted"})


def active_players(store: Store, tournament_id: int) -> set[int]:
    """The players of a tournament who have not withdrawn."""
    with store._read() as session:
        return {p.account_id for p in _active(session, tournament_id)}


def match_opened(session: Session, match_id: str, config: Mapping[str, Any],
                 owner: str | None) -> None:
    """In the transaction that opens a match: a tournament table's match (its configuration
    names it) becomes the table's, if the claim is still ``owner``'s (:class:`ClaimLost`)."""
    ref = config.get("tournament")
    if not isinstance(ref, dict):
        return
    key = (int(ref["id"]), int(ref["round"]), int(ref["table"]))
    table = session.get(TournamentTableRow, key)
    if table is not None and table.match_id == match_id:
        return  # a retried open whose first answer was lost
    done = session.execute(
        update(TournamentTableRow)
        .where(TournamentTableRow.tournament_id == int(ref["id"]),
               TournamentTableRow.round == int(ref["round"]),
               TournamentTableRow.table_no == int(ref["table"]),
               TournamentTableRow.status == "starting",
               TournamentTableRow.owner == (owner or "")[:128])
        .values(status="running", match_id=match_id))
    if not getattr(done, "rowcount", 0):
        raise ClaimLost(f"tournament table {ref} was claimed by another node")


def match_ended(session: Session, match_id: str, status: str) -> None:
    """In the transaction that ends a match: its tournament table (if any) ends too."""
    session.execute(update(TournamentTableRow)
                    .where(TournamentTableRow.match_id == match_id,
                           TournamentTableRow.status == "running")
                    .values(status=status))


def entered(store: Store, account_id: int) -> int | None:
    """The open or running tournament the account is entered in (not withdrawn), if any."""
    with store._read() as session:
        found = session.scalar(
            select(TournamentRow.id)
            .join(TournamentPlayerRow, TournamentPlayerRow.tournament_id == TournamentRow.id)
            .where(TournamentPlayerRow.account_id == account_id,
                   TournamentPlayerRow.withdrawn.is_(False),
                   TournamentRow.status.in_(("open", "running")))
            .order_by(TournamentRow.id).limit(1))
        return None if found is None else int(found)


def _summaries(session: Session, where: Any, limit: int) -> list[Tournament]:
    counts = (select(TournamentPlayerRow.tournament_id, func.count().label("n"))
              .where(TournamentPlayerRow.withdrawn.is_(False))
              .group_by(TournamentPlayerRow.tournament_id).subquery())
    rows = session.execute(
        select(TournamentRow, AccountRow.username, func.coalesce(counts.c.n, 0))
        .join(AccountRow, AccountRow.id == TournamentRow.creator_id)
        .outerjoin(counts, counts.c.tournament_id == TournamentRow.id)
        .where(where)
        .order_by(TournamentRow.created_at.desc(), TournamentRow.id.desc()).limit(limit))
    return [Tournament(id=t.id, name=t.name, profile=t.profile, hands=t.hands, rounds=t.rounds,
                       capacity=t.capacity, status=t.status, round=t.round, creator=str(c),
                       players=int(n), created_at=t.created_at, starts_at=t.starts_at)
            for t, c, n in rows]


def listing(store: Store, *, limit: int = 50) -> list[Tournament]:
    """Open and running tournaments, newest first, then the ones finished in the last week."""
    week = utcnow() - timedelta(days=7)
    with store._read() as session:
        live = _summaries(session, TournamentRow.status.in_(("open", "running")), limit)
        done = _summaries(session, and_(TournamentRow.status == "finished",
                                        TournamentRow.updated_at >= week), limit)
    return (live + done)[:limit]


def detail(store: Store, tournament_id: int) -> TournamentDetail | None:
    with store._read() as session:
        found = _summaries(session, TournamentRow.id == tournament_id, 1)
        if not found:
            return None
        rows = list(session.execute(
            select(TournamentTableRow, MatchRow.table_id, MatchRow.config, MatchRow.totals)
            .outerjoin(MatchRow, MatchRow.match_id == TournamentTableRow.match_id)
            .where(TournamentTableRow.tournament_id == tournament_id)
            .order_by(TournamentTableRow.round.desc(), TournamentTableRow.table_no)))
        ids = {int(a) for t, *_ in rows for a in json.loads(t.players)}
        names = dict(session.execute(select(AccountRow.id, AccountRow.username)
                                     .where(AccountRow.id.in_(sorted(ids)))).all())
        tables = tuple(TournamentTable(
            round=t.round, table_no=t.table_no,
            players=tuple((int(a), str(names.get(int(a), a))) for a in json.loads(t.players)),
            status=t.status, match_id=t.match_id, table_id=table_id,
            results=_results(config, totals) if t.status in ("finished", "aborted") else ())
            for t, table_id, config, totals in rows)
        return TournamentDetail(tournament=found[0], standings=tuple(_standings(session,
                                                                                tournament_id)),
                                tables=tables)
