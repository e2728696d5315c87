"""The server's housekeeping (``server/admin.py`` ``keep_house``): expired login sessions
are deleted at start and every hour (their rows stayed for good, one per login), and guest
accounts nobody can use any more are closed."""

from __future__ import annotations

import time
from datetime import timedelta

from sqlalchemy import func, select

from wuhan_mahjong.store import open_store
from wuhan_mahjong.store.closing import closed_name
from wuhan_mahjong.store.models import AccountRow, AuthSessionRow

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


def test_the_server_closes_guest_accounts_nobody_can_use(db_url: str,
                                                         start_server: StartServer) -> None:
    """A guest whose every session has ended (a guest has no password: nobody can use the
    account again) is closed by the housekeeping, its silver to the house; a bot is not."""
    with open_store(db_url, password_hasher=FAST_HASHER, session_ttl=timedelta(0)) as short:
        lost = short.create_guest().account
        bot = short.create_bot()
    with open_store(db_url, password_hasher=FAST_HASHER) as usual:
        alive = usual.create_guest()
        with usual._write() as session:  # all three made two days ago
            for row in session.scalars(select(AccountRow).where(
                    AccountRow.id.in_([lost.id, bot.id, alive.account.id]))):
                row.created_at = row.created_at - timedelta(days=2)
    server = start_server()
    deadline = time.monotonic() + 30
    while server.store.account(lost.id).username != closed_name(lost.id):
        assert time.monotonic() < deadline, "the abandoned guest was not closed"
        time.sleep(0.05)
    assert server.store.account(bot.id).username == bot.username
    assert server.store.account_for_token(alive.token) is not None
    audit = server.store.audit()
    assert audit.ok and audit.closure_income == lost.silver
