"""Room options and rule overrides have ranges, checked on the server (issue 10, finding 2).

``turn_seconds: Infinity`` froze a table; a hidden ``escape_penalty_per_opening`` of
10^15 took a victim's silver; a number above 2^63 crashed the table.  Now every one
is refused with ``bad_options`` naming the option and its range, and every override
is shown to every member (``room.overrides``) and at the table (``table.overrides``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from wuhan_mahjong.rules import OPTION_BOUNDS

from .harness import Client, Server, guest_token, play


async def _connect(server: Server, token: str) -> Client:
    c = Client(server, token)
    await c.connect()
    return c


BAD: list[tuple[str, str, str]] = [
    # raw JSON text of the options, the option named in the error, a word of the error
    ('{"turn_seconds": Infinity}', "turn_seconds", "5 to 60"),
    ('{"claim_window_seconds": NaN}', "claim_window_seconds", "2 to 60"),
    ('{"rules": {"turn_seconds": 1e308}}', "turn_seconds", "5 to 60"),
    ('{"rules": {"turn_seconds": 0.5}}', "turn_seconds", "5 to 60"),
    ('{"claim_window_seconds": 61}', "claim_window_seconds", "2 to 60"),
    ('{"rules": {"escape_penalty_per_opening": 1000000000000000}}', "escape_penalty_per_opening",
     "at most 10000"),
    ('{"rules": {"cap": 18446744073709551617}}', "cap", "at most 10000"),
    ('{"cap": 99999999999999999999999999}', "cap", "at most 10000"),
    ('{"rules": {"laizi_kong_factor": 0}}', "laizi_kong_factor", "1 to 16"),
    ('{"rules": {"final_draws": -1}}', "final_draws", "1 to 8"),
    ('{"rules": {"golden_cap": true}}', "golden_cap", "integer"),
]


def test_out_of_range_and_non_finite_options_are_refused(server: Server) -> None:
    async def scenario() -> None:
        c = await _connect(server, guest_token(server))
        for i, (options, option, words) in enumerate(BAD):
            await c.send(f'{{"type": "create_room", "ref": "r{i}", "options": {options}}}')
            err = await c.expect("error")
            assert err["code"] == "bad_options", (options, err)
            assert err["ref"] == f"r{i}" and option in err["message"] and words in err["message"], err
        # hands and stake have their own ranges (pydantic): a huge stake is refused too
        await c.send('{"type": "create_room", "options": {"stake": 18446744073709551617}}')
        assert (await c.expect("error"))["code"] == "invalid_message"
        # the connection is fine: nothing was created
        await c.send({"type": "ping"})
        await c.expect("pong")
        assert c.of_type("room") == []
        await c.close()

    asyncio.run(scenario())
    assert not server.hub.lobby.rooms


@pytest.mark.slow
def test_every_override_is_shown_before_ready_and_at_the_table(server: Server) -> None:
    """The host sets a hidden rule; the joiner sees it in the room before pressing ready
    and in the table frame."""
    options: dict[str, Any] = {"profile": "yuanhang", "hands": 1, "turn_seconds": 20, "cap": 250,
                               "rules": {"escape_penalty_per_opening": 50, "laizi_kong_factor": 2}}
    expected = {"turn_seconds": 20.0, "cap": 250, "cap_per_opening": 250,
                "escape_penalty_per_opening": 50, "laizi_kong_factor": 2}

    async def scenario() -> None:
        host, joiner = [await _connect(server, guest_token(server)) for _ in range(2)]
        await host.send({"type": "create_room", "options": options})
        code = (await host.expect("room"))["code"]
        await joiner.send({"type": "join_room", "code": code})
        seen = await joiner.expect("room")
        assert seen["overrides"] == expected  # before anyone is ready
        assert all(not m["ready"] for m in seen["members"])
        for c in (host, joiner):
            await c.send({"type": "ready"})
        while not all(m["ready"] for m in (await host.expect("room"))["members"]):
            pass
        await host.send({"type": "start"})
        for c in (host, joiner):
            table = await c.expect("table")
            assert table["overrides"] == expected
            assert table["rules"]["escape_penalty_per_opening"] == 50
        await asyncio.gather(play(host, seed=1), play(joiner, seed=2))
        for c in (host, joiner):
            await c.close()

    asyncio.run(scenario())


def test_every_numeric_option_has_a_range_within_the_seeds_timers() -> None:
    from dataclasses import fields

    from wuhan_mahjong.rules import Rules

    numeric = {f.name for f in fields(Rules) if f.type in ("int", "float")}
    assert numeric == set(OPTION_BOUNDS)
    for name in ("claim_window_seconds", "turn_seconds"):
        low, high = OPTION_BOUNDS[name]
        assert 2 <= low <= 5 and high == 60  # a few seconds to a minute
