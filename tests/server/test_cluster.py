"""A cluster of real ``wuhan-mahjong serve --redis`` processes on loopback ports, one database
(SQLite file or PostgreSQL schema) and one real Redis (``WUHAN_MAHJONG_TEST_REDIS``, a
``redis://`` URL; ``.ci/run`` starts Debian's ``redis-server``).  Each test takes its own
Redis database number and empties it.

What is checked: a node killed with SIGKILL mid-hand has its table resumed on a survivor
within 10 s, finished there with the same records, totals and silver as an uninterrupted
replay of its log, each hand settled once; a player who reconnects to another node mid-hand
plays on through a relay; a new connection on one node replaces the account's connection on
another.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
import redis
import websockets

from wuhan_mahjong.store import Store, clubs
from wuhan_mahjong.store.rooms import saved_rooms

from .harness import Client, free_port, play, seat_four
from .test_durable import PASSWORD, RICH, check_settled_like_uninterrupted
from .test_durable_crash import Player, ServeProcess, _accounts
from .test_protocol_fuzz import check_fuzzed, play_while_fuzzing

REDIS_ENV = "WUHAN_MAHJONG_TEST_REDIS"

HEARTBEAT = 0.25
"""The nodes' heartbeat in these tests (``--cluster-heartbeat``; 1 s by default)."""
TTL = 3.0
"""The life of a node's heartbeat, leases, homes and room codes in these tests
(``--cluster-ttl``; 5 s by default): every kill or freeze waits it out before a take-over.
Twelve heartbeats, so that a node whose event loop stalls (a loaded CI machine: 4 workers on
2 cores) for under 2.75 s keeps its leases (2 s was seen to be too short at a load of 20 on
2 cores, when a take-over did not yet beat while it replayed:
:func:`test_a_long_take_over_keeps_the_leases_it_took`).  The default's timing is the subject of
``test_a_killed_nodes_table_finishes_on_another_node_settled_once[kill]`` alone."""
SHORT_LIFE = {"cluster_heartbeat": HEARTBEAT, "cluster_ttl": TTL}
""":data:`HEARTBEAT` and :data:`TTL` as ``start_server`` overrides (an in-process node)."""


def cluster_env(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    """The ``serve`` processes started from now on are nodes on Redis ``url`` (what
    ``--redis`` sets) with the tests' short life (:data:`HEARTBEAT`, :data:`TTL`)."""
    monkeypatch.setenv("WUHAN_MAHJONG_REDIS", url)
    monkeypatch.setenv("WUHAN_MAHJONG_CLUSTER_HEARTBEAT", str(HEARTBEAT))
    monkeypatch.setenv("WUHAN_MAHJONG_CLUSTER_TTL", str(TTL))


def _redis_database() -> int:
    """A Redis database number (1-15) for this test: random, so that two runs on one machine
    rarely meet, and under ``pytest -n N`` from this worker's own share of the 15, so that two
    workers' tests never empty each other's."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    share = [n for n in range(1, 16) if (n - 1) % workers == int(worker) % workers]
    return random.Random().choice(share or [1 + int(worker) % 15])  # (more than 15 workers)


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A Redis database of its own for this test (emptied before and after)."""
    base = os.environ.get(REDIS_ENV)
    if not base:
        if os.environ.get("CI") or os.environ.get("WUHAN_MAHJONG_REQUIRE_SERVICES"):
            pytest.fail(f"{REDIS_ENV} is not set, so the cluster tests cannot run; "
                        "CI must provide it (see .ci/run)", pytrace=False)
        pytest.skip(f"cluster tests need {REDIS_ENV}=redis://127.0.0.1:6379/0")
    number = _redis_database()
    url = base.rsplit("/", 1)[0] + f"/{number}" if base.count("/") >= 3 else f"{base}/{number}"
    client = redis.Redis.from_url(url)
    client.flushdb()
    try:
        yield url
    finally:
        client.flushdb()
        client.close()


@pytest.fixture
def nodes(db_url: str, redis_url: str, tmp_path: Path,
          monkeypatch: pytest.MonkeyPatch) -> Iterator[list[ServeProcess]]:
    """Three nodes of one cluster (started by the test as it needs them): ``serve`` processes
    on one database that find their Redis in ``$WUHAN_MAHJONG_REDIS`` (what ``--redis`` sets),
    with the short life of :func:`cluster_env`."""
    cluster_env(monkeypatch, redis_url)
    made = [ServeProcess(db_url, tmp_path / f"node{i}.log") for i in range(3)]
    yield made
    for n in made:
        n.close()


def _pid(node: ServeProcess) -> int:
    assert node.proc is not None
    return node.proc.pid


def _owner_pid(store: Store, match_id: str) -> int | None:
    for mid, owner in store.running_match_owners():
        if mid == match_id and owner is not None:
            return int(owner.rsplit(":", 1)[1])
    return None


def _why_not_taken_over(db_url: str, store: Store, survivor: ServeProcess) -> str:
    """What a failed take-over test needs to tell its causes apart: whether the frozen node
    holds SQLite's write lock (a process stopped inside a write keeps it), who leases the
    running matches, and the end of the survivor's log."""
    said = []
    if db_url.startswith("sqlite:///"):
        probe = sqlite3.connect(db_url.removeprefix("sqlite:///"), timeout=0,
                                isolation_level=None)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
            said.append("the SQLite write lock is free")
        except sqlite3.OperationalError as e:
            said.append(f"the SQLite write lock is held ({e})")
        finally:
            probe.close()
    said.append(f"owners {store.running_match_owners()}")
    tail = survivor.log.read_text(errors="replace")[-1500:] if survivor.log.exists() else ""
    said.append(f"survivor's log ends: {tail!r}")
    return "; ".join(said)


async def _play_room(node: ServeProcess, tokens: list[str], store: Store, *, hands: int,
                     seed: int) -> tuple[str, list[Player], list[asyncio.Task[None]]]:
    """Four players meet in a room on ``node`` and play (bots choosing), reconnecting to
    their ``server`` whenever their connection closes."""
    clients = await seat_four(node, tokens, hands=hands, stake=5,  # type: ignore[arg-type]
                              profile="bianfeng")
    match_id = clients[0].of_type("table")[0]["match_id"]
    players = []
    for i, c in enumerate(clients):
        p = Player(node, tokens[i], seed + i)
        p.seat = c.of_type("table")[0]["seat"]
        players.append(p)
    runs = [asyncio.create_task(p.play(c, store, match_id))
            for p, c in zip(players, clients, strict=True)]
    return match_id, players, runs


async def _frames(players: list[Player], at_least: int) -> None:
    while sum(p.states for p in players) < at_least and not all(p.end for p in players):
        await asyncio.sleep(0.01)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["kill", "term"])
def test_a_killed_nodes_table_finishes_on_another_node_settled_once(
        nodes: list[ServeProcess], db_url: str, how: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """kill -9 (or SIGTERM: a drain) of the table's node mid-hand: a survivor takes the match
    over within 10 s at the same move, the players (reconnecting to the survivors) finish it,
    and it is settled like an uninterrupted run, each hand once.  The kill is the one test of
    the default heartbeat life (5 s: the issue's 10 s bound is about it); the other tests run
    the nodes with a short one (:data:`TTL`)."""
    if how == "kill":
        monkeypatch.delenv("WUHAN_MAHJONG_CLUSTER_HEARTBEAT")
        monkeypatch.delenv("WUHAN_MAHJONG_CLUSTER_TTL")
    store, tokens, ids = _accounts(db_url, 4)
    first, second, third = ServeProcess.start_all(nodes)
    with redis.Redis.from_url(os.environ["WUHAN_MAHJONG_REDIS"]) as shared:
        lives = [shared.pttl(key) for key in shared.keys("wm:node:*")]
    assert len(lives) == 3  # the nodes' heartbeats live what the setting says
    if how == "kill":
        assert all(0 < life <= 5000 for life in lives) and max(lives) > TTL * 1000, lives
    else:
        assert all(0 < life <= TTL * 1000 for life in lives), lives
    try:
        async def scenario() -> tuple[str, float, int]:
            match_id, players, runs = await _play_room(first, tokens, store, hands=2, seed=40)
            await _frames(players, 40)
            assert not any(p.end for p in players), "the match ended before the kill"
            if how == "kill":
                await asyncio.to_thread(first.kill)
            else:
                assert await asyncio.to_thread(first.terminate) == 0
            killed = time.monotonic()
            # The players reconnect at once (the load balancer spreads them over the
            # survivors): their welcome waits for the take-over and says at_table.
            for i, p in enumerate(players):
                p.server = second if i % 2 else third
            while (owner := await asyncio.to_thread(_owner_pid, store, match_id)) in (None, _pid(first)):
                assert time.monotonic() - killed < 10, "no node took the match over in 10 s"
                await asyncio.sleep(0.1)
            took = time.monotonic() - killed
            await asyncio.wait_for(asyncio.gather(*runs), 120)
            for p in players:
                assert p.welcomes and all(w["at_table"] for w in p.welcomes), p.welcomes
                if p.client is not None:
                    await p.client.close()
            return match_id, took, owner

        match_id, took, owner = asyncio.run(scenario())
        assert owner in (_pid(second), _pid(third))
        assert took < 10
        print(f"takeover after the {how}: {took:.1f} s")  # the figure docs/cluster.md quotes
        match = check_settled_like_uninterrupted(store, match_id, dict.fromkeys(ids, RICH))
        assert len(match.history) == 2
        audit = store.audit()
        assert audit.ok, audit
        assert sum(store.account(a).silver for a in ids) + audit.house_balance == RICH * 4
        assert store.running_matches() == []
    finally:
        store.close()


@pytest.mark.slow
def test_reconnecting_to_another_node_mid_hand_plays_on(nodes: list[ServeProcess], db_url: str) -> None:
    """Two players drop mid-hand and reconnect to nodes 2 and 3: the table stays on node 1,
    they are relayed to it (``welcome`` says at_table, then their own seat's state), and the
    match ends as an uninterrupted run would."""
    store, tokens, ids = _accounts(db_url, 4)
    first, second, third = ServeProcess.start_all(nodes)
    try:
        async def scenario() -> str:
            match_id, players, runs = await _play_room(first, tokens, store, hands=1, seed=60)
            await _frames(players, 20)
            assert not any(p.end for p in players)
            for p, node in ((players[1], second), (players[2], third)):
                p.server = node
                assert p.client is not None
                await p.client.close()  # the player's loop reconnects, now to another node
            await asyncio.wait_for(asyncio.gather(*runs), 120)
            for p in players[1:3]:
                assert p.welcomes and all(w["at_table"] for w in p.welcomes), p.welcomes
                assert p.client is not None and p.client.of_type("table")[-1]["seat"] == p.seat
                await p.client.close()
            assert await asyncio.to_thread(_owner_pid, store, match_id) is None  # ended
            return match_id

        match_id = asyncio.run(scenario())
        check_settled_like_uninterrupted(store, match_id, dict.fromkeys(ids, RICH))
        logged = store.load_match(match_id)
        assert logged is not None and logged.owner is not None
        assert logged.owner.endswith(f":{_pid(first)}") and logged.epoch == 1  # never moved
    finally:
        store.close()


@pytest.mark.slow
def test_a_socket_relayed_to_a_dead_node_is_closed_to_reconnect(
        nodes: list[ServeProcess], db_url: str) -> None:
    """A player's socket on node 2 relays to his table on node 1; node 1 is killed: node 2
    closes the socket with 1012 (reconnect) once node 1's heartbeat has expired, and the
    player's reconnection finds the table again on the survivor."""
    store, tokens, _ids = _accounts(db_url, 4)
    first, second = ServeProcess.start_all(nodes[:2])
    try:
        async def scenario() -> None:
            clients = await seat_four(first, tokens, hands=1)  # type: ignore[arg-type]
            relayed = Client(second, tokens[1])  # type: ignore[arg-type]
            assert (await relayed.connect())["at_table"] is True
            await asyncio.to_thread(first.kill)
            await asyncio.wait_for(relayed.closed.wait(), 30)  # about TTL: the heartbeat's life
            assert relayed.close_code == 1012
            again = Client(second, tokens[1])  # type: ignore[arg-type]
            assert (await again.connect(via_header=False))["at_table"] is True
            await again.expect("state", timeout=30)
            for c in [*clients, relayed, again]:
                await c.close()

        asyncio.run(scenario())
    finally:
        store.close()


@pytest.mark.slow
def test_one_connection_per_account_and_logout_across_nodes(
        nodes: list[ServeProcess], db_url: str) -> None:
    """One live connection per account across nodes: connecting on node 2 closes node 1's;
    a logout on node 1 closes the session's socket on node 2."""
    store, tokens, _ids = _accounts(db_url, 1)
    first, second = ServeProcess.start_all(nodes[:2])
    try:
        async def scenario() -> None:
            old = Client(first, tokens[0])  # type: ignore[arg-type]
            await old.connect()
            new = Client(second, tokens[0])  # type: ignore[arg-type]
            welcome = await new.connect()
            assert welcome["at_table"] is False
            notice = await old.expect("notice", code="replaced")
            assert notice["code"] == "replaced"
            await asyncio.wait_for(old.closed.wait(), 10)
            await new.send({"type": "ping", "ref": "p"})
            await new.expect("pong")
            assert not new.closed.is_set()
            # Logging out on node 1 ends the session's socket on node 2.
            answer = await asyncio.to_thread(httpx.post, f"{first.http}/api/logout", timeout=10,
                                             headers={"Authorization": f"Bearer {tokens[0]}"})
            assert answer.status_code == 200, answer.text
            await new.expect("notice", code="logged_out")
            await asyncio.wait_for(new.closed.wait(), 10)
            assert new.close_code == 4401

        asyncio.run(scenario())
    finally:
        store.close()


@pytest.mark.slow
def test_random_messages_relayed_between_nodes_never_disturb_the_table(
        nodes: list[ServeProcess], db_url: str) -> None:
    """``test_protocol_fuzz`` across two nodes: the room and its table on node 1, the
    fuzzing player's socket on node 2, so that every message he sends (malformed, stale,
    illegal, lone surrogates, huge numbers) goes through node 2's parser and the relay over
    Redis.  Each is answered, he keeps his connection, nobody else sees an error, and the
    match settles alike for all four."""
    store, tokens, _ = _accounts(db_url, 4)
    first, second = ServeProcess.start_all(nodes[:2])
    try:
        async def scenario() -> tuple[list[Client], list[dict[str, Any]], int]:
            clients = [Client(n, t) for n, t in  # type: ignore[arg-type]
                       zip((first, first, first, second), tokens, strict=True)]
            for c in clients:
                await c.connect()
            await clients[0].send({"type": "create_room", "options": {"hands": 2}})
            code = (await clients[0].expect("room"))["code"]
            for c in clients[1:]:
                await c.send({"type": "join_room", "code": code})
                await c.expect("room")
            for c in clients:
                await c.send({"type": "ready"})
            for c in clients:
                await c.expect("table")
            ends, sent = await play_while_fuzzing(clients, clients[3], 20261204)
            for c in clients:
                await c.close()
            return clients, ends, sent

        clients, ends, sent = asyncio.run(scenario())
        check_fuzzed(clients, clients[3], ends, sent)
    finally:
        store.close()


async def _finish_together(clients: list[Client]) -> list[dict[str, Any]]:
    """Every client answers its decisions with a bot until its ``match_end``."""
    return list(await asyncio.gather(*(play(c, bot="greedy", seed=i, timeout=120)
                                       for i, c in enumerate(clients))))


@pytest.mark.slow
def test_a_followed_player_online_on_another_node_shows_online(
        nodes: list[ServeProcess], db_url: str) -> None:
    """Presence is the cluster's: a player connected to node 2 is online in the list of
    his follower asking node 1 (``wm:online``, renewed by each node's heartbeat), and
    offline again within about the heartbeat's life after he leaves."""
    store, tokens, _ = _accounts(db_url, 2)
    first, second = ServeProcess.start_all(nodes[:2])
    try:
        auth = {"Authorization": f"Bearer {tokens[0]}"}
        r = httpx.post(f"{first.http}/api/following/crash1", headers=auth, timeout=10)
        assert r.status_code == 200, r.text

        def online() -> bool:
            r = httpx.get(f"{first.http}/api/following", headers=auth, timeout=10)
            return bool(r.json()["players"][0]["online"])

        async def wait_for(state: bool) -> None:
            deadline = time.monotonic() + 30
            while await asyncio.to_thread(online) is not state:
                assert time.monotonic() < deadline, f"never {'on' if state else 'off'}line"
                await asyncio.sleep(0.2)

        async def scenario() -> None:
            assert await asyncio.to_thread(online) is False
            client = Client(second, tokens[1])  # type: ignore[arg-type]
            await client.connect()
            await wait_for(True)
            await client.close()
            await wait_for(False)

        asyncio.run(scenario())
    finally:
        store.close()


@pytest.mark.slow
def test_a_table_on_another_node_is_listed_shown_and_watched(
        nodes: list[ServeProcess], db_url: str) -> None:
    """Spectating is the cluster's: a table running on node 1 is in node 2's live list, on
    its player's page and in his follower's list there (``wm:live``), and a spectator whose
    socket is on node 2 watches it (his messages go to node 1, as a room's code moves
    them)."""
    store, tokens, _ = _accounts(db_url, 2)
    first, second = ServeProcess.start_all(nodes[:2])
    try:
        fan = {"Authorization": f"Bearer {tokens[1]}"}
        assert httpx.post(f"{second.http}/api/following/crash0", headers=fan,
                          timeout=10).status_code == 200

        def listed() -> list[dict[str, Any]]:
            r = httpx.get(f"{second.http}/api/tables/live", timeout=10)
            assert r.status_code == 200, r.text
            return list(r.json()["tables"])

        async def scenario() -> None:
            player = Client(first, tokens[0])  # type: ignore[arg-type]
            await player.connect()
            await player.send({"type": "quick_match"})  # three bots: a table on node 1
            table = await player.expect("table", timeout=30)
            table_id = table["table_id"]  # it waits for him (30 s a turn) until he plays
            deadline = time.monotonic() + 20
            while not any(t["table_id"] == table_id for t in await asyncio.to_thread(listed)):
                if time.monotonic() > deadline:
                    published = redis.Redis.from_url(os.environ["WUHAN_MAHJONG_REDIS"],
                                                      decode_responses=True)
                    pytest.fail(f"node 2 never listed node 1's table {table_id}: it lists "
                                f"{await asyncio.to_thread(listed)}; wm:live holds "
                                f"{published.hgetall('wm:live')}")
                await asyncio.sleep(0.2)
            shared = redis.Redis.from_url(os.environ["WUHAN_MAHJONG_REDIS"], decode_responses=True)
            assert str(shared.get(f"wm:table:{table_id}")).endswith(f":{_pid(first)}")
            (line,) = [t for t in await asyncio.to_thread(listed) if t["table_id"] == table_id]
            assert "accounts" not in line  # ids stay inside the cluster
            assert "crash0" in [p["name"] for p in line["players"]]
            page = httpx.get(f"{second.http}/api/players/crash0", timeout=10).json()
            assert page["playing"]["table_id"] == table_id
            followed = httpx.get(f"{second.http}/api/following", headers=fan, timeout=10).json()
            assert followed["players"][0]["playing"]["table_id"] == table_id
            watcher = Client(second, tokens[1])  # type: ignore[arg-type]
            await watcher.connect()
            await watcher.send({"type": "watch", "table": table_id})
            watching = await watcher.expect("watching", timeout=15)
            assert watching["table_id"] == table_id
            playing = asyncio.create_task(play(player, bot="greedy", timeout=120))
            await watcher.expect("watch_state", timeout=30)  # relayed from node 1
            await playing
            await watcher.close()
            await player.close()

        asyncio.run(scenario())
    finally:
        store.close()


@pytest.mark.slow
def test_a_tournament_seats_players_connected_to_any_node(
        nodes: list[ServeProcess], db_url: str) -> None:
    """A tournament's table starts on whichever node claims it; its players connected to
    the other node are sent to reconnect there (close 1012), are relayed to their seats,
    and play both rounds to the end; each table is one match."""
    store, tokens, _ = _accounts(db_url, 4)
    first, second = ServeProcess.start_all(nodes[:2])
    homes = [first, first, second, second]
    try:
        def post(node: ServeProcess, path: str, token: str, body: Any = None) -> httpx.Response:
            return httpx.post(f"{node.http}{path}", json=body or {}, timeout=10,
                              headers={"Authorization": f"Bearer {token}"})

        tid = post(first, "/api/tournaments", tokens[0],
                   {"name": "two nodes", "hands": 1, "rounds": 2, "capacity": 4}).json()["id"]
        sent_over: list[int] = []
        for k, t in enumerate(tokens[1:], 1):
            assert post(homes[k], f"/api/tournaments/{tid}/join", t).status_code == 200

        async def seated(k: int, client: Client) -> Client:
            """The client at its table: reconnected (to the same node) when the table's
            node had it sent over."""
            while True:
                waiting = asyncio.ensure_future(client.expect("table", timeout=60))
                closing = asyncio.ensure_future(client.closed.wait())
                done, _ = await asyncio.wait({waiting, closing},
                                             return_when=asyncio.FIRST_COMPLETED)
                if waiting in done:
                    closing.cancel()
                    waiting.result()
                    return client
                waiting.cancel()
                assert client.close_code == 1012, client.close_code
                sent_over.append(k)
                client = Client(homes[k], tokens[k])  # type: ignore[arg-type]
                await client.connect()

        async def scenario() -> None:
            clients = [Client(homes[k], t) for k, t in enumerate(tokens)]  # type: ignore[arg-type]
            for c in clients:
                await c.connect()
            started = await asyncio.to_thread(post, second, f"/api/tournaments/{tid}/start",
                                              tokens[0])
            assert started.status_code == 200, started.text
            for _ in range(2):
                clients = list(await asyncio.gather(*(seated(k, c)
                                                      for k, c in enumerate(clients))))
                await _finish_together(clients)
            for c in clients:
                await c.close()

        asyncio.run(scenario())
        # each round's table ran on one node: the other node's two players were sent over
        assert len(sent_over) >= 2 and len(sent_over) % 2 == 0, sent_over
        final: dict[str, Any] = {}
        for _ in range(100):
            final = httpx.get(f"{second.http}/api/tournaments/{tid}", timeout=10).json()
            if final["tournament"]["status"] == "finished":
                break
            time.sleep(0.1)
        assert final["tournament"]["status"] == "finished", final
        assert [t["status"] for t in final["tables"]] == ["finished", "finished"]
        assert all(s["matches"] == 2 for s in final["standings"])
        assert store.audit().ok
    finally:
        store.close()


@pytest.mark.slow
def test_an_invitation_reaches_a_player_on_another_node(nodes: list[ServeProcess],
                                                        db_url: str) -> None:
    """The host's room is on node 1, the player he invites is connected to node 2: the
    invitation goes to the node holding his socket (channel ``deliver``), and he joins the
    room from there."""
    store, tokens, _ = _accounts(db_url, 2)
    first, second = ServeProcess.start_all(nodes[:2])
    try:
        for who, token in (("crash1", tokens[0]), ("crash0", tokens[1])):  # friends
            r = httpx.post(f"{first.http}/api/following/{who}", timeout=10,
                           headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200, r.text

        def followed_online() -> bool:
            r = httpx.get(f"{first.http}/api/following", timeout=10,
                          headers={"Authorization": f"Bearer {tokens[0]}"})
            return bool(r.json()["players"][0]["online"])

        async def scenario() -> None:
            host = Client(first, tokens[0])  # type: ignore[arg-type]
            friend = Client(second, tokens[1])  # type: ignore[arg-type]
            await host.connect()
            await friend.connect()
            await host.send({"type": "create_room", "options": {"hands": 1}})
            code = (await host.expect("room"))["code"]
            deadline = time.monotonic() + 30
            while not await asyncio.to_thread(followed_online):  # node 2's next heartbeat
                assert time.monotonic() < deadline, "never online on node 1"
                await asyncio.sleep(0.2)
            await host.send({"type": "invite", "username": "crash1"})
            assert (await host.expect("invite_sent"))["username"] == "crash1"
            invited = await friend.expect("invited")
            assert invited["code"] == code and invited["by"] == "crash0"
            await friend.send({"type": "join_room", "code": code})
            assert len((await friend.expect("room"))["members"]) == 2
            for c in (host, friend):
                await c.close()

        asyncio.run(scenario())
    finally:
        store.close()


@pytest.mark.slow
def test_a_room_on_node_1_joined_from_nodes_2_and_3_plays_to_the_end(
        nodes: list[ServeProcess], db_url: str) -> None:
    """A private room's code is the cluster's: created on node 1, joined from nodes 2 and 3;
    the table runs on node 1 and every player, wherever his socket is, plays it to the end
    and sees only his own hand.  Then the same players (now all served by node 1) join a
    room made on node 3: each connection follows, one welcome each, whatever the hops."""
    store, tokens, ids = _accounts(db_url, 5)
    first, second, third = ServeProcess.start_all(nodes)
    silver: dict[int, int] = {}
    """Each account's silver after the first match: the second one starts from it."""
    try:
        async def scenario() -> tuple[list[str], list[dict[str, Any]], list[Client]]:
            clients = [Client(n, t) for n, t in  # type: ignore[arg-type]
                       zip((first, second, third, second), tokens[:4], strict=True)]
            for c in clients:
                await c.connect()
            await clients[0].send({"type": "create_room",
                                   "options": {"hands": 1, "stake": 5, "profile": "bianfeng"}})
            code = (await clients[0].expect("room"))["code"]
            await clients[1].send({"type": "join_room", "code": "000000" if code != "000000"
                                   else "000001"})
            await clients[1].expect("error", code="not_found")  # no such room anywhere
            for c in clients[1:]:
                await c.send({"type": "join_room", "code": code})
                room = await c.expect("room")
                assert room["code"] == code
            for c in clients:
                await c.send({"type": "ready"})
            tables = [await c.expect("table") for c in clients]
            assert len({t["match_id"] for t in tables}) == 1
            assert sorted(t["seat"] for t in tables) == [0, 1, 2, 3]
            ends = await _finish_together(clients)
            await asyncio.to_thread(check_settled_like_uninterrupted, store, tables[0]["match_id"],
                                    dict.fromkeys(ids, RICH))
            silver.update({a: store.account(a).silver for a in ids})
            # A room on node 3: joined by players whose sockets are on nodes 1, 2 and 3 and
            # who were all served by node 1 (moved on, sent back home, moved on twice).
            host = Client(third, tokens[4])  # type: ignore[arg-type]
            await host.connect()
            await host.send({"type": "create_room",
                             "options": {"hands": 1, "stake": 5, "profile": "bianfeng"}})
            again = (await host.expect("room"))["code"]
            for c in (clients[1], clients[2], clients[0]):
                await c.send({"type": "join_room", "code": again})
                assert (await c.expect("room"))["code"] == again
            players = [host, clients[0], clients[1], clients[2]]
            for c in players:
                await c.send({"type": "ready"})
            second_tables = [await c.expect("table") for c in players]
            assert len({t["match_id"] for t in second_tables}) == 1
            ends += await _finish_together(players)
            for c in [*clients, host]:
                assert len(c.of_type("welcome")) == 1
                await c.close()
            return [tables[0]["match_id"], second_tables[0]["match_id"]], ends, [*clients, host]

        match_ids, ends, clients = asyncio.run(scenario())
        assert all(e["type"] == "match_end" for e in ends)
        for c in clients:  # hidden information stays per seat across nodes
            seats = {t["match_id"]: t["seat"] for t in c.of_type("table")}
            for state in c.of_type("state"):
                view = state["view"]
                assert view["viewer"] == seats[state["match_id"]] and view["hand"]
                assert all(set(other) == set(view["seats"][0]) and "hand" not in other
                           for other in view["seats"])
        check_settled_like_uninterrupted(store, match_ids[1], silver)
        for match_id, node in zip(match_ids, (first, third), strict=True):
            logged = store.load_match(match_id)
            assert logged is not None and logged.owner is not None
            assert logged.owner.endswith(f":{_pid(node)}")
            assert logged.status == "finished" and len(logged.totals) == 4
    finally:
        store.close()


@pytest.mark.slow
def test_a_room_member_who_reconnects_to_another_node_is_back_in_his_room(
        nodes: list[ServeProcess], db_url: str) -> None:
    """A room on node 1 holds the place of a member whose socket (on node 2) dropped; he
    reconnects to node 3, which holds no room of his (its resume answer is ``not_seated``),
    and asks to be back in his room by its code (``rejoin``): he is, on node 1, and the
    room starts with him."""
    store, tokens, _ = _accounts(db_url, 2)
    first, second, third = ServeProcess.start_all(nodes)
    try:
        async def scenario() -> None:
            host = Client(first, tokens[0])  # type: ignore[arg-type]
            friend = Client(second, tokens[1])  # type: ignore[arg-type]
            for c in (host, friend):
                await c.connect()
            await host.send({"type": "create_room", "options": {"hands": 1}})
            code = (await host.expect("room"))["code"]
            await friend.send({"type": "join_room", "code": code})
            await friend.expect("room", code=code)
            await friend.close()
            while not any(m["away"] for m in (await host.expect("room"))["members"]):
                pass
            back = Client(third, tokens[1])  # type: ignore[arg-type]
            await back.connect()
            await back.send({"type": "snapshot", "ref": "resume"})
            assert (await back.expect("error", ref="resume"))["code"] == "not_seated"
            await back.send({"type": "join_room", "code": code, "rejoin": True})
            room = await back.expect("room")
            assert room["code"] == code and not any(m["away"] for m in room["members"])
            while any(m["away"] for m in (await host.expect("room"))["members"]):
                pass
            for c in (host, back):
                await c.send({"type": "ready"})
            while not all(m["ready"] for m in (await host.expect("room"))["members"]):
                pass
            await host.send({"type": "start"})
            tables = [await c.expect("table", timeout=30) for c in (host, back)]
            assert len({t["match_id"] for t in tables}) == 1
            for c in (host, back):
                await c.close()

        asyncio.run(scenario())
    finally:
        store.close()


@pytest.mark.slow
def test_a_killed_nodes_waiting_room_opens_on_another_node(
        nodes: list[ServeProcess], db_url: str) -> None:
    """kill -9 of the node holding a room that waits for its players: a survivor opens it
    again (its code, options and members, each away), and the members, reconnecting to
    any node and asking for the room by its code (``rejoin``), are back in it there; it
    starts with them."""
    store, tokens, _ = _accounts(db_url, 2)
    first, second, third = ServeProcess.start_all(nodes)
    try:
        async def scenario() -> None:
            host = Client(first, tokens[0])  # type: ignore[arg-type]
            friend = Client(second, tokens[1])  # type: ignore[arg-type]
            for c in (host, friend):
                await c.connect()
            await host.send({"type": "create_room", "options": {"hands": 1, "profile": "bianfeng"}})
            code = (await host.expect("room"))["code"]
            await friend.send({"type": "join_room", "code": code})
            await friend.expect("room", code=code)
            while len((await host.expect("room"))["members"]) < 2:
                pass
            while not [r for r in saved_rooms(store) if len(r.state["members"]) == 2]:
                await asyncio.sleep(0.05)  # written behind the lobby: milliseconds
            await asyncio.to_thread(first.kill)
            killed = time.monotonic()
            back = [Client(third, tokens[0]), Client(second, tokens[1])]  # type: ignore[arg-type]
            rooms = []
            for c in back:
                await c.connect()
                while True:  # until a survivor has taken the room over
                    # (asked again and again: one relayed to the dead node is never answered,
                    # or the node closes the socket, 1012, for the client to reconnect)
                    if c.closed.is_set():
                        await c.connect()
                    reply: dict[str, Any] | None = None
                    with contextlib.suppress(TimeoutError, websockets.ConnectionClosed):
                        await c.send({"type": "join_room", "code": code, "rejoin": True})
                        reply = await c.recv(timeout=2)
                        while reply["type"] not in ("room", "error"):
                            reply = await c.recv(timeout=2)
                    if reply is not None and reply["type"] == "room":
                        rooms.append(reply)
                        break
                    assert reply is None or reply["code"] in ("not_found", "busy"), reply
                    assert time.monotonic() - killed < 40, "no node opened the room in 40 s"
                    await asyncio.sleep(0.2)
            assert all(r["code"] == code and r["options"]["profile"] == "bianfeng" for r in rooms)
            while any(m["away"] for m in (await back[0].expect("room"))["members"]):
                pass
            for c in back:
                await c.send({"type": "ready"})
            while not all(m["ready"] for m in (await back[0].expect("room"))["members"]):
                pass
            await back[0].send({"type": "start"})
            tables = [await c.expect("table", timeout=30) for c in back]
            assert len({t["match_id"] for t in tables}) == 1
            for c in back:
                await c.close()

        asyncio.run(scenario())
    finally:
        store.close()


@pytest.mark.slow
def test_quick_match_across_nodes_seats_one_table(nodes: list[ServeProcess], db_url: str) -> None:
    """Four players ask for a silver quick match on three different nodes: the cluster has
    one queue per profile and stake, held by the first player's node.  The players on the
    two other nodes first wait with their own node's players (``quick_affinity``, 1.5 s by
    default), then join it, so the four sit at one table (silver queues wait for four
    players) and play it to the end."""
    store, tokens, ids = _accounts(db_url, 4)
    first, second, third = ServeProcess.start_all(nodes)
    try:
        async def scenario() -> str:
            clients = [Client(n, t) for n, t in  # type: ignore[arg-type]
                       zip((first, second, third, first), tokens, strict=True)]
            for c in clients:
                await c.connect()
            for c, waiting in zip(clients, (1, 1, 1, 2), strict=True):
                await c.send({"type": "quick_match", "profile": "yuanhang", "silver": True})
                assert (await c.expect("queued"))["waiting"] == waiting  # node 1: the cluster's
            tables = [await c.expect("table", timeout=30) for c in clients]
            assert len({t["match_id"] for t in tables}) == 1
            owner = _owner_pid(store, str(tables[0]["match_id"]))
            assert owner == _pid(first), "the table runs where the cluster's queue is"
            await _finish_together(clients)
            for c in clients:
                await c.close()
            return str(tables[0]["match_id"])

        match_id = asyncio.run(scenario())
        check_settled_like_uninterrupted(store, match_id, dict.fromkeys(ids, RICH))
    finally:
        store.close()


@pytest.mark.slow
def test_quick_match_players_of_one_node_sit_at_a_table_on_their_node(
        db_url: str, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Behind a round-robin balancer, four players whose sockets are on node 2 ask for a
    quick match while node 1 holds the cluster's queue (a player waits there): they make a
    table on node 2, where nothing of theirs is relayed, and play it to the end; node 1's
    player is still waiting meanwhile, and leaves freely."""
    cluster_env(monkeypatch, redis_url)
    options = ("--quick-affinity", "120")  # a long wait: the table can only come from node 2
    made = [ServeProcess(db_url, tmp_path / f"node{i}.log", options=options) for i in range(2)]
    store, tokens, ids = _accounts(db_url, 5)
    try:
        first, second = ServeProcess.start_all(made)

        async def scenario() -> str:
            lone = Client(first, tokens[4])  # type: ignore[arg-type]
            await lone.connect()
            await lone.send({"type": "quick_match", "profile": "yuanhang", "silver": True})
            assert (await lone.expect("queued"))["waiting"] == 1
            clients = [Client(second, t) for t in tokens[:4]]  # type: ignore[arg-type]
            for c in clients:
                await c.connect()
            for i, c in enumerate(clients):
                await c.send({"type": "quick_match", "profile": "yuanhang", "silver": True})
                if i < 3:
                    assert (await c.expect("queued"))["waiting"] == i + 1
            tables = [await c.expect("table", timeout=30) for c in clients]
            match_id = str(tables[0]["match_id"])
            assert len({t["match_id"] for t in tables}) == 1
            assert _owner_pid(store, match_id) == _pid(second)
            await _finish_together(clients)
            await lone.send({"type": "ping"})
            await lone.expect("pong")
            assert not lone.of_type("table"), "node 1's player was not seated meanwhile"
            await lone.send({"type": "leave"})
            for c in [*clients, lone]:
                await c.close()
            return match_id

        match_id = asyncio.run(scenario())
        check_settled_like_uninterrupted(store, match_id, dict.fromkeys(ids[:4], RICH))
    finally:
        for n in made:
            n.close()
        store.close()


@pytest.mark.slow
def test_a_local_queue_becomes_the_clusters_when_its_holder_died(
        db_url: str, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Node 1 holds the cluster's quick-match queue; a player of node 2 waits with his own
    node's players (``quick_affinity``).  Node 1 is killed meanwhile: when the wait is over
    no live node holds the cluster's queue, so node 2's queue becomes it, fills with bots
    and seats the player at a table on node 2 (instead of sending him to a dead node)."""
    cluster_env(monkeypatch, redis_url)
    # node 1 never fills its queue with bots; node 2 waits with its own players 3 s more
    # than a dead node's heartbeat lives (TTL), then fills at once
    made = [ServeProcess(db_url, tmp_path / "node0.log", options=("--bot-wait", "600")),
            ServeProcess(db_url, tmp_path / "node1.log",
                         options=("--quick-affinity", str(TTL + 3), "--bot-wait", "0.2"))]
    store, tokens, _ = _accounts(db_url, 2)
    shared = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        first, second = ServeProcess.start_all(made)

        async def scenario() -> None:
            lone = Client(first, tokens[0])  # type: ignore[arg-type]
            await lone.connect()
            await lone.send({"type": "quick_match", "profile": "yuanhang", "silver": False})
            assert (await lone.expect("queued"))["waiting"] == 1
            holder = shared.get("wm:queue:yuanhang:0")
            assert holder is not None and holder.split(" ")[0].endswith(f":{_pid(first)}")
            player = Client(second, tokens[1])  # type: ignore[arg-type]
            await player.connect()
            await player.send({"type": "quick_match", "profile": "yuanhang", "silver": False})
            assert (await player.expect("queued"))["waiting"] == 1  # with node 2's own players
            await asyncio.to_thread(first.kill)
            table = await player.expect("table", timeout=60)
            assert _owner_pid(store, str(table["match_id"])) == _pid(second)
            await player.send({"type": "leave"})
            await player.close()

        asyncio.run(scenario())
    finally:
        shared.close()
        for n in made:
            n.close()
        store.close()


@pytest.mark.slow
def test_a_saturated_nodes_player_goes_to_the_clusters_queue(
        db_url: str, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A node at its ``--max-tables`` starts no table (admission control).  Its player who
    asks for a quick match while node 2 holds the cluster's queue is not kept with his own
    node's players (``quick_affinity``), which would refuse him ``busy``: he joins node 2's
    queue at once."""
    cluster_env(monkeypatch, redis_url)
    made = [ServeProcess(db_url, tmp_path / "node0.log", options=("--max-tables", "1")),
            ServeProcess(db_url, tmp_path / "node1.log")]
    store, tokens, _ = _accounts(db_url, 6)
    try:
        first, second = ServeProcess.start_all(made)

        async def scenario() -> None:
            player = Client(first, tokens[4])  # type: ignore[arg-type]
            await player.connect()  # before node 1 is full: a full node refuses new sockets
            seated = await seat_four(first, tokens[:4], hands=4)  # type: ignore[arg-type]
            waiting = Client(second, tokens[5])  # type: ignore[arg-type]
            await waiting.connect()
            await waiting.send({"type": "quick_match", "profile": "yuanhang", "silver": True})
            assert (await waiting.expect("queued"))["waiting"] == 1
            await player.send({"type": "quick_match", "profile": "yuanhang", "silver": True})
            answer = await player.recv(10)
            while answer["type"] not in ("queued", "error"):
                answer = await player.recv(10)
            assert answer["type"] == "queued", answer
            assert answer["waiting"] == 2, "joined node 2's queue"
            assert (await waiting.expect("queued"))["waiting"] == 2
            for c in (player, waiting):
                await c.send({"type": "leave"})
            for c in [*seated, player, waiting]:
                await c.close()

        asyncio.run(scenario())
    finally:
        for n in made:
            n.close()
        store.close()


@pytest.mark.slow
def test_the_login_guard_and_the_sign_up_limits_count_every_node(
        nodes: list[ServeProcess], db_url: str) -> None:
    """Failed logins and guest sign-ups from one address are counted over the cluster: the
    limits (5 failures per username, 20 guests an hour) hold when the attempts alternate
    between two nodes, where each node alone would have let them through."""
    store, _tokens, _ids = _accounts(db_url, 1)
    first, second = ServeProcess.start_all(nodes[:2])
    try:
        wrong = {"username": "crash0", "password": "not-the-password-1"}
        for i in range(5):
            node = first if i % 2 else second
            answer = httpx.post(f"{node.http}/api/login", json=wrong, timeout=10)
            assert answer.status_code == 401, answer.text
        for node in (first, second):
            answer = httpx.post(f"{node.http}/api/login", json=wrong, timeout=10)
            assert answer.status_code == 429, answer.text
        right = {"username": "crash0", "password": PASSWORD}  # refused too while locked out
        assert httpx.post(f"{first.http}/api/login", json=right, timeout=10).status_code == 429
        for i in range(20):
            node = first if i % 2 else second
            assert httpx.post(f"{node.http}/api/guest", timeout=10).status_code == 201
        for node in (first, second):
            answer = httpx.post(f"{node.http}/api/guest", timeout=10)
            assert answer.status_code == 429, answer.text
    finally:
        store.close()


@pytest.mark.slow
def test_tables_per_address_and_the_calculator_limit_count_every_node(
        db_url: str, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-address limits that count what runs are the cluster's too: with
    ``tables_per_address`` 1, an address playing a table on node 1 cannot open a room or
    queue on node 2 until that table ends; the calculator's per-address bucket (4 requests)
    is one bucket over both nodes."""
    cluster_env(monkeypatch, redis_url)
    options = ("--tables-per-address", "1", "--calc-rate", "0.001", "--calc-burst", "4")
    made = [ServeProcess(db_url, tmp_path / f"node{i}.log", options=options) for i in range(2)]
    store, tokens, _ids = _accounts(db_url, 5)
    shared = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        first, second = ServeProcess.start_all(made)
        for i in range(4):  # alternating nodes: four in all, then none on either
            node = first if i % 2 else second
            answer = httpx.post(f"{node.http}/api/hand", json={}, timeout=10)
            assert answer.status_code == 400, answer.text  # counted, then refused as malformed
        for node in (first, second):
            answer = httpx.post(f"{node.http}/api/hand", json={}, timeout=10)
            assert answer.status_code == 429, answer.text
            assert answer.json()["error"]["code"] == "rate_limited"

        async def scenario() -> None:
            players = await seat_four(first, tokens[:4], hands=1)  # type: ignore[arg-type]
            # node 1 counts its table for 127.0.0.1 in Redis (at once, and every heartbeat)
            while shared.hget("wm:addr:127.0.0.1", f"{first_node}") is None:
                await asyncio.sleep(0.05)
            other = Client(second, tokens[4])  # type: ignore[arg-type]
            await other.connect()
            await other.send({"type": "create_room", "options": {"hands": 1}})
            refused = await other.expect("error")
            assert refused["code"] == "busy" and "tables running" in refused["message"], refused
            await other.send({"type": "quick_match", "profile": "yuanhang"})
            refused = await other.expect("error")
            assert refused["code"] == "busy" and "tables running" in refused["message"], refused
            await _finish_together(players)  # the table ends: node 2 lets the address play
            # within a few heartbeats; the bound only stops a hang (a busy machine delays beats)
            deadline = time.monotonic() + 60
            while True:
                await other.send({"type": "create_room", "options": {"hands": 1}})
                answer = await other.recv()
                if answer["type"] == "room":
                    break
                assert answer["type"] == "error" and answer["code"] == "busy", answer
                assert time.monotonic() < deadline, "the ended table still counts on node 2"
                await asyncio.sleep(0.2)
            for c in [*players, other]:
                await c.close()

        assert first.proc is not None
        first_node = f"{socket.gethostname()}:{first.proc.pid}"  # the node's name
        asyncio.run(scenario())
    finally:
        shared.close()
        store.close()
        for n in made:
            n.close()


@pytest.mark.slow
def test_a_paused_node_that_comes_back_runs_nothing_twice(
        nodes: list[ServeProcess], db_url: str) -> None:
    """The table's node is frozen (SIGSTOP) mid-hand past its heartbeat's life: another node
    takes the match over (even if the node froze inside a write, holding the match row's
    lock); when the frozen node runs again (SIGCONT) it finds the match fenced, stops its
    copy of the table, writing nothing more, and closes its players' sockets with 1012 so
    that they reconnect to the table where it runs now.  The match is settled once, like an
    uninterrupted run."""
    store, tokens, ids = _accounts(db_url, 4)
    first, second = ServeProcess.start_all(nodes[:2])
    assert first.proc is not None
    try:
        async def scenario() -> str:
            match_id, players, runs = await _play_room(first, tokens, store, hands=2, seed=80)
            await _frames(players, 30)
            assert not any(p.end for p in players)
            first.proc.send_signal(signal.SIGSTOP)  # type: ignore[union-attr]
            stopped = time.monotonic()
            try:
                # how fast a take-over comes is the killed-node test's point; this one is about
                # fencing, so it allows a busy machine more than the 10 s target
                while await asyncio.to_thread(_owner_pid, store, match_id) != _pid(second):
                    if time.monotonic() - stopped > 30:
                        raise AssertionError("no node took the match over: "
                                             + _why_not_taken_over(db_url, store, second))
                    await asyncio.sleep(0.1)
                frozen_sockets = [p.client for p in players]
                for p in players:
                    p.server = second  # where they reconnect when the thawed node lets go
            finally:
                first.proc.send_signal(signal.SIGCONT)  # type: ignore[union-attr]
            await asyncio.wait_for(asyncio.gather(*runs), 120)
            for old in frozen_sockets:
                assert old is not None and old.close_code == 1012, old and old.close_code
            for p in players:
                if p.client is not None:
                    await p.client.close()
            return match_id

        match_id = asyncio.run(scenario())
        check_settled_like_uninterrupted(store, match_id, dict.fromkeys(ids, RICH))
        logged = store.load_match(match_id)
        assert logged is not None and logged.epoch == 2
        assert first.proc.poll() is None  # the thawed node lives on, without the table
        deadline = time.monotonic() + 10
        while not any(m in first.log.read_text() for m in (
                "is leased by another node: this table stops",
                "was taken over by another process; this table stops")):
            assert time.monotonic() < deadline, "the thawed node did not stop its copy"
            time.sleep(0.1)
        health = httpx.get(f"{first.http}/api/health", timeout=10)
        assert health.status_code == 200
        audit = store.audit()
        assert audit.ok, audit
        assert sum(store.account(a).silver for a in ids) + audit.house_balance == RICH * 4
    finally:
        store.close()


@pytest.mark.slow
@pytest.mark.parametrize(("url", "says"), [
    ("http://127.0.0.1:6379/0", "a Redis URL starts with redis://"),
    ("redis://127.0.0.1:1/0", "cannot reach Redis redis://127.0.0.1:1/0"),
])
def test_a_bad_or_unreachable_redis_is_a_one_line_error(tmp_path: Path, url: str,
                                                        says: str) -> None:
    """``serve --redis`` with a wrong URL, or a Redis that does not answer: exit 2 and one
    line, never a traceback; the same through ``$WUHAN_MAHJONG_REDIS``."""
    base = [sys.executable, "-m", "wuhan_mahjong", "serve", "--port", "0",
            "--data-dir", str(tmp_path)]
    for cmd, env in (([*base, "--redis", url], {}), (base, {"WUHAN_MAHJONG_REDIS": url})):
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                              env={**os.environ, **env})
        assert done.returncode == 2, done
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0], done.stderr


class PrivateRedis:
    """A ``redis-server`` of the test's own on a free port, killed and started again at will
    (empty each time: no persistence)."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.cmd = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                    "--appendonly", "no", "--dir", str(folder)]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                if redis.Redis.from_url(self.url).ping():
                    return
            except redis.RedisError:
                pass
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(30)


@pytest.mark.slow
def test_with_redis_away_a_node_tells_what_it_knows(
        db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Presence and the watchable tables fall back to the node's own knowledge while Redis
    does not answer: a player connected here and seated here is online, at his table, on
    the live list and on his page (not a 500, not nobody); who is seated is what this
    node knows (a tournament entry); a club's page lists the club's tables waiting here."""
    server = PrivateRedis(tmp_path)
    server.start()
    cluster_env(monkeypatch, server.url)
    node = ServeProcess(db_url, tmp_path / "node.log")
    store, tokens, ids = _accounts(db_url, 3)
    try:
        node.start()
        fan = {"Authorization": f"Bearer {tokens[1]}"}
        assert httpx.post(f"{node.http}/api/following/crash0", headers=fan,
                          timeout=10).status_code == 200
        tid = httpx.post(f"{node.http}/api/tournaments", headers=fan, json={"name": "away"},
                         timeout=10).json()["id"]
        club = clubs.create(store, ids[1], "断网", "yuanhang", {"profile": "yuanhang"}).number
        clubs.apply(store, club, ids[2])
        clubs.answer(store, club, ids[1], "crash2", "approve")

        async def scenario() -> None:
            host = Client(node, tokens[2])  # type: ignore[arg-type]
            await host.connect()  # a club's table waits on this node
            await host.send({"type": "create_room", "options": {"club": club}})
            code = (await host.expect("room"))["code"]
            player = Client(node, tokens[0])  # type: ignore[arg-type]
            await player.connect()
            await player.send({"type": "quick_match"})
            table_id = (await player.expect("table", timeout=30))["table_id"]
            server.kill()  # his table waits for him (30 s a turn) while Redis is away
            followed = await asyncio.to_thread(lambda: httpx.get(
                f"{node.http}/api/following", headers=fan, timeout=30))
            assert followed.status_code == 200, followed.text
            (line,) = followed.json()["players"]
            assert line["online"] is True and line["playing"]["table_id"] == table_id
            live = await asyncio.to_thread(lambda: httpx.get(f"{node.http}/api/tables/live",
                                                             timeout=30))
            assert live.status_code == 200, live.text
            assert [t["table_id"] for t in live.json()["tables"]] == [table_id]
            page = await asyncio.to_thread(lambda: httpx.get(
                f"{node.http}/api/players/crash0", timeout=30))
            assert page.status_code == 200 and page.json()["playing"]["table_id"] == table_id
            # the club's page: the tables this node holds (not a 500, not none)
            clubbed = await asyncio.to_thread(lambda: httpx.get(
                f"{node.http}/api/clubs/{club}", headers=fan, timeout=30))
            assert clubbed.status_code == 200, clubbed.text
            assert [r["code"] for r in clubbed.json()["rooms"]] == [code]

            def join(token: str) -> httpx.Response:
                return httpx.post(f"{node.http}/api/tournaments/{tid}/join", timeout=30,
                                  headers={"Authorization": f"Bearer {token}"})

            # who sits elsewhere is unknown, so this node's own seats decide: he who
            # sits here may not enter, another may
            seated = await asyncio.to_thread(join, tokens[0])
            assert seated.status_code == 409, seated.text
            assert seated.json()["error"]["params"]["reason"] == "seated"
            free = await asyncio.to_thread(join, tokens[2])
            assert free.status_code == 200, free.text
            await player.close()
            await host.close()

        asyncio.run(scenario())
    finally:
        node.close()
        server.kill()
        store.close()


async def _welcomed(node: ServeProcess, tokens: list[str]) -> list[Client]:
    """Connect every token to ``node`` at once; each must be welcomed (10 s is generous:
    a welcome takes milliseconds; a socket closed without one never gets it)."""
    clients = [Client(node, t) for t in tokens]  # type: ignore[arg-type]
    welcomes = await asyncio.gather(*(c.connect() for c in clients))
    assert all(w["type"] == "welcome" for w in welcomes)
    return clients


@pytest.mark.slow
def test_a_redis_restart_moves_no_table_and_the_nodes_reconnect(
        db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A private redis-server is killed mid-hand and started again empty: the table goes on
    on its node (no other node takes it over while the heartbeats come back: epoch 1); the
    first connections after Redis is back are welcomed at once (a burst of them: the node's
    pooled Redis connections died with Redis and used to fail the first command each, which
    closed the socket before its welcome); and a connection on node 2 replaces node 1's
    even when node 1 was not listening yet when it was announced."""
    server = PrivateRedis(tmp_path)
    server.start()
    cluster_env(monkeypatch, server.url)
    made = [ServeProcess(db_url, tmp_path / f"node{i}.log") for i in range(2)]
    store, tokens, ids = _accounts(db_url, 12)
    try:
        first, second = ServeProcess.start_all(made)

        async def scenario() -> str:
            match_id, players, runs = await _play_room(first, tokens[:4], store, hands=1, seed=90)
            for c in await _welcomed(first, tokens[4:]):  # node 1's pool holds a few connections
                await c.close()
            await _frames(players, 20)
            server.kill()
            await asyncio.sleep(2 * HEARTBEAT)  # longer than a heartbeat: the nodes notice
            await asyncio.to_thread(server.start)
            late = await _welcomed(first, tokens[4:])  # at once: no retry, no waiting
            # Node 2 announces a new connection of one of them right away, maybe before
            # node 1 listens again: node 1 closes its own all the same.
            newer = await _welcomed(second, tokens[4:5])
            await late[0].expect("notice", timeout=10, code="replaced")
            await asyncio.wait_for(late[0].closed.wait(), 10)
            for c in [*late, *newer]:
                await c.close()
            await asyncio.wait_for(asyncio.gather(*runs), 120)
            for p in players:
                if p.client is not None:
                    await p.client.close()
            return match_id

        match_id = asyncio.run(scenario())
        check_settled_like_uninterrupted(store, match_id, dict.fromkeys(ids[:4], RICH))
        logged = store.load_match(match_id)
        assert logged is not None and logged.epoch == 1  # never moved
    finally:
        store.close()
        for n in made:
            n.close()
        server.kill()


def test_pooled_redis_connections_survive_a_redis_restart(tmp_path: Path) -> None:
    """A node's pooled connections died with a restarted Redis: the first command on each
    still succeeds (it reconnects), instead of failing once per connection."""
    from wuhan_mahjong.server.cluster import connect_redis

    server = PrivateRedis(tmp_path)
    server.start()

    async def scenario() -> list[object]:
        client = connect_redis(server.url)
        try:
            async def burst() -> list[object]:  # a blocking call holds its connection: 8 of them
                return list(await asyncio.gather(*(client.blpop([f"wm:test:{i}"], timeout=0.05)
                                                   for i in range(8)), return_exceptions=True))
            assert not [r for r in await burst() if isinstance(r, Exception)]
            server.kill()
            await asyncio.to_thread(server.start)
            return await burst()
        finally:
            await client.aclose()

    try:
        failed = [r for r in asyncio.run(scenario()) if isinstance(r, Exception)]
        assert not failed, failed
    finally:
        server.kill()


def test_a_burst_beyond_the_redis_pool_waits_instead_of_failing(redis_url: str) -> None:
    """More concurrent Redis calls than the node's pool holds queue for a connection
    (redis-py's default pool raised MaxConnectionsError and closed relayed sockets)."""
    from wuhan_mahjong.server.cluster import connect_redis

    async def burst() -> int:
        client = connect_redis(f"{redis_url}?max_connections=4")
        try:
            async def call(i: int) -> object:
                # a blocking call holds its connection while it waits
                return await client.blpop([f"wm:test:empty:{i}"], timeout=0.05)
            results = await asyncio.gather(*(call(i) for i in range(32)))
            return len(results)
        finally:
            await client.aclose()

    assert asyncio.run(burst()) == 32


def test_relayed_messages_wait_only_for_their_own_account(start_server: Any, redis_url: str) -> None:
    """A node handles relayed messages in one lane per account: a message that waits (a slow
    attach, a dispatch that reads the database) holds up only its own account's later
    messages, each account's stay in order, and at most ``RELAY_CONCURRENCY`` run at once."""
    from wuhan_mahjong.server.cluster import RELAY_CONCURRENCY, Cluster, connect_redis

    server = start_server(redis_url=redis_url)

    class Watched(Cluster):
        """The node's cluster part, recording what it handles and holding some accounts'
        messages until their gate opens."""

        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            self.seen: list[tuple[int, str]] = []
            self.gates: dict[int, asyncio.Event] = {}
            self.running = 0
            self.most = 0

        async def _received(self, data: dict[str, Any]) -> None:
            self.running += 1
            self.most = max(self.most, self.running)
            try:
                gate = self.gates.get(data["a"])
                if gate is not None:
                    await gate.wait()
                self.seen.append((data["a"], data["t"]))
            finally:
                self.running -= 1

    async def until(condition: Any) -> None:
        async def poll() -> None:
            while not condition():
                await asyncio.sleep(0.01)
        await asyncio.wait_for(poll(), 10)

    async def scenario() -> None:
        redis_client = connect_redis(redis_url)
        node = Watched(server.hub, redis_client)
        try:
            node.gates[1] = asyncio.Event()
            for account in (1, 2):
                for i in range(3):
                    node._route({"k": "in", "a": account, "c": "x", "t": str(i)})
            await until(lambda: len(node.seen) == 3)  # account 2's, while account 1's wait
            assert node.seen == [(2, "0"), (2, "1"), (2, "2")]
            node.gates[1].set()
            await until(lambda: len(node.seen) == 6)
            assert [t for a, t in node.seen if a == 1] == ["0", "1", "2"]
            node.seen.clear()
            gate = asyncio.Event()
            many = range(100, 100 + 2 * RELAY_CONCURRENCY)
            for account in many:
                node.gates[account] = gate
                node._route({"k": "in", "a": account, "c": "x", "t": "0"})
            await until(lambda: node.running == RELAY_CONCURRENCY)
            for _ in range(10):  # the others wait for a slot
                await asyncio.sleep(0)
            assert node.most == RELAY_CONCURRENCY
            gate.set()
            await until(lambda: len(node.seen) == len(many))
            assert not node.lanes
        finally:
            await redis_client.aclose()

    asyncio.run(scenario())


def test_messages_between_nodes_pack_and_batch_without_loss() -> None:
    """What one node publishes to another comes back exactly: relayed texts as they are
    (newlines, colons, stars, non-ASCII and JSON inside), other messages as JSON, several
    queued messages in one batch."""
    from wuhan_mahjong.server.cluster import _batch, _pack, _unbatch, _unpack

    messages: list[dict[str, Any]] = [
        {"k": "out", "a": 7, "c": "ab12", "t": '{"type":"state","view":{"drawn":"5万"}}'},
        {"k": "in", "a": 8, "c": "cd34", "t": '{\n  "type": "ping",\n  "ref": "*3:x"\n}'},
        {"k": "in", "a": 9, "c": "ef56", "t": ""},
        {"k": "attach", "a": 7, "n": "host:1", "c": "ab12", "h": "h", "addr": "::1"},
        {"k": "close", "a": 8, "c": "cd34", "code": 1012, "reason": "a: b\n*c"},
    ]
    packed = [_pack(m) for m in messages]
    assert [_unpack(p) for p in packed] == messages
    assert [_unpack(p) for p in _unbatch(_batch(packed))] == messages
    assert _unbatch(packed[0]) == [packed[0]]


def _bare_table(hub: Any, table_id: str, humans: list[int], bot: int | None = None) -> Any:
    """A table of ``hub`` (not started, not in the store), the ``humans`` in seats 0, 1, ...
    and ``bot`` in the last seat if given."""
    from wuhan_mahjong.rules import get_rules
    from wuhan_mahjong.server.table import SeatInfo, Table

    seats = [SeatInfo(seat=i, account_id=a, name=f"p{i}", is_bot=False)
             for i, a in enumerate(humans)]
    if bot is not None:
        seats.append(SeatInfo(seat=len(seats), account_id=bot, name="bot", is_bot=True))
    return Table(hub, table_id, seats, get_rules("yuanhang"), hands=1, stake=0, fee=0,
                 claim_seconds=8.0, turn_seconds=15.0, bot_name="greedy")


def test_a_heartbeat_while_a_table_is_opened_keeps_its_players_homes(
        start_server: Any, redis_url: str) -> None:
    """A heartbeat that comes while a new table is still being written to the store (it has
    no epoch, so no lease yet) keeps its players' homes.  It used to drop them, so that a
    reconnection to another node at that moment found no table (``at_table`` false; seen
    once in CI under load)."""
    from wuhan_mahjong.server.cluster import Cluster, connect_redis

    server = start_server(redis_url=redis_url)
    accounts = [9001, 9002, 9003]

    async def scenario() -> None:
        redis_client = connect_redis(redis_url)
        node = Cluster(server.hub, redis_client)
        table = _bare_table(server.hub, "t-opening", accounts, bot=9004)
        server.hub.tables[table.table_id] = table
        try:
            assert table.epoch == 0  # not yet in the store
            node.seated(table)
            await node._beat()
            await node._beat()
            homes = [await redis_client.get(f"wm:home:{a}") for a in accounts]
            assert homes == [node.node] * 3, homes
            assert all([await redis_client.exists(f"wm:seat:{a}") for a in accounts])
            assert await redis_client.get("wm:home:9004") is None  # a bot has no home
        finally:
            server.hub.tables.pop(table.table_id, None)
            await redis_client.aclose()

    asyncio.run(scenario())


def test_a_table_seated_during_a_heartbeat_keeps_its_players_homes(
        start_server: Any, redis_url: str) -> None:
    """A heartbeat takes the node's seated players first, writes its keys, then drops the
    homes of the players no longer seated.  A table seated in between (a tournament's next
    round, here while the beat writes the presence) used to lose its players' homes at the
    end of that beat, so that their reconnection to another node landed in its lobby and
    never reached the table (``test_a_tournament_seats_players_connected_to_any_node``,
    once in CI)."""
    from wuhan_mahjong.server.cluster import Cluster, connect_redis

    server = start_server(redis_url=redis_url)
    accounts = [9101, 9102, 9103, 9104]

    async def scenario() -> None:
        redis_client = connect_redis(redis_url)
        node = Cluster(server.hub, redis_client)
        table = _bare_table(server.hub, "t-mid-beat", accounts)
        mark_online = node._mark_online

        async def seat_meanwhile(px: int) -> None:
            server.hub.tables[table.table_id] = table
            await node.seated(table)
            await mark_online(px)

        node._mark_online = seat_meanwhile  # type: ignore[method-assign]
        try:
            await node._beat()
            homes = [await redis_client.get(f"wm:home:{a}") for a in accounts]
            assert homes == [node.node] * 4, homes
            assert all([await redis_client.exists(f"wm:seat:{a}") for a in accounts])
            node._mark_online = mark_online  # type: ignore[method-assign]
            table.finished = True  # its match ended: the next beat frees its players
            await node._beat()
            assert [await redis_client.get(f"wm:home:{a}") for a in accounts] == [None] * 4
        finally:
            server.hub.tables.pop(table.table_id, None)
            await redis_client.aclose()

    asyncio.run(scenario())


def test_a_reseat_names_the_players_home_before_their_sockets_close(
        start_server: Any, redis_url: str) -> None:
    """A tournament's table seats players whose sockets are on another node: that node
    closes them (``reseat`` on channel ``deliver``) and they reconnect at once, so Redis
    must name their home before the message goes out, whatever the table's own write of
    it (a task of its own) has done by then.  Here nothing else writes it."""
    from wuhan_mahjong.server.cluster import connect_redis

    server = start_server(redis_url=redis_url)
    cluster = server.hub.cluster
    assert cluster is not None and server.uvicorn.loop is not None
    account = 9201

    async def reseat() -> None:  # on the server's loop, as the tournament does
        cluster.reseat([account])

    async def scenario() -> None:
        redis_client = connect_redis(redis_url)
        pubsub = redis_client.pubsub()
        try:
            await pubsub.subscribe(cluster.deliver_channel)
            asyncio.run_coroutine_threadsafe(reseat(), server.uvicorn.loop).result(10)
            deadline = time.monotonic() + 10
            while True:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                if message is not None and "reseat" in json.loads(message["data"]):
                    break
                assert time.monotonic() < deadline, "no reseat message"
            assert await redis_client.get(f"wm:home:{account}") == cluster.node
            assert await redis_client.exists(f"wm:seat:{account}")
        finally:
            await pubsub.aclose()
            await redis_client.aclose()

    asyncio.run(scenario())


def test_a_table_sends_nothing_before_its_players_homes_are_written(
        start_server: Any, redis_url: str) -> None:
    """A new table's first frame goes out only once Redis names this node its players' home.
    The homes used to be written beside the table's start, so on a loaded machine a player
    whose socket moved to another node as soon as the table appeared was welcomed there as
    seated nowhere (``test_a_socket_relayed_to_a_dead_node_is_closed_to_reconnect``, once in
    a full run at a load of 12).  Here the write is held for a second."""
    from wuhan_mahjong.server.cluster import connect_redis

    from .harness import guest_token

    server = start_server(redis_url=redis_url)
    cluster = server.hub.cluster
    assert cluster is not None
    write_homes = cluster._mark_homes

    async def slow_homes(accounts: Any) -> None:
        await asyncio.sleep(1.0)
        await write_homes(accounts)

    cluster._mark_homes = slow_homes  # on the server's loop, where the table starts
    tokens = [guest_token(server) for _ in range(4)]

    async def scenario() -> None:
        redis_client = connect_redis(redis_url)
        try:
            clients = await seat_four(server, tokens, hands=1)
            ids = [c.of_type("welcome")[0]["account"]["id"] for c in clients]
            homes = [await redis_client.get(f"wm:home:{a}") for a in ids]
            assert homes == [cluster.node] * 4, homes
            for c in clients:
                await c.close()
        finally:
            await redis_client.aclose()

    asyncio.run(scenario())


def test_a_reconnection_waits_for_a_slow_take_over(start_server: Any, redis_url: str) -> None:
    """A player reconnecting while a dead node's table is taken over waits for the node
    that takes it, also when the take-over comes after the dead node's heartbeat life and
    three heartbeats (a loaded machine replaying the log).  The wait used to end there,
    and the player was welcomed as seated nowhere while his table went on (seen once in a
    full run at a load of 9).  Short heartbeats here: the take-over comes well after the
    old wait (0.35 s) and well before the new one (10.35 s)."""
    from wuhan_mahjong.server.cluster import TAKEOVER_WAIT, Cluster, connect_redis

    server = start_server(redis_url=redis_url)
    account = 9101

    async def scenario() -> None:
        redis_client = connect_redis(redis_url)
        node = Cluster(server.hub, redis_client, heartbeat=0.05, ttl=0.2)
        assert node.takeover_wait == TAKEOVER_WAIT >= 10
        try:
            await redis_client.set(f"wm:seat:{account}", "dead-node", px=60_000)
            waiting = asyncio.create_task(node._home(account))
            await asyncio.sleep(1.0)  # the old wait is over: it had answered None
            assert not waiting.done()
            await redis_client.set("wm:node:survivor", "0 1 1", px=60_000)
            await redis_client.set(f"wm:home:{account}", "survivor", px=60_000)
            assert await asyncio.wait_for(waiting, 30) == "survivor"
            # not seated anywhere: no wait at all
            await redis_client.delete(f"wm:seat:{account}", f"wm:home:{account}")
            assert await asyncio.wait_for(node._home(account), 5) is None
        finally:
            await redis_client.delete(f"wm:seat:{account}", f"wm:home:{account}",
                                      "wm:node:survivor")
            await redis_client.aclose()

    asyncio.run(scenario())


def test_a_long_take_over_keeps_the_leases_it_took(start_server: Any, redis_url: str) -> None:
    """A take-over that outlasts the heartbeat's life (many matches, long logs, a loaded
    machine) keeps beating: the lease of a dead node's match, taken before its log is
    replayed, stays this node's all along.  The heartbeat loop runs the take-over and used
    to beat no more until it was over, so the lease expired mid-replay and a third node
    took the same match (fenced and settled once, but moved twice: seen at a load of 20
    with a 2 s life).  Here the replay is made to last five lives (``resume_matches``
    slowed; the rest is the real node and Redis)."""
    from wuhan_mahjong.server.cluster import Cluster, connect_redis

    server = start_server(redis_url=redis_url)
    hub = server.hub
    match_id = f"long-take-over-{uuid.uuid4().hex[:8]}"
    life = 0.2
    lease_seen: list[str | None] = []

    class DeadOwner:
        """The server's store, but for one running match of a dead node."""

        def __getattr__(self, name: str) -> Any:
            return getattr(hub.store, name)

        def running_match_owners(self) -> list[tuple[str, str | None]]:
            return [(match_id, "dead-node")]

    async def scenario() -> None:
        redis_client = connect_redis(redis_url)

        class SlowHub:
            """The server's hub as this test's node sees it (the server's own cluster, on
            its own loop, sees the real one): the dead node's match, and a slow replay."""

            store = DeadOwner()

            def __getattr__(self, name: str) -> Any:
                return getattr(hub, name)

            async def resume_matches(self, match_ids: Any) -> int:
                assert list(match_ids) == [match_id]
                for _ in range(50):  # five lives
                    await asyncio.sleep(life / 10)
                    lease_seen.append(await redis_client.get(f"wm:lease:{match_id}"))
                return 0

        node = Cluster(cast(Any, SlowHub()), redis_client, heartbeat=life / 4, ttl=life)
        try:  # (it hung one run in three when the keeper's cancellation was lost)
            assert await asyncio.wait_for(node.take_over(), 60) == 0
        finally:
            await redis_client.delete(f"wm:lease:{match_id}")
            await redis_client.aclose()

    asyncio.run(scenario())
    assert len(lease_seen) == 50
    assert all(v is not None and v.split(" ")[0] == hub.node_id for v in lease_seen), lease_seen


def test_windows_are_logged_only_while_every_live_node_reads_them(start_server: Any,
                                                                    redis_url: str) -> None:
    """A node of a release before the ``window`` event could resume any match: while one is
    connected (listening on the kick channel, but on no ``log-reads`` channel), a node logs
    a window's answers the old way, an ``act`` each, and as one ``window`` event once it is
    gone.  Both logs replay to the match's stored result."""
    from wuhan_mahjong.server.cluster import LOG_VERSION, RELAY_VERSION

    from .test_bot_worker import play_auto_match, replays_identically

    def acted_passes(events: list[Any]) -> int:
        """Passes logged as ``act`` rows: every pass is a window's answer."""
        return sum(e.kind == "act" and json.loads(e.data)["type"] == "pass" for e in events)

    shared = redis.Redis.from_url(redis_url, decode_responses=True)
    old_node = shared.pubsub()
    try:
        server = start_server(redis_url=redis_url, bot="greedy", **SHORT_LIFE)
        cluster = server.hub.cluster
        assert cluster is not None
        assert (cluster.heartbeat, cluster.ttl_ms) == (HEARTBEAT, TTL * 1000)  # the settings'
        beat = shared.get(f"wm:node:{server.hub.node_id}")
        assert beat is not None and beat.split(" ")[1:] == [str(RELAY_VERSION), str(LOG_VERSION)]
        assert cluster.log_version == LOG_VERSION and server.hub.log_windows  # alone

        def until(condition: Any, what: str) -> None:
            deadline = time.monotonic() + 30
            while not condition():  # the next heartbeats count the nodes again
                assert time.monotonic() < deadline, what
                time.sleep(0.05)

        old_node.subscribe(cluster.kick_channel)  # an old release's node joins
        until(lambda: not server.hub.log_windows, "the node never saw the old node")
        assert cluster.log_version == 1
        events = replays_identically(server.store, play_auto_match(server))
        assert "window" not in {e.kind for e in events} and acted_passes(events) > 0

        old_node.unsubscribe()  # ... and leaves
        until(lambda: server.hub.log_windows, "the node never saw the old node go")
        assert cluster.log_version == LOG_VERSION
        events = replays_identically(server.store, play_auto_match(server))
        assert "window" in {e.kind for e in events} and acted_passes(events) == 0
    finally:
        old_node.close()
        shared.close()


def test_a_silent_redis_host_is_given_up_on_in_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Redis host that answers nothing (its address moved in a failover, packets dropped)
    held a node's connection attempt for the kernel's SYN retries, about two minutes; it
    now fails after ``REDIS_CONNECT_TIMEOUT`` (10 s; 1 here, and redis-py tries 3 times)."""
    from wuhan_mahjong.server import cluster
    from wuhan_mahjong.server.cluster import connect_redis

    from .test_db_outage import _silent_port

    monkeypatch.setattr(cluster, "REDIS_CONNECT_TIMEOUT", 1.0)
    listener, fillers = _silent_port()

    async def ping() -> tuple[BaseException | None, float]:
        client = connect_redis(f"redis://127.0.0.1:{listener.getsockname()[1]}/0")
        start = time.monotonic()
        try:
            await asyncio.wait_for(client.ping(), 60)
        except Exception as e:
            return e, time.monotonic() - start
        finally:
            await client.aclose()
        return None, time.monotonic() - start

    try:
        error, seconds = asyncio.run(ping())
    finally:
        for s in [listener, *fillers]:
            s.close()
    assert isinstance(error, redis.exceptions.RedisError), error  # what the cluster handles
    assert seconds < 15


def test_every_redis_connection_of_a_node_is_probed(redis_url: str) -> None:
    """A subscriber on a silent Redis host waited for messages that could not come (relayed
    frames stopped without a word): every connection now probes its peer with TCP
    keepalives and fails data unacknowledged for 30 s, so the subscriber subscribes again."""
    from wuhan_mahjong.server.cluster import connect_redis, redis_socket_options

    async def options() -> tuple[int, dict[int, int]]:
        client = connect_redis(redis_url)
        try:
            await client.ping()
            connection = await client.connection_pool.get_connection()
            try:
                sock = connection._writer.get_extra_info("socket")
                return (sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE),
                        {k: sock.getsockopt(socket.IPPROTO_TCP, k) for k in redis_socket_options()})
            finally:
                await client.connection_pool.release(connection)
        finally:
            await client.aclose()

    keepalive, tcp = asyncio.run(options())
    assert keepalive == 1
    assert tcp == redis_socket_options() and tcp[socket.TCP_USER_TIMEOUT] == 30_000


@pytest.mark.slow
def test_a_clubs_table_is_listed_and_seated_across_nodes(nodes: list[ServeProcess],
                                                          db_url: str) -> None:
    """A club's table opened on node 2 is on the club's page of every node (the Redis
    listing), refuses a non-member whose socket is on node 3 (the room's node checks), seats a
    member from node 1; an application made on node 3 reaches the owner on node 1; a table
    whose node was killed leaves every node's page."""
    store, tokens, ids = _accounts(db_url, 4)
    club = clubs.create(store, ids[0], "三镇", "yuanhang", {"profile": "yuanhang", "hands": 2}).number
    for k in (1, 2):
        clubs.apply(store, club, ids[k])
        clubs.answer(store, club, ids[0], f"crash{k}", "approve")
    first, second, third = ServeProcess.start_all(nodes)

    def rooms(node: ServeProcess, token: str) -> list[dict[str, Any]]:
        r = httpx.get(f"{node.http}/api/clubs/{club}", timeout=10,
                      headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        return list(r.json()["rooms"])

    try:
        async def scenario() -> None:
            host = Client(second, tokens[1])  # type: ignore[arg-type]
            member = Client(first, tokens[2])  # type: ignore[arg-type]
            outsider = Client(third, tokens[3])  # type: ignore[arg-type]
            for c in (host, member, outsider):
                await c.connect()
            await host.send({"type": "create_room", "options": {"club": club, "hands": 9}})
            room = await host.expect("room")
            assert room["options"]["club"] == club and room["options"]["hands"] == 2
            code = room["code"]
            for node in (first, second, third):
                for _ in range(100):  # the listing is written behind the room's answer
                    listed = await asyncio.to_thread(rooms, node, tokens[0])
                    if listed:
                        break
                    await asyncio.sleep(0.1)
                assert [(r["code"], r["host"], r["players"]) for r in listed] == [
                    (code, "crash1", ["crash1"])], node.port
            # the room's own node lists it from its memory, not from its listing written
            # behind: with the listing's entry lost, read once, it is there
            shared = redis.Redis.from_url(os.environ["WUHAN_MAHJONG_REDIS"], decode_responses=True)
            (key,) = shared.keys(f"wm:*club:{club}:rooms")
            assert shared.hdel(key, code) == 1
            assert [r["code"] for r in await asyncio.to_thread(rooms, second, tokens[0])] == [code]
            shared.close()
            await outsider.send({"type": "join_room", "code": code})
            refused = await outsider.expect("error")
            assert refused["code"] == "not_member" and refused["params"]["club"] == club
            await member.send({"type": "join_room", "code": code})
            assert len((await member.expect("room"))["members"]) == 2
            for _ in range(50):  # the listing follows the room (written after each change)
                listed = await asyncio.to_thread(rooms, third, tokens[0])
                if listed and len(listed[0]["players"]) == 2:
                    break
                await asyncio.sleep(0.1)
            assert listed[0]["players"] == ["crash1", "crash2"]
            # the outsider asks to join on node 3's HTTP: the owner, connected to node 1,
            # hears of it
            owner = Client(first, tokens[0])  # type: ignore[arg-type]
            await owner.connect()
            applied = await asyncio.to_thread(
                httpx.post, f"{third.http}/api/clubs/{club}/apply", timeout=10,
                headers={"Authorization": f"Bearer {tokens[3]}"})
            assert applied.json() == {"role": "pending"}
            heard = await owner.expect("club_event")
            assert (heard["event"], heard["username"], heard["club"]) == ("applied", "crash3",
                                                                          club)
            for c in (member, outsider, owner):
                await c.close()
            # the room's node dies: a survivor opens its waiting table again (kept in the
            # store, server/room_keeper.py), and every page lists it as before
            await asyncio.to_thread(second.kill)
            survivors = {_pid(first), _pid(third)}
            for _ in range(300):
                kept = await asyncio.to_thread(saved_rooms, store)
                if [int(r.owner.rsplit(":", 1)[1]) for r in kept] in ([p] for p in survivors):
                    break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError(f"no survivor took the room over: {kept}")
            for node, token in ((first, tokens[0]), (third, tokens[2])):
                for _ in range(100):  # the listing follows the room
                    listed = await asyncio.to_thread(rooms, node, token)
                    if listed:
                        break
                    await asyncio.sleep(0.1)
                assert [(r["code"], r["players"]) for r in listed] == [
                    (code, ["crash1", "crash2"])], node.port

        asyncio.run(scenario())
    finally:
        store.close()


def test_a_cluster_task_that_ignores_its_cancellation_does_not_hold_the_leave(
        start_server: Any, redis_url: str) -> None:
    """A node leaving the cluster waits for its loops a bounded time, then drops its
    heartbeat and leases anyway (the survivors take its matches over at once)."""
    import threading

    server = start_server(redis_url=redis_url)
    cluster = server.hub.cluster
    release = threading.Event()

    async def stubborn() -> None:
        while not release.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.05)

    async def add() -> None:
        cluster.tasks.append(asyncio.get_running_loop().create_task(stubborn(), name="stubborn"))

    loop = server.uvicorn.loop
    asyncio.run_coroutine_threadsafe(add(), loop).result(10)
    try:
        asyncio.run_coroutine_threadsafe(cluster.close(), loop).result(60)
        client = redis.Redis.from_url(redis_url)
        try:
            assert not client.exists(f"wm:node:{cluster.node}")
        finally:
            client.close()
    finally:
        release.set()


def test_a_heartbeat_whose_cancellation_is_lost_still_ends_at_the_leave(
        start_server: Any, redis_url: str) -> None:
    """A cancellation can be lost inside redis-py (a timeout of its own ending at the same
    moment swallows it).  When the heartbeat's was lost as its node left, the heartbeat
    beat on: the node was seen alive again after its leave (in a full run, a node whose
    heartbeat was left behind did not exit within 60 s of its SIGTERM).  Now the leave
    cancels again, and the heartbeat ends at its next beat: nothing is left behind and no
    beat follows the leave (each of the two suffices here; without both the test fails)."""
    import threading

    server = start_server(redis_url=redis_url)
    cluster = server.hub.cluster
    real_beat = cluster._beat
    inside = threading.Event()
    lost: list[bool] = []

    async def lossy_beat() -> None:
        if not lost:
            inside.set()
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                lost.append(True)  # swallowed, as redis-py's own timeout may
        await real_beat()

    cluster._beat = lossy_beat  # type: ignore[method-assign]
    assert inside.wait(30), "the heartbeat never beat"
    loop = server.uvicorn.loop
    asyncio.run_coroutine_threadsafe(cluster.close(), loop).result(60)
    assert lost == [True]
    assert all(task.done() for task in cluster.tasks), cluster.tasks  # nothing left behind
    client = redis.Redis.from_url(redis_url)
    try:
        for _ in range(3):  # three heartbeats after the leave: no beat came
            assert not client.exists(f"wm:node:{cluster.node}")
            time.sleep(cluster.heartbeat)
    finally:
        client.close()


@pytest.mark.parametrize("gone", ["before its state is read", "before it is claimed"])
def test_a_dead_nodes_room_deleted_while_it_is_taken_over_frees_its_code(
        start_server: Any, redis_url: str, monkeypatch: pytest.MonkeyPatch, gone: str) -> None:
    """A dead node's kept room that its holder's last write deletes (it started, or its
    last member left) between a survivor's look at the kept rooms and the survivor's
    claim: the survivor opens nothing, and the code it reserved for the room is free again
    at once (not held until the reservation expires, when no room has it)."""
    from wuhan_mahjong.server import cluster as cluster_module
    from wuhan_mahjong.server.cluster import Cluster, connect_redis
    from wuhan_mahjong.store import rooms as rooms_module
    from wuhan_mahjong.store.rooms import kept_room_owner, write_rooms

    server = start_server()  # a node's hub; its cluster part is built here, not started
    store, dead, code = server.hub.store, "dead-node:1", "Q7W3"
    state = {"options": {"hands": 1}, "members": [[1, "a"]], "host": 1}
    write_rooms(store, dead, {code: state})

    def delete() -> None:
        assert write_rooms(store, dead, {code: None}) == 1  # the holder's late write

    if gone == "before its state is read":
        real_saved = cluster_module.saved_rooms

        def saved_after_delete(*args: Any) -> Any:
            delete()
            return real_saved(*args)

        monkeypatch.setattr(cluster_module, "saved_rooms", saved_after_delete)
    else:
        real_claim = rooms_module.claim_room

        def claim_after_delete(*args: Any) -> bool:
            delete()
            return real_claim(*args)

        monkeypatch.setattr(sys.modules["wuhan_mahjong.server.lobby"], "claim_room",
                            claim_after_delete)

    async def scenario() -> None:
        client = connect_redis(redis_url)
        try:
            await client.delete(f"wm:room:{code}", f"wm:node:{dead}")
            node = Cluster(server.hub, client)
            assert await node.take_over_rooms() == 0
            assert await client.get(f"wm:room:{code}") is None  # free for a new room
            assert code not in server.hub.lobby.rooms
            assert kept_room_owner(store, code) is None
            assert await node.take_over_rooms() == 0  # nothing left to take
        finally:
            await client.aclose()

    asyncio.run(scenario())


def test_a_player_left_in_a_lobby_while_seated_on_another_node_is_sent_to_his_table(
        start_server: Any, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table on node A seats a player whose socket is in node B's lobby, and nothing
    moves the socket (here no ``reseat`` at all: the races that lost it were each fixed,
    and this is what catches the next one).  Within a few of B's heartbeats the socket is
    closed (1012); the reconnection to B is relayed to the table, and the player plays
    his match there.  Then, his socket still relayed to A (its lobby, after the match), a
    table on B seats him: the socket is closed again, and the reconnection is served by
    B's table."""
    from wuhan_mahjong.rules import get_rules
    from wuhan_mahjong.server.observability import CLUSTER_STRAYS

    from .harness import guest_token

    node_a = start_server(redis_url=redis_url)
    with monkeypatch.context() as patch:  # a node's name is its host's and process id's
        patch.setattr(socket, "gethostname", lambda: "node-b")
        node_b = start_server(redis_url=redis_url)
    assert node_a.uvicorn.loop is not None and node_b.uvicorn.loop is not None
    assert node_b.hub.cluster is not None
    assert node_a.hub.node_id != node_b.hub.node_id
    token = guest_token(node_b)
    strays = CLUSTER_STRAYS._value.get()

    async def seat_alone(node: Any, account: dict[str, Any]) -> Any:
        """A table of ``node`` seats the account and three bots, and no message moves his
        socket (the step the races lost)."""
        return await asyncio.wait_for(asyncio.wrap_future(asyncio.run_coroutine_threadsafe(
            node.hub.start_table([(account["id"], account["username"])],
                                 get_rules("yuanhang"), hands=1, stake=0),
            node.uvicorn.loop)), 15)

    async def sent_to(table: Any, old: Client) -> Client:
        """``old`` is closed to reconnect, and the reconnection (to B) finds ``table``."""
        await asyncio.wait_for(old.closed.wait(), 20)
        assert old.close_code == 1012
        new = Client(node_b, token)
        assert (await new.connect())["at_table"] is True
        assert (await new.expect("table", timeout=15))["table_id"] == table.table_id
        return new

    async def scenario() -> None:
        client = Client(node_b, token)
        welcome = await client.connect()
        assert welcome["at_table"] is False
        account = welcome["account"]
        again = await sent_to(await seat_alone(node_a, account), client)
        await play(again, until="match_end", timeout=60)
        assert node_b.hub.cluster.relayed[account["id"]].home == node_a.hub.node_id
        last = await sent_to(await seat_alone(node_b, account), again)
        assert account["id"] not in node_b.hub.cluster.relayed
        await play(last, until="match_end", timeout=60)
        await last.close()

    asyncio.run(scenario())
    assert CLUSTER_STRAYS._value.get() == strays + 2


def test_a_lobby_socket_goes_to_another_nodes_table_only_once_seen_there_twice(
        start_server: Any, redis_url: str) -> None:
    """A socket in this node's lobby whose account's home is another node is closed only
    when two heartbeats in a row name the same live node: a home seen at one heartbeat (a
    move in flight), a home that changed between the two, or a dead node's, close nothing.
    (The server's own heartbeat is a minute apart here: the test runs each check.)"""
    from wuhan_mahjong.server.cluster import connect_redis

    from .harness import guest_token

    server = start_server(redis_url=redis_url, cluster_heartbeat=60.0, cluster_ttl=180.0)
    cluster = server.hub.cluster
    loop = server.uvicorn.loop
    assert cluster is not None and loop is not None
    token = guest_token(server)

    async def beat() -> None:  # on the server's loop, as its heartbeat runs it
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(
            cluster._send_strays_home(), loop))

    async def scenario() -> None:
        redis_client = connect_redis(redis_url)
        client = Client(server, token)
        try:
            account = (await client.connect())["account"]["id"]
            home = f"wm:home:{account}"
            for node in ("node-x", "node-y"):
                await redis_client.set(f"wm:node:{node}", "0 1 2", px=60_000)
            await redis_client.set(home, "node-x", px=60_000)
            await beat()
            assert cluster.strays == {account: "node-x"}
            await redis_client.delete(home)  # the move went through: gone
            await beat()
            assert cluster.strays == {}
            await redis_client.set(home, "node-x", px=60_000)
            await beat()
            await redis_client.set(home, "node-y", px=60_000)  # another node meanwhile
            await beat()
            assert cluster.strays == {account: "node-y"}
            await redis_client.set(home, "node-z", px=60_000)  # a node with no heartbeat
            await beat()
            await beat()
            await asyncio.sleep(0.5)
            assert not client.closed.is_set()
            await redis_client.set(home, "node-y", px=60_000)
            await beat()
            await beat()
            await asyncio.wait_for(client.closed.wait(), 10)
            assert client.close_code == 1012
        finally:
            await client.close()
            await redis_client.aclose()

    asyncio.run(scenario())
