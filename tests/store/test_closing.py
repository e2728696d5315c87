"""Closing an account (注销): its name, password, sessions and follows go, its silver goes to
the house (the audit holds), its records stay under a tombstone that nothing can find; a
player in a running match cannot close; the operator's command does the same.  On SQLite
and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import select

from wuhan_mahjong.cli import main
from wuhan_mahjong.store import AccountInMatch, AuthenticationFailed, Store, UnknownAccount
from wuhan_mahjong.store.admin import Admin
from wuhan_mahjong.store.closing import close_account, closed_name
from wuhan_mahjong.store.models import MatchRow
from wuhan_mahjong.store.ratings import MIN_MATCHES, leaderboard, public_player
from wuhan_mahjong.store.social import follow, following

PW = "correct horse battery"


def _config(store: Store, match_id: str) -> dict[str, Any]:
    with store._read() as session:
        row = session.get(MatchRow, match_id)
        assert row is not None
        return dict(json.loads(row.config))


def test_closing_an_account(store: Store, played_match: Callable[..., list[Any]],
                            rated_match: Callable[..., None]) -> None:
    alice = store.register("alice", PW)
    others = [store.register(n, PW) for n in ("bob", "cat", "dan")]
    ids = [alice.id, *(o.id for o in others)]
    store.grant(alice.id, 234)
    token = store.login("alice", PW).token
    follow(store, alice.id, "bob")
    follow(store, others[0].id, "alice")
    records = played_match(store, "pm", ids, "yuanhang", 17)
    for k in range(MIN_MATCHES):
        rated_match(store, f"rm{k}", ids, [30, 10, -10, -30])
    assert leaderboard(store, "yuanhang")[0].username == "alice"
    silver = store.account(alice.id).silver

    with pytest.raises(AuthenticationFailed):  # the password is asked for
        store.close_account(alice.id, "not her password")
    with pytest.raises(AuthenticationFailed):
        store.close_account(alice.id, None)
    assert store.account(alice.id).username == "alice"

    assert store.close_account(alice.id, PW) == silver
    closed = store.account(alice.id)
    assert closed.username == closed_name(alice.id) and closed.silver == 0
    audit = store.audit()
    assert audit.ok and audit.closure_income == silver and audit.house_balance == silver
    assert store.ledger(alice.id)[0].reason == "account_closed"
    # nothing finds or uses it any more
    assert store.account_for_token(token) is None
    with pytest.raises(AuthenticationFailed):
        store.login("alice", PW)
    with pytest.raises(AuthenticationFailed):
        store.login(closed_name(alice.id), PW)
    assert store.account_by_username("alice") is None
    assert public_player(store, closed_name(alice.id)) is None
    assert "alice" not in [line.username for line in leaderboard(store, "yuanhang")]
    assert following(store, others[0].id) == []
    assert following(store, alice.id) == []
    # the other players keep their records and replays, under the tombstone
    record = store.hand_record("pm", records[0].hand_no, viewer=others[0].id)
    assert record is not None and record.seats[0] == alice.id
    # his name is gone from his matches' stored seats (rated_match names seats p<id>)
    for k in range(MIN_MATCHES):
        names = [s["name"] for s in _config(store, f"rm{k}")["seats"]]
        assert names == [closed_name(alice.id), *(f"p{o.id}" for o in others)]
    # the name is free again, for someone else
    again = store.register("alice", PW)
    assert again.id != alice.id
    with pytest.raises(AuthenticationFailed):  # closed once: nothing to authenticate
        store.close_account(alice.id, PW)
    with pytest.raises(UnknownAccount):  # and to an operator, no such account
        close_account(store, alice.id, actor="t")
    (logged,) = [a for a in Admin(store, "t").actions() if a.action == "close_account"]
    assert logged.actor == "player" and logged.account_id == alice.id
    assert logged.detail is not None and logged.detail["silver"] == silver


def test_a_guest_closes_without_a_password(store: Store) -> None:
    guest = store.create_guest()
    assert store.close_account(guest.account.id, None) == guest.account.silver
    assert store.account_for_token(guest.token) is None
    assert store.audit().ok


def test_not_while_in_a_running_match(store: Store) -> None:
    ids = [store.register(n, PW).id for n in ("ann", "ben", "cal", "deb")]
    seats = [{"account_id": a, "name": f"n{a}", "is_bot": False} for a in ids]
    epoch = store.open_match("run", "t", "00", {"profile": "yuanhang", "seats": seats})
    with pytest.raises(AccountInMatch):
        store.close_account(ids[2], PW)
    assert store.account(ids[2]).username == "cal"
    store.end_match("run", epoch, "aborted")
    store.close_account(ids[2], PW)
    # a match ended before its first hand kept his name in its seats: it is gone too
    assert [s["name"] for s in _config(store, "run")["seats"]][2] == closed_name(ids[2])


def test_no_match_opens_with_a_closed_account(store: Store) -> None:
    """An operator's close (out of the server) may land while the server seats the
    player, before it opens the match: the open is refused, nothing is written, and the
    match would otherwise settle into the closed account."""
    ids = [store.register(n, PW).id for n in ("ann", "ben", "cal", "deb")]
    seats = [{"account_id": a, "name": f"n{a}", "is_bot": False} for a in ids]
    close_account(store, ids[1], actor="operator")
    with pytest.raises(UnknownAccount):
        store.open_match("late", "t", "00", {"profile": "yuanhang", "seats": seats})
    with store._read() as session:
        assert session.get(MatchRow, "late") is None
    store.open_match("ok", "t", "00", {"profile": "yuanhang", "seats": [seats[0], seats[2]]})


def test_the_operator_closes_an_account(store: Store, db_url: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    eve = store.register("eve", PW)
    code = main(["admin", "--db", db_url, "--as", "tester", "close", "eve", "--reason",
                 "asked by mail"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"closed eve (account {eve.id}); {eve.silver} silver went to the house" in out
    assert store.account(eve.id).username == closed_name(eve.id)
    assert store.audit().ok
    for name in ("eve", closed_name(eve.id)):  # no such account now; closed already
        code = main(["admin", "--db", db_url, "--as", "tester", "close", name])
        _, err = capsys.readouterr()
        assert code == 2 and "Traceback" not in err
        assert err.strip().splitlines()[-1].startswith("wuhan-mahjong: error: ")
    with store._read() as session:
        assert session.scalars(select(MatchRow)).all() == []


def test_closing_leaves_the_accounts_tournaments(store: Store) -> None:
    from wuhan_mahjong.store import tournaments as tour

    ids = [store.register(n, PW).id for n in ("tia", "tib", "tic", "tid", "tie")]
    running = tour.create(store, ids[1], "running", "yuanhang", hands=1, rounds=2, capacity=8)
    for a in (ids[0], *ids[2:]):
        tour.join(store, running, a)
    tour.start(store, running, ids[1])
    entered = tour.create(store, ids[2], "open", "yuanhang", hands=1, rounds=1, capacity=8)
    tour.join(store, entered, ids[0])
    mine = tour.create(store, ids[0], "hers", "yuanhang", hands=1, rounds=1, capacity=8)
    other = store.register("tif", PW).id
    tour.join(store, mine, other)
    store.close_account(ids[0], PW)
    standing = {s.account_id: s for s in tour.standings(store, running)}
    assert standing[ids[0]].withdrawn  # seated no more in the running one
    assert ids[0] not in {s.account_id for s in tour.standings(store, entered)}
    assert tour.detail(store, mine).tournament.status == "cancelled"  # type: ignore[union-attr]
    assert tour.entered(store, other) is None  # her entrant is free again
