"""Tables nobody plays: abandoned tables end, and one address runs a bounded number.

Abandoned tables
    A table at which no player has been connected for ``abandon_seconds``
    (default 2 minutes) is abandoned: each player still seated escapes by the
    escape rules (the penalty, settled at once; the engine's player finishes his
    seat), and the match ends after the hand in progress, which the bots and the
    engine play out at once; the finished hands are settled as usual.  A table
    whose players have all escaped ends the same way without waiting: nobody is
    left to play for.  :func:`watch_abandoned` runs for the server's lifetime.
One place per account, a few tables per address
    The hub keeps each account at one place (a queue, a room or one seat), so an
    account runs one table at a time; an escaper is free at once (his seat is the
    engine's).  :func:`tables_at_address` counts the running tables with a player
    from an address; the lobby refuses a new queue, room or join from an address
    that has ``tables_per_address`` of them.  On a cluster node the tables of the
    other nodes count too (:func:`tables_elsewhere`: each node keeps its counts per
    address, :func:`tables_by_address`, in Redis).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .hub import Hub
    from .table import Table

__all__ = ["end_after_this_hand", "table_addresses", "tables_at_address", "tables_by_address",
           "tables_elsewhere", "watch_abandoned"]

log = logging.getLogger("wuhan_mahjong.server")


def end_after_this_hand(table: Table) -> None:
    """Make the table's match end after the hand in progress (or now, between hands): an
    event for the table's task, which writes it to the match log (``Table``, ending early)."""
    table.post("end")


def table_addresses(hub: Hub, table: Table) -> set[str]:
    """The addresses a running table counts for: where its players (not escaped) last
    connected from (none once it has finished)."""
    if table.finished:
        return set()
    found = {hub.addresses.get(s.account_id) for s in table.seats if not s.is_bot and not s.escaped}
    return {a for a in found if a is not None}


def tables_at_address(hub: Hub, address: str) -> int:
    """Running tables at which a player (not escaped) last connected from ``address``."""
    return sum(1 for table in hub.tables.values() if address in table_addresses(hub, table))


def tables_by_address(hub: Hub) -> Counter[str]:
    """:func:`tables_at_address` for every address at once."""
    counts: Counter[str] = Counter()
    for table in hub.tables.values():
        counts.update(table_addresses(hub, table))
    return counts


async def tables_elsewhere(hub: Hub, address: str) -> int:
    """Running tables of ``address`` on the cluster's other nodes (0 for a process alone)."""
    return 0 if hub.cluster is None else await hub.cluster.tables_elsewhere(address)


def _abandon(hub: Hub, table: Table) -> None:
    """Every seated player escapes (the hub forgets his seat first, as for a ``leave``)."""
    log.info("table %s (match %s) abandoned: no player connected for %g s",
             table.table_id, table.match_id, hub.config.abandon_seconds)
    for s in table.seats:
        if s.is_bot or s.escaped:
            continue
        hub.where.leave_table(s.account_id, table)
        table.post("leave", s.seat)


def check_tables(hub: Hub, last_seen: dict[str, float], now: float) -> None:
    """One pass of the watch: ``last_seen`` maps a table id to the last time (loop clock)
    a player of it was seen connected."""
    for table_id, table in list(hub.tables.items()):
        if table.finished:
            continue
        humans = [s for s in table.seats if not s.is_bot and not s.escaped]
        if not humans:
            end_after_this_hand(table)
            continue
        if any(s.connected for s in humans):
            last_seen[table_id] = now
            continue
        since = last_seen.setdefault(table_id, now)
        if now - since >= hub.config.abandon_seconds:
            _abandon(hub, table)
            end_after_this_hand(table)
    for gone in set(last_seen) - set(hub.tables):
        del last_seen[gone]
    for account_id in list(hub.addresses):  # keep only the addresses that can still count
        if account_id not in hub.clients and account_id not in hub.where:
            del hub.addresses[account_id]


async def watch_abandoned(hub: Hub) -> None:
    """Check every table a few times per ``abandon_seconds`` (at most every 5 s)."""
    period = min(5.0, hub.config.abandon_seconds / 4)
    last_seen: dict[str, float] = {}
    loop = asyncio.get_running_loop()
    while True:
        await asyncio.sleep(period)
        try:
            check_tables(hub, last_seen, loop.time())
        except Exception:  # the watch must outlive any one table's oddity
            log.exception("the abandoned-table watch failed a pass")
