"""Clubs over HTTP (亲友圈, ``store/clubs.py``): found one, ask to join by its number, answer
applications, keep its notice and its rules, see its tables, its matches and its standings.

::

    GET  /api/clubs                              (token) → {clubs: [club with role], limits}
    POST /api/clubs  {name, notice?, options}    (token) → 201 {club}
    GET  /api/clubs/{number}                     (token) → {club, members?, rooms?, matches?}
    POST /api/clubs/{number}/apply               (token) → {role}
    POST /api/clubs/{number}/leave               (token) → {ok}
    POST /api/clubs/{number}/members  {username, action}    (token) → {role}
    POST /api/clubs/{number}/settings {name?, notice?, options?}  (token) → {club}
    POST /api/clubs/{number}/transfer {username} (token) → {ok}
    POST /api/clubs/{number}/dissolve            (token) → {ok}
    GET  /api/clubs/{number}/standings?period=week|month|all      (token) → {standings, since}

Anyone signed in sees a club's name, owner, rules, notice and size (to decide whether to ask
to join); its members, its waiting tables (with their codes), its matches and its standings
are its members' (an admin also sees the applications).  A club's tables are private rooms
whose options name it (``create_room`` with ``options.club``): the lobby seats members only
and plays the club's rules (``server/lobby.py``).  The rules are checked here as a room's
are when a club is founded or changed (``bad_options`` as 400 ``invalid_request``), so a
member's table never meets rules the server would refuse.

The players a change concerns hear of it at once on their connection, on whichever node
holds it (``club_event``): the owner and admins of an application, an applicant of its
answer, a member of his removal or his new role.

Weeks start on Monday and months on the 1st, at midnight of the ``timezone`` setting.
Every route is behind a per-address allowance as large as the tournaments'
(``replay_rate``, ``replay_burst``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Literal, ParamSpec, TypeVar

from pydantic import Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..store import clubs as store_clubs
from ..store.clubs import (
    JOINED_MAX,
    MEMBER_ROLES,
    MEMBERS_MAX,
    NAME_MAX,
    NOTICE_MAX,
    NUMBER_HIGH,
    NUMBER_LOW,
    OWNED_MAX,
    Club,
    ClubError,
    MemberAction,
    MemberRowAction,
    member_actions,
)
from ..store.models import utcnow
from .config import calendar_zone
from .http import (
    HttpError,
    RequestModel,
    ResponseModel,
    account_of,
    api,
    client_address,
    hub_of,
    limit,
    ok,
    read_body,
)
from .lobby import checked_rules
from .protocol import ClubEventKind, ClubEventMsg, ProtocolError, RoomOptions, encode

__all__ = ["club_routes", "period_start"]

P = ParamSpec("P")
T = TypeVar("T")

StandingsPeriod = Literal["week", "month", "all"]
PERIODS: dict[str, StandingsPeriod] = {"week": "week", "month": "month", "all": "all"}
"""The standings' periods by the name a request gives."""


class ClubOut(ResponseModel):
    number: int
    name: str
    owner: str
    profile: str
    options: dict[str, Any]
    """The rules of its tables: a private room's options (``create_room``)."""
    notice: str
    members: int
    created_at: datetime
    role: str | None
    """The asker's role: ``owner``, ``admin``, ``member``, ``pending`` or ``null``."""
    pending: int
    """Applications waiting for an answer: for the owner and admins (0 for the others)."""


class ClubLimitsOut(ResponseModel):
    name_max: int = NAME_MAX
    notice_max: int = NOTICE_MAX
    owned_max: int = OWNED_MAX
    joined_max: int = JOINED_MAX
    members_max: int = MEMBERS_MAX


class ClubListOut(ResponseModel):
    clubs: list[ClubOut]
    limits: ClubLimitsOut = Field(default_factory=ClubLimitsOut)


class ClubMemberOut(ResponseModel):
    username: str
    role: str
    since: datetime
    online: bool
    """Connected now (to any node); always false for an applicant."""
    actions: list[MemberRowAction]
    """What the asker may do with him (``store.clubs.member_actions``): the buttons of his
    row, so that the client never decides who may do what."""


class ClubRoomOut(ResponseModel):
    code: str
    host: str
    players: list[str]
    hands: int
    stake: int


class ClubMatchOut(ResponseModel):
    match_id: str
    status: str
    hands_done: int
    hands: int
    results: list[tuple[str, int]]
    created_at: datetime
    table_id: str | None
    """The running table's id, to watch it (``null`` once it ended)."""


class ClubDetailOut(ResponseModel):
    club: ClubOut
    members: list[ClubMemberOut] | None = None
    """Its members (an owner or admin also sees the applicants); ``null`` for others."""
    rooms: list[ClubRoomOut] | None = None
    """Its tables waiting for players, to join by code; ``null`` for others."""
    matches: list[ClubMatchOut] | None = None
    """Its latest matches, running ones first; ``null`` for others."""


class ClubStandingOut(ResponseModel):
    rank: int
    username: str
    points: int
    hands: int
    wins: int
    matches: int


class ClubStandingsOut(ResponseModel):
    period: StandingsPeriod
    since: datetime | None
    standings: list[ClubStandingOut]


class ClubRoleOut(ResponseModel):
    role: str | None


class ClubIn(RequestModel):
    name: str = Field(max_length=4 * NAME_MAX)
    notice: str = Field(default="", max_length=4 * NOTICE_MAX)
    options: RoomOptions = Field(default_factory=RoomOptions)


class ClubSettingsIn(RequestModel):
    name: str | None = Field(default=None, max_length=4 * NAME_MAX)
    notice: str | None = Field(default=None, max_length=4 * NOTICE_MAX)
    options: RoomOptions | None = None


class ClubMemberIn(RequestModel):
    username: str = Field(min_length=1, max_length=64)
    action: MemberAction


class ClubTransferIn(RequestModel):
    username: str = Field(min_length=1, max_length=64)


def _club_out(club: Club) -> ClubOut:
    return ClubOut(number=club.number, name=club.name, owner=club.owner, profile=club.profile,
                   options=club.preset, notice=club.notice, members=club.members,
                   created_at=club.created_at, role=club.role, pending=club.pending)


def _refused(e: ClubError) -> HttpError:
    if e.code == "not_found":
        return HttpError(404, "not_found", str(e))
    if e.code in ("bad_name", "bad_notice", "invalid"):
        field = {"bad_name": "name", "bad_notice": "notice"}.get(e.code, "options")
        return HttpError(400, "invalid_request", str(e),
                         params={"field": field, "problem": str(e)})
    params: dict[str, str | int | float] = {"reason": e.code}
    if e.username is not None:
        params["username"] = e.username
    return HttpError(409, "club_refused", str(e), params=params)


def _preset(options: RoomOptions) -> dict[str, Any]:
    """A club's rules from room options, checked as a room's are (400 when refused)."""
    try:
        checked_rules(options)
    except ProtocolError as e:
        raise HttpError(400, "invalid_request", str(e),
                        params={"field": "options", "problem": str(e), **e.params}) from None
    return options.model_dump(mode="json", exclude={"club"})


async def _limited(request: Request) -> None:
    await limit(request, request.app.state.club_limit, client_address(request),
                "club requests")


def _number(request: Request) -> int:
    text = str(request.path_params["number"])
    if not (text.isascii() and text.isdigit() and len(text) == 6
            and NUMBER_LOW <= int(text) <= NUMBER_HIGH):
        raise HttpError(404, "not_found", "no such club")
    return int(text)


async def _store(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``call`` in a worker thread, a club refusal as its HTTP error."""
    try:
        return await asyncio.to_thread(call, *args, **kwargs)
    except ClubError as e:
        raise _refused(e) from None


def period_start(period: StandingsPeriod, now: datetime, zone: str) -> datetime | None:
    """When the current ``period`` began on the calendar of ``zone`` (``None``: ``all``).

    >>> from datetime import UTC
    >>> period_start("week", datetime(2026, 12, 5, 20, tzinfo=UTC), "Asia/Shanghai").isoformat()
    '2026-11-30T00:00:00+08:00'
    >>> period_start("month", datetime(2026, 11, 30, 17, tzinfo=UTC), "Asia/Shanghai").isoformat()
    '2026-12-01T00:00:00+08:00'
    """
    if period == "all":
        return None
    local = now.astimezone(calendar_zone(zone))
    day = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "week":
        return day - timedelta(days=day.weekday())
    return day.replace(day=1)


@api
async def list_clubs(request: Request) -> Response:
    await _limited(request)
    account = await account_of(request)
    found = await _store(store_clubs.my_clubs, hub_of(request).store, account.id)
    return ok(ClubListOut(clubs=[_club_out(c) for c in found]))


@api
async def create_club(request: Request) -> Response:
    await _limited(request)
    account = await account_of(request)
    body = await read_body(request, ClubIn)
    preset = _preset(body.options)
    club = await _store(store_clubs.create, hub_of(request).store, account.id, body.name,
                        body.options.profile, preset, body.notice)
    return ok(_club_out(club), 201)


@api
async def club_detail(request: Request) -> Response:
    await _limited(request)
    account = await account_of(request)
    number = _number(request)
    hub = hub_of(request)
    shown = await _store(store_clubs.page, hub.store, number, account.id)
    club = shown.club
    if club.role not in MEMBER_ROLES:
        return ok(ClubDetailOut(club=_club_out(club)))
    online = await hub.online([m.account_id for m in shown.members if m.role != "pending"])
    rooms = await hub.lobby.club_rooms(number)
    out = ClubDetailOut(
        club=_club_out(club),
        members=[ClubMemberOut(username=m.username, role=m.role, since=m.since,
                               online=m.account_id in online,
                               actions=list(member_actions(club.role, m.role,
                                                           own=m.account_id == account.id)))
                 for m in shown.members],
        rooms=[ClubRoomOut(code=r.code, host=r.host, players=list(r.players), hands=r.hands,
                           stake=r.stake) for r in rooms],
        matches=[ClubMatchOut(match_id=m.match_id, status=m.status, hands_done=m.hands_done,
                              hands=m.hands, results=list(m.results),
                              created_at=m.created_at,
                              table_id=m.table_id if m.status == "running" else None)
                 for m in sorted(shown.matches, key=lambda m: m.status != "running")])
    return ok(out)


@api
async def club_standings(request: Request) -> Response:
    await _limited(request)
    account = await account_of(request)
    number = _number(request)
    period = PERIODS.get(request.query_params.get("period", "week"))
    if period is None:
        raise HttpError(400, "invalid_request", "period is week, month or all",
                        params={"field": "period", "problem": "week, month or all"})
    hub = hub_of(request)
    since = period_start(period, utcnow(), hub.config.timezone)
    found = await _store(store_clubs.standings, hub.store, number, since, asker_id=account.id)
    return ok(ClubStandingsOut(period=period, since=since,
                                standings=[ClubStandingOut.model_validate(s, from_attributes=True)
                                           for s in found]))


ANSWER_EVENTS: dict[str, ClubEventKind] = {"approve": "approved", "reject": "rejected",
                                           "remove": "removed", "admin": "admin",
                                           "member": "member"}
"""The event the player acted on hears of, by the action."""


def _tell(request: Request, account_ids: list[int], event: ClubEventKind, club: Club,
          username: str) -> None:
    """A ``club_event`` frame to each of the accounts, wherever it is connected."""
    text = encode(ClubEventMsg(event=event, club=club.number, name=club.name,
                               username=username))
    hub = hub_of(request)
    for account_id in account_ids:
        hub.deliver(account_id, text)


@api
async def apply_to_club(request: Request) -> Response:
    await _limited(request)
    account = await account_of(request)
    number = _number(request)
    store = hub_of(request).store
    before = await _store(store_clubs.club, store, number, account.id)
    role = await _store(store_clubs.apply, store, number, account.id)
    if before.role is None and role == "pending":  # a new application: tell who answers it
        _tell(request, await _store(store_clubs.answerers, store, number), "applied", before,
              account.username)
    return ok(ClubRoleOut(role=role))


@api
async def leave_club(request: Request) -> Response:
    await _limited(request)
    account = await account_of(request)
    await _store(store_clubs.leave, hub_of(request).store, _number(request), account.id)
    return JSONResponse({"ok": True})


@api
async def answer_member(request: Request) -> Response:
    await _limited(request)
    account = await account_of(request)
    number = _number(request)
    body = await read_body(request, ClubMemberIn)
    store = hub_of(request).store
    role = await _store(store_clubs.answer, store, number, account.id, body.username,
                        body.action)
    target = await asyncio.to_thread(store.account_by_username, body.username)
    if target is not None:
        club = await _store(store_clubs.club, store, number)
        _tell(request, [target.id], ANSWER_EVENTS[body.action], club, account.username)
    return ok(ClubRoleOut(role=role))


@api
async def club_settings(request: Request) -> Response:
    await _limited(request)
    account = await account_of(request)
    number = _number(request)
    body = await read_body(request, ClubSettingsIn)
    preset = None if body.options is None else _preset(body.options)
    club = await _store(store_clubs.update, hub_of(request).store, number, account.id,
                        name=body.name, notice=body.notice,
                        profile=None if body.options is None else body.options.profile,
                        preset=preset)
    return ok(_club_out(club))


@api
async def transfer_club(request: Request) -> Response:
    await _limited(request)
    account = await account_of(request)
    number = _number(request)
    body = await read_body(request, ClubTransferIn)
    store = hub_of(request).store
    await _store(store_clubs.transfer, store, number, account.id, body.username)
    heir = await asyncio.to_thread(store.account_by_username, body.username)
    if heir is not None:
        club = await _store(store_clubs.club, store, number)
        _tell(request, [heir.id], "owner", club, account.username)
    return JSONResponse({"ok": True})


@api
async def dissolve_club(request: Request) -> Response:
    await _limited(request)
    account = await account_of(request)
    await _store(store_clubs.dissolve, hub_of(request).store, _number(request), account.id)
    return JSONResponse({"ok": True})


def club_routes() -> list[Route]:
    return [
        Route("/api/clubs", list_clubs, methods=["GET"]),
        Route("/api/clubs", create_club, methods=["POST"]),
        Route("/api/clubs/{number}", club_detail, methods=["GET"]),
        Route("/api/clubs/{number}/standings", club_standings, methods=["GET"]),
        Route("/api/clubs/{number}/apply", apply_to_club, methods=["POST"]),
        Route("/api/clubs/{number}/leave", leave_club, methods=["POST"]),
        Route("/api/clubs/{number}/members", answer_member, methods=["POST"]),
        Route("/api/clubs/{number}/settings", club_settings, methods=["POST"]),
        Route("/api/clubs/{number}/transfer", transfer_club, methods=["POST"]),
        Route("/api/clubs/{number}/dissolve", dissolve_club, methods=["POST"]),
    ]
