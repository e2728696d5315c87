"""Ending a match early is in the write-ahead log: a ``wuhan-mahjong serve`` process killed
with SIGKILL right after a table was abandoned (or after its last player escaped) resumes
the same ended match and settles the same (issue 10, findings 3 and 8).

Before, an abandoned table ended by lowering ``match.hands`` in memory only: the restart
replayed the log into a match of the full length, which dealt and settled more hands.
Now the table logs ``end`` (the new number of hands) with the escapes, in one
transaction, and the replay applies it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from wuhan_mahjong.store import LoggedMatch, Store, open_store

from .harness import FAST_HASHER, Client
from .test_durable import check_settled_like_uninterrupted
from .test_durable_crash import ServeProcess

HANDS = 64


@pytest.fixture
def process(db_url: str, tmp_path: Path) -> Iterator[ServeProcess]:
    # A long pause between hands: an abandonment during it leaves the match running for
    # a minute after its ``end`` is written, whatever the machine's speed.
    server = ServeProcess(db_url, tmp_path / "server.log",
                          options=("--abandon-seconds", "0.5", "--hand-pause", "60"))
    server.start()
    yield server
    server.close()


@pytest.fixture
def store(db_url: str, process: ServeProcess) -> Iterator[Store]:
    s = open_store(db_url, password_hasher=FAST_HASHER)
    yield s
    s.close()


def _guest(server: ServeProcess) -> tuple[str, int]:
    r = httpx.post(f"{server.http}/api/guest", timeout=10)
    assert r.status_code == 201, r.text
    return r.json()["token"], r.json()["account"]["id"]


async def _bot_room(server: ServeProcess, token: str, auto: bool) -> tuple[Client, str]:
    """A guest alone in a free room of ``HANDS`` hands with bots (on auto-play: 托管)."""
    c = Client(server, token)  # type: ignore[arg-type]
    await c.connect()
    await c.send({"type": "create_room", "options": {"hands": HANDS}})
    await c.expect("room")
    await c.send({"type": "ready"})
    await c.expect("room")
    await c.send({"type": "start"})
    table = await c.expect("table")
    if auto:
        await c.send({"type": "auto", "on": True})
    return c, str(table["match_id"])


def _wait_for(store: Store, match_id: str, done: Any, what: str,
              timeout: float = 60) -> LoggedMatch:
    deadline = time.monotonic() + timeout
    while True:
        logged = store.load_match(match_id)
        assert logged is not None
        if done(logged):
            return logged
        assert time.monotonic() < deadline, f"{what}: {logged.status}, {len(logged.events)} events"
        time.sleep(0.01)


def _ended(logged: LoggedMatch) -> bool:
    return any(ev.kind == "end" for ev in logged.events)


def _check(store: Store, server: ServeProcess, match_id: str, account: int, escaped_in: int,
           start: dict[int, int]) -> None:
    """After the restart the match finishes at the hand it was ended at, like an
    uninterrupted replay of its log, each hand and the escape settled once."""
    logged = _wait_for(store, match_id, lambda m: m.status == "finished", "not finished")
    ends = [ev for ev in logged.events if ev.kind == "end"]
    assert len(ends) == 1 and ends[0].data == str(escaped_in + 1), ends
    assert logged.hands_done == escaped_in + 1  # not one hand more
    bots = {int(p["account_id"]): 0 for p in logged.config["seats"] if p["is_bot"]}
    match = check_settled_like_uninterrupted(store, match_id, {**bots, **start})
    assert len(match.history) == escaped_in + 1
    seat = next(ev.seat for ev in logged.events if ev.kind == "escape")
    assert store.is_settled(f"{match_id}#escape{seat}")
    history = store.match_history(account)
    assert sorted((h.kind, h.escaped) for h in history) == [("escape", True), ("game", False)]
    assert store.running_matches() == []
    assert "Traceback" not in server.log.read_text(errors="replace")


@pytest.mark.slow
def test_kill_9_after_an_abandonment_between_hands_ends_the_same(
        process: ServeProcess, store: Store) -> None:
    """Abandoned in the pause after a hand: ``end`` makes the match over at once; killed
    before the table closes it, the restart finishes it with no hand more."""
    token, account = _guest(process)

    async def scenario() -> tuple[str, int]:
        c, match_id = await _bot_room(process, token, auto=True)
        first = await c.expect("hand_end", timeout=120)
        assert first["next_hand_in"] == 60
        await c.close()  # nobody connected: abandoned after 0.5 s, during the pause
        return match_id, int(first["hand_no"])

    match_id, hand_no = asyncio.run(scenario())
    logged = _wait_for(store, match_id, _ended, "never abandoned")
    assert logged.status == "running"  # the pause still runs: the kill lands before the end
    process.kill()
    process.start()
    _check(store, process, match_id, account, hand_no, {account: 1000})


@pytest.mark.slow
def test_kill_9_after_the_last_player_escaped_mid_hand_ends_the_same(
        process: ServeProcess, store: Store) -> None:
    """The last player leaves mid-hand: his escape and the match's ``end`` are one write;
    the server is killed as soon as it is in the log (in the hand, or just after it)."""
    token, account = _guest(process)

    async def scenario() -> tuple[str, int]:
        c, match_id = await _bot_room(process, token, auto=False)  # the hand waits for him
        state = await c.expect("state", timeout=30)
        await c.send({"type": "leave"})
        assert (await c.expect("left"))["escaped"] is True
        await c.close()
        return match_id, int(state["hand_no"])

    match_id, hand_no = asyncio.run(scenario())
    logged = _wait_for(store, match_id, _ended, "the escape did not end the match")
    process.kill()
    escape = next(ev for ev in logged.events if ev.kind == "escape")
    end = next(ev for ev in logged.events if ev.kind == "end")
    assert end.seq == escape.seq + 1  # written together
    assert escape.hand_no == hand_no
    process.start()
    _check(store, process, match_id, account, hand_no, {account: 1000})
