"""The server's housekeeping (``server/admin.py`` ``keep_house``): expired login sessions
are deleted at start and every hour.  Their rows stayed for good, one per login."""

from __future__ import annotations

import time
from datetime import timedelta

from sqlalchemy import func, select

from wuhan_mahjong.store import open_store
from wuhan_mahjong.store.models import AuthSessionRow

from .harness import FAST_HASHER, StartServer

PW = "secret-123-pw"


def test_expired_sessions_are_deleted_by_the_server(db_url: str, start_server: StartServer) -> None:
    with open_store(db_url, password_hasher=FAST_HASHER, session_ttl=timedelta(0)) as short:
        short.register("expired", PW)
        for _ in range(3):
            short.login("expired", PW)  # expired as soon as made
    with open_store(db_url, password_hasher=FAST_HASHER) as usual:
        usual.register("current", PW)
        kept = usual.login("current", PW)
    server = start_server()

    def sessions() -> int:
        with server.store.engine.connect() as connection:
            return int(connection.scalar(select(func.count()).select_from(AuthSessionRow)) or 0)

    deadline = time.monotonic() + 30
    while sessions() != 1:
        assert time.monotonic() < deadline, f"{sessions()} sessions left"
        time.sleep(0.05)
    assert server.store.account_for_token(kept.token) is not None
