"""A private room outlives its server: kill -9 of ``wuhan-mahjong serve`` (or a restart)
while a room waits for its players loses neither the room nor its code, options, host,
members or who the host asked to leave (``server/room_keeper.py``, ``store/rooms.py``).

The next process opens it again with every member away (离线), as after a dropped
connection: each is back in it when he reconnects, the room starts as before, and a
member who does not come back leaves it after the room's grace.  Real server processes,
real sockets, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.store import open_store
from wuhan_mahjong.store.rooms import SavedRoom, saved_rooms

from .harness import FAST_HASHER, Client, guest_token
from .test_durable_crash import ServeProcess

pytestmark = pytest.mark.slow  # server processes started and killed


@pytest.fixture
def server(db_url: str, tmp_path: Path) -> Iterator[ServeProcess]:
    """``wuhan-mahjong serve`` on this test's database (started by the test)."""
    process = ServeProcess(db_url, tmp_path / "server.log")
    yield process
    process.close()


def _kept(db_url: str, test: Callable[[list[SavedRoom]], bool]) -> list[SavedRoom]:
    """The kept rooms, once ``test`` holds of them (the server writes them behind the lobby:
    a few milliseconds; the bound only stops a hang)."""
    store = open_store(db_url, password_hasher=FAST_HASHER)
    try:
        deadline = time.monotonic() + 30
        while True:
            rooms = saved_rooms(store)
            if test(rooms):
                return rooms
            assert time.monotonic() < deadline, rooms
            time.sleep(0.05)
    finally:
        store.close()


async def _room_where(client: Client, test: Callable[[list[dict[str, Any]]], bool],
                      timeout: float = 30) -> dict[str, Any]:
    while True:
        room = await client.expect("room", timeout=timeout)
        if test(room["members"]):
            return room


def _names_away(room: dict[str, Any]) -> list[tuple[str, bool, bool]]:
    return [(m["name"], m["host"], m["away"]) for m in room["members"]]


def test_a_room_outlives_kill_9_of_its_server(server: ServeProcess, db_url: str) -> None:
    server.options = ("--room-grace-seconds", "120")
    server.start()
    tokens = [guest_token(server) for _ in range(3)]  # type: ignore[arg-type]

    async def before() -> tuple[str, list[str]]:
        host, friend, other = (Client(server, t) for t in tokens)  # type: ignore[arg-type]
        names = [(await c.connect())["account"]["username"] for c in (host, friend, other)]
        await host.send({"type": "create_room",
                         "options": {"profile": "bianfeng", "hands": 1, "cap": 200}})
        code = str((await host.expect("room"))["code"])
        for c in (friend, other):  # one after the other: the members' order is known
            await c.send({"type": "join_room", "code": code})
            await c.expect("room", code=code)
        room = await _room_where(host, lambda ms: len(ms) == 3)
        assert [m["name"] for m in room["members"]] == names
        await host.send({"type": "kick", "name": names[2]})
        await friend.send({"type": "ready"})
        await _room_where(host, lambda ms: len(ms) == 2 and ms[1]["ready"])
        return code, names

    code, names = asyncio.run(before())
    [kept] = _kept(db_url, lambda rs: len(rs) == 1 and len(rs[0].state["members"]) == 2
                   and bool(rs[0].state["kicked"]))
    assert kept.code == code
    server.kill()
    server.start()

    async def after() -> None:
        host, friend, other = (Client(server, t) for t in tokens)  # type: ignore[arg-type]
        await host.connect()  # back in the room at once, his friend away until he comes
        room = await _room_where(host, lambda ms: True)
        assert room["code"] == code
        assert room["options"]["profile"] == "bianfeng" and room["options"]["hands"] == 1
        assert room["options"]["cap"] == 200
        assert _names_away(room) == [(names[0], True, False), (names[1], False, True)]
        await other.connect()  # asked to leave before the crash: still refused
        await other.send({"type": "join_room", "code": code})
        assert (await other.expect("error"))["code"] == "kicked"
        await friend.connect()
        await friend.send({"type": "join_room", "code": code, "rejoin": True})
        back = await _room_where(friend, lambda ms: not any(m["away"] for m in ms))
        assert _names_away(back) == [(names[0], True, False), (names[1], False, False)]
        for c in (friend, host):
            await c.send({"type": "ready"})
        await _room_where(host, lambda ms: all(m["ready"] for m in ms))
        await host.send({"type": "start"})  # bots fill the free room
        table = await host.expect("table", timeout=30)
        assert table["profile"] == "bianfeng"
        await friend.expect("table", timeout=30)
        for c in (host, friend, other):
            await c.close()

    asyncio.run(after())
    assert _kept(db_url, lambda rs: not rs) == []  # started: no longer kept


def test_a_member_who_does_not_come_back_leaves_after_the_grace(
        server: ServeProcess, db_url: str) -> None:
    """After a restart (SIGTERM: the shutdown writes what it had not), a member away for
    the whole grace leaves the restored room; the last one's leaving deletes it."""
    server.options = ("--room-grace-seconds", "1")
    server.start()
    tokens = [guest_token(server) for _ in range(2)]  # type: ignore[arg-type]

    async def before() -> str:
        host, friend = (Client(server, t) for t in tokens)  # type: ignore[arg-type]
        for c in (host, friend):
            await c.connect()
        await host.send({"type": "create_room", "options": {"hands": 1}})
        code = str((await host.expect("room"))["code"])
        await friend.send({"type": "join_room", "code": code})
        await _room_where(host, lambda ms: len(ms) == 2)
        return code  # the sockets stay open: the server's stop closes them

    code = asyncio.run(before())
    assert server.terminate() == 0
    [kept] = _kept(db_url, lambda rs: len(rs) == 1)
    assert kept.code == code and len(kept.state["members"]) == 2
    server.start()

    async def after() -> None:
        host = Client(server, tokens[0])  # type: ignore[arg-type]
        await host.connect()
        await _room_where(host, lambda ms: len(ms) == 2)  # his friend away in it, then gone
        alone = await _room_where(host, lambda ms: len(ms) == 1)
        assert alone["code"] == code and alone["members"][0]["host"]
        await host.send({"type": "leave"})
        await host.expect("left")
        await host.close()

    asyncio.run(after())
    assert _kept(db_url, lambda rs: not rs) == []
