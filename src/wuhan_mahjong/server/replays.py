"""Shareable replays: a player publishes a hand he played; anyone may watch it.

::

    GET    /api/hands/{match_id}/{n}/publish   (token, a player of the hand) → {"published": bool}
    POST   /api/hands/{match_id}/{n}/publish   (token, a player of the hand) → {"published": true}
    DELETE /api/hands/{match_id}/{n}/publish   (token, a player of the hand) → {"published": false}
    GET    /api/public/hands/{match_id}/{n}               (no token) → the record for the viewer
    GET    /api/public/hands/{match_id}/{n}/record.jsonl  (no token) → the record file
    GET    /api/matches/{match_id}/hands/{n}/frames  (token, a player of the hand) → replay frames
    GET    /api/public/hands/{match_id}/{n}/frames   (no token) → a published hand's replay frames

Hands are private by default, as on lichess a game's players choose what to share.
A hand is named as in the replay viewer, ``match_id/n``.  Anybody but the hand's
players gets 404 ``not_found`` from the publish routes, for a hand that exists or
not alike; a hand that is not published is 404 on the public routes.  The record
file is the stored JSON-lines record (``docs/records.md``) byte for byte, which
``wuhan-mahjong verify`` checks; the public answer carries its events and the
seats' player names (no account ids).  Every client address has a token bucket
(``replay_rate`` per second, ``replay_burst`` at once; 429 ``rate_limited`` beyond) for the
public routes and the frames, the app's ``state.replay_limit``: this process's, or on a
cluster node one counted in Redis over every node (:mod:`.cluster_limits`).

The replay viewer shows a hand from its ``frames``: the engine replays the stored record
and gives, step by step, what the table showed (:mod:`.replay_frames`), so the client
draws them with the renderer of live play and knows no rule.  Records never change, so
the frames of the last ``FRAMES_CACHED`` hands asked for are kept, gzipped (a hand of
~150 frames is ~0.4 MB of JSON but ~10 kB gzipped, in a
:class:`~wuhan_mahjong.server.security.ResponseCache` of their own), and a request that
arrives while they are being made waits for that one computation.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import math
import re
from collections.abc import Awaitable, Callable

import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..engine.records import load_records
from ..store import HandRecord, Store, UnknownAccount
from ..store.models import storable_game_id
from .calculator import AddressLimiter, AddressLimits
from .http import WholeNumberConvertor  # noqa: F401 (registers the routes' {hand_no:whole})
from .replay_frames import hand_frames
from .security import ResponseCache

__all__ = ["NOT_PUBLIC", "NOT_YOURS", "gzipped_json", "hand_named", "replay_routes"]

HAND_NO_MAX = 2**31 - 1
RATE = 10.0
"""Public record requests per second per client address, sustained (the default of
``ServerConfig.replay_rate``, when the routes are used without an app's limit)."""
BURST = 60
FRAMES_CACHED = 64
"""Hands whose gzipped frames are kept (a few MB at most)."""
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def _error(status: int, code: str, message: str, **params: str | int) -> Response:
    return JSONResponse({"error": {"code": code, "message": message, "params": params}}, status_code=status)


NOT_YOURS = "no finished hand of that match that you sat at"
NOT_PUBLIC = "no published hand of that match"


def hand_named(request: Request) -> tuple[str, int] | None:
    """The hand the path names, or ``None`` for one that cannot exist."""
    match_id = str(request.path_params["match_id"])
    hand_no = int(request.path_params["hand_no"])
    if not storable_game_id(match_id) or not 0 <= hand_no <= HAND_NO_MAX:
        return None
    return match_id, hand_no


def _store(request: Request) -> Store:
    store: Store = request.app.state.hub.store
    return store


async def _account_id(request: Request) -> int | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    account = await request.app.state.hub.authenticate(token.strip())
    return None if account is None else int(account.id)


async def publish_state(request: Request) -> Response:
    """GET, POST and DELETE of ``/api/hands/{match_id}/{n}/publish`` (the hand's players)."""
    viewer = await _account_id(request)
    if viewer is None:
        return _error(401, "not_authenticated", "send 'Authorization: Bearer <token>' of a valid session")
    hand = hand_named(request)
    if hand is None:
        return _error(404, "not_found", NOT_YOURS)
    store = _store(request)
    if request.method == "GET":
        state = await asyncio.to_thread(store.hand_published, *hand, viewer=viewer)
    else:
        state = await asyncio.to_thread(
            store.set_hand_published, *hand, account_id=viewer, published=request.method == "POST"
        )
    if state is None:
        return _error(404, "not_found", NOT_YOURS)
    return JSONResponse({"match_id": hand[0], "hand_no": hand[1], "published": state})


def _names(store: Store, seats: dict[int, int]) -> list[str | None]:
    out: list[str | None] = [None] * 4
    for seat, account_id in seats.items():
        try:
            out[seat] = store.account(account_id).username
        except UnknownAccount:
            out[seat] = None
    return out


def _limited(
    limiter: AddressLimits, handler: Callable[[Request], Awaitable[Response]], name: str = "replay_limit"
) -> Callable[[Request], Awaitable[Response]]:
    """``handler`` behind a per-address limit: the app's ``state.<name>`` when it has one
    (set once at start-up: this process's, or a cluster's in Redis), else ``limiter``."""

    async def handle(request: Request) -> Response:
        chosen: AddressLimits = getattr(request.app.state, name, None) or limiter
        wait = await chosen.check(request.client.host if request.client else "unknown")
        if wait > 0:
            seconds = max(1, math.ceil(min(wait, 3600.0)))
            resp = _error(
                429, "rate_limited", f"too many requests: try again in {seconds} s", seconds=seconds
            )
            resp.headers["Retry-After"] = str(seconds)
            return resp
        return await handler(request)

    return handle


async def public_hand(request: Request) -> Response:
    """A published hand for the replay viewer: its record's events and the players' names."""
    hand = hand_named(request)
    store = _store(request)
    rec = None if hand is None else await asyncio.to_thread(store.public_hand_record, *hand)
    if rec is None:
        return _error(404, "not_found", NOT_PUBLIC)
    names = await asyncio.to_thread(_names, store, dict(rec.seats))
    events = [json.loads(line) for line in rec.events.splitlines() if line.strip()]
    return JSONResponse(
        {
            "match_id": rec.match_id,
            "hand_no": rec.hand_no,
            "commitment": rec.commitment,
            "players": names,
            "published": True,
            "finished_at": rec.finished_at.isoformat() if rec.finished_at else None,
            "events": events,
        }
    )


async def public_record_file(request: Request) -> Response:
    """The published hand's record file (JSON lines), for ``wuhan-mahjong verify``."""
    hand = hand_named(request)
    rec = None if hand is None else await asyncio.to_thread(_store(request).public_hand_record, *hand)
    if rec is None:
        return _error(404, "not_found", NOT_PUBLIC)
    text = rec.events if rec.events.endswith("\n") else rec.events + "\n"
    name = _SAFE_NAME.sub("_", f"{rec.match_id}-{rec.hand_no}")[:120]
    return Response(
        text,
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="wuhan-mahjong-{name}.jsonl"'},
    )


def frames_body(rec: HandRecord) -> bytes:
    """The gzipped JSON answer of the frames routes for a stored hand."""
    frames = hand_frames(load_records(rec.events)[0])
    body = orjson.dumps({"match_id": rec.match_id, "hand_no": rec.hand_no, "frames": frames})
    return gzip.compress(body, compresslevel=6, mtime=0)


def takes_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header accepts gzip (``gzip;q=0`` refuses it)."""
    for item in accept_encoding.lower().split(","):
        name, _, params = item.partition(";")
        if name.strip() in ("gzip", "x-gzip", "*"):
            q = params.strip().removeprefix("q=").strip() if params.strip().startswith("q=") else "1"
            try:
                return float(q) > 0
            except ValueError:
                return False
    return False


def gzipped_json(request: Request, body: bytes, headers: dict[str, str] | None = None) -> Response:
    """``body`` (gzipped JSON) as the client accepts it: as it is, or unzipped."""
    headers = {"Vary": "Accept-Encoding", **(headers or {})}
    if takes_gzip(request.headers.get("accept-encoding", "")):
        headers["Content-Encoding"] = "gzip"
        return Response(body, media_type="application/json", headers=headers)
    return Response(gzip.decompress(body), media_type="application/json", headers=headers)


def _frames_routes(
    cache: ResponseCache,
) -> tuple[Callable[[Request], Awaitable[Response]], Callable[[Request], Awaitable[Response]]]:
    async def answer(request: Request, rec: HandRecord) -> Response:
        key = f"{rec.match_id}/{rec.hand_no}"
        body = await cache.get(key, lambda: asyncio.to_thread(frames_body, rec))
        return gzipped_json(request, body)

    async def own_frames(request: Request) -> Response:
        """A hand's frames for one of its players."""
        viewer = await _account_id(request)
        if viewer is None:
            return _error(401, "not_authenticated", "send 'Authorization: Bearer <token>' of a valid session")
        hand = hand_named(request)
        rec = (
            None
            if hand is None
            else await asyncio.to_thread(_store(request).hand_record, *hand, viewer=viewer)
        )
        if rec is None:
            return _error(404, "not_found", NOT_YOURS)
        return await answer(request, rec)

    async def public_frames(request: Request) -> Response:
        """A published hand's frames, for anyone."""
        hand = hand_named(request)
        rec = None if hand is None else await asyncio.to_thread(_store(request).public_hand_record, *hand)
        if rec is None:
            return _error(404, "not_found", NOT_PUBLIC)
        return await answer(request, rec)

    return own_frames, public_frames


def replay_routes(limiter: AddressLimiter | None = None) -> list[Route]:
    """The publish routes, the public ones and the frames, all behind one per-address
    limiter: the app's ``state.replay_limit``, else ``limiter``."""
    lim = limiter or AddressLimiter(RATE, BURST)
    base = "/api/hands/{match_id}/{hand_no:whole}/publish"
    public = "/api/public/hands/{match_id}/{hand_no:whole}"
    own_frames, public_frames = _frames_routes(ResponseCache(FRAMES_CACHED))
    return [
        Route(base, _limited(lim, publish_state), methods=["GET", "POST", "DELETE"]),
        Route(public, _limited(lim, public_hand), methods=["GET"]),
        Route(public + "/record.jsonl", _limited(lim, public_record_file), methods=["GET"]),
        Route(public + "/frames", _limited(lim, public_frames), methods=["GET"]),
        Route(
            "/api/matches/{match_id}/hands/{hand_no:whole}/frames", _limited(lim, own_frames), methods=["GET"]
        ),
    ]
