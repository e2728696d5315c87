"""Pure silver arithmetic of a game settlement and of an escape (no database).

The store reads the balances under a lock, calls these functions, and writes
what they return in the same transaction.  Keeping the arithmetic pure lets
the tests check it on many more cases than a database round-trip allows.

Rules (docs/RULES.md §18, Project decisions 17; Ambiguities 35, 36):

* **Game.** Points convert to silver at the stake (silver per point).  Each
  loser pays ``min(owed, balance)``.  Winners receive only what was collected:
  one winner gets all of it; several winners share it in proportion to their
  point wins, each share rounded down, and the units left by rounding go to the
  largest winner (ties: lowest account id), never beyond what a winner is owed
  (any unit that would go past that goes to the next largest winner).  Nothing
  is created or lost.  Then every player pays the fee, ``min(fee, balance)``.
* **Escape.** The escaper pays ``min(penalty, balance)``, split equally among
  the others; the remainder of the integer division goes one unit each to the
  first others *in the order given* (the server lists them in play order from
  the escaper's next player).  Then the escaper alone pays the fee, floored at
  his balance: the others pay the fee of the game only if they play on, in that
  game's own settlement (docs/RULES.md §18).  Penalty points, if any, are split the
  same way (points have no floor).

>>> out = compute_game({1: 50, 2: 500, 3: 500, 4: 500}, 10, {1: -30, 2: 30, 3: 0, 4: 0}, 5)
>>> out[1].silver, out[1].fee, out[2].silver, out[2].fee
(-50, 0, 50, 5)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .errors import InvalidSettlement

__all__ = ["Outcome", "compute_escape", "compute_game"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one account gets from a settlement (negative = pays)."""

    account_id: int
    points: int
    """Change of the account's points (积分)."""
    silver: int
    """Silver won (+) or paid (−) in the game or penalty itself, before the fee."""
    fee: int
    """Service fee paid (≥ 0), after the game transfer."""

    @property
    def silver_net(self) -> int:
        """The whole change of the balance: ``silver - fee``."""
        return self.silver - self.fee


def _check_amount(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidSettlement(f"{name} must be an int, got {value!r}")
    if value < 0:
        raise InvalidSettlement(f"{name} must be >= 0, got {value}")


def _check_balances(balances: Mapping[int, int], accounts: Sequence[int]) -> None:
    for account in accounts:
        if account not in balances:
            raise InvalidSettlement(f"no balance given for account {account}")
        if balances[account] < 0:
            raise InvalidSettlement(f"negative balance for account {account}")


def compute_game(
    balances: Mapping[int, int],
    stake: int,
    point_deltas: Mapping[int, int],
    fee: int,
) -> dict[int, Outcome]:
    """Settle one game: who pays and gets how much silver, and the fees.

    ``point_deltas`` maps every player of the game (losers, winners and players
    who neither won nor lost, with 0) to his points result; it must sum to 0.
    ``balances`` holds at least these players' current silver.  The result has
    one :class:`Outcome` per player, in the order of ``point_deltas``.
    """
    _check_amount("stake", stake)
    _check_amount("fee", fee)
    if not point_deltas:
        raise InvalidSettlement("a game needs at least one player")
    for account, delta in point_deltas.items():
        if isinstance(delta, bool) or not isinstance(delta, int):
            raise InvalidSettlement(f"point delta of account {account} must be an int")
    if sum(point_deltas.values()) != 0:
        raise InvalidSettlement(
            f"point deltas must sum to 0, they sum to {sum(point_deltas.values())}"
        )
    _check_balances(balances, list(point_deltas))

    silver: dict[int, int] = dict.fromkeys(point_deltas, 0)
    collected = 0
    for account, delta in point_deltas.items():
        if delta < 0:
            paid = min(-delta * stake, balances[account])
            silver[account] = -paid
            collected += paid

    winners = sorted(
        (account for account, delta in point_deltas.items() if delta > 0),
        key=lambda account: (-point_deltas[account], account),
    )
    total_won = sum(point_deltas[account] for account in winners)
    left = collected
    for account in winners:
        # Floor of the proportional share: the sum of the shares never exceeds
        # what was collected, and no share exceeds what the winner is owed.
        share = collected * point_deltas[account] // total_won
        silver[account] = share
        left -= share
    for account in winners:  # largest winner first
        if left == 0:
            break
        room = point_deltas[account] * stake - silver[account]
        extra = min(room, left)
        silver[account] += extra
        left -= extra
    if left != 0:  # pragma: no cover - impossible: collected <= owed to the winners
        raise AssertionError("silver left over after paying the winners")

    outcomes: dict[int, Outcome] = {}
    for account, delta in point_deltas.items():
        after_game = balances[account] + silver[account]
        outcomes[account] = Outcome(
            account_id=account,
            points=delta,
            silver=silver[account],
            fee=min(fee, after_game),
        )
    return outcomes


def compute_escape(
    balances: Mapping[int, int],
    escaper: int,
    others: Sequence[int],
    penalty_silver: int,
    fee: int,
    penalty_points: int = 0,
) -> dict[int, Outcome]:
    """Settle an escape: the escaper pays the penalty to the others, plus the fee.

    ``others`` (1 to 3 distinct accounts, not the escaper) share the penalty
    equally; the remainder goes one unit each to the first of them in the order
    given.  The result has the escaper first, then ``others`` in order.
    """
    _check_amount("penalty_silver", penalty_silver)
    _check_amount("penalty_points", penalty_points)
    _check_amount("fee", fee)
    if not others:
        raise InvalidSettlement("an escape needs at least one other player")
    if len(set(others)) != len(others):
        raise InvalidSettlement("the other players must be distinct")
    if escaper in others:
        raise InvalidSettlement("the escaper cannot be one of the others")
    _check_balances(balances, [escaper, *others])

    paid = min(penalty_silver, balances[escaper])
    silver_base, silver_rest = divmod(paid, len(others))
    points_base, points_rest = divmod(penalty_points, len(others))

    outcomes = {
        escaper: Outcome(
            account_id=escaper,
            points=-penalty_points,
            silver=-paid,
            fee=min(fee, balances[escaper] - paid),
        )
    }
    for i, account in enumerate(others):
        outcomes[account] = Outcome(
            account_id=account,
            points=points_base + (1 if i < points_rest else 0),
            silver=silver_base + (1 if i < silver_rest else 0),
            fee=0,
        )
    return outcomes
