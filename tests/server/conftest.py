"""Fixtures of the server tests: every server runs on SQLite and on PostgreSQL.

See ``harness.py`` for the server and client helpers.  The PostgreSQL URL comes
from ``WUHAN_MAHJONG_TEST_PG`` (``.ci/run`` sets it); each test gets a fresh
schema.  Without the variable the PostgreSQL cases are skipped, or fail when
``CI`` or ``WUHAN_MAHJONG_REQUIRE_SERVICES`` is set.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from wuhan_mahjong.store import Store, open_store

from .harness import FAST, FAST_HASHER, PG_ENV, Server, StartServer


def _pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    base = os.environ.get(PG_ENV)
    if not base:
        if os.environ.get("CI") or os.environ.get("WUHAN_MAHJONG_REQUIRE_SERVICES"):
            pytest.fail(f"{PG_ENV} is not set, so the PostgreSQL server tests cannot run; "
                        "CI must provide it (see .ci/run)", pytrace=False)
        pytest.skip(f"PostgreSQL server tests need {PG_ENV}=postgresql+psycopg://...")
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    schema = f"wm_srv_{uuid.uuid4().hex[:16]}"
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
        yield url.render_as_string(hide_password=False)
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    finally:
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'server.db'}"
    else:
        yield from _pg_url(request)


@pytest.fixture
def start_server(db_url: str, migrated_sqlite: Callable[[str], None]) -> Iterator[StartServer]:
    """Start servers on this test's database: ``start_server(**config_overrides)``."""
    started: list[Server] = []
    stores: list[Store] = []

    def start(**overrides: Any) -> Server:
        migrated_sqlite(db_url)
        store = open_store(db_url, password_hasher=FAST_HASHER,
                           starting_silver=overrides.pop("starting_silver", 1000))
        stores.append(store)
        server = Server(replace(FAST, **overrides), store)
        started.append(server)
        return server

    try:
        yield start
    finally:
        for s in started:
            s.stop()
        for st in stores:
            st.close()


@pytest.fixture
def server(start_server: StartServer) -> Server:
    return start_server()


