"""Tournaments through the real server: five players enter, the creator starts, each round's
tables seat the connected players at once (their ``table`` frames, bots filling), the
second round follows by itself when the first has ended, seated by standing, and the
tournament finishes with standings that add up the matches; an entered player is refused a
queue or a room; the API's refusals.  SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .harness import Client, Server, api_post, bearer, play, register
from .test_durable_crash import ServeProcess, _accounts

PASSWORD = "secret-123"


def _detail(server: Server, tid: int, token: str | None = None) -> dict[str, Any]:
    r = httpx.get(f"{server.http}/api/tournaments/{tid}", timeout=10,
                  headers=bearer(token) if token else None)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_a_tournament_of_two_rounds_through_the_server(server: Server) -> None:
    names = [f"tp{k}" for k in range(5)]
    tokens = [register(server, n) for n in names]
    made = api_post(server, "/api/tournaments", tokens[0],
                 {"name": "周末杯", "profile": "yuanhang", "hands": 1, "rounds": 2,
                  "capacity": 8})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    for t in tokens[1:]:
        assert api_post(server, f"/api/tournaments/{tid}/join", t).status_code == 200
    early = api_post(server, f"/api/tournaments/{tid}/start", tokens[1])
    assert early.status_code == 409 and early.json()["error"]["params"]["reason"] == "not_creator"
    listed = httpx.get(f"{server.http}/api/tournaments", timeout=10).json()["tournaments"]
    assert [(t["id"], t["players"], t["status"]) for t in listed] == [(tid, 5, "open")]
    seen = _detail(server, tid, tokens[2])
    assert seen["entered"] is True and seen["creator"] is False
    assert _detail(server, tid)["entered"] is None

    async def scenario() -> list[Client]:
        clients = [Client(server, t, n) for t, n in zip(tokens, names, strict=True)]
        for c in clients:
            await c.connect()
        # entered: no queue, no room meanwhile
        await clients[1].send({"type": "quick_match"})
        refused = await clients[1].expect("error")
        assert refused["code"] == "in_tournament" and refused["params"]["tournament"] == tid
        started = await asyncio.to_thread(api_post, server, f"/api/tournaments/{tid}/start",
                                          tokens[0])
        assert started.status_code == 200, started.text
        for round_no in (1, 2):
            tables = await asyncio.gather(*(c.expect("table", timeout=30) for c in clients))
            assert all(t["tournament"] == {"id": tid, "round": round_no, "table": t["tournament"]
                                           ["table"], "rounds": 2, "name": "周末杯"}
                       for t in tables)
            # five players: a table of three and one of two, bots in the other seats
            sizes = sorted(sum(not p["bot"] for p in t["players"]) for t in
                           {t["table_id"]: t for t in tables}.values())
            assert sizes == [2, 3], (round_no, sizes)
            ends = await asyncio.gather(*(play(c, bot="greedy", seed=k, timeout=120)
                                          for k, c in enumerate(clients)))
            assert all(e["tournament"] == tid for e in ends)
        return clients

    clients = asyncio.run(scenario())
    for _ in range(600):  # the runner ends it at its next look (a table's end wakes it)
        final = _detail(server, tid)
        if final["tournament"]["status"] == "finished":
            break
        asyncio.run(asyncio.sleep(0.1))
    assert final["tournament"]["status"] == "finished", final
    standings = final["standings"]
    assert sorted(s["username"] for s in standings) == sorted(names)
    assert all(s["matches"] == 2 for s in standings)
    # each player's points are his two matches' totals
    for c in clients:
        seat_totals = [end["totals"][table["seat"]] for table, end in
                       zip(c.of_type("table"), c.of_type("match_end"), strict=True)]
        mine = next(s for s in standings if s["username"] == c.name)
        assert mine["points"] == sum(seat_totals), (c.name, mine, seat_totals)
    assert [s["points"] for s in standings] == sorted((s["points"] for s in standings),
                                                      reverse=True)
    # round two sat by standing after round one (points, then matches won, then entry):
    # the best three at its first table, the other two at the second
    def first_round(c: Client) -> tuple[int, int, int]:
        table, end = c.of_type("table")[0], c.of_type("match_end")[0]
        mine = end["totals"][table["seat"]]
        return (-mine, -int(mine == max(end["totals"])), names.index(c.name))

    order = [c.name for c in sorted(clients, key=first_round)]
    tables = final["tables"]
    assert {t["round"] for t in tables} == {1, 2}
    assert all(t["status"] == "finished" for t in tables)
    for t in tables:  # each table's result: its seats' points, best first, bots too
        assert len(t["results"]) == 4 and sum(p for _, p in t["results"]) == 0
        assert [p for _, p in t["results"]] == sorted((p for _, p in t["results"]), reverse=True)
        assert {n for n, _ in t["results"]} >= set(t["players"])
    second = sorted((t for t in tables if t["round"] == 2), key=lambda t: t["table_no"])
    assert [sorted(t["players"]) for t in second] == [sorted(order[:3]), sorted(order[3:])]
    # over: everyone may play elsewhere again
    async def free() -> None:
        c = Client(server, tokens[1])
        await c.connect()
        await c.send({"type": "quick_match"})
        await c.expect("table", timeout=30)
        await c.close()

    asyncio.run(free())


def test_a_table_waits_for_a_player_at_another_table_unless_he_withdrew(server: Server) -> None:
    """Round one's table does not start while one of its players is being seated elsewhere;
    once he withdraws it starts without him (a bot in his seat)."""
    names = ["wa", "wb", "wc", "busy"]
    tokens = [register(server, n) for n in names]
    tid = api_post(server, "/api/tournaments", tokens[0],
                {"name": "waits", "hands": 1, "rounds": 1, "capacity": 4}).json()["id"]
    for t in tokens[1:]:
        assert api_post(server, f"/api/tournaments/{tid}/join", t).status_code == 200
    busy = server.store.account_by_username("busy")
    assert busy is not None
    server.hub.where.starting(busy.id)  # at another table (being seated there)
    try:
        async def scenario() -> None:
            clients = [Client(server, t) for t in tokens[:3]]
            for c in clients:
                await c.connect()
            started = await asyncio.to_thread(api_post, server, f"/api/tournaments/{tid}/start",
                                              tokens[0])
            assert started.status_code == 200
            await asyncio.sleep(1.0)  # the runner has looked: the table waits for him
            assert not any(c.of_type("table") for c in clients)
            assert _detail(server, tid)["tables"][0]["status"] == "pending"
            gone = await asyncio.to_thread(api_post, server, f"/api/tournaments/{tid}/withdraw",
                                           tokens[3])
            assert gone.status_code == 200
            tables = await asyncio.gather(*(c.expect("table", timeout=30) for c in clients))
            players = tables[0]["players"]
            assert sorted(p["name"] for p in players if not p["bot"]) == ["wa", "wb", "wc"]
            await asyncio.gather(*(play(c, bot="greedy", seed=k, timeout=120)
                                   for k, c in enumerate(clients)))
            for c in clients:
                await c.close()

        asyncio.run(scenario())
    finally:
        server.hub.where.leave(busy.id)


def test_the_apis_refusals(server: Server) -> None:
    token = register(server, "maker")
    other = register(server, "other")
    guest = httpx.post(f"{server.http}/api/guest", timeout=10).json()["token"]
    for body, status in (({"name": ""}, 400), ({"name": "x", "hands": 99}, 400),
                         ({"name": "x", "capacity": 2}, 400), ({"name": "x", "rounds": "3"}, 400),
                         ({"name": "x", "extra": 1}, 400), ({"name": "x\u0000y"}, 400)):
        r = api_post(server, "/api/tournaments", token, body)
        assert r.status_code == status, (body, r.text)
        assert r.json()["error"]["code"] == "invalid_request"
    r = api_post(server, "/api/tournaments", guest, {"name": "guests' cup"})
    assert r.status_code == 409 and r.json()["error"]["params"]["reason"] == "guest"
    assert httpx.post(f"{server.http}/api/tournaments", json={"name": "x"},
                      timeout=10).status_code == 401
    tid = api_post(server, "/api/tournaments", token, {"name": "cup"}).json()["id"]
    r = api_post(server, f"/api/tournaments/{tid}/start", token)
    assert r.status_code == 409 and r.json()["error"]["params"]["reason"] == "too_few"
    r = api_post(server, f"/api/tournaments/{tid}/withdraw", other)
    assert r.status_code == 409 and r.json()["error"]["params"]["reason"] == "not_entered"
    for path in ("/api/tournaments/999999", "/api/tournaments/x1", "/api/tournaments/1" + "0" * 20,
                 "/api/tournaments/%EF%BC%91"):
        assert httpx.get(f"{server.http}{path}", timeout=10).status_code == 404, path
    assert api_post(server, "/api/tournaments/999999/join", other).status_code == 404
    assert api_post(server, f"/api/tournaments/{tid}/cancel", other).status_code == 409
    assert api_post(server, f"/api/tournaments/{tid}/cancel", token).status_code == 200
    assert _detail(server, tid)["tournament"]["status"] == "cancelled"


@pytest.fixture
def node(db_url: str, tmp_path: Path) -> Iterator[ServeProcess]:
    """``wuhan-mahjong serve`` in a subprocess on the test's database (started by the test)."""
    made = ServeProcess(db_url, tmp_path / "server.log")
    yield made
    made.close()


@pytest.mark.slow
def test_a_tournament_survives_kill_9_of_its_server(node: ServeProcess, db_url: str) -> None:
    """The server is killed (SIGKILL) as round one's table starts; after the restart its
    match resumes, round two follows, and the tournament finishes: each table one match."""
    store, tokens, _ = _accounts(db_url, 4)
    try:
        node.start()
        tid = api_post(node, "/api/tournaments", tokens[0],
                    {"name": "crash cup", "hands": 1, "rounds": 2, "capacity": 4}).json()["id"]
        for t in tokens[1:]:
            assert api_post(node, f"/api/tournaments/{tid}/join", t).status_code == 200

        async def seated() -> list[Client]:
            clients = [Client(node, t) for t in tokens]  # type: ignore[arg-type]
            for c in clients:
                await c.connect()
            return clients

        async def round_one() -> None:
            clients = await seated()
            assert (await asyncio.to_thread(api_post, node, f"/api/tournaments/{tid}/start",
                                            tokens[0])).status_code == 200
            await asyncio.gather(*(c.expect("state", timeout=30) for c in clients))
            node.kill()
            for c in clients:
                await c.close()

        asyncio.run(round_one())
        node.start()

        async def to_the_end() -> None:
            clients = await seated()  # back at the resumed table
            for _ in range(2):
                await asyncio.gather(*(play(c, bot="greedy", seed=k, timeout=120)
                                       for k, c in enumerate(clients)))
            for c in clients:
                await c.close()

        asyncio.run(to_the_end())
        final: dict[str, Any] = {}
        for _ in range(600):  # up to a minute: a loaded machine finishes late
            final = _detail(node, tid)  # type: ignore[arg-type]
            if final["tournament"]["status"] == "finished":
                break
            time.sleep(0.1)
        assert final["tournament"]["status"] == "finished", final
        assert [(t["round"], t["status"]) for t in final["tables"]] == [(2, "finished"),
                                                                         (1, "finished")]
        assert all(s["matches"] == 2 for s in final["standings"])
        assert sum(s["points"] for s in final["standings"]) == 0
        assert store.audit().ok
    finally:
        store.close()


def test_a_tournament_starts_by_itself_at_its_time(server: Server) -> None:
    """定时开赛 through the server: a start time is 5 minutes to 7 days ahead (a clear 400
    otherwise); when it comes, the runner starts the tournament and seats the connected
    entrants as a hand start would."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import update

    from wuhan_mahjong.store.models import TournamentRow

    names = [f"ts{k}" for k in range(4)]
    tokens = [register(server, n) for n in names]
    soon = datetime.now(UTC) + timedelta(hours=1)
    body = {"name": "八点开赛", "hands": 1, "rounds": 1, "capacity": 4}
    for when in ((datetime.now(UTC) + timedelta(minutes=1)).isoformat(),
                 (datetime.now(UTC) + timedelta(days=8)).isoformat()):
        r = api_post(server, "/api/tournaments", tokens[0], {**body, "starts_at": when})
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert error["params"] == {"field": "starts_at", "problem": "start_time", "low": 5,
                                   "high": 7}
    for when in (soon.replace(tzinfo=None).isoformat(), "tonight"):
        r = api_post(server, "/api/tournaments", tokens[0], {**body, "starts_at": when})
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request", when
    made = api_post(server, "/api/tournaments", tokens[0], {**body, "starts_at": soon.isoformat()})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    for t in tokens[1:]:
        assert api_post(server, f"/api/tournaments/{tid}/join", t).status_code == 200
    shown = _detail(server, tid)["tournament"]
    assert shown["status"] == "open"
    assert datetime.fromisoformat(shown["starts_at"]) == soon
    listing = httpx.get(f"{server.http}/api/tournaments", timeout=10).json()
    assert (listing["start_lead_minutes"], listing["open_days"]) == (5, 7)

    async def scenario() -> None:
        clients = [Client(server, t, n) for t, n in zip(tokens, names, strict=True)]
        for c in clients:
            await c.connect()
        with server.store.engine.begin() as connection:  # the hour has passed
            connection.execute(update(TournamentRow).where(TournamentRow.id == tid)
                               .values(starts_at=datetime.now(UTC) - timedelta(seconds=1)))
        for c in clients:
            table = await c.expect("table", timeout=30)
            assert table["tournament"]["id"] == tid
        for c in clients:
            await c.close()

    asyncio.run(scenario())
    assert _detail(server, tid)["tournament"]["status"] == "running"
    # the server stops with the tournament's table running (its end nudged the runner as
    # it was cancelled, and the stop waited for it for ever)
    server.stop()
    assert not server.thread.is_alive()
