"""Tournaments on the server (比赛): the HTTP API, and the runner that starts their tables.

::

    GET  /api/tournaments                          → {tournaments: [summary]}
    POST /api/tournaments  {name, profile, hands, rounds, capacity, starts_at?}
                                                    (token) → 201 {id}
    GET  /api/tournaments/{id}                     → {tournament, standings, tables,
                                                      entered, creator}
    POST /api/tournaments/{id}/join | withdraw | start | cancel      (token) → {ok}

The rules of a tournament and its state live in the store (``store/tournaments.py``: the
database is the truth, so a tournament outlives any process and runs on a cluster).  Each
node runs a :class:`TournamentRunner`: every :data:`TICK_SECONDS`, and at once when a
tournament's table ends or a tournament starts, it moves finished rounds on
(``advance``) and starts the waiting tables it can claim, seating their players who are
not at another table (a table whose player still plays elsewhere waits for him).  The
players are seated as a room's are: connected ones go to the table at once (their
``table`` frame), the others find it when they connect; a node that starts a table whose
player's socket is on another node asks that node to send him over (``Cluster.reseat``).
While entered in an open or running tournament a player is refused a queue or a room
(``in_tournament``).  A tournament's matches are free (stake 0), rated as any match of
four people is, and watchable.

Every route is behind a per-address allowance of its own, as large as the public replays'
(``replay_rate``, ``replay_burst``; each is a database read or write).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import AwareDatetime, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..rules import get_rules
from ..store import tournaments as store_tournaments
from ..store.database import error_line, is_transient
from ..store.tournaments import (
    CAPACITY_MAX,
    HANDS_MAX,
    NAME_MAX,
    OPEN_FOR,
    PLAYERS_MIN,
    ROUNDS_MAX,
    START_LEAD,
    ClaimedTable,
    TournamentError,
)
from .http import (
    HttpError,
    RequestModel,
    ResponseModel,
    account_of,
    api,
    client_address,
    hub_of,
    limit,
    maybe_account,
    ok,
    read_body,
)
from .placement import QueuePlace, RoomPlace
from .protocol import Profile, TournamentInfo

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["TICK_SECONDS", "TournamentRunner", "tournament_routes"]

log = logging.getLogger("wuhan_mahjong.server")

TICK_SECONDS = 2.0
"""Seconds between two rounds of the runner (a table's end or a start wakes it at once)."""


class NumberOut(ResponseModel):
    """A number of the creation form: its range and the form's first value."""

    low: int
    high: int
    default: int


FORM = {"hands": NumberOut(low=1, high=HANDS_MAX, default=1),
        "rounds": NumberOut(low=1, high=ROUNDS_MAX, default=3),
        "capacity": NumberOut(low=PLAYERS_MIN, high=CAPACITY_MAX, default=16)}
"""The creation form's numbers: the request's bounds, and what the list sends the client
(``GET /api/tournaments`` → ``form``), so the page knows them from here only."""


def _number(name: str) -> Any:
    f = FORM[name]
    return Field(default=f.default, ge=f.low, le=f.high, strict=True)


class TournamentIn(RequestModel):
    name: str = Field(max_length=4 * NAME_MAX)
    profile: Profile = "yuanhang"
    hands: int = _number("hands")
    rounds: int = _number("rounds")
    capacity: int = _number("capacity")
    starts_at: AwareDatetime | None = None
    """When it starts by itself (定时开赛; ``None``: when its creator starts it)."""


class CreatedOut(ResponseModel):
    id: int


class TournamentOut(ResponseModel):
    id: int
    name: str
    profile: str
    hands: int
    rounds: int
    capacity: int
    status: Literal["open", "running", "finished", "cancelled"] | str
    round: int
    creator: str
    players: int
    created_at: datetime
    starts_at: datetime | None = None


class ListOut(ResponseModel):
    tournaments: list[TournamentOut]
    form: dict[str, NumberOut] = Field(default_factory=lambda: dict(FORM))
    name_max: int = NAME_MAX
    start_lead_minutes: int = int(START_LEAD.total_seconds() // 60)
    """A start time is this many minutes ahead at least, and less than ``open_days`` days."""
    open_days: int = OPEN_FOR.days


class StandingOut(ResponseModel):
    rank: int
    username: str
    points: int
    matches: int
    firsts: int
    withdrawn: bool


class TableOut(ResponseModel):
    round: int
    table_no: int
    players: list[str]
    status: str
    table_id: str | None
    """The running table's id, to watch it (``null`` before it starts)."""
    results: list[tuple[str, int]] = Field(default_factory=list)
    """Once its match has ended: each seat's name and points, best first (bots too)."""


class DetailOut(ResponseModel):
    tournament: TournamentOut
    standings: list[StandingOut]
    tables: list[TableOut]
    entered: bool | None = None
    """Whether the asker is entered and has not withdrawn (``null``: asked without a token)."""
    creator: bool | None = None


def _summary(t: store_tournaments.Tournament) -> TournamentOut:
    return TournamentOut.model_validate(t, from_attributes=True)


def _refused(e: TournamentError) -> HttpError:
    if e.code == "not_found":
        return HttpError(404, "not_found", str(e))
    if e.code == "bad_start":
        return HttpError(400, "invalid_request", str(e),
                         params={"field": "starts_at", "problem": "start_time",
                                 "low": int(START_LEAD.total_seconds() // 60),
                                 "high": OPEN_FOR.days})
    if e.code in ("bad_name", "invalid"):
        return HttpError(400, "invalid_request", str(e),
                         params={"field": "name" if e.code == "bad_name" else "options",
                                 "problem": str(e)})
    return HttpError(409, "tournament_refused", str(e), params={"reason": e.code})


async def _limited(request: Request) -> None:
    await limit(request, request.app.state.tournament_limit, client_address(request),
                "tournament requests")


def _tournament_id(request: Request) -> int:
    text = str(request.path_params["tournament_id"])
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise HttpError(404, "not_found", "no such tournament")
    return int(text)


@api
async def list_tournaments(request: Request) -> Response:
    await _limited(request)
    found = await asyncio.to_thread(store_tournaments.listing, hub_of(request).store)
    return ok(ListOut(tournaments=[_summary(t) for t in found]))


@api
async def create_tournament(request: Request) -> Response:
    await _limited(request)
    account = await account_of(request)
    body = await read_body(request, TournamentIn)
    try:
        tournament_id = await asyncio.to_thread(
            store_tournaments.create, hub_of(request).store, account.id, body.name,
            body.profile, hands=body.hands, rounds=body.rounds, capacity=body.capacity,
            starts_at=body.starts_at)
    except TournamentError as e:
        raise _refused(e) from None
    return ok(CreatedOut(id=tournament_id), 201)


@api
async def tournament_detail(request: Request) -> Response:
    await _limited(request)
    tournament_id = _tournament_id(request)
    hub = hub_of(request)
    found = await asyncio.to_thread(store_tournaments.detail, hub.store, tournament_id)
    if found is None:
        raise HttpError(404, "not_found", "no such tournament")
    asker = await maybe_account(request)
    entered = creator = None
    if asker is not None:
        entered = any(s.account_id == asker.id and not s.withdrawn for s in found.standings)
        creator = found.tournament.creator == asker.username
    return ok(DetailOut(
        tournament=_summary(found.tournament), entered=entered, creator=creator,
        standings=[StandingOut.model_validate(s, from_attributes=True)
                   for s in found.standings],
        tables=[TableOut(round=t.round, table_no=t.table_no, players=[n for _, n in t.players],
                         status=t.status,
                         table_id=t.table_id if t.status == "running" else None,
                         results=list(t.results))
                for t in found.tables]))


def _action(name: Literal["join", "withdraw", "start", "cancel"]) -> Route:
    @api
    async def act(request: Request) -> Response:
        await _limited(request)
        account = await account_of(request)
        tournament_id = _tournament_id(request)
        hub = hub_of(request)
        if name == "join" and await hub.seated([account.id]):
            raise HttpError(409, "tournament_refused", "finish your match first",
                            params={"reason": "seated"})
        try:
            await asyncio.to_thread(getattr(store_tournaments, name), hub.store, tournament_id,
                                    account.id)
        except TournamentError as e:
            raise _refused(e) from None
        if hub.tournaments is not None and name == "start":
            hub.tournaments.nudge()
        return JSONResponse({"ok": True})

    return Route(f"/api/tournaments/{{tournament_id}}/{name}", act, methods=["POST"])


def tournament_routes() -> list[Route]:
    return [
        Route("/api/tournaments", list_tournaments, methods=["GET"]),
        Route("/api/tournaments", create_tournament, methods=["POST"]),
        Route("/api/tournaments/{tournament_id}", tournament_detail, methods=["GET"]),
        *(_action(name) for name in ("join", "withdraw", "start", "cancel")),
    ]


class TournamentRunner:
    """Moves this node's share of the tournaments on (the module's doc)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.wake = asyncio.Event()

    def nudge(self) -> None:
        """Look now: a tournament table ended, or a tournament started."""
        self.wake.set()

    async def run(self) -> None:
        """For the server's lifetime (cancelled at shutdown)."""
        while True:
            try:
                await self.tick()
            except Exception as e:
                if not is_transient(e):
                    log.exception("the tournament runner failed; it tries again")
                else:
                    log.warning("tournaments wait: the database is unavailable (%s)",
                                error_line(e))
            # asyncio.timeout, not wait_for: Python 3.11's wait_for returns normally when it
            # is cancelled in the same turn as the event is set (a table ending at shutdown
            # nudges the runner), and the server's shutdown then waited for it for ever
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(TICK_SECONDS):
                    await self.wake.wait()
            self.wake.clear()

    async def tick(self) -> None:
        hub = self.hub
        if hub.draining:
            return
        moved = await asyncio.to_thread(store_tournaments.advance, hub.store)
        for tournament_id in moved:
            log.info("tournament %d moved on", tournament_id)
        if hub.admission.busy() is not None:
            return  # a saturated node starts no table: another node will
        waiting = await asyncio.to_thread(store_tournaments.claimable, hub.store)
        active: dict[int, set[int]] = {}
        for tournament_id, round_no, table_no, players in waiting:
            if hub.draining:
                return
            if tournament_id not in active:
                active[tournament_id] = await asyncio.to_thread(
                    store_tournaments.active_players, hub.store, tournament_id)
            playing = [a for a in players if a in active[tournament_id]]
            if await hub.seated(playing):
                continue  # a player still plays elsewhere: the table waits for him
            claimed = await asyncio.to_thread(store_tournaments.claim, hub.store,
                                              tournament_id, round_no, table_no, hub.node_id)
            if claimed is not None:
                await self._start(claimed, active[tournament_id])

    async def _start(self, claimed: ClaimedTable, active: set[int]) -> None:
        """Start a claimed table with its players who have not withdrawn (``active``)."""
        hub = self.hub
        store = hub.store
        humans = [(a, n) for a, n in claimed.players if a in active]
        if not humans:  # everyone at it withdrew: it ends unplayed
            await asyncio.to_thread(store_tournaments.skip, store, claimed, hub.node_id)
            self.nudge()
            return
        for account_id, _ in humans:  # out of any queue or room here: his table is ready
            if isinstance(hub.where.get(account_id), QueuePlace | RoomPlace):
                hub.lobby.leave(account_id)
        try:
            table = await hub.start_table(
                humans, get_rules(claimed.profile), hands=claimed.hands, stake=0,
                tournament=TournamentInfo(id=claimed.tournament_id, round=claimed.round,
                                          table=claimed.table_no, rounds=claimed.rounds,
                                          name=claimed.name))
        except Exception:
            log.exception("tournament %d: table %d of round %d did not start",
                          claimed.tournament_id, claimed.table_no, claimed.round)
            await asyncio.to_thread(store_tournaments.release, store, claimed, hub.node_id)
            return
        log.info("tournament %d: table %d of round %d starts (%s)", claimed.tournament_id,
                 claimed.table_no, claimed.round, table.table_id)
        if hub.cluster is not None:
            elsewhere = [a for a, _ in humans if a not in hub.clients]
            if elsewhere:
                hub.cluster.reseat(elsewhere)
