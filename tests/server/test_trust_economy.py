"""Silver comes only from named sources (issue 10, finding 1), on a real server.

Bots never hold silver: a silver table seats four players, bots fill free tables
only.  The minimum to sit scales with the stake, so a stake of 1,000,000 needs
400,000,000 silver at yuanhang, not 100.  The daily allowance is a named source.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime

import pytest

import wuhan_mahjong.server.hub as hub_module
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.server.economy import min_to_sit

from .harness import Client, Server, StartServer, guest_token, play, register


async def _connect(server: Server, token: str) -> Client:
    c = Client(server, token)
    await c.connect()
    return c


def _bot_ids(server: Server) -> set[int]:
    hub = server.hub
    return set(hub.free_bots) | {b for ids in hub.bots_in_use.values() for b in ids}


@pytest.mark.slow
def test_bots_never_hold_silver_and_silver_tables_seat_players_only(start_server: StartServer) -> None:
    server = start_server(bot_wait=0.05)
    tokens = [register(server, f"silver{i}") for i in range(4)]

    async def scenario() -> None:
        # A free quick match fills with bots; they hold no silver.
        guest = await _connect(server, guest_token(server))
        await guest.send({"type": "quick_match"})
        table = await guest.expect("table")
        assert sum(p["bot"] for p in table["players"]) == 3
        await play(guest)
        # A silver quick match waits for four players: no bot timer, no bots after it.
        first = await _connect(server, tokens[0])
        await first.send({"type": "quick_match", "silver": True})
        queued = await first.expect("queued")
        assert queued["stake"] == 1 and queued["bots_after"] is None
        await asyncio.sleep(0.5)  # ten times the free queue's bot wait
        assert first.of_type("table") == []
        others = [await _connect(server, t) for t in tokens[1:]]
        for c in others:
            await c.send({"type": "quick_match", "silver": True})
        tables = [await c.expect("table") for c in (first, *others)]
        assert all(not p["bot"] for p in tables[0]["players"])
        await asyncio.gather(*(play(c, seed=i) for i, c in enumerate((first, *others))))
        await asyncio.sleep(0.3)  # the table closes just after its match_end frames
        # A silver room with fewer than four players does not start with bots.
        await first.send({"type": "create_room", "options": {"stake": 1, "hands": 1}})
        room = await first.expect("room")
        assert room["min_silver"] == min_to_sit(get_rules("yuanhang"), 1)
        await others[0].send({"type": "join_room", "code": room["code"]})
        await others[0].expect("room")
        for c in (first, others[0]):
            await c.send({"type": "ready"})
        while not all(m["ready"] for m in (await first.expect("room"))["members"]):
            pass
        await first.send({"type": "start"})
        err = await first.expect("error")
        assert err["code"] == "not_ready" and "bots never play for silver" in err["message"]
        for c in (guest, first, *others):
            await c.close()

    asyncio.run(scenario())
    bots = _bot_ids(server)
    assert len(bots) == 3
    for bot in bots:
        assert server.store.account(bot).silver == 0
        assert server.store.ledger(bot) == []
    audit = server.store.audit()
    assert audit.ok, audit
    # every unit of silver came from a sign-up (five accounts of 1000), minus the fees
    assert audit.sources["signup_grant"] == 5000 and audit.total_sources == 5000
    assert audit.player_balances == 5000 - audit.sinks


def test_the_minimum_to_sit_scales_with_the_stake(start_server: StartServer) -> None:
    """The issue's exploit: a stake of 1,000,000 with a minimum of 100.  Now the minimum
    is the most one hand can cost at that stake (yuanhang: 金顶 400 per loser)."""
    server = start_server()

    async def scenario() -> None:
        rich = await _connect(server, register(server, "richman"))
        for stake, profile in ((1_000_000, "yuanhang"), (3, "laizishanzhuang"), (2, "bianfeng")):
            need = min_to_sit(get_rules(profile), stake)
            assert need is not None and need >= 100 * stake
            await rich.send({"type": "create_room", "options": {"stake": stake, "profile": profile}})
            msg = await rich.recv()
            if need > 1000:
                assert msg["type"] == "error" and msg["code"] == "insufficient_silver"
                assert f"at least {need} silver" in msg["message"]
            else:
                assert msg["type"] == "room" and msg["min_silver"] == need
                await rich.send({"type": "leave"})
                await rich.expect("left")
        # a silver room whose rules have no cap cannot be played for silver at all
        await rich.send({"type": "create_room",
                         "options": {"stake": 1, "rules": {"cap_per_opening": 0}}})
        err = await rich.expect("error")
        assert err["code"] == "bad_options" and "capped" in err["message"]
        await rich.close()

    asyncio.run(scenario())
    assert min_to_sit(get_rules("yuanhang"), 1_000_000) == 400_000_000
    assert min_to_sit(get_rules("laizishanzhuang"), 3) == 1800  # 光明顶 600
    assert min_to_sit(get_rules("bianfeng"), 2) == 800


def test_daily_allowance_is_a_named_source_once_a_day(start_server: StartServer) -> None:
    server = start_server(daily_allowance=30)
    token = register(server, "daily")
    guest = guest_token(server)

    async def scenario() -> list[int]:
        seen = []
        for t in (token, token, guest):
            c = Client(server, t)
            seen.append((await c.connect())["account"]["silver"])
            await c.close()
        return seen

    assert asyncio.run(scenario()) == [1030, 1030, 1000]  # once a day; guests get none
    account = server.store.account_by_username("daily")
    assert account is not None
    reasons = [(e.reason, e.delta) for e in server.store.ledger(account.id)]
    assert reasons == [("daily_allowance", 30), ("signup_grant", 1000)]
    assert server.store.audit().ok


@pytest.mark.parametrize(("zone", "day"), [(None, "2026-12-07"), ("UTC", "2026-12-06")])
def test_the_allowance_day_turns_at_midnight_of_the_platform(
        start_server: StartServer, monkeypatch: pytest.MonkeyPatch, zone: str | None,
        day: str) -> None:
    """At 17:00 UTC on Sunday 6 December it is 01:00 on the 7th in Wuhan: by default (the
    ``timezone`` setting, Wuhan's) a player who collected the 6th's allowance the evening
    before collects the 7th's now; on UTC's calendar he waits until 08:00 Wuhan time."""
    monkeypatch.setattr(hub_module, "utcnow", lambda: datetime(2026, 12, 6, 17, 0, tzinfo=UTC))
    server = start_server(daily_allowance=30, **({} if zone is None else {"timezone": zone}))
    token = register(server, "night")
    account = server.store.account_by_username("night")
    assert account is not None
    assert server.store.daily_allowance(account.id, 30, day=date(2026, 12, 6)) == 1030

    async def connect() -> int:
        c = Client(server, token)
        silver: int = (await c.connect())["account"]["silver"]
        await c.close()
        return silver

    assert asyncio.run(connect()) == (1060 if zone is None else 1030)
    references = [e.reference for e in server.store.ledger(account.id)
                  if e.reason == "daily_allowance"]
    assert references[0] == f"daily {day}"
