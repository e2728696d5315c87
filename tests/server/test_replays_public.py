"""Shareable replays: only a hand's players publish or unpublish it; a published hand is
public (no token) with its record, which ``wuhan-mahjong verify`` accepts."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import httpx

from .harness import Client, Server, guest_token, play, register


def _play_one_hand(server: Server, token: str) -> str:
    """A quick match (one hand) against three bots; its match id."""

    async def scenario() -> str:
        c = Client(server, token)
        await c.connect()
        await c.send({"type": "quick_match"})
        table = await c.expect("table")
        await play(c)
        await c.close()
        return str(table["match_id"])

    return asyncio.run(scenario())


def test_publish_permissions_public_record_and_verify(server: Server, tmp_path: Path) -> None:
    api = f"{server.http}/api"
    player = register(server, "publisher")
    other = guest_token(server)
    match_id = _play_one_hand(server, player)
    auth = {"Authorization": f"Bearer {player}"}
    stranger = {"Authorization": f"Bearer {other}"}
    hands = httpx.get(f"{api}/matches/{match_id}/hands", headers=auth).json()["hands"]
    n = hands[0]
    publish = f"{api}/hands/{match_id}/{n}/publish"
    public = f"{api}/public/hands/{match_id}/{n}"

    # private by default: nothing public, and the player sees the flag off
    assert httpx.get(publish, headers=auth).json()["published"] is False
    assert httpx.get(public).status_code == 404
    assert httpx.get(f"{public}/record.jsonl").status_code == 404

    # nobody but the hand's players may publish, unpublish or even ask
    for method in ("GET", "POST", "DELETE"):
        r = httpx.request(method, publish, headers=stranger)
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        assert httpx.request(method, publish).status_code == 401
        assert httpx.request(method, publish, headers={"Authorization": "Bearer nope"}).status_code == 401
    assert httpx.post(f"{api}/hands/{match_id}/{n + 1}/publish", headers=auth).status_code == 404
    assert httpx.post(f"{api}/hands/no-such-match/{n}/publish", headers=auth).status_code == 404
    assert httpx.get(public).status_code == 404  # the strangers changed nothing

    r = httpx.post(publish, headers=auth)
    assert r.status_code == 200 and r.json()["published"] is True
    assert httpx.post(publish, headers=auth).json()["published"] is True  # idempotent
    assert httpx.get(publish, headers=auth).json()["published"] is True

    # public: no token needed, the same record the player reads, names but no account ids
    pub = httpx.get(public)
    assert pub.status_code == 200
    body = pub.json()
    mine = httpx.get(f"{api}/matches/{match_id}/hands/{n}", headers=auth).json()
    assert body["events"] == mine["events"] and body["commitment"] == mine["commitment"]
    assert "publisher" in body["players"] and "seats" not in body
    assert body["events"][0]["e"] == "header" and body["events"][-1]["e"] == "reveal"

    # the download is the documented record format: `wuhan-mahjong verify` accepts it ...
    dl = httpx.get(f"{public}/record.jsonl")
    assert dl.status_code == 200 and "attachment" in dl.headers["content-disposition"]
    assert [json.loads(line) for line in dl.text.splitlines()] == body["events"]
    path = tmp_path / "hand.jsonl"
    path.write_text(dl.text, encoding="utf-8")
    ok = subprocess.run([sys.executable, "-m", "wuhan_mahjong", "verify", str(path)],
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # ... and refuses it once its revealed wall is changed
    lines = dl.text.splitlines()
    reveal = json.loads(lines[-1])
    wall = reveal["wall"]
    k = next(i for i in range(2, len(wall), 2) if wall[i:i + 2] != wall[0:2])  # swap two tiles
    reveal["wall"] = wall[k:k + 2] + wall[2:k] + wall[0:2] + wall[k + 2:]
    path.write_text("\n".join([*lines[:-1], json.dumps(reveal)]) + "\n", encoding="utf-8")
    bad = subprocess.run([sys.executable, "-m", "wuhan_mahjong", "verify", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1, bad.stdout + bad.stderr

    # a stranger cannot unpublish; the player can, and the hand is private again
    assert httpx.delete(publish, headers=stranger).status_code == 404
    assert httpx.get(public).status_code == 200
    r = httpx.delete(publish, headers=auth)
    assert r.status_code == 200 and r.json()["published"] is False
    assert httpx.get(public).status_code == 404
    assert httpx.get(f"{public}/record.jsonl").status_code == 404
    assert httpx.get(f"{api}/public/hands/{match_id}/{2**40}").status_code == 404
