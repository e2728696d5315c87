"""``POST /api/reports`` (举报) through the real server, after a match played over
WebSockets: a player reports a seat of his match, again changes nothing, not himself, not
a match he did not sit in; a registered player's name; bad bodies are clear 400s; a token
is needed.  SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from wuhan_mahjong.store.reports import close_report, open_reports

from .harness import Server, play, register, seat_four


def _report(server: Server, token: str | None, body: Any) -> httpx.Response:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    if isinstance(body, bytes):
        return httpx.post(f"{server.http}/api/reports", content=body, headers=headers,
                          timeout=10)
    return httpx.post(f"{server.http}/api/reports", json=body, headers=headers, timeout=10)


def test_players_report_players(server: Server) -> None:
    tokens = [register(server, f"rp{k}") for k in range(4)]
    outsider = register(server, "rp-out")

    async def scenario() -> dict[str, Any]:
        clients = await seat_four(server, tokens, hands=1)
        ends = await asyncio.gather(*(play(c, seed=i) for i, c in enumerate(clients)))
        for c in clients:
            await c.close()
        return ends[0]

    end = asyncio.run(scenario())
    match_id = end["match_id"]
    seat_of = {line["name"]: line["seat"] for line in end["results"]}
    rp1 = server.store.account_by_username("rp1")
    assert rp1 is not None
    first = _report(server, tokens[0], {"reason": "collusion", "match_id": match_id,
                                        "seat": seat_of["rp1"]})
    assert first.status_code == 201, first.text
    assert first.json()["new"] is True
    again = _report(server, tokens[0], {"reason": "collusion", "match_id": match_id,
                                        "seat": seat_of["rp1"]})
    assert again.status_code == 200 and again.json() == {"id": first.json()["id"], "new": False}
    named = _report(server, tokens[3], {"reason": "name", "username": "RP1"})
    assert named.status_code == 201
    reports = {r.id: r for r in open_reports(server.store)}
    row = reports[first.json()["id"]]
    assert (row.reporter, row.reported_id, row.match_id, row.reason) == (
        "rp0", rp1.id, match_id, "collusion")
    assert reports[named.json()["id"]].reported_id == rp1.id

    def refused(token: str | None, body: Any, status: int, code: str) -> dict[str, Any]:
        r = _report(server, token, body)
        assert r.status_code == status, (body, r.text)
        error: dict[str, Any] = r.json()["error"]
        assert error["code"] == code, (body, error)
        return error

    error = refused(tokens[0], {"reason": "cheating", "match_id": match_id,
                                 "seat": seat_of["rp0"]},
                    400, "invalid_request")
    assert error["params"]["problem"] == "self"
    refused(outsider, {"reason": "collusion", "match_id": match_id, "seat": 1}, 404, "not_found")
    refused(tokens[0], {"reason": "name", "username": "nobody-here"}, 404, "not_found")
    error = refused(tokens[0], {"reason": "collusion", "match_id": match_id}, 400,
                    "invalid_request")
    assert error["params"]["problem"] == "missing"
    for body in ({"reason": "rude"}, {"reason": "name", "username": ""},
                 {"reason": "collusion", "match_id": match_id, "seat": 4},
                 {"reason": "collusion", "match_id": "x" * 300, "seat": 1},
                 {"reason": "name", "username": "rp1", "extra": 1}, b"{not json", b"[]"):
        refused(tokens[0], body, 400, "invalid_request")
    refused(tokens[0], b"x" * 5000, 413, "too_large")
    refused(None, {"reason": "name", "username": "rp1"}, 401, "not_authenticated")
    # each reads his own reports' state: open, then closed by an operator (no note shown)
    def filed(token: str | None) -> httpx.Response:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        return httpx.get(f"{server.http}/api/reports", headers=headers, timeout=10)

    (own,) = filed(tokens[0]).json()["reports"]
    assert (own["id"], own["reported"], own["reason"], own["status"], own["closed_at"]) == (
        first.json()["id"], "rp1", "collusion", "open", None)
    close_report(server.store, own["id"], "op", "warned him")
    (own,) = filed(tokens[0]).json()["reports"]
    assert own["status"] == "closed" and own["closed_at"] is not None
    assert set(own) == {"id", "reported", "reason", "match_id", "status", "created_at",
                        "closed_at"} and "warned" not in filed(tokens[0]).text
    assert [r["reason"] for r in filed(tokens[3]).json()["reports"]] == ["name"]
    assert filed(outsider).json() == {"reports": []}
    assert filed(None).status_code == 401
