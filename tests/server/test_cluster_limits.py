"""The abuse limits of a cluster are counted once over every node, and nodes of different
relay versions do not relay to each other (a rolling upgrade), with real ``serve --redis``
processes on loopback, one database and one real Redis (the fixtures of ``test_cluster``).

What is checked: one address (or account) spread over two nodes gets one allowance, not
two: the replays and their frames, the live-table list, ``watch``, quick chat (counted where
the table runs); the refusal is the one a single node gives.  A limit whose Redis does not
answer counts the node's own requests and says so in the log.  A node refuses to relay to a
node of another relay version (1012), and once the old node has gone, its table resumes on
the new one and plays to the end.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import websockets

from wuhan_mahjong.server import cluster
from wuhan_mahjong.server.cluster_limits import RedisAddressLimiter, RedisLoginGuard
from wuhan_mahjong.server.export_api import EXPORT_BURST

from .harness import Client, free_port, play, seat_four
from .test_cluster import SHORT_LIFE, cluster_env, redis_url  # noqa: F401 - the fixture
from .test_durable_crash import ServeProcess, _accounts

LIMITS = ("--replay-rate", "0.001", "--replay-burst", "4", "--watch-rate", "0.001",
          "--watch-burst", "2", "--puzzle-rate", "0.001", "--puzzle-burst", "4",
          "--bot-worker", "process")
"""Tiny allowances that do not refill during a test: four replay requests and four
live-table lists per address, two ``watch`` per account, four puzzle requests (computed in
the bot pool's processes, as a node computes them by default)."""


@pytest.fixture
def two_nodes(db_url: str, redis_url: str, tmp_path: Path,  # noqa: F811
              monkeypatch: pytest.MonkeyPatch) -> Iterator[list[ServeProcess]]:
    """Two started nodes of one cluster with :data:`LIMITS`."""
    cluster_env(monkeypatch, redis_url)
    made = [ServeProcess(db_url, tmp_path / f"node{i}.log", options=LIMITS) for i in range(2)]
    try:
        yield ServeProcess.start_all(made)
    finally:
        for n in made:
            n.close()


def _refusals(nodes: list[ServeProcess], path: str, allowed: int) -> list[httpx.Response]:
    """``allowed`` requests of ``path`` alternating between the nodes, all let through,
    then one more on each node: the answers of those last ones."""
    for i in range(allowed):
        answer = httpx.get(nodes[i % len(nodes)].http + path, timeout=10)
        assert answer.status_code != 429, (i, answer.text)
    return [httpx.get(n.http + path, timeout=10) for n in nodes]


def _lone_refusal(db_url: str, tmp_path: Path, path: str, allowed: int,
                  monkeypatch: pytest.MonkeyPatch, nodes: list[ServeProcess]) -> httpx.Response:
    """What a server without Redis answers to the request after its allowance (on the
    cluster's database, once its ``nodes`` are stopped: no server alone starts beside
    them, ``store/serve_lock.py``)."""
    for n in nodes:
        n.close()
    monkeypatch.delenv("WUHAN_MAHJONG_REDIS")
    lone = ServeProcess(db_url, tmp_path / "lone.log", options=LIMITS)
    try:
        lone.start()
        (answer,) = _refusals([lone], path, allowed)
        return answer
    finally:
        lone.close()


@pytest.mark.slow
def test_replays_and_the_live_list_are_one_allowance_over_the_nodes(
        two_nodes: list[ServeProcess], db_url: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Four replay requests per address in all (a public hand, a player's frames: one
    bucket), then 429 ``rate_limited`` on both nodes, as one node alone answers its fifth;
    the live-table list has four of its own, the tournaments four more, and an account's
    downloads of its data its own."""
    public = "/api/public/hands/no-such-match/1"
    for answer in _refusals(two_nodes, public, 4):
        assert answer.status_code == 429, answer.text
        assert answer.json()["error"]["code"] == "rate_limited"
        assert int(answer.headers["Retry-After"]) > 0
    frames = httpx.get(f"{two_nodes[1].http}/api/matches/m/hands/1/frames", timeout=10)
    assert frames.status_code == 429 and frames.json()["error"]["code"] == "rate_limited"
    for answer in _refusals(two_nodes, "/api/tables/live", 4):
        assert answer.status_code == 429, answer.text
        shared = answer.json()["error"]
    for answer in _refusals(two_nodes, "/api/tournaments", 4):  # four of their own too
        assert answer.status_code == 429, answer.text
    # an account's downloads of its data: one allowance over the nodes too
    token = httpx.post(f"{two_nodes[0].http}/api/guest", timeout=10).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    for i in range(EXPORT_BURST):
        answer = httpx.get(two_nodes[i % 2].http + "/api/account/export", headers=auth,
                           timeout=30)
        assert answer.status_code == 200, answer.text
    for node in two_nodes:
        answer = httpx.get(node.http + "/api/account/export/records.jsonl", headers=auth,
                           timeout=30)
        assert answer.status_code == 429 and answer.json()["error"]["code"] == "rate_limited"
    lone = _lone_refusal(db_url, tmp_path, "/api/tables/live", 4, monkeypatch,
                         two_nodes).json()["error"]
    # the same answer but for the seconds to wait, which a loaded machine's pace between
    # the requests moves by one or two
    assert (lone["code"], _unnumbered(lone["message"])) == (
        shared["code"], _unnumbered(shared["message"]))


def _unnumbered(message: str) -> str:
    return re.sub(r"in \d+ s\b", "in N s", message)


@pytest.mark.slow
def test_watch_requests_are_one_allowance_over_the_nodes(
        two_nodes: list[ServeProcess], db_url: str) -> None:
    """An account's ``watch`` messages (2 allowed) count on whichever node its socket is:
    one on each node, then ``rate_limited`` on both, however it reconnects."""
    first, second = two_nodes
    store, tokens, _ids = _accounts(db_url, 1)
    try:
        async def watch(node: ServeProcess) -> dict[str, Any]:
            c = Client(node, tokens[0])  # type: ignore[arg-type]
            await c.connect()
            await c.send({"type": "watch", "table": "0123456789ab", "ref": "w"})
            answer = await c.expect("error", ref="w")
            await c.close()
            return answer

        async def scenario() -> None:
            assert (await watch(first))["code"] == "not_found"  # counted
            assert (await watch(second))["code"] == "not_found"
            for node in (second, first):
                refused = await watch(node)
                assert refused["code"] == "rate_limited", refused
                assert refused["message"] == "too many watch requests: wait a moment"

        asyncio.run(scenario())
    finally:
        store.close()


@pytest.mark.slow
def test_quick_chat_is_counted_where_the_table_runs(
        two_nodes: list[ServeProcess], db_url: str) -> None:
    """Quick chat needs no Redis: a player's phrases are handled by the node that runs his
    table, wherever his socket is.  Two phrases on node 1, a reconnection to node 2 (relayed),
    and the bucket (3 at once, one per 4 s) is the same one: the fourth is refused there.
    How many play now (``GET /api/now``) is the cluster's, asked of either node."""
    from wuhan_mahjong.server.chat import CHAT_BURST, CHAT_RATE

    first, second = two_nodes
    store, tokens, _ids = _accounts(db_url, 4)
    try:
        async def say(c: Client) -> dict[str, Any]:
            await c.send({"type": "chat", "phrase": "nice", "ref": "c"})
            while True:
                msg = await c.recv()
                if msg["type"] == "chat" or (msg["type"] == "error" and msg.get("ref") == "c"):
                    return msg

        async def scenario() -> None:
            players = await seat_four(first, tokens, hands=1)  # type: ignore[arg-type]
            began = time.monotonic()
            said = 0
            for _ in range(2):
                assert (await say(players[0]))["type"] == "chat"
                said += 1
            moved = Client(second, tokens[0])  # type: ignore[arg-type]
            assert (await moved.connect())["at_table"] is True  # relayed to node 1
            while (answer := await say(moved))["type"] == "chat":
                said += 1
                assert said <= 2 * CHAT_BURST, "each node counted its own phrases"
            assert answer["code"] == "rate_limited" and answer["params"]["reason"] == "chat"
            # one bucket: its burst, and what it refilled meanwhile
            assert said <= CHAT_BURST + CHAT_RATE * (time.monotonic() - began), said
            # how many play now is the platform's: three sockets on node 1, one on node 2, one table
            deadline = time.monotonic() + 30
            while (now := (await asyncio.to_thread(
                    httpx.get, f"{second.http}/api/now", timeout=10)).json()) != {
                    "online": 4, "tables": 1}:
                assert time.monotonic() < deadline, now
                await asyncio.sleep(0.2)
            for c in [*players, moved]:
                await c.close()

        asyncio.run(scenario())
    finally:
        store.close()


def test_a_limit_without_redis_counts_this_node_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    """Redis unreachable: the shared limits neither fail the request nor let everything
    through: they count this node's requests (its own bucket, its own failed logins), and
    log a warning (once, not per request)."""
    dead = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there

    async def scenario() -> None:
        client = cluster.connect_redis(dead)
        try:
            limiter = RedisAddressLimiter(client, "test", rate=0.001, burst=3)
            assert [await limiter.check("1.2.3.4") for _ in range(3)] == [0.0, 0.0, 0.0]
            assert await limiter.check("1.2.3.4") > 0
            assert await limiter.check("5.6.7.8") == 0.0
            guard = RedisLoginGuard(client, per_account=2, per_client=10, window=60)
            for _ in range(2):
                assert await guard.check("1.2.3.4", "zhang") == 0.0
                await guard.record("1.2.3.4", "zhang", ok=False)
            assert await guard.check("1.2.3.4", "Zhang") > 0
        finally:
            await client.aclose()

    with caplog.at_level(logging.WARNING, logger="wuhan_mahjong.server.cluster"):
        asyncio.run(scenario())
    warned = [r.getMessage() for r in caplog.records if "counted on this node only" in r.getMessage()]
    assert len(warned) == 2, warned  # one per limit, not one per check
    assert "limit test" in warned[0] and "limit login" in warned[1]


def test_a_node_refuses_what_redis_would_refuse_without_asking(redis_url: str) -> None:  # noqa: F811
    """Two limiters (two nodes) share one allowance, the bucket in Redis; a node whose own
    bucket is empty refuses without a round trip to Redis (the script, which stamps the
    bucket at every call, does not run)."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)

    async def scenario() -> None:
        shared = cluster.connect_redis(redis_url)
        try:
            one = RedisAddressLimiter(shared, "test", rate=0.001, burst=4)
            two = RedisAddressLimiter(shared, "test", rate=0.001, burst=4)
            answers = [await (one if i % 2 else two).check("1.2.3.4") for i in range(4)]
            assert answers == [0.0] * 4
            assert await one.check("1.2.3.4") > 0 and await two.check("1.2.3.4") > 0
            for _ in range(3):  # node one's bucket is not empty: it asks Redis, which refuses
                assert await one.check("1.2.3.4") > 0
            one.local.retry_after("1.2.3.4")  # empty node one's own bucket (the refused
            one.local.retry_after("1.2.3.4")  # checks gave their tokens back: 2 were left)
            stamp = client.hget("wm:limit:test:1.2.3.4", "stamp")
            for _ in range(50):
                assert await one.check("1.2.3.4") > 0
            assert client.hget("wm:limit:test:1.2.3.4", "stamp") == stamp
            assert await two.check("1.2.3.4") > 0  # asks Redis: stamped
            assert client.hget("wm:limit:test:1.2.3.4", "stamp") != stamp
        finally:
            await shared.aclose()
            client.close()

    asyncio.run(scenario())


@pytest.mark.slow
def test_a_rolling_upgrade_relays_nothing_between_versions(
        db_url: str, redis_url: str, tmp_path: Path,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch, start_server: Any) -> None:
    """An old node (this relay version) runs a table; a new node (the next version) joins:
    its heartbeat says its version, and it closes with 1012 a player's socket instead of
    relaying it to the old node's table, and a socket that would join a room held by the
    old node.  The old node is stopped (drained): its table resumes on the new node, where
    the players reconnect and play to the end."""
    cluster_env(monkeypatch, redis_url)
    old = ServeProcess(db_url, tmp_path / "old.log")
    store, tokens, _ids = _accounts(db_url, 6)
    shared = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        old.start()

        async def seat() -> list[Client]:
            return await seat_four(old, tokens[:4], hands=1)  # type: ignore[arg-type]

        monkeypatch.setattr(cluster, "RELAY_VERSION", cluster.RELAY_VERSION + 1)
        new = start_server(redis_url=redis_url, **SHORT_LIFE)
        beat = shared.get(f"wm:node:{new.hub.node_id}")
        assert beat is not None and beat.split(" ")[1] == str(cluster.RELAY_VERSION), beat

        async def scenario() -> None:
            players = await seat()
            host = Client(old, tokens[4])  # type: ignore[arg-type]
            await host.connect()
            await host.send({"type": "create_room", "options": {"hands": 1}})
            code = (await host.expect("room"))["code"]
            guest = Client(new, tokens[5])
            await guest.connect()
            await guest.send({"type": "join_room", "code": code})
            await asyncio.wait_for(guest.closed.wait(), 10)
            assert guest.close_code == 1012 and not guest.of_type("room")
            await host.close()
            refused = await websockets.connect(new.ws)
            await refused.send(f'{{"type": "hello", "token": "{tokens[1]}"}}')
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    await asyncio.wait_for(refused.recv(), 10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
            await asyncio.to_thread(old.terminate)  # drained: its table is stopped, persisted
            for p in players:
                await p.close()
            again = [Client(new, t) for t in tokens[:4]]
            deadline = time.monotonic() + 60
            for c in again:
                while not (await c.connect())["at_table"]:  # until the new node took it over
                    assert time.monotonic() < deadline, "the new node took nothing over"
                    await c.close()
                    await asyncio.sleep(0.2)
            ends = await asyncio.gather(*(play(c, bot="greedy", seed=i, timeout=120)
                                          for i, c in enumerate(again)))
            assert len({e["match_id"] for e in ends}) == 1
            for c in again:
                await c.close()

        asyncio.run(scenario())
    finally:
        shared.close()
        store.close()
        old.close()


@pytest.mark.slow
def test_puzzles_are_one_allowance_over_the_nodes(two_nodes: list[ServeProcess]) -> None:
    """Four puzzle requests per address in all, over both nodes, then 429 on each."""
    for answer in _refusals(two_nodes, "/api/puzzles/yuanhang/8", 4):
        assert answer.status_code == 429, answer.text
        assert answer.json()["error"]["code"] == "rate_limited"
