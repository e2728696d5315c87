"""A private room holds the place of a member whose connection dropped (离线, the apps'
grace): a reload or a phone moving from Wi-Fi to mobile data does not throw him out.

``Lobby.disconnected``: he is shown away and not ready, the room cannot start without him;
back within ``room_grace_seconds`` he is in the room again; after it he leaves the room, as
a ``leave`` would.  A quick-match queue lets a dropped player go at once."""

from __future__ import annotations

import asyncio
from typing import Any

from .harness import Client, Server, StartServer, guest_token


async def _room_of_two(server: Server) -> tuple[Client, Client, str]:
    host, friend = Client(server, guest_token(server)), Client(server, guest_token(server))
    for c in (host, friend):
        await c.connect()
    await host.send({"type": "create_room", "options": {"hands": 1}})
    code = (await host.expect("room"))["code"]
    await friend.send({"type": "join_room", "code": code})
    await friend.expect("room")
    await host.expect("room", code=code)
    return host, friend, code


async def _room_where(client: Client, test: Any) -> dict[str, Any]:
    """The next room frame for which ``test(members)`` holds."""
    while True:
        room = await client.expect("room")
        if test(room["members"]):
            return room


def _away(members: list[dict[str, Any]]) -> list[bool]:
    return [m["away"] for m in members]


def test_a_member_who_drops_is_held_away_and_back_in_the_room(
        start_server: StartServer) -> None:
    server = start_server(room_grace_seconds=60)

    async def scenario() -> None:
        host, friend, code = await _room_of_two(server)
        await friend.send({"type": "ready"})
        await _room_where(host, lambda ms: all(m["ready"] for m in ms if not m["host"]))
        await friend.close()
        # held: away, no longer ready (the room waits for him), the host still alone in it
        room = await _room_where(host, lambda ms: any(_away(ms)))
        assert [(m["host"], m["ready"], m["away"]) for m in room["members"]] == [
            (True, False, False), (False, False, True)]
        await host.send({"type": "ready"})
        await _room_where(host, lambda ms: ms[0]["ready"])
        await host.send({"type": "start"})
        assert (await host.expect("error"))["code"] == "not_ready"  # not without him
        # back: the new connection's resume request finds the room (a reload's)
        welcome = await friend.connect()
        assert welcome["at_table"] is False
        await friend.send({"type": "snapshot", "ref": "resume"})
        mine = await friend.expect("room")
        assert mine["code"] == code and _away(mine["members"]) == [False, False]
        await _room_where(host, lambda ms: not any(_away(ms)))
        # as a member again: he readies and the room starts
        await friend.send({"type": "ready"})
        await _room_where(host, lambda ms: all(m["ready"] for m in ms))
        await host.send({"type": "start"})
        await host.expect("table")
        await friend.expect("table")
        for c in (host, friend):
            await c.close()

    asyncio.run(scenario())


def test_after_the_grace_the_member_leaves_the_room(start_server: StartServer) -> None:
    server = start_server(room_grace_seconds=0.3)

    async def scenario() -> None:
        host, friend, code = await _room_of_two(server)
        await friend.close()
        await _room_where(host, lambda ms: any(_away(ms)))
        room = await _room_where(host, lambda ms: len(ms) == 1)
        assert room["members"][0]["you"] and not room["members"][0]["away"]
        await friend.connect()
        await friend.send({"type": "snapshot", "ref": "resume"})
        assert (await friend.expect("error", ref="resume"))["code"] == "not_seated"
        await friend.send({"type": "join_room", "code": code})  # an ordinary join again
        assert len((await friend.expect("room"))["members"]) == 2
        for c in (host, friend):
            await c.close()

    asyncio.run(scenario())


def test_an_away_host_stays_host_until_his_grace_ends(start_server: StartServer) -> None:
    server = start_server(room_grace_seconds=0.5)

    async def scenario() -> None:
        host, friend, _ = await _room_of_two(server)
        await host.close()
        room = await _room_where(friend, lambda ms: any(_away(ms)))
        assert [(m["host"], m["away"]) for m in room["members"]] == [(True, True),
                                                                    (False, False)]
        await friend.send({"type": "start"})
        assert (await friend.expect("error"))["code"] == "not_host"
        room = await _room_where(friend, lambda ms: len(ms) == 1)
        assert room["members"][0]["host"] and room["members"][0]["you"]
        await friend.close()

    asyncio.run(scenario())


def test_joining_ones_own_room_again_gets_it(start_server: StartServer) -> None:
    """In a cluster the node a player reconnects to may not hold his room: the client asks
    to join it by its code, which is his own room again (not ``busy``), on any node."""
    server = start_server(room_grace_seconds=60)

    async def scenario() -> None:
        host, friend, code = await _room_of_two(server)
        await friend.close()
        await _room_where(host, lambda ms: any(_away(ms)))
        await friend.connect()
        await friend.send({"type": "join_room", "code": code})
        room = await friend.expect("room")
        assert room["code"] == code and len(room["members"]) == 2
        await _room_where(host, lambda ms: not any(_away(ms)))
        await friend.send({"type": "join_room", "code": code})  # present: the same answer
        assert (await friend.expect("room"))["code"] == code
        await friend.send({"type": "create_room", "options": {}})  # one place at a time
        assert (await friend.expect("error"))["code"] == "busy"
        await host.send({"type": "kick", "name": room["members"][1]["name"]})
        await friend.expect("left")
        await friend.send({"type": "join_room", "code": code, "rejoin": True, "ref": "back"})
        refused = await friend.expect("error", ref="back")  # only into one's own room
        assert (refused["code"], refused["params"]["room"]) == ("not_seated", code)
        for c in (host, friend):
            await c.close()

    asyncio.run(scenario())


def test_an_away_member_the_host_asks_to_leave_is_gone(start_server: StartServer) -> None:
    server = start_server(room_grace_seconds=60)

    async def scenario() -> None:
        host, friend, _ = await _room_of_two(server)
        await friend.close()
        room = await _room_where(host, lambda ms: any(_away(ms)))
        away = next(m["name"] for m in room["members"] if m["away"])
        await host.send({"type": "kick", "name": away})
        await _room_where(host, lambda ms: len(ms) == 1)
        await friend.connect()
        await friend.send({"type": "snapshot", "ref": "resume"})
        assert (await friend.expect("error", ref="resume"))["code"] == "not_seated"
        for c in (host, friend):
            await c.close()

    asyncio.run(scenario())


def test_without_a_grace_a_dropped_member_leaves_at_once(start_server: StartServer) -> None:
    server = start_server(room_grace_seconds=0)

    async def scenario() -> None:
        host, friend, _ = await _room_of_two(server)
        await friend.close()
        room = await _room_where(host, lambda ms: len(ms) == 1)
        assert not any(_away(room["members"]))
        await host.close()

    asyncio.run(scenario())


def test_a_queue_lets_a_dropped_player_go_at_once(start_server: StartServer) -> None:
    server = start_server(room_grace_seconds=60, bot_wait=600)

    async def scenario() -> None:
        one, two = Client(server, guest_token(server)), Client(server, guest_token(server))
        for c in (one, two):
            await c.connect()
        await one.send({"type": "quick_match"})
        await one.expect("queued")
        await two.send({"type": "quick_match"})
        while (await one.expect("queued"))["waiting"] != 2:
            pass
        await two.close()
        while (await one.expect("queued"))["waiting"] != 1:
            pass
        await one.close()

    asyncio.run(scenario())
