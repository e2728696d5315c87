"""Replay frames over HTTP: the server replays a stored hand with the engine, step by step.

For real hands played through the server in all three profiles (one with an escape), the
frames are exactly the engine's views after each step of the record: the spectator view
with each seat as its own player saw it, and every seat's concealed tiles (the hand is
over, nothing is hidden any more).  Their events are the stored record, in order, each
line once; a step nobody could see (a pass while the window stays open, an escape) adds
no frame: its lines go with the frame shown at the time.
A hand still being played has no frames (nor a record): 404, naming no tile.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from wuhan_mahjong.engine import action_from_json, load_records, seat_view, spectator_view, verify
from wuhan_mahjong.engine.records import start_state
from wuhan_mahjong.server.replays import takes_gzip

from .harness import Client, Server, StartServer, guest_token, play, seat_four
from .test_secrecy import tile_kinds

PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")


def _play(server: Server, tokens: list[str], profile: str, *, escape: bool) -> str:
    """Four clients play one hand of ``profile`` (the last one leaves at once with
    ``escape``: a bot plays on for him); the match id."""

    async def scenario() -> str:
        clients = await seat_four(server, tokens, hands=1, profile=profile)
        table = clients[0].of_type("table")[0]
        players = clients
        if escape:
            await clients[3].expect("state")
            await clients[3].send({"type": "leave"})
            await clients[3].expect("left")
            players = clients[:3]
        await asyncio.gather(*(play(c, seed=7 + i, timeout=120) for i, c in enumerate(players)))
        for c in clients:
            await c.close()
        return str(table["match_id"])

    return asyncio.run(scenario())


def _plain(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k != "_line"} for e in events]


def check_frames(frames: list[dict[str, Any]], record: list[dict[str, Any]]) -> None:
    """The frames of a hand against the engine's own replay of its record."""
    events = load_records("\n".join(json.dumps(e) for e in record))[0]
    verify(events)
    assert [e for f in frames for e in f["events"]] == _plain(events)  # the record, each line once
    assert [e["e"] for e in frames[0]["events"][:2]] == ["header", "deal"]
    assert frames[-1]["events"][-1]["e"] == "reveal"
    state = start_state(events)
    previous = None
    for k, frame in enumerate(frames):
        inputs = [e for e in frame["events"] if e["e"] in ("act", "escape")]
        assert k == 0 or inputs, frame["events"]  # every later frame is a step of the record
        for ev in inputs:
            if ev["e"] == "act":
                state.apply(ev["seat"], action_from_json(ev["action"]))
            else:
                state.note_escape(ev["seat"], ev["penalty"], ev["deltas"])
        own = [seat_view(state, s) for s in range(4)]
        expected = dict(spectator_view(state))
        expected["seats"] = [own[s]["seats"][s] for s in range(4)]
        assert frame["view"] == expected, k
        assert frame["hands"] == [own[s]["hand"] for s in range(4)], k
        shown = (frame["view"], frame["hands"])
        assert shown != previous, k  # a step nobody could see makes no frame of its own
        previous = shown
    assert state.ended and frames[-1]["view"]["result"]["reveal"]["salt"] == state.salt.hex()


@pytest.mark.slow
def test_frames_are_the_engines_views_after_each_step(server: Server) -> None:
    api = f"{server.http}/api"
    tokens = [guest_token(server) for _ in range(4)]
    stranger = {"Authorization": f"Bearer {guest_token(server)}"}
    auth = {"Authorization": f"Bearer {tokens[0]}"}
    kinds: set[str] = set()
    for profile in PROFILES:
        match_id = _play(server, tokens, profile, escape=profile == "bianfeng")
        hand = httpx.get(f"{api}/matches/{match_id}/hands", headers=auth).json()["hands"][0]
        url = f"{api}/matches/{match_id}/hands/{hand}/frames"
        record = httpx.get(f"{api}/matches/{match_id}/hands/{hand}", headers=auth).json()["events"]
        got = httpx.get(url, headers=auth, timeout=30)
        assert got.status_code == 200 and got.headers["content-encoding"] == "gzip"
        assert int(got.headers["content-length"]) < 40_000  # compact: ~150 frames, gzipped
        body = got.json()
        assert (body["match_id"], body["hand_no"]) == (match_id, hand)
        assert body["frames"][0]["view"]["profile"] == profile
        check_frames(body["frames"], record)
        kinds |= {e["e"] for e in record}
        kinds |= {e["action"]["type"] for e in record if e["e"] == "act"}
        # the same answer unzipped for a client that does not take gzip
        plain = httpx.get(url, headers={**auth, "Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.json() == body
        # only the hand's players, with a token; public only once published
        assert httpx.get(url, headers=stranger).status_code == 404
        assert httpx.get(url).status_code == 401
        public = f"{api}/public/hands/{match_id}/{hand}/frames"
        assert httpx.get(public).status_code == 404
        assert httpx.post(f"{api}/hands/{match_id}/{hand}/publish", headers=auth).status_code == 200
        assert httpx.get(public).json() == body
    # the hands went through the claim windows, and the escape is in a frame
    assert {"act", "draw", "claim", "escape", "reveal"} <= kinds and "pass" in kinds
    assert httpx.get(f"{api}/matches/nope/hands/0/frames", headers=auth).status_code == 404


def test_a_hand_being_played_has_no_frames(start_server: StartServer) -> None:
    """While the hand waits on the player's own decision it cannot end: its frames (and its
    record) are not there, for him or for anybody, and the answers name no tile."""
    server = start_server(turn_seconds=120.0, claim_seconds=120.0)
    token = guest_token(server)
    auth = {"Authorization": f"Bearer {token}"}
    api = f"{server.http}/api"

    async def scenario() -> tuple[str, list[httpx.Response]]:
        c = Client(server, token)
        await c.connect()
        await c.send({"type": "quick_match"})
        table = await c.expect("table")
        match_id = str(table["match_id"])
        while True:  # the hand stops at the first decision of this seat
            msg = await c.expect("state")
            if msg["view"]["legal_actions"]:
                break
        hand = msg["view"]["hand_no"]
        answers = [
            await asyncio.to_thread(httpx.get, url, headers=auth)
            for url in (
                f"{api}/matches/{match_id}/hands/{hand}/frames",
                f"{api}/public/hands/{match_id}/{hand}/frames",
                f"{api}/matches/{match_id}/hands/{hand}",
            )
        ]
        assert msg["view"]["phase"] != "ended"
        await c.send({"type": "auto", "on": True})  # the server's player finishes the hand
        await c.expect("hand_end", timeout=120)
        await c.close()
        return match_id, answers

    match_id, answers = asyncio.run(scenario())
    for r in answers:
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        assert tile_kinds(r.json()) == set()
    done = httpx.get(f"{api}/matches/{match_id}/hands/0/frames", headers=auth, timeout=30)
    assert done.status_code == 200
    record = httpx.get(f"{api}/matches/{match_id}/hands/0", headers=auth).json()["events"]
    check_frames(done.json()["frames"], record)


@pytest.mark.parametrize(
    ("header", "gzipped"),
    [
        ("gzip", True),
        ("gzip, deflate, br", True),
        ("GZIP", True),
        ("*", True),
        ("gzip;q=0.5", True),
        ("", False),
        ("identity", False),
        ("deflate, gzip;q=0", False),
        ("br;q=1, gzip; q=0", False),
    ],
)
def test_frames_are_gzipped_only_for_a_client_that_takes_it(header: str, gzipped: bool) -> None:
    assert takes_gzip(header) is gzipped
