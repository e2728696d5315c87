"""Bad messages get error frames naming the problem and never disturb the table."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets

from .harness import Client, Server, StartServer, guest_token, play, seat_four

BAD = [
    ("not json at all", "bad_json"),
    ("[1, 2]", "invalid_message"),
    ('{"no": "type"}', "invalid_message"),
    ('{"type": "dance", "ref": "d"}', "unknown_type"),
    ('{"type": "action", "ref": "a1"}', "invalid_message"),
    ('{"type": "action", "action": {"type": "fly"}}', "invalid_message"),
    ('{"type": "action", "action": {"type": "discard", "tile": "9x"}, "ref": "t", "decision": 1}',
     "bad_action"),
    ('{"type": "action", "action": {"type": "discard"}, "decision": 1}', "bad_action"),
    ('{"type": "action", "action": {"type": "chi", "tile": "9m"}, "decision": 1}', "bad_action"),
    ('{"type": "action", "action": {"type": "kong", "kind": "sideways", "tile": "1m"}, "decision": 1}',
     "bad_action"),
    ('{"type": "action", "action": {"type": "pass"}}', "invalid_message"),  # no decision id
    ('{"type": "join_room", "code": "12"}', "invalid_message"),
    ('{"type": "ping", "extra": 1}', "invalid_message"),
    ('{"type": "hello", "token": "x"}', "already_authenticated"),
    ('{"type": "quick_match"}', "busy"),
    ('{"type": "action", "action": {"type": "discard", "tile": "5m"}, "hand_no": 99, "decision": 1}',
     "no_decision"),
    ("x" * 5000, "too_large"),
]


@pytest.mark.slow
def test_bad_messages_get_error_frames_and_the_table_plays_on(server: Server) -> None:
    tokens = [guest_token(server) for _ in range(4)]

    async def scenario() -> list[Client]:
        clients = await seat_four(server, tokens, hands=1)
        state = await clients[0].expect("state")
        for text, code in BAD:
            await clients[0].send(text)
            err = await clients[0].expect("error")
            assert err["code"] == code, (text[:60], err)
            assert err["message"]
        await clients[0].send(b"\x00\x01")
        assert (await clients[0].expect("error"))["code"] == "binary_frame"
        # A well-formed action that is not legal now names the rule.
        view = state["view"]
        if view["legal_actions"]:
            await clients[0].send({"type": "action", "action": {"type": "pass"}, "ref": "p",
                                   "decision": view["decision"]})
            err = await clients[0].expect("error")
            assert err["code"] == "illegal_action" and err["ref"] == "p"
        else:
            await clients[0].send({"type": "action", "action": {"type": "discard", "tile": "1m"},
                                   "ref": "o", "decision": view["decision"]})
            err = await clients[0].expect("error")
            assert err["code"] == "illegal_action" and "turn" in err["message"]
        # Ref echo on a validation error.
        await clients[0].send({"type": "action", "ref": "r9"})
        assert (await clients[0].expect("error"))["ref"] == "r9"
        ends = await asyncio.gather(*(play(c, seed=i) for i, c in enumerate(clients)))
        assert len({json.dumps(e["totals"]) for e in ends}) == 1
        for c in clients:
            await c.close()
        return clients

    clients = asyncio.run(scenario())
    for c in clients[1:]:
        assert c.of_type("error") == []


def test_authentication(server: Server) -> None:
    async def scenario() -> None:
        async with websockets.connect(server.ws) as ws:
            await ws.send(json.dumps({"type": "ping"}))
            err = json.loads(await ws.recv())
            assert err["code"] == "not_authenticated"
            await ws.send(json.dumps({"type": "hello", "token": "nope"}))
            err = json.loads(await ws.recv())
            assert err["code"] == "auth_failed"
            try:
                await asyncio.wait_for(ws.recv(), 5)
            except websockets.ConnectionClosed as e:
                assert e.rcvd is not None and e.rcvd.code == 4401
        async with websockets.connect(f"{server.ws}?token=bad") as ws:
            assert json.loads(await ws.recv())["code"] == "auth_failed"
        async with websockets.connect(server.ws) as ws:
            await ws.send(json.dumps({"type": "hello", "token": "x", "protocol": 2}))
            err = json.loads(await ws.recv())
            assert err["code"] == "invalid_message" and "protocol 1" in err["message"]
            # what a client needs to see that it is of another version (and reload)
            assert err["params"] == {"field": "protocol", "problem": "version", "expected": 1}

    asyncio.run(scenario())


def test_rate_limit_then_close_on_persistent_abuse(start_server: StartServer) -> None:
    server = start_server(msg_rate=5.0, msg_burst=5, abuse_limit=20, abuse_window=10.0)
    token = guest_token(server)

    async def scenario() -> Client:
        c = Client(server, token)
        await c.connect()
        for i in range(10):
            await c.send({"type": "ping", "ref": str(i)})
        await asyncio.sleep(0.3)
        kinds = [f.msg["type"] for f in c.frames[1:]]
        assert kinds.count("pong") >= 4 and "error" in kinds  # the hello took a token
        assert all(m["code"] == "rate_limited" for m in c.of_type("error"))
        assert not c.closed.is_set()
        for i in range(60):
            try:
                await c.send({"type": "ping", "ref": f"flood{i}"})
            except websockets.ConnectionClosed:
                break
        await asyncio.wait_for(c.closed.wait(), 5)
        assert c.close_code == 1008
        return c

    asyncio.run(scenario())


def test_a_number_of_thousands_of_digits_is_an_error_frame(start_server: StartServer) -> None:
    """``json.loads`` refuses an integer of more than 4,300 digits with a ``ValueError``
    that is no ``JSONDecodeError``: the parser let it out, and the connection ended in a
    traceback (1011) instead of an error frame.  Before the ``hello`` no message size
    was checked, so any client could (the size is checked there now too); after it, with
    ``max_message_bytes`` above 4,300."""
    server = start_server(max_message_bytes=8192)
    token = guest_token(server)
    big = "9" * 5000

    async def scenario() -> None:
        async with websockets.connect(server.ws, max_size=2**22) as ws:  # not yet logged in
            await ws.send('{"type": "hello", "token": "x", "protocol": ' + big + "}")
            err = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert err["type"] == "error" and err["code"] == "bad_json", err
            await ws.send(json.dumps({"type": "hello", "token": "x" * 9000}))  # > 8192
            err = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert err["code"] == "too_large" and err["params"] == {"max": 8192}, err
            await ws.send(json.dumps({"type": "hello", "token": token}))  # still served
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "welcome"
        c = Client(server, token)
        await c.connect()
        await c.send('{"type": "ping", "ref": "n", "n": ' + big + "}")
        err = await c.expect("error")
        assert err["code"] == "bad_json" and err["message"], err
        await c.send({"type": "ping", "ref": "after"})
        assert (await c.expect("pong"))["ref"] == "after"
        assert not c.closed.is_set()
        await c.close()

    asyncio.run(scenario())
