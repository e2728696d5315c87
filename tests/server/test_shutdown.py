"""A server's shutdown ends: the tournament runner stops when it is cancelled in the same
turn as it is nudged (a table ending at shutdown nudges it; Python 3.11's ``wait_for``
then swallowed the cancellation and the shutdown waited for the runner for ever), and a
background task that ignores its cancellation is left behind after the grace instead of
holding the shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import types

import pytest

from wuhan_mahjong.server.tournaments import TournamentRunner

from .harness import Server


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_the_tournament_runner_stops_when_cancelled_as_it_is_nudged(turns: int) -> None:
    async def scenario() -> str:
        runner = TournamentRunner(types.SimpleNamespace(draining=True))  # type: ignore[arg-type]
        task = asyncio.get_running_loop().create_task(runner.run())
        await asyncio.sleep(0.01)  # the runner waits for its next look
        runner.nudge()
        for _ in range(turns):
            await asyncio.sleep(0)
        task.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(task), 30)
        except asyncio.CancelledError:
            return "stopped"
        except TimeoutError:
            task.cancel()
            return "still running"
        return "returned"

    assert asyncio.run(scenario()) == "stopped"


def test_a_task_that_ignores_its_cancellation_does_not_hold_the_shutdown(server: Server) -> None:
    release = threading.Event()

    async def stubborn() -> None:
        while not release.is_set():
            with contextlib.suppress(asyncio.CancelledError):  # as Python 3.11's wait_for did
                await asyncio.sleep(0.05)

    async def start() -> None:
        server.hub.background(asyncio.get_running_loop().create_task(stubborn(),
                                                                     name="stubborn"))

    loop = server.uvicorn.loop
    asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    try:
        asyncio.run_coroutine_threadsafe(server.hub.shutdown(grace=0.2), loop).result(60)
    finally:
        release.set()
