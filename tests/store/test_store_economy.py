"""The economy: silver has named sources and sinks, and the audit proves it (issue 10).

Sources: the sign-up grant, the daily allowance, an operator's grant.  Sink: the
service fee, to the house account.  Everything else moves silver between players.
On SQLite and PostgreSQL.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import event, select, update

from wuhan_mahjong.store import (
    MAX_AMOUNT,
    AlreadySettled,
    HandRecord,
    InsufficientSilver,
    InvalidSettlement,
    LedgerReason,
    LedgerSettlement,
    Store,
    compute_escape,
    compute_game,
    hand_game_id,
)
from wuhan_mahjong.store.ledger_store import HOUSE_INCOME, SINKS, SOURCES, TRANSFERS
from wuhan_mahjong.store.models import AccountRow, AuthSessionRow, LedgerRow, utcnow

OpenStore = Callable[..., Store]


def test_every_reason_is_a_source_a_sink_a_transfer_or_the_house() -> None:
    named = SOURCES | SINKS | TRANSFERS | HOUSE_INCOME
    assert named == set(LedgerReason)
    assert not (SOURCES & SINKS or SOURCES & TRANSFERS or SINKS & TRANSFERS
                or HOUSE_INCOME & (SOURCES | SINKS | TRANSFERS))


def test_sources_and_sinks_are_named_in_the_ledger(store: Store) -> None:
    a = store.register("Alice", "secret-123").id
    b, c, d = (store.create_guest().account.id for _ in range(3))
    assert store.daily_allowance(a, 50, day=date(2026, 12, 1)) == 1050
    assert store.daily_allowance(a, 50, day=date(2026, 12, 1)) is None  # once per day
    assert store.daily_allowance(a, 50, day=date(2026, 12, 2)) == 1100
    assert store.daily_allowance(a, 0) is None
    store.grant(b, 200, reference="refund")
    store.grant(c, -100, reference="correction")
    store.settle_game("g1", 2, {a: -30, b: 10, c: 10, d: 10}, 7)
    reasons = {e.reason for x in (a, b, c, d) for e in store.ledger(x, limit=None)}
    assert reasons == {"signup_grant", "daily_allowance", "operator_grant", "game", "fee"}
    house = {e.reason for e in store.ledger(store.house_account_id, limit=None)}
    assert house == {"fee_income"}
    audit = store.audit()
    assert audit.ok, audit
    assert audit.sources == {"daily_allowance": 100, "grant": 0, "operator_grant": 100,
                             "signup_grant": 4000}
    assert audit.sinks == audit.house_balance == audit.fee_income == 28
    assert audit.player_balances == audit.total_sources - audit.sinks == 4172
    assert audit.transfers == 0


def test_bots_hold_no_silver(store: Store) -> None:
    bot = store.create_bot()
    assert bot.is_guest and bot.silver == 0
    assert store.ledger(bot.id) == []
    with store._read() as session:  # no session was opened for it: nobody logs in as a bot
        assert session.scalar(select(AuthSessionRow).where(AuthSessionRow.account_id == bot.id)) is None
    assert store.audit().ok


def _tamper(store: Store, **row: object) -> None:
    with store._write() as session:
        session.add(LedgerRow(created_at=utcnow(), **row))


def test_the_audit_catches_silver_from_nowhere(store: Store) -> None:
    a = store.create_guest().account.id
    assert store.audit().ok
    # a balance raised without any ledger row
    with store._write() as session:
        session.execute(update(AccountRow).where(AccountRow.id == a).values(silver=5000))
    audit = store.audit()
    assert not audit.ok and audit.mismatched_accounts == (a,)
    # ... and its ledger row written under an unnamed reason
    _tamper(store, account_id=a, delta=4000, balance_after=5000, reason="bot top-up")
    audit = store.audit()
    assert not audit.ok and audit.unknown_reasons == ("bot top-up",)


def test_the_audit_catches_an_unbalanced_transfer(store: Store) -> None:
    a = store.create_guest().account.id
    with store._write() as session:
        session.execute(update(AccountRow).where(AccountRow.id == a).values(silver=1500))
    _tamper(store, account_id=a, delta=500, balance_after=1500, reason="game")
    audit = store.audit()
    assert not audit.ok and audit.transfers == 500 and not audit.mismatched_accounts


# -- the property -----------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    stake: int
    fee: int
    raw: tuple[int, int, int]
    seats: tuple[int, int, int, int]


@dataclass(frozen=True)
class Escape:
    penalty: int
    fee: int
    seats: tuple[int, int, int, int]


@dataclass(frozen=True)
class Grant:
    who: int
    amount: int


@dataclass(frozen=True)
class Allowance:
    who: int
    day: int


@dataclass(frozen=True)
class SignUp:
    guest: bool


seats = st.permutations(range(4)).map(tuple)
matches = st.builds(Match, st.integers(0, 50), st.integers(0, 30),
                    st.tuples(*[st.integers(-400, 400)] * 3), seats)
escapes = st.builds(Escape, st.integers(0, 3000), st.integers(0, 30), seats)
operations = st.one_of(
    matches,
    escapes,
    st.builds(Grant, st.integers(0, 3), st.integers(-1500, 1500)),
    st.builds(Allowance, st.integers(0, 3), st.integers(0, 2)),
    st.builds(SignUp, st.booleans()),
)


def _assert_books(store: Store, sources: int, sinks: int) -> None:
    """The audit balances: players hold sources - sinks, the house the sinks, nobody < 0."""
    audit = store.audit()
    assert audit.ok, audit
    assert audit.total_sources == sources and audit.sinks == sinks
    assert audit.player_balances == sources - sinks
    assert audit.house_balance == sinks
    assert not audit.negative_accounts


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(operations, min_size=1, max_size=12))
def test_total_silver_is_sources_minus_sinks(store: Store, ops: list[object]) -> None:
    """Random matches, escapes, fees, grants, allowances and sign-ups: after every step
    the players' silver is exactly what the named sources brought in minus what the
    sinks took out, the house holds the sinks, and no balance is below 0."""
    ids = [store.create_guest().account.id for _ in range(4)]
    before = store.audit()
    sources = before.total_sources
    sinks = before.sinks
    for n, op in enumerate(ops):
        game_id = f"{ids[0]}-{n}"
        if isinstance(op, Match):
            table = [ids[i] for i in op.seats]
            deltas = dict(zip(table, [*op.raw, -sum(op.raw)], strict=True))
            sinks += store.settle_game(game_id, op.stake, deltas, op.fee).fees_collected
        elif isinstance(op, Escape):
            escaper, *others = (ids[i] for i in op.seats)
            sinks += store.settle_escape(game_id, escaper, op.penalty, others, op.fee).fees_collected
        elif isinstance(op, Grant):
            account = ids[op.who]
            if store.account(account).silver + op.amount < 0:
                with pytest.raises(InsufficientSilver):
                    store.grant(account, op.amount)
            else:
                store.grant(account, op.amount)
                sources += op.amount
        elif isinstance(op, Allowance):
            if store.daily_allowance(ids[op.who], 25, day=date(2026, 12, 1 + op.day)) is not None:
                sources += 25
        else:
            assert isinstance(op, SignUp)
            new = (store.create_guest().account if op.guest
                   else store.register(f"p{ids[0]}x{n}", "secret-123"))
            sources += new.silver
        _assert_books(store, sources, sinks)
        assert all(store.account(x).silver >= 0 for x in ids)



# -- the property, with crashes -----------------------------------------------------


class _Crash(BaseException):
    """The process dies here: a ``BaseException``, so nothing in the store can catch it."""


@dataclass(frozen=True)
class Crash:
    """The next settlement's process dies: at its ``at``-th SQL statement, at its commit
    (before the database has it), or just after its commit (before the caller hears).
    The store is then dropped and reopened on the same database, as a restarted server's
    would be, and the settlement is run again with the same game id, as a resumed match
    runs it again."""

    where: str
    at: int


@dataclass(frozen=True)
class Restart:
    """The store is dropped and reopened on the same database between operations."""


class Fault:
    """``crash`` armed on a store's engine for one operation (real SQL, real rollback)."""

    def __init__(self, store: Store, crash: Crash) -> None:
        self.engine = store.engine
        self.crash = crash
        self.left = crash.at
        self.fired = False
        event.listen(self.engine, "before_cursor_execute", self._statement)
        event.listen(self.engine, "commit", self._commit)

    def _die(self) -> None:
        self.fired = True
        raise _Crash

    def _statement(self, *_args: object) -> None:
        if self.crash.where == "statement" and not self.fired:
            self.left -= 1
            if self.left == 0:
                self._die()

    def _commit(self, *_args: object) -> None:
        if self.crash.where == "commit" and not self.fired:
            self._die()

    def disarm(self) -> None:
        event.remove(self.engine, "before_cursor_execute", self._statement)
        event.remove(self.engine, "commit", self._commit)


crashes = st.builds(Crash, st.sampled_from(["statement", "commit", "after"]), st.integers(1, 16))
crash_operations = st.one_of(
    operations,
    st.tuples(crashes, st.one_of(matches, escapes)),  # a crash, and the settlement it hits
    st.just(Restart()),
).map(lambda op: list(op) if isinstance(op, tuple) else [op])


@pytest.mark.slow
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(crash_operations, min_size=1, max_size=12).map(lambda x: [*itertools.chain(*x)]))
def test_total_silver_is_sources_minus_sinks_whatever_crashes(
        make_store: OpenStore, ops: list[object]) -> None:
    """Random hands (the server's ``finish_hand``: record and settlement in one
    transaction), escapes, fees, grants, allowances and sign-ups, with crashes at random
    statements of a settlement, at its commit or just after it, and restarts: after every
    step every balance is what exactly one settlement of each finished hand and escape
    gives (one rolled back is settled by the retry, one committed is never settled
    again), the players' silver is sources − sinks, and no balance is below 0."""
    store = make_store()
    ids = [store.create_guest().account.id for _ in range(4)]
    match_id = f"econ-{ids[0]}"
    epoch = store.open_match(match_id, "t", "00" * 32, {"hands": 64})
    before = store.audit()
    sources, sinks = before.total_sources, before.sinks
    balances = {a: store.account(a).silver for a in ids}
    crash: Crash | None = None
    hand_no = 0

    def settle(s: Store, op: object, n: int) -> LedgerSettlement | None:
        """The operation as the server runs it (and runs it again after a restart)."""
        if isinstance(op, Match):
            table = [ids[i] for i in op.seats]
            deltas = dict(zip(table, [*op.raw, -sum(op.raw)], strict=True))
            record = HandRecord(match_id=match_id, hand_no=hand_no, commitment="c" * 64,
                                wall="", salt="s" * 64, events="", seats=dict(enumerate(table)))
            return s.finish_hand(match_id, epoch, record, deltas, stake=op.stake, fee=op.fee,
                                 profile="bianfeng", totals=[0, 0, 0, 0])
        if isinstance(op, Escape):
            escaper, *others = (ids[i] for i in op.seats)
            return s.settle_escape(f"{match_id}#escape{n}", escaper, op.penalty, others, op.fee)
        assert isinstance(op, Allowance)
        s.daily_allowance(ids[op.who], 25, day=date(2026, 12, 1 + op.day))
        return None

    for n, op in enumerate(ops):
        if isinstance(op, Crash):
            crash = op
            continue
        if isinstance(op, Restart):
            store.close()
            store = make_store()
            continue
        if isinstance(op, Match | Escape | Allowance):
            new_allowance = isinstance(op, Allowance) and not any(
                e.reference == f"daily 2026-12-{1 + op.day:02d}"
                for e in store.ledger(ids[op.who], limit=None))
            fault = Fault(store, crash) if crash is not None else None
            try:
                settle(store, op, n)
            except _Crash:
                pass
            finally:
                if fault is not None:
                    fault.disarm()
            if fault is not None:  # the process died: restart, and settle again
                store.close()
                store = make_store()
                try:
                    again = settle(store, op, n)
                except AlreadySettled:  # the escape was committed before the crash
                    assert not fault.fired
                else:
                    if isinstance(op, Match):  # None: the hand was settled already
                        assert (again is None) == (not fault.fired)
                    elif isinstance(op, Escape):
                        assert fault.fired
            if isinstance(op, Match):
                table = [ids[i] for i in op.seats]
                deltas = dict(zip(table, [*op.raw, -sum(op.raw)], strict=True))
                out = compute_game(balances, op.stake, deltas, op.fee)
                hand_no += 1
            elif isinstance(op, Escape):
                escaper, *others = (ids[i] for i in op.seats)
                out = compute_escape(balances, escaper, others, op.penalty, op.fee)
            else:
                out = {}
                if new_allowance:
                    balances[ids[op.who]] += 25
                    sources += 25
            for a, o in out.items():
                balances[a] += o.silver_net
                sinks += o.fee
        elif isinstance(op, Grant):  # not retried: a crash is only armed for settlements
            target = ids[op.who]
            if balances[target] + op.amount < 0:
                with pytest.raises(InsufficientSilver):
                    store.grant(target, op.amount)
            else:
                store.grant(target, op.amount)
                balances[target] += op.amount
                sources += op.amount
        else:
            assert isinstance(op, SignUp)
            new = (store.create_guest().account if op.guest
                   else store.register(f"q{ids[0]}x{n}", "secret-123"))
            sources += new.silver
        if not isinstance(op, Grant | SignUp):
            crash = None
        assert {a: store.account(a).silver for a in ids} == balances
        _assert_books(store, sources, sinks)
    logged = store.load_match(match_id)
    assert logged is not None and logged.hands_done == hand_no
    for h in range(hand_no):  # every hand's record saved with its settlement
        assert store.is_settled(hand_game_id(match_id, h))
        assert store.hand_record(match_id, h, viewer=ids[0]) is not None


def test_the_daily_allowance_tops_up_to_the_largest_amount(store: Store) -> None:
    """A balance near the largest amount (2⁵³ − 1): the allowance's grant raised, and with it
    every connection of that player for the rest of the day.  It now tops the balance up to
    the largest amount, then grants nothing; an operator's grant past it is still refused."""
    a = store.register("Rich", "secret-123").id
    store.grant(a, MAX_AMOUNT - 1000 - 10, reference="a fortune")
    assert store.daily_allowance(a, 50, day=date(2026, 12, 1)) == MAX_AMOUNT
    assert store.daily_allowance(a, 50, day=date(2026, 12, 2)) is None
    with pytest.raises(InvalidSettlement):
        store.grant(a, 1, reference="one more")
    assert store.account(a).silver == MAX_AMOUNT
    audit = store.audit()
    assert audit.ok and audit.sources["daily_allowance"] == 10, audit
