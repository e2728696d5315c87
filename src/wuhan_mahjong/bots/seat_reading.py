"""What a bot reads from its seat view: its own tiles, everybody's public tiles and
the tiles it has not seen, in the integer tile kinds of :mod:`wuhan_mahjong.tiles`.

Everything here is derived from the view dictionary alone (the JSON a client
receives), never from the engine state.

>>> import random
>>> from wuhan_mahjong.engine import new_hand, seat_view
>>> from wuhan_mahjong.rules import get_rules
>>> state = new_hand(get_rules(), dealer=0, rng=random.Random(3))
>>> t = SeatReading(seat_view(state, 0))
>>> len(t.hand), sum(t.unseen) + len(t.hand) + 1 == 136
(14, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any, get_args

from ..analysis import is_ready
from ..engine.actions import (
    Action,
    Chi,
    Discard,
    Kong,
    LaiziDiscard,
    Peng,
    SpecialKong,
    action_from_json,
)
from ..engine.legality import phase_violation
from ..engine.views import SeatView
from ..meld import KongKind, Meld, opening_count
from ..rules import Rules, get_rules
from ..scoring import cap_amounts, minimum_failure, seat_factors
from ..tiles import (
    GREEN,
    NUM_KINDS,
    RED,
    TileError,
    format_tiles,
    parse_tile,
    parse_tiles,
    tile_str,
)
from ..win_record import SeatState
from .view import IntView, SeatInts

_UNKNOWN_KONG = (0, 0, 0, 0)


def rules_for(profile: str, options: Mapping[str, Any] | None = None) -> Rules:
    """The rules a view plays under: its profile and the room's overrides (the view's
    ``options``)."""
    frozen = tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                          for k, v in (options or {}).items()))
    return _rules(profile, frozen)


@lru_cache(maxsize=256)  # bounded: rooms may choose many rule sets (soak bench)
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


#: a stand-in for an opening not made yet: only its count reaches the factors
_OPENING = Meld("peng", (0, 0, 0), 0)


def _as_if(st: SeatState, melds: Sequence[Meld] | None, extra_openings: int) -> SeatState:
    """``st`` with ``melds`` in place of its melds (a kong the seat may make), and
    ``extra_openings`` more openings."""
    if melds is not None:
        st = replace(st, melds=tuple(melds))
    if extra_openings:
        st = replace(st, melds=st.melds + (_OPENING,) * extra_openings)
    return st


class ViewError(ValueError):
    """A JSON seat view a bot cannot read: a field missing or of the wrong type, a seat,
    tile or count out of range, or a hand whose size fits no turn.  The message names the
    field.  (The server never sends one; a program speaking the JSON-lines protocol may.)"""


_PHASES = ("turn", "claim", "rob", "final", "ended")
_MELD_TYPES = ("chi", "peng", "kong")
_KONG_KINDS: tuple[KongKind, ...] = get_args(KongKind)


def _field(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise ViewError(f"{where}: no '{key}'")
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise ViewError(f"{where}.{key}: {type(value).__name__} where "
                        f"{kind.__name__ if isinstance(kind, type) else 'another type'} belongs")
    return value


def _count(obj: Any, key: str, where: str, high: int) -> int:
    value: int = _field(obj, key, int, where)
    if not 0 <= value <= high:
        raise ViewError(f"{where}.{key}: {value} is not 0 to {high}")
    return value


def _seat(value: Any, where: str, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 4:
        raise ViewError(f"{where}: not a seat (0 to 3)")
    return value


#: the engine's notation of each kind (a view spells every tile so): a lookup, where
#: :func:`parse_tile` reads any notation with a regular expression
_KIND_OF = {tile_str(k): k for k in range(NUM_KINDS)}


def _tile(value: Any, where: str) -> int:
    kind = _KIND_OF.get(value) if isinstance(value, str) else None
    if kind is not None:
        return kind
    if not isinstance(value, str):
        raise ViewError(f"{where}: not a tile")
    try:
        return parse_tile(value)
    except TileError as e:
        raise ViewError(f"{where}: {e}") from None


def _tiles(value: Any, where: str) -> tuple[int, ...]:
    if value is None:
        return ()
    if not isinstance(value, str) or len(value) > 200:
        raise ViewError(f"{where}: not tiles")
    try:
        return tuple(parse_tiles(value))
    except TileError as e:
        raise ViewError(f"{where}: {e}") from None


def parse_view(view: SeatView) -> IntView:
    """The JSON seat view in integers (the same :class:`IntView` that
    :func:`wuhan_mahjong.bots.view.int_view` builds in process).  A view that is not
    one the engine could have sent raises :class:`ViewError` naming the field.

    >>> parse_view({"viewer": 0, "seats": []})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    wuhan_mahjong.bots.seat_reading.ViewError: view.seats: 0 seats, not 4
    """
    if not isinstance(view, dict):
        raise ViewError("a seat view is a JSON object")
    if view.get("viewer") is None:
        raise ViewError("a bot needs a seat view, not a spectator view")
    me = _count(view, "viewer", "view", 3)
    raw_seats = _field(view, "seats", list, "view")
    if len(raw_seats) != 4:
        raise ViewError(f"view.seats: {len(raw_seats)} seats, not 4")
    seats = []
    for n, ps in enumerate(raw_seats):
        where = f"view.seats[{n}]"
        if _field(ps, "seat", int, where) != n:
            raise ViewError(f"{where}.seat: not {n}")
        melds: list[Meld] = []
        hidden = 0
        for k, mv in enumerate(_field(ps, "melds", list, where)):
            mw = f"{where}.melds[{k}]"
            if _field(mv, "type", str, mw) not in _MELD_TYPES:
                raise ViewError(f"{mw}.type: not chi, peng or kong")
            if mv.get("tiles") is None:
                hidden += 1
                continue
            tiles = tuple(sorted(_tiles(mv["tiles"], f"{mw}.tiles")))
            is_kong = mv["type"] == "kong"
            if len(tiles) != (4 if is_kong else 3):
                raise ViewError(f"{mw}.tiles: {len(tiles)} tiles in a {mv['type']}")
            kind = mv.get("kind")
            if (kind not in _KONG_KINDS if is_kong else kind is not None):
                raise ViewError(f"{mw}.kind: a kong is {', '.join(_KONG_KINDS)}; "
                                "a chi or peng has none")
            melds.append(Meld(mv["type"], tiles, _seat(mv.get("from_seat"), f"{mw}.from_seat", True),
                              kind))
        sk = _field(ps, "special_kongs", dict, where)
        discards = []
        for k, d in enumerate(_field(ps, "discards", list, where)):
            face = d.get("tile") if isinstance(d, dict) else None
            kind = _KIND_OF.get(face) if isinstance(face, str) else None
            by = d.get("claimed_by") if isinstance(d, dict) else None
            if kind is None or not (by is None or (by in (0, 1, 2, 3) and type(by) is int)):
                dw = f"{where}.discards[{k}]"  # the slow path, for the message
                kind = _tile(_field(d, "tile", str, dw), f"{dw}.tile")
                by = _seat(by, f"{dw}.claimed_by", True)
            discards.append((kind, by))
        seats.append(SeatInts(
            n, _count(ps, "concealed", where, 15), tuple(melds), hidden,
            _count(sk, "red", f"{where}.special_kongs", 4),
            _count(sk, "green", f"{where}.special_kongs", 4),
            _count(sk, "laizi", f"{where}.special_kongs", 4),
            _count(sk, "pi", f"{where}.special_kongs", 4),
            _count(ps, "laizi_discards", where, 4), tuple(discards)))
    table = view.get("on_table")
    on_table: tuple[int, int] | None = None
    if table is not None:
        on_table = (_count(table, "seat", "view.on_table", 3),
                    _tile(table.get("tile"), "view.on_table.tile"))
    options = _field(view, "options", dict, "view") if view.get("options") is not None else {}
    phase = _field(view, "phase", str, "view")
    if phase not in _PHASES:
        raise ViewError(f"view.phase: not one of {', '.join(_PHASES)}")
    hand = _tiles(view.get("hand"), "view.hand")
    if phase != "ended":
        _check_hand_size(len(hand) + 3 * (len(seats[me].melds) + seats[me].hidden_kongs),
                         phase, me == _count(view, "turn", "view", 3))
    indicator = _tile(view.get("indicator"), "view.indicator")
    seen = [0] * NUM_KINDS
    seen[indicator] += 1
    for x in hand:
        seen[x] += 1
    for si in seats:
        for m in si.melds:
            for x in m.tiles:
                seen[x] += 1
        for x, claimed_by in si.discards:
            seen[x] += claimed_by is None  # a claimed discard shows in its claimer's meld
    over = [k for k in range(NUM_KINDS) if seen[k] > 4]
    if over:
        raise ViewError(f"view: {seen[over[0]]} copies of {format_tiles([over[0]])} in sight")
    drawn = view.get("drawn")
    drawn_tile = _tile(drawn, "view.drawn") if drawn else None
    if drawn_tile is not None and drawn_tile not in hand:
        raise ViewError(f"view.drawn: {format_tiles([drawn_tile])} is not in the hand")
    laizi = _tile(view.get("laizi"), "view.laizi")
    actions = []
    for k, a in enumerate(_field(view, "legal_actions", list, "view")):
        try:
            action = action_from_json(a)
        except ValueError as e:
            raise ViewError(f"view.legal_actions[{k}]: {e}") from None
        wrong = phase_violation(phase, action)
        if wrong is not None:
            raise ViewError(f"view.legal_actions[{k}]: {action} in the {phase} phase: {wrong}")
        _check_action_fits(action, hand, seats[me].melds, on_table, indicator, laizi,
                           f"view.legal_actions[{k}]")
        actions.append(action)
    return IntView(
        me, _count(view, "hand_no", "view", 10**9), _field(view, "profile", str, "view"),
        tuple(sorted((str(k), tuple(v) if isinstance(v, list) else v) for k, v in options.items())),
        _count(view, "dealer", "view", 3), phase,
        indicator, laizi,
        _count(view, "wall", "view", 136), bool(view.get("end_phase")), on_table, tuple(seats),
        hand, drawn_tile, tuple(actions), _replacement_draw(view, phase))


def _replacement_draw(view: Any, phase: str) -> bool:
    """The view's ``replacement_draw`` (false where a view leaves it out, as views before
    6 December 2026 did): only in the turn phase."""
    value = view.get("replacement_draw", False)
    if type(value) is not bool:
        raise ViewError("view.replacement_draw: not true or false")
    if value and phase != "turn":
        raise ViewError(f"view.replacement_draw: no replacement draw in the {phase} phase")
    return value


class SeatReading:
    """What one seat reads off the table at one decision: its seat view (a JSON
    :data:`SeatView` or an in-process :class:`~wuhan_mahjong.bots.view.IntView`) parsed
    into integer tiles, with the tiles it has not seen and every seat's factors.

    Not to be confused with :class:`wuhan_mahjong.analysis.Reading`, one arrangement
    of a winning hand."""

    def __init__(self, view: SeatView | IntView) -> None:
        iv = view if isinstance(view, IntView) else parse_view(view)
        self.iv = iv
        self.me: int = iv.viewer
        self.rules = _rules(iv.profile, iv.options)
        self.dealer = iv.dealer
        self.phase = iv.phase
        self.laizi = iv.laizi
        self.indicator = iv.indicator
        self.must: tuple[int, ...] = tuple(sorted(self.rules.must_kong_tiles))
        if iv is not view:
            _check_rules_agree(iv, self.rules)
        self.hand: list[int] = list(iv.hand)
        self.drawn: int | None = iv.drawn
        #: the tile in hand came as a kong's replacement: a self-drawn win now is 杠上花
        self.replacement_draw: bool = iv.replacement_draw
        self.wall: int = iv.wall
        self.end_phase: bool = iv.end_phase
        self.on_table: int | None = iv.on_table[1] if iv.on_table else None
        self.on_table_from: int | None = iv.on_table[0] if iv.on_table else None
        self.actions: list[Action] = list(iv.legal_actions)
        self.counts = [0] * NUM_KINDS
        for t in self.hand:
            self.counts[t] += 1
        seen = [0] * NUM_KINDS
        seen[self.indicator] += 1
        self.seats: list[PublicSeatInfo] = []
        direct_opens = self.rules.direct_kong_opens
        for ps in iv.seats:
            for m in ps.melds:
                for t in m.tiles:
                    seen[t] += 1
            discards = []
            for t, claimed_by in ps.discards:
                discards.append(t)
                if claimed_by is None:
                    seen[t] += 1
            seen[RED] += ps.red
            seen[GREEN] += ps.green
            seen[self.laizi] += ps.laizi_kongs
            seen[self.indicator] += ps.pi
            melds = list(ps.melds)
            self.seats.append(PublicSeatInfo(
                ps.seat, ps.concealed, melds, ps.hidden_kongs, ps.red, ps.green, ps.laizi_kongs,
                ps.pi, ps.laizi_discards, discards, opening_count(melds, direct_opens)))
        if self.phase == "rob" and self.on_table is not None:
            seen[self.on_table] += 1
        self.seen = seen
        self.unseen = [max(0, 4 - seen[t] - self.counts[t]) for t in range(NUM_KINDS)]
        self.my = self.seats[self.me]
        self.melds: list[Meld] = self.my.melds  # own concealed kongs are shown to their owner
        self._order: list[tuple[int, int]] | None = None  # discard_order, once built
        self._order_claimed: list[bool] = []  # of each discard in it: was it claimed
        self._order_built = False
        # the answers of multiplier and small_win_possible, asked many times a decision
        self._multipliers: dict[tuple[int, bool, int, bool], Fraction] = {}
        self._small_wins: dict[tuple[object, ...], bool] = {}

    def public_key(self) -> bytes:
        """Everything this seat knows, canonically encoded: the same bytes for the JSON
        and the in-process view of one decision (bots seed their sampling from it)."""
        key = repr(self.iv)
        if not self.iv.replacement_draw:
            # the field added on 6 December 2026, left out when false: every other
            # decision keeps the seed it had before
            key = key.removesuffix(", replacement_draw=False)") + ")"
        return key.encode()

    # ------------------------------------------------------------------ helpers
    @property
    def opened(self) -> bool:
        return self.my.openings > 0

    @property
    def unseen_total(self) -> int:
        return sum(self.unseen)

    def multiplier(self, seat: int, *, big: bool, extra_openings: int = 0,
                   dealt_in: bool = False) -> Fraction:
        """The seat's own factors as a loser would have them now (with ``dealt_in``, the
        discarder's 放冲 as well).  Memoised for the reading (the table does not change)."""
        key = (seat, big, extra_openings, dealt_in)
        hit = self._multipliers.get(key)
        if hit is not None:
            return hit
        st = _as_if(self.seats[seat].state(), None, extra_openings)
        m = Fraction(1)
        for f in seat_factors(seat, st, self.rules, self.dealer, big=big, dealt_in=dealt_in):
            m *= f.total
        self._multipliers[key] = m
        return m

    def my_multiplier(self, *, big: bool, hard: bool, self_drawn: bool,
                      extra: Fraction = Fraction(1), extra_openings: int = 0,
                      melds: Sequence[Meld] | None = None) -> Fraction:
        """My factors as the winner of a hand of that kind, times ``extra``; with
        ``melds``, as if those were my melds (a kong I may make)."""
        st = _as_if(self.my.state(), melds, extra_openings)
        m = extra
        for f in seat_factors(self.me, st, self.rules, self.dealer, big=big, hard=hard,
                              self_drawn=self_drawn):
            m *= f.total
        return m

    def win_amounts(self, base: int, mw: Fraction, dealer_in: int | None) -> list[Fraction]:
        """Raw amounts each loser would owe for a hand of ``base`` with my multiplier
        ``mw``; ``dealer_in`` is the discarder (deal-in factor) or None (self-draw)."""
        big = base > 1
        return [base * mw * self.multiplier(s, big=big, dealt_in=s == dealer_in)
                for s in range(4) if s != self.me]

    def discard_order(self) -> list[tuple[int, int]] | None:
        """Every discard of the hand in the order it was made, as (seat, kind), rebuilt
        from the rivers: the dealer discards first, and the turn passes to the next seat
        unless the discard was claimed, when the claimer discards next (after a chi, a
        peng, or a 冲杠's replacement draw; the other kongs keep the turn).  ``None`` if
        the rivers do not fit that order (no view the engine makes).  Built once per
        reading (every opponent's read asks for it).

        >>> import random
        >>> from wuhan_mahjong.engine import new_hand, seat_view
        >>> from wuhan_mahjong.rules import get_rules
        >>> state = new_hand(get_rules(), dealer=2, rng=random.Random(3))
        >>> SeatReading(seat_view(state, 0)).discard_order()
        []
        """
        if self._order_built:
            return self._order
        rivers = [ps.discards for ps in self.iv.seats]
        at = [0, 0, 0, 0]
        order: list[tuple[int, int]] = []
        seat = self.dealer
        while at[seat] < len(rivers[seat]):
            tile, claimed_by = rivers[seat][at[seat]]
            at[seat] += 1
            order.append((seat, tile))
            self._order_claimed.append(claimed_by is not None)
            seat = (seat + 1) % 4 if claimed_by is None else claimed_by
        self._order = None if any(at[s] != len(rivers[s]) for s in range(4)) else order
        self._order_built = True
        return self._order

    def offered_since_discard(self, seat: int) -> list[tuple[int, int]]:
        """The discards of the other seats since ``seat``'s last discard, as (discarder,
        kind): his concealed hand has not changed since, so each was a tile he let go by
        (no furiten in these rules: a pass never bars a later win, RULES §15).  Not the
        discard on the table while its claim window is open (he answers it at the same
        time).  Empty before his first discard, and when the order cannot be rebuilt."""
        return [(s, k) for s, k, _ in self.offered_since_discard_claims(seat)]

    def offered_since_discard_claims(self, seat: int) -> list[tuple[int, int, tuple[int, ...]]]:
        """:meth:`offered_since_discard`, each discard with the claims every seat made from
        it on (the claim of that very discard too: his win came first): ``(discarder, kind,
        claims per seat)``.  A claim adds its claimer's opening factor, so a small win of
        his that the minimum score refused on that discard may pass now (RULES §17.8).  The
        claimer of a discard is the next in the order, or this seat if the last discard
        was claimed and this seat is to play."""
        order = self.discard_order()
        if not order:
            return []
        last = max((i for i, (s, _) in enumerate(order) if s == seat), default=None)
        if last is None:
            return []
        end = len(order) - 1 if self.phase == "claim" else len(order)  # he answers it now
        claims: list[tuple[int, int]] = []  # (index of the claimed discard, claimer)
        for j in range(last + 1, len(order)):
            if self._order_claimed[j]:
                if j + 1 < len(order):
                    claims.append((j, order[j + 1][0]))
                elif self.phase == "turn":
                    claims.append((j, self.me))
        out: list[tuple[int, int, tuple[int, ...]]] = []
        for i in range(last + 1, end):
            s, k = order[i]
            if s == seat:
                continue
            after = [0] * 4
            for j, c in claims:
                if j >= i:
                    after[c] += 1
            out.append((s, k, tuple(after)))
        return out

    def multiplier_before(self, seat: int, claims: int) -> Fraction:
        """:meth:`multiplier` (a small hand's, as a loser) before the seat's last ``claims``
        claimed melds were made (the factors a pass on an earlier discard was refused
        with); a kong of 红中 or a 暗杠 made since is not told apart and counts."""
        st = self.seats[seat].state()
        if claims:
            claimed = [i for i, m in enumerate(st.melds) if m.from_seat is not None][-claims:]
            st = replace(st, melds=tuple(m for i, m in enumerate(st.melds) if i not in claimed))
        m = Fraction(1)
        for f in seat_factors(seat, st, self.rules, self.dealer, big=False):
            m *= f.total
        return m

    def discard_after_draw(self, seat: int) -> int | None:
        """The kind of ``seat``'s last discard if he made it after a draw (the first
        discard of the dealer's fourteen too), not after a claim: his concealed hand has
        not changed since, and with that tile it was his hand after the draw, so a win on
        it would have been his self-draw (自摸), and players take their wins.  After a
        chi or a peng no win was open to him (a 冲杠's replacement draw is read the
        same way, to be safe).  ``None`` before his first discard, after a claim, and
        when the order cannot be rebuilt."""
        order = self.discard_order()
        if not order:
            return None
        last = max((i for i, (s, _) in enumerate(order) if s == seat), default=None)
        if last is None or (last > 0 and self._order_claimed[last - 1]):
            return None
        return order[last][1]

    def ready_after(self, tile: int) -> bool:
        """Whether my hand, once ``tile`` is discarded from it, is ready as contracting
        reads it (:func:`wuhan_mahjong.analysis.is_ready`, Project decision 16): some tile
        gives a legal win (opened, the 2/5/8 pair, the laizi limit), the minimum score
        aside."""
        rest = list(self.hand)
        if tile not in rest:
            return False
        rest.remove(tile)
        return is_ready(rest, self.melds, self.laizi, self.rules)

    def collected(self, base: int, mw: Fraction, dealer_in: int | None) -> float:
        """What I collect for a win of ``base`` with my multiplier ``mw`` (``dealer_in``
        as in :meth:`win_amounts`), after the caps as the settlement applies them: 封顶
        per loser, 金顶 when every loser reaches it, 光明顶 for one who never opened, in
        stakes or hand bases (:func:`wuhan_mahjong.scoring.cap_amounts`; no contract)."""
        losers = [s for s in range(4) if s != self.me]
        raws = dict(zip(losers, self.win_amounts(base, mw, dealer_in), strict=True))
        never_opened = {s: self.seats[s].openings == 0 for s in losers}
        return float(sum(a for a, _ in cap_amounts(raws, never_opened, self.rules, base).values()))

    def passes_minimum(self, amounts: list[Fraction]) -> bool:
        return minimum_failure(amounts, self.rules) is None

    def small_win_possible(self, extra: Fraction = Fraction(1), extra_openings: int = 0,
                           melds: Sequence[Meld] | None = None, hard: bool = True) -> bool:
        """Whether a small hand (小胡) could pass the minimum score with my factors now
        (times ``extra``; with ``melds`` as my melds), at best: hard (``hard`` False: a
        soft win, a laizi standing in), and self-drawn or dealt in by the seat that pays
        most.  Memoised for the reading: a bot asks it of many discards and claims."""
        if not (self.rules.min_score_one_loser or self.rules.min_score_every_loser):
            return True
        key = (extra, extra_openings, None if melds is None else tuple(melds), hard)
        hit = self._small_wins.get(key)
        if hit is None:
            hit = self._small_wins[key] = self._small_win(extra, extra_openings, melds, hard)
        return hit

    def _small_win(self, extra: Fraction, extra_openings: int, melds: Sequence[Meld] | None,
                   hard: bool) -> bool:
        mw = self.my_multiplier(big=False, hard=hard, self_drawn=True, extra=extra,
                                extra_openings=extra_openings, melds=melds)
        if self.passes_minimum(self.win_amounts(1, mw, None)):
            return True
        mw = self.my_multiplier(big=False, hard=hard, self_drawn=False, extra=extra,
                                extra_openings=extra_openings, melds=melds)
        return any(self.passes_minimum(self.win_amounts(1, mw, d))
                   for d in range(4) if d != self.me)


def _check_action_fits(action: Action, hand: Sequence[int], melds: Sequence[Meld],
                       on_table: tuple[int, int] | None, indicator: int, laizi: int,
                       where: str) -> None:
    """A legal action uses tiles the view shows this seat holding (and a claim, the tile on
    the table): not a rule of the game, only that the view agrees with itself, so that a
    bot never has to take from its hand a tile that is not there."""
    if type(action) is Discard and action.tile in hand:  # most actions: at once
        return
    claimed = on_table[1] if on_table is not None else None
    need: list[int] = []
    if isinstance(action, Discard):
        need = [action.tile]
    elif isinstance(action, Chi):
        if claimed not in action.tiles:
            raise ViewError(f"{where}: {action} takes no tile on the table")
        need = list(action.tiles)
        need.remove(claimed)
    elif isinstance(action, Peng) or (isinstance(action, Kong) and action.kind == "direct"):
        if claimed != action.tile:
            raise ViewError(f"{where}: {action} takes no tile on the table")
        need = [action.tile] * (2 if isinstance(action, Peng) else 3)
    elif isinstance(action, Kong):
        need = [action.tile] * (4 if action.kind == "concealed" else 1)
        if action.kind == "added" and not any(m.type == "peng" and m.tile == action.tile
                                               for m in melds):
            raise ViewError(f"{where}: {action} has no peng to add to")
    elif isinstance(action, SpecialKong):  # (红中, 发财 and 皮 are the same in every profile)
        need = [laizi if action.kind == "laizi"
                else get_rules().special_kong_tile(action.kind, indicator)]
    elif isinstance(action, LaiziDiscard):
        need = [laizi]
    for x in set(need):
        if hand.count(x) < need.count(x):
            raise ViewError(f"{where}: {action} needs {format_tiles(sorted(need))} "
                            "in the hand")


def _check_rules_agree(iv: IntView, rules: Rules) -> None:
    """What a JSON view says of the laizi and of the plain discards agrees with its own
    profile: the laizi is the one its indicator makes, neither the laizi nor a must-kong
    tile (红中, 发财 in 赖子山庄) is offered as a plain discard, and a second final draw
    (15 tiles) comes only where the table has more than four final draws."""
    me = iv.seats[iv.viewer]
    if (iv.phase == "final" and rules.final_draws <= 4
            and len(iv.hand) + 3 * (len(me.melds) + me.hidden_kongs) > 14):
        raise ViewError(f"view.hand: {len(iv.hand)} tiles beside {len(me.melds)} melds: a "
                        f"second final draw, where the table has {rules.final_draws} final "
                        "draws (a seat draws once)")
    laizi = rules.laizi_of(iv.indicator)
    if iv.laizi != laizi:
        raise ViewError(f"view.laizi: {format_tiles([iv.laizi])}, where the indicator "
                        f"{format_tiles([iv.indicator])} makes {format_tiles([laizi])} the laizi")
    must = rules.must_kong_tiles
    for k, a in enumerate(iv.legal_actions):
        if isinstance(a, Discard) and (a.tile == laizi or a.tile in must):
            raise ViewError(f"view.legal_actions[{k}]: {a}, a tile that only leaves the hand "
                            "as a kong or 丢癞子")


def _check_hand_size(size: int, phase: str, my_turn: bool) -> None:
    """The viewer's tiles, three a meld, as the engine deals them: 14 for the seat that has
    drawn (its turn, or its final draw), 13 for every other seat and in a claim window.  In
    the final draws a seat keeps each tile it draws, so there it holds 13 to 15: with more
    than four final draws (the table option ``final_draws``, at most 8) a seat draws twice
    (:func:`_check_rules_agree` refuses 15 at a table of four or fewer)."""
    if phase == "final":
        fits: tuple[int, ...] = (14, 15) if my_turn else (13, 14, 15)
    elif phase == "turn" and my_turn:
        fits = (14,)
    else:
        fits = (13,)
    if size not in fits:
        seat = "the seat to play" if my_turn and phase in ("turn", "final") else "this seat"
        raise ViewError(f"view.hand: {size} tiles, three a meld, where {seat} holds "
                        f"{' or '.join(map(str, fits))} in the {phase} phase")
