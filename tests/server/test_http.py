"""The HTTP API: accounts, profile (level from the §18 table), records, static files; the CLI."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from .harness import Server, StartServer, free_port


def test_accounts_and_profile(server: Server) -> None:
    api = f"{server.http}/api"
    r = httpx.post(f"{api}/register", json={"username": "张三", "password": "secret-1"})
    assert r.status_code == 201
    token = r.json()["token"]
    assert r.json()["account"]["silver"] == 1000
    assert httpx.post(f"{api}/register", json={"username": "张三", "password": "secret-2"}
                      ).status_code == 409
    bad = httpx.post(f"{api}/register", json={"username": "1x", "password": "secret-2"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_credentials"
    assert httpx.post(f"{api}/register", json={"username": "x"}).status_code == 400
    assert httpx.post(f"{api}/register", content=b"{not json").status_code == 400
    assert httpx.post(f"{api}/login", json={"username": "张三", "password": "wrong-pw"}
                      ).status_code == 401
    login = httpx.post(f"{api}/login", json={"username": "张三", "password": "secret-1"})
    assert login.status_code == 200
    auth = {"Authorization": f"Bearer {login.json()['token']}"}
    profile = httpx.get(f"{api}/profile", headers=auth).json()
    acct = profile["account"]
    assert (acct["username"], acct["level"], acct["title"], acct["rank"]) == ("张三", 1, "待业", "麻袋")
    assert acct["title_en"] == "Unemployed" and profile["points_to_next_level"] == 100
    assert profile["history"] == []
    assert httpx.get(f"{api}/profile").status_code == 401
    assert httpx.post(f"{api}/logout", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert httpx.get(f"{api}/profile", headers={"Authorization": f"Bearer {token}"}
                     ).status_code == 401
    assert httpx.get(f"{api}/profile", headers=auth).status_code == 200


def test_guest_upgrade_and_records_are_private(server: Server) -> None:
    api = f"{server.http}/api"
    g = httpx.post(f"{api}/guest").json()
    assert g["account"]["is_guest"] is True and g["account"]["username"].startswith("guest")
    auth = {"Authorization": f"Bearer {g['token']}"}
    up = httpx.post(f"{api}/upgrade", headers=auth, json={"username": "lisi", "password": "secret-9"})
    assert up.status_code == 200 and up.json()["account"]["is_guest"] is False
    assert httpx.post(f"{api}/upgrade", headers=auth, json={"username": "lisi2", "password": "secret-9"}
                      ).status_code == 400
    assert httpx.get(f"{api}/matches/nope/hands", headers=auth).status_code == 404
    assert httpx.get(f"{api}/matches/nope/hands/0", headers=auth).status_code == 404
    health = httpx.get(f"{api}/health").json()
    assert health["ok"] is True and health["protocol"] == 1


def test_static_client_and_placeholder(start_server: StartServer, tmp_path: Path) -> None:
    bare = start_server()
    page = httpx.get(f"{bare.http}/")
    assert page.status_code == 200 and "game server is running" in page.text
    (tmp_path / "index.html").write_text("<html>the client</html>")
    (tmp_path / "app.js").write_text("console.log(1)")
    web = start_server(web_dir=tmp_path)
    assert httpx.get(f"{web.http}/").text == "<html>the client</html>"
    assert httpx.get(f"{web.http}/app.js").text == "console.log(1)"
    assert httpx.get(f"{web.http}/missing.js").status_code == 404
    # after an upgrade no browser may run a cached client without asking: every file is
    # "no-cache" (revalidated each time, a 304 while unchanged)
    for server, path in ((bare, "/"), (web, "/"), (web, "/app.js")):
        assert httpx.get(f"{server.http}{path}").headers["cache-control"] == "no-cache", path
    etag = httpx.get(f"{web.http}/app.js").headers["etag"]
    again = httpx.get(f"{web.http}/app.js", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.headers["cache-control"] == "no-cache"


@pytest.mark.slow
def test_serve_command(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "WUHAN_MAHJONG_DB"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "wuhan_mahjong", "serve", "--port", str(port), "--data-dir",
         str(tmp_path / "d"), "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert f"sqlite:///{tmp_path / 'd' / 'wuhan_mahjong.db'}" in first
        for _ in range(100):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        else:
            raise AssertionError("serve did not answer")
    finally:
        proc.terminate()
        proc.wait(10)
    assert (tmp_path / "d" / "wuhan_mahjong.db").exists()
    bad = subprocess.run([sys.executable, "-m", "wuhan_mahjong", "serve", "--db", "mysql://x/y"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert bad.returncode == 2 and "cannot open the database" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_hint_for_the_own_hand_only_while_playing(server: Server) -> None:
    """GET /api/hint: help computed from the caller's own seat view at his table."""
    from wuhan_mahjong.bots.hints import hint

    from .harness import Client, guest_token, seat_four

    tokens = [guest_token(server) for _ in range(4)]
    outsider = guest_token(server)

    async def scenario() -> tuple[dict[str, object], dict[str, object], httpx.Response]:
        clients: list[Client] = await seat_four(server, tokens, hands=1, turn_seconds=30)
        first = await clients[0].expect("state")
        got = await asyncio.to_thread(
            httpx.get, f"{server.http}/api/hint",
            headers={"Authorization": f"Bearer {tokens[0]}"})
        missing = await asyncio.to_thread(
            httpx.get, f"{server.http}/api/hint",
            headers={"Authorization": f"Bearer {outsider}"})
        for c in clients:
            await c.close()
        return first["view"], got.json(), missing

    view, got, missing = asyncio.run(scenario())
    # no hand, no help: an answer, not an error (a request may race the end of a hand)
    assert missing.status_code == 200
    assert missing.json() == {"hint": None, "reason": "no hint now: you are not playing a hand"}
    # nobody has acted yet (the turn timer is long), so the view is the one the hint read
    assert got == hint(view)  # type: ignore[arg-type]
    assert isinstance(got["shanten"], int) and got["shanten"] >= 0


def test_no_hint_between_hands_is_an_answer(start_server: StartServer) -> None:
    """A player still at the table whose hand has just ended (a request racing the end of
    the hand) gets "no hint now" with status 200, not an error."""
    from .harness import guest_token, play, seat_four

    server = start_server(hand_pause=60.0)  # the next hand waits: the table stays between hands
    tokens = [guest_token(server) for _ in range(4)]

    async def scenario() -> httpx.Response:
        clients = await seat_four(server, tokens, hands=2)
        await asyncio.gather(*(play(c, seed=i, until="hand_end") for i, c in enumerate(clients)))
        answer = await asyncio.to_thread(httpx.get, f"{server.http}/api/hint",
                                         headers={"Authorization": f"Bearer {tokens[0]}"})
        for c in clients:
            await c.close()
        return answer

    answer = asyncio.run(scenario())
    assert answer.status_code == 200
    assert answer.json() == {"hint": None, "reason": "no hint now: you are not playing a hand"}


@pytest.mark.slow
def test_password_guessing_is_locked_out(start_server: StartServer) -> None:
    """The window is long (a minute) so that the count never depends on how fast this
    machine answers: CI once spent more than a 1.5 s window on six logins (password hashing
    on a busy machine), the first failure expired, and the sixth was not refused."""
    server = start_server(login_failures=3, login_failures_per_client=6, login_window=60.0)
    api = f"{server.http}/api"
    assert httpx.post(f"{api}/register", json={"username": "wangwu", "password": "right-pw1"}
                      ).status_code == 201
    assert httpx.post(f"{api}/register", json={"username": "zhaoliu", "password": "right-pw2"}
                      ).status_code == 201

    def login(user: str, pw: str) -> httpx.Response:
        return httpx.post(f"{api}/login", json={"username": user, "password": pw})

    # a success does not count, and clears earlier failures of that username
    assert login("wangwu", "guess-1").status_code == 401
    assert login("wangwu", "right-pw1").status_code == 200
    for k in range(3):
        assert login("wangwu", f"guess-{k}").status_code == 401
    locked = login("wangwu", "right-pw1")  # even the right password waits
    assert locked.status_code == 429
    assert locked.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(locked.headers["Retry-After"]) <= 60
    # another username from the same address still logs in, until the address's own limit
    assert login("zhaoliu", "right-pw2").status_code == 200
    assert login("zhaoliu", "guess-x").status_code == 401
    assert login("nobody", "guess-y").status_code == 401
    assert login("zhaoliu", "right-pw2").status_code == 429  # 6 failures from this address


@pytest.mark.slow
def test_a_login_lock_ends_when_its_window_has_passed(start_server: StartServer) -> None:
    """The lock lifts by itself. The only timing here is a lower bound (a sleep), so a slow
    machine cannot make the test fail; the lock is asserted only while its window runs."""
    window = 2.0
    server = start_server(login_failures=1, login_failures_per_client=10, login_window=window)
    api = f"{server.http}/api"
    assert httpx.post(f"{api}/register", json={"username": "wangwu", "password": "right-pw1"}
                      ).status_code == 201

    def login(pw: str) -> httpx.Response:
        return httpx.post(f"{api}/login", json={"username": "wangwu", "password": pw})

    before = time.monotonic()
    assert login("guess-1").status_code == 401
    locked = login("right-pw1")
    if time.monotonic() - before < window:  # answered inside the window: it must be a lock
        assert locked.status_code == 429
        assert 1 <= int(locked.headers["Retry-After"]) <= 2
    time.sleep(window + 0.1)
    assert login("right-pw1").status_code == 200
