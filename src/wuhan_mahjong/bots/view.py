"""A typed in-process seat view: the same information as the JSON seat view, in the
engine's integers.

:func:`wuhan_mahjong.engine.views.seat_view` formats every tile as a string for
the browser and the JSON-lines protocol; a bot in the same process would parse
them straight back.  :func:`int_view` builds the same view from the engine's
integers instead (tile kinds, :class:`~wuhan_mahjong.meld.Meld` objects, engine
actions), field for field what ``seat_view`` shows the seat and nothing more:
another seat's concealed tiles and the faces of its concealed kongs are never
copied, nor the wall, the salt or the commitment.  The shipped bots accept
either form (:class:`~wuhan_mahjong.bots.seat_reading.SeatReading` reads both, and a
decision depends only on the information, not on the form); the arena hands an
``IntView`` to bots that declare ``accepts_int_view``.

>>> import random
>>> from wuhan_mahjong.engine import new_hand, seat_view
>>> from wuhan_mahjong.rules import get_rules
>>> from wuhan_mahjong.bots.seat_reading import SeatReading
>>> state = new_hand(get_rules(), dealer=0, rng=random.Random(3))
>>> SeatReading(int_view(state, 0)).unseen == SeatReading(seat_view(state, 0)).unseen
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..engine.actions import Action
from ..engine.views import replacement_draw
from ..meld import Meld

if TYPE_CHECKING:  # the builder reads a state; the view never holds one
    from ..engine.state import HandState


class SeatInts(NamedTuple):
    """One seat's public part (``PublicSeat`` of the JSON view)."""

    seat: int
    concealed: int  # number of concealed tiles
    melds: tuple[Meld, ...]  # shown melds (own concealed kongs included)
    hidden_kongs: int  # another seat's concealed kongs (faces not shown)
    red: int
    green: int
    laizi_kongs: int
    pi: int
    laizi_discards: int
    discards: tuple[tuple[int, int | None], ...]  # (tile, claimed_by)


class IntView(NamedTuple):
    """A seat view in integers (see the module docstring)."""

    viewer: int
    hand_no: int
    profile: str
    options: tuple[tuple[str, Any], ...]  # the room's overrides, sorted
    dealer: int
    phase: str
    indicator: int
    laizi: int
    wall: int
    end_phase: bool
    on_table: tuple[int, int] | None  # (seat, tile)
    seats: tuple[SeatInts, ...]
    hand: tuple[int, ...]
    drawn: int | None
    legal_actions: tuple[Action, ...]
    #: the seat in turn drew its tile as a kong's replacement (a self-drawn win now is
    #: 杠上花; public, the JSON view's ``replacement_draw``); last, with a default, so
    #: that a view built without it reads as before
    replacement_draw: bool = False


def int_view(state: HandState, viewer: int) -> IntView:
    """The in-process view of seat ``viewer``: what ``seat_view(state, viewer)`` shows."""
    if not 0 <= viewer < 4:
        raise ValueError(f"no seat {viewer}")
    seats = []
    ended = state.phase == "ended"
    for s in range(4):
        shown: list[Meld] = []
        hidden = 0
        for m in state.melds[s]:
            if m.kind == "concealed" and s != viewer and not ended:
                hidden += 1
            else:
                shown.append(m)
        sp = state.specials[s]
        seats.append(SeatInts(
            s, sum(state.counts[s]), tuple(shown), hidden,
            sp.red, sp.green, sp.laizi, sp.pi, sp.laizi_discards,
            tuple((t, None if c < 0 else c) for t, c, _ in state.rivers[s])))
    on_table = None
    if state.phase in ("claim", "rob") and state.pending_tile is not None:
        assert state.pending_from is not None
        on_table = (state.pending_from, state.pending_tile)
    drawn = None
    if state.current == viewer and state.drawn is not None and state.phase in ("turn", "final"):
        drawn = state.drawn
    options = tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                           for k, v in state.rules.overrides().items()))
    return IntView(viewer, state.hand_no, state.rules.profile, options, state.dealer, state.phase,
                   state.indicator, state.laizi, state.live, state.end_phase, on_table,
                   tuple(seats), state.hand_tiles(viewer), drawn,
                   tuple(state.legal_actions(viewer)), replacement_draw(state))
