"""What a bot reads from its seat view: its own tiles, everybody's public tiles and
the tiles it has not seen, in the integer tile kinds of :mod:`wuhan_mahjong.tiles`.

Everything here is derived from the view dictionary alone (the JSON a client
receives), never from the engine state.

>>> import random
>>> from wuhan_mahjong.engine import new_hand, seat_view
>>> from wuhan_mahjong.rules import get_rules
>>> state = new_hand(get_rules(), dealer=0, rng=random.Random(3))
>>> t = Table(seat_view(state, 0))
>>> len(t.hand), sum(t.unseen) + len(t.hand) + 1 == 136
(14, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from ..engine.actions import Action, action_from_json
from ..engine.views import SeatView
from ..meld import Meld, opening_count
from ..rules import Rules, get_rules
from ..scoring import SeatState, minimum_failure, seat_factors
from ..tiles import GREEN, NUM_KINDS, RED, parse_tile, parse_tiles

_UNKNOWN_KONG = (0, 0, 0, 0)


def rules_for(profile: str, options: Mapping[str, Any] | None = None) -> Rules:
    """The rules a view plays under: its profile and the room's overrides (the view's
    ``options``)."""
    frozen = tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                          for k, v in (options or {}).items()))
    return _rules(profile, frozen)


@cache
def _rules(profile: str, options: tuple[tuple[str, Any], ...]) -> Rules:
    return get_rules(profile, dict(options))


@dataclass
class PublicSeatInfo:
    seat: int
    concealed: int
    melds: list[Meld]
    hidden_kongs: int  # another seat's 暗杠 whose tiles are not shown
    red: int
    green: int
    laizi_kongs: int
    pi: int
    laizi_discards: int
    discards: list[int]  # every tile the seat discarded, claimed or not
    openings: int

    def state(self) -> SeatState:
        """What the settlement needs of this seat, as far as the view shows it (hidden
        concealed kongs stand in as kongs of an arbitrary tile: only their count matters)."""
        melds = self.melds + [Meld("kong", _UNKNOWN_KONG, None, "concealed")] * self.hidden_kongs
        return SeatState((), tuple(melds), self.red, self.green, self.laizi_kongs, self.pi,
                         self.laizi_discards)


class Table:
    """The parsed seat view of one decision."""

    def __init__(self, view: SeatView) -> None:
        me = view["viewer"]
        if me is None:
            raise ValueError("a bot needs a seat view, not a spectator view")
        self.view = view
        self.me: int = me
        self.rules = rules_for(view["profile"], view.get("options"))
        self.dealer = view["dealer"]
        self.phase = view["phase"]
        self.laizi = parse_tile(view["laizi"])
        self.indicator = parse_tile(view["indicator"])
        self.must: tuple[int, ...] = tuple(sorted(self.rules.must_kong_tiles))
        self.hand: list[int] = parse_tiles(view["hand"] or "")
        self.drawn: int | None = parse_tile(view["drawn"]) if view["drawn"] else None
        self.wall: int = view["wall"]
        self.end_phase: bool = view["end_phase"]
        table = view["on_table"]
        self.on_table: int | None = parse_tile(table["tile"]) if table else None
        self.on_table_from: int | None = table["seat"] if table else None
        self.actions: list[Action] = [action_from_json(a) for a in view["legal_actions"]]
        self.counts = [0] * NUM_KINDS
        for t in self.hand:
            self.counts[t] += 1
        seen = [0] * NUM_KINDS
        seen[self.indicator] += 1
        self.seats: list[PublicSeatInfo] = []
        for ps in view["seats"]:
            melds: list[Meld] = []
            hidden = 0
            for mv in ps["melds"]:
                if mv["tiles"] is None:
                    hidden += 1
                    continue
                tiles = tuple(sorted(parse_tiles(mv["tiles"])))
                kind = mv["kind"]
                mtype = mv["type"]
                melds.append(Meld(mtype, tiles, mv["from_seat"], kind))  # type: ignore[arg-type]
                for t in tiles:
                    seen[t] += 1
            discards = []
            for d in ps["discards"]:
                t = parse_tile(d["tile"])
                discards.append(t)
                if d["claimed_by"] is None:
                    seen[t] += 1
            sk = ps["special_kongs"]
            seen[RED] += sk["red"]
            seen[GREEN] += sk["green"]
            seen[self.laizi] += sk["laizi"]
            seen[self.indicator] += sk["pi"]
            info = PublicSeatInfo(
                ps["seat"], ps["concealed"], melds, hidden, sk["red"], sk["green"], sk["laizi"],
                sk["pi"], ps["laizi_discards"], discards,
                opening_count(melds, self.rules.direct_kong_opens))
            self.seats.append(info)
        if self.phase == "rob" and self.on_table is not None:
            seen[self.on_table] += 1
        self.seen = seen
        self.unseen = [max(0, 4 - seen[t] - self.counts[t]) for t in range(NUM_KINDS)]
        self.my = self.seats[self.me]
        self.melds: list[Meld] = self.my.melds  # own concealed kongs are shown to their owner

    # ------------------------------------------------------------------ helpers
    @property
    def opened(self) -> bool:
        return self.my.openings > 0

    @property
    def unseen_total(self) -> int:
        return sum(self.unseen)

    def multiplier(self, seat: int, *, big: bool, extra_openings: int = 0) -> Fraction:
        """The seat's own factors as a loser would have them now (no deal-in)."""
        st = self.seats[seat].state()
        if extra_openings:
            st = SeatState(st.hand, st.melds + (Meld("peng", (0, 0, 0), 0),) * extra_openings,
                           st.red_kongs, st.green_kongs, st.laizi_kongs, st.pi_kongs,
                           st.laizi_discards)
        m = Fraction(1)
        for f in seat_factors(seat, st, self.rules, self.dealer, big=big):
            m *= f.total
        return m

    def my_multiplier(self, *, big: bool, hard: bool, self_drawn: bool,
                      extra: Fraction = Fraction(1), extra_openings: int = 0) -> Fraction:
        """My factors as the winner of a hand of that kind, times ``extra``."""
        st = self.my.state()
        if extra_openings:
            st = SeatState(st.hand, st.melds + (Meld("peng", (0, 0, 0), 0),) * extra_openings,
                           st.red_kongs, st.green_kongs, st.laizi_kongs, st.pi_kongs,
                           st.laizi_discards)
        m = extra
        for f in seat_factors(self.me, st, self.rules, self.dealer, big=big, hard=hard,
                              self_drawn=self_drawn):
            m *= f.total
        return m

    def win_amounts(self, base: int, mw: Fraction, dealer_in: int | None) -> list[Fraction]:
        """Raw amounts each loser would owe for a hand of ``base`` with my multiplier
        ``mw``; ``dealer_in`` is the discarder (deal-in factor) or None (self-draw)."""
        big = base > 1
        out = []
        for s in range(4):
            if s == self.me:
                continue
            m = self.multiplier(s, big=big)
            if s == dealer_in:
                m *= Fraction(3, 2) if big else 2
            out.append(base * mw * m)
        return out

    def passes_minimum(self, amounts: list[Fraction]) -> bool:
        return minimum_failure(amounts, self.rules) is None

    def small_win_possible(self, extra: Fraction = Fraction(1), extra_openings: int = 0) -> bool:
        """Whether a small hand (小胡) could pass the minimum score with my factors now
        (times ``extra``), at best: hard, and self-drawn or dealt in by the seat that
        pays most."""
        if not (self.rules.min_score_one_loser or self.rules.min_score_every_loser):
            return True
        mw = self.my_multiplier(big=False, hard=True, self_drawn=True, extra=extra,
                                extra_openings=extra_openings)
        if self.passes_minimum(self.win_amounts(1, mw, None)):
            return True
        mw = self.my_multiplier(big=False, hard=True, self_drawn=False, extra=extra,
                                extra_openings=extra_openings)
        return any(self.passes_minimum(self.win_amounts(1, mw, d))
                   for d in range(4) if d != self.me)
