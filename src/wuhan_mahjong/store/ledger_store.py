"""The silver ledger: grants and the daily allowance, the settlement of games and
escapes, the audit of the ledger's invariants, and each account's match history.

Silver only moves with a ledger row (:func:`move_silver`, on a locked account row);
the arithmetic of a settlement is pure (:mod:`.settlement`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .core import MAX_AMOUNT, StoreCore, check_id, check_int, check_profile
from .errors import AlreadySettled, InsufficientSilver, InvalidSettlement, UnknownAccount
from .models import GAME_ID_MAX, AccountRow, LedgerRow, MatchResultRow, SettlementRow, utcnow
from .settlement import Outcome, compute_escape, compute_game

__all__ = [
    "HOUSE_INCOME",
    "SINKS",
    "SOURCES",
    "TRANSFERS",
    "Audit",
    "LedgerEntry",
    "LedgerReason",
    "LedgerSettlement",
    "LedgerStore",
    "MatchResult",
    "SettledPlayer",
    "move_silver",
]

_Compute = Callable[[Mapping[int, int]], dict[int, Outcome]]
"""Computes the outcomes from the locked balances of the players."""


class _NothingToGrant(Exception):
    """A top-up finds the balance at the largest amount already."""


class LedgerReason(StrEnum):
    """The ``reason`` column of ledger rows.

    Silver enters only through the *sources* (:data:`SOURCES`) and leaves
    only through the *sinks* (:data:`SINKS`); every other row moves silver
    between accounts (:data:`TRANSFERS`).
    """

    SIGNUP_GRANT = "signup_grant"
    """Source: the starting silver of a new account (or guest)."""
    DAILY_ALLOWANCE = "daily_allowance"
    """Source: the optional daily allowance (at most one per account and calendar day)."""
    OPERATOR_GRANT = "operator_grant"
    """Source (positive) or sink (negative): an operator's grant or removal."""
    GRANT = "grant"
    """Source, legacy: databases written before the named sources (starting silver,
    and the bot top-ups the server no longer makes).  Never written now."""
    GAME = "game"
    """Transfer: a player's silver won or lost in a settled game."""
    FEE = "fee"
    """Sink: a player's service fee (it goes to the house account)."""
    FEE_INCOME = "fee_income"
    """The house account's side of the fees: all fees of one settlement."""
    ESCAPE_PENALTY = "escape_penalty"
    """Transfer: the escaper's penalty."""
    ESCAPE_SHARE = "escape_share"
    """Transfer: another player's share of an escape penalty."""
    ACCOUNT_CLOSED = "account_closed"
    """Sink: the balance of an account being closed (注销; it goes to the house account)."""
    CLOSURE_INCOME = "closure_income"
    """The house account's side of a closed account's balance."""


SOURCES = frozenset(
    {LedgerReason.SIGNUP_GRANT, LedgerReason.DAILY_ALLOWANCE, LedgerReason.OPERATOR_GRANT, LedgerReason.GRANT}
)
"""Reasons of the rows that create silver (an operator's negative grant destroys it)."""
SINKS = frozenset({LedgerReason.FEE, LedgerReason.ACCOUNT_CLOSED})
"""Reasons of the player rows that take silver out of play (into the house account)."""
HOUSE_INCOME = frozenset({LedgerReason.FEE_INCOME, LedgerReason.CLOSURE_INCOME})
"""Reasons of the house account's rows: its side of the sinks."""
TRANSFERS = frozenset({LedgerReason.GAME, LedgerReason.ESCAPE_PENALTY, LedgerReason.ESCAPE_SHARE})
"""Reasons of the rows that move silver between players: they sum to 0."""


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    id: int
    account_id: int
    delta: int
    balance_after: int
    reason: str
    reference: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class SettledPlayer:
    """One player's part of a settlement, with his balance and points after it."""

    account_id: int
    points_delta: int
    silver_delta: int
    """Silver won (+) or paid (−) in the game or escape itself."""
    fee: int
    silver_after: int
    points_after: int

    @property
    def silver_net(self) -> int:
        return self.silver_delta - self.fee


@dataclass(frozen=True, slots=True)
class LedgerSettlement:
    """What a settlement wrote to the silver ledger: each player's outcome and the fees
    (not :class:`wuhan_mahjong.scoring.Settlement`, the points of a won hand)."""

    game_id: str
    kind: str
    """``"game"`` or ``"escape"``."""
    players: Mapping[int, SettledPlayer]
    fees_collected: int
    settled_at: datetime


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One line of an account's match history."""

    match_id: str
    profile: str
    kind: str
    finished_at: datetime
    points_delta: int
    silver_delta: int
    fee: int
    escaped: bool

    @property
    def silver_net(self) -> int:
        return self.silver_delta - self.fee


@dataclass(frozen=True, slots=True)
class Audit:
    """Result of :meth:`Store.audit`; ``ok`` when every invariant holds.

    Silver has named sources and sinks (:class:`LedgerReason`): the players'
    silver is the sources minus the sinks, the house account holds exactly the
    sinks (the fees and the balances of closed accounts), and the transfers (games,
    escapes) sum to zero.
    """

    total_balances: int
    """All balances, the house included."""
    player_balances: int
    """All balances but the house's."""
    house_balance: int
    sources: Mapping[str, int]
    """Sum of the ledger rows of each source reason (operator removals included)."""
    sinks: int
    """Silver taken out of play: the fees the players paid, the closed accounts' balances."""
    fee_income: int
    """What the house's ledger says it received as fees."""
    closure_income: int
    """What the house's ledger says it received from closed accounts."""
    transfers: int
    """Sum of the transfer rows (0 when nothing was created or lost in settlements)."""
    unknown_reasons: tuple[str, ...]
    mismatched_accounts: tuple[int, ...]
    """Accounts whose ledger rows do not sum to their balance."""
    negative_accounts: tuple[int, ...]

    @property
    def total_sources(self) -> int:
        return sum(self.sources.values())

    @property
    def ok(self) -> bool:
        return (
            self.player_balances == self.total_sources - self.sinks
            and self.house_balance == self.sinks == self.fee_income + self.closure_income
            and self.total_balances == self.total_sources
            and self.transfers == 0
            and not self.unknown_reasons
            and not self.mismatched_accounts
            and not self.negative_accounts
        )


def move_silver(
    session: Session,
    row: AccountRow,
    delta: int,
    reason: LedgerReason,
    reference: str | None,
    now: datetime,
) -> None:
    """Change a locked balance and write its ledger row (nothing for 0)."""
    if delta == 0:
        return
    new_balance = row.silver + delta
    if new_balance < 0:  # the callers floor every debit; this is a safety net
        raise AssertionError(f"balance of account {row.id} would become {new_balance}")
    row.silver = new_balance
    session.add(
        LedgerRow(
            account_id=row.id,
            delta=delta,
            balance_after=new_balance,
            reason=str(reason),
            reference=reference,
            created_at=now,
        )
    )


class LedgerStore(StoreCore):
    """Silver in, silver between players, silver out: every change with its ledger row."""

    def grant(self, account_id: int, amount: int, *, reference: str | None = None,
              record: Callable[[Session, int], None] | None = None) -> int:
        """An operator's grant: create (``amount`` > 0) or remove (< 0) silver; returns the balance.

        The one way for an operator to change a balance by hand (the admin
        command calls it).  The ledger row's reason is ``operator_grant``, a
        named source (a negative amount is a sink); ``reference`` says why
        (e.g. ``"refund of match 20261201-ab12"``).  A debit below zero raises
        :class:`InsufficientSilver`; the house account cannot be granted to.

        ``record(session, balance)`` runs in the grant's own transaction (the admin
        command's event-log row), so the grant and its record land together or not at all.
        """
        return self._source(account_id, amount, LedgerReason.OPERATOR_GRANT, reference,
                            record=record)

    def _source(
        self, account_id: int, amount: int, reason: LedgerReason, reference: str | None, *,
        once: bool = False, top_up: bool = False,
        record: Callable[[Session, int], None] | None = None,
    ) -> int:
        """Create (or remove) ``amount`` silver; ``top_up``: at most what keeps the balance
        within :data:`MAX_AMOUNT` (:class:`_NothingToGrant` when that is nothing), where an
        operator's grant past it is refused."""
        check_int("amount", amount, low=-MAX_AMOUNT)
        if reference is not None and len(reference) > GAME_ID_MAX:
            raise InvalidSettlement(f"reference longer than {GAME_ID_MAX} characters")
        with self._write() as session:
            row = self._lock_accounts(session, [account_id])[account_id]
            if row.is_house or row.closed_at is not None:  # a closed account is no one's
                raise UnknownAccount(account_id)
            if row.is_bot:  # they sit at free tables only: silver would be no one's
                raise InvalidSettlement(f"account {account_id} is a bot: bots hold no silver")
            if (
                once
                and session.scalar(
                    select(LedgerRow.id)
                    .where(
                        LedgerRow.account_id == account_id,
                        LedgerRow.reason == str(reason),
                        LedgerRow.reference == reference,
                    )
                    .limit(1)
                )
                is not None
            ):
                raise AlreadySettled(f"{reason} {reference}")
            if row.silver + amount < 0:
                raise InsufficientSilver(
                    f"account {account_id} has {row.silver} silver, cannot take {-amount}"
                )
            if top_up and row.silver + amount > MAX_AMOUNT:
                # an allowance tops a balance up to the largest amount: past it, every
                # connection of that player failed (its grant raised) for the rest of the day
                amount = MAX_AMOUNT - row.silver
                if amount <= 0:
                    raise _NothingToGrant()
            if row.silver + amount > MAX_AMOUNT:
                raise InvalidSettlement("balance would exceed the largest amount")
            move_silver(session, row, amount, reason, reference, utcnow())
            if record is not None:
                record(session, row.silver)
            return row.silver

    def daily_allowance(self, account_id: int, amount: int, *, day: date | None = None) -> int | None:
        """Grant the daily allowance once per account and ``day`` (the server passes the
        date on its calendar, the ``timezone`` setting; by default today's UTC date); the new
        balance, or ``None`` if this account already had that day's allowance (or ``amount``
        is 0).

        The check and the grant happen under the account's row lock, so two
        connections at once cannot both collect it.
        """
        check_int("amount", amount)
        if amount == 0:
            return None
        when = day or utcnow().date()
        try:
            return self._source(
                account_id, amount, LedgerReason.DAILY_ALLOWANCE, f"daily {when.isoformat()}", once=True,
                top_up=True,
            )
        except (AlreadySettled, _NothingToGrant):
            return None

    def settle_game(
        self,
        game_id: str,
        stake: int,
        point_deltas: Mapping[int, int],
        fee: int,
        *,
        profile: str = "bianfeng",
        session: Session | None = None,
    ) -> LedgerSettlement:
        """Settle a finished game: points, silver at ``stake`` per point, then fees.

        ``point_deltas`` maps every player (account id) to his points result,
        summing to 0.  See :mod:`.settlement` for the rules.  All balances,
        points, ledger rows, match-history rows and the fee income of the house
        change in one transaction.  A second settlement of the same
        ``game_id`` raises :class:`AlreadySettled` and changes nothing.
        """
        check_id("game_id", game_id)
        check_profile(profile)
        check_int("stake", stake)
        check_int("fee", fee)
        for account_id, delta in point_deltas.items():
            check_int(f"point delta of {account_id}", delta, low=-MAX_AMOUNT)
            if stake * abs(delta) > MAX_AMOUNT:
                raise InvalidSettlement("stake × points exceeds the largest amount")

        def compute(balances: Mapping[int, int]) -> dict[int, Outcome]:
            return compute_game(balances, stake, point_deltas, fee)

        return self._settle(
            game_id,
            "game",
            profile,
            stake,
            fee,
            list(point_deltas),
            compute,
            escaper=None,
            session=session,
        )

    def settle_escape(
        self,
        game_id: str,
        escaper: int,
        penalty_silver: int,
        others: Sequence[int],
        fee: int,
        *,
        penalty_points: int = 0,
        profile: str = "bianfeng",
    ) -> LedgerSettlement:
        """Settle an escape: the escaper pays the penalty (at most his balance) to the others.

        The penalty is split equally among ``others`` (remainder: one unit each
        to the first of them in the given order, so list them in play order);
        then the escaper alone pays ``fee`` (floored at his balance).  The
        escaper also loses ``penalty_points`` points, shared the same way.
        Idempotent per ``game_id`` like :meth:`settle_game`.
        """
        check_id("game_id", game_id)
        check_profile(profile)
        check_int("penalty_silver", penalty_silver)
        check_int("penalty_points", penalty_points)
        check_int("fee", fee)
        others = list(others)

        def compute(balances: Mapping[int, int]) -> dict[int, Outcome]:
            return compute_escape(balances, escaper, others, penalty_silver, fee, penalty_points)

        return self._settle(
            game_id, "escape", profile, None, fee, [escaper, *others], compute, escaper=escaper
        )

    def _settle(
        self,
        game_id: str,
        kind: str,
        profile: str,
        stake: int | None,
        fee: int,
        players: list[int],
        compute: _Compute,
        *,
        escaper: int | None,
        session: Session | None = None,
    ) -> LedgerSettlement:
        """Settle in a transaction of its own, or in ``session``'s (the match log's)."""
        if len(set(players)) != len(players):
            raise InvalidSettlement("a player is listed twice")
        if self.house_account_id in players:
            raise UnknownAccount(self.house_account_id)
        try:
            with self._write_in(session) as session:
                rows = self._lock_accounts(session, players)  # the house: below, last
                if session.get(SettlementRow, game_id) is not None:
                    raise AlreadySettled(game_id)
                outcomes = compute({account_id: rows[account_id].silver for account_id in players})
                now = utcnow()
                total_fees = sum(outcome.fee for outcome in outcomes.values())
                session.add(
                    SettlementRow(
                        game_id=game_id,
                        kind=kind,
                        profile=profile,
                        stake=stake,
                        fee=fee,
                        fees_collected=total_fees,
                        settled_at=now,
                    )
                )
                # The settlement row first: a racing duplicate fails here, before
                # any balance is touched.
                session.flush()
                settled: dict[int, SettledPlayer] = {}
                for account_id, outcome in outcomes.items():
                    row = rows[account_id]
                    if kind == "game":
                        reason = LedgerReason.GAME
                    elif account_id == escaper:
                        reason = LedgerReason.ESCAPE_PENALTY
                    else:
                        reason = LedgerReason.ESCAPE_SHARE
                    move_silver(session, row, outcome.silver, reason, game_id, now)
                    move_silver(session, row, -outcome.fee, LedgerReason.FEE, game_id, now)
                    row.points += outcome.points
                    session.add(
                        MatchResultRow(
                            game_id=game_id,
                            account_id=account_id,
                            profile=profile,
                            points_delta=outcome.points,
                            silver_delta=outcome.silver,
                            fee=outcome.fee,
                            escaped=account_id == escaper,
                            finished_at=now,
                        )
                    )
                    settled[account_id] = SettledPlayer(
                        account_id=account_id,
                        points_delta=outcome.points,
                        silver_delta=outcome.silver,
                        fee=outcome.fee,
                        silver_after=row.silver,
                        points_after=row.points,
                    )
                if total_fees:
                    # The house is every settlement's account: locked last (after the
                    # players, so no lock cycle), only when fees move, and held only for
                    # the rest of the transaction.  Locked with the players, it made every
                    # hand of the platform wait for every other's whole transaction.
                    house = self._lock_accounts(session, [self.house_account_id])
                    move_silver(session, house[self.house_account_id], total_fees,
                                LedgerReason.FEE_INCOME, game_id, now)
                return LedgerSettlement(
                    game_id=game_id,
                    kind=kind,
                    players=settled,
                    fees_collected=total_fees,
                    settled_at=now,
                )
        except IntegrityError as exc:
            # The only unique key written here is the game id (accounts were locked).
            raise AlreadySettled(game_id) from exc

    def is_settled(self, game_id: str) -> bool:
        with self._read() as session:
            return session.get(SettlementRow, game_id) is not None

    def ledger(self, account_id: int, *, limit: int | None = 100) -> list[LedgerEntry]:
        """The newest ``limit`` ledger rows of an account (all if ``None``), newest first."""
        query = select(LedgerRow).where(LedgerRow.account_id == account_id).order_by(LedgerRow.id.desc())
        if limit is not None:
            query = query.limit(limit)
        with self._read() as session:
            return [
                LedgerEntry(
                    id=row.id,
                    account_id=row.account_id,
                    delta=row.delta,
                    balance_after=row.balance_after,
                    reason=row.reason,
                    reference=row.reference,
                    created_at=row.created_at,
                )
                for row in session.scalars(query)
            ]

    def audit(self) -> Audit:
        """Check the ledger invariants over the whole database (one consistent read)."""
        ledger_sums = (
            select(LedgerRow.account_id, func.sum(LedgerRow.delta).label("total"))
            .group_by(LedgerRow.account_id)
            .subquery()
        )
        with self._read(snapshot=True) as session:
            rows = session.execute(
                select(AccountRow.id, AccountRow.silver, func.coalesce(ledger_sums.c.total, 0))
                .outerjoin(ledger_sums, ledger_sums.c.account_id == AccountRow.id)
                .order_by(AccountRow.id)
            ).all()
            by_reason = {
                str(reason): int(total or 0)
                for reason, total in session.execute(
                    select(LedgerRow.reason, func.sum(LedgerRow.delta)).group_by(LedgerRow.reason)
                )
            }
        balances = {account_id: int(silver) for account_id, silver, _total in rows}
        house = balances.get(self.house_account_id, 0)
        known = {str(r) for r in LedgerReason}
        return Audit(
            total_balances=sum(balances.values()),
            player_balances=sum(balances.values()) - house,
            house_balance=house,
            sources={str(r): by_reason.get(str(r), 0) for r in sorted(SOURCES)},
            sinks=-sum(by_reason.get(str(r), 0) for r in SINKS),
            fee_income=by_reason.get(str(LedgerReason.FEE_INCOME), 0),
            closure_income=by_reason.get(str(LedgerReason.CLOSURE_INCOME), 0),
            transfers=sum(by_reason.get(str(r), 0) for r in TRANSFERS),
            unknown_reasons=tuple(sorted(set(by_reason) - known)),
            mismatched_accounts=tuple(
                account_id for account_id, silver, total in rows if int(total) != int(silver)
            ),
            negative_accounts=tuple(account_id for account_id, silver in balances.items() if silver < 0),
        )

    def match_history(
        self, account_id: int, *, limit: int = 50, before: datetime | None = None
    ) -> list[MatchResult]:
        """An account's settled games and escapes, newest first (page with ``before``).

        The hands of a match are settled one by one (game ids ``"<match id>/<hand no>"``,
        see :meth:`finish_hand`); the history shows the match as one line, their sums.
        """
        query = (
            select(MatchResultRow, SettlementRow.kind)
            .join(SettlementRow, SettlementRow.game_id == MatchResultRow.game_id)
            .where(MatchResultRow.account_id == account_id)
            .order_by(MatchResultRow.finished_at.desc(), MatchResultRow.game_id.desc())
            .limit(limit * 66)  # at most 64 hands and their escapes per match
        )
        if before is not None:
            query = query.where(MatchResultRow.finished_at < before)
        out: dict[tuple[str, str], MatchResult] = {}
        with self._read() as session:
            for row, kind in session.execute(query):
                match_id = row.game_id
                if kind == "game" and "/" in match_id:
                    match_id = match_id.rsplit("/", 1)[0]
                key = (match_id, kind)
                seen = out.get(key)
                if seen is None:
                    if len(out) == limit:
                        break
                    out[key] = MatchResult(
                        match_id=match_id,
                        profile=row.profile,
                        kind=kind,
                        finished_at=row.finished_at,
                        points_delta=row.points_delta,
                        silver_delta=row.silver_delta,
                        fee=row.fee,
                        escaped=row.escaped,
                    )
                else:
                    out[key] = replace(
                        seen,
                        points_delta=seen.points_delta + row.points_delta,
                        silver_delta=seen.silver_delta + row.silver_delta,
                        fee=seen.fee + row.fee,
                        escaped=seen.escaped or row.escaped,
                    )
        return list(out.values())

    def match_silver(self, match_id: str) -> dict[int, tuple[int, int]]:
        """Per account, (silver won or paid, fees) over the settlements of one match so far
        (its hands ``"<id>/<n>"`` and its escapes ``"<id>#escape<seat>"``)."""
        with self._read() as session:
            rows = session.execute(
                select(
                    MatchResultRow.account_id,
                    func.sum(MatchResultRow.silver_delta),
                    func.sum(MatchResultRow.fee),
                )
                .where(
                    or_(
                        MatchResultRow.game_id.startswith(match_id + "/", autoescape=True),
                        MatchResultRow.game_id.startswith(match_id + "#", autoescape=True),
                    )
                )
                .group_by(MatchResultRow.account_id)
            ).all()
        return {int(a): (int(s or 0), int(f or 0)) for a, s, f in rows}
