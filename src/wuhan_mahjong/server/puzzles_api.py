"""Puzzles over HTTP, as lichess serves its puzzles: discard puzzles (何切, "which tile?",
``bots/puzzles.py``) and win questions (胡不胡, "may it win?", ``bots/win_puzzles.py``).

``GET /api/puzzles/{profile}/{number}``
    a discard puzzle's position (no answer), and the signed-in caller's first answer to it
    if he gave one;
``GET /api/puzzles/daily?profile=P``
    the discard puzzle of the day (每日一题), on the calendar of the ``timezone`` setting;
``POST /api/puzzles/{profile}/{number}/answer`` ``{"discard": "3p"}``
    whether it was the answer, the answer and every choice with its shanten and tile
    acceptance;
``GET /api/puzzles/win/{profile}/{number}``, ``GET /api/puzzles/win/daily?profile=P``
    a win question: a settlement record whose winner's tiles make a winning shape;
``POST /api/puzzles/win/{profile}/{number}/answer`` ``{"win": true}``
    whether the answer was right, and the settlement calculator's answer for the record
    (the settlement, or the rule that stops the win);
``GET /api/puzzles/stats?kind=discard|win``
    the signed-in caller's record in one kind;
``GET /api/puzzles/history?kind=discard|win&wrong=1&offset=0&limit=20``
    his first answers in one kind, newest first (错题本 with ``wrong=1``: the wrong ones).

Anyone may ask and answer; for a signed-in caller the first answer to each puzzle is
recorded with his record in its kind (``store/puzzles.py``), and returned.  A puzzle is a
pure function of (kind, profile, number), 50 to 250 ms of CPU to find, so it is found in
the bot worker pool off the event loop (``server/jobs.py``, at most two at once per node,
:data:`PUZZLE_QUEUE` waiting) and kept (:data:`PUZZLES_CACHED`); each account (or address,
without one) may ask ``puzzle_burst`` at once and ``puzzle_rate`` a second in the long run
(settings), counted over the cluster.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import date
from typing import Any, Literal

from pydantic import Field, StrictBool
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
from ..bots.win_puzzles import make_win_question, win_question_json
from ..store import Account
from ..store.models import utcnow
from ..store.puzzles import (
    HISTORY_OFFSET_MAX,
    PUZZLE_KINDS,
    PuzzleAttempt,
    PuzzleStats,
    puzzle_attempt,
    puzzle_history,
    puzzle_stats,
    record_attempt,
)
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
    query_count,
    read_body,
)
from .jobs import JobQueue, job_queue

__all__ = ["PUZZLES_CACHED", "PUZZLE_QUEUE", "puzzle_routes"]

PUZZLE_QUEUE = 16
"""Puzzles that may wait to be found on this node; more are refused (429)."""
PUZZLES_CACHED = 4096
"""Puzzles kept per node (a few KB each): the day's puzzle and those being solved."""


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


class WinAttemptOut(ResponseModel):
    win: bool
    """His answer: may the hand win?"""
    correct: bool


class WinPuzzleOut(ResponseModel):
    kind: Literal["win"] = "win"
    profile: str
    number: int
    record: dict[str, Any]
    """The settlement record (``docs/score.md``): the question."""
    daily: str | None = None
    attempt: WinAttemptOut | None = None


class WinAnswerIn(RequestModel):
    win: StrictBool


class WinAnswerOut(ResponseModel):
    correct: bool
    answered: bool
    win: bool
    """The truth: whether the hand may win."""
    result: dict[str, Any]
    """The calculator's answer for the record (``POST /api/score``): the settlement, or
    ``{"valid": false, "reason", "refusal": {code, params}}``."""
    first: WinAttemptOut | None
    stats: PuzzleStatsOut | None


def puzzle_full(kind: str, profile: str, number: int) -> dict[str, Any]:
    """The puzzle with its answer, as JSON: a module-level pure function (it runs in a
    worker process)."""
    if kind == "win":
        return win_question_json(make_win_question(profile, number), answer=True)
    return puzzle_json(make_puzzle(profile, number), answer=True)


async def _caller(request: Request) -> Account | None:
    """The request's account, if its token is good: looked up once per request (each look
    is a database read)."""
    state = request.state
    if not hasattr(state, "puzzle_caller"):
        state.puzzle_caller = await maybe_account(request)
    found: Account | None = state.puzzle_caller
    return found


def _queue(request: Request) -> JobQueue:
    return job_queue(request, "puzzles", lambda: JobQueue(
        "puzzles", running=2, waiting=PUZZLE_QUEUE, cached=PUZZLES_CACHED))


async def _found(request: Request, kind: str, profile: str, number: int) -> dict[str, Any]:
    """Puzzle ``number`` of ``profile`` with its answer, within the caller's allowance."""
    account = await _caller(request)
    who = f"account {account.id}" if account is not None else client_address(request)
    await limit(request, request.app.state.puzzle_limit, who, "puzzle requests")
    try:
        check_puzzle_id(profile, number)
    except PuzzleError as e:
        raise HttpError(404, "not_found", str(e)) from None
    found: dict[str, Any] = await _queue(request).run(request, f"{kind}/{profile}/{number}",
                                                      puzzle_full, kind, profile, number)
    return found


def _stats(stats: PuzzleStats) -> PuzzleStatsOut:
    return PuzzleStatsOut(attempted=stats.attempted, solved=stats.solved, streak=stats.streak,
                          best_streak=stats.best_streak)


async def _first(request: Request, kind: str, profile: str,
                 number: int) -> PuzzleAttempt | None:
    """The signed-in caller's first answer to the puzzle, if any."""
    account = await _caller(request)
    if account is None:
        return None
    found: PuzzleAttempt | None = await asyncio.to_thread(
        puzzle_attempt, hub_of(request).store, account.id, kind, profile, number)
    return found


async def _record(request: Request, kind: str, profile: str, number: int, answer: str,
                  correct: bool) -> tuple[PuzzleAttempt, PuzzleStats] | None:
    """Record the signed-in caller's answer (if it is his first): his first answer and his
    record; ``None`` without an account."""
    account = await _caller(request)
    if account is None:
        return None
    return await asyncio.to_thread(record_attempt, hub_of(request).store, account.id, kind,
                                   profile, number, answer, correct)


def _today(request: Request) -> date:
    return utcnow().astimezone(calendar_zone(hub_of(request).config.timezone)).date()


def _asked(request: Request) -> tuple[str, int]:
    return request.path_params["profile"], request.path_params["number"]


# ------------------------------------------------------------------ 何切: which tile?
def _question(full: dict[str, Any], first: PuzzleAttempt | None, **more: Any) -> PuzzleOut:
    attempt = None if first is None else PuzzleAttemptOut(discard=first.answer,
                                                          correct=first.correct)
    return PuzzleOut(**{k: v for k, v in full.items() if k not in ("answer", "choices")},
                     attempt=attempt, **more)


@api
async def answer(request: Request) -> Response:
    """Whether ``discard`` was the answer, and every choice; an account's first answer is
    recorded."""
    profile, number = _asked(request)
    body = await read_body(request, PuzzleAnswerIn)
    full = await _found(request, "discard", profile, number)
    if body.discard not in full["discards"]:
        raise HttpError(400, "invalid_request", "discard: not a tile of this hand",
                        params={"field": "discard", "problem": "not_in_hand"})
    correct = body.discard == full["answer"]
    kept = await _record(request, "discard", profile, number, body.discard, correct)
    return ok(PuzzleAnswerOut(
        correct=correct, discard=body.discard, answer=full["answer"],
        choices=[PuzzleChoiceOut(**c) for c in full["choices"]],
        first=None if kept is None else PuzzleAttemptOut(discard=kept[0].answer,
                                                          correct=kept[0].correct),
        stats=None if kept is None else _stats(kept[1])))


# ------------------------------------------------------------------ 胡不胡: may it win?
def _win_question(full: dict[str, Any], first: PuzzleAttempt | None,
                  **more: Any) -> WinPuzzleOut:
    attempt = None if first is None else WinAttemptOut(win=first.answer == "yes",
                                                       correct=first.correct)
    return WinPuzzleOut(profile=full["profile"], number=full["number"], record=full["record"],
                        attempt=attempt, **more)


@api
async def win_answer(request: Request) -> Response:
    """Whether the answer (may the hand win?) was right, and the calculator's answer; an
    account's first answer is recorded."""
    profile, number = _asked(request)
    body = await read_body(request, WinAnswerIn)
    full = await _found(request, "win", profile, number)
    correct = body.win == full["win"]
    kept = await _record(request, "win", profile, number, "yes" if body.win else "no", correct)
    return ok(WinAnswerOut(
        correct=correct, answered=body.win, win=full["win"], result=full["result"],
        first=None if kept is None else WinAttemptOut(win=kept[0].answer == "yes",
                                                      correct=kept[0].correct),
        stats=None if kept is None else _stats(kept[1])))


_SHOWN: dict[str, Callable[..., ResponseModel]] = {"discard": _question, "win": _win_question}
"""How each kind of puzzle is shown before it is answered."""


def _asking(kind: str, *, daily: bool) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint that shows a puzzle of ``kind`` without its answer: the one the path
    names, or (``daily``) the puzzle of the day (每日一题) of ``?profile=`` (default
    ``yuanhang``), the same for everybody on the server's calendar day."""
    async def ask(request: Request) -> Response:
        more = {}
        if daily:
            day = _today(request)
            profile, number = request.query_params.get("profile", "yuanhang"), daily_number(day)
            more["daily"] = day.isoformat()
        else:
            profile, number = _asked(request)
        full = await _found(request, kind, profile, number)
        return ok(_SHOWN[kind](full, await _first(request, kind, profile, number), **more))

    return api(ask)


class PastAttemptOut(ResponseModel):
    kind: str
    profile: str
    number: int
    answer: str
    correct: bool
    at: str


class PuzzleHistoryOut(ResponseModel):
    attempts: list[PastAttemptOut]
    more: bool


HISTORY_PAGE_MAX = 100
"""The most attempts one history request returns."""


def _kind(request: Request) -> str:
    kind = request.query_params.get("kind", "discard")
    if kind not in PUZZLE_KINDS:
        raise HttpError(400, "invalid_request", f"kind: one of {', '.join(PUZZLE_KINDS)}",
                        params={"field": "kind", "problem": "choice"})
    return kind


@api
async def history(request: Request) -> Response:
    """The caller's first answers in one kind, newest first (错题本 with ``?wrong=1``)."""
    account = await account_of(request)
    kind = _kind(request)
    wrong = request.query_params.get("wrong", "0")
    if wrong not in ("0", "1"):
        raise HttpError(400, "invalid_request", "wrong: 0 or 1",
                        params={"field": "wrong", "problem": "choice"})
    limit = query_count(request, "limit", 20, 1, HISTORY_PAGE_MAX)
    offset = query_count(request, "offset", 0, 0, HISTORY_OFFSET_MAX)
    found, more = await asyncio.to_thread(puzzle_history, hub_of(request).store, account.id,
                                          kind, wrong_only=wrong == "1", offset=offset,
                                          limit=limit)
    return ok(PuzzleHistoryOut(attempts=[
        PastAttemptOut(kind=a.kind, profile=a.profile, number=a.number, answer=a.answer,
                       correct=a.correct, at=a.at.isoformat()) for a in found], more=more))


@api
async def stats(request: Request) -> Response:
    """The caller's record in one kind of puzzle (``?kind=discard``, the default, or
    ``win``)."""
    account = await account_of(request)
    kind = _kind(request)
    return ok(_stats(await asyncio.to_thread(puzzle_stats, hub_of(request).store, account.id,
                                             kind)))


def puzzle_routes() -> list[Route]:
    """The puzzle routes (the app sets ``state.puzzle_limit``)."""
    return [Route("/api/puzzles/daily", _asking("discard", daily=True), methods=["GET"]),
            Route("/api/puzzles/stats", stats, methods=["GET"]),
            Route("/api/puzzles/history", history, methods=["GET"]),
            Route("/api/puzzles/win/daily", _asking("win", daily=True), methods=["GET"]),
            Route("/api/puzzles/win/{profile}/{number:whole}", _asking("win", daily=False),
                  methods=["GET"]),
            Route("/api/puzzles/win/{profile}/{number:whole}/answer", win_answer,
                  methods=["POST"]),
            Route("/api/puzzles/{profile}/{number:whole}", _asking("discard", daily=False),
                  methods=["GET"]),
            Route("/api/puzzles/{profile}/{number:whole}/answer", answer, methods=["POST"])]
