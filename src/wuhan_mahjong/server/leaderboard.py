"""``GET /api/leaderboard``: the best-rated players of a profile, all time or this week.

::

    GET /api/leaderboard?profile=yuanhang&period=all|week
    → {"profile", "period", "min_matches", "since", "players": [{rank, username, rating,
       matches}]}

Public (no token), like lichess's leaderboards.  Ratings come from matches of
four humans only (``store/ratings.py`` has the rules: openskill, escapers last,
the shown rating ``1000 + 40 (mu - 3 sigma)``); a player appears once he has
:data:`~wuhan_mahjong.store.ratings.MIN_MATCHES` rated matches in the period
(``since``: for ``week``, Monday 00:00 on the calendar of the server's ``timezone``
setting, as a UTC time).  Guests and banned accounts are left
out.  The profile page shows each player's own ratings beside his level title
(:func:`profile_ratings`, in ``GET /api/profile``).
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..rules import PROFILES
from ..store import Store
from ..store.models import utcnow
from ..store.ratings import MIN_MATCHES, leaderboard, ratings_of, week_start
from .config import calendar_zone

__all__ = ["LEADERBOARD_SIZE", "LeaderboardOut", "RatingOut", "leaderboard_routes",
           "profile_ratings"]

LEADERBOARD_SIZE = 100
CACHE_SECONDS = 10.0
"""A leaderboard is computed at most once per this many seconds per application (a public
page anyone may reload: the database answers each (profile, period) a few times a minute)."""


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class RatingOut(_Out):
    """One of a player's ratings (``GET /api/profile`` → ``ratings``)."""

    profile: str
    rating: int
    mu: float
    sigma: float
    matches: int


class LeaderLine(_Out):
    rank: int
    username: str
    rating: int
    matches: int


class LeaderboardOut(_Out):
    profile: str
    period: Literal["all", "week"]
    min_matches: int
    since: datetime | None
    players: list[LeaderLine]


async def profile_ratings(store: Store, account_id: int) -> list[RatingOut]:
    """An account's ratings, one per profile it has played rated matches in."""
    found = await asyncio.to_thread(ratings_of, store, account_id)
    return [RatingOut(profile=r.profile, rating=r.rating, mu=round(r.mu, 3),
                      sigma=round(r.sigma, 3), matches=r.matches) for r in found]


def _bad(message: str) -> Response:
    return JSONResponse({"error": {"code": "invalid_request", "message": message, "params": {}}},
                        status_code=400)


async def get_leaderboard(request: Request) -> Response:
    profile = request.query_params.get("profile", "yuanhang")
    period = request.query_params.get("period", "all")
    if profile not in PROFILES:
        return _bad(f"unknown profile '{profile[:32]}' (choose from {', '.join(sorted(PROFILES))})")
    if period not in ("all", "week"):
        return _bad("period is 'all' or 'week'")
    state = request.app.state
    cache: dict[tuple[str, str, int], tuple[float, bytes]] = getattr(state, "leaderboards", {})
    state.leaderboards = cache
    key = (profile, period, MIN_MATCHES)
    hit = cache.get(key)
    if hit is not None and time.monotonic() - hit[0] < CACHE_SECONDS:
        return Response(hit[1], media_type="application/json")
    now = utcnow()
    store: Store = state.hub.store
    zone = calendar_zone(state.hub.config.timezone)
    lines = await asyncio.to_thread(leaderboard, store, profile, "week" if period == "week"
                                    else "all", min_matches=MIN_MATCHES,
                                    limit=LEADERBOARD_SIZE, now=now, zone=zone)
    out = LeaderboardOut(
        profile=profile, period="week" if period == "week" else "all", min_matches=MIN_MATCHES,
        since=week_start(now, zone) if period == "week" else None,
        players=[LeaderLine(rank=ln.rank, username=ln.username, rating=ln.rating,
                            matches=ln.matches) for ln in lines])
    body = out.model_dump_json().encode()
    cache[key] = (time.monotonic(), body)
    return Response(body, media_type="application/json")


def leaderboard_routes() -> list[Route]:
    return [Route("/api/leaderboard", get_leaderboard, methods=["GET"])]
