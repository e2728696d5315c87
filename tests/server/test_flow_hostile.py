"""Hostile sequences and races of the game flows over real WebSockets: a leave as the match
ends, a silver room whose member's balance fell before the start, ..."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import wuhan_mahjong.server.invite as invite_module
import wuhan_mahjong.server.table as table_module
from wuhan_mahjong.store import clubs

from .harness import Client, Server, api_post, play, register
from .test_end_vote import two_with_bots


def _hold(server: Server, name: str, *only: Any) -> tuple[threading.Event, threading.Event]:
    """Make the store's method ``name`` wait (in its worker thread) until released: the
    first event is set when a call arrived, the second releases it.  ``only``: hold only
    the calls with these first arguments."""
    store = server.store
    real = getattr(store, name)
    arrived, release = threading.Event(), threading.Event()

    def held(*args: Any, **kwargs: Any) -> Any:
        if not only or args[:len(only)] == only:
            arrived.set()
            release.wait(30)
        return real(*args, **kwargs)

    setattr(store, name, held)
    return arrived, release


async def _until(event: threading.Event, timeout: float = 30) -> None:
    assert await asyncio.to_thread(event.wait, timeout), "never happened"


def test_a_leave_after_the_last_hand_is_no_escape_and_loses_nothing(server: Server) -> None:
    """The last hand is over and the match is being settled: a ``leave`` then is no escape
    (nothing is left to escape from); the player is told so, nothing is charged."""
    tokens = [register(server, n) for n in ("ivy", "jon")]

    async def flow() -> None:
        (ivy, jon), (si, _) = await two_with_bots(server, tokens, hands=1)
        arrived, release = _hold(server, "match_silver")
        await asyncio.gather(play(ivy, until="hand_end", timeout=120),
                             play(jon, seed=1, until="hand_end", timeout=120))
        await _until(arrived)  # the match's settlement is being read
        await ivy.send({"type": "leave"})
        answer = await ivy.expect("left")
        release.set()
        end = await jon.expect("match_end", timeout=30)
        assert answer["escaped"] is False and answer["penalty"] == 0, answer
        assert not [f for f in jon.frames if f.msg["type"] == "notice"
                    and f.msg["code"] == "escape"]
        assert end["totals"] == jon.of_type("hand_end")[-1]["totals"]
        await ivy.send({"type": "quick_match"})  # free again
        await ivy.expect("queued")
        for c in (ivy, jon):
            await c.close()
        assert si in range(4)

    asyncio.run(flow())
    assert server.store.audit().ok


async def _room_of(server: Server, names: list[str], options: dict[str, Any],
                   tokens: dict[str, str]) -> tuple[list[Client], str]:
    """The players ``names`` (the first hosts) meet in a room of ``options``, nobody ready."""
    clients = [Client(server, tokens[n], n) for n in names]
    for c in clients:
        await c.connect()
    await clients[0].send({"type": "create_room", "options": options})
    code = str((await clients[0].expect("room"))["code"])
    for c in clients[1:]:
        await c.send({"type": "join_room", "code": code})
        await c.expect("room")
    return clients, code


async def _room_until(client: Client, test: Any) -> dict[str, Any]:
    """The next ``room`` frame of ``client`` whose members pass ``test``."""
    while True:
        room = await client.expect("room")
        if test(room["members"]):
            return room


def test_a_silver_room_whose_member_became_short_stays_open(server: Server) -> None:
    """A member of a silver room loses silver after joining (a table he escaped from goes on
    settling his seat, an operator's debit): when the room is to start, he alone is told
    (``insufficient_silver`` with ``need`` and ``have``) and is no longer ready; the room and
    its other members stay as they were, and it starts once he can sit again."""
    names = ["ann", "bob", "cat", "dan"]
    tokens = {n: register(server, n) for n in names}
    store = server.store

    async def flow() -> None:
        clients, code = await _room_of(server, names, {"stake": 1, "hands": 1}, tokens)
        ann, dan = clients[0], clients[3]
        need = 400  # yuanhang at stake 1
        account = store.account_by_username("dan")
        store.grant(account.id, -(account.silver - 150))
        for c in clients:
            await c.send({"type": "ready"})
        refused = await dan.expect("error")
        assert refused["code"] == "insufficient_silver", refused
        assert refused["params"] == {"need": need, "have": 150}
        await _room_until(ann, lambda ms: len(ms) == 4 and all(m["ready"] for m in ms))
        room = await ann.expect("room")  # then dan is no longer ready
        assert room["code"] == code and [m["ready"] for m in room["members"]] == [True] * 3 + [False]
        for c in clients[:3]:
            assert not [f for f in c.frames if f.msg["type"] == "error"], c.name
        await ann.send({"type": "snapshot"})  # the room is still there
        assert (await ann.expect("room"))["code"] == code
        store.grant(account.id, need)
        await dan.send({"type": "ready"})
        tables = [await c.expect("table") for c in clients]
        assert len({t["match_id"] for t in tables}) == 1
        for c in clients:
            await c.send({"type": "leave"})
            await c.expect("left")
            await c.close()

    asyncio.run(flow())
    assert store.audit().ok


def test_a_member_who_is_no_longer_ready_is_not_seated(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the server checks that a club's table may start (the store answers who is a
    member), a member says he is not ready after all: the table does not start without him
    agreeing (he would have been seated, and his leave an escape)."""
    names = ["ann", "boss", "ben"]
    tokens = {n: register(server, n) for n in names}
    number = api_post(server, "/api/clubs", tokens["boss"], {"name": "慢圈"}).json()["number"]
    for n in ("ann", "ben"):
        api_post(server, f"/api/clubs/{number}/apply", tokens[n])
        api_post(server, f"/api/clubs/{number}/members", tokens["boss"],
                 {"username": n, "action": "approve"})

    async def flow() -> None:
        clients, _ = await _room_of(server, names, {"club": number}, tokens)
        ann, boss, ben = clients
        for c in clients:
            await c.send({"type": "ready"})
        await _room_until(ann, lambda ms: len(ms) == 3 and all(m["ready"] for m in ms))
        real = clubs.member_role
        arrived, release = threading.Event(), threading.Event()

        def held(*args: Any, **kwargs: Any) -> Any:
            arrived.set()
            release.wait(30)
            return real(*args, **kwargs)

        monkeypatch.setattr(clubs, "member_role", held)
        await ann.send({"type": "start"})
        await _until(arrived)
        await ben.send({"type": "ready", "ready": False})
        await _room_until(ann, lambda ms: not ms[2]["ready"])
        release.set()
        await ann.send({"type": "ping"})
        await ann.expect("pong")
        await boss.send({"type": "snapshot"})
        assert (await boss.expect("room"))["members"][2]["ready"] is False
        for c in clients:
            assert not [f for f in c.frames if f.msg["type"] == "table"], c.name
            await c.close()

    asyncio.run(flow())


def test_a_silver_quick_match_whose_player_became_short_seats_the_others_later(
        server: Server) -> None:
    """Four players wait in the silver quick-match queue; one of them lost silver since he
    joined.  He alone is told (``insufficient_silver`` with ``need`` and ``have``, and
    ``left`` the queue); the three others wait on in the queue (they were all dropped from
    it, each told that *a* player was short), and sit with the next player who comes."""
    names = ["ann", "bob", "cat", "dan", "eve"]
    tokens = {n: register(server, n) for n in names}
    store = server.store

    async def flow() -> None:
        clients = [Client(server, tokens[n], n) for n in names]
        for c in clients:
            await c.connect()
        ann, bob, cat, dan, eve = clients
        for i, c in enumerate((ann, bob, cat)):
            await c.send({"type": "quick_match", "silver": True})
            assert (await c.expect("queued"))["waiting"] == i + 1
        account = store.account_by_username("bob")
        store.grant(account.id, -(account.silver - 100))
        await dan.send({"type": "quick_match", "silver": True})
        refused = await bob.expect("error")
        assert refused["code"] == "insufficient_silver", refused
        assert refused["params"] == {"need": 400, "have": 100}
        assert (await bob.expect("left"))["where"] == "queue"
        for c in (ann, cat, dan):
            await c.expect("queued", waiting=3)
            assert not [f for f in c.frames if f.msg["type"] == "error"], c.name
        await eve.send({"type": "quick_match", "silver": True})
        tables = [await c.expect("table") for c in (ann, cat, dan, eve)]
        assert len({t["match_id"] for t in tables}) == 1 and tables[0]["stake"] == 1
        for c in (ann, cat, dan, eve):
            await c.send({"type": "leave"})
            await c.expect("left")
        for c in clients:
            await c.close()

    asyncio.run(flow())
    assert store.audit().ok


def test_a_spectator_who_sits_down_stops_watching(server: Server) -> None:
    """A seated player cannot watch (``not_watchable``): one who watched a table and then
    sits down at his own is told he no longer watches (``unwatched``, ``seated``) before his
    ``table``, and gets no more ``watch_state`` frames of the other table."""
    tokens = {n: register(server, n) for n in ("ann", "bob")}

    async def flow() -> None:
        (ann,), _ = await _room_of(server, ["ann"], {"hands": 2}, tokens)
        await ann.send({"type": "ready"})
        await ann.expect("room")
        await ann.send({"type": "start"})
        watched = (await ann.expect("table"))["table_id"]
        bob = Client(server, tokens["bob"], "bob")
        await bob.connect()
        await bob.send({"type": "watch", "table": watched})
        await bob.expect("watching")
        await bob.send({"type": "quick_match"})
        seated = await bob.expect("table")
        kinds = [f.msg["type"] for f in bob.frames]
        stop = bob.of_type("unwatched")
        assert stop == [{"type": "unwatched", "table_id": watched, "reason": "seated"}], kinds
        assert kinds.index("unwatched") < kinds.index("table")
        await asyncio.gather(play(ann, until="hand_end", timeout=120),
                             play(bob, until="match_end", timeout=120))
        after = [f.msg for f in bob.frames[kinds.index("table"):]]
        assert not [m for m in after if m["type"] == "watch_state"]
        assert seated["table_id"] != watched
        await bob.send({"type": "watch", "table": watched})  # free again: he may watch
        await bob.expect("watching")
        for c in (ann, bob):
            await c.close()

    asyncio.run(flow())


def test_an_invitation_from_a_room_one_was_asked_to_leave_meanwhile_is_not_sent(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """A member invites a friend; while the store answers whether they are friends, the host
    asks him to leave (``kick``): the invitation is not sent (into a room he is not in, whose
    host does not want him), and he is told why (``not_seated``)."""
    names = ["host", "amy", "pal"]
    tokens = {n: register(server, n) for n in names}
    for a, b in (("amy", "pal"), ("pal", "amy")):
        assert api_post(server, f"/api/following/{b}", tokens[a]).status_code == 200

    async def flow() -> None:
        (host, amy), _ = await _room_of(server, ["host", "amy"], {"hands": 1}, tokens)
        pal = Client(server, tokens["pal"], "pal")
        await pal.connect()
        real = invite_module.followers_among
        arrived, release = threading.Event(), threading.Event()

        def held(*args: Any, **kwargs: Any) -> Any:
            arrived.set()
            release.wait(30)
            return real(*args, **kwargs)

        monkeypatch.setattr(invite_module, "followers_among", held)
        await amy.send({"type": "invite", "username": "pal", "ref": "inv"})
        await _until(arrived)
        await host.send({"type": "kick", "name": "amy"})
        assert (await amy.expect("left"))["kicked"] is True
        release.set()
        answer = await amy.expect("error")
        assert (answer["code"], answer["ref"]) == ("not_seated", "inv"), answer
        await pal.send({"type": "ping"})
        await pal.expect("pong")
        assert not pal.of_type("invited") and not amy.of_type("invite_sent")
        for c in (host, amy, pal):
            await c.close()

    asyncio.run(flow())


def test_a_player_who_leaves_while_his_table_is_set_up_is_not_seated(server: Server) -> None:
    """The quick match found its players and the server fetches the bots: a ``leave`` then
    (the player's 取消, sent as the table formed) takes him out (``left``, ``queue``) instead of
    being refused (``not_seated``, while he was seated a moment later, where a leave is an
    escape).  The table starts without him, a bot in his seat; nothing is charged."""
    tokens = {n: register(server, n) for n in ("ann", "bob")}

    async def flow() -> None:
        ann, bob = (Client(server, tokens[n], n) for n in ("ann", "bob"))
        for c in (ann, bob):
            await c.connect()
        arrived, release = _hold(server, "create_bot")
        await ann.send({"type": "quick_match"})
        await ann.expect("queued")
        await bob.send({"type": "quick_match"})
        await bob.expect("queued")
        await _until(arrived)  # the table is being set up: its bots are fetched
        await bob.send({"type": "leave"})
        answer = await bob.expect("left")
        release.set()
        assert answer["where"] == "queue" and not answer["escaped"], answer
        table = await ann.expect("table")
        assert [p["bot"] for p in table["players"]].count(True) == 3
        assert "bob" not in [p["name"] for p in table["players"]]
        await bob.send({"type": "ping"})
        await bob.expect("pong")
        assert not bob.of_type("table") and not bob.of_type("error")
        await bob.send({"type": "quick_match"})  # free to play again
        assert (await bob.expect("table"))["table_id"] != table["table_id"]
        await asyncio.gather(play(ann, timeout=120), play(bob, seed=2, timeout=120))
        for c in (ann, bob):
            await c.close()

    asyncio.run(flow())
    assert server.store.audit().ok


def test_a_silver_quick_match_player_leaving_as_it_forms_queues_the_others_again(
        server: Server) -> None:
    """Four found each other at the silver queue; while the server checks their silver, one
    of them leaves: he is out (``left``), and the other three queue again (a silver table
    seats no bot) rather than all being dropped, and sit with the next player."""
    names = ["ann", "bob", "cat", "dan", "eve"]
    tokens = {n: register(server, n) for n in names}

    async def flow() -> None:
        clients = [Client(server, tokens[n], n) for n in names]
        for c in clients:
            await c.connect()
        ann, bob, cat, dan, eve = clients
        for c in (ann, bob, cat):
            await c.send({"type": "quick_match", "silver": True})
            await c.expect("queued")
        # the silver of each is read again when the four are found, ann's first: held
        arrived, release = _hold(server, "account", server.store.account_by_username("ann").id)
        await dan.send({"type": "quick_match", "silver": True})
        await _until(arrived)
        await bob.send({"type": "leave"})
        assert (await bob.expect("left"))["where"] == "queue"
        release.set()
        for c in (ann, cat, dan):
            await c.expect("queued", waiting=3)
        await eve.send({"type": "quick_match", "silver": True})
        tables = [await c.expect("table") for c in (ann, cat, dan, eve)]
        assert len({t["match_id"] for t in tables}) == 1
        assert not bob.of_type("table")
        for c in (ann, cat, dan, eve):
            await c.send({"type": "leave"})
            await c.expect("left")
        for c in clients:
            await c.close()

    asyncio.run(flow())
    assert server.store.audit().ok


def test_a_leave_before_the_table_is_shown_is_no_escape(server: Server) -> None:
    """The player has a seat but the match is still being opened (its ``table`` frame not
    sent yet: he still sees his queue): his ``leave`` (取消) is refused with ``busy`` (the
    table is his now, and a leave once he sees it is an escape), instead of an escape he
    never saw coming, charged before the first tile."""
    tokens = {"ann": register(server, "ann")}

    async def flow() -> None:
        ann = Client(server, tokens["ann"], "ann")
        await ann.connect()
        arrived, release = _hold(server, "open_match")
        await ann.send({"type": "quick_match"})
        await ann.expect("queued")
        await _until(arrived)  # seated; the match is being opened in the store
        await ann.send({"type": "leave"})
        answer = await ann.recv()
        release.set()
        assert answer["type"] == "error" and answer["code"] == "busy", answer
        assert answer["params"] == {"reason": "starting"}
        await ann.expect("table")
        end = await play(ann, timeout=120)
        assert not any(p["escaped"] for p in ann.of_type("state")[-1]["players"])
        assert end["reason"] is None
        await ann.close()

    asyncio.run(flow())
    assert server.store.audit().ok


def test_auto_play_switched_on_and_off_in_a_burst_is_limited(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """托管 on, off, on, off ... as fast as the connection allows: each switch was a match-log
    row and a state frame to every other player (their auto marks changed), so one player
    could flood the table's log and the others' connections.  A few switches pass; the rest
    are refused (``rate_limited``, reason ``auto``) and change nothing.  (Two timeouts in a
    row still switch it on, and playing still switches it off: those are no requests.)"""
    monkeypatch.setattr(table_module, "AUTO_SWITCH_SECONDS", 1e9)  # however slow the machine
    tokens = [register(server, n) for n in ("ann", "bob")]

    async def flow() -> None:
        (ann, bob), _ = await two_with_bots(server, tokens, hands=1)
        await ann.expect("state")
        for k in range(12):
            await ann.send({"type": "auto", "on": k % 2 == 0, "ref": f"a{k}"})
        await ann.send({"type": "ping"})
        await ann.expect("pong")
        await ann.send({"type": "snapshot"})  # the table has handled every switch by now
        await ann.expect("table")
        switched = [m for m in ann.of_type("notice") if m["code"] in ("auto_on", "auto_off")]
        refused = [m for m in ann.of_type("error") if m["code"] == "rate_limited"]
        assert refused and all(m["params"] == {"reason": "auto"} for m in refused), refused
        assert len(switched) < 12  # (a refused switch on leaves it off: the next off is no switch)
        await ann.send({"type": "auto", "on": False})
        await asyncio.gather(play(ann, timeout=120), play(bob, seed=1, timeout=120))
        for c in (ann, bob):
            await c.close()

    asyncio.run(flow())
