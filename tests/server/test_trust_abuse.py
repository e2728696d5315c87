"""Abuse limits (issue 10, findings 4, 5, 6's socket part and 7), on a real server.

Forged proxy headers, sign-up and hint floods, tokens in URLs and logs, sessions that
outlive a logout, look-alike names, common passwords, oversized numbers, lone
surrogates and missing security headers.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import httpx
import pytest
import websockets

from wuhan_mahjong.server.security import RedactTokens

from .harness import Client, Server, StartServer, guest_token, register, seat_four


def _login(server: Server, user: str, pw: str, forwarded: str) -> httpx.Response:
    return httpx.post(f"{server.http}/api/login", json={"username": user, "password": pw},
                      headers={"X-Forwarded-For": forwarded}, timeout=10)


def test_a_forged_forwarded_for_does_not_reset_the_login_lockout(start_server: StartServer) -> None:
    server = start_server(login_failures=3, login_failures_per_client=100)
    register(server, "wangwu", "right-pw-1")
    codes = [_login(server, "wangwu", "guess", f"10.0.0.{i}").status_code for i in range(5)]
    assert codes == [401, 401, 401, 429, 429]  # every "address" is the real peer's
    assert _login(server, "wangwu", "right-pw-1", "10.9.9.9").status_code == 429


def test_proxy_headers_are_believed_from_listed_proxies_only(start_server: StartServer) -> None:
    server = start_server(login_failures=3, login_failures_per_client=100,
                          forwarded_allow_ips=("127.0.0.1",))
    register(server, "zhaoliu", "right-pw-2")
    for _ in range(3):
        assert _login(server, "zhaoliu", "guess", "10.0.0.1").status_code == 401
    assert _login(server, "zhaoliu", "guess", "10.0.0.1").status_code == 429
    # another client behind the trusted proxy is another address
    assert _login(server, "zhaoliu", "right-pw-2", "10.0.0.2").status_code == 200


def test_sign_ups_are_limited_per_address(start_server: StartServer) -> None:
    server = start_server(register_per_hour=2, guests_per_hour=3)
    api = f"{server.http}/api"
    codes = [httpx.post(f"{api}/register", json={"username": f"signup{i}", "password": "secret-123"})
             .status_code for i in range(3)]
    assert codes == [201, 201, 429]
    guests = [httpx.post(f"{api}/guest") for _ in range(4)]
    assert [r.status_code for r in guests] == [201, 201, 201, 429]
    refused = guests[-1]
    assert refused.json()["error"]["code"] == "rate_limited" and int(refused.headers["Retry-After"]) > 0


def test_hints_are_limited_and_cached_per_state(start_server: StartServer) -> None:
    server = start_server(hint_rate=0.01, hint_burst=3)
    tokens = [guest_token(server) for _ in range(4)]

    async def scenario() -> list[int]:
        clients = await seat_four(server, tokens, hands=1, turn_seconds=30)
        await clients[0].expect("state")
        auth = {"Authorization": f"Bearer {tokens[0]}"}

        def ask() -> int:
            return httpx.get(f"{server.http}/api/hint", headers=auth, timeout=30).status_code

        codes = [await asyncio.to_thread(ask) for _ in range(5)]
        for c in clients:
            await c.close()
        return codes

    computed_before = server.app.state.hint_cache.computed
    assert asyncio.run(scenario()) == [200, 200, 200, 429, 429]
    # nobody moved (the turn timer is long): one state, one computation
    assert server.app.state.hint_cache.computed - computed_before == 1


def test_tokens_never_in_urls_and_redacted_from_logs(server: Server) -> None:
    token = guest_token(server)

    async def scenario() -> None:
        async with websockets.connect(f"{server.ws}?token={token}") as ws:
            err = json.loads(await ws.recv())
            assert err["code"] == "auth_failed" and "URL" in err["message"]
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        c = Client(server, token)  # the header works
        assert (await c.connect(via_header=True))["type"] == "welcome"
        await c.close()

    asyncio.run(scenario())
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1,
                               '%s - "%s %s HTTP/%s" %d', ("1.2.3.4", "GET", f"/ws?token={token}&x=1",
                                                           "1.1", 403), None)
    assert RedactTokens().filter(record)
    assert token not in record.getMessage() and "token=[redacted]&x=1" in record.getMessage()


def test_logout_and_password_change_close_the_sockets(server: Server) -> None:
    token = register(server, "lisi", "first-password-1")
    api = f"{server.http}/api"

    async def scenario() -> None:
        c = Client(server, token)
        await c.connect()
        r = await asyncio.to_thread(httpx.post, f"{api}/logout",
                                    headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200
        assert (await c.expect("notice"))["code"] == "logged_out"
        await asyncio.wait_for(c.closed.wait(), 5)
        assert c.close_code == 4401
        # a password change ends every session, and their sockets
        logins = [httpx.post(f"{api}/login", json={"username": "lisi", "password": "first-password-1"})
                  .json()["token"] for _ in range(2)]
        d = Client(server, logins[0])
        await d.connect()
        r = await asyncio.to_thread(
            httpx.post, f"{api}/password", headers={"Authorization": f"Bearer {logins[1]}"},
            json={"old_password": "first-password-1", "new_password": "second-password-2"})
        assert r.status_code == 200
        fresh = r.json()["token"]
        # a wrong old password counts as a failed login (the lock-out applies)
        codes = [httpx.post(f"{api}/password", headers={"Authorization": f"Bearer {fresh}"},
                            json={"old_password": f"guess-{k}", "new_password": "third-password-3"}
                            ).status_code for k in range(6)]
        assert codes == [401] * 5 + [429]
        await asyncio.wait_for(d.closed.wait(), 5)
        assert d.close_code == 4401
        for old in logins:
            assert httpx.get(f"{api}/profile", headers={"Authorization": f"Bearer {old}"}
                             ).status_code == 401
        assert httpx.get(f"{api}/profile", headers={"Authorization": f"Bearer {fresh}"}
                         ).status_code == 200

    asyncio.run(scenario())


@pytest.mark.parametrize(("username", "password", "status", "code"), [
    ("\u0430dmin", "secret-123", 400, "invalid_credentials"),  # Cyrillic а: looks like "admin"
    ("Alice", "secret-123", 201, None),
    ("\u0410lice", "secret-123", 409, "username_taken"),  # Cyrillic А: looks like "Alice"
    ("ALlCE", "secret-123", 409, "username_taken"),  # l for I
    ("ab\u3164cd", "secret-123", 400, "invalid_credentials"),  # a Hangul filler: invisible
    ("ab\u200bcd", "secret-123", 400, "invalid_credentials"),  # zero-width space
    ("bob", "123456", 400, "invalid_credentials"),
    ("bob", "password1", 400, "invalid_credentials"),
    ("bob", "aaaaaaaa", 400, "invalid_credentials"),
    ("bob", "short-1", 400, "invalid_credentials"),
    ("bob", "mahjong-4-ever", 201, None),
])
def test_usernames_and_passwords(start_server: StartServer, username: str, password: str,
                                 status: int, code: str | None) -> None:
    server = start_server(register_per_hour=0)
    if username not in ("Alice", "bob"):
        register(server, "Alice")
    r = httpx.post(f"{server.http}/api/register", json={"username": username, "password": password})
    assert r.status_code == status, r.text
    if status == 201:  # a guest's upgrade takes the same rules
        guest = {"Authorization": f"Bearer {guest_token(server)}"}
        again = httpx.post(f"{server.http}/api/upgrade", headers=guest,
                           json={"username": username.upper(), "password": password})
        assert again.status_code == 409
    if code is not None:
        assert r.json()["error"]["code"] == code


def test_oversized_numbers_and_bad_unicode(server: Server) -> None:
    token = guest_token(server)
    auth = {"Authorization": f"Bearer {token}"}
    for path in (f"/api/matches/x/hands/{2**64}", f"/api/matches/x/hands/{2**31}",
                 f"/api/matches/{'x' * 500}/hands/0", f"/api/matches/{'x' * 500}/hands"):
        assert httpx.get(f"{server.http}{path}", headers=auth).status_code == 404, path
    bad = b'{"username": "ab\\ud800", "password": "secret-123"}'
    assert httpx.post(f"{server.http}/api/register", content=bad).status_code == 400

    async def scenario() -> list[dict[str, Any]]:
        c = Client(server, token)
        await c.connect()
        for text in ('{"type": "ping", "ref": "\\ud800"}',
                     '{"type": "join_room", "code": "\\udfff12345", "ref": "j"}',
                     '{"type": "action", "action": {"type": "pass"}, "hand_no": 18446744073709551617}'):
            await c.send(text)
            await c.expect("error")
        await c.send({"type": "ping", "ref": "alive"})
        pong = await c.expect("pong")
        await c.close()
        return [pong, *c.of_type("error")]

    pong, *errors = asyncio.run(scenario())
    assert pong["ref"] == "alive"
    assert [e["code"] for e in errors] == ["invalid_message"] * 3
    assert "lone surrogate" in errors[0]["message"] and errors[0]["ref"] is None


def test_security_headers_on_every_response(server: Server) -> None:
    token = guest_token(server)
    for method, path, headers in (("GET", "/", {}), ("GET", "/api/health", {}),
                                  ("GET", "/no-such-file.js", {}), ("GET", "/api/profile", {}),
                                  ("POST", "/api/login", {}),
                                  ("GET", "/api/profile", {"Authorization": f"Bearer {token}"})):
        r = httpx.request(method, f"{server.http}{path}", headers=headers, json={})
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert "unsafe-inline" not in csp and "object-src 'none'" in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
        assert r.headers["x-frame-options"] == "DENY"


def test_match_records_and_the_publish_switch_share_the_replay_allowance(
        start_server: StartServer) -> None:
    """A player's own match records (``/api/matches/...``) and the publish switch are
    database reads like the replays: they count against the same per-address allowance
    (they had none: a client could ask them in a loop)."""
    server = start_server(replay_rate=0.001, replay_burst=4)
    auth = {"Authorization": f"Bearer {guest_token(server)}"}
    paths = ["/api/matches/m1/hands", "/api/matches/m1/hands/0",
             "/api/hands/m1/0/publish", "/api/matches/m1/hands"]
    answers = [httpx.get(server.http + p, headers=auth, timeout=10) for p in paths]
    assert [a.status_code for a in answers] == [404, 404, 404, 404]
    for path in ("/api/matches/m1/hands", "/api/matches/m1/hands/0", "/api/hands/m1/0/publish"):
        refused = httpx.get(server.http + path, headers=auth, timeout=10)
        assert refused.status_code == 429, (path, refused.text)
        assert refused.json()["error"]["code"] == "rate_limited"
        assert int(refused.headers["Retry-After"]) > 0
    posted = httpx.post(server.http + "/api/hands/m1/0/publish", headers=auth, timeout=10)
    assert posted.status_code == 429
