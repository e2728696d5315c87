"""Fair-play screening for operators: pairs of players where one feeds the other (通牌,
collusion) far more often than chance says (``wuhan-mahjong admin fairplay``).

The signal is the one a mahjong partnership cannot hide: one partner deals into the other.
For every ordered pair of registered players (a *feeder* and a *winner*), count the
winner's wins on a discard (or a robbed kong) in hands where the feeder sat at the table,
``n``, and how many of those the feeder dealt in, ``k``.  With nobody colluding, each of
the three other players is the one who dealt in about a third of the time (skill moves it
a little), so ``k`` follows roughly Binomial(``n``, 1/3); the screen reports the pairs whose
``k`` is improbably high: the chance of ``k`` or more under that law is below ``alpha``
divided by the number of pairs looked at (Bonferroni: so many pairs are tested that some
would look odd by luck alone).

It reads the statistics rows (:mod:`.stats`), one query.  It is a screen, not a verdict: a
flagged pair's hands are in their records (``wuhan-mahjong verify``, the replays), and a
weak player who deals in a lot to one strong friend looks the same for a while.  Guests
(and bots, which are guests) are left out: they play for no silver and no rating.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import and_, case, func, select
from sqlalchemy.orm import aliased

from .models import AccountRow, HandRecordRow, HandStatRow

if TYPE_CHECKING:
    from .store import Store

__all__ = ["CHANCE_SHARE", "FedPair", "binomial_tail", "fed_hands", "fed_pairs"]

CHANCE_SHARE = 1 / 3
"""The share of a winner's discard wins that one other player deals in, by chance."""


@dataclass(frozen=True, slots=True)
class FedPair:
    """How often ``feeder`` dealt into ``winner``'s discard wins at the tables they shared."""

    feeder: str
    winner: str
    wins: int
    """The winner's wins on a discard (or a robbed kong) with the feeder at the table."""
    fed: int
    """How many of them the feeder dealt in."""
    p_value: float
    """The chance of ``fed`` or more by luck (Binomial(``wins``, :data:`CHANCE_SHARE`))."""

    @property
    def share(self) -> float:
        return self.fed / self.wins


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), in floating point through logarithms (n may be
    thousands).

    >>> round(binomial_tail(2, 2, 0.5), 6), binomial_tail(0, 5, 0.3)
    (0.25, 1.0)
    >>> binomial_tail(30, 40, 1 / 3) < 1e-6
    True
    """
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    terms = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
             + i * log_p + (n - i) * log_q for i in range(k, n + 1)]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def fed_pairs(store: Store, *, min_wins: int = 20, alpha: float = 0.001,
              profile: str | None = None, since: datetime | None = None,
              everything: bool = False) -> tuple[int, list[FedPair]]:
    """The pairs looked at (those with at least ``min_wins`` discard wins of the winner at
    shared tables), and the flagged ones, most improbable first; ``everything``: every pair
    looked at, flagged or not.  ``profile`` and ``since`` (the hands' end) narrow the hands.
    """
    win, other = aliased(HandStatRow), aliased(HandStatRow)
    winner, feeder = aliased(AccountRow), aliased(AccountRow)
    query = (
        select(feeder.username, winner.username, func.count(),
               func.coalesce(func.sum(case((other.dealt_in, 1), else_=0)), 0))
        .select_from(win)
        .join(other, and_(other.record_id == win.record_id, other.seat != win.seat))
        .join(winner, winner.id == win.account_id)
        .join(feeder, feeder.id == other.account_id)
        .where(win.won, win.self_drawn.is_(False), winner.is_guest.is_(False),
               feeder.is_guest.is_(False))
        .group_by(feeder.username, winner.username)
        .having(func.count() >= min_wins)
    )
    if profile is not None:
        query = query.where(win.profile == profile)
    if since is not None:
        query = query.join(HandRecordRow, HandRecordRow.id == win.record_id).where(
            HandRecordRow.finished_at >= since)
    with store._read() as session:
        rows = [(str(f), str(w), int(n), int(k)) for f, w, n, k in session.execute(query)]
    pairs = [FedPair(feeder=f, winner=w, wins=n, fed=k,
                     p_value=binomial_tail(k, n, CHANCE_SHARE)) for f, w, n, k in rows]
    threshold = alpha / max(1, len(pairs))
    shown = [p for p in pairs if everything or p.p_value < threshold]
    shown.sort(key=lambda p: (p.p_value, -p.share, p.feeder, p.winner))
    return len(pairs), shown


def fed_hands(store: Store, feeder: str, winner: str, *,
              limit: int = 100) -> list[tuple[str, int, datetime]]:
    """The hands in which ``feeder`` dealt into ``winner``'s win (match id, hand number, when
    it ended), newest first: what an operator reads after the screen flags a pair."""
    win, fed = aliased(HandStatRow), aliased(HandStatRow)
    winner_row, feeder_row = aliased(AccountRow), aliased(AccountRow)
    query = (
        select(HandRecordRow.match_id, HandRecordRow.hand_no, HandRecordRow.finished_at)
        .join(win, win.record_id == HandRecordRow.id)
        .join(fed, and_(fed.record_id == HandRecordRow.id, fed.dealt_in))
        .join(winner_row, winner_row.id == win.account_id)
        .join(feeder_row, feeder_row.id == fed.account_id)
        .where(win.won, winner_row.username == winner, feeder_row.username == feeder)
        .order_by(HandRecordRow.finished_at.desc(), HandRecordRow.id.desc())
        .limit(limit)
    )
    with store._read() as session:
        return [(str(m), int(n), t) for m, n, t in session.execute(query)]
