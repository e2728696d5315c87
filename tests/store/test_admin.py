"""The operator's actions on the store: each written to the admin event log (a grant also
to the ledger); a banned account cannot log in or use a session; running tables; drain."""

from __future__ import annotations

import pytest

from wuhan_mahjong.store import AccountBanned, AuthenticationFailed, InsufficientSilver, Store
from wuhan_mahjong.store import admin as admin_module
from wuhan_mahjong.store.admin import (
    Admin,
    AdminError,
    account_banned,
    last_action_id,
    poll_server_state,
)

PW = "correct horse battery"


def test_grant_is_a_named_ledger_source_and_logged(store: Store) -> None:
    alice = store.register("alice", PW)
    admin = Admin(store, "ops")
    assert admin.grant("ALICE", 250, "prize") == 1250
    assert admin.grant("alice", -50) == 1200
    entries = store.ledger(alice.id)
    assert [(e.delta, e.reason) for e in entries[:2]] == [(-50, "operator_grant"),
                                                          (250, "operator_grant")]
    assert entries[1].reference == "prize"
    audit = store.audit()
    assert audit.ok and audit.sources["operator_grant"] == 200
    with pytest.raises(InsufficientSilver):
        admin.grant("alice", -5000)
    with pytest.raises(AdminError):
        admin.grant("nobody", 5)
    with pytest.raises(AdminError):
        admin.grant("alice", 0)
    log = admin.actions()
    assert [(a.action, a.account_id, a.actor) for a in log] == [("grant", alice.id, "ops")] * 2
    assert log[0].detail == {"amount": -50, "balance": 1200, "reason": None}


def test_a_grant_and_its_log_row_land_together(store: Store,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A grant whose event-log row cannot be written is not made: silver never moves
    without the record of who moved it (they were two transactions)."""
    alice = store.register("alice", PW)
    admin = Admin(store, "ops")

    def broken_log(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the log table is away")

    monkeypatch.setattr(admin_module, "log_action", broken_log)
    with pytest.raises(RuntimeError):
        admin.grant("alice", 250, "prize")
    assert store.account(alice.id).silver == 1000
    assert [e.reason for e in store.ledger(alice.id)] == ["signup_grant"]
    monkeypatch.undo()
    assert admin.grant("alice", 250, "prize") == 1250
    assert [a.action for a in admin.actions()] == ["grant"]
    assert store.audit().ok


def test_banned_account_cannot_log_in_or_use_its_sessions(store: Store) -> None:
    bob = store.register("bob", PW)
    session = store.login("bob", PW)
    assert store.account_for_token(session.token) is not None
    admin = Admin(store, "ops")
    since = last_action_id(store)
    admin.ban("bob", "cheating")
    assert account_banned(store, bob.id)
    with pytest.raises(AccountBanned):
        store.login("bob", PW)
    with pytest.raises(AuthenticationFailed):  # a wrong password says nothing more
        store.login("bob", "wrong password!")
    assert store.account_for_token(session.token) is None
    assert poll_server_state(store, since).banned == (bob.id,)
    with pytest.raises(AdminError):
        admin.ban("bob")
    assert [name for name, _r, _t in admin.banned()] == ["bob"]
    admin.unban("bob")
    assert not account_banned(store, bob.id)
    assert store.account_for_token(session.token) is not None  # the session works again
    assert store.login("bob", PW).account.id == bob.id
    with pytest.raises(AdminError):
        admin.unban("bob")
    assert [a.action for a in admin.actions()] == ["unban", "ban"]


def test_reset_password_ends_every_session(store: Store) -> None:
    store.register("carol", PW)
    old = store.login("carol", PW)
    admin = Admin(store, "ops")
    new = admin.reset_password("carol")
    assert len(new) >= 12
    assert store.account_for_token(old.token) is None
    with pytest.raises(AuthenticationFailed):
        store.login("carol", PW)
    assert store.login("carol", new).account.username == "carol"
    assert admin.reset_password("carol", "another good secret") == "another good secret"
    assert store.login("carol", "another good secret")
    with pytest.raises(ValueError):
        admin.reset_password("carol", "short")
    guest = store.create_guest().account
    with pytest.raises(AdminError):
        admin.reset_password(guest.username)
    assert admin.actions()[0].detail == {"generated": False, "sessions_ended": 1}


def test_tables_lists_running_matches_and_drain_flag(store: Store) -> None:
    ids = [store.register(f"p{k}", PW).id for k in range(3)]
    seats = [{"account_id": a, "name": f"p{k}", "is_bot": False} for k, a in enumerate(ids)]
    seats.append({"account_id": store.create_bot().id, "name": "Bot", "is_bot": True})
    admin = Admin(store, "ops")
    assert admin.tables() == []
    epoch = store.open_match("m1", "t1", "00", {"profile": "bianfeng", "hands": 4, "stake": 2,
                                                "seats": seats}, owner="host:1")
    (table,) = admin.tables()
    assert (table.match_id, table.table_id, table.profile, table.hands, table.stake,
            table.owner) == ("m1", "t1", "bianfeng", 4, 2, "host:1")
    assert table.players == ("p0", "p1", "p2", "Bot (bot)")
    store.end_match("m1", epoch, "finished")
    assert admin.tables() == []
    since = last_action_id(store)
    assert not admin.draining() and not poll_server_state(store, since).draining
    admin.set_drain(True)
    assert admin.draining() and poll_server_state(store, since).draining
    admin.set_drain(False)
    assert not admin.draining()
    assert [a.action for a in admin.actions(2)] == ["undrain", "drain"]


def test_audit_is_logged(store: Store) -> None:
    admin = Admin(store, "ops")
    assert admin.audit().ok
    (entry,) = admin.actions()
    assert entry.action == "audit" and entry.detail is not None and entry.detail["ok"] is True
