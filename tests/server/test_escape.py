"""Leaving mid-match is an escape: the profile's penalty, settled in silver; auto-play finishes."""

from __future__ import annotations

import asyncio

import httpx

from .harness import Client, StartServer, guest_token, play, register


def test_escape_mid_match(start_server: StartServer) -> None:
    server = start_server(bot_wait=5.0)
    # A silver table seats four players (bots never play for silver).
    tokens = [register(server, name) for name in ("runner", "stayer", "player2", "player3")]

    async def scenario() -> tuple[Client, Client]:
        runner, stayer, *others = [Client(server, t) for t in tokens]
        for c in (runner, stayer, *others):
            await c.connect()
        # laizishanzhuang: escape costs 400 points (docs/RULES.md §17.12); stake 1 silver per point.
        await runner.send({"type": "create_room",
                           "options": {"profile": "laizishanzhuang", "hands": 2, "stake": 1}})
        room = await runner.expect("room")
        for c in (stayer, *others):
            await c.send({"type": "join_room", "code": room["code"]})
            await c.expect("room")
        for c in (runner, stayer, *others):
            await c.send({"type": "ready"})
        await runner.expect("table")
        await stayer.expect("table")
        await runner.expect("state")
        await runner.send({"type": "leave"})
        left = await runner.expect("left")
        assert left == {"type": "left", "where": "table", "kicked": False, "club": None,
                        "escaped": True, "penalty": 400}
        # The runner is free at once; the others are told and play on to the end.
        await runner.send({"type": "ping"})
        await runner.expect("pong")
        ends = await asyncio.gather(play(stayer, seed=1, timeout=60),
                                    *(play(c, seed=2 + i, timeout=60) for i, c in enumerate(others)))
        assert all(sum(end["totals"]) == 0 for end in ends)
        for c in (runner, stayer, *others):
            await c.close()
        return runner, stayer

    runner, stayer = asyncio.run(scenario())
    notices = [n for n in stayer.of_type("notice") if n["code"] == "escape"]
    assert len(notices) == 1
    escaped_seat = notices[0]["seat"]
    last = stayer.of_type("state")[-1]
    assert last["players"][escaped_seat]["escaped"] is True
    assert runner.of_type("match_end") == []
    end = stayer.of_type("match_end")[0]
    assert sum(line["points"] for line in end["results"]) == 0  # escape included: zero-sum
    # the summary's columns: each hand's points and the escape penalties add up to the totals
    assert len(end["hands"]) == 2 and all(sum(deltas) == 0 for deltas in end["hands"])
    assert end["escape_points"][escaped_seat] == -400 and sum(end["escape_points"]) == 0
    for line in end["results"]:
        seat = line["seat"]
        assert sum(h[seat] for h in end["hands"]) + end["escape_points"][seat] == line["points"]
    auth = {"Authorization": f"Bearer {tokens[0]}"}
    history = httpx.get(f"{server.http}/api/profile", headers=auth).json()["history"]
    escape = [h for h in history if h["kind"] == "escape"]
    assert len(escape) == 1 and escape[0]["escaped"] and escape[0]["points"] == -400
    assert escape[0]["silver"] == -400
    # The rest of the match is settled for everybody, the escaper included.
    assert any(h["kind"] == "game" for h in history)
    assert server.store.audit().ok


def test_a_leave_while_the_table_stops_for_a_restart_is_no_escape(
        start_server: StartServer) -> None:
    """A table stopping for a restart (a draining server saves it as it is and the next
    process resumes it) applies no more events: a leave then was answered as an escape with
    its penalty and never applied (the player was seated again after the restart and had
    lost nothing).  It is refused now (``busy``, reason ``restarting``): the player is still
    at the table, nothing is charged."""
    from .test_end_vote import two_with_bots

    server = start_server(hand_pause=0.1, turn_seconds=120, claim_seconds=120)
    token = guest_token(server)

    async def scenario() -> None:
        (player,), _ = await two_with_bots(server, [token], hands=2)
        # Until the table waits for him alone (his own discard, for two minutes): nothing
        # wakes it then.  A claim he may make is not enough: the bots answering the same
        # discard wake the table when their think time ends, it reaches its safe point
        # and closes before the leave arrives (a CI failure, 7 December 2026).  He passes
        # each claim, or the table would wait two minutes for him there.
        passed: set[int] = set()
        while True:
            msg = await player.expect("state")
            view = msg["view"]
            if any(a["type"] == "discard" for a in view["legal_actions"]):
                break
            if view["legal_actions"] and not msg["answered"] and view["decision"] not in passed:
                passed.add(view["decision"])
                await player.send({"type": "action", "action": {"type": "pass"},
                                   "decision": view["decision"]})

        async def stop_tables() -> None:
            # what Table.stop does, without waking the table: it stops at its next safe
            # point, which is this player's move, so the window stays open for the test
            for table in list(server.hub.tables.values()):
                table.stopping = True

        asyncio.run_coroutine_threadsafe(stop_tables(), server.uvicorn.loop).result(10)
        await player.send({"type": "leave", "ref": "out"})
        refused = await player.expect("error", ref="out")
        assert (refused["code"], refused["params"].get("reason")) == ("busy", "restarting"), refused
        assert player.of_type("left") == []
        await player.send({"type": "leave", "ref": "again"})  # the same answer, every time
        assert (await player.expect("error", ref="again"))["params"]["reason"] == "restarting"
        await player.close()

    asyncio.run(scenario())
    assert server.store.audit().ok
