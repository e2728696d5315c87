"""Random HTTP requests to every route (any method, odd path parameters, query strings,
bodies that are not JSON or not UTF-8, good and bad tokens): the server answers each with
a 2xx or 4xx, never a 500 or a dropped connection, and goes on serving."""

from __future__ import annotations

import collections
import json
import random
import typing
from pathlib import Path
from typing import Any

import httpx
import pytest

import wuhan_mahjong
from wuhan_mahjong.server.app import HttpErrorCode
from wuhan_mahjong.store.admin import Admin

from .harness import StartServer, register

ERROR_CODES = set(typing.get_args(HttpErrorCode))
WEB = Path(wuhan_mahjong.__file__).resolve().parent / "web"  # the client's files, as served

PATHS = ["/api/register", "/api/login", "/api/guest", "/api/upgrade", "/api/logout",
         "/api/password", "/api/account/close", "/api/profile", "/api/matches/{m}/hands",
         "/api/matches/{m}/hands/{h}",
         "/api/health", "/api/hint", "/api/score", "/api/hand", "/api/leaderboard", "/healthz",
         "/readyz", "/metrics", "/api/hands/{m}/{h}/publish", "/api/public/hands/{m}/{h}",
         "/api/public/hands/{m}/{h}/record.jsonl", "/api/public/hands/{m}/{h}/frames",
         "/api/matches/{m}/hands/{h}/frames", "/api/rules", "/api/tables/live", "/api/players/{m}",
         "/api/tournaments", "/api/tournaments/{h}", "/api/tournaments/{h}/join",
         "/api/tournaments/{h}/start", "/api/tournaments/{m}/withdraw", "/api/account/export",
         "/api/account/export/records.jsonl", "/api/reports", "/api/matches/{m}/hands/{h}/review",
         "/api/public/hands/{m}/{h}/review", "/api/blocks", "/api/blocks/{m}",
         "/api/puzzles/{m}/{h}", "/api/puzzles/yuanhang/{h}", "/api/puzzles/{m}/{h}/answer",
         "/api/puzzles/bianfeng/{h}/answer", "/api/puzzles/daily", "/api/puzzles/stats",
         "/api/puzzles/win/{m}/{h}", "/api/puzzles/win/yuanhang/{h}/answer",
         "/api/puzzles/win/daily", "/api/puzzles/history", "/api/clubs", "/api/clubs/{c}",
         "/api/clubs/{c}/standings", "/api/clubs/{c}/apply", "/api/clubs/{c}/leave",
         "/api/clubs/{c}/members", "/api/clubs/{c}/settings", "/api/clubs/{c}/transfer",
         "/api/clubs/{c}/dissolve", "/api/staff", "/api/staff/reports",
         "/api/staff/reports/{h}/close", "/api/staff/accounts/{m}", "/api/staff/accounts/someone",
         "/api/staff/tables", "/api/staff/clubs", "/api/staff/clubs/{c}/dissolve",
         "/api/staff/tournaments", "/api/staff/tournaments/{h}/cancel", "/api/staff/fairplay",
         "/api/staff/log", "/api/staff/audit", "/api/staff/announcement",
         "/api/staff/matches/{m}", "/api/staff/matches/{m}/hands/{h}/frames",
         "/",
         "/index.html", "/../../etc/passwd", "/api/nothing", "/x%00y"]
MATCH_IDS = ["abc", "0" * 32, "%00", "a%00b", "..", "x" * 500, "🀄", "a%20b", "%ff"]
HAND_NOS = ["0", "1", "-1", str(2**40), str(10**30)]
CLUB_NUMBERS = ["000000", "123456", "1e5", "%EF%BC%91%EF%BC%92%EF%BC%93%EF%BC%94%EF%BC%95%EF%BC%96",
                "9" * 40]
"""Club numbers besides the fuzzer's own club's (which the test adds)."""
VALUES: list[Any] = [None, True, 0, -1, 2**63, 10**40, 1.5, "", "x" * 3000, "🀄", "\ud800", [],
                     {}, [1], {"a": 1}, "fuzzer", "secret-123", "yuanhang", "all", "week", "a\x00b",
                     "fuzzer\x00", "\x00" * 9, "9" * 5000]
FIELDS = ["username", "password", "old", "new", "hand", "indicator", "melds", "profile",
          "options", "token", "public", "name", "rounds", "hands", "capacity", "reason",
          "match_id", "seat", "discard", "win", "kind", "notice", "action", "amount", "role",
          "note", "text", "on"]
QUERY = ["profile", "period", "limit", "offset", "q", "since", "seat", "kind", "wrong", "all",
         "min_wins", "days"]
RAW_BODIES = [b"{", b"\xff\xfe", b"[]" * 5000, b"null", b'{"a": ' * 200]


@pytest.mark.parametrize("web", [False, True])
def test_random_requests_get_answers_not_errors(start_server: StartServer, web: bool) -> None:
    """``web``: with the client's files mounted at "/", as served."""
    server = start_server(calc_rate=1e6, calc_burst=10**6, **({"web_dir": WEB} if web else {}))
    token = register(server, "fuzzer")
    register(server, "someone")
    Admin(server.store, "root").set_role("fuzzer", "admin")  # the staff routes, not only 403s
    club = httpx.post(f"{server.http}/api/clubs", json={"name": "fuzzers"}, timeout=10,
                      headers={"Authorization": f"Bearer {token}"}).json()["number"]
    rng = random.Random(20261203)
    codes: collections.Counter[int] = collections.Counter()
    with httpx.Client(base_url=server.http, timeout=30) as client:
        for _ in range(1500):
            path = (rng.choice(PATHS).replace("{m}", rng.choice(MATCH_IDS))
                    .replace("{h}", rng.choice(HAND_NOS))
                    .replace("{c}", rng.choice([*CLUB_NUMBERS, str(club), str(club)])))
            headers = {}
            if rng.random() < 0.6:
                headers["Authorization"] = "Bearer " + rng.choice([token, "nope", token + "x"])
            params = {rng.choice(QUERY): str(rng.choice(VALUES)) for _ in range(rng.randrange(3))}
            roll = rng.random()
            body = (json.dumps({rng.choice(FIELDS): rng.choice(VALUES)
                                for _ in range(rng.randrange(4))}).encode() if roll < 0.6
                    else rng.choice(RAW_BODIES) if roll < 0.7 else None)
            try:
                request = client.build_request(rng.choice(["GET", "POST", "DELETE", "PUT"]), path,
                                               headers=headers, params=params, content=body)
            except UnicodeEncodeError:  # a lone surrogate in the query: no client sends that
                continue
            response = client.send(request)
            codes[response.status_code] += 1
            assert response.status_code < 500, (request.method, path, params, body, response.text)
            sent = request.url.path  # as sent: /api/players/.. goes as /api
            if response.status_code >= 400 and (sent == "/api" or sent.startswith("/api/")):
                # every API answer has the API's error shape, routing's own 404 and 405 too
                assert response.json()["error"]["code"] in ERROR_CODES, (request.method, path,
                                                                         response.text)
        assert client.get("/api/health").status_code == 200
    assert codes[200] and codes[400] and codes[401] and codes[404] and codes[405], codes


def test_a_nul_in_typed_text_is_a_miss_not_an_error(start_server: StartServer) -> None:
    """PostgreSQL refuses a NUL in any query text (an error, not an empty answer), so a
    name or a match id with one must be answered before the database is asked: a login
    fails as a wrong password does, a hand is not found.  (Both were 500s on PostgreSQL.)"""
    server = start_server()
    register(server, "someone")
    with httpx.Client(base_url=server.http, timeout=30) as client:
        for name in ("some\x00one", "\x00"):
            r = client.post("/api/login", json={"username": name, "password": "secret-123"})
            assert r.status_code == 401 and r.json()["error"]["code"] == "authentication_failed"
        r = client.post("/api/register", json={"username": "a\x00b", "password": "secret-123"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_credentials"
        for path in ("/api/public/hands/a%00b/1", "/api/public/hands/a%00b/1/record.jsonl",
                     "/api/public/hands/a%00b/1/frames", "/api/players/some%00one"):
            r = client.get(path)
            assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", path
        auth = {"Authorization": f"Bearer {register(server, 'another')}"}
        Admin(server.store, "root").set_role("another", "admin")
        for path in ("/api/staff/accounts/some%00one", "/api/staff/matches/a%00b",
                     "/api/staff/matches/a%00b/hands/1/frames"):
            r = client.get(path, headers=auth)
            assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", path
        for path in ("/api/matches/a%00b/hands", "/api/matches/a%00b/hands/1",
                     "/api/matches/a%00b/hands/1/frames", "/api/hands/a%00b/1/publish",
                     "/api/matches/a%00b/hands/1/review"):
            r = client.get(path, headers=auth)
            assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", path
        for report in ({"reason": "collusion", "match_id": "a\x00b", "seat": 1},
                       {"reason": "name", "username": "some\x00one"}):
            r = client.post("/api/reports", json=report, headers=auth)
            assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", report


@pytest.mark.parametrize("web", [False, True])
def test_routing_errors_under_api_are_json(start_server: StartServer, web: bool) -> None:
    """A path no route matches and a route asked with another method answer, under
    ``/api/``, in the API's error shape (Starlette's plain text before); the client's
    files keep the plain 404.  With the client's files mounted at "/" (``web``, as
    served), the mount matched ``GET /api/login`` too and answered 404."""
    server = start_server(**({"web_dir": WEB} if web else {}))
    with httpx.Client(base_url=server.http, timeout=30) as client:
        r = client.get("/api")  # what /api/x/.. comes to: plain text before
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", r.text
        r = client.get("/api/nothing/here")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        r = client.get("/api/login")
        assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"
        assert r.headers["allow"] == "POST"
        r = client.post("/api/nothing/here", json={})
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        assert "allow" not in r.headers
        r = client.get("/api/leaderboard", params={"profile": "yuanhang"})
        assert r.status_code == 200  # a right method still reaches its route
        r = client.get("/no-such-file.js")
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/plain")


def test_an_unexpected_fault_under_api_is_a_json_500(start_server: StartServer,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A fault no handler expects (here the health answer's model breaks) is a 500 in the
    API's error shape, not Starlette's plain text, and the server goes on serving."""
    server = start_server()

    def broken(**_: Any) -> None:
        raise RuntimeError("a fault")

    with httpx.Client(base_url=server.http, timeout=30) as client:
        monkeypatch.setattr("wuhan_mahjong.server.app.HealthOut", broken)
        r = client.get("/api/health")
        assert r.status_code == 500 and r.json()["error"]["code"] == "server_error"
    monkeypatch.undo()
    with httpx.Client(base_url=server.http, timeout=30) as client:  # uvicorn closed that one
        assert client.get("/api/health").json()["ok"] is True


def test_a_path_number_of_thousands_of_digits_is_a_404(start_server: StartServer) -> None:
    """A hand's or a puzzle's number in the path is read by the routing itself; Starlette's
    ``{n:int}`` handed any run of digits to ``int``, which refuses more than 4,300: every
    route of a number answered a number of 5,000 digits with a 500 (on any method, signed
    in or not).  It is no such hand or puzzle now, in the API's error shape."""
    server = start_server()
    auth = {"Authorization": f"Bearer {register(server, 'someone')}"}
    Admin(server.store, "root").set_role("someone", "admin")
    big = "9" * 5000
    with httpx.Client(base_url=server.http, timeout=30, headers=auth) as client:
        for path in (f"/api/matches/abc/hands/{big}", f"/api/matches/abc/hands/{big}/frames",
                     f"/api/matches/abc/hands/{big}/review", f"/api/hands/abc/{big}/publish",
                     f"/api/public/hands/abc/{big}", f"/api/public/hands/abc/{big}/frames",
                     f"/api/public/hands/abc/{big}/record.jsonl",
                     f"/api/public/hands/abc/{big}/review", f"/api/puzzles/yuanhang/{big}",
                     f"/api/puzzles/win/yuanhang/{big}", f"/api/staff/matches/abc/hands/{big}/frames"):
            for method in ("GET", "POST"):
                r = client.request(method, path, json={})
                assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", (
                    method, path[:60], r.status_code, r.text)
        for path in ("/api/puzzles/yuanhang/1", "/api/matches/abc/hands/123456789012345678"):
            assert client.get(path).status_code in (200, 404)  # a number of a few digits: as before
        assert client.get("/api/health").status_code == 200
