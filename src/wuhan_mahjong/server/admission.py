"""Admission control: a node near saturation says "busy" at once (issue 11, item 6).

Past its capacity a node used to go on accepting WebSocket upgrades and tables,
and new players' handshakes timed out while the running tables slowed down.  Now
the node refuses new work at once, with an answer a load balancer or a client
can act on, and keeps its CPU for the tables it runs:

* a new table (a quick match, a room, a join: the messages that lead to one) is
  answered with the error ``busy`` whose ``reason`` is ``overloaded`` (the web
  client says "this server is full, try again shortly");
* a new connection of an account that does not sit at a table of this node gets
  the same error and is closed with 1013 (*try again later*); a player of a
  running table always gets back in (reconnection is never refused);
* ``/readyz`` answers 503 ``{"status": "busy"}``, so the load balancer sends new
  sockets to another node.

Saturation is either of two signals (``ServerConfig``):

``max_tables``
    running tables on this node (0: no cap), a capacity the operator sets from
    the capacity model (``docs/cluster.md``);
``max_loop_lag``
    the event loop's lag in seconds (0: not watched): :meth:`Admission.watch`
    sleeps :data:`LAG_INTERVAL` again and again and measures how late it wakes up;
    the lag that counts is a moving average (:data:`LAG_SMOOTHING`), so one slow
    moment (a garbage collection, a slow query) does not close the door, a
    sustained overload does.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal

from .placement import TablePlace
from .protocol import ProtocolError

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["LAG_INTERVAL", "LAG_SMOOTHING", "OVERLOADED_CLOSE_CODE", "Admission", "BusyReason"]

LAG_INTERVAL = 0.25
"""Seconds between two wake-ups of the lag probe."""
LAG_SMOOTHING = 0.25
"""Weight of the newest sample in the lag's moving average (about four samples: one second)."""
OVERLOADED_CLOSE_CODE = 1013
"""WebSocket close code of a refused connection: "try again later"."""

BusyReason = Literal["tables", "loop_lag"]


class Admission:
    """Whether this node takes new tables and connections now (see the module docstring)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.lag = 0.0
        """The event loop's lag, seconds (moving average of the probe's samples)."""

    def busy(self) -> BusyReason | None:
        """Why the node is saturated now, or ``None`` when it takes new work."""
        cfg = self.hub.config
        if cfg.max_tables and len(self.hub.tables) >= cfg.max_tables:
            return "tables"
        if cfg.max_loop_lag and self.lag > cfg.max_loop_lag:
            return "loop_lag"
        return None

    def refusal(self) -> ProtocolError | None:
        """The ``busy`` error (``reason`` ``overloaded``) while saturated, else ``None``."""
        reason = self.busy()
        if reason is None:
            return None
        return ProtocolError("busy", f"this server is full ({reason.replace('_', ' ')}): "
                             "try again in a moment or another server", reason="overloaded")

    def check_new_table(self) -> None:
        """Raise :meth:`refusal` when no new table may start here."""
        error = self.refusal()
        if error is not None:
            raise error

    def refuses_connection(self, account_id: int) -> bool:
        """Whether a new connection of ``account_id`` is refused: the node is saturated and
        the account has no table here (a seated player always gets back to his table)."""
        if self.busy() is None:
            return False
        return not isinstance(self.hub.where.get(account_id), TablePlace)

    async def watch(self) -> None:
        """The lag probe, for the server's lifetime (cancelled at shutdown)."""
        if not self.hub.config.max_loop_lag:
            return
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(LAG_INTERVAL)
            sample = max(0.0, loop.time() - start - LAG_INTERVAL)
            self.lag += LAG_SMOOTHING * (sample - self.lag)
