"""Migrations: applied by open_store to an empty database, idempotent, match the models."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, func, inspect, select, text

from wuhan_mahjong.store import Store, open_store
from wuhan_mahjong.store.database import create_store_engine
from wuhan_mahjong.store.errors import ForeignDatabase
from wuhan_mahjong.store.migrate import (
    alembic_config,
    current_revision,
    head_revision,
    newest_shipped,
    upgrade,
)
from wuhan_mahjong.store.models import AccountRow, Base

TABLES = {
    "accounts",
    "auth_sessions",
    "ledger",
    "settlements",
    "match_results",
    "hand_records",
    "hand_seats",
}


def house_count(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(
            connection.scalar(
                select(func.count()).select_from(AccountRow).where(AccountRow.is_house)
            )
            or 0
        )


def test_empty_database_is_migrated_to_head(db_url: str) -> None:
    engine = create_store_engine(db_url)
    try:
        assert current_revision(engine) is None
        assert not TABLES & set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    with open_store(db_url) as store:
        assert current_revision(store.engine) == head_revision()
        assert set(inspect(store.engine).get_table_names()) >= TABLES | {"alembic_version"}
        assert house_count(store.engine) == 1


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_slow_migration_is_not_ended_as_an_idle_session(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's sessions end after a few seconds idle in a transaction; a migration's
    runs Python between its statements, which a loaded machine stretched past them (seen in
    the suite: PostgreSQL ended the migration at ``CREATE TABLE tournaments``).  Here the
    store's limit is 0.2 s and the migration pauses 0.6 s after its first statement."""
    import time

    from wuhan_mahjong.store import database

    monkeypatch.setattr(database, "PG_IDLE_IN_TRANSACTION_MS", 200)
    real_upgrade = command.upgrade

    def paused(config: Any, revision: str) -> None:
        connection = config.attributes["connection"]
        connection.execute(text("SELECT 1"))
        time.sleep(0.6)
        real_upgrade(config, revision)

    monkeypatch.setattr(command, "upgrade", paused)
    with open_store(db_url) as store:
        assert current_revision(store.engine) == head_revision()
        assert house_count(store.engine) == 1


def test_migrations_are_idempotent(db_url: str) -> None:
    with open_store(db_url) as store:
        account = store.create_guest().account
        upgrade(store.engine)  # again: nothing to do
        upgrade(store.engine)
    with open_store(db_url) as store:  # and again at the next start
        assert store.account(account.id) == account
        assert house_count(store.engine) == 1
        assert store.audit().ok


def test_models_match_migrations(store: Store) -> None:
    with store.engine.connect() as connection:
        diff = compare_metadata(
            MigrationContext.configure(connection, opts={"compare_type": True}), Base.metadata
        )
    assert diff == []


def test_downgrade_and_upgrade_again(store: Store) -> None:
    with store.engine.begin() as connection:
        command.downgrade(alembic_config(connection), "base")
    assert not TABLES & set(inspect(store.engine).get_table_names())
    assert current_revision(store.engine) is None
    upgrade(store.engine)
    assert current_revision(store.engine) == head_revision()
    assert house_count(store.engine) == 1


def test_the_newest_revision_is_read_from_the_file_names_as_alembic_reads_it() -> None:
    assert newest_shipped() == head_revision()


OPEN_AND_TELL = """
import sys
from wuhan_mahjong.store import open_store
from wuhan_mahjong.store.migrate import current_revision
with open_store(sys.argv[1]) as store:
    print("alembic" in sys.modules, current_revision(store.engine))
"""


def _open_in_a_new_process(db_url: str) -> str:
    done = subprocess.run([sys.executable, "-c", OPEN_AND_TELL, db_url], capture_output=True,
                          text=True, timeout=120, check=True)
    return done.stdout.strip()


def test_a_start_on_a_database_at_the_newest_revision_loads_no_migration(db_url: str) -> None:
    """Each start of ``serve``, of a node or of a CLI command opens the store: one query finds
    the database at the newest revision and Alembic is not even imported (a third of a second
    of every start).  A database one revision behind is still upgraded."""
    with open_store(db_url) as store:
        account = store.create_guest().account
    assert _open_in_a_new_process(db_url) == f"False {head_revision()}"
    with open_store(db_url) as store:
        with store.engine.begin() as connection:
            command.downgrade(alembic_config(connection), "-1")
        assert current_revision(store.engine) != head_revision()
    assert _open_in_a_new_process(db_url) == f"True {head_revision()}"
    with open_store(db_url) as store:
        assert store.account(account.id) == account


def test_concurrent_starts_migrate_once(db_url: str) -> None:
    stores: list[Store] = []
    errors: list[BaseException] = []
    start = threading.Barrier(3)

    def work() -> None:
        try:
            start.wait()
            stores.append(open_store(db_url))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    try:
        assert not errors, errors
        assert len(stores) == 3
        assert len({store.house_account_id for store in stores}) == 1
        assert house_count(stores[0].engine) == 1
    finally:
        for store in stores:
            store.close()


def test_sqlite_folder_is_created(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "store.db"
    with open_store(f"sqlite:///{path}") as store:
        assert path.exists()
        assert store.audit().ok


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:", "mysql://x@localhost/db"])
def test_unsupported_urls(url: str) -> None:
    with pytest.raises(ValueError):
        open_store(url)


def _table_names(url: str) -> set[str]:
    engine = create_store_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_another_program_s_database_is_refused_and_left_alone(db_url: str) -> None:
    """A mistyped ``--db`` naming another program's database: the store used to migrate
    it, adding its tables beside the other program's.  It refuses and changes nothing."""
    engine = create_store_engine(db_url)
    try:
        with engine.begin() as connection:
            connection.execute(text("CREATE TABLE photos (id INTEGER PRIMARY KEY, title TEXT)"))
            connection.execute(text("INSERT INTO photos VALUES (1, 'the lake')"))
    finally:
        engine.dispose()
    with pytest.raises(ForeignDatabase, match=r"no wuhan-mahjong database \(it holds 1 other "
                                              r"table: photos\)"):
        open_store(db_url)
    assert _table_names(db_url) == {"photos"}


def test_a_revision_this_version_does_not_ship_is_refused(db_url: str) -> None:
    """A newer version's database (or another Alembic program's): alembic's own error named
    no database; the store names the revision and migrates nothing."""
    with open_store(db_url):
        pass
    engine = create_store_engine(db_url)
    try:
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = 'f00dfeed0099'"))
    finally:
        engine.dispose()
    with pytest.raises(ForeignDatabase, match="schema revision 'f00dfeed0099'"):
        open_store(db_url)
