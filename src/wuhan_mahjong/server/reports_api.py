"""``POST /api/reports``: a player reports another (举报, ``store/reports.py``);
``GET /api/reports``: his own reports and their state (open, or closed and when).

A report of what happened at a table names the match and the seat (the client has both:
the ``table`` frame's ``match_id`` and its players' seats); a report of a name names the
player.  Answers 201 ``{id, new}`` (``new`` is false when the same report is open already);
404 ``not_found`` for no such player in a match the caller sat in (or no such player);
400 ``invalid_request`` with ``params.problem`` (``reason``, ``self``, ``missing``) for a
report that cannot be; 429 ``rate_limited`` past ``store.reports.REPORTS_PER_DAY``.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from pydantic import Field
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..store.models import GAME_ID_MAX
from ..store.reports import (
    REASONS,
    REPORTS_PER_DAY,
    ReportError,
    ReportReason,
    file_report,
    reports_by,
)
from .http import (
    NAME_INPUT_MAX,
    HttpError,
    RequestModel,
    ResponseModel,
    account_of,
    api,
    hub_of,
    ok,
    read_body,
)

__all__ = ["FiledListOut", "FiledOut", "ReportIn", "ReportOut", "report_routes"]


class ReportIn(RequestModel):
    reason: ReportReason
    username: str | None = Field(default=None, min_length=1, max_length=NAME_INPUT_MAX)
    match_id: str | None = Field(default=None, min_length=1, max_length=GAME_ID_MAX)
    seat: int | None = Field(default=None, ge=0, le=3)


class ReportOut(ResponseModel):
    id: int
    new: bool


class FiledOut(ResponseModel):
    """One report the caller filed, as he may read it."""

    id: int
    reported: str
    reason: str
    match_id: str | None
    status: str
    created_at: datetime
    closed_at: datetime | None


class FiledListOut(ResponseModel):
    reports: list[FiledOut]


@api
async def report(request: Request) -> Response:
    account = await account_of(request)
    body = await read_body(request, ReportIn)
    try:
        found, new = await asyncio.to_thread(
            file_report, hub_of(request).store, account.id, body.reason,
            username=body.username, match_id=body.match_id, seat=body.seat)
    except ReportError as e:
        if e.code == "not_found":
            raise HttpError(404, "not_found", str(e)) from None
        if e.code == "too_many":
            raise HttpError(429, "rate_limited", str(e),
                            params={"problem": "reports", "max": REPORTS_PER_DAY}) from None
        problem = "self" if e.code == "self" else "missing"
        raise HttpError(400, "invalid_request", str(e),
                        params={"problem": problem, "reasons": ", ".join(REASONS)}) from None
    return ok(ReportOut(id=found, new=new), status=201 if new else 200)


@api
async def my_reports(request: Request) -> Response:
    """The caller's newest reports with their state (open, or closed and when)."""
    account = await account_of(request)
    found = await asyncio.to_thread(reports_by, hub_of(request).store, account.id)
    return ok(FiledListOut(reports=[FiledOut(
        id=r.id, reported=r.reported, reason=r.reason, match_id=r.match_id, status=r.status,
        created_at=r.created_at, closed_at=r.closed_at) for r in found]))


def report_routes() -> list[Route]:
    return [Route("/api/reports", report, methods=["POST"]),
            Route("/api/reports", my_reports, methods=["GET"])]
