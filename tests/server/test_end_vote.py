"""Ending a match early by agreement (申请解散, ``server/end_vote.py``) through the real
server: a request, a refusal, a second request passed by everyone, the match ending after
the hand in progress with every hand settled and nobody escaped; a request nobody answers
passes when its time is up; one whose asker escapes goes with him; a player alone with
bots ends at once; the refusals (``cannot_end``); a passed request survives kill -9."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.store import open_store

from .harness import FAST_HASHER, Client, Server, play, register
from .test_abandon_crash import _wait_for
from .test_durable import PASSWORD
from .test_durable_crash import ServeProcess


async def two_with_bots(server: Server, tokens: list[str], hands: int) -> tuple[
        list[Client], list[int]]:
    """The players of ``tokens`` (one or two) sit at a free table with bots; their seats."""
    clients = [Client(server, t, f"p{i}") for i, t in enumerate(tokens)]
    for c in clients:
        await c.connect()
    await clients[0].send({"type": "create_room", "options": {"hands": hands}})
    code = (await clients[0].expect("room"))["code"]
    for c in clients[1:]:
        await c.send({"type": "join_room", "code": code})
        await c.expect("room")
    for c in clients:
        await c.send({"type": "ready"})
    while True:
        members = (await clients[0].expect("room"))["members"]
        if len(members) == len(clients) and all(m["ready"] for m in members):
            break
    await clients[0].send({"type": "start"})
    seats = [(await c.expect("table"))["seat"] for c in clients]
    return clients, seats


async def error(client: Client) -> dict[str, Any]:
    msg = await client.expect("error")
    assert msg["code"] == "cannot_end", msg
    return msg


def test_a_refused_request_then_an_agreed_one_ends_after_this_hand(start_server: Any) -> None:
    server = start_server(hand_pause=0.3)
    tokens = [register(server, n) for n in ("ann", "bob")]

    async def flow() -> None:
        (ann, bob), (sa, sb) = await two_with_bots(server, tokens, hands=4)
        await bob.send({"type": "answer_end", "agree": True})
        assert (await error(bob))["params"]["reason"] == "no_vote"
        await ann.send({"type": "propose_end"})
        for c in (ann, bob):
            vote = await c.expect("end_vote")
            assert (vote["proposer"], vote["voters"], vote["agreed"], vote["result"]) == (
                sa, sorted([sa, sb]), [sa], "open")
            assert 0 < vote["seconds"] <= 60 and vote["refused"] is None
        await ann.send({"type": "propose_end"})
        assert (await error(ann))["params"]["reason"] == "voting"
        await ann.send({"type": "answer_end", "agree": True})  # he agreed by asking
        assert (await error(ann))["params"]["reason"] == "answered"
        await bob.send({"type": "answer_end", "agree": False})
        for c in (ann, bob):
            vote = await c.expect("end_vote")
            assert (vote["result"], vote["refused"], vote["hands"]) == ("refused", sb, None)
        await ann.send({"type": "propose_end"})  # once a hand
        assert (await error(ann))["params"]["reason"] == "asked"
        await bob.send({"type": "propose_end"})
        assert (await ann.expect("end_vote"))["proposer"] == sb
        await ann.send({"type": "answer_end", "agree": True})
        passed = [await c.expect("end_vote", result="passed") for c in (ann, bob)]
        assert passed[0] == passed[1]
        assert passed[0]["hands"] == 1 and sorted(passed[0]["agreed"]) == sorted([sa, sb])
        await bob.send({"type": "snapshot"})  # a reconnection's table frame says it too
        table = await bob.expect("table")
        assert (table["hands"], table["hands_now"]) == (4, 1)
        ends = await asyncio.gather(*(play(c, bot="greedy", seed=k, timeout=120)
                                      for k, c in enumerate((ann, bob))))
        for c, end in zip((ann, bob), ends, strict=True):
            hands = [f.msg for f in c.frames if f.msg["type"] == "hand_end"]
            assert [h["hand_no"] for h in hands] == [0]  # the hand in progress, then the end
            assert end["totals"] == hands[-1]["totals"]  # no escape penalty in them
            assert not [f for f in c.frames if f.msg["type"] == "left"]
            assert end["reason"] is None
        await ann.send({"type": "propose_end"})  # no table any more
        assert (await ann.expect("error"))["code"] == "not_seated"
        for c in (ann, bob):
            await c.close()

    asyncio.run(flow())


def test_silence_agrees_and_an_askers_escape_withdraws(start_server: Any) -> None:
    server = start_server(end_vote_seconds=0.5, hand_pause=0.3)
    tokens = [register(server, n) for n in ("cat", "dan", "eve", "fay")]

    async def flow() -> None:
        (cat, dan), (sc, _) = await two_with_bots(server, tokens[:2], hands=4)
        await cat.send({"type": "propose_end"})
        assert (await dan.expect("end_vote"))["result"] == "open"
        for c in (cat, dan):  # dan never answers: when the time is up he has agreed
            vote = await c.expect("end_vote", timeout=20, result="passed")
            assert (vote["agreed"], vote["hands"], vote["seconds"]) == ([sc], 1, 0)
        await asyncio.gather(*(play(c, bot="greedy", seed=k, timeout=120)
                               for k, c in enumerate((cat, dan))))
        (eve, fay), (se, _) = await two_with_bots(server, tokens[2:], hands=4)
        await eve.send({"type": "propose_end"})
        await fay.expect("end_vote")
        await eve.send({"type": "leave"})  # an escape: his request goes with him
        vote = await fay.expect("end_vote", result="refused")
        assert vote["refused"] == se == vote["proposer"]
        await fay.send({"type": "propose_end"})  # alone with bots: he decides alone
        vote = await fay.expect("end_vote", result="passed")
        assert vote["voters"] == vote["agreed"] and len(vote["voters"]) == 1
        end = await play(fay, bot="greedy", timeout=120)
        assert len([f for f in fay.frames if f.msg["type"] == "hand_end"]) == 1
        assert end["reason"] is None
        for c in (cat, dan, eve, fay):
            await c.close()

    asyncio.run(flow())


@pytest.mark.slow
def test_a_passed_request_survives_kill_9(db_url: str, tmp_path: Path) -> None:
    """The request passes, the server is killed before the hand is over: the restarted
    server resumes the match and ends it after that hand, as agreed."""
    process = ServeProcess(db_url, tmp_path / "server.log")
    store = open_store(db_url, password_hasher=FAST_HASHER)
    process.start()
    try:
        tokens = []
        for name in ("gus", "hal"):
            store.register(name, PASSWORD)
            tokens.append(store.login(name, PASSWORD).token)

        async def agree() -> str:
            clients, _ = await two_with_bots(process, tokens, hands=4)  # type: ignore[arg-type]
            await clients[0].send({"type": "propose_end"})
            await clients[1].expect("end_vote")
            await clients[1].send({"type": "answer_end", "agree": True})
            for c in clients:
                assert (await c.expect("end_vote", result="passed"))["hands"] == 1
            for c in clients:
                await c.close()
            return str(clients[0].of_type("table")[0]["match_id"])

        match_id = asyncio.run(agree())
        logged = store.load_match(match_id)
        assert logged is not None and logged.status == "running" and logged.hands_done == 0
        assert [e.data for e in logged.events if e.kind == "end"] == ["1"]  # written first
        process.kill()
        process.start()

        async def finish() -> None:
            clients = [Client(process, t, n) for t, n in zip(tokens, ("gus", "hal"),  # type: ignore[arg-type]
                                                            strict=True)]
            for c in clients:
                assert (await c.connect())["at_table"] is True
            await asyncio.gather(*(play(c, bot="greedy", seed=k, timeout=120)
                                   for k, c in enumerate(clients)))
            for c in clients:
                await c.close()

        asyncio.run(finish())
        done = _wait_for(store, match_id, lambda m: m.status == "finished", "not finished")
        assert done.hands_done == 1
        assert store.audit().ok
    finally:
        process.close()
        store.close()


def test_a_request_the_match_outlives_is_closed(start_server: Any) -> None:
    """A request still open when the match's last hand ends is closed (``closed``) before
    ``match_end``, so no player is left with an open request on screen."""
    server = start_server(end_vote_seconds=600, hand_pause=0.1)
    tokens = [register(server, n) for n in ("ivy", "jon")]

    async def flow() -> None:
        clients, _ = await two_with_bots(server, tokens, hands=2)
        await clients[0].send({"type": "propose_end"})
        for c in clients:
            assert (await c.expect("end_vote"))["result"] == "open"
        # nobody answers: both play the two hands out
        await asyncio.gather(*(play(c, bot="greedy", seed=k, timeout=180)
                               for k, c in enumerate(clients)))
        for c in clients:
            kinds = [f.msg["type"] for f in c.frames]
            votes = [f.msg["result"] for f in c.frames if f.msg["type"] == "end_vote"]
            assert votes == ["open", "closed"]
            assert kinds.index("match_end") > max(i for i, k in enumerate(kinds) if k == "end_vote")
            assert len([k for k in kinds if k == "hand_end"]) == 2  # not ended early
            await c.close()

    asyncio.run(flow())
