"""Loopback ports for the servers the tests start in other processes.

``bind(("127.0.0.1", 0))`` asks the kernel for a free port from its ephemeral range, the
range every outgoing connection takes its local port from too.  A test that starts a
server on such a port, or kills it with ``kill -9`` and starts it again on the same port,
left the port free for a moment, and in a full run (thousands of connections to
PostgreSQL, Redis and the servers, four workers) the kernel once handed it meanwhile to
another worker's server: the restarted server could not listen ("Address already in
use"), and the test went on talking to the other worker's server, whose health check
answered (``test_a_room_outlives_kill_9_of_its_server``).

So these ports come from below the ephemeral range, which the kernel never hands out by
itself, and each pytest-xdist worker has its own block of them: no connection, no other
worker and no earlier test of this worker (the block is used in turn) takes a port a test
was given.  A port found in use (by something else on the machine, another run beside this
one) is skipped.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import socket
from pathlib import Path

BLOCK = 2000
"""Ports per worker."""
BLOCKS = 6
"""Workers with a block of their own (``--maxprocesses 4``; more share by their number)."""


def _ephemeral_low() -> int:
    """The lowest port of the kernel's ephemeral range (Linux's default where unknown)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _worker_block() -> range | None:
    """This process's ports: ``None`` when the ephemeral range starts too low for blocks."""
    low = _ephemeral_low()
    first = low - BLOCKS * BLOCK
    if first < 10_000:
        return None
    match = re.fullmatch(r"gw(\d+)", os.environ.get("PYTEST_XDIST_WORKER", ""))
    index = int(match.group(1)) % BLOCKS if match else 0
    return range(first + index * BLOCK, first + (index + 1) * BLOCK)


def _ports() -> list[int]:
    """This worker's block, from a random place in it (two runs side by side rarely meet);
    empty when there is no block."""
    block = _worker_block()
    if block is None:
        return []
    start = random.randrange(len(block))
    return [*block[start:], *block[:start]]


_PORTS = _ports()
_NEXT = itertools.cycle(_PORTS)


def _free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the servers bind
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port() -> int:
    """A loopback port free now, which nothing but its test will take: for a server started
    in another process (``wuhan-mahjong serve``), restarted on it if the test likes."""
    for _ in _PORTS:
        port = next(_NEXT)
        if _free(port):
            return port
    with socket.socket() as s:  # no block (an odd ephemeral range), or all of it taken
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
