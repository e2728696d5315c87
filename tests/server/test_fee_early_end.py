"""A silver match that ends early pays the service fee once, like one played to its end.

Before, the fee F went only with the settlement of hand ``hands - 1`` of the match as
configured, so a match that ended early (its ``end`` event: every player left, or the
table was abandoned) charged nobody: four players could play a hand of an eight-hand
match and leave, fee free.  Now such a match, if at least one hand was settled, pays F
from every seat in a settlement of its own at the end (game id ``<match>/fee``,
``store.settle_match_fee``), exactly once: a server killed with SIGKILL between the
last settled hand and the end of the match (the ``end`` written, the fee not charged
yet, or charged just before the kill) charges it once after the restart.
Real servers on SQLite and PostgreSQL; the ledger audit must balance.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from wuhan_mahjong.store import (
    LedgerReason,
    MatchFenced,
    MatchLogError,
    Store,
    fee_game_id,
    hand_game_id,
    open_store,
)

from .harness import FAST_HASHER, Server, StartServer, play, register, seat_four
from .test_abandon_crash import _wait_for
from .test_durable import PASSWORD, RICH
from .test_durable_crash import ServeProcess

FEE = 7


def fees_paid(store: Store, match_id: str, account_id: int) -> list[tuple[str | None, int]]:
    """(reference, amount) of every fee an account paid for one match's settlements."""
    return [(e.reference, -e.delta) for e in store.ledger(account_id, limit=None)
            if e.reason == LedgerReason.FEE and e.reference is not None
            and e.reference.startswith((match_id + "/", match_id + "#"))]


def check_fee_once(store: Store, match_id: str, accounts: list[int], hands: int, fee: int) -> None:
    """The match's ``hands`` hands are settled, no hand more; every seat paid ``fee`` once,
    in the match's fee settlement; the books balance."""
    for n in range(hands):
        assert store.is_settled(hand_game_id(match_id, n))
    assert not store.is_settled(hand_game_id(match_id, hands))
    for account in accounts:
        assert fees_paid(store, match_id, account) == [(fee_game_id(match_id), fee)], account
        line = next(h for h in store.match_history(account) if h.match_id == match_id
                    and h.kind == "game")
        assert line.fee == fee  # the history's match line counts it
        assert store.match_silver(match_id)[account][1] == fee
    audit = store.audit()
    assert audit.ok, audit


async def _until_no_tables(server: Server, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while server.hub.tables:
        assert time.monotonic() < deadline, "the table did not end"
        await asyncio.sleep(0.05)


def test_every_player_leaving_mid_match_pays_the_fee_once(start_server: StartServer) -> None:
    """Four players of an eight-hand silver match all leave in the first hand: the hand is
    played out by the engine's player and settled, the match ends, and each pays F once.

    Rich players: a seat of the 1,000 starting silver can lose it all in one hand (a
    contract costs three shares, up to 1,200 at stake 1), and then pays a fee of 0, the
    floor at his balance (one run in about thirty did)."""
    server = start_server(fee=FEE, starting_silver=RICH)
    tokens = [register(server, f"leaver{i}") for i in range(4)]

    async def scenario() -> str:
        clients = await seat_four(server, tokens, hands=8, stake=1, profile="bianfeng")
        match_id = str(clients[0].of_type("table")[0]["match_id"])
        for c in clients:
            await c.expect("state")
            await c.send({"type": "leave"})
            assert (await c.expect("left"))["escaped"] is True
        await _until_no_tables(server)
        for c in clients:
            await c.close()
        return match_id

    match_id = asyncio.run(scenario())
    store = server.store
    logged = store.load_match(match_id)
    assert logged is not None and logged.status == "finished"
    assert [ev.data for ev in logged.events if ev.kind == "end"] == ["1"]
    accounts = [int(s["account_id"]) for s in logged.config["seats"]]
    check_fee_once(store, match_id, accounts, hands=1, fee=FEE)
    assert store.audit().house_balance == 4 * FEE


def test_a_match_played_to_its_end_pays_the_fee_with_its_last_hand(start_server: StartServer) -> None:
    """Unchanged: no ``end`` event, the fee goes with the last hand, no fee settlement
    (rich players, as above: none can be left unable to pay it)."""
    server = start_server(fee=FEE, starting_silver=RICH)
    tokens = [register(server, f"player{i}") for i in range(4)]

    async def scenario() -> str:
        clients = await seat_four(server, tokens, hands=1, stake=1, profile="bianfeng")
        await asyncio.gather(*(play(c, seed=20 + i) for i, c in enumerate(clients)))
        for c in clients:
            await c.close()
        return str(clients[0].of_type("table")[0]["match_id"])

    match_id = asyncio.run(scenario())
    store = server.store
    assert not store.is_settled(fee_game_id(match_id))
    for account in server.store.load_match(match_id).config["seats"]:  # type: ignore[union-attr]
        assert fees_paid(store, match_id, int(account["account_id"])) == [
            (hand_game_id(match_id, 0), FEE)]
    assert store.audit().ok


def test_the_fee_settlement_is_once_and_fenced(db_url: str, tmp_path: Path) -> None:
    """``settle_match_fee`` charges once per match, only by the match's current runner,
    only while it runs."""
    store = open_store(db_url, password_hasher=FAST_HASHER, starting_silver=1000)
    try:
        accounts = [store.register(f"feepayer{i}", PASSWORD).id for i in range(3)]
        poor = store.register("feepoor", PASSWORD).id
        store.grant(poor, -997, reference="test: nearly broke")
        players = [*accounts, poor]
        epoch = store.open_match("m-fee", "t-fee", "00" * 32, {"hands": 8})
        with pytest.raises(MatchFenced):
            store.settle_match_fee("m-fee", epoch + 1, players, stake=1, fee=FEE, profile="bianfeng")
        settled = store.settle_match_fee("m-fee", epoch, players, stake=1, fee=FEE, profile="bianfeng")
        assert settled is not None and settled.fees_collected == 3 * FEE + 3  # floored at 3
        assert store.settle_match_fee("m-fee", epoch, players, stake=1, fee=FEE,
                                      profile="bianfeng") is None
        assert [store.account(a).silver for a in players] == [1000 - FEE] * 3 + [0]
        store.end_match("m-fee", epoch, "finished")
        with pytest.raises(MatchLogError):
            store.settle_match_fee("m-fee", epoch, players, stake=1, fee=FEE, profile="bianfeng")
        audit = store.audit()
        assert audit.ok and audit.house_balance == 3 * FEE + 3, audit
    finally:
        store.close()


# --------------------------------------------------------------------------- kill -9
@pytest.fixture
def process(db_url: str, tmp_path: Path) -> Iterator[ServeProcess]:
    # A long pause between hands: an abandonment during it leaves the match running for a
    # minute after its ``end`` is written (the fee not charged yet), whatever the machine.
    server = ServeProcess(db_url, tmp_path / "server.log",
                          options=("--abandon-seconds", "0.5", "--hand-pause", "60",
                                   "--fee", str(FEE)))
    server.start()
    yield server
    server.close()


@pytest.mark.slow
@pytest.mark.parametrize("charged_before_kill", [False, True], ids=["fee-unpaid", "fee-paid"])
def test_kill_9_between_the_last_settled_hand_and_the_early_end_charges_the_fee_once(
        process: ServeProcess, db_url: str, charged_before_kill: bool) -> None:
    """Four players finish a hand of an eight-hand silver match and go away: in the pause
    the table is abandoned (their escapes and the ``end``, one write), and the server is
    killed before the match is over.  With ``fee-paid`` the dead process had charged the
    fee just before the kill (the store call it makes, made here).  The restarted server
    ends the match with that one hand, and every seat has paid F exactly once."""
    store = open_store(db_url, password_hasher=FAST_HASHER, starting_silver=RICH)
    try:
        tokens, accounts = [], []
        for i in range(4):
            account = store.register(f"pauser{i}", PASSWORD)
            tokens.append(store.login(account.username, PASSWORD).token)
            accounts.append(account.id)

        async def scenario() -> str:
            clients = await seat_four(process, tokens,  # type: ignore[arg-type]
                                      hands=8, stake=5, profile="bianfeng")
            ends = await asyncio.gather(*(play(c, seed=30 + i, until="hand_end", timeout=120)
                                          for i, c in enumerate(clients)))
            assert all(e["hand_no"] == 0 and e["next_hand_in"] == 60 for e in ends)
            for c in clients:
                await c.close()  # nobody connected: abandoned after 0.5 s, in the pause
            return str(clients[0].of_type("table")[0]["match_id"])

        match_id = asyncio.run(scenario())
        logged = _wait_for(store, match_id, lambda m: any(e.kind == "end" for e in m.events),
                           "never abandoned")
        assert logged.status == "running" and logged.hands_done == 1
        assert store.is_settled(hand_game_id(match_id, 0))
        assert not store.is_settled(fee_game_id(match_id))  # the pause still runs
        process.kill()
        if charged_before_kill:
            assert store.settle_match_fee(match_id, logged.epoch, accounts, stake=5, fee=FEE,
                                          profile="bianfeng") is not None
        process.start()
        _wait_for(store, match_id, lambda m: m.status == "finished", "not finished")
        check_fee_once(store, match_id, accounts, hands=1, fee=FEE)
        r = httpx.get(f"{process.http}/api/health", timeout=10)
        assert r.status_code == 200
        assert store.running_matches() == []
        assert "Traceback" not in process.log.read_text(errors="replace")
    finally:
        store.close()
