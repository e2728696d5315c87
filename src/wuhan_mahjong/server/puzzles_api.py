"""Discard puzzles (何切, ``bots/puzzles.py``) over HTTP, as lichess serves its puzzles:

``GET /api/puzzles/{profile}/{number}``
    the position (no answer), and the signed-in caller's first answer to it if he gave one;
``GET /api/puzzles/daily?profile=P``
    the puzzle of the day (每日一题), on the calendar of the ``timezone`` setting;
``POST /api/puzzles/{profile}/{number}/answer`` ``{"discard": "3p"}``
    whether it was the answer, the answer and every choice with its shanten and tile
    acceptance; for a signed-in caller his first answer is recorded and his record
    returned (``store/puzzles.py``);
``GET /api/puzzles/stats``
    the signed-in caller's record.

Anyone may ask and answer; only an account's first answers count in its record.  A
puzzle is a pure function of (profile, number), about 50 to 80 ms of CPU to find, so it is
found in the bot worker pool off the event loop (``server/jobs.py``, at most two at once
per node, :data:`PUZZLE_QUEUE` waiting) and kept (:data:`PUZZLES_CACHED`); each account (or
address, without one) may ask :data:`PUZZLE_BURST` at once and :data:`PUZZLE_RATE` a second
in the long run, counted over the cluster.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import Field
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..bots.puzzles import (
    PuzzleError,
    check_puzzle_id,
    daily_number,
    make_puzzle,
    puzzle_json,
)
from ..store.models import utcnow
from ..store.puzzles import PuzzleStats, puzzle_attempt, puzzle_stats, record_attempt
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
    maybe_account,
    ok,
    read_body,
)
from .jobs import JobQueue, job_queue

__all__ = ["PUZZLES_CACHED", "PUZZLE_BURST", "PUZZLE_QUEUE", "PUZZLE_RATE", "puzzle_routes"]

PUZZLE_RATE = 1.0
"""Puzzle requests (positions and answers) per second an account or address may make in
the long run."""
PUZZLE_BURST = 30
PUZZLE_QUEUE = 16
"""Puzzles that may wait to be found on this node; more are refused (429)."""
PUZZLES_CACHED = 4096
"""Puzzles kept per node (a few KB each): the day's puzzle and those being solved."""
NO_SUCH_PUZZLE = "no such puzzle"


class PuzzleMeldOut(ResponseModel):
    type: str
    kind: str | None
    tiles: str


class PuzzleAttemptOut(ResponseModel):
    discard: str
    correct: bool


class PuzzleOut(ResponseModel):
    profile: str
    number: int
    hand: str
    drawn: str | None
    melds: list[PuzzleMeldOut]
    indicator: str
    laizi: str
    turn: int
    wall_left: int
    dealer: bool
    discards: list[str]
    daily: str | None = None
    """The day (``YYYY-MM-DD``) whose puzzle this is, for the daily one."""
    attempt: PuzzleAttemptOut | None = None
    """The signed-in caller's first answer to it, if he gave one."""


class PuzzleStatsOut(ResponseModel):
    attempted: int
    solved: int
    streak: int
    best_streak: int


class PuzzleChoiceOut(ResponseModel):
    tile: str
    shanten: int
    acceptance: int
    kinds: str


class PuzzleAnswerIn(RequestModel):
    discard: str = Field(min_length=2, max_length=2)


class PuzzleAnswerOut(ResponseModel):
    correct: bool
    discard: str
    answer: str
    choices: list[PuzzleChoiceOut]
    first: PuzzleAttemptOut | None
    """The caller's first answer to the puzzle (this one, or an earlier one that counted)."""
    stats: PuzzleStatsOut | None


def puzzle_full(profile: str, number: int) -> dict[str, Any]:
    """The puzzle with its answer, as JSON: a module-level pure function (it runs in a
    worker process)."""
    return puzzle_json(make_puzzle(profile, number), answer=True)


def _queue(request: Request) -> JobQueue:
    return job_queue(request, "puzzles", lambda: JobQueue(
        "puzzles", running=2, waiting=PUZZLE_QUEUE, cached=PUZZLES_CACHED))


async def _found(request: Request, profile: str, number: int) -> dict[str, Any]:
    """Puzzle ``number`` of ``profile`` with its answer, within the caller's allowance."""
    account = await maybe_account(request)
    who = f"account {account.id}" if account is not None else client_address(request)
    await limit(request, request.app.state.puzzle_limit, who, "puzzle requests")
    try:
        check_puzzle_id(profile, number)
    except PuzzleError as e:
        raise HttpError(404, "not_found", str(e)) from None
    found: dict[str, Any] = await _queue(request).run(request, f"{profile}/{number}",
                                                      puzzle_full, profile, number)
    return found


def _question(full: dict[str, Any], **more: Any) -> PuzzleOut:
    return PuzzleOut(**{k: v for k, v in full.items() if k not in ("answer", "choices")},
                     **more)


def _stats(stats: PuzzleStats) -> PuzzleStatsOut:
    return PuzzleStatsOut(attempted=stats.attempted, solved=stats.solved, streak=stats.streak,
                    best_streak=stats.best_streak)


async def _attempt(request: Request, profile: str, number: int) -> PuzzleAttemptOut | None:
    account = await maybe_account(request)
    if account is None:
        return None
    first = await asyncio.to_thread(puzzle_attempt, hub_of(request).store, account.id,
                                    profile, number)
    return None if first is None else PuzzleAttemptOut(discard=first.discard, correct=first.correct)


@api
async def puzzle(request: Request) -> Response:
    profile, number = request.path_params["profile"], request.path_params["number"]
    full = await _found(request, profile, number)
    return ok(_question(full, attempt=await _attempt(request, profile, number)))


@api
async def daily(request: Request) -> Response:
    """The puzzle of the day: the same for everybody on the server's calendar day."""
    profile = request.query_params.get("profile", "yuanhang")
    day = utcnow().astimezone(calendar_zone(hub_of(request).config.timezone)).date()
    number = daily_number(day)
    full = await _found(request, profile, number)
    return ok(_question(full, daily=day.isoformat(),
                        attempt=await _attempt(request, profile, number)))


@api
async def answer(request: Request) -> Response:
    """Whether ``discard`` was the answer, and every choice; an account's first answer is
    recorded."""
    profile, number = request.path_params["profile"], request.path_params["number"]
    body = await read_body(request, PuzzleAnswerIn)
    full = await _found(request, profile, number)
    if body.discard not in full["discards"]:
        raise HttpError(400, "invalid_request", "discard: not a tile of this hand",
                        params={"field": "discard", "problem": "not_in_hand"})
    correct = body.discard == full["answer"]
    account = await maybe_account(request)
    first: PuzzleAttemptOut | None = None
    stats: PuzzleStatsOut | None = None
    if account is not None:
        attempt, record = await asyncio.to_thread(
            record_attempt, hub_of(request).store, account.id, profile, number, body.discard,
            correct)
        first = PuzzleAttemptOut(discard=attempt.discard, correct=attempt.correct)
        stats = _stats(record)
    return ok(PuzzleAnswerOut(correct=correct, discard=body.discard, answer=full["answer"],
                        choices=[PuzzleChoiceOut(**c) for c in full["choices"]], first=first,
                        stats=stats))


@api
async def stats(request: Request) -> Response:
    account = await account_of(request)
    return ok(_stats(await asyncio.to_thread(puzzle_stats, hub_of(request).store, account.id)))


def puzzle_routes() -> list[Route]:
    """The puzzle routes (the app sets ``state.puzzle_limit``)."""
    return [Route("/api/puzzles/daily", daily, methods=["GET"]),
            Route("/api/puzzles/stats", stats, methods=["GET"]),
            Route("/api/puzzles/{profile}/{number:int}", puzzle, methods=["GET"]),
            Route("/api/puzzles/{profile}/{number:int}/answer", answer, methods=["POST"])]
