"""``GET /api/matches/{match_id}/hands/{hand_no}/review?seat=N``: a finished hand reviewed by
the expert bot (AI 复盘, ``bots/review.py``), for one of its players; and
``GET /api/public/hands/{match_id}/{hand_no}/review?seat=N`` for a published hand, for anyone
(the allowance then counted per address).

``seat`` is the seat to review (default: the caller's own; after the hand nothing is hidden
from its players, so each may review any seat of it, as its replay shows every hand; a
published hand's review needs it).  The
answer is the review, each decision with ``frame``: the index of the replay frame that shows
the position it was taken in (``GET .../frames``), so the replay can jump to it.

A review replays the hand and asks the bot at every decision: about 30 to 110 ms of CPU per
seat in the median, 280 ms at most (``bench/review_bench.py``, README).  It runs
in the bot worker pool, off the event loop (``server/bot_worker.py``), one at a time per
node (the pool also decides the bot seats; a review must not hold them up), with at most
:data:`REVIEW_QUEUE` waiting (429 ``rate_limited`` beyond); each account may ask
:data:`REVIEW_BURST` at once and one more every ``1 / REVIEW_RATE`` seconds.  A hand's
review never changes, so the answers are kept (:data:`REVIEWS_CACHED`).
"""

from __future__ import annotations

import asyncio
import gzip

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..bots.review import REVIEW_POLICY, review_hand
from ..engine.records import HandRecordError, VerifyError, load_records
from ..store import HandRecord
from .http import HttpError, account_of, api, client_address, hub_of, limit
from .jobs import JobQueue, job_queue
from .replay_frames import hand_frames
from .replays import NOT_PUBLIC, NOT_YOURS, gzipped_json, hand_named

__all__ = ["REVIEWS_CACHED", "REVIEW_BURST", "REVIEW_QUEUE", "REVIEW_RATE", "review_body",
           "review_routes"]

REVIEW_RATE = 0.2
"""Reviews per second an account may ask in the long run (one every five seconds)."""
REVIEW_BURST = 10
REVIEW_QUEUE = 8
"""Reviews that may wait for the node's one running review; more are refused (429)."""
REVIEWS_CACHED = 256


def review_body(events_text: str, seat: int) -> bytes:
    """The gzipped JSON answer: the review of ``seat`` with each decision's replay frame.
    Module level and a pure function of its arguments: it runs in a worker process."""
    events = load_records(events_text)[0]
    review = review_hand(events, seat)
    # the frame of a decision shows the state after its step's actions: the first frame
    # whose record lines reach that many actions (escapes count as steps too)
    reached = []
    count = 0
    for frame in hand_frames(events):
        count += sum(1 for e in frame["events"] if e.get("e") in ("act", "escape"))
        reached.append(count)
    out = []
    for decision in review["decisions"]:
        shown = next(i for i, n in enumerate(reached) if n >= decision["step"])
        out.append({**decision, "frame": shown})
    body = orjson.dumps({**review, "decisions": out})
    return gzip.compress(body, compresslevel=6, mtime=0)


def _reviews(request: Request) -> JobQueue:
    queue = job_queue(request, "reviews", lambda: JobQueue(
        "reviews", running=1, waiting=REVIEW_QUEUE, cached=REVIEWS_CACHED))
    queue.waiting_max = REVIEW_QUEUE  # the module's bound as it stands (a test lowers it)
    return queue


def _asked_seat(request: Request, default: int | None) -> int:
    asked = request.query_params.get("seat")
    if asked is None and default is not None:
        return default
    if asked in ("0", "1", "2", "3"):
        return int(asked)
    raise HttpError(400, "invalid_request", "seat is 0, 1, 2 or 3",
                    params={"field": "seat", "problem": "0-3"})


def _hand(request: Request, missing: str) -> tuple[str, int]:
    found = hand_named(request)
    if found is None:
        raise HttpError(404, "not_found", missing)
    return found


@api
async def review(request: Request) -> Response:
    """The review of one seat of a finished hand the caller sat at."""
    account = await account_of(request)
    await limit(request, request.app.state.review_limit, f"account {account.id}", "reviews")
    match_id, hand_no = _hand(request, NOT_YOURS)
    rec = await asyncio.to_thread(hub_of(request).store.hand_record, match_id, hand_no,
                                  viewer=account.id)
    if rec is None:
        raise HttpError(404, "not_found", NOT_YOURS)
    seat = _asked_seat(request, next(s for s, who in rec.seats.items() if who == account.id))
    return await _answer(request, rec, seat)


@api
async def public_review(request: Request) -> Response:
    """The review of one seat (``?seat=N``, required) of a published hand, for anyone."""
    await limit(request, request.app.state.review_limit, client_address(request), "reviews")
    match_id, hand_no = _hand(request, NOT_PUBLIC)
    seat = _asked_seat(request, None)
    rec = await asyncio.to_thread(hub_of(request).store.public_hand_record, match_id, hand_no)
    if rec is None:
        raise HttpError(404, "not_found", NOT_PUBLIC)
    return await _answer(request, rec, seat)


async def _answer(request: Request, rec: HandRecord, seat: int) -> Response:
    key = f"{REVIEW_POLICY}/{rec.match_id}/{rec.hand_no}/{seat}"
    try:
        body: bytes = await _reviews(request).run(request, key, review_body, rec.events, seat)
    except (HandRecordError, VerifyError) as e:  # a stored record that does not replay
        raise HttpError(500, "server_error", f"the hand's record cannot be replayed: {e}"
                        ) from None
    return gzipped_json(request, body, {"Cache-Control": "private, max-age=3600"})


def review_routes() -> list[Route]:
    """The review route (the app sets ``state.review_limit``)."""
    return [Route("/api/matches/{match_id}/hands/{hand_no:whole}/review", review,
                  methods=["GET"]),
            Route("/api/public/hands/{match_id}/{hand_no:whole}/review", public_review,
                  methods=["GET"])]
