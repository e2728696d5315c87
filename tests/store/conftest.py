"""Fixtures of the store tests: every DB test runs on SQLite and on PostgreSQL.

The PostgreSQL URL comes from ``WUHAN_MAHJONG_TEST_PG`` (``.ci/run`` sets it,
e.g. ``postgresql+psycopg://user:pw@127.0.0.1:5432/wuhan_mahjong_test``).
Each test gets a fresh schema in that database (dropped afterwards), so tests
never see each other's rows.  Without the variable the PostgreSQL cases are
skipped, or fail when ``CI`` or ``WUHAN_MAHJONG_REQUIRE_SERVICES`` is set: CI
must not silently lose them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

from wuhan_mahjong.store import Store, open_store

OpenStore = Callable[..., Store]

PG_ENV = "WUHAN_MAHJONG_TEST_PG"

# argon2id with tiny costs: the tests hash many passwords.
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@pytest.fixture(scope="session")
def pg_admin() -> Iterator[Engine]:
    base = os.environ.get(PG_ENV)
    if not base:
        if os.environ.get("CI") or os.environ.get("WUHAN_MAHJONG_REQUIRE_SERVICES"):
            pytest.fail(
                f"{PG_ENV} is not set, so the PostgreSQL store tests cannot run. "
                f"CI must provide it (see .ci/run), e.g. "
                f"{PG_ENV}=postgresql+psycopg://user:password@127.0.0.1:5432/dbname",
                pytrace=False,
            )
        pytest.skip(f"PostgreSQL store tests need {PG_ENV}=postgresql+psycopg://...")
    engine = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        yield engine
    finally:
        engine.dispose()


def _pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    admin: Engine = request.getfixturevalue("pg_admin")
    schema = f"wm_test_{uuid.uuid4().hex[:16]}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(os.environ[PG_ENV]).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture
def pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """The URL of a fresh, empty PostgreSQL schema (for what only PostgreSQL does)."""
    yield from _pg_url(request)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a fresh, empty database (not yet migrated)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'db' / 'store.db'}"
    else:
        yield from _pg_url(request)


@pytest.fixture
def store(db_url: str, migrated_sqlite: Callable[[str], None]) -> Iterator[Store]:
    """A migrated store on a fresh database, with cheap password hashing."""
    migrated_sqlite(db_url)
    opened = open_store(db_url, password_hasher=FAST_HASHER)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def make_store(db_url: str, migrated_sqlite: Callable[[str], None]) -> Iterator[OpenStore]:
    """Open (more) stores on the test database: ``make_store(**open_store_options)``.

    Cheap password hashing unless ``password_hasher`` is given; all are closed
    at the end of the test.
    """
    opened: list[Store] = []

    def make(**options: object) -> Store:
        options.setdefault("password_hasher", FAST_HASHER)
        migrated_sqlite(db_url)
        new = open_store(db_url, **options)  # type: ignore[arg-type]
        opened.append(new)
        return new

    yield make
    for each in opened:
        each.close()


@pytest.fixture
def backend(db_url: str) -> str:
    return make_url(db_url).get_backend_name()
