"""``POST /api/account/close`` (注销账号) through the real server: the password is asked
for (a wrong one counts as a failed login), the open socket is told and closed, the token
and the name stop working, the public page goes, the name is free again; refused while the
player sits at a running table; a guest closes with his session; an operator's ``admin
close`` closes the running server's socket too.  SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

import httpx
import pytest

import wuhan_mahjong.server.admin as server_admin
from wuhan_mahjong.store.admin import Admin
from wuhan_mahjong.store.closing import closed_name

from .harness import Client, Server, StartServer, guest_token, register, seat_four

PASSWORD = "secret-123"


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _close(server: Server, token: str, body: object) -> httpx.Response:
    return httpx.post(f"{server.http}/api/account/close", json=body, headers=_auth(token),
                      timeout=10)


def test_a_player_closes_his_account(server: Server) -> None:
    token = register(server, "zoe")
    account = server.store.account_by_username("zoe")
    assert account is not None

    async def scenario() -> None:
        c = Client(server, token)
        await c.connect()
        wrong = await asyncio.to_thread(_close, server, token, {"password": "not it"})
        assert wrong.status_code == 401
        assert wrong.json()["error"]["code"] == "authentication_failed"
        missing = await asyncio.to_thread(_close, server, token, {})
        assert missing.status_code == 401
        bad = await asyncio.to_thread(_close, server, token, {"password": 7})
        assert bad.status_code == 400
        ok = await asyncio.to_thread(_close, server, token, {"password": PASSWORD})
        assert ok.status_code == 200 and ok.json() == {"ok": True}
        notice = await c.expect("notice")
        assert notice["code"] == "logged_out"
        await asyncio.wait_for(c.closed.wait(), 10)

    asyncio.run(scenario())
    assert httpx.get(f"{server.http}/api/profile", headers=_auth(token),
                     timeout=10).status_code == 401
    login = httpx.post(f"{server.http}/api/login", json={"username": "zoe",
                                                          "password": PASSWORD}, timeout=10)
    assert login.status_code == 401
    for name in ("zoe", closed_name(account.id)):
        assert httpx.get(f"{server.http}/api/players/{name}", timeout=10).status_code == 404
    assert server.store.audit().ok
    register(server, "zoe")  # the name is free again, for a new account
    again = server.store.account_by_username("zoe")
    assert again is not None and again.id != account.id


def test_not_while_seated_at_a_running_table(server: Server) -> None:
    tokens = [register(server, f"seat{k}") for k in range(4)]

    async def scenario() -> None:
        clients = await seat_four(server, tokens, hands=1)
        r = await asyncio.to_thread(_close, server, tokens[1], {"password": PASSWORD})
        assert r.status_code == 409 and r.json()["error"]["code"] == "in_match"
        for c in clients:
            await c.close()

    asyncio.run(scenario())
    assert server.store.account_by_username("seat1") is not None
    # being seated (a table starting, its match not yet in the database) is refused too
    waiting = register(server, "starting")
    account = server.store.account_by_username("starting")
    assert account is not None
    server.hub.where.starting(account.id)
    try:
        r = _close(server, waiting, {"password": PASSWORD})
        assert r.status_code == 409 and r.json()["error"]["code"] == "in_match"
    finally:
        server.hub.where.leave(account.id)
    assert _close(server, waiting, {"password": PASSWORD}).status_code == 200


def test_a_guest_closes_with_his_session(server: Server) -> None:
    token = guest_token(server)
    assert _close(server, token, {}).status_code == 200
    assert httpx.get(f"{server.http}/api/profile", headers=_auth(token),
                     timeout=10).status_code == 401


def test_an_operator_closing_closes_the_socket(start_server: StartServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_admin, "POLL_SECONDS", 0.05)
    server = start_server()
    token = register(server, "yuri")

    async def scenario() -> None:
        c = Client(server, token)
        await c.connect()
        await asyncio.to_thread(Admin(server.store, "ops").close, "yuri", "asked by mail")
        await asyncio.wait_for(c.closed.wait(), 10)
        assert c.close_code == 4401

    asyncio.run(scenario())
    assert httpx.get(f"{server.http}/api/profile", headers=_auth(token),
                     timeout=10).status_code == 401
