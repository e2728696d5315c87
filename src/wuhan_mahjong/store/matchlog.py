"""The durable match log: what a running match needs to survive a crash or a restart.

A table writes its match here *before* any player sees a result (write-ahead):

* :func:`open_match` once, when the table starts: the match's secret ``seed``
  (its walls, salts and first dealer derive from it; never sent to a client),
  and the ``config`` (rules, room options, seats) as JSON.
* :func:`append_events` for every batch of changes: each applied action with
  who chose it (the player, a timeout, auto-play, a bot), each escape, each
  auto-play switch, each deal.  :func:`append_many` writes the appends of many
  matches in one transaction (a node's group commit, ``server/match_writer.py``),
  each guarded and answered on its own.
* :func:`finish_hand` when a hand ends: the hand's audit record, its silver
  settlement (game id ``"<match id>/<hand no>"``) and the match's running
  totals, in one transaction.  Settling twice is impossible: the settlement's
  primary key and the record's (match id, hand no) key make a second call a
  no-op, whatever crashed when.
* :func:`end_match` when the match is over (``finished``) or stopped on an
  error (``aborted``).

A process that starts rebuilds every ``running`` match from :func:`load_match`
by replaying the events through the engine (no second state format), after
:func:`claim_match` raised the match's fencing ``epoch``: every later write of
an older epoch (a process that lost the match) fails with :class:`MatchFenced`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, text, update
from sqlalchemy.orm import Session

from .errors import StoreError
from .models import GAME_ID_MAX, MatchEventRow, MatchRow, storable_game_id, utcnow

__all__ = [
    "EVENT_KINDS",
    "MATCH_STATUSES",
    "LoggedMatch",
    "MatchAppend",
    "MatchEvent",
    "MatchFenced",
    "MatchLogError",
    "SeatPoints",
    "append_events",
    "append_many",
    "applied_actions",
    "claim_match",
    "end_match",
    "fee_game_id",
    "hand_game_id",
    "load_match",
    "lock_running",
    "match_epoch",
    "open_match",
    "running_match_ids",
    "running_match_owners",
    "seat_points",
    "seat_results",
    "window_answers",
    "window_data",
]

EVENT_KINDS = ("deal", "act", "window", "escape", "auto", "end")
"""``deal``: a hand was dealt (data: its commitment); ``act``: an action applied to the
engine (data: the action's JSON; source: who chose it); ``window``: the answers to a claim,
robbing or final-draw window, applied together when it closed (data: a JSON list of
``[seat, action, source]`` in the order applied); ``escape``: a seat left;
``auto``: a seat's auto-play (托管) switched (data: ``"on"`` / ``"off"``); ``end``: the
match ends early, after the hand in progress (an abandoned table, or every player
escaped; data: the match's new number of hands)."""

MATCH_STATUSES = ("running", "finished", "aborted")


class MatchLogError(StoreError):
    """A misuse of the log: an unknown or ended match, a gap in the sequence numbers."""


class MatchFenced(MatchLogError):
    """The match was claimed by another process (a newer epoch): stop writing to it."""

    def __init__(self, match_id: str, epoch: int) -> None:
        super().__init__(f"match {match_id} is no longer run by epoch {epoch}")
        self.match_id = match_id
        self.epoch = epoch


@dataclass(frozen=True, slots=True)
class MatchEvent:
    """One entry of a match's log."""

    seq: int
    hand_no: int
    kind: str
    seat: int | None = None
    data: str | None = None
    source: str | None = None


def window_data(answers: Sequence[tuple[int, Any, str | None]]) -> str:
    """The ``data`` of a ``window`` event: its answers as ``(seat, action JSON, source)``
    in the order they were applied."""
    return json.dumps([list(a) for a in answers], separators=(",", ":"))


def window_answers(ev: MatchEvent) -> list[tuple[int, dict[str, Any], str | None]]:
    """A ``window`` event's answers, decoded and checked: ``(seat, action JSON, source)``
    in the order they were applied.  Raises ``ValueError`` for a malformed window."""
    answers = json.loads(ev.data or "")
    if not isinstance(answers, list):
        raise ValueError(f"event {ev.seq}: a window's data must be a list")
    out: list[tuple[int, dict[str, Any], str | None]] = []
    for answer in answers:
        if not (isinstance(answer, list) and len(answer) == 3 and type(answer[0]) is int
                and isinstance(answer[1], dict)
                and (answer[2] is None or isinstance(answer[2], str))):
            raise ValueError(f"event {ev.seq}: a window's answer must be "
                             f"[seat, action, source], not {answer!r}")
        out.append((answer[0], answer[1], answer[2]))
    return out


def applied_actions(events: Sequence[MatchEvent]) -> list[MatchEvent]:
    """``events`` with each ``window`` event spelled out as one ``act`` event per answer
    (each keeps the window's ``seq`` and ``hand_no``): every action the engine was given,
    in order, whichever form the log stored it in.  Raises ``ValueError`` for a
    malformed window."""
    out: list[MatchEvent] = []
    for ev in events:
        if ev.kind != "window":
            out.append(ev)
            continue
        for seat, action, source in window_answers(ev):
            out.append(MatchEvent(seq=ev.seq, hand_no=ev.hand_no, kind="act", seat=seat,
                                  data=json.dumps(action, separators=(",", ":")),
                                  source=source))
    return out


@dataclass(frozen=True, slots=True)
class MatchAppend:
    """The events one match appends (:func:`append_many`)."""

    match_id: str
    epoch: int
    events: Sequence[MatchEvent]


@dataclass(frozen=True, slots=True)
class LoggedMatch:
    """A match as stored: its row and (from :func:`load_match`) its events in order."""

    match_id: str
    table_id: str
    status: str
    seed: str
    config: Mapping[str, Any]
    hands_done: int
    totals: tuple[int, ...]
    next_seq: int
    epoch: int
    owner: str | None
    reason: str | None
    events: tuple[MatchEvent, ...] = field(default=(), repr=False)


@dataclass(frozen=True, slots=True)
class SeatPoints:
    """One seat of a stored match with its points so far."""

    account_id: int
    name: str
    is_bot: bool
    points: int


def seat_points(config: str, totals: str) -> list[SeatPoints]:
    """A match's seats with their points, from its stored configuration and totals."""
    points = [int(p) for p in json.loads(totals)]
    return [SeatPoints(int(s["account_id"]), str(s.get("name")), bool(s.get("is_bot")),
                       points[k])
            for k, s in enumerate(json.loads(config).get("seats", [])) if k < len(points)]


def seat_results(config: str, totals: str) -> tuple[tuple[str, int], ...]:
    """A match's seats as (name, points), best first: what a tournament's table and a
    club's list of matches show."""
    seats = sorted(seat_points(config, totals), key=lambda s: -s.points)
    return tuple((s.name, s.points) for s in seats)


def hand_game_id(match_id: str, hand_no: int) -> str:
    """The settlement id of one hand: ``"<match id>/<hand no>"`` (also the replay link)."""
    return f"{match_id}/{hand_no}"


def fee_game_id(match_id: str) -> str:
    """The settlement id of the service fee of a match that ended early: ``"<match id>/fee"``
    (a match played to its end pays the fee with its last hand's settlement instead)."""
    return f"{match_id}/fee"


def _check_match_id(match_id: str) -> None:
    # Leave room for "/<hand no>" and "#escape<seat>" in the settlement ids.
    if (not isinstance(match_id, str) or not 1 <= len(match_id) <= GAME_ID_MAX - 16
            or not storable_game_id(match_id)):
        raise MatchLogError(f"a match id has 1 to {GAME_ID_MAX - 16} characters and no NUL")


def _logged(row: MatchRow, events: Sequence[MatchEventRow] = ()) -> LoggedMatch:
    return LoggedMatch(
        match_id=row.match_id, table_id=row.table_id, status=row.status, seed=row.seed,
        config=json.loads(row.config), hands_done=row.hands_done,
        totals=tuple(json.loads(row.totals)), next_seq=row.next_seq, epoch=row.epoch,
        owner=row.owner, reason=row.reason,
        events=tuple(MatchEvent(seq=e.seq, hand_no=e.hand_no, kind=e.kind, seat=e.seat,
                                data=e.data, source=e.source) for e in events))


def open_match(session: Session, match_id: str, table_id: str, seed: str,
               config: Mapping[str, Any], owner: str | None) -> int:
    """Create the row of a new match (status ``running``, epoch 1); returns the epoch.

    A retry of an open whose ``COMMIT`` answer was lost finds its own row (the same
    table, seed, configuration and owner, epoch 1, nothing logged yet) and gets the first
    answer; any other row of that id is refused (:class:`MatchLogError`)."""
    _check_match_id(match_id)
    now = utcnow()
    config_text = json.dumps(dict(config), separators=(",", ":"))
    found = session.scalar(select(MatchRow).where(MatchRow.match_id == match_id)
                           .with_for_update().execution_options(populate_existing=True))
    if found is not None:
        if (found.table_id, found.seed, found.config, found.owner, found.status, found.epoch,
                found.next_seq) == (table_id, seed, config_text, owner, "running", 1, 0):
            return 1
        raise MatchLogError(f"match {match_id} exists already")
    session.add(MatchRow(match_id=match_id, table_id=table_id, status="running", seed=seed,
                         config=config_text, hands_done=0,
                         totals="[0,0,0,0]", next_seq=0, epoch=1, owner=owner, reason=None,
                         created_at=now, updated_at=now))
    session.flush()
    return 1


def lock_running(session: Session, match_id: str, epoch: int) -> MatchRow:
    """Lock a running match's row for this transaction; :class:`MatchFenced` if the epoch
    is not the match's current one, :class:`MatchLogError` if it is not running."""
    row = session.scalar(select(MatchRow).where(MatchRow.match_id == match_id)
                         .with_for_update().execution_options(populate_existing=True))
    return _running(row, match_id, epoch)


def _running(row: MatchRow | None, match_id: str, epoch: int) -> MatchRow:
    """``row`` if it is the running match at ``epoch``; else why not."""
    if row is None:
        raise MatchLogError(f"no match {match_id}")
    if row.epoch != epoch:
        raise MatchFenced(match_id, epoch)
    if row.status != "running":
        raise MatchLogError(f"match {match_id} has ended ({row.status})")
    return row


_ADVANCE = (
    update(MatchRow)
    .where(MatchRow.match_id == bindparam("m_id"), MatchRow.epoch == bindparam("m_epoch"),
           MatchRow.status == "running", MatchRow.next_seq == bindparam("m_first"))
    .values(next_seq=bindparam("m_next"), updated_at=bindparam("m_now")))
_INSERT_EVENTS = insert(MatchEventRow)
"""The statements of :func:`append_events`, built once: Core statements run on the
session's connection, so a call costs the SQL and little else (building the statements
and the ORM's bulk path on every call were most of its CPU: 0.61 → 0.3 ms per append
of three events on SQLite)."""


def _check_events(match_id: str, events: Sequence[MatchEvent]) -> None:
    first = events[0].seq
    for i, ev in enumerate(events):
        if ev.seq != first + i:
            raise MatchLogError(f"match {match_id}: event seqs must be consecutive")
        if ev.kind not in EVENT_KINDS:
            raise MatchLogError(f"unknown match event kind {ev.kind!r}")


def _advance(connection: Connection, match_id: str, epoch: int, events: Sequence[MatchEvent],
             now: datetime) -> bool:
    """The guarded ``UPDATE`` of an append (also locks the row); whether it held."""
    first = events[0].seq
    done = connection.execute(_ADVANCE, {"m_id": match_id, "m_epoch": epoch, "m_first": first,
                                         "m_next": first + len(events), "m_now": now})
    return bool(done.rowcount == 1)


def _rows(match_id: str, events: Sequence[MatchEvent], now: datetime) -> list[dict[str, Any]]:
    return [{"match_id": match_id, "seq": ev.seq, "hand_no": ev.hand_no, "kind": ev.kind,
             "seat": ev.seat, "data": ev.data, "source": ev.source, "created_at": now}
            for ev in events]


def _refused(session: Session, match_id: str, epoch: int,
             events: Sequence[MatchEvent]) -> int | MatchLogError:
    """Why the guard of an append failed: the match is fenced, ended, unknown, or the
    append's first ``seq`` is not the match's next one.

    Except when the append is already written, exactly: a retry of a committed append
    whose answer was lost (the connection dropped during the ``COMMIT``; the writer then
    writes its batch again one append at a time).  Then the match's new ``next_seq``, as
    the first write would have answered: only the match's owner at this epoch writes its
    log, so events stored under the same ``seq`` with the same content are this append's.
    """
    first = events[0].seq
    try:
        row = lock_running(session, match_id, epoch)
    except MatchLogError as exc:
        return exc
    end = first + len(events)
    if row.next_seq == end:
        stored = session.execute(
            select(MatchEventRow.seq, MatchEventRow.hand_no, MatchEventRow.kind,
                   MatchEventRow.seat, MatchEventRow.data, MatchEventRow.source)
            .where(MatchEventRow.match_id == match_id, MatchEventRow.seq >= first,
                   MatchEventRow.seq < end)
            .order_by(MatchEventRow.seq)).all()
        if [tuple(r) for r in stored] == [
                (e.seq, e.hand_no, e.kind, e.seat, e.data, e.source) for e in events]:
            return end
    return MatchLogError(f"match {match_id}: event {first} given, {row.next_seq} expected")


def append_events(session: Session, match_id: str, epoch: int,
                  events: Sequence[MatchEvent]) -> int:
    """Append events (consecutive ``seq`` from the match's ``next_seq``); the new next_seq.

    The hot path of every table: one guarded ``UPDATE`` (epoch, status and the first
    ``seq`` must match, which also locks the row) and one multi-row ``INSERT``, no ORM
    unit of work, in the caller's transaction.  When the guard fails, the row says why.
    """
    if not events:
        row = lock_running(session, match_id, epoch)
        return row.next_seq
    _check_events(match_id, events)
    now = utcnow()
    connection = session.connection()
    if not _advance(connection, match_id, epoch, events, now):
        refused = _refused(session, match_id, epoch, events)
        if isinstance(refused, MatchLogError):
            raise refused
        return refused  # written already: a retry whose first answer was lost
    connection.execute(_INSERT_EVENTS, _rows(match_id, events, now))
    return events[0].seq + len(events)


_APPEND_MANY_PG = text("""
WITH v AS (
  SELECT * FROM unnest(CAST(:ids AS text[]), CAST(:epochs AS integer[]),
                       CAST(:firsts AS integer[]), CAST(:nexts AS integer[])) AS v(id, ep, fst, nxt)
), advanced AS (
  UPDATE matches AS m SET next_seq = v.nxt, updated_at = CAST(:now AS timestamptz) FROM v
  WHERE m.match_id = v.id AND m.epoch = v.ep AND m.status = 'running' AND m.next_seq = v.fst
  RETURNING m.match_id
), written AS (
  INSERT INTO match_events (match_id, seq, hand_no, kind, seat, data, source, created_at)
  SELECT e.id, e.seq, e.hand_no, e.kind, e.seat, e.data, e.source, CAST(:now AS timestamptz)
  FROM unnest(CAST(:e_ids AS text[]), CAST(:e_seqs AS integer[]), CAST(:e_hands AS integer[]),
              CAST(:e_kinds AS text[]), CAST(:e_seats AS integer[]), CAST(:e_data AS text[]),
              CAST(:e_sources AS text[])) AS e(id, seq, hand_no, kind, seat, data, source)
  WHERE e.id IN (SELECT match_id FROM advanced)
)
SELECT match_id FROM advanced
""")
""":func:`append_many` on PostgreSQL: every guarded ``UPDATE`` and the ``INSERT`` of the
events of the matches whose guard held, in one statement of constant text (arrays as
parameters, so psycopg prepares it once per connection): a batch costs one round trip
whatever its size (with an ``UPDATE`` and an ``INSERT`` per match, PostgreSQL's CPU per
append was about 1.7 times as much at 20 appends a batch, the node's 2.4 times)."""


def append_many(session: Session, appends: Sequence[MatchAppend]) -> list[int | MatchLogError]:
    """The appends of several matches in the caller's transaction (group commit): for each,
    in order, the match's new ``next_seq`` or the :class:`MatchLogError` (:class:`MatchFenced`
    for a fenced match) that :func:`append_events` would have raised for it alone.

    A refused append writes nothing and leaves the others as they are: each is guarded on
    its own (epoch, status and first ``seq``; a guard that fails changes no row and does
    not spoil the transaction), and the events of all whose guard held are inserted
    together.  A match appears at most once (``ValueError`` otherwise: its second append
    would be guarded against the first one's ``seq``, in the same statement).
    """
    if len({a.match_id for a in appends}) != len(appends):
        raise ValueError("append_many: a match appears more than once")
    results: list[int | MatchLogError | None] = []
    todo: list[tuple[int, MatchAppend]] = []
    for i, a in enumerate(appends):
        try:
            if not a.events:
                results.append(lock_running(session, a.match_id, a.epoch).next_seq)
                continue
            _check_events(a.match_id, a.events)
        except MatchLogError as exc:
            results.append(exc)
            continue
        results.append(None)
        todo.append((i, a))
    if todo:
        now = utcnow()
        connection = session.connection()
        if connection.dialect.name == "postgresql" and len(todo) > 1:
            advanced = _advance_many_pg(connection, [a for _, a in todo], now)
        else:  # SQLite, or one append: the statements of append_events, match after match
            advanced = set()
            rows: list[dict[str, Any]] = []
            for _, a in todo:
                if _advance(connection, a.match_id, a.epoch, a.events, now):
                    advanced.add(a.match_id)
                    rows += _rows(a.match_id, a.events, now)
            if rows:
                connection.execute(_INSERT_EVENTS, rows)
        for i, a in todo:
            first = a.events[0].seq
            results[i] = (first + len(a.events) if a.match_id in advanced
                          else _refused(session, a.match_id, a.epoch, a.events))
    return [r for r in results if r is not None]


def _advance_many_pg(connection: Connection, appends: Sequence[MatchAppend],
                     now: datetime) -> set[str]:
    """:data:`_APPEND_MANY_PG`: the ids of the matches whose guard held (and whose events
    are now inserted)."""
    events = [(a.match_id, ev) for a in appends for ev in a.events]
    done = connection.execute(_APPEND_MANY_PG, {
        "now": now,
        "ids": [a.match_id for a in appends], "epochs": [a.epoch for a in appends],
        "firsts": [a.events[0].seq for a in appends],
        "nexts": [a.events[0].seq + len(a.events) for a in appends],
        "e_ids": [m for m, _ in events], "e_seqs": [ev.seq for _, ev in events],
        "e_hands": [ev.hand_no for _, ev in events], "e_kinds": [ev.kind for _, ev in events],
        "e_seats": [ev.seat for _, ev in events], "e_data": [ev.data for _, ev in events],
        "e_sources": [ev.source for _, ev in events]})
    return set(done.scalars())


def set_progress(row: MatchRow, hands_done: int, totals: Sequence[int]) -> None:
    """Note finished hands and totals on a locked match row (never moves backwards)."""
    if hands_done > row.hands_done:
        row.hands_done = hands_done
        row.totals = json.dumps(list(totals), separators=(",", ":"))
    row.updated_at = utcnow()


def end_match(session: Session, match_id: str, epoch: int, status: str,
              reason: str | None) -> None:
    """Mark a running match ``finished`` or ``aborted`` (with the reason players were told).

    A retry of an end whose ``COMMIT`` answer was lost (the same epoch, status and reason)
    is answered as done; a match ended otherwise stays refused."""
    if status not in ("finished", "aborted"):
        raise MatchLogError(f"a match ends finished or aborted, not {status!r}")
    found = session.scalar(select(MatchRow).where(MatchRow.match_id == match_id)
                           .with_for_update().execution_options(populate_existing=True))
    if found is not None and (found.epoch, found.status, found.reason) == (epoch, status, reason):
        return
    row = _running(found, match_id, epoch)  # locked by the select above
    row.status = status
    row.reason = reason
    row.updated_at = utcnow()


def running_match_ids(session: Session) -> list[str]:
    return list(session.scalars(select(MatchRow.match_id).where(MatchRow.status == "running")
                                .order_by(MatchRow.created_at, MatchRow.match_id)))


def running_match_owners(session: Session) -> list[tuple[str, str | None]]:
    """(match id, owner) of every running match: a cluster node takes over those whose
    owner is gone (``server/cluster.py``)."""
    rows = session.execute(select(MatchRow.match_id, MatchRow.owner)
                           .where(MatchRow.status == "running")
                           .order_by(MatchRow.created_at, MatchRow.match_id))
    return [(m, o) for m, o in rows]


def claim_match(session: Session, match_id: str, owner: str | None) -> int:
    """Take over a running match: raise its epoch (fencing out any older runner)."""
    row = session.scalar(select(MatchRow).where(MatchRow.match_id == match_id).with_for_update())
    if row is None or row.status != "running":
        raise MatchLogError(f"match {match_id} is not running")
    epoch = row.epoch + 1
    session.execute(update(MatchRow).where(MatchRow.match_id == match_id)
                    .values(epoch=epoch, owner=owner, updated_at=utcnow()))
    return epoch


def match_epoch(session: Session, match_id: str) -> int | None:
    """A match's current fencing epoch (``None`` if unknown)."""
    epoch: int | None = session.scalar(select(MatchRow.epoch)
                                       .where(MatchRow.match_id == match_id))
    return epoch


def load_match(session: Session, match_id: str) -> LoggedMatch | None:
    """A match's row and all its events in order (``None`` if unknown)."""
    row = session.get(MatchRow, match_id)
    if row is None:
        return None
    events = session.scalars(select(MatchEventRow).where(MatchEventRow.match_id == match_id)
                             .order_by(MatchEventRow.seq)).all()
    return _logged(row, events)
