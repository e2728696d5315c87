"""The small LRU of computed responses (``server/security.py`` ``ResponseCache``).

One class, named for what it is, serves two caches: the hints of recent seat views
(``/api/hint``) and the gzipped frames of recently replayed hands (``server/replays.py``).
It used to be called ``HintCache`` in both places, so the frames routes read as if they
cached hints.  These tests hold what both uses rely on: at most ``size`` entries, the
least recently used one dropped first; one computation per key however many requests
wait for it; a failed computation is not kept.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable

import pytest

from wuhan_mahjong.server import replays, security
from wuhan_mahjong.server.security import ResponseCache


def test_it_keeps_the_last_size_keys_and_drops_the_least_recently_used() -> None:
    async def scenario() -> list[str]:
        cache = ResponseCache(2)
        calls: list[str] = []

        def compute(key: str) -> Callable[[], Awaitable[str]]:
            async def run() -> str:
                calls.append(key)
                return key.upper()
            return run

        assert await cache.get("a", compute("a")) == "A"
        assert await cache.get("b", compute("b")) == "B"
        assert await cache.get("a", compute("a")) == "A"  # from the cache: "a" is now the newest
        assert await cache.get("c", compute("c")) == "C"  # drops "b", the least recently used
        assert await cache.get("a", compute("a")) == "A"
        assert await cache.get("b", compute("b")) == "B"  # computed again
        assert list(cache.entries) == ["a", "b"] and cache.computed == 4
        return calls

    assert asyncio.run(scenario()) == ["a", "b", "c", "b"]


def test_requests_for_a_key_being_computed_wait_for_that_one_computation() -> None:
    async def scenario() -> tuple[list[int], int]:
        cache = ResponseCache(4)
        release = asyncio.Event()
        runs = 0

        async def slow() -> int:
            nonlocal runs
            runs += 1
            await release.wait()
            return 42

        waiting = [asyncio.create_task(cache.get("k", slow)) for _ in range(5)]
        await asyncio.sleep(0)
        release.set()
        return list(await asyncio.gather(*waiting)), runs

    results, runs = asyncio.run(scenario())
    assert results == [42] * 5 and runs == 1


def test_a_failed_computation_is_not_kept() -> None:
    async def scenario() -> int:
        cache = ResponseCache(4)
        attempts = 0

        async def flaky() -> int:
            nonlocal attempts
            attempts += 1
            if attempts == 1:
                raise RuntimeError("store unavailable")
            return 7

        with pytest.raises(RuntimeError):
            await cache.get("k", flaky)
        assert "k" not in cache.entries
        assert await cache.get("k", flaky) == 7
        return attempts

    assert asyncio.run(scenario()) == 2


def test_the_frames_routes_and_the_hints_share_the_one_named_cache_type() -> None:
    """The frames cache is a ``ResponseCache``, and no hint-named class is left to reuse."""
    assert "ResponseCache(FRAMES_CACHED)" in inspect.getsource(replays.replay_routes)
    assert not [name for name in vars(security) if name.startswith("Hint")]
