"""Ratings and leaderboards through the server, and the admin tools' effect on a running
server: a match of four humans is rated (shown on the profile), a bot match is not; a
banned account cannot log in, authenticate or sit, and its socket closes; drain stops new
matches.  Every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import websockets

import wuhan_mahjong.server.admin as server_admin
import wuhan_mahjong.server.leaderboard as leaderboard_api
from wuhan_mahjong.store.admin import Admin

from .harness import Client, Server, StartServer, guest_token, play, register, seat_four


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _ratings(server: Server, token: str) -> list[dict[str, object]]:
    r = httpx.get(f"{server.http}/api/profile", headers=_auth(token), timeout=10)
    assert r.status_code == 200, r.text
    out: list[dict[str, object]] = r.json()["ratings"]
    return out


@pytest.mark.slow
def test_four_human_match_is_rated_and_ranked(server: Server,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    names = ["ann", "ben", "cat", "dan"]
    tokens = [register(server, n) for n in names]
    monkeypatch.setattr(leaderboard_api, "MIN_MATCHES", 1)
    monkeypatch.setattr(leaderboard_api, "CACHE_SECONDS", 3600.0)
    board = f"{server.http}/api/leaderboard"
    assert httpx.get(board, params={"profile": "yuanhang"}, timeout=10).json()["players"] == []

    async def scenario() -> list[dict[str, object]]:
        clients = await seat_four(server, tokens, hands=1)
        ends = await asyncio.gather(*(play(c, seed=i) for i, c in enumerate(clients)))
        for c in clients:
            await c.close()
        return ends

    ends = asyncio.run(scenario())
    results: list[dict[str, object]] = ends[0]["results"]  # type: ignore[assignment]
    totals = {str(line["name"]): int(line["points"]) for line in results}  # type: ignore[call-overload]
    assert set(totals) == set(names)
    # the store's end of the match (rating included) happens before match_end is sent
    ratings = {n: _ratings(server, t) for n, t in zip(names, tokens, strict=True)}
    for n in names:
        (r,) = ratings[n]
        assert r["profile"] == "yuanhang" and r["matches"] == 1
    best = max(names, key=lambda n: totals[n])
    if len(set(totals.values())) > 1:  # the match's top scorer gained
        assert float(ratings[best][0]["mu"]) > 25.0  # type: ignore[arg-type]
    # a leaderboard is cached (the one computed before the match is still served) ...
    assert httpx.get(board, params={"profile": "yuanhang"}, timeout=10).json()["players"] == []
    monkeypatch.setattr(leaderboard_api, "CACHE_SECONDS", 0.0)
    # ... and ranks them by rating (the minimum lowered to one match)
    for period in ("all", "week"):
        r = httpx.get(f"{server.http}/api/leaderboard",
                      params={"profile": "yuanhang", "period": period}, timeout=10)
        assert r.status_code == 200, r.text
        board = r.json()
        assert board["min_matches"] == 1 and board["period"] == period
        assert (board["since"] is None) == (period == "all")
        players = board["players"]
        assert sorted(p["username"] for p in players) == sorted(names)
        assert [p["rating"] for p in players] == sorted((p["rating"] for p in players),
                                                        reverse=True)
        assert [p["rank"] for p in players] == [1, 2, 3, 4]
        shown = {p["username"]: p["rating"] for p in players}
        assert all(shown[n] == ratings[n][0]["rating"] for n in names)
    monkeypatch.setattr(leaderboard_api, "MIN_MATCHES", 2)
    r = httpx.get(f"{server.http}/api/leaderboard", params={"profile": "yuanhang"}, timeout=10)
    assert r.json()["players"] == []
    r = httpx.get(f"{server.http}/api/leaderboard", params={"profile": "bianfeng"}, timeout=10)
    assert r.status_code == 200 and r.json()["players"] == []


@pytest.mark.parametrize(("zone", "since"), [(None, "2026-12-06T16:00:00Z"),
                                              ("UTC", "2026-11-30T00:00:00Z")])
def test_the_week_starts_on_the_platforms_calendar(start_server: StartServer,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   zone: str | None, since: str) -> None:
    """The weekly leaderboard's week starts at Monday midnight of the ``timezone`` setting,
    Wuhan's by default: at 17:00 UTC on Sunday 6 December (01:00 on Monday there) a new
    week has begun, eight hours before UTC's."""
    monkeypatch.setattr(leaderboard_api, "utcnow", lambda: datetime(2026, 12, 6, 17, 0,
                                                                    tzinfo=UTC))
    server = start_server(**({} if zone is None else {"timezone": zone}))
    r = httpx.get(f"{server.http}/api/leaderboard", params={"period": "week"}, timeout=10)
    assert r.status_code == 200, r.text
    assert datetime.fromisoformat(r.json()["since"]) == datetime.fromisoformat(since)


def test_bad_leaderboard_requests(server: Server) -> None:
    for params in ({"profile": "mahjong"}, {"profile": "yuanhang", "period": "year"}):
        r = httpx.get(f"{server.http}/api/leaderboard", params=params, timeout=10)
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request"


def test_bot_match_is_not_rated(server: Server) -> None:
    token = register(server, "solo")

    async def scenario() -> None:
        c = Client(server, token)
        await c.connect()
        await c.send({"type": "quick_match"})
        table = await c.expect("table")
        assert sum(p["bot"] for p in table["players"]) == 3
        await play(c)
        await c.close()

    asyncio.run(scenario())
    assert _ratings(server, token) == []


def test_banned_account_is_refused_a_seat(start_server: StartServer,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_admin, "POLL_SECONDS", 3600.0)  # the socket stays open
    server = start_server()
    token = register(server, "mallory")

    async def scenario() -> None:
        c = Client(server, token)
        await c.connect()
        Admin(server.store, "ops").ban("mallory")
        await c.send({"type": "quick_match"})
        error = await c.expect("error")
        assert error["code"] == "auth_failed" and "banned" in error["message"]
        await c.send({"type": "create_room", "options": {}})
        assert (await c.expect("error"))["code"] == "auth_failed"
        await c.close()

    asyncio.run(scenario())


def test_ban_closes_the_socket_and_refuses_login(start_server: StartServer,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_admin, "POLL_SECONDS", 0.05)
    server = start_server()
    token = register(server, "trudy")

    async def scenario() -> None:
        c = Client(server, token)
        await c.connect()
        Admin(server.store, "ops").ban("trudy", "abuse")
        await asyncio.wait_for(c.closed.wait(), 10)
        assert c.close_code == server_admin.BANNED_CLOSE_CODE
        async with websockets.connect(server.ws) as ws:  # the session authenticates nothing
            await ws.send(json.dumps({"type": "hello", "token": token}))
            answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert answer["type"] == "error" and answer["code"] == "auth_failed"

    asyncio.run(scenario())
    r = httpx.post(f"{server.http}/api/login",
                   json={"username": "trudy", "password": "secret-123"}, timeout=10)
    assert r.status_code == 401 and "banned" in r.json()["error"]["message"]
    r = httpx.get(f"{server.http}/api/profile", headers=_auth(token), timeout=10)
    assert r.status_code == 401
    Admin(server.store, "ops").unban("trudy")
    r = httpx.post(f"{server.http}/api/login",
                   json={"username": "trudy", "password": "secret-123"}, timeout=10)
    assert r.status_code == 200


def test_drain_stops_new_matches(start_server: StartServer,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_admin, "POLL_SECONDS", 0.05)
    server = start_server()
    admin = Admin(server.store, "ops")
    token = guest_token(server)

    def wait_for(draining: bool) -> None:
        deadline = time.monotonic() + 10
        while server.hub.draining != draining:
            assert time.monotonic() < deadline, "the server did not see the drain flag"
            time.sleep(0.02)

    admin.set_drain(True)
    wait_for(True)

    async def refused() -> None:
        c = Client(server, token)
        await c.connect()
        await c.send({"type": "quick_match"})
        error = await c.expect("error", timeout=10)
        assert error["code"] == "busy"
        await c.close()

    asyncio.run(refused())
    admin.set_drain(False)
    wait_for(False)

    async def plays() -> None:
        c = Client(server, token)
        await c.connect()
        await c.send({"type": "quick_match"})
        await c.expect("table", timeout=10)
        await play(c)
        await c.close()

    asyncio.run(plays())


def test_a_players_statistics_on_his_pages(server: Server,
                                          played_match: Callable[..., list[Any]]) -> None:
    """The public page and the profile carry the same statistics (战绩) per profile, in
    the profiles' order; only the profile says where the best hand is (for its replay)."""
    names = ["sa", "sb", "sc", "sd"]
    tokens = {n: register(server, n) for n in names}
    ids = [server.store.account_by_username(n).id for n in names]  # type: ignore[union-attr]
    played_match(server.store, "sm0", ids, "laizishanzhuang", 4)
    records = played_match(server.store, "sm1", ids, "yuanhang", 17)  # 清一色 in hand 1
    public = httpx.get(f"{server.http}/api/players/sd", timeout=10).json()["stats"]
    own = httpx.get(f"{server.http}/api/profile", headers=_auth(tokens["sd"]),
                    timeout=10).json()["stats"]
    assert [s["profile"] for s in own] == ["yuanhang", "laizishanzhuang"]
    for mine, theirs in zip(own, public, strict=True):
        assert {**mine, "best": None} == {**theirs, "best": None}
        assert (mine["matches"], mine["hands"]) == (1, 2)
        assert mine["wins"] >= mine["big_wins"] and mine["hands"] >= mine["wins"]
    best = own[0]["best"]
    assert own[0]["big_hands"] == {"qingyise": 1} and best["big_hands"] == ["qingyise"]
    assert (best["match_id"], best["hand_no"]) == ("sm1", records[1].hand_no)
    assert public[0]["best"] == {**best, "match_id": None, "hand_no": None}
    # the others' pages count their own seats
    losers = [httpx.get(f"{server.http}/api/players/{n}", timeout=10).json()["stats"][0]
              for n in names[:3]]
    assert sum(s["points"] for s in losers) == -own[0]["points"]
    # each of his wins on a discard is one of theirs dealing in
    assert sum(s["dealt_in"] for s in losers) == own[0]["wins"] - own[0]["self_drawn"] > 0


def test_a_players_public_page(server: Server, rated_match: Callable[..., None]) -> None:
    """``GET /api/players/{name}``: level, title and each rating with its place on the
    all-time leaderboard (the leaderboard's own order), nothing private; found as a login
    finds a name; 404 for nobody, a guest or a banned account, whatever the path holds."""
    names = ["pa", "pb", "pc", "pd", "pe"]
    for n in names:
        register(server, n)
    store = server.store
    ids = {n: store.account_by_username(n).id for n in names}  # type: ignore[union-attr]
    for k in range(5):
        rated_match(store, f"pm{k}", [ids[n] for n in names[:4]], [30, 10, -10, -30])
    rated_match(store, "pm5", [ids["pe"], ids["pb"], ids["pc"], ids["pd"]], [30, 0, 0, -30])
    board = httpx.get(f"{server.http}/api/leaderboard", timeout=10).json()["players"]
    assert [p["username"] for p in board] == ["pa", "pb", "pc", "pd"]

    def page(name: str) -> httpx.Response:
        return httpx.get(f"{server.http}/api/players/{name}", timeout=10)

    for line in board:
        r = page(line["username"])
        assert r.status_code == 200, r.text
        body = r.json()
        assert set(body) == {"username", "level", "title", "title_en", "rank", "rank_en",
                             "joined", "min_matches", "ratings", "stats", "playing",
                             "followed"}  # no silver, no history
        (rating,) = body["ratings"]
        curve = rating.pop("history")  # his rating before his first match and after each
        assert rating == {"profile": "yuanhang", "rating": line["rating"],
                          "matches": line["matches"], "place": line["rank"]}
        assert len(curve) == line["matches"] + 1 and curve[0]["rating"] == 1000
        assert curve[-1]["rating"] == line["rating"]
    # below the minimum: rated, without a place
    body = page("pe").json()
    assert body["ratings"][0]["matches"] == 1 and body["ratings"][0]["place"] is None
    assert body["min_matches"] == 5
    # a name as a login finds it
    assert page("PA").json()["username"] == "pa"
    assert page("ｐａ").json()["username"] == "pa"  # full-width letters
    # a banned player leaves the pages as he leaves the leaderboard, and the places close up
    Admin(store, "test").ban("pa")
    assert page("pa").status_code == 404
    assert page("pb").json()["ratings"][0]["place"] == 1
    guest = guest_token(server)
    guest_name = httpx.get(f"{server.http}/api/profile", timeout=10,
                           headers=_auth(guest)).json()["account"]["username"]
    for name in (guest_name, "nobody", "x" * 65, "%00", "..%2F..%2Fetc", "🀄" * 10):
        r = page(name)
        assert r.status_code == 404, (name, r.text)
        assert r.json()["error"]["code"] == "not_found"


def test_a_players_page_shows_the_table_he_plays_at(start_server: StartServer) -> None:
    """While a player sits at a table anyone may watch, his page names it (to watch); a
    room whose host turned watching off is not named, and nothing when he sits nowhere."""
    server = start_server(bot_wait=0.05, turn_seconds=60)
    tokens = {n: register(server, n) for n in ("tv", "hidden")}

    def playing(name: str) -> Any:
        r = httpx.get(f"{server.http}/api/players/{name}", timeout=10)
        assert r.status_code == 200, r.text
        return r.json()["playing"]

    assert playing("tv") is None

    async def scenario() -> None:
        tv = Client(server, tokens["tv"])
        await tv.connect()
        await tv.send({"type": "quick_match"})
        table = await tv.expect("table")
        now = await asyncio.to_thread(playing, "tv")
        assert now == {"table_id": table["table_id"], "profile": table["profile"],
                       "hand_no": 0, "hands": table["hands"]}
        hidden = Client(server, tokens["hidden"])
        await hidden.connect()
        await hidden.send({"type": "create_room", "options": {"hands": 1, "spectators": False}})
        await hidden.expect("room")
        await hidden.send({"type": "ready"})
        await hidden.expect("room")
        await hidden.send({"type": "start"})
        await hidden.expect("table")
        assert await asyncio.to_thread(playing, "hidden") is None
        for c in (tv, hidden):
            await c.close()

    asyncio.run(scenario())


def test_following_players_and_their_presence(start_server: StartServer) -> None:
    """``POST``/``DELETE /api/following/{name}`` and ``GET /api/following``: the players one
    follows, each online or not and at which table anyone may watch; the player page says
    whether the asker follows him.  A token is needed; oneself, nobody and a guest cannot be
    followed."""
    server = start_server(bot_wait=0.05, turn_seconds=60)
    fan, star, other = (register(server, n) for n in ("fan", "star", "other"))
    api = f"{server.http}/api"

    def call(method: str, path: str, token: str | None = fan) -> httpx.Response:
        headers = _auth(token) if token else {}
        return httpx.request(method, f"{api}{path}", headers=headers, timeout=10)

    assert call("GET", "/following").json() == {"players": [], "max": 200}
    assert call("GET", "/players/star").json()["followed"] is False
    assert call("GET", "/players/star", None).json()["followed"] is None
    # a token that is no session: the public page still, as to anyone (not a 401)
    stale = call("GET", "/players/star", "not-a-session")
    assert stale.status_code == 200 and stale.json()["followed"] is None
    assert call("POST", "/following/STAR").json() == {"username": "star", "following": True}
    assert call("POST", "/following/star").status_code == 200  # again: the same
    assert call("POST", "/following/other").status_code == 200
    assert call("GET", "/players/star").json()["followed"] is True
    assert call("GET", "/players/fan").json()["followed"] is None  # oneself
    assert call("POST", "/following/fan", star).status_code == 200  # star follows back
    listed = call("GET", "/following").json()["players"]
    assert listed == [
        {"username": "other", "online": False, "playing": None, "follows_you": False},
        {"username": "star", "online": False, "playing": None, "follows_you": True}]

    async def scenario() -> None:
        c = Client(server, star)
        await c.connect()
        players = (await asyncio.to_thread(call, "GET", "/following")).json()["players"]
        assert [p["online"] for p in players] == [False, True]
        await c.send({"type": "quick_match"})
        table = await c.expect("table")
        players = (await asyncio.to_thread(call, "GET", "/following")).json()["players"]
        assert players[1]["playing"]["table_id"] == table["table_id"]
        await c.close()

    asyncio.run(scenario())
    assert call("DELETE", "/following/other").json() == {"username": "other", "following": False}
    assert call("DELETE", "/following/other").status_code == 200
    assert [p["username"] for p in call("GET", "/following").json()["players"]] == ["star"]
    # what cannot be
    r = call("POST", "/following/fan")
    assert r.status_code == 400 and r.json()["error"]["params"]["problem"] == "self"
    guest = guest_token(server)
    guest_name = call("GET", "/profile", guest).json()["account"]["username"]
    for name in ("nobody", guest_name, "x" * 65):
        r = call("POST", f"/following/{name}")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", name
    for method, path in (("GET", "/following"), ("POST", "/following/star")):
        assert call(method, path, None).status_code == 401
    assert call("GET", "/following", other).json()["players"] == []
