"""Cost of one rate-limit check per message: a process's own bucket against a cluster's.

Run:  python3 bench/limits_bench.py [--redis redis://127.0.0.1:6379/0] [--checks 20000]

Times, in one event loop and one run, what a WebSocket message or an HTTP request pays
for its limit (``server/cluster_limits.py``):

* ``local sync``: ``AddressLimiter.retry_after``, the process's bucket called directly
  (quick chat on any node; ``watch`` on a node alone before the limits were shared) —
  the named peer of the ratios;
* ``local await``: the same bucket behind the ``check`` coroutine (``watch`` and the
  replay routes on a node alone now);
* ``shared, refused``: a cluster node's limiter whose node-local bucket is empty (a flood
  from one address or account): refused without a round trip to Redis;
* ``shared, admitted``: a cluster node's limiter that admits, so asks Redis (one EVALSHA
  of the token-bucket script): what *every* message would cost if a limit were counted in
  Redis per message.

Each line prints microseconds per check of this process's CPU (``time.process_time``:
Redis's own CPU is not in it) and of wall time, and both as ratios to ``local sync``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Awaitable, Callable

from wuhan_mahjong.server.calculator import AddressLimiter
from wuhan_mahjong.server.cluster import connect_redis
from wuhan_mahjong.server.cluster_limits import RedisAddressLimiter


async def timed(checks: int, check: Callable[[int], Awaitable[float] | float]) -> tuple[float, float]:
    """Microseconds of CPU and of wall time per call of ``check(i)``."""
    cpu, wall = time.process_time(), time.perf_counter()
    for i in range(checks):
        answer = check(i)
        if not isinstance(answer, float):
            await answer
    return ((time.process_time() - cpu) / checks * 1e6, (time.perf_counter() - wall) / checks * 1e6)


async def bench(url: str, checks: int) -> None:
    redis = connect_redis(url)
    name = f"bench-{os.getpid()}"
    try:
        local = AddressLimiter(rate=1e9, burst=10**9)
        admitting = RedisAddressLimiter(redis, name, rate=1e9, burst=10**9)
        refusing = RedisAddressLimiter(redis, name + "-r", rate=1e-9, burst=1)
        await refusing.check("flood")  # its one token; every later check is refused
        keys = [f"10.0.{i // 256 % 256}.{i % 256}" for i in range(256)]
        await admitting.check("warm")  # loads the script into Redis (EVALSHA from here on)
        rows = [
            ("local sync", await timed(checks, lambda i: local.retry_after(keys[i % 256]))),
            ("local await", await timed(checks, lambda i: local.check(keys[i % 256]))),
            ("shared, refused", await timed(checks, lambda i: refusing.check("flood"))),
            ("shared, admitted", await timed(checks, lambda i: admitting.check(keys[i % 256]))),
        ]
    finally:
        keys_left = [k async for k in redis.scan_iter(f"wm:limit:{name}*")]
        if keys_left:
            await redis.delete(*keys_left)
        await redis.aclose()
    peer_cpu, peer_wall = rows[0][1]
    print(f"{checks} checks each; microseconds per check (ratio to local sync)")
    print(f"{'':18} {'CPU us':>9} {'ratio':>7} {'wall us':>9} {'ratio':>7}")
    for label, (cpu, wall) in rows:
        print(f"{label:18} {cpu:9.2f} {cpu / peer_cpu:7.1f} {wall:9.2f} {wall / peer_wall:7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--redis", default=os.environ.get("WUHAN_MAHJONG_TEST_REDIS",
                                                          "redis://127.0.0.1:6379/0"))
    parser.add_argument("--checks", type=int, default=20_000)
    args = parser.parse_args()
    asyncio.run(bench(args.redis, args.checks))


if __name__ == "__main__":
    main()
