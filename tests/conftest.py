"""The two test loops: ``python3 -m pytest -m "not slow"`` (everyday) and ``python3 -m pytest``
(everything, CI).  Either may add ``-n auto`` (two workers per core, at most 4, each test file
on one worker, so a file's tests run in order as in one process, but for the long files of
independent tests in :data:`SPLIT_BY_TEST`: ``addopts`` in ``pyproject.toml``).  Tests that
share a service get their own part of it (a PostgreSQL schema, a SQLite file, a Redis
database from the worker's own share, a free port), so workers never meet.

A test is ``slow`` when it is inherently long: a bot loop, a soak, a multi-node cluster, a
crash with ``kill -9``, a long browser flow, a restart.  Its decorator says so; every slow test
still runs in CI.  The everyday loop keeps a quick test of every area.

The one rule kept here rather than on each test: the PostgreSQL run of a database test
(``db_url`` parametrized ``"postgresql"``, in ``tests/server`` and ``tests/store``) repeats its
SQLite run, so it is slow, except in the modules of :data:`PG_EVERYDAY`: cheap ones that keep
the dialect (migrations, JSON and large-object columns, the match log) in the everyday loop.

A store or server opened on a fresh SQLite file starts from a copy of one database migrated
once per run (:func:`migrated_sqlite`): migrating costs about 70 ms per file, copying 5 ms.
The migration tests (:data:`MIGRATE_FRESH`) and every test that opens a URL itself still
migrate.
"""

from __future__ import annotations

import functools
import os
import shutil
import sqlite3
import ssl
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import make_url

TESTS = Path(__file__).resolve().parent

PG_EVERYDAY = frozenset({"store/test_store_migrations.py", "store/test_store_records.py",
                         "store/test_matchlog.py"})
"""Modules (relative to ``tests/``) whose PostgreSQL runs stay in the everyday loop."""

MIGRATE_FRESH = frozenset({"store/test_store_migrations.py"})
"""Modules (relative to ``tests/``) whose stores migrate their own SQLite files."""

SeedSqlite = Callable[[str], None]

HTTPX_CALLS = ("request", "stream", "get", "options", "head", "post", "put", "patch", "delete")
"""httpx's one-request functions, which the tests call a few thousand times a run."""

TLS_CONTEXT: ssl.SSLContext = httpx.create_ssl_context()
"""The TLS context of every one-request httpx call of the tests (:func:`_one_tls_context`)."""


def _one_tls_context() -> None:
    """Give httpx's one-request functions (``httpx.get(...)``) one TLS context for the whole
    run.  Each call builds a client, and the client a TLS context from certifi's bundle:
    35 ms of CPU for a request that takes 2, and never used (the tests speak plain
    ``http://`` to their loopback servers).  The context is the one httpx would build
    (``create_ssl_context()``, the same defaults and environment); each call still opens its
    own client and connection, and a call that names its own ``verify`` keeps it."""
    for name in HTTPX_CALLS:
        call = getattr(httpx, name)
        if not isinstance(call, functools.partial):  # (conftest imported once per process)
            setattr(httpx, name, functools.partial(call, verify=TLS_CONTEXT))


_one_tls_context()


SPLIT_BY_TEST = frozenset({"tests/server/test_cluster.py"})
"""Modules (relative to the root) whose tests ``-n`` spreads over the workers one by one
instead of keeping the module on one worker: long modules of independent tests (every
fixture per test), so that none of them is the run's tail."""

WORKERS_PER_CORE = 2
"""``-n auto`` starts this many workers per core (at most ``--maxprocesses``).  Most of a
run is waiting (for a server, the nodes, a browser, a heartbeat): with one worker per core
the cores were idle two fifths of a full run (29 minutes; 24 with two per core).  Three per
core (``-n 6``) took longer (26.6 minutes against 24.8 on 7 December 2026): the waiting is
on the servers, PostgreSQL and Chromium the tests start, which more workers only crowd."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` (``addopts``) with the modules of :data:`SPLIT_BY_TEST` spread test
    by test; any other ``--dist`` is xdist's own."""
    if config.getoption("dist") != "loadfile":
        return None
    try:  # (``_split_scope`` is xdist's own: were it renamed, the modules stay whole)
        from xdist.scheduler import LoadScopeScheduling
    except ImportError:
        return None

    class ModulesButSplit(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return nodeid if module in SPLIT_BY_TEST else module

    return ModulesButSplit(config, log)


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        spec = getattr(item, "callspec", None)
        if spec is None or spec.params.get("db_url") != "postgresql":
            continue
        try:
            where = item.path.resolve().relative_to(TESTS).as_posix()
        except ValueError:
            continue
        if where not in PG_EVERYDAY:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def migrated_sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database migrated to the newest schema by ``open_store``, once per run."""
    from wuhan_mahjong.store import open_store

    path = tmp_path_factory.mktemp("migrated") / "template.db"
    open_store(f"sqlite:///{path}").close()
    with sqlite3.connect(path) as connection:  # everything in the main file, no -wal beside it
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture
def migrated_sqlite(request: pytest.FixtureRequest) -> SeedSqlite:
    """``seed(url)``: a SQLite URL whose file does not exist yet gets a copy of
    :func:`migrated_sqlite_template`, so the ``open_store`` that follows finds it at the newest
    schema (what migrating the empty file would give) instead of migrating it.  Other URLs, an
    existing file, and the modules of :data:`MIGRATE_FRESH` are left alone."""
    try:
        where = request.path.resolve().relative_to(TESTS).as_posix()
    except ValueError:
        where = ""

    def seed(url: str) -> None:
        parsed = make_url(url)
        if parsed.get_backend_name() != "sqlite" or not parsed.database or where in MIGRATE_FRESH:
            return
        path = Path(parsed.database)
        if path.exists():
            return
        template: Path = request.getfixturevalue("migrated_sqlite_template")
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(template, path)

    return seed


RatedMatch = Callable[[Any, str, list[int], list[int]], None]
"""``rated_match(store, match_id, account_ids, points)``."""


@pytest.fixture(scope="session")
def rated_match() -> RatedMatch:
    """Record a finished match of four humans with one settled hand, as a table ends one
    (so it is rated): for tests of the leaderboards and the players' pages that need
    ratings without playing."""
    from wuhan_mahjong.store import HandRecord

    def record(store: Any, match_id: str, players: list[int], points: list[int]) -> None:
        seats = [{"account_id": a, "name": f"p{a}", "is_bot": False} for a in players]
        epoch = store.open_match(match_id, "t-" + match_id, "00",
                                 {"profile": "yuanhang", "seats": seats})
        hand = HandRecord(match_id=match_id, hand_no=0, commitment="c" * 64, wall="1m" * 136,
                          salt="00" * 32, events="{}", seats=dict(enumerate(players)))
        store.finish_hand(match_id, epoch, hand, dict(zip(players, points, strict=True)),
                          stake=0, fee=0, profile="yuanhang", totals=points)
        store.end_match(match_id, epoch, "finished")

    return record


PlayedMatch = Callable[[Any, str, list[int], str, int], list[Any]]
"""``played_match(store, match_id, account_ids, profile, seed)``."""


@pytest.fixture(scope="session")
def played_match() -> PlayedMatch:
    """Save the records of a real two-hand match (the engine's built-in player in every
    seat, walls from ``seed``) for four accounts, as a table saves its hands: for tests of
    the players' statistics that need played hands without playing through a server.
    Returns the saved records."""
    import random

    from wuhan_mahjong.engine import Match, simple_policy
    from wuhan_mahjong.rules import get_rules
    from wuhan_mahjong.store import HandRecord

    def record(store: Any, match_id: str, players: list[int], profile: str,
               seed: int) -> list[Any]:
        match = Match(get_rules(profile), 2, rng=random.Random(seed))
        match.run(simple_policy)
        return [store.save_hand_record(HandRecord(
            match_id=match_id, hand_no=h.hand_no, commitment="c" * 64, wall="", salt="00" * 32,
            events="\n".join(h.records), seats=dict(enumerate(players))))
            for h in match.history]

    return record
