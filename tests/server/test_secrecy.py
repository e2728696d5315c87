"""The secrecy oracle: no frame ever shows a seat anything hidden from it.

Four clients play several hands while every frame they receive is kept.  After
each hand the record is fetched over HTTP (as a player), its commitment and
replay are verified, and the hand is replayed step by step: at every step we
know each seat's concealed tiles, the faces of concealed kongs and the wall.
Then, for every frame a seat received during the hand:

1. the frame's view is exactly that seat's :func:`seat_view` of one of the
   replayed states, in order (its ``legal_actions`` only ever emptied, once the
   seat has answered a claim window);
2. independently of the engine's view code: every tile kind named anywhere in
   the frame is one the seat may see at that state (its own tiles, discards,
   exposed melds, the indicator and laizi, the tile on the table), the view's
   ``hand`` is the seat's own hand, another seat's concealed kong shows no tiles,
   and another seat's entry carries only the public fields;
3. frames other than the state frames name no tile at all.

Also: every claim window lasts at least the claim hold, whether or not anyone
could claim (timing does not tell who may claim).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import httpx
import pytest

from wuhan_mahjong.engine import action_from_json, load_records, seat_view, verify
from wuhan_mahjong.engine.records import start_state
from wuhan_mahjong.engine.state import HandState
from wuhan_mahjong.tiles import parse_tiles

from .harness import Client, Frame, Server, StartServer, guest_token, play, seat_four

TILES = re.compile(r"^(?:[1-9]+[mpsz])+$")
PUBLIC_SEAT_KEYS = {"seat", "concealed", "melds", "special_kongs", "laizi_discards", "discards"}
NOT_TILES = {"commitment", "profile", "phase", "type", "kind", "outcome", "win_by", "salt", "name",
             "match_id", "table_id", "code", "message", "username", "title", "title_en", "rank",
             "rank_en", "ref"}


def tile_kinds(obj: Any, key: str | None = None) -> set[int]:
    """Every tile kind named in a JSON value (strings in tile notation)."""
    out: set[int] = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in NOT_TILES:
                out |= tile_kinds(v, k)
    elif isinstance(obj, list):
        for v in obj:
            out |= tile_kinds(v, key)
    elif isinstance(obj, str) and TILES.match(obj):
        out |= set(parse_tiles(obj))
    return out


def visible_kinds(state: HandState, seat: int) -> set[int]:
    """The tile kinds ``seat`` may legitimately see in ``state``."""
    out = set(state.hand_tiles(seat)) | {state.indicator, state.laizi} | set(state.must)
    for s in range(4):
        for t, _claimed, _lz in state.rivers[s]:
            out.add(t)
        for m in state.melds[s]:
            if m.kind != "concealed" or s == seat:
                out |= set(m.tiles)
    if state.pending_tile is not None:
        out.add(state.pending_tile)
    return out


def hidden_kinds(state: HandState, seat: int) -> set[int]:
    """Kinds another seat holds concealed (hand or concealed kong) that ``seat`` cannot see."""
    out: set[int] = set()
    for s in range(4):
        if s == seat:
            continue
        out |= set(state.hand_tiles(s))
        out |= {t for m in state.melds[s] if m.kind == "concealed" for t in m.tiles}
    return out - visible_kinds(state, seat)


def without_legal(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k != "legal_actions"}


def check_hand(record: dict[str, Any], frames: dict[int, list[dict[str, Any]]]) -> int:
    """Run the oracle on one hand; returns how many frames were checked."""
    text = "\n".join(json.dumps(e, ensure_ascii=False) for e in record["events"])
    events = load_records(text)[0]
    verify(events)
    state = start_state(events)
    steps: list[tuple[list[dict[str, Any]], list[set[int]], list[set[int]]]] = []

    def snapshot() -> None:
        steps.append(([dict(seat_view(state, v)) for v in range(4)],
                      [visible_kinds(state, v) for v in range(4)],
                      [hidden_kinds(state, v) for v in range(4)]))

    snapshot()
    for ev in events[1:]:
        if ev["e"] == "act":
            state.apply(ev["seat"], action_from_json(ev["action"]))
            snapshot()
        elif ev["e"] == "escape":
            state.note_escape(ev["seat"], ev["penalty"], ev["deltas"])
    assert state.ended
    checked = 0
    for seat, msgs in frames.items():
        k = 0
        for msg in msgs:
            view = msg["view"]
            target = without_legal(view)
            while k < len(steps) and without_legal(steps[k][0][seat]) != target:
                k += 1
            assert k < len(steps), f"seat {seat} got a view that is no seat view of the hand: {view}"
            truth, visible, hidden = steps[k][0][seat], steps[k][1][seat], steps[k][2][seat]
            assert view["legal_actions"] in ([], truth["legal_actions"])
            if view["legal_actions"] == []:
                assert msg["answered"] or truth["legal_actions"] == []
            if view["result"] is None:
                named = tile_kinds(view)
                assert named <= visible, (seat, named - visible)
                assert not named & hidden
                assert view["viewer"] == seat
                for other in view["seats"]:
                    assert set(other) == PUBLIC_SEAT_KEYS
                    if other["seat"] != seat:
                        assert all(m["tiles"] is None for m in other["melds"] if m["kind"] == "concealed")
            checked += 1
    return checked


@pytest.mark.slow
def test_no_frame_reveals_another_seats_hidden_tiles(server: Server) -> None:
    from .test_replay_frames import check_frames  # it uses this module's tile_kinds

    tokens = [guest_token(server) for _ in range(4)]
    hands = 5

    async def scenario() -> list[Client]:
        clients = await seat_four(server, tokens, hands=hands, profile="laizishanzhuang")
        await asyncio.gather(*(play(c, seed=100 + i, timeout=120) for i, c in enumerate(clients)))
        for c in clients:
            await c.close()
        return clients

    clients = asyncio.run(scenario())
    seat_of = {c.of_type("table")[0]["seat"]: c for c in clients}
    match_id = clients[0].of_type("match_end")[0]["match_id"]
    total = 0
    for hand_no in range(hands):
        frames = {s: [m for m in c.of_type("state") if m["hand_no"] == hand_no]
                  for s, c in seat_of.items()}
        assert all(frames.values())
        rec = httpx.get(f"{server.http}/api/matches/{match_id}/hands/{hand_no}",
                        headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=10)
        assert rec.status_code == 200
        total += check_hand(rec.json(), frames)
        # the replay of the finished hand: the engine's views after each step (and only
        # now: a hand still being played has no frames, test_replay_frames.py)
        replay = httpx.get(f"{server.http}/api/matches/{match_id}/hands/{hand_no}/frames",
                           headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=30)
        check_frames(replay.json()["frames"], rec.json()["events"])
    assert total > 200 * hands
    for c in clients:
        for msg in (f.msg for f in c.frames):
            if msg["type"] not in ("state", "table"):
                assert tile_kinds(msg) == set(), msg


def test_claim_windows_last_the_hold_whoever_may_claim(start_server: StartServer,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Every claim window stays open at least ``claim_hold`` once its frame is out, whoever
    may claim in it (here the other seats are bots, and most windows are pass-only for the
    player): its length tells nobody who could have claimed.  Measured twice: by the table
    itself when it closes each window (its clock, every window), and by the client, on
    arrival (the median window; a window that looks short counts only where the client's
    loop was not stalled when its first frame came, since a stall stamps the frames that
    waited in the socket together)."""
    from wuhan_mahjong.server.table import Table

    hold = 0.03
    held: list[float] = []
    real_flush = Table._flush

    def timed_flush(table: Table) -> None:
        d = table.decision
        if d is not None and d.window:
            held.append(table._now() - d.start)
        real_flush(table)

    monkeypatch.setattr(Table, "_flush", timed_flush)
    server = start_server(claim_hold=hold)
    token = guest_token(server)
    stalls: list[tuple[float, float]] = []

    async def watch_the_loop() -> None:
        """The client loop's stalls of 10 ms or more: (when it stopped, when it ran again)."""
        last = time.monotonic()
        while True:
            await asyncio.sleep(0.002)
            now = time.monotonic()
            if now - last >= 0.010:
                stalls.append((last, now))
            last = now

    async def scenario() -> Client:
        watcher = asyncio.get_running_loop().create_task(watch_the_loop())
        c = Client(server, token)
        await c.connect()
        await c.send({"type": "quick_match"})
        await c.expect("table")
        await play(c, seed=5, timeout=120)
        await c.close()
        watcher.cancel()
        return c

    client = asyncio.run(scenario())
    assert len(held) >= 10 and min(held) >= hold - 1e-6, sorted(held)[:5]  # float time
    states: list[Frame] = [f for f in client.frames if f.msg["type"] == "state"]
    windows: list[tuple[float, float]] = []
    opened: float | None = None
    for f in states:
        phase = f.msg["view"]["phase"]
        if phase in ("claim", "rob") and opened is None:
            opened = f.at
        elif phase not in ("claim", "rob") and opened is not None:
            windows.append((opened, f.at))
            opened = None
    assert len(windows) >= 10
    durations = sorted(end - begin for begin, end in windows)
    assert durations[len(durations) // 2] >= hold * 0.95, durations
    # Frames are stamped on arrival by a client that shares the GIL (and two busy cores) with
    # the server thread.  Without the hold, windows whose seats are bots or pass-only would
    # all close within a millisecond.
    short = [(begin, end) for begin, end in windows if end - begin < hold - 0.015
             and not any(stop <= begin <= again + 0.005 for stop, again in stalls)]
    assert len(short) <= len(durations) // 20, (short, stalls)
