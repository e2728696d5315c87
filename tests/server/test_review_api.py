"""``GET /api/matches/{m}/hands/{n}/review`` (AI 复盘) through the real server, after a match
played over WebSockets: a player's review of his own seat (or another seat of his hand) is
the bots' review of the stored record, each decision pointing at the replay frame that shows
its position (same wall, same phase); others get 404, a bad seat 400, no token 401; the
account's allowance ends in 429.  SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import gzip
import json
import math
import time
from typing import Any

import httpx
import pytest

from wuhan_mahjong.bots.review import review_hand
from wuhan_mahjong.engine.records import load_records
from wuhan_mahjong.server.review_api import REVIEW_BURST, REVIEW_RATE

from .harness import Server, play, register, seat_four


def _get(server: Server, path: str, token: str | None, **headers: str) -> httpx.Response:
    sent = dict(headers)
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    return httpx.get(f"{server.http}{path}", headers=sent, timeout=60)


def test_a_player_reviews_his_hand(server: Server) -> None:
    tokens = [register(server, f"rv{k}") for k in range(4)]
    outsider = register(server, "rv-out")

    async def scenario() -> dict[str, Any]:
        clients = await seat_four(server, tokens, hands=1)
        ends = await asyncio.gather(*(play(c, seed=i) for i, c in enumerate(clients)))
        for c in clients:
            await c.close()
        return ends[0]

    end = asyncio.run(scenario())
    match_id = end["match_id"]
    me = server.store.account_by_username("rv0")
    assert me is not None
    rec = server.store.hand_record(match_id, 0, viewer=me.id)
    assert rec is not None
    own_seat = next(s for s, a in rec.seats.items() if a == me.id)
    base = f"/api/matches/{match_id}/hands/0"
    frames = _get(server, base + "/frames", tokens[0]).json()["frames"]

    for seat, query in ((own_seat, ""), ((own_seat + 2) % 4, f"?seat={(own_seat + 2) % 4}")):
        r = _get(server, base + "/review" + query, tokens[0])
        assert r.status_code == 200, r.text
        got = r.json()
        expected = review_hand(load_records(rec.events)[0], seat)
        assert got["seat"] == seat and got["policy"] == "expert"
        assert got["summary"] == expected["summary"] and got["summary"]["decisions"] > 0
        assert [{k: v for k, v in d.items() if k != "frame"} for d in got["decisions"]] == \
            expected["decisions"]
        for d in got["decisions"]:  # the frame shows the position the decision was taken in
            view = frames[d["frame"]]["view"]
            assert (view["wall"], view["phase"]) == (d["wall"], d["phase"]), d
    zipped = _get(server, base + "/review", tokens[1], **{"Accept-Encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip"
    rv1 = server.store.account_by_username("rv1")
    assert rv1 is not None  # his own seat by default
    assert json.loads(zipped.content)["seat"] == next(s for s, a in rec.seats.items()
                                                      if a == rv1.id)
    raw = httpx.Client(headers={"Authorization": f"Bearer {tokens[1]}",
                                "Accept-Encoding": "gzip"}, timeout=60)
    with raw.stream("GET", f"{server.http}{base}/review") as streamed:
        body = b"".join(streamed.iter_raw())
    assert json.loads(gzip.decompress(body))["decisions"]

    for token, path, status in ((outsider, base + "/review", 404),
                                (tokens[0], base + "/review?seat=7", 400),
                                (tokens[0], base + "/review?seat=x", 400),
                                (tokens[0], f"/api/matches/{match_id}/hands/99/review", 404),
                                (tokens[0], "/api/matches/no-such/hands/0/review", 404),
                                (None, base + "/review", 401)):
        r = _get(server, path, token)
        assert r.status_code == status, (path, r.text)
    # a published hand's review is anyone's, for a seat he names
    public = f"/api/public/hands/{match_id}/0/review?seat=1"
    assert _get(server, public, None).status_code == 404  # not published yet
    published = httpx.post(f"{server.http}/api/hands/{match_id}/0/publish", timeout=30,
                           headers={"Authorization": f"Bearer {tokens[0]}"})
    assert published.status_code == 200, published.text
    anyone = _get(server, public, None)
    assert anyone.status_code == 200, anyone.text
    assert [{k: v for k, v in d.items() if k != "frame"} for d in anyone.json()["decisions"]] \
        == review_hand(load_records(rec.events)[0], 1)["decisions"]
    assert _get(server, f"/api/public/hands/{match_id}/0/review", None).status_code == 400
    assert _get(server, "/api/public/hands/a%00b/0/review?seat=1", None).status_code == 404
    # the allowance: the outsider's 404 counted too; rv2 has had none yet
    # (one more every 1 / REVIEW_RATE seconds: on a loaded machine the burst itself may
    # take long enough to earn one, so the count is bounded by the time it took)
    started = time.monotonic()
    answers: list[int] = []
    while 429 not in answers and len(answers) < 3 * REVIEW_BURST:
        answers.append(_get(server, base + "/review", tokens[2]).status_code)
    earned = math.floor((time.monotonic() - started) * REVIEW_RATE)
    assert answers[-1] == 429 and set(answers[:-1]) == {200}, answers
    assert REVIEW_BURST <= len(answers) - 1 <= REVIEW_BURST + earned, (answers, earned)


def test_reviews_beyond_the_queue_are_refused(server: Server,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A node runs one review at a time and lets a few wait; beyond them the answer is 429
    at once (here the queue holds none, so any review not yet kept is refused)."""
    import wuhan_mahjong.server.review_api as review_api

    tokens = [register(server, f"rq{k}") for k in range(4)]

    async def scenario() -> dict[str, Any]:
        clients = await seat_four(server, tokens, hands=1)
        ends = await asyncio.gather(*(play(c, seed=i) for i, c in enumerate(clients)))
        for c in clients:
            await c.close()
        return ends[0]

    match_id = asyncio.run(scenario())["match_id"]
    monkeypatch.setattr(review_api, "REVIEW_QUEUE", 0)
    refused = _get(server, f"/api/matches/{match_id}/hands/0/review", tokens[0])
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert refused.headers["retry-after"] == "5"
    monkeypatch.setattr(review_api, "REVIEW_QUEUE", 8)  # room again: the same review is given
    assert _get(server, f"/api/matches/{match_id}/hands/0/review", tokens[0]).status_code == 200
