"""A player's statistics (战绩) as the API sends them: in ``GET /api/profile`` (his own,
with a link to the replay of his best hand) and ``GET /api/players/{name}`` (anyone's,
without it: a hand's record stays its players' unless published).

The counts come from ``store/stats.py``; the client divides them into rates, so that
what it shows (和牌率 = wins / hands …) is plain arithmetic over what the server counted.
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, ConfigDict

from ..store import Store
from ..store.stats import player_stats

__all__ = ["BestHandOut", "StatsOut", "stats_out"]


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True, from_attributes=True)


class BestHandOut(_Out):
    """The hand he won the most points in: its points and big hands; for himself also
    where it is (``match_id``/``hand_no``, for the replay), ``None`` for anyone else."""

    points: int
    big_hands: list[str]
    match_id: str | None = None
    hand_no: int | None = None


class StatsOut(_Out):
    """One profile's counts (``store.stats.ProfileStats``)."""

    profile: str
    matches: int
    hands: int
    wins: int
    self_drawn: int
    dealt_in: int
    claimed: int
    exhausted: int
    escaped: int
    points: int
    big_wins: int
    big_hands: dict[str, int]
    best: BestHandOut | None


async def stats_out(store: Store, account_id: int, *, own: bool) -> list[StatsOut]:
    """The account's statistics per profile; ``own`` adds where his best hand is."""
    found = await asyncio.to_thread(player_stats, store, account_id)
    out = [StatsOut.model_validate(s) for s in found]
    if own:
        return out
    return [s if s.best is None else s.model_copy(update={"best": s.best.model_copy(
        update={"match_id": None, "hand_no": None})}) for s in out]
