"""The two test loops: ``python3 -m pytest -m "not slow"`` (everyday) and ``python3 -m pytest``
(everything, CI).

A test is ``slow`` when it is inherently long: a bot loop, a soak, a multi-node cluster, a
crash with ``kill -9``, a long browser flow, a restart.  Its decorator says so; every slow test
still runs in CI.  The everyday loop keeps a quick test of every area.

The one rule kept here rather than on each test: the PostgreSQL run of a database test
(``db_url`` parametrized ``"postgresql"``, in ``tests/server`` and ``tests/store``) repeats its
SQLite run, so it is slow, except in the modules of :data:`PG_EVERYDAY`: cheap ones that keep
the dialect (migrations, JSON and large-object columns, the match log) in the everyday loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

PG_EVERYDAY = frozenset({"store/test_store_migrations.py", "store/test_store_records.py",
                         "store/test_matchlog.py"})
"""Modules (relative to ``tests/``) whose PostgreSQL runs stay in the everyday loop."""


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
