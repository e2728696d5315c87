"""Blocking players (屏蔽, ``store/social.py``): ``GET /api/blocks`` lists the players the
caller blocks; ``POST /api/blocks/{username}`` blocks one (every follow between the two goes,
and neither may follow the other again, so neither can invite the other); ``DELETE`` lifts
the block.  Both idempotent.  The client hides the quick chat of the players it blocks."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..store.social import BLOCK_MAX, FollowError, block, blocked, unblock
from .http import NAME_INPUT_MAX, HttpError, ResponseModel, account_of, api, hub_of, ok

__all__ = ["BlockedNow", "BlocksOut", "blocks_routes"]


class BlocksOut(ResponseModel):
    players: list[str]


class BlockedNow(ResponseModel):
    username: str
    blocked: bool


@api
async def blocks_list(request: Request) -> Response:
    account = await account_of(request)
    found = await asyncio.to_thread(blocked, hub_of(request).store, account.id)
    return ok(BlocksOut(players=[name for _, name in found]))


@api
async def block_player(request: Request) -> Response:
    """``POST`` blocks the player, ``DELETE`` lifts the block (both idempotent)."""
    account = await account_of(request)
    name = request.path_params["username"][:NAME_INPUT_MAX]
    store = hub_of(request).store
    if request.method == "DELETE":
        await asyncio.to_thread(unblock, store, account.id, name)
        return ok(BlockedNow(username=name, blocked=False))
    if not name or "\x00" in name:
        raise HttpError(404, "not_found", "no such player")
    try:
        found = await asyncio.to_thread(block, store, account.id, name)
    except FollowError as e:
        if e.code == "not_found":
            raise HttpError(404, "not_found", str(e)) from None
        raise HttpError(400, "invalid_request", str(e), params={"problem": e.code,
                                                                "max": BLOCK_MAX}) from None
    return ok(BlockedNow(username=found, blocked=True))


def blocks_routes() -> list[Route]:
    return [Route("/api/blocks", blocks_list, methods=["GET"]),
            Route("/api/blocks/{username}", block_player, methods=["POST", "DELETE"])]
