"""The staff pages' API (``#/staff``, ``store/staff.py``): what ``wuhan-mahjong admin`` does,
for the moderators and admins an operator names, from a browser.

::

    GET  /api/staff                                → {role, actions, staff, overview}
    GET  /api/staff/reports?all=1                  → {reports}
    POST /api/staff/reports/{id}/close {note?}     → {report}
    GET  /api/staff/accounts/{username}            → {account, role}
    POST /api/staff/accounts/{username} {action, reason?, amount?, role?}
                                                   → {account, role, balance?, password?}
    GET  /api/staff/tables                         → {tables, draining}
    POST /api/staff/drain {on}                     → {draining}
    GET  /api/staff/clubs                          → {clubs}
    POST /api/staff/clubs/{number}/dissolve {reason?}       → {club}
    GET  /api/staff/tournaments                    → {tournaments}
    POST /api/staff/tournaments/{id}/cancel {reason?}       → {was}
    GET  /api/staff/fairplay?min_wins=&days=&profile=       → {pairs_looked_at, chance_share, pairs}
    GET  /api/staff/log?limit=N                    → {log}
    GET  /api/staff/audit                          → the audit document
    GET  /api/staff/announcement                   → {announcement, recent}
    GET  /api/staff/matches/{match_id}             → {match_id, hands, players}  (logged)
    GET  /api/staff/matches/{match_id}/hands/{n}/frames   → the replay viewer's frames
    POST /api/staff/announcement {text, hours?}    → {announcement}  (text null: take it down)

Each answer is the document ``admin ... --json`` prints (``store/admin_docs.py``).  Every
request reads the caller's role from the database (:func:`.staff.check`): 403
``staff_refused`` with ``params.reason`` (``not_staff``, ``not_allowed``, ``rank``, ``self``)
when he may not.  An action goes through :class:`.admin.Admin` under the actor
``web:NAME`` into the same event log as the command line's, and a running server hears of a
ban or the drain flag from that log as it does of the command line's (``server/admin.py``).
A refusal of the store (a ban of a banned account, a grant below zero) is 409
``staff_refused`` with reason ``refused`` and the store's sentence.  The routes share a
per-address allowance (``replay_rate``, ``replay_burst``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any, Literal, ParamSpec, TypeVar

from pydantic import Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..rules import PROFILES
from ..store import StoreError
from ..store.account_store import Account
from ..store.admin import Admin, AdminError
from ..store.admin_docs import (
    action_doc,
    announcement_doc,
    audit_doc,
    club_doc,
    overview_doc,
    pair_doc,
    report_doc,
    staff_doc,
    summary_doc,
    table_doc,
    tournament_doc,
)
from ..store.announcements import ANNOUNCEMENT_MAX, LONGEST_HOURS
from ..store.core import MAX_AMOUNT
from ..store.fairplay import CHANCE_SHARE
from ..store.models import storable_game_id, utcnow
from ..store.reports import (
    NOTE_MAX,
    ReportError,
    close_report,
    open_reports,
    reported_in,
    reports_about_names,
)
from ..store.staff import (
    PERMISSIONS,
    StaffAction,
    StaffRefused,
    check,
    role_of,
    web_actor,
    within_reach,
)
from .config import calendar_zone
from .http import (
    NAME_INPUT_MAX,
    HttpError,
    RequestModel,
    account_of,
    api,
    client_address,
    hub_of,
    limit,
    query_count,
    read_body,
    whole_number,
)
from .replays import frames_body, gzipped_json, hand_named

__all__ = ["staff_routes"]

P = ParamSpec("P")
T = TypeVar("T")

REASON_MAX = 500
"""The longest reason a staff member gives (a report's note is at most ``NOTE_MAX``)."""
LOG_MAX = 200

AccountAction = Literal["ban", "unban", "grant", "reset_password", "close", "role"]


class NoteIn(RequestModel):
    note: str | None = Field(default=None, max_length=4 * NOTE_MAX)


class ReasonIn(RequestModel):
    reason: str | None = Field(default=None, max_length=REASON_MAX)


class AccountActionIn(RequestModel):
    action: AccountAction
    reason: str | None = Field(default=None, max_length=REASON_MAX)
    amount: int | None = Field(default=None, ge=-MAX_AMOUNT, le=MAX_AMOUNT, strict=True)
    """Of a grant: silver to add, negative to remove; a JSON whole number only (``true``
    was 1 silver, ``"500"`` and ``500.0`` were 500: silver no admin typed)."""
    role: Literal["moderator", "none"] | None = None
    """Of ``role``: an admin names moderators here; only the command line names admins."""


class DrainIn(RequestModel):
    on: bool


class AnnounceIn(RequestModel):
    text: str | None = Field(max_length=4 * ANNOUNCEMENT_MAX)
    """The notice to every player; ``null`` takes the one shown down."""
    hours: float | None = Field(default=None, gt=0, le=LONGEST_HOURS)


def _json(doc: dict[str, Any], status: int = 200) -> Response:
    return JSONResponse(doc, status_code=status)


def _refused(e: StaffRefused) -> HttpError:
    return HttpError(403, "staff_refused", str(e), params={"reason": e.reason})


async def _call(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``call`` in a worker thread; the store's refusals as HTTP errors."""
    try:
        return await asyncio.to_thread(call, *args, **kwargs)
    except StaffRefused as e:
        raise _refused(e) from None
    except (StoreError, ValueError) as e:
        if (e.not_found if isinstance(e, AdminError)
                else isinstance(e, ReportError) and e.code == "not_found"):
            raise HttpError(404, "not_found", str(e)) from None
        raise HttpError(409, "staff_refused", str(e), params={"reason": "refused"}) from None


async def _staff(request: Request, action: StaffAction,
                 target_id: int | None = None) -> tuple[Account, Admin]:
    """The caller, if he may take ``action`` (on ``target_id``), and his :class:`Admin`."""
    await limit(request, request.app.state.staff_limit, client_address(request),
                "staff requests")
    account = await account_of(request)
    hub = hub_of(request)
    await _call(check, hub.store, account.id, action, target_id)
    return account, Admin(hub.store, web_actor(account.username))


ID_HIGH = {"report": 2**63 - 1, "club": 2**31 - 1, "tournament": 2**31 - 1}
"""The largest id each kind of path names (its column's type: a larger one would be the
database's error, not a 404)."""


def _path_id(request: Request, name: str) -> int:
    found = whole_number(str(request.path_params[name]), 1, ID_HIGH[name])
    if found is None:
        raise HttpError(404, "not_found", f"no such {name}")
    return found


@api
async def staff_home(request: Request) -> Response:
    """The caller's role, what it may do, and who the staff are."""
    await limit(request, request.app.state.staff_limit, client_address(request),
                "staff requests")
    account = await account_of(request)
    hub = hub_of(request)
    role = await asyncio.to_thread(role_of, hub.store, account.id)
    if role is None:
        raise _refused(StaffRefused("not_staff", "this account is no staff member"))
    admin = Admin(hub.store, web_actor(account.username))
    staff = await asyncio.to_thread(admin.staff)
    now = utcnow().astimezone(calendar_zone(hub.config.timezone))
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    found = await asyncio.to_thread(admin.overview, today)
    online, running = await hub.platform_counts()
    return _json({"role": role, "actions": sorted(PERMISSIONS[role]),
                  "staff": [staff_doc(m) for m in staff],
                  "overview": {**overview_doc(found), "online": online, "tables": running,
                               "since": today.isoformat()}})


@api
async def reports(request: Request) -> Response:
    account, admin = await _staff(request, "reports")
    everything = request.query_params.get("all") in ("1", "true")
    found = await _call(open_reports, admin.store, everything=everything, limit=500)
    # only the reports he may close: one about him would name who reported him, and the
    # reported player is never told that (store/reports.py)
    mine = await _call(within_reach, admin.store, account.id, {r.reported_id for r in found})
    return _json({"reports": [report_doc(r) for r in found if r.reported_id in mine]})


@api
async def report_close(request: Request) -> Response:
    """Close a report: acting on the player it names, so only staff above him may (a
    moderator closed the reports about himself and about the admins)."""
    account, admin = await _staff(request, "report_close")
    body = await read_body(request, NoteIn)
    report_id = _path_id(request, "report")
    reported = await _call(reported_in, admin.store, report_id)
    if reported is None:
        raise HttpError(404, "not_found", f"no report {report_id}")
    await _call(check, admin.store, account.id, "report_close", reported)
    closed = await _call(close_report, admin.store, report_id, admin.actor, body.note or None)
    return _json({"report": report_doc(closed)})


async def _target(request: Request, action: StaffAction) -> tuple[Account, Admin, Account]:
    """The caller, his :class:`Admin` and the account of the path, if he may take
    ``action`` on it."""
    name = str(request.path_params["username"])
    if not 0 < len(name) <= NAME_INPUT_MAX:
        raise HttpError(404, "not_found", "no such player")
    await limit(request, request.app.state.staff_limit, client_address(request),
                "staff requests")
    caller = await account_of(request)
    hub = hub_of(request)
    target = await asyncio.to_thread(hub.store.account_by_username, name)
    if target is None:
        raise HttpError(404, "not_found", f"no account named '{name}'")
    await _call(check, hub.store, caller.id, action, target.id)
    return caller, Admin(hub.store, web_actor(caller.username)), target


async def _account_doc(admin: Admin, username: str) -> dict[str, Any]:
    summary = await _call(admin.show, username)
    role = await asyncio.to_thread(role_of, admin.store, summary.account.id)
    return {"account": summary_doc(summary), "role": role}


@api
async def account(request: Request) -> Response:
    _, admin, target = await _target(request, "show")
    return _json(await _account_doc(admin, target.username))


@api
async def account_action(request: Request) -> Response:
    body = await read_body(request, AccountActionIn)
    _, admin, target = await _target(request, body.action)
    name = target.username
    extra: dict[str, Any] = {}
    if body.action == "ban":
        await _call(admin.ban, name, body.reason)
    elif body.action == "unban":
        await _call(admin.unban, name)
    elif body.action == "grant":
        if body.amount is None:
            raise HttpError(400, "invalid_request", "amount: the silver to grant",
                            params={"field": "amount", "problem": "missing"})
        extra["balance"] = await _call(admin.grant, name, body.amount, body.reason)
    elif body.action == "reset_password":
        extra["password"] = await _call(admin.reset_password, name)
    elif body.action == "close":
        await _call(admin.close, name, body.reason)
    else:
        if body.role is None:
            raise HttpError(400, "invalid_request", "role: moderator or none",
                            params={"field": "role", "problem": "moderator, none"})
        await _call(admin.set_role, name, None if body.role == "none" else body.role)
    found = await asyncio.to_thread(admin.store.account_by_username, name)
    if found is None:  # closed just now: its name is a tombstone
        return _json({"account": None, "role": None, **extra})
    return _json({**await _account_doc(admin, found.username), **extra})


@api
async def tables(request: Request) -> Response:
    _, admin = await _staff(request, "tables")
    found = await _call(admin.tables)
    draining = await _call(admin.draining)
    return _json({"tables": [table_doc(t) for t in found], "draining": draining})


@api
async def drain(request: Request) -> Response:
    _, admin = await _staff(request, "drain")
    body = await read_body(request, DrainIn)
    await _call(admin.set_drain, body.on)
    return _json({"draining": body.on})


@api
async def clubs(request: Request) -> Response:
    _, admin = await _staff(request, "clubs")
    return _json({"clubs": [club_doc(c) for c in await _call(admin.clubs)]})


@api
async def club_dissolve(request: Request) -> Response:
    _, admin = await _staff(request, "club_dissolve")
    body = await read_body(request, ReasonIn)
    club = await _call(admin.dissolve_club, _path_id(request, "club"), body.reason)
    return _json({"club": club_doc(club)})


@api
async def tournaments(request: Request) -> Response:
    _, admin = await _staff(request, "tournaments")
    return _json({"tournaments": [tournament_doc(t) for t in await _call(admin.tournaments)]})


@api
async def tournament_cancel(request: Request) -> Response:
    _, admin = await _staff(request, "tournament_cancel")
    body = await read_body(request, ReasonIn)
    was = await _call(admin.cancel_tournament, _path_id(request, "tournament"), body.reason)
    return _json({"was": was})


@api
async def fairplay(request: Request) -> Response:
    _, admin = await _staff(request, "fairplay")
    min_wins = query_count(request, "min_wins", 20, 1, 100_000)
    days = query_count(request, "days", 0, 0, 36_500)
    profile = request.query_params.get("profile") or None
    if profile is not None and profile not in PROFILES:
        raise HttpError(400, "invalid_request", "profile: " + ", ".join(sorted(PROFILES)),
                        params={"field": "profile", "problem": ", ".join(sorted(PROFILES))})
    since = utcnow() - timedelta(days=days) if days else None
    looked, pairs = await _call(admin.fairplay, min_wins=min_wins, profile=profile, since=since)
    counts = await _call(reports_about_names, admin.store,
                         [name for p in pairs for name in (p.feeder, p.winner)], "collusion")
    return _json({"pairs_looked_at": looked, "chance_share": CHANCE_SHARE,
                  "pairs": [pair_doc(p, counts) for p in pairs]})


@api
async def event_log(request: Request) -> Response:
    _, admin = await _staff(request, "log")
    newest = query_count(request, "limit", 50, 1, LOG_MAX)
    return _json({"log": [action_doc(a) for a in await _call(admin.actions, newest)]})


@api
async def audit(request: Request) -> Response:
    _, admin = await _staff(request, "audit")
    result = await _call(admin.audit)
    banned = await _call(admin.banned)
    return _json(audit_doc(result, banned))


@api
async def announcement(request: Request) -> Response:
    _, admin = await _staff(request, "announce")
    found = await _call(admin.announcements)
    shown = await _call(admin.announcement)
    return _json({"announcement": None if shown is None else announcement_doc(shown),
                  "recent": [announcement_doc(a) for a in found]})


@api
async def announce(request: Request) -> Response:
    _, admin = await _staff(request, "announce")
    body = await read_body(request, AnnounceIn)
    if body.text is None:
        await _call(admin.end_announcement)
        return _json({"announcement": None})
    shown = await _call(admin.announce, body.text, body.hours)
    return _json({"announcement": announcement_doc(shown)})


def _match_id(request: Request) -> str:
    match_id = str(request.path_params["match_id"])
    if not storable_game_id(match_id):
        raise HttpError(404, "not_found", "no such match")
    return match_id


@api
async def match_hands(request: Request) -> Response:
    """A match's finished hands and its players, for reading what a report is about."""
    _, admin = await _staff(request, "replays")
    match_id = _match_id(request)
    numbers, names = await _call(admin.match_hands, match_id)
    return _json({"match_id": match_id, "hands": numbers, "players": names})


@api
async def hand_frames(request: Request) -> Response:
    """A hand's replay frames (the players' own viewer's), of any finished hand."""
    _, admin = await _staff(request, "replays")
    hand = hand_named(request)
    rec = None if hand is None else await asyncio.to_thread(admin.store.staff_hand_record, *hand)
    if rec is None:
        raise HttpError(404, "not_found", "no such finished hand")
    return gzipped_json(request, await asyncio.to_thread(frames_body, rec))


def staff_routes() -> list[Route]:
    return [
        Route("/api/staff", staff_home, methods=["GET"]),
        Route("/api/staff/reports", reports, methods=["GET"]),
        Route("/api/staff/reports/{report}/close", report_close, methods=["POST"]),
        Route("/api/staff/accounts/{username}", account, methods=["GET"]),
        Route("/api/staff/accounts/{username}", account_action, methods=["POST"]),
        Route("/api/staff/tables", tables, methods=["GET"]),
        Route("/api/staff/drain", drain, methods=["POST"]),
        Route("/api/staff/clubs", clubs, methods=["GET"]),
        Route("/api/staff/clubs/{club}/dissolve", club_dissolve, methods=["POST"]),
        Route("/api/staff/tournaments", tournaments, methods=["GET"]),
        Route("/api/staff/tournaments/{tournament}/cancel", tournament_cancel,
              methods=["POST"]),
        Route("/api/staff/fairplay", fairplay, methods=["GET"]),
        Route("/api/staff/log", event_log, methods=["GET"]),
        Route("/api/staff/audit", audit, methods=["GET"]),
        Route("/api/staff/announcement", announcement, methods=["GET"]),
        Route("/api/staff/announcement", announce, methods=["POST"]),
        Route("/api/staff/matches/{match_id}", match_hands, methods=["GET"]),
        Route("/api/staff/matches/{match_id}/hands/{hand_no:whole}/frames", hand_frames,
              methods=["GET"]),
    ]
