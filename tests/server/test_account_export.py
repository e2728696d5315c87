"""``GET /api/account/export`` and ``/api/account/export/records.jsonl`` (数据导出) through
the real server: after a match played over WebSockets each player downloads his data (his
silver and ledger as the store holds them, his hands) and every hand he sat at, which
``wuhan-mahjong verify`` accepts; a token is needed; each account's downloads are limited;
a closed account has nothing to download."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from wuhan_mahjong.cli import main
from wuhan_mahjong.server.export_api import EXPORT_BURST

from .harness import Server, guest_token, play, register, seat_four

PASSWORD = "secret-123"


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _get(server: Server, path: str, token: str | None) -> httpx.Response:
    return httpx.get(f"{server.http}{path}", headers={} if token is None else _auth(token),
                     timeout=30)


def test_players_download_their_data_and_hands(server: Server, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    tokens = [register(server, f"dl{k}") for k in range(4)]

    async def scenario() -> None:
        clients = await seat_four(server, tokens, hands=2)
        await asyncio.gather(*(play(c, seed=i) for i, c in enumerate(clients)))
        for c in clients:
            await c.close()

    asyncio.run(scenario())
    me = server.store.account_by_username("dl1")
    assert me is not None
    doc = _get(server, "/api/account/export", tokens[1])
    assert doc.status_code == 200, doc.text
    assert doc.headers["content-type"].startswith("application/json")
    assert "attachment" in doc.headers["content-disposition"]
    assert doc.headers["cache-control"] == "no-store"
    data = doc.json()
    assert data["account"]["username"] == "dl1" and data["account"]["silver"] == me.silver
    assert [e["id"] for e in data["ledger"]] == [
        e.id for e in reversed(server.store.ledger(me.id, limit=None))]
    match_ids = {h["match_id"] for h in data["hands"]}
    assert len(match_ids) == 1 and len(data["hands"]) == 2
    (match_id,) = match_ids
    assert [h["hand_no"] for h in data["hands"]] == server.store.hand_numbers(match_id,
                                                                              viewer=me.id)
    assert all(h["seat"] in range(4) for h in data["hands"])
    assert tokens[1] not in doc.text

    hands = _get(server, "/api/account/export/records.jsonl", tokens[1])
    assert hands.status_code == 200
    assert hands.headers["content-type"].startswith("application/x-ndjson")
    expected = "".join(server.store.hand_record(match_id, n, viewer=me.id).events  # type: ignore[union-attr]
                       .rstrip("\n") + "\n" for n in (0, 1))
    assert hands.text == expected
    path = tmp_path / "hands.jsonl"
    path.write_text(hands.text, encoding="utf-8")
    assert main(["verify", str(path)]) == 0
    assert capsys.readouterr().out.count("replay identical") == 2


def test_a_token_is_needed_and_downloads_are_limited(server: Server) -> None:
    for path in ("/api/account/export", "/api/account/export/records.jsonl"):
        assert _get(server, path, None).status_code == 401
        assert _get(server, path, "not-a-token").status_code == 401
    token = guest_token(server)
    answers = [_get(server, "/api/account/export", token).status_code
               for _ in range(EXPORT_BURST)]
    assert answers == [200] * EXPORT_BURST
    over = _get(server, "/api/account/export/records.jsonl", token)
    assert over.status_code == 429 and over.json()["error"]["code"] == "rate_limited"
    assert int(over.headers["retry-after"]) >= 1
    # another account has its own allowance
    other = guest_token(server)
    assert _get(server, "/api/account/export/records.jsonl", other).status_code == 200
    assert _get(server, "/api/account/export/records.jsonl", other).text == ""


def test_a_closed_account_downloads_nothing(server: Server) -> None:
    token = register(server, "gone")
    closed = httpx.post(f"{server.http}/api/account/close", json={"password": PASSWORD},
                        headers=_auth(token), timeout=10)
    assert closed.status_code == 200
    for path in ("/api/account/export", "/api/account/export/records.jsonl"):
        assert _get(server, path, token).status_code == 401
    assert json.loads(_get(server, "/api/account/export", token).text)["error"]["code"] == \
        "not_authenticated"
