"""Usernames registered before skeletons: the v0006 migration rekeys them, and they log in.

On SQLite and PostgreSQL.
"""

from __future__ import annotations

import pytest
from alembic import command
from argon2 import PasswordHasher
from sqlalchemy import insert, select

from wuhan_mahjong.store import Store, StoreSettings, UsernameTaken
from wuhan_mahjong.store.database import create_store_engine
from wuhan_mahjong.store.migrate import alembic_config, upgrade
from wuhan_mahjong.store.models import AccountRow, utcnow

FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)

LEGACY = [  # name, the key it was stored under before skeletons (NFKC + casefold)
    ("Alice", "alice"),
    ("AI", "ai"),  # A + capital i
    ("Al", "al"),  # A + small L: the same skeleton as "AI", which already holds it
    ("张三", "张三"),
]


def _keys(store: Store) -> dict[str, str]:
    with store._read() as session:
        return dict(session.execute(select(AccountRow.username, AccountRow.username_key)
                                    .where(AccountRow.is_house.is_(False))).all())


def test_legacy_names_are_rekeyed_and_still_log_in(db_url: str) -> None:
    engine = create_store_engine(db_url)
    try:
        upgrade(engine, "v0005_published_hands")
        password_hash = FAST_HASHER.hash("secret-123")
        with engine.begin() as connection:
            for name, key in LEGACY:
                connection.execute(insert(AccountRow.__table__).values(
                    username=name, username_key=key, password_hash=password_hash, is_guest=False,
                    is_house=False, silver=0, points=0, created_at=utcnow()))
        upgrade(engine)
        store = Store(engine, StoreSettings(password_hasher=FAST_HASHER))
        keys = _keys(store)
        # Alice takes her skeleton; "AI" already had "ai"; "Al" would clash with it and
        # keeps its old key; 张三 has no look-alike to fold
        assert keys == {"Alice": "aiice", "AI": "ai", "Al": "al", "张三": "张三"}
        for name, _ in LEGACY:  # every one logs in by his own name, to his own account
            assert store.login(name, "secret-123").account.username == name
            found = store.account_by_username(name.lower())
            assert found is not None and found.username == name
        for look_alike in ("\u0410lice", "ALICE", "Al1ce"):
            with pytest.raises(UsernameTaken):
                store.register(look_alike, "secret-123")
        assert store.audit().ok
        # and back: the old keys again
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "v0005_published_hands")
        assert _keys(store) == dict(LEGACY)
    finally:
        engine.dispose()
