"""Quick match, private rooms, ready-up, leaving before the start, silver checks."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

import wuhan_mahjong.server.lobby as lobby_module
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.server.economy import min_to_sit

from .harness import Client, Server, StartServer, guest_token, play, register


async def _connect(server: Server, token: str) -> Client:
    c = Client(server, token)
    await c.connect()
    return c


def test_quick_match_fills_with_bots_after_the_wait(server: Server) -> None:
    async def scenario() -> None:
        c = await _connect(server, guest_token(server))
        await c.send({"type": "quick_match", "profile": "bianfeng"})
        queued = await c.expect("queued")
        assert queued["profile"] == "bianfeng" and queued["stake"] == 0 and queued["waiting"] == 1
        table = await c.expect("table")
        assert table["profile"] == "bianfeng" and table["stake"] == 0
        assert sum(p["bot"] for p in table["players"]) == 3
        await play(c)
        await c.close()

    asyncio.run(scenario())


@pytest.mark.slow
def test_quick_match_seats_waiting_players_together(start_server: StartServer) -> None:
    server = start_server(bot_wait=2.0)

    async def scenario() -> None:
        a = await _connect(server, guest_token(server))
        b = await _connect(server, guest_token(server))
        await a.send({"type": "quick_match"})
        await a.expect("queued")
        await b.send({"type": "quick_match"})
        assert (await a.expect("queued"))["waiting"] == 2
        ta, tb = await a.expect("table", timeout=10), await b.expect("table", timeout=10)
        assert ta["match_id"] == tb["match_id"] and ta["seat"] != tb["seat"]
        assert sum(p["bot"] for p in ta["players"]) == 2
        await asyncio.gather(play(a, seed=1), play(b, seed=2))
        await a.close()
        await b.close()

    asyncio.run(scenario())


def test_leaving_the_queue_before_the_start(start_server: StartServer) -> None:
    server = start_server(bot_wait=1.0)

    async def scenario() -> None:
        c = await _connect(server, guest_token(server))
        await c.send({"type": "quick_match"})
        await c.expect("queued")
        await c.send({"type": "leave"})
        assert (await c.expect("left"))["where"] == "queue"
        await asyncio.sleep(1.2)  # past the bot wait: no table starts for an empty queue
        assert c.of_type("table") == []
        await c.send({"type": "leave"})
        assert (await c.expect("error"))["code"] == "not_seated"
        await c.close()

    asyncio.run(scenario())


def test_private_room_lifecycle(server: Server) -> None:
    async def scenario() -> None:
        host, guest2, guest3 = [await _connect(server, guest_token(server)) for _ in range(3)]
        options: dict[str, Any] = {"profile": "bianfeng", "opening_scoring": "per_opening",
                                   "hands": 1, "claim_window_seconds": 4, "cap": 250,
                                   "rules": {"min_score_every_loser": 0}}
        await host.send({"type": "create_room", "options": options})
        room = await host.expect("room")
        code = room["code"]
        assert len(code) == 6 and code.isdigit()
        assert room["members"] == [{"name": room["members"][0]["name"], "ready": False,
                                    "host": True, "you": True, "same_address": None,
                                    "away": False}]
        await guest2.send({"type": "join_room", "code": code})
        assert len((await guest2.expect("room"))["members"]) == 2
        await guest3.send({"type": "join_room", "code": "000000" if code != "000000" else "000001"})
        assert (await guest3.expect("error"))["code"] == "not_found"
        await guest3.send({"type": "join_room", "code": code})
        await guest3.expect("room")
        # Busy: one place at a time.
        await guest3.send({"type": "quick_match"})
        assert (await guest3.expect("error"))["code"] == "busy"
        # Leaving before the start is free.
        await guest3.send({"type": "leave"})
        assert (await guest3.expect("left"))["where"] == "room"
        assert len((await host.expect("room"))["members"]) == 2
        # Only the host starts, and only when everybody is ready.
        await guest2.send({"type": "start"})
        assert (await guest2.expect("error"))["code"] == "not_host"
        await host.send({"type": "start"})
        assert (await host.expect("error"))["code"] == "not_ready"
        await host.send({"type": "ready"})
        await guest2.send({"type": "ready", "ref": "r"})
        while not all(m["ready"] for m in (await host.expect("room"))["members"]):
            pass
        await host.send({"type": "start"})
        table = await host.expect("table")
        assert table["profile"] == "bianfeng" and table["rules"]["opening_scoring"] == "per_opening"
        assert table["rules"]["cap_per_opening"] == 250 and table["claim_seconds"] == 5.0
        assert sum(p["bot"] for p in table["players"]) == 2
        await guest2.expect("table")
        await asyncio.gather(play(host, seed=1), play(guest2, seed=2))
        for c in (host, guest2, guest3):
            await c.close()

    asyncio.run(scenario())


async def _room_match(host: Client, other: Client, options: dict[str, Any]
                      ) -> tuple[str, list[dict[str, Any]]]:
    """``host`` and ``other`` play a room's match (bots in the two empty seats) to its end:
    the room's code and their ``match_end`` frames."""
    await host.send({"type": "create_room", "options": options})
    code = (await host.expect("room"))["code"]
    await other.send({"type": "join_room", "code": code})
    await other.expect("room")
    await other.send({"type": "ready"})
    await host.send({"type": "ready"})
    while not all(m["ready"] for m in (await host.expect("room"))["members"]):
        pass
    await host.send({"type": "start"})
    ends = await asyncio.gather(play(host, seed=3), play(other, seed=4))
    return code, list(ends)


@pytest.mark.slow
def test_a_rooms_match_reopens_its_room_for_a_rematch(
        start_server: StartServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A room's match played to its end offers its players a new room with the same options
    (``match_end.rematch``, *再来一场*): the first back hosts it, the others join it; nobody
    back within ``REMATCH_SECONDS`` closes it.  A quick match offers none."""
    monkeypatch.setattr(lobby_module, "REMATCH_SECONDS", 3.0)
    server = start_server(bot_wait=0.05, quick_hands=1)
    options: dict[str, Any] = {"profile": "bianfeng", "hands": 1, "cap": 250,
                               "rules": {"min_score_every_loser": 0}}

    async def scenario() -> None:
        host, friend, late = [await _connect(server, guest_token(server)) for _ in range(3)]
        code, ends = await _room_match(host, friend, options)
        rematch = ends[0]["rematch"]
        assert rematch and len(rematch) == 6 and rematch.isdigit() and rematch != code
        assert ends[1]["rematch"] == rematch  # one room for the table's players
        # the friend comes back first: he hosts it, with the match's options
        await friend.send({"type": "join_room", "code": rematch})
        room = await friend.expect("room")
        assert room["members"] == [{"name": room["members"][0]["name"], "ready": False,
                                    "host": True, "you": True, "same_address": None,
                                    "away": False}]
        assert room["options"]["profile"] == "bianfeng" and room["options"]["hands"] == 1
        assert room["options"]["cap"] == 250
        assert room["options"]["rules"] == {"min_score_every_loser": 0}
        await asyncio.sleep(3.5)  # past REMATCH_SECONDS: a room with a player stays open
        await host.send({"type": "join_room", "code": rematch})
        room = await host.expect("room")
        assert [m["host"] for m in room["members"]] == [True, False]
        # and it plays like any room
        await friend.send({"type": "ready"})
        await host.send({"type": "ready"})
        while not all(m["ready"] for m in (await host.expect("room"))["members"]):
            pass
        await friend.send({"type": "start"})
        ends = await asyncio.gather(play(host, seed=5), play(friend, seed=6))
        second = ends[0]["rematch"]
        assert second and second == ends[1]["rematch"] and second != rematch
        # nobody back in time: closed
        await asyncio.sleep(3.5)
        await late.send({"type": "join_room", "code": second})
        assert (await late.expect("error"))["code"] == "not_found"
        # a quick match offers no rematch
        await late.send({"type": "quick_match"})
        end = await play(late, seed=7)
        assert end["rematch"] is None
        for c in (host, friend, late):
            await c.close()

    asyncio.run(scenario())


def test_the_host_asks_a_member_to_leave(server: Server) -> None:
    """``kick``: only the host, only another member; the member is told (``left`` with
    ``kicked``) and may not join that room again; the others see the room without him."""
    async def scenario() -> None:
        host, guest2, guest3 = [await _connect(server, guest_token(server)) for _ in range(3)]
        await host.send({"type": "create_room", "options": {"hands": 1}})
        code = (await host.expect("room"))["code"]
        for c in (guest2, guest3):
            await c.send({"type": "join_room", "code": code})
            await c.expect("room")
        room = await host.expect("room")
        while len(room["members"]) < 3:
            room = await host.expect("room")
        names = [m["name"] for m in room["members"]]
        await guest2.send({"type": "kick", "name": names[2], "ref": "k"})
        refused = await guest2.expect("error")
        assert refused["code"] == "not_host" and refused["ref"] == "k"
        await host.send({"type": "kick", "name": names[0]})  # himself
        assert (await host.expect("error"))["code"] == "not_found"
        await host.send({"type": "kick", "name": names[1]})
        left = await guest2.expect("left")
        assert left["where"] == "room" and left["kicked"] is True
        room = await host.expect("room")
        assert [m["name"] for m in room["members"]] == [names[0], names[2]]
        await guest2.send({"type": "join_room", "code": code})
        assert (await guest2.expect("error"))["code"] == "kicked"
        await guest3.send({"type": "leave"})  # a member who left of his own may come back
        await guest3.expect("left")
        await guest3.send({"type": "join_room", "code": code})
        assert len((await guest3.expect("room"))["members"]) == 2
        for c in (host, guest2, guest3):
            await c.close()

    asyncio.run(scenario())


def test_room_options_and_silver_checks(start_server: StartServer) -> None:
    server = start_server(starting_silver=50)

    async def scenario() -> None:
        guest = await _connect(server, guest_token(server))
        poor = await _connect(server, register(server, "poorman"))
        for options, code in [
            ({"rules": {"no_such_option": 1}}, "bad_options"),
            ({"rules": {"service_fee": 0}}, "bad_options"),
            ({"rules": {"cap": -3}}, "bad_options"),
            ({"hands": 0}, "invalid_message"),
            ({"profile": "tokyo"}, "invalid_message"),
            ({"stake": 5}, "guest_not_allowed"),
        ]:
            await guest.send({"type": "create_room", "options": options})
            assert (await guest.expect("error"))["code"] == code, options
        await guest.send({"type": "quick_match", "silver": True})
        assert (await guest.expect("error"))["code"] == "guest_not_allowed"
        await poor.send({"type": "create_room", "options": {"stake": 1}})
        err = await poor.expect("error")
        # the minimum to sit: stake x the most one hand can cost (yuanhang: 金顶 400 > 100)
        need = min_to_sit(get_rules("yuanhang"), 1)
        assert need == 400
        assert err["code"] == "insufficient_silver" and f"at least {need} silver" in err["message"]
        # A free room is fine for both; a fifth member finds it full.
        await poor.send({"type": "create_room", "options": {"fill_bots": False}})
        code = (await poor.expect("room"))["code"]
        others = [await _connect(server, guest_token(server)) for _ in range(4)]
        for o in others[:3]:
            await o.send({"type": "join_room", "code": code})
            await o.expect("room")
        await others[3].send({"type": "join_room", "code": code})
        assert (await others[3].expect("error"))["code"] == "room_full"
        for c in (guest, poor, *others):
            await c.close()

    asyncio.run(scenario())


def test_a_table_that_fails_to_start_frees_its_players(start_server: StartServer) -> None:
    """A table that could not start (its players' balances unreadable, the database away):
    its players were told ``server_error`` but stayed "being seated", so every later
    quick match or room of theirs was answered ``busy`` until they reconnected."""
    server = start_server(bot_wait=0.2)
    hub = server.app.state.hub
    real = hub.start_table
    calls = 0

    async def fails_once(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("the database is away")
        return await real(*args, **kwargs)

    hub.start_table = fails_once

    async def scenario() -> None:
        c = await _connect(server, guest_token(server))
        await c.send({"type": "quick_match"})
        await c.expect("queued")
        assert (await c.expect("error", timeout=10))["code"] == "server_error"
        await c.send({"type": "quick_match"})
        assert (await c.expect("queued"))["waiting"] == 1
        await c.expect("table", timeout=10)
        await play(c)
        await c.close()

    asyncio.run(scenario())
    assert calls == 2


def test_a_table_the_database_cannot_start_is_one_log_line(start_server: StartServer,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    """The database away (a full disk, a restart) when a table starts: its players get
    ``server_error``, and the log says so in one line, where it printed a whole traceback
    (found by filling the disk under a running server)."""
    server = start_server(bot_wait=0.2)
    hub = server.app.state.hub

    async def database_away(*_args: Any, **_kwargs: Any) -> Any:
        raise OperationalError("INSERT", {}, sqlite3.OperationalError("database or disk is full"))

    hub.start_table = database_away

    async def scenario() -> None:
        c = await _connect(server, guest_token(server))
        await c.send({"type": "quick_match"})
        await c.expect("queued")
        assert (await c.expect("error", timeout=10))["code"] == "server_error"
        await c.close()

    with caplog.at_level(logging.WARNING, logger="wuhan_mahjong.server.lobby"):
        asyncio.run(scenario())
    [record] = [r for r in caplog.records if r.name == "wuhan_mahjong.server.lobby"]
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert record.getMessage() == ("could not start a table: the database is unavailable "
                                   "((sqlite3.OperationalError) database or disk is full)")


def test_a_silver_quick_table_seats_four_addresses(start_server: StartServer) -> None:
    """同IP不同桌: two accounts connected from one address (one person's two accounts, or
    housemates) never sit at one silver quick-match table: with four waiting from three
    addresses nobody sits; a fourth address seats the first of each, and the other account
    of the shared address waits on.  A free quick match seats them together."""
    server = start_server(quick_silver_distinct_addresses=True, bot_wait=120)
    names = ["twin1", "twin2", "bea", "cal", "dee"]
    sources = ["127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]
    tokens = [register(server, n) for n in names]

    async def scenario() -> None:
        clients = [Client(server, t, n, source=a)
                   for t, n, a in zip(tokens, names, sources, strict=True)]
        for c in clients:
            await c.connect()
        twin1, twin2, bea, cal, dee = clients
        for i, c in enumerate((twin1, twin2, bea, cal)):
            await c.send({"type": "quick_match", "silver": True})
            assert (await c.expect("queued"))["waiting"] == i + 1
        await dee.send({"type": "quick_match", "silver": True})
        tables = [await c.expect("table", timeout=30) for c in (twin1, bea, cal, dee)]
        assert len({t["match_id"] for t in tables}) == 1 and tables[0]["stake"] > 0
        assert (await twin2.expect("queued", waiting=1))["waiting"] == 1
        assert not [f for f in twin2.frames if f.msg["type"] == "table"]
        await twin2.send({"type": "leave"})
        assert (await twin2.expect("left"))["where"] == "queue"
        for c in (twin1, bea, cal, dee):  # leave the silver table: escapes, settled
            await c.send({"type": "leave"})
            await c.expect("left")
        # a free quick match: one address may fill a table (nothing is at stake)
        house = [Client(server, t, n, source="127.0.0.6") for t, n in zip(tokens[:4], names[:4],
                                                                           strict=True)]
        for c in house:
            await c.connect()
            await c.send({"type": "quick_match"})
        seated = [await c.expect("table", timeout=30) for c in house]
        assert len({t["match_id"] for t in seated}) == 1 and seated[0]["stake"] == 0
        for c in (*clients, *house):
            await c.close()

    asyncio.run(scenario())
    assert server.store.audit().ok


def test_room_members_of_one_address_are_marked(server: Server) -> None:
    """同IP in a room: members connected from one address share a number (the address is
    never sent); a member alone at his has none."""
    names = ["ann", "ann_sister", "kim", "lou", "lou_flatmate"]
    sources = ["127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.4"]

    async def scenario() -> None:
        clients = [Client(server, register(server, n), n, source=a)
                   for n, a in zip(names, sources, strict=True)]
        for c in clients:
            await c.connect()
        await clients[0].send({"type": "create_room", "options": {}})
        code = (await clients[0].expect("room"))["code"]
        for c in clients[1:4]:
            await c.send({"type": "join_room", "code": code})
            await c.expect("room")
        while True:
            room = await clients[0].expect("room")
            if len(room["members"]) == 4:
                break
        marks = {m["name"]: m["same_address"] for m in room["members"]}
        assert marks == {"ann": 1, "ann_sister": 1, "kim": None, "lou": None}
        assert "127.0.0" not in json.dumps(room)
        await clients[1].send({"type": "leave"})  # the sister goes: ann is alone at hers
        while True:
            room = await clients[0].expect("room")
            if len(room["members"]) == 3:
                break
        assert all(m["same_address"] is None for m in room["members"])
        for c in clients:
            await c.close()

    asyncio.run(scenario())


def test_a_room_for_one_player_per_address(server: Server) -> None:
    """同IP禁止进入 (``distinct_addresses``): a second player of a member's address may not
    join; another address may; when a member reconnects from another member's address the
    room does not start, and his new address is the one that counts; a room without the
    option takes both."""
    names = ["host", "host_cousin", "visitor"]
    sources = ["127.0.0.2", "127.0.0.2", "127.0.0.3"]

    async def scenario() -> None:
        host, cousin, visitor = clients = [
            Client(server, register(server, n), n, source=a)
            for n, a in zip(names, sources, strict=True)]
        for c in clients:
            await c.connect()
        await host.send({"type": "create_room", "options": {"distinct_addresses": True}})
        room = await host.expect("room")
        assert room["options"]["distinct_addresses"] is True
        await cousin.send({"type": "join_room", "code": room["code"]})
        err = await cousin.expect("error")
        assert err["code"] == "same_address" and err["params"] == {"room": room["code"],
                                                                   "reason": "yours"}
        await visitor.send({"type": "join_room", "code": room["code"]})
        assert len((await visitor.expect("room"))["members"]) == 2
        for c in (host, visitor):
            await c.send({"type": "ready"})
        while not all(m["ready"] for m in (await host.expect("room"))["members"]):
            pass
        # the visitor connects again from the host's address: the room does not start
        moved = Client(server, visitor.token, "visitor", source="127.0.0.2")
        await moved.connect()
        await host.send({"type": "start"})
        refused = await host.expect("error")
        assert (refused["code"], refused["params"]["reason"]) == ("same_address", "members")
        assert not [f for f in host.frames if f.msg["type"] == "table"]
        await host.send({"type": "leave"})
        await host.expect("left")
        await cousin.send({"type": "join_room", "code": room["code"]})  # the visitor's now
        assert (await cousin.expect("error"))["code"] == "same_address"
        await moved.send({"type": "leave"})
        await moved.expect("left")
        await moved.close()
        await host.send({"type": "create_room", "options": {}})
        code = (await host.expect("room"))["code"]
        await cousin.send({"type": "join_room", "code": code})
        assert len((await cousin.expect("room"))["members"]) == 2
        for c in (host, cousin, visitor):
            await c.close()

    asyncio.run(scenario())


def test_four_ready_members_of_two_addresses_do_not_start(server: Server) -> None:
    """同IP禁止进入 on the way a full room starts by itself (the fourth member readies): a
    member who reconnected from another member's address stops it (``same_address`` to the
    one who readied last), and no table starts."""
    names = ["ann", "bo", "cy", "di"]
    sources = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]

    async def scenario() -> None:
        clients = [Client(server, register(server, n), n, source=a)
                   for n, a in zip(names, sources, strict=True)]
        for c in clients:
            await c.connect()
        await clients[0].send({"type": "create_room", "options": {"distinct_addresses": True}})
        code = (await clients[0].expect("room"))["code"]
        for c in clients[1:]:
            await c.send({"type": "join_room", "code": code})
            await c.expect("room")
        for c in clients[:3]:
            await c.send({"type": "ready"})
        while sum(m["ready"] for m in (await clients[0].expect("room"))["members"]) < 3:
            pass
        moved = Client(server, clients[1].token, "bo", source="127.0.0.2")  # ann's address
        await moved.connect()
        await clients[3].send({"type": "ready", "ref": "last"})
        refused = await clients[3].expect("error", ref="last")
        assert refused["code"] == "same_address"
        assert refused["params"] == {"room": code, "reason": "members"}
        await asyncio.sleep(0.3)
        assert not [f for c in (*clients, moved) for f in c.frames if f.msg["type"] == "table"]
        for c in (*clients, moved):
            await c.close()

    asyncio.run(scenario())
