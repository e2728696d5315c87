"""Spectating (观战): watching a running table from the lobby, delayed and without a hidden tile.

A table is *watchable* when it is a quick-match table, or a private room whose host left
the room option ``spectators`` on (the default, as lichess lets anyone watch any game).
``GET /api/tables/live`` lists the watchable tables; a connection sends ``watch {table}``
and receives ``watching`` (the table's players and rules) and then ``watch_state`` frames;
``unwatch`` (or watching another table, or the match ending: ``unwatched``) stops them.

What a spectator sees
    The engine's :func:`~wuhan_mahjong.engine.views.spectator_view`: everything public and
    no concealed tile (another seat's hand, a concealed kong's faces, the wall and the
    salt appear only in ``result.reveal`` once the hand has ended).  No timer and no claim
    answers are sent.

The delay
    Every change of the spectator view is a *move*.  A watcher sees the view as it was
    ``spectator_delay_moves`` moves ago (the server keeps that many frames per watched
    table), so watching a friend's table cannot help him: by the time a spectator could
    tell him anything, the table has moved on.  When a hand ends there is nothing left to
    hide: the final view (with the reveal) is shown at once and the next hand's first
    moves are again held back.

Bounds
    At most ``spectators_per_table`` watchers per table; an account watches one table at a
    time (a new ``watch`` replaces the old one) and may send ``watch`` at most
    ``watch_rate`` times a second (``watch_burst`` at once): on a cluster node that bucket
    is counted in Redis over every node (``watch_limit``, :mod:`.cluster_limits`: a refusal
    needs no round trip, an admitted ``watch`` one), so reconnecting to another node buys no
    more.  A seated player cannot watch.
    The players see how many are watching: ``watchers`` in their ``table`` frame and a
    ``watchers`` frame whenever the number changes.

The tables of a cluster's other nodes are not listed: each node lists and serves its own.
``GET /api/tables/live`` has a per-address bucket of its own (``replay_rate``,
``replay_burst``; ``state.live_limit``, in Redis on a cluster node).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..engine.views import spectator_view
from . import replays
from .calculator import AddressLimiter, AddressLimits
from .placement import TablePlace
from .protocol import ProtocolError, UnwatchedMsg, WatchersMsg, WatchingMsg, encode, encode_view

if TYPE_CHECKING:
    from .hub import Client, Hub
    from .table import Table

__all__ = ["Spectate", "spectate_routes"]


@dataclass
class Watch:
    """The watchers of one table and the frames held back for them."""

    table: Table
    watchers: dict[int, Client] = field(default_factory=dict)
    held: list[str] = field(default_factory=list)
    """Encoded ``watch_state`` frames not yet shown (oldest first), at most the delay."""
    shown: str | None = None
    """The frame the watchers see now (sent to a newcomer at once)."""
    last_view: str | None = None
    version: int = -1


class Spectate:
    """Who watches which table; one per hub."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.config = hub.config
        self.watches: dict[str, Watch] = {}
        self.watching: dict[int, str] = {}
        """account id -> the table it watches."""
        self.limiter: AddressLimits = AddressLimiter(self.config.watch_rate, self.config.watch_burst)
        """``watch`` messages per account: this process's bucket, or (set at start-up on a
        cluster node) the app's ``state.watch_limit``, counted in Redis."""

    # ------------------------------------------------------------------ queries
    def count(self, table_id: str) -> int:
        w = self.watches.get(table_id)
        return 0 if w is None else len(w.watchers)

    @staticmethod
    def watchable(table: Table) -> bool:
        return bool(getattr(table, "watchable", True)) and not table.finished

    def live(self, *, accounts: bool = False) -> list[dict[str, Any]]:
        """The watchable tables of this node, most watched first; ``accounts``: each with
        its seated people's account ids too (``"accounts"``: for the cluster's list and the
        player pages, never sent to a client)."""
        out: list[dict[str, Any]] = []
        for table in sorted(self.hub.tables.values(), key=lambda t: (-self.count(t.table_id),
                                                                     t.table_id)):
            if not self.watchable(table):
                continue
            out.append({"table_id": table.table_id, "profile": table.rules.profile,
                        "hands": table.hands, "hand_no": table.match.hand_no, "stake": table.stake,
                        "players": [{"seat": s.seat, "name": s.name, "bot": s.is_bot}
                                    for s in table.seats],
                        "watchers": self.count(table.table_id)})
            if accounts:
                out[-1]["accounts"] = [s.account_id for s in table.seats
                                       if not s.is_bot and not s.escaped]
        return out

    # ------------------------------------------------------------------ messages
    async def watch(self, client: Client, table_id: str) -> None:
        """Start watching ``table_id`` (replacing any table watched before)."""
        acct = client.account_id
        if await self.limiter.check(str(acct)) > 0:
            raise ProtocolError("rate_limited", "too many watch requests: wait a moment",
                                rate=self.config.watch_rate)
        if isinstance(self.hub.where.get(acct), TablePlace):
            raise ProtocolError("not_watchable", "a seated player cannot watch a table",
                                table=table_id, reason="seated")
        table = self.hub.tables.get(table_id)
        if table is None or table.finished:
            raise ProtocolError("not_found", f"no table {table_id}", table=table_id)
        if not self.watchable(table):
            raise ProtocolError("not_watchable", f"table {table_id} cannot be watched "
                                "(its host turned spectators off)", table=table_id, reason="private")
        w = self.watches.get(table_id)
        if self.watching.get(acct) == table_id and w is not None:
            w.watchers[acct] = client
        else:
            if w is not None and len(w.watchers) >= self.config.spectators_per_table:
                raise ProtocolError("watchers_full", f"table {table_id} has the most watchers "
                                    "allowed", table=table_id, max=self.config.spectators_per_table)
            self.unwatch(acct, tell=False)
            if w is None:
                w = self.watches[table_id] = Watch(table)
            w.watchers[acct] = client
            self.watching[acct] = table_id
            self._tell_players(w)
        client.send(WatchingMsg(
            table_id=table_id, match_id=table.match_id, profile=table.rules.profile,
            rules=table.rules.to_dict(), hands=table.hands, stake=table.stake,
            players=table._players(), delay=self.config.spectator_delay_moves,
            watchers=len(w.watchers)))
        self.moved(table)
        if w.shown is not None:
            client.send_text(w.shown)

    def unwatch(self, account_id: int, *, tell: bool = True, client: Client | None = None,
                reason: Literal["unwatch", "seated"] = "unwatch") -> bool:
        """Stop watching (``client``: only if that connection is the watcher); whether it was.
        ``reason``: what the spectator is told (``seated``: he sat down at a table)."""
        table_id = self.watching.get(account_id)
        w = self.watches.get(table_id) if table_id is not None else None
        if w is None or (client is not None and w.watchers.get(account_id) is not client):
            return False
        del self.watching[account_id]
        gone = w.watchers.pop(account_id)
        if tell:
            gone.send(UnwatchedMsg(table_id=w.table.table_id, reason=reason))
        if not w.watchers:
            del self.watches[w.table.table_id]
        self._tell_players(w)
        return True

    # ------------------------------------------------------------------ table hooks
    def moved(self, table: Table) -> None:
        """After a table's broadcast: record a new move, show the one ``delay`` moves back."""
        w = self.watches.get(table.table_id)
        hand = table.hand
        if w is None or hand is None or table.pending or w.version == table.version:
            return
        w.version = table.version
        view = encode_view(spectator_view(hand))
        if view == w.last_view:
            return
        w.last_view = view
        players = orjson.dumps([p.model_dump() for p in table._players()]).decode()
        frame = (f'{{"type":"watch_state","table_id":"{table.table_id}",'
                 f'"match_id":{orjson.dumps(table.match_id).decode()},"hand_no":{hand.hand_no},'
                 f'"view":{view},"totals":{orjson.dumps(list(table.match.totals)).decode()},'
                 f'"players":{players}}}')
        if hand.ended:  # nothing is secret any more: the result and its reveal at once
            w.held.clear()
            self._show(w, frame)
            return
        w.held.append(frame)
        delay = self.config.spectator_delay_moves
        while len(w.held) > delay:
            self._show(w, w.held.pop(0))

    def _show(self, w: Watch, frame: str) -> None:
        w.shown = frame
        for client in list(w.watchers.values()):
            client.send_text(frame)

    def closed(self, table: Table) -> None:
        """The table's match is over (or it stopped): its watchers are told and let go."""
        w = self.watches.pop(table.table_id, None)
        if w is None:
            return
        text = encode(UnwatchedMsg(table_id=table.table_id, reason="ended"))
        for acct, client in w.watchers.items():
            if self.watching.get(acct) == table.table_id:
                del self.watching[acct]
            client.send_text(text)

    def _tell_players(self, w: Watch) -> None:
        msg = WatchersMsg(table_id=w.table.table_id, count=len(w.watchers))
        for s in w.table.seats:
            if not s.is_bot and not s.escaped:
                self.hub.table_send(w.table, s.account_id, msg)


def spectate_routes(limiter: AddressLimiter | None = None) -> list[Route]:
    """``GET /api/tables/live``: the watchable tables (public, like lichess's TV list), at
    most as often per address as the public replays (429 beyond; the app's
    ``state.live_limit``, else ``limiter``)."""

    async def live(request: Request) -> Response:
        hub: Hub = request.app.state.hub
        tables = [{k: v for k, v in t.items() if k != "accounts"}
                  for t in await hub.live_tables()]
        return JSONResponse({"tables": tables,
                             "delay": hub.config.spectator_delay_moves})

    lim = limiter or AddressLimiter(replays.RATE, replays.BURST)
    return [Route("/api/tables/live", replays._limited(lim, live, "live_limit"), methods=["GET"])]
