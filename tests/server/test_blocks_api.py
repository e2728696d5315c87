"""``/api/blocks`` (屏蔽) through the real server: a player blocks another, the list says so,
their follows are gone and neither may follow (so invite) the other, as for nobody by that
name; lifting the block allows it again; bad names and no token are clear errors.  SQLite
and PostgreSQL."""

from __future__ import annotations

import httpx

from .harness import Server, guest_token, register


def _call(server: Server, method: str, path: str, token: str | None) -> httpx.Response:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    return httpx.request(method, f"{server.http}{path}", headers=headers, timeout=10)


def test_blocking_a_player(server: Server) -> None:
    amy, ben = register(server, "blk-amy"), register(server, "blk-ben")
    assert _call(server, "POST", "/api/following/blk-ben", amy).status_code == 200
    assert _call(server, "POST", "/api/following/blk-amy", ben).status_code == 200
    r = _call(server, "POST", "/api/blocks/BLK-BEN", amy)
    assert r.status_code == 200 and r.json() == {"username": "blk-ben", "blocked": True}
    assert _call(server, "GET", "/api/blocks", amy).json() == {"players": ["blk-ben"]}
    assert _call(server, "GET", "/api/blocks", ben).json() == {"players": []}
    assert _call(server, "GET", "/api/following", amy).json()["players"] == []
    for token, name in ((amy, "blk-ben"), (ben, "blk-amy")):
        refused = _call(server, "POST", f"/api/following/{name}", token)
        assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"
    for path, token, status in (("/api/blocks/blk-amy", amy, 400),  # oneself
                                ("/api/blocks/nobody", amy, 404),
                                ("/api/blocks/a%00b", amy, 404),
                                ("/api/blocks/blk-ben", None, 401),
                                ("/api/blocks", None, 401)):
        method = "GET" if path == "/api/blocks" else "POST"
        assert _call(server, method, path, token).status_code == status, path
    guest = guest_token(server)
    guest_name = _call(server, "GET", "/api/profile", guest).json()["account"]["username"]
    assert _call(server, "POST", f"/api/blocks/{guest_name}", amy).status_code == 404
    r = _call(server, "DELETE", "/api/blocks/blk-ben", amy)
    assert r.status_code == 200 and r.json() == {"username": "blk-ben", "blocked": False}
    assert _call(server, "DELETE", "/api/blocks/blk-ben", amy).status_code == 200  # again
    assert _call(server, "GET", "/api/blocks", amy).json() == {"players": []}
    assert _call(server, "POST", "/api/following/blk-amy", ben).status_code == 200
