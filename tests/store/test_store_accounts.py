"""Accounts, passwords, guests and session tokens, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from argon2 import PasswordHasher
from sqlalchemy import select

from wuhan_mahjong.store import (
    AuthenticationFailed,
    InvalidPassword,
    InvalidSettlement,
    InvalidUsername,
    Store,
    UnknownAccount,
    UsernameTaken,
    open_store,
)
from wuhan_mahjong.store.accounts import hash_token
from wuhan_mahjong.store.models import AccountRow, AuthSessionRow

OpenStore = Callable[..., Store]


def test_register_and_login(store: Store) -> None:
    account = store.register("Alice", "secret-1")
    assert account.username == "Alice"
    assert not account.is_guest
    assert account.silver == 1000
    assert account.points == 0
    assert account.level.number == 1
    assert account.created_at.tzinfo is not None
    assert abs(datetime.now(UTC) - account.created_at) < timedelta(minutes=1)

    login = store.login("alice", "secret-1")  # usernames are case-insensitive
    assert login.account.id == account.id
    assert login.expires_at is not None
    assert store.account_for_token(login.token) == login.account
    assert store.account(account.id) == account
    assert store.account_by_username("ALICE") == account
    assert store.account_by_username("nobody") is None


def test_wrong_password_and_unknown_user(store: Store) -> None:
    store.register("Alice", "secret-1")
    with pytest.raises(AuthenticationFailed):
        store.login("Alice", "secret-2")
    with pytest.raises(AuthenticationFailed):
        store.login("Nobody", "secret-1")
    with pytest.raises(AuthenticationFailed):
        store.login("!!", "secret-1")
    # The error does not tell which of the two was wrong.
    assert str(AuthenticationFailed()) == "wrong username or password"


def test_duplicate_username(store: Store) -> None:
    store.register("Alice", "secret-1")
    for name in ("Alice", "alice", "ALICE", "Ａｌｉｃｅ"):  # NFKC folds the full-width form
        with pytest.raises(UsernameTaken, match="already taken"):
            store.register(name, "another-pw")
    store.register("张三", "secret-1")
    with pytest.raises(UsernameTaken):
        store.register("张三", "secret-1")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("a", "2 to 20"),
        ("a" * 21, "2 to 20"),
        ("al ice", "only contain"),
        ("al@ice", "only contain"),
        ("1alice", "start with a letter"),
        ("_alice", "start with a letter"),
        ("guest_42", "reserved"),
        ("Admin", "reserved"),
        ("#house", "only contain"),
    ],
)
def test_username_rules(store: Store, name: str, message: str) -> None:
    with pytest.raises(InvalidUsername, match=message):
        store.register(name, "secret-1")


def test_username_rules_accept() -> None:
    from wuhan_mahjong.store.accounts import normalize_username

    assert normalize_username("李四") == ("李四", "李四")
    assert normalize_username("Bob_the-2nd") == ("Bob_the-2nd", "bob_the-2nd")
    assert normalize_username("ＢＯＢ") == ("BOB", "bob")


@pytest.mark.parametrize("password", ["", "12345", "x" * 129])
def test_password_rules(store: Store, password: str) -> None:
    with pytest.raises(InvalidPassword):
        store.register("Alice", password)


def test_password_is_argon2id_hashed(db_url: str) -> None:
    with open_store(db_url) as store:  # default, production-strength parameters (argon2id)
        account = store.register("Alice", "secret-1")
        with store._read() as session:
            stored = session.get(AccountRow, account.id)
            assert stored is not None and stored.password_hash is not None
            assert stored.password_hash.startswith("$argon2id$")
            assert "secret-1" not in stored.password_hash
        assert store.login("Alice", "secret-1").account.id == account.id


def test_login_rehashes_weak_hash(make_store: OpenStore) -> None:
    account = make_store().register("Alice", "secret-1")
    stronger = PasswordHasher(time_cost=2, memory_cost=16, parallelism=1)
    store = make_store(password_hasher=stronger)
    store.login("Alice", "secret-1")
    with store._read() as session:
        row = session.get(AccountRow, account.id)
        assert row is not None and row.password_hash is not None
        assert not stronger.check_needs_rehash(row.password_hash)
    store.login("Alice", "secret-1")


def test_change_password(store: Store) -> None:
    account = store.register("Alice", "secret-1")
    with pytest.raises(AuthenticationFailed):
        store.change_password(account.id, "wrong-pw", "secret-2")
    store.change_password(account.id, "secret-1", "secret-2")
    with pytest.raises(AuthenticationFailed):
        store.login("Alice", "secret-1")
    store.login("Alice", "secret-2")


CAFE_NFD = "cafe\u0301-au-lait-9"
CAFE_NFC = "caf\u00e9-au-lait-9"


@pytest.mark.parametrize(("registered", "typed"), [
    (CAFE_NFD, CAFE_NFC), (CAFE_NFC, CAFE_NFD),  # a combining accent (macOS) or not
    ("mahjong\u3000rules-9", "mahjong rules-9"),  # a full-width space (Chinese IME)
])
def test_one_password_however_the_keyboard_spells_it(store: Store, registered: str,
                                                     typed: str) -> None:
    """Passwords are prepared as RFC 8265 OpaqueString: NFC, non-ASCII spaces as spaces."""
    account = store.register("Alice", registered)
    store.login("Alice", typed)
    store.login("Alice", registered)
    store.change_password(account.id, typed, "second-password-9")
    store.login("Alice", "second-password-9")


@pytest.mark.parametrize("password", ["tab\tinside-9", "zero\u200bwidth-9", "bidi\u202eover-9"])
def test_control_and_invisible_characters_are_refused(store: Store, password: str) -> None:
    with pytest.raises(InvalidPassword, match=r"U\+[0-9A-F]{4}"):
        store.register("Alice", password)


def test_a_hash_of_the_typed_text_still_logs_in_and_is_prepared(store: Store) -> None:
    """Hashes set before passwords were prepared are of the typed (NFD) text: the login
    matches it, and stores the prepared form's hash, so the NFC spelling works after."""
    account = store.register("Alice", "placeholder-pw-9")
    hasher = store.settings.password_hasher
    with store._write() as session:
        row = session.get(AccountRow, account.id)
        assert row is not None
        row.password_hash = hasher.hash(CAFE_NFD)
    with pytest.raises(AuthenticationFailed):
        store.login("Alice", CAFE_NFC)  # the old hash is of the other spelling
    store.login("Alice", CAFE_NFD)
    with store._read() as session:
        row = session.get(AccountRow, account.id)
        assert row is not None and row.password_hash is not None
        hasher.verify(row.password_hash, CAFE_NFC)
    store.login("Alice", CAFE_NFC)
    with pytest.raises(AuthenticationFailed):
        store.login("Alice", "cafe-au-lait-9")


def test_tokens_are_opaque_and_stored_hashed(store: Store) -> None:
    store.register("Alice", "secret-1")
    first = store.login("Alice", "secret-1")
    second = store.login("Alice", "secret-1")
    assert first.token != second.token
    assert len(first.token) >= 40
    with store._read() as session:
        stored = set(session.scalars(select(AuthSessionRow.token_hash)))
    assert stored == {hash_token(first.token), hash_token(second.token)}
    assert first.token not in stored


def test_logout(store: Store) -> None:
    account = store.register("Alice", "secret-1")
    first = store.login("Alice", "secret-1")
    second = store.login("Alice", "secret-1")
    assert store.logout(first.token)
    assert not store.logout(first.token)
    assert store.account_for_token(first.token) is None
    assert store.account_for_token(second.token) is not None  # other sessions live on
    assert store.logout_everywhere(account.id) == 1
    assert store.account_for_token(second.token) is None


@pytest.mark.parametrize("token", ["", "nonsense", "x" * 500])
def test_unknown_tokens(store: Store, token: str) -> None:
    assert store.account_for_token(token) is None
    assert not store.logout(token)


def test_session_expiry(make_store: OpenStore) -> None:
    store = make_store(session_ttl=timedelta(0))
    store.register("Alice", "secret-1")
    login = store.login("Alice", "secret-1")
    assert store.account_for_token(login.token) is None
    assert store.purge_expired_sessions() == 1
    store = make_store(session_ttl=None)
    login = store.login("Alice", "secret-1")
    assert login.expires_at is None
    assert store.account_for_token(login.token) is not None
    assert store.purge_expired_sessions() == 0


def test_a_session_in_use_does_not_end(store: Store) -> None:
    """A session slides to a full ttl again when used (at most once a day): a guest, who has
    no password, keeps his account as long as he plays at least once in 30 days."""
    login = store.create_guest()
    key = hash_token(login.token)

    def expires() -> datetime:
        with store._read() as session:
            row = session.get(AuthSessionRow, key)
            assert row is not None and row.expires_at is not None
            return row.expires_at

    def set_expires(at: datetime) -> None:
        with store._write() as session:
            row = session.get(AuthSessionRow, key)
            assert row is not None
            row.expires_at = at

    first = expires()
    assert store.account_for_token(login.token) is not None
    assert expires() == first  # used within its first day: no write
    # 29 days later (one day left): used again, it has 30 days again
    set_expires(datetime.now(UTC) + timedelta(days=1))
    before = datetime.now(UTC)
    assert store.account_for_token(login.token) is not None
    assert before + timedelta(days=30) <= expires() <= datetime.now(UTC) + timedelta(days=30)
    # an ended session is not brought back
    set_expires(datetime.now(UTC) - timedelta(seconds=1))
    assert store.account_for_token(login.token) is None
    assert expires() < datetime.now(UTC)


def test_guest(store: Store) -> None:
    login = store.create_guest()
    guest = login.account
    assert guest.is_guest
    assert guest.username.startswith("guest_")
    assert guest.silver == 1000
    assert store.account_for_token(login.token) == guest
    # A guest has no password: it cannot log in by name.
    with pytest.raises(AuthenticationFailed):
        store.login(guest.username, "")
    assert store.create_guest().account.id != guest.id


def test_upgrade_guest(store: Store) -> None:
    login = store.create_guest()
    guest_id = login.account.id
    store.grant(guest_id, 5)
    upgraded = store.upgrade_guest(guest_id, "Alice", "secret-1")
    assert (upgraded.id, upgraded.username, upgraded.is_guest, upgraded.silver) == (
        guest_id,
        "Alice",
        False,
        1005,
    )
    assert store.login("Alice", "secret-1").account.id == guest_id
    assert store.account_for_token(login.token) is not None  # the guest session stays
    with pytest.raises(InvalidSettlement):
        store.upgrade_guest(guest_id, "Alice2", "secret-1")  # no longer a guest
    other = store.create_guest().account.id
    with pytest.raises(UsernameTaken):
        store.upgrade_guest(other, "alice", "secret-1")


def test_starting_silver_is_configurable(make_store: OpenStore) -> None:
    store = make_store(starting_silver=250, guest_starting_silver=0)
    assert store.register("Alice", "secret-1").silver == 250
    guest = store.create_guest().account
    assert guest.silver == 0
    assert store.ledger(guest.id) == []  # no ledger row for a zero grant
    assert store.audit().ok


def test_house_account_is_not_a_player(store: Store) -> None:
    with pytest.raises(UnknownAccount):
        store.account(store.house_account_id)
    with pytest.raises(UnknownAccount):
        store.account(987654)
    with pytest.raises(AuthenticationFailed):
        store.login("#house", "")
