"""Hostile sequences and races of the game flows over real WebSockets: a leave as the match
ends, a silver room whose member's balance fell before the start, ..."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from .harness import Client, Server, play, register  # noqa: F401
from .test_end_vote import two_with_bots


def _hold(server: Server, name: str) -> tuple[threading.Event, threading.Event]:
    """Make the store's method ``name`` wait (in its worker thread) until released: the
    first event is set when a call arrived, the second releases it."""
    store = server.store
    real = getattr(store, name)
    arrived, release = threading.Event(), threading.Event()

    def held(*args: Any, **kwargs: Any) -> Any:
        arrived.set()
        release.wait(30)
        return real(*args, **kwargs)

    setattr(store, name, held)
    return arrived, release


async def _until(event: threading.Event, timeout: float = 30) -> None:
    assert await asyncio.to_thread(event.wait, timeout), "never happened"


def test_a_leave_after_the_last_hand_is_no_escape_and_loses_nothing(server: Server) -> None:
    """The last hand is over and the match is being settled: a ``leave`` then is no escape
    (nothing is left to escape from); the player is told so, nothing is charged."""
    tokens = [register(server, n) for n in ("ivy", "jon")]

    async def flow() -> None:
        (ivy, jon), (si, _) = await two_with_bots(server, tokens, hands=1)
        arrived, release = _hold(server, "match_silver")
        await asyncio.gather(play(ivy, until="hand_end", timeout=120),
                             play(jon, seed=1, until="hand_end", timeout=120))
        await _until(arrived)  # the match's settlement is being read
        await ivy.send({"type": "leave"})
        answer = await ivy.expect("left")
        release.set()
        end = await jon.expect("match_end", timeout=30)
        assert answer["escaped"] is False and answer["penalty"] == 0, answer
        assert not [f for f in jon.frames if f.msg["type"] == "notice"
                    and f.msg["code"] == "escape"]
        assert end["totals"] == jon.of_type("hand_end")[-1]["totals"]
        await ivy.send({"type": "quick_match"})  # free again
        await ivy.expect("queued")
        for c in (ivy, jon):
            await c.close()
        assert si in range(4)

    asyncio.run(flow())
    assert server.store.audit().ok
