"""Guest accounts nobody can use any more are closed (``store.closing.close_abandoned_guests``):
a guest's session token is his only way in, so once every session has ended the account is
closed as a player closes his own (silver to the house, records kept).  Bots, registered
players, young guests, guests with a live session and guests seated at a running match are
left alone.  Migration v0012 marks the bots of the stored matches.  SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta

from alembic import command
from argon2 import PasswordHasher
from sqlalchemy import insert, select

from wuhan_mahjong.store import Store, StoreSettings
from wuhan_mahjong.store.admin import Admin
from wuhan_mahjong.store.closing import GUEST_GRACE, close_abandoned_guests, closed_name
from wuhan_mahjong.store.database import create_store_engine
from wuhan_mahjong.store.migrate import alembic_config, upgrade
from wuhan_mahjong.store.models import AccountRow, MatchRow, utcnow

OpenStore = Callable[..., Store]
PW = "correct horse battery"


def test_guests_nobody_can_use_are_closed(make_store: OpenStore) -> None:
    store = make_store()
    forever = make_store(session_ttl=None)
    gone = store.create_guest()  # its session ends after 30 days
    logged_out = store.create_guest()
    store.logout(logged_out.token)
    kept = forever.create_guest()  # a session without an end
    seated = store.create_guest()
    bot = store.create_bot()
    player = store.register("reggie", PW)
    store.login("reggie", PW)
    seats = [{"account_id": a, "name": f"n{a}", "is_bot": a == bot.id}
             for a in (seated.account.id, player.id, bot.id, kept.account.id)]
    epoch = store.open_match("running", "t", "00", {"profile": "yuanhang", "seats": seats})
    later = utcnow() + timedelta(days=40)

    # a guest younger than a day is not touched, even without a session
    assert close_abandoned_guests(store, now=utcnow() + GUEST_GRACE / 2) == []
    assert close_abandoned_guests(store, now=later) == [gone.account.id, logged_out.account.id]
    for closed in (gone, logged_out):
        row = store.account(closed.account.id)
        assert row.username == closed_name(closed.account.id) and row.silver == 0
    for left in (kept.account.id, seated.account.id, bot.id, player.id):
        assert not store.account(left).username.startswith("已注销")
    audit = store.audit()
    assert audit.ok and audit.closure_income == gone.account.silver + logged_out.account.silver
    assert close_abandoned_guests(store, now=later) == []  # closed once
    # the seated guest once its match is over; the batch bounds each round
    store.end_match("running", epoch, "finished")
    assert close_abandoned_guests(store, now=later, limit=0) == []
    assert close_abandoned_guests(store, now=later) == [seated.account.id]
    logged = [a for a in Admin(store, "t").actions() if a.action == "close_account"]
    assert {a.account_id for a in logged} == {gone.account.id, logged_out.account.id,
                                              seated.account.id}
    assert {a.actor for a in logged} == {"housekeeping"}


def test_the_migration_marks_the_bots_of_stored_matches(db_url: str) -> None:
    engine = create_store_engine(db_url)
    try:
        upgrade(engine, "v0011_reports")
        with engine.begin() as connection:  # accounts and a match as v0011 kept them
            ids = [int(connection.execute(insert(AccountRow.__table__).values(
                username=f"g{n}", username_key=f"g{n}", password_hash=None, is_guest=n > 0,
                is_house=False, silver=0, points=0, created_at=utcnow()))
                .inserted_primary_key[0]) for n in range(4)]
            seats = [{"account_id": a, "name": f"n{a}", "is_bot": k >= 2}
                     for k, a in enumerate(ids)]
            connection.execute(insert(MatchRow.__table__).values(
                match_id="old", table_id="t", status="finished", seed="00",
                config=json.dumps({"seats": seats}), hands_done=1, totals="[0,0,0,0]",
                next_seq=0, epoch=1, created_at=utcnow(), updated_at=utcnow()))
            connection.execute(insert(MatchRow.__table__).values(
                match_id="odd", table_id="t", status="aborted", seed="00", config="not json",
                hands_done=0, totals="[]", next_seq=0, epoch=1, created_at=utcnow(),
                updated_at=utcnow()))
        upgrade(engine)
        with engine.connect() as connection:
            bots = dict(connection.execute(select(AccountRow.id, AccountRow.is_bot)
                                           .where(AccountRow.id.in_(ids))).all())
        assert [bots[a] for a in ids] == [False, False, True, True]
        store = Store(engine, StoreSettings(password_hasher=PasswordHasher(
            time_cost=1, memory_cost=8, parallelism=1)))
        assert store.create_bot().id not in ids  # and a new bot is marked as it is made
        with engine.connect() as connection:
            assert connection.scalar(select(AccountRow.is_bot).where(
                AccountRow.id == max(ids) + 1)) is True
            command.downgrade(alembic_config(connection), "v0011_reports")
            connection.commit()
        upgrade(engine)  # and up again
    finally:
        engine.dispose()
