"""Inviting a friend into one's room (``server/invite.py``): only from a room, only players
one follows who follow one back, only while they are connected, a few at a time; the
invited player joins with the code he is sent.  On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

import httpx
import pytest

import wuhan_mahjong.server.invite as invite_module

from .harness import Client, StartServer, register


def test_an_invitation_brings_a_followed_player_into_the_room(
        start_server: StartServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # no refill during the test, however slow the machine: the burst is all there is
    monkeypatch.setattr(invite_module, "INVITE_RATE", 1e-9)
    server = start_server()
    host_token, friend_token, _ = (register(server, n) for n in ("ihost", "ifriend", "istranger"))

    def follow(name: str, token: str = host_token) -> None:
        r = httpx.post(f"{server.http}/api/following/{name}", timeout=10,
                       headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text

    async def scenario() -> None:
        host = Client(server, host_token)
        await host.connect()

        async def invite(name: str) -> dict[str, object]:
            await host.send({"type": "invite", "username": name, "ref": "inv"})
            while True:
                msg = await host.recv(10)
                if msg["type"] in ("invite_sent", "error"):
                    return msg

        refused = await invite("ifriend")
        assert refused["code"] == "not_seated" and refused["ref"] == "inv"
        await host.send({"type": "create_room", "options": {"profile": "bianfeng", "hands": 2}})
        room = await host.expect("room")
        assert (await invite("ifriend"))["code"] == "not_found"  # not followed
        await asyncio.to_thread(follow, "ifriend")
        await asyncio.to_thread(follow, "istranger")
        # following him is not enough: he must follow back (friends), or anyone could
        # follow a player and send him invitations
        refused = await invite("istranger")
        assert refused["code"] == "not_friends" and refused["params"]["username"] == "istranger"
        await asyncio.to_thread(follow, "ihost", friend_token)
        offline = await invite("IFRIEND")
        assert offline["code"] == "offline" and offline["params"]["username"] == "ifriend"
        friend = Client(server, friend_token)
        await friend.connect()
        sent = await invite("ifriend")
        assert sent == {"type": "invite_sent", "username": "ifriend", "ref": "inv"}
        invited = await friend.expect("invited")
        assert invited["by"] == "ihost" and invited["code"] == room["code"]
        assert invited["options"]["profile"] == "bianfeng" and invited["options"]["hands"] == 2
        await friend.send({"type": "join_room", "code": invited["code"]})
        assert len((await friend.expect("room"))["members"]) == 2
        # a few at a time: the sixth within a moment is refused
        answers = [(await invite("ifriend"))["type"] for _ in range(2)]
        assert answers == ["invite_sent", "error"]  # not_found, not_friends, offline, 2 sent
        assert (await invite("ifriend"))["code"] == "rate_limited"
        for c in (host, friend):
            await c.close()

    asyncio.run(scenario())
