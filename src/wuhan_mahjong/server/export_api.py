"""A player downloads his own data (数据导出, ``store/export.py``):

* ``GET /api/account/export``: one JSON document, everything the platform holds about his
  account (``store.export.account_export``);
* ``GET /api/account/export/records.jsonl``: every hand he sat at, whole, as one JSON-lines
  file of hand records, streamed in batches; ``wuhan-mahjong verify`` checks each hand's
  wall against its commitment and ``wuhan-mahjong replay`` shows it.

Both ask for his token and answer as a file to save (``Content-Disposition``).  Each
download reads a lot, so each account may start :data:`EXPORT_BURST` of them at once and
one more every ``1 / EXPORT_RATE`` seconds (counted over the cluster on a cluster node).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from ..store.export import RECORDS_BATCH, account_export, account_records
from .http import account_of, api, hub_of, limit

__all__ = ["EXPORT_BURST", "EXPORT_RATE", "export_routes"]

EXPORT_RATE = 1 / 60
"""Downloads per second an account may start in the long run (one a minute)."""
EXPORT_BURST = 4
"""Downloads an account may start at once (the document and the records, twice)."""


def _attachment(account_id: int, name: str) -> dict[str, str]:
    return {"Content-Disposition":
            f'attachment; filename="wuhan-mahjong-{account_id}-{name}"',
            "Cache-Control": "no-store"}


@api
async def export_document(request: Request) -> Response:
    """The caller's data, as one JSON document."""
    account = await account_of(request)
    await limit(request, request.app.state.export_limit, f"account {account.id}", "downloads")
    document = await asyncio.to_thread(account_export, hub_of(request).store, account.id)
    return Response(orjson.dumps(document, option=orjson.OPT_INDENT_2),
                    media_type="application/json",
                    headers=_attachment(account.id, "account.json"))


@api
async def export_records(request: Request) -> Response:
    """Every hand record the caller sat at, oldest first, streamed batch by batch."""
    account = await account_of(request)
    await limit(request, request.app.state.export_limit, f"account {account.id}", "downloads")
    store = hub_of(request).store
    # the first batch before the answer starts: an error then is still an error answer
    first = await asyncio.to_thread(account_records, store, account.id)

    async def body() -> AsyncIterator[bytes]:
        batch = first
        while batch:
            yield "".join(events for _, events in batch).encode()
            if len(batch) < RECORDS_BATCH:
                return
            batch = await asyncio.to_thread(account_records, store, account.id,
                                            after=batch[-1][0])

    return StreamingResponse(body(), media_type="application/x-ndjson",
                             headers=_attachment(account.id, "hands.jsonl"))


def export_routes() -> list[Route]:
    """The two download routes (the app sets ``state.export_limit``)."""
    return [
        Route("/api/account/export", export_document, methods=["GET"]),
        Route("/api/account/export/records.jsonl", export_records, methods=["GET"]),
    ]
