"""The Starlette application: the HTTP API, the WebSocket endpoint and the static client.

Routes (``docs/server.md`` and ``docs/protocol.md`` have the details)::

    POST /api/register   {username, password}          → {token, expires_at, account}
    POST /api/login      {username, password}          → {token, expires_at, account}
    POST /api/guest                                    → {token, expires_at, account}
    POST /api/upgrade    {username, password}  (guest) → {account}
    POST /api/logout                           (token) → {ok}; closes that session's socket
    POST /api/password   {old_password, new_password} (token) → {token, expires_at, account}
    GET  /api/profile                          (token) → account, level, match history
    GET  /api/matches/{match_id}/hands         (token) → the hand numbers you sat at
    GET  /api/matches/{match_id}/hands/{n}     (token) → that hand's record (replay)
    GET  /api/leaderboard?profile=&period=all|week     → best-rated players (leaderboard.py)
    GET  /api/players/{username}                       → a player's public page: level, ratings
    GET|POST /api/tournaments[/{id}[/join|withdraw|start|cancel]] → tournaments (tournaments.py)
    GET  /api/following                        (token) → the players you follow, online or not
    POST|DELETE /api/following/{username}      (token) → follow / stop following him
    GET  /api/health                                   → {ok, protocol, tables, connections}
    GET  /healthz, /readyz, /metrics                   → liveness, readiness, Prometheus (observability.py)
    POST /api/score      a settlement record            → what `wuhan-mahjong score` prints
    POST /api/hand       {hand, indicator, melds, ...}  → what `wuhan-mahjong hand --json` prints
    WS   /ws                                           → the game protocol
    GET  /...                                          → the browser client (web/)

HTTP tokens travel as ``Authorization: Bearer <token>``, never in a URL.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from starlette.routing import Match, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from ..bots.hints import hint
from ..engine import seat_view
from ..store import (
    Account,
    AccountInMatch,
    AuthenticationFailed,
    Store,
    open_store,
    points_to_next_level,
)
from ..store.database import is_transient
from ..store.levels import level_for_points
from ..store.models import storable_game_id
from ..store.ratings import MIN_MATCHES, public_player
from ..store.social import (
    FOLLOW_MAX,
    FollowError,
    follow,
    followers_among,
    following,
    unfollow,
)
from ..store.staff import role_of
from .admin import keep_house, watch_admin
from .blocks_api import blocks_routes
from .bot_worker import shared_worker
from .calculator import AddressLimiter, calculator_routes
from .clubs_api import club_routes
from .cluster import join_cluster
from .cluster_limits import share_limits
from .config import ServerConfig, database_url, default_bot, redis_url
from .export_api import EXPORT_BURST, EXPORT_RATE, export_routes
from .http import (
    NAME_INPUT_MAX,
    Endpoint,
    HttpError,
    HttpErrorCode,
    RequestModel,
    ResponseModel,
    account_of,
    api,
    bearer_token,
    client_address,
    database_away,
    error_response,
    hub_of,
    limit,
    maybe_account,
    ok,
    read_body,
)
from .hub import Hub, TablePlace, serve_websocket
from .leaderboard import RatingOut, leaderboard_routes, profile_ratings
from .limits import watch_abandoned
from .observability import emit, observability_routes
from .protocol import PROTOCOL_VERSION, AccountInfo
from .puzzles_api import puzzle_routes
from .pwa import pwa_routes
from .ratelimit import LoginGuard, LoginLimits
from .replays import replay_routes
from .reports_api import report_routes
from .review_api import REVIEW_BURST, REVIEW_RATE, review_routes
from .rules_api import rules_routes
from .security import HardenedStarlette, ResponseCache, redact_access_logs, trust_proxies
from .spectate import spectate_routes
from .staff_api import staff_routes
from .stats_api import StatsOut, stats_out
from .tournaments import TournamentRunner, tournament_routes

__all__ = ["HttpErrorCode", "create_app", "web_dir"]

log = logging.getLogger("wuhan_mahjong.server")

HAND_NO_MAX = 2**31 - 1
"""The largest hand number a record can have (the column is a 32-bit integer)."""

M = TypeVar("M", bound=BaseModel)

PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Wuhan Mahjong 武汉麻将</title></head>
<body><h1>Wuhan Mahjong 武汉麻将</h1>
<p>The game server is running. The browser client is not installed yet.</p>
<p>Protocol: <code>/ws</code> (version {version}); API: <code>/api/health</code>.</p>
</body></html>
"""


def web_dir(config: ServerConfig) -> Path:
    if config.web_dir is not None:
        return config.web_dir
    return Path(__file__).resolve().parent.parent / "web"


# --------------------------------------------------------------------------- HTTP models


class Credentials(RequestModel):
    username: str = Field(max_length=NAME_INPUT_MAX)
    password: str = Field(max_length=256)


class LoginOut(ResponseModel):
    token: str
    expires_at: datetime | None
    account: AccountInfo


class AccountOut(ResponseModel):
    account: AccountInfo


class HistoryLine(ResponseModel):
    match_id: str
    profile: str
    kind: Literal["game", "escape"] | str
    finished_at: datetime
    points: int
    silver: int
    fee: int
    escaped: bool


class ProfileOut(ResponseModel):
    account: AccountInfo
    points_to_next_level: int | None
    history: list[HistoryLine]
    ratings: list[RatingOut] = Field(default_factory=list)
    """Skill ratings per profile (matches of four humans; server/leaderboard.py)."""
    stats: list[StatsOut] = Field(default_factory=list)
    """His statistics (战绩) per profile he has played (server/stats_api.py)."""
    staff: str | None = None
    """His staff role (``moderator``, ``admin``: the staff pages, ``#/staff``), else null."""


class RatingPointOut(ResponseModel):
    at: datetime
    rating: int


class PlayerRatingOut(ResponseModel):
    profile: str
    rating: int
    matches: int
    place: int | None
    """The player's place on the profile's all-time leaderboard (``None``: too few matches)."""
    history: list[RatingPointOut]
    """The shown rating before his newest rated matches (at most
    ``store.ratings.HISTORY_POINTS``) and after each, oldest first: his page's curve."""


class PlayingOut(ResponseModel):
    """The table a player sits at now, when anyone may watch it (``GET /api/tables/live``)."""

    table_id: str
    profile: str
    hand_no: int
    hands: int


class PlayerOut(ResponseModel):
    """``GET /api/players/{username}``: what anyone may see of a player (no silver, no
    history: a hand's record stays its players' unless published)."""

    username: str
    level: int
    title: str
    title_en: str
    rank: str
    rank_en: str
    joined: datetime
    min_matches: int
    ratings: list[PlayerRatingOut]
    stats: list[StatsOut] = Field(default_factory=list)
    """His statistics (战绩) per profile (server/stats_api.py), without replay links."""
    playing: PlayingOut | None = None
    """His table now, if it may be watched, on any node of a cluster."""
    followed: bool | None = None
    """Whether the asker follows him (``None``: asked without a token, or about oneself)."""


class FollowedOut(ResponseModel):
    username: str
    online: bool
    playing: PlayingOut | None
    follows_you: bool
    """He follows you too: a friend, whom you may invite into your room."""


class FollowedNow(ResponseModel):
    username: str
    following: bool


class FollowingOut(ResponseModel):
    """``GET /api/following``: the players one follows, with their presence."""

    players: list[FollowedOut]
    max: int


class HandsOut(ResponseModel):
    match_id: str
    hands: list[int]
    players: list[str | None]
    """Who sat where (names by seat, as in the first of ``hands``: a match's seats stay)."""
    seat: int | None
    """The caller's seat."""


class RecordOut(ResponseModel):
    match_id: str
    hand_no: int
    commitment: str
    wall: str
    salt: str
    seats: dict[int, int]
    finished_at: datetime | None
    events: list[dict[str, Any]]


class HealthOut(ResponseModel):
    ok: bool
    protocol: int
    tables: int
    connections: int


_ROUTING_CODES: dict[int, tuple[HttpErrorCode, str]] = {
    404: ("not_found", "no such API route"),
    405: ("method_not_allowed", "this API route does not take that method"),
}


def _methods_of_path(request: Request) -> set[str]:
    """The methods of the app's routes whose path matches the request's (its method not)."""
    allowed: set[str] = set()
    for route in request.app.router.routes:
        if isinstance(route, Route) and route.methods:
            match, _ = route.matches(request.scope)
            if match is Match.PARTIAL:
                allowed |= route.methods
    return allowed


def _is_api(path: str) -> bool:
    """Whether ``path`` is the API's: ``/api`` itself too (what ``/api/x/..`` comes to)."""
    return path == "/api" or path.startswith("/api/")


async def _routing_error(request: Request, exc: Exception) -> Response:
    """Starlette's own 404 and 405 (no route matched, a route's other method): under
    ``/api/`` the API's error shape, so that a program reads every API answer the same
    way; elsewhere (the client's files) Starlette's plain text, as before."""
    assert isinstance(exc, HTTPException)
    headers = dict(exc.headers) if exc.headers else None
    if exc.status_code in {204, 304}:
        return Response(status_code=exc.status_code, headers=headers)
    if _is_api(request.url.path):
        status = exc.status_code
        if status in (404, 405):
            # the routes decide, not the client's files mounted at "/": that mount matches
            # every path, and wins over a route matching the path with another method
            # (404 for GET /api/login) or answers 405 on a path no route has
            allowed = _methods_of_path(request)
            status = 405 if allowed else 404
            headers = ({**(headers or {}), "Allow": ", ".join(sorted(allowed))} if allowed
                       else None)
        code, message = _ROUTING_CODES.get(status, ("invalid_request", str(exc.detail)))
        return error_response(status, code, message, headers)
    return PlainTextResponse(str(exc.detail), status_code=exc.status_code, headers=headers)


async def _unexpected_error(request: Request, exc: Exception) -> Response:
    """A fault no handler caught (a bug): under ``/api/`` the API's 500 shape, elsewhere
    Starlette's plain text.  Starlette raises the exception again after this answer, so
    the server's log still has its traceback."""
    if _is_api(request.url.path):
        if is_transient(exc):
            return database_away()
        return error_response(500, "server_error", "an internal error (the server's log has it)")
    return PlainTextResponse("Internal Server Error", status_code=500)


# --------------------------------------------------------------------------- handlers
def _per_hour(count: int) -> AddressLimiter | None:
    """``count`` per hour and address, all at once at most; 0: no limit."""
    return AddressLimiter(count / 3600, count) if count > 0 else None


@api
async def register(request: Request) -> Response:
    await limit(request, request.app.state.register_limit, client_address(request), "sign-ups")
    creds = await read_body(request, Credentials)
    store = hub_of(request).store
    await asyncio.to_thread(store.register, creds.username, creds.password)
    login = await asyncio.to_thread(store.login, creds.username, creds.password)
    return ok(LoginOut(token=login.token, expires_at=login.expires_at,
                        account=Hub.account_info(login.account)), 201)


@api
async def login(request: Request) -> Response:
    creds = await read_body(request, Credentials)
    guard: LoginLimits = request.app.state.login_guard
    client = request.client.host if request.client else "unknown"
    wait = await guard.check(client, creds.username)
    if wait > 0:
        seconds = math.ceil(wait)
        raise HttpError(429, "rate_limited",
                        f"too many failed logins: try again in {seconds} s",
                        {"Retry-After": str(seconds)}, params={"seconds": seconds})
    try:
        result = await asyncio.to_thread(hub_of(request).store.login, creds.username, creds.password)
    except AuthenticationFailed:
        await guard.record(client, creds.username, ok=False)
        emit("login_failure", logging.WARNING, username=creds.username, address=client)
        raise
    await guard.record(client, creds.username, ok=True)
    return ok(LoginOut(token=result.token, expires_at=result.expires_at,
                        account=Hub.account_info(result.account)))


@api
async def guest(request: Request) -> Response:
    await limit(request, request.app.state.guest_limit, client_address(request), "guest accounts")
    result = await asyncio.to_thread(hub_of(request).store.create_guest)
    return ok(LoginOut(token=result.token, expires_at=result.expires_at,
                        account=Hub.account_info(result.account)), 201)


@api
async def upgrade(request: Request) -> Response:
    account = await account_of(request)
    await limit(request, request.app.state.register_limit, client_address(request), "sign-ups")
    creds = await read_body(request, Credentials)
    if not account.is_guest:
        raise HttpError(400, "not_a_guest", "only a guest account can be upgraded")
    new = await asyncio.to_thread(hub_of(request).store.upgrade_guest, account.id, creds.username,
                                  creds.password)
    return ok(AccountOut(account=Hub.account_info(new)))


@api
async def logout(request: Request) -> Response:
    """End the session; its WebSocket (if open) is closed at once."""
    token = bearer_token(request)
    hub = hub_of(request)
    account = await hub.authenticate(token)
    await asyncio.to_thread(hub.store.logout, token)
    if account is not None:
        hub.close_sessions(account.id, token)
    return JSONResponse({"ok": True})


async def _password_guard(request: Request, account: Account) -> tuple[LoginLimits, str]:
    """The login guard and the caller's address, for a request that checks the account's
    password (a wrong one counts as a failed login: a stolen token cannot guess it); 429
    while the guard holds the account or the address back."""
    guard: LoginLimits = request.app.state.login_guard
    client = client_address(request)
    wait = await guard.check(client, account.username)
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise HttpError(429, "rate_limited", f"too many failed logins: try again in {seconds} s",
                        {"Retry-After": str(seconds)})
    return guard, client


class PasswordChange(RequestModel):
    old_password: str = Field(max_length=256)
    new_password: str = Field(max_length=256)


@api
async def change_password(request: Request) -> Response:
    """Set a new password: every session of the account ends and its socket closes; the
    answer carries a fresh session for the caller."""
    account = await account_of(request)
    body = await read_body(request, PasswordChange)
    hub = hub_of(request)
    guard, client = await _password_guard(request, account)
    try:
        await asyncio.to_thread(hub.store.change_password, account.id, body.old_password,
                                body.new_password)
    except AuthenticationFailed:
        await guard.record(client, account.username, ok=False)
        raise
    await asyncio.to_thread(hub.store.logout_everywhere, account.id)
    hub.close_sessions(account.id)
    result = await asyncio.to_thread(hub.store.login, account.username, body.new_password)
    return ok(LoginOut(token=result.token, expires_at=result.expires_at,
                        account=Hub.account_info(result.account)))


class AccountClose(RequestModel):
    password: str | None = Field(default=None, max_length=256)
    """The account's password (a guest has none: his session is his credential)."""


@api
async def close_account(request: Request) -> Response:
    """Close the caller's account for good (注销, ``store/closing.py``): its name, password,
    sessions and follows go, its silver goes to the house; his connection closes.  A
    wrong password counts as a failed login; 409 ``in_match`` while he sits in a running
    match."""
    account = await account_of(request)
    body = await read_body(request, AccountClose)
    hub = hub_of(request)
    guard, client = await _password_guard(request, account)
    if await hub.seated([account.id]):
        # seated, or being seated: the store finds a running match only once it is opened
        raise HttpError(409, "in_match", "you sit at a table: close the account once the "
                        "match is over")
    try:
        silver = await asyncio.to_thread(hub.store.close_account, account.id, body.password)
    except AuthenticationFailed:
        await guard.record(client, account.username, ok=False)
        raise
    except AccountInMatch as e:
        raise HttpError(409, "in_match", str(e)) from e
    hub.close_sessions(account.id)
    emit("account_closed", account_id=account.id, silver=silver)
    return JSONResponse({"ok": True})


@api
async def profile(request: Request) -> Response:
    account = await account_of(request)
    history = await asyncio.to_thread(hub_of(request).store.match_history, account.id)
    ratings = await profile_ratings(hub_of(request).store, account.id)
    stats = await stats_out(hub_of(request).store, account.id, own=True)
    staff = await asyncio.to_thread(role_of, hub_of(request).store, account.id)
    return ok(ProfileOut(
        ratings=ratings, stats=stats, staff=staff,
        account=Hub.account_info(account), points_to_next_level=points_to_next_level(account.points),
        history=[HistoryLine(match_id=h.match_id, profile=h.profile, kind=h.kind,
                             finished_at=h.finished_at, points=h.points_delta, silver=h.silver_delta,
                             fee=h.fee, escaped=h.escaped) for h in history]))


@api
async def player(request: Request) -> Response:
    """A player's public page: level, title, ratings and places; 404 for nobody by that name,
    a guest or a banned account.  Public, and each a database read: the replays' allowance."""
    await limit(request, request.app.state.replay_limit, client_address(request),
                 "player pages")
    name = request.path_params["username"]
    hub = hub_of(request)
    found = (await asyncio.to_thread(public_player, hub.store, name)
             if 0 < len(name) <= NAME_INPUT_MAX else None)
    if found is None:
        raise HttpError(404, "not_found", "no such player")
    level = level_for_points(found.points)
    followed = None
    asker = await maybe_account(request)
    if asker is not None and asker.id != found.account_id:
        followed = bool(await asyncio.to_thread(followers_among, hub.store, found.account_id,
                                                [asker.id]))
    stats = await stats_out(hub.store, found.account_id, own=False)
    playing = await hub.playing([found.account_id])
    return ok(PlayerOut(playing=_playing(playing.get(found.account_id)), followed=followed,
        stats=stats,
        username=found.username, level=level.number, title=level.title_zh,
        title_en=level.title_en, rank=level.rank_zh, rank_en=level.rank_en, joined=found.joined,
        min_matches=MIN_MATCHES,
        ratings=[PlayerRatingOut(profile=r.profile, rating=r.rating, matches=r.matches,
                                 place=r.place,
                                 history=[RatingPointOut(at=p.at, rating=p.rating)
                                          for p in r.history])
                 for r in found.ratings]))


def _playing(table: dict[str, Any] | None) -> PlayingOut | None:
    """A player's table (an entry of ``Hub.playing``: on any node of a cluster)."""
    if table is None:
        return None
    return PlayingOut(table_id=table["table_id"], profile=table["profile"],
                      hand_no=table["hand_no"], hands=table["hands"])


@api
async def following_list(request: Request) -> Response:
    account = await account_of(request)
    hub = hub_of(request)
    followed = await asyncio.to_thread(following, hub.store, account.id)
    ids = [a for a, _ in followed]
    online = await hub.online(ids)
    back = await asyncio.to_thread(followers_among, hub.store, account.id, ids)
    tables = await hub.playing(ids)
    return ok(FollowingOut(max=FOLLOW_MAX, players=[
        FollowedOut(username=name, online=a in online, playing=_playing(tables.get(a)),
                    follows_you=a in back)
        for a, name in followed]))


@api
async def follow_player(request: Request) -> Response:
    """``POST`` follows the player, ``DELETE`` stops (both idempotent)."""
    account = await account_of(request)
    name = request.path_params["username"]
    store = hub_of(request).store
    if request.method == "DELETE":
        await asyncio.to_thread(unfollow, store, account.id, name[:NAME_INPUT_MAX])
        return ok(FollowedNow(username=name[:NAME_INPUT_MAX], following=False))
    if not 0 < len(name) <= NAME_INPUT_MAX:
        raise HttpError(404, "not_found", "no such player")
    try:
        found = await asyncio.to_thread(follow, store, account.id, name)
    except FollowError as e:
        if e.code == "not_found":
            raise HttpError(404, "not_found", str(e)) from None
        raise HttpError(400, "invalid_request", str(e), params={"problem": e.code,
                                                                "max": FOLLOW_MAX}) from None
    return ok(FollowedNow(username=found, following=True))


@api
async def hands(request: Request) -> Response:
    await limit(request, request.app.state.replay_limit, client_address(request),
                 "replay requests")  # each is a database read: the replays' allowance
    account = await account_of(request)
    match_id = request.path_params["match_id"]
    numbers = [] if not storable_game_id(match_id) else await asyncio.to_thread(
        hub_of(request).store.hand_numbers, match_id, viewer=account.id)
    if not numbers:
        raise HttpError(404, "not_found", "no finished hand of that match that you sat at")
    store = hub_of(request).store
    players = await asyncio.to_thread(store.hand_players, match_id, numbers[0])
    seat = await asyncio.to_thread(store.hand_seat, match_id, numbers[0], viewer=account.id)
    return ok(HandsOut(match_id=match_id, hands=numbers, players=players, seat=seat))


@api
async def record(request: Request) -> Response:
    await limit(request, request.app.state.replay_limit, client_address(request),
                 "replay requests")
    account = await account_of(request)
    match_id = request.path_params["match_id"]
    hand_no = request.path_params["hand_no"]
    if not 0 <= hand_no <= HAND_NO_MAX or not storable_game_id(match_id):  # no such hand
        raise HttpError(404, "not_found", "no finished hand of that match that you sat at")
    rec = await asyncio.to_thread(hub_of(request).store.hand_record, match_id, hand_no,
                                  viewer=account.id)
    if rec is None:
        raise HttpError(404, "not_found", "no finished hand of that match that you sat at")
    events = [json.loads(line) for line in rec.events.splitlines() if line.strip()]
    return ok(RecordOut(match_id=rec.match_id, hand_no=rec.hand_no, commitment=rec.commitment,
                         wall=rec.wall, salt=rec.salt, seats=dict(rec.seats),
                         finished_at=rec.finished_at, events=events))


@api
async def hint_for_seat(request: Request) -> Response:
    """Help for the caller's own hand at his current table (提示: shanten, waits with
    unseen counts, best discards).  Computed from his seat view alone, off the event
    loop; the view is taken in the loop, so the table is never read from a thread.

    Between hands, after the match or away from a table there is no help to give:
    that is an answer (200, ``{"hint": null, "reason": ...}``), not an error, since a
    client's request may race the end of a hand."""
    account = await account_of(request)
    state = request.app.state
    await limit(request, state.hint_limit, f"account {account.id}", "hints")
    await limit(request, state.hint_address_limit, client_address(request), "hints")
    place = hub_of(request).where.get(account.id)
    hand = place.table.hand if isinstance(place, TablePlace) else None
    if hand is None or hand.ended or not isinstance(place, TablePlace):
        return JSONResponse({"hint": None, "reason": "no hint now: you are not playing a hand"})
    view = seat_view(hand, place.seat)
    cache: ResponseCache = state.hint_cache
    key = json.dumps(view, sort_keys=True)
    return JSONResponse(await cache.get(key, lambda: asyncio.to_thread(hint, view)))


async def health(request: Request) -> Response:
    hub = hub_of(request)
    return ok(HealthOut(ok=True, protocol=PROTOCOL_VERSION, tables=len(hub.tables),
                         connections=len(hub.clients)))


class NowOut(ResponseModel):
    """``GET /api/now``: the lobby's *在线 N 人 · M 桌对局中*."""

    online: int
    """Players connected to the platform (every node of a cluster)."""
    tables: int
    """Matches running."""


NOW_SECONDS = 2.0
"""How long one node reuses its answer to ``GET /api/now`` (every lobby asks it)."""


@api
async def now_playing(request: Request) -> Response:
    """How many play now, over the platform (public, as app lobbies show it)."""
    state = request.app.state
    kept: tuple[float, bytes] | None = getattr(state, "now_answer", None)
    if kept is not None and time.monotonic() - kept[0] < NOW_SECONDS:
        return Response(kept[1], media_type="application/json")
    online, tables = await hub_of(request).platform_counts()
    body = NowOut(online=online, tables=tables).model_dump_json().encode()
    state.now_answer = (time.monotonic(), body)
    return Response(body, media_type="application/json")


CLIENT_CACHE = {"Cache-Control": "no-cache"}
"""How browsers may keep the client's files: only as long as the server says they are
unchanged (each use is a conditional request, answered ``304`` by their ETag).  Without it
a browser reused a file for a tenth of its age without asking, so after an upgrade a page
could run yesterday's ``app.js`` against today's server for days."""


class ClientFiles(StaticFiles):
    """The browser client's folder, with :data:`CLIENT_CACHE`."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers.update(CLIENT_CACHE)
        return response


def _index(folder: Path) -> Endpoint:
    async def index(request: Request) -> Response:
        page = folder / "index.html"
        if page.is_file():
            return FileResponse(page, headers=CLIENT_CACHE)
        return HTMLResponse(PLACEHOLDER.replace("{version}", str(PROTOCOL_VERSION)),
                            headers=CLIENT_CACHE)

    return index


# --------------------------------------------------------------------------- the app
def create_app(config: ServerConfig | None = None, *, store: Store | None = None) -> Starlette:
    """Build the application.  Without ``store`` the lifespan opens (and migrates) the
    configured database and closes it on shutdown; a given store stays open."""
    cfg = config or ServerConfig()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        own = store is None
        opened = store if store is not None else await asyncio.to_thread(
            open_store, database_url(cfg), starting_silver=cfg.starting_silver)
        # The bot pool starts with the server, in a thread: starting a process pool (its
        # forkserver, its workers' imports) blocks for up to seconds on a busy machine, which
        # in the event loop, as it once was with the first table, stalled every socket.
        await asyncio.to_thread(shared_worker, cfg.bot_worker, cfg.bot_workers)
        hub = Hub(cfg, opened, cfg.bot or default_bot(cfg.bot_delay))
        app.state.hub = hub
        hub.spectate.limiter = app.state.watch_limit  # this process's, or the cluster's
        hub.background(asyncio.get_running_loop().create_task(watch_admin(hub)))
        hub.background(asyncio.get_running_loop().create_task(keep_house(hub)))
        hub.background(asyncio.get_running_loop().create_task(hub.admission.watch()))
        hub.background(asyncio.get_running_loop().create_task(watch_abandoned(hub)))
        cluster = await join_cluster(hub)
        if cluster is None:
            await hub.resume_matches()
            await hub.lobby.restore_rooms()  # after the matches: their players are seated
        # after the resumed matches: a tournament's running tables are seated already
        hub.tournaments = TournamentRunner(hub)
        hub.background(asyncio.get_running_loop().create_task(hub.tournaments.run()))
        try:
            yield
        finally:
            await hub.shutdown()
            if cluster is not None:
                await cluster.close()
            if own:
                opened.close()

    folder = web_dir(cfg)
    login_guard = LoginGuard(cfg.login_failures, cfg.login_failures_per_client, cfg.login_window)
    routes: list[Route | WebSocketRoute | Mount] = [
        Route("/api/register", register, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/guest", guest, methods=["POST"]),
        Route("/api/upgrade", upgrade, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/password", change_password, methods=["POST"]),
        Route("/api/account/close", close_account, methods=["POST"]),
        *export_routes(),
        *report_routes(),
        *review_routes(),
        *puzzle_routes(),
        *club_routes(),
        *blocks_routes(),
        Route("/api/profile", profile, methods=["GET"]),
        Route("/api/players/{username}", player, methods=["GET"]),
        Route("/api/following", following_list, methods=["GET"]),
        Route("/api/following/{username}", follow_player, methods=["POST", "DELETE"]),
        *leaderboard_routes(),
        *tournament_routes(),
        Route("/api/matches/{match_id}/hands", hands, methods=["GET"]),
        Route("/api/matches/{match_id}/hands/{hand_no:whole}", record, methods=["GET"]),
        Route("/api/health", health, methods=["GET"]),
        Route("/api/now", now_playing, methods=["GET"]),
        Route("/api/hint", hint_for_seat, methods=["GET"]),
        *rules_routes(),
        *staff_routes(),
        *calculator_routes(AddressLimiter(cfg.calc_rate, cfg.calc_burst)),
        *replay_routes(),
        *spectate_routes(),
        *observability_routes(),
        WebSocketRoute("/ws", serve_websocket),
        *pwa_routes(folder, CLIENT_CACHE),  # /sw.js and /manifest.webmanifest: the installable client
        Route("/", _index(folder), methods=["GET"]),
        # without the client's folder (a server built without it) the index is the
        # placeholder page and any other path a plain 404, not StaticFiles' 500
        *([Mount("/", ClientFiles(directory=folder), name="web")] if folder.is_dir() else []),
    ]
    app = HardenedStarlette(routes=routes, lifespan=lifespan,
                            exception_handlers={HTTPException: _routing_error,
                                                Exception: _unexpected_error})
    app.state.login_guard = login_guard
    app.state.register_limit = _per_hour(cfg.register_per_hour)
    app.state.guest_limit = _per_hour(cfg.guests_per_hour)
    app.state.hint_limit = AddressLimiter(cfg.hint_rate, cfg.hint_burst)
    app.state.hint_address_limit = AddressLimiter(4 * cfg.hint_rate, 4 * cfg.hint_burst)
    app.state.replay_limit = AddressLimiter(cfg.replay_rate, cfg.replay_burst)
    app.state.live_limit = AddressLimiter(cfg.replay_rate, cfg.replay_burst)
    app.state.tournament_limit = AddressLimiter(cfg.replay_rate, cfg.replay_burst)
    app.state.club_limit = AddressLimiter(cfg.replay_rate, cfg.replay_burst)
    app.state.staff_limit = AddressLimiter(cfg.replay_rate, cfg.replay_burst)
    app.state.watch_limit = AddressLimiter(cfg.watch_rate, cfg.watch_burst)
    app.state.export_limit = AddressLimiter(EXPORT_RATE, EXPORT_BURST)
    app.state.review_limit = AddressLimiter(REVIEW_RATE, REVIEW_BURST)
    app.state.puzzle_limit = AddressLimiter(cfg.puzzle_rate, cfg.puzzle_burst)
    app.state.hint_cache = ResponseCache()
    shared = redis_url(cfg)
    if shared is not None:  # a cluster node: the limits count every node's requests
        share_limits(app, shared, cfg)
    trust_proxies(app, cfg.forwarded_allow_ips)
    redact_access_logs()
    return app
