"""Random client messages, well-formed or not, mid-match: each is answered with a frame
the protocol defines (an error naming the problem, or the answer), the table plays on, no
other player sees anything of it but what the protocol sends everyone (a chat line), and
the match settles the same for all four."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

from .harness import Client, StartServer, guest_token, play, seat_four

TYPES = ["hello", "ping", "quick_match", "create_room", "join_room", "ready", "start", "action",
         "snapshot", "watch", "unwatch", "chat", "dance", "", None, 7]
VALUES: list[Any] = [None, True, 0, -1, 2**31, 10**40, 1.5, float("inf"), "", "x" * 300,
                     "123456", "5m", "7z", "\ud800", "🀄", [], [1, "a"], {}, {"type": "pass"},
                     {"type": "discard", "tile": "5m"}, {"type": "chi", "tile": "8m"},
                     {"type": "kong", "kind": "added", "tile": "1z"}, {"profile": "bianfeng"},
                     {"rules": {"cap": -1}}, {"rules": {"no_such": 1}}, "0123456789ab"]
FIELDS = ["ref", "token", "protocol", "profile", "silver", "options", "code", "ready", "action",
          "decision", "hand_no", "on", "table", "phrase", "emote", "extra"]


def _message(rng: random.Random, last: dict[str, Any]) -> Any:
    """A random message: sometimes not JSON at all; often a well-formed action (one the
    last view offered, or any other) for the current decision, an old one or none; else an
    object of any type with random fields."""
    decision, hand_no = last.get("decision"), last.get("hand_no")
    roll = rng.random()
    if roll < 0.05:
        return rng.choice(["{", "[]", "null", '{"type": "action"', "\x00", "1e999999"])
    if roll < 0.5:
        offered = last.get("legal_actions") or [{"type": "pass"}]
        action = rng.choice(offered + [v for v in VALUES if isinstance(v, dict) and "type" in v])
        msg = {"type": "action", "action": action, "ref": f"f{rng.randrange(1000)}",
               "decision": rng.choice([decision or 0, (decision or 0) + 1, 0])}
        if rng.random() < 0.5 and hand_no is not None:
            msg["hand_no"] = rng.choice([hand_no, hand_no + 1])
        return msg
    msg = {"type": rng.choice(TYPES)}
    for _ in range(rng.randrange(4)):
        msg[rng.choice(FIELDS)] = rng.choice(VALUES)
    return msg


async def play_while_fuzzing(clients: list[Client], fuzzer: Client, seed: int
                             ) -> tuple[list[dict[str, Any]], int]:
    """Every client plays its decisions with a bot to the match's end while ``fuzzer``
    also sends ten random messages every 50 ms; the ends, and how many were sent."""
    rng = random.Random(seed)
    sent = 0
    last: dict[str, Any] = {}

    def remember(msg: dict[str, Any]) -> None:
        view = msg["view"]
        last.update(decision=view.get("decision"), hand_no=view["hand_no"],
                    legal_actions=view["legal_actions"])

    async def fuzz() -> None:
        nonlocal sent
        while not fuzzer.of_type("match_end"):
            for _ in range(10):
                text = _message(rng, last)
                await fuzzer.send(text if isinstance(text, str) else json.dumps(text))
                sent += 1
            await asyncio.sleep(0.05)

    task = asyncio.get_running_loop().create_task(fuzz())
    ends = await asyncio.gather(*(play(c, seed=i, timeout=120,
                                       on_state=remember if c is fuzzer else None)
                                  for i, c in enumerate(clients)))
    task.cancel()
    assert not fuzzer.closed.is_set()  # nothing it sent cost it the connection
    return list(ends), sent


def check_fuzzed(clients: list[Client], fuzzer: Client, ends: list[dict[str, Any]],
                 sent: int) -> None:
    """The match settled alike for all; the fuzzer's messages were answered, by the table
    too (not only the parser), never with an internal error; nobody else saw an error."""
    assert sent > 100
    assert len({json.dumps(e["totals"]) for e in ends}) == 1
    codes = {err["code"] for err in fuzzer.of_type("error")}
    assert {"invalid_message", "illegal_action", "stale_decision"} <= codes, codes
    for err in fuzzer.of_type("error"):
        assert err["code"] and err["message"] and err["code"] != "server_error", err
    for c in clients:
        if c is not fuzzer:
            assert c.of_type("error") == [], c.of_type("error")[:3]


def test_random_messages_never_disturb_the_table(start_server: StartServer) -> None:
    server = start_server(msg_rate=1000.0, msg_burst=1000, abuse_limit=100_000)
    tokens = [guest_token(server) for _ in range(4)]

    async def scenario() -> tuple[list[Client], list[dict[str, Any]], int]:
        clients = await seat_four(server, tokens, hands=2)
        ends, sent = await play_while_fuzzing(clients, clients[3], 20261203)
        for c in clients:
            await c.close()
        return clients, ends, sent

    clients, ends, sent = asyncio.run(scenario())
    check_fuzzed(clients, clients[3], ends, sent)
