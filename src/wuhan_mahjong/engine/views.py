"""What one seat (or a spectator) may see of a hand: typed, JSON-ready dictionaries.

A view holds the seat's own concealed tiles, his own last drawn tile and his
own legal actions, and everything public: every discard (with who claimed
it), exposed melds and who fed them, the special-kong counts, each seat's
number of concealed tiles, the indicator and the laizi, whose turn it is, the
live-wall count and the wall commitment.  It never holds another seat's
concealed tiles, the faces of another seat's concealed kongs (暗杠), the wall
order or the salt: those appear only in ``result.reveal`` once the hand is
over.  It does not say whether anybody else may claim the discard on the table
or has answered yet.  ``replacement_draw`` says whether the seat in turn drew its
tile as a kong's replacement (public: the kong was seen), so a self-drawn win now
would be 杠上花.

``decision`` is the id of the decision now open (a turn, a claim window, a final
draw): an answer should carry it, so that a late click cannot land in the next
window.  Each legal action carries the tiles it uses (``tiles``: the discard, the
three of a chi, the four of a kong, the tile a special kong plays out, the winning
tile), so a client never works them out from the rules.

``json.dumps(view)`` works as is; the schema is versioned by ``VIEW_VERSION``.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from ..tiles import _TILE_STR, format_tiles, tile_str
from .actions import Action, Chi, Discard, Kong, LaiziDiscard, Peng, SpecialKong, Win
from .state import HandState

VIEW_VERSION = 2


class ActionView(TypedDict):
    """An action's JSON form (:mod:`.actions`) and the tiles it uses."""

    type: str  # discard, chi, peng, kong, special_kong, laizi_discard, win, pass
    tile: NotRequired[str]  # discard, peng, kong: the tile; chi: the run's lowest tile
    kind: NotRequired[str]  # kong: direct, added, concealed; special_kong: red, green, laizi, pi
    tiles: str  # the tiles it uses ("" for a pass)


class MeldView(TypedDict):
    type: str  # chi, peng, kong
    kind: str | None  # direct, added, concealed (kongs only)
    tiles: str | None  # None: another seat's concealed kong
    from_seat: int | None  # who fed it (the discarder); None for a concealed kong


class DiscardView(TypedDict):
    tile: str
    laizi: bool  # 丢癞子: a discarded laizi, never claimable
    claimed_by: int | None


class SpecialKongsView(TypedDict):
    red: int
    green: int
    laizi: int
    pi: int


class PublicSeat(TypedDict):
    seat: int
    concealed: int  # number of concealed tiles in hand
    melds: list[MeldView]
    special_kongs: SpecialKongsView
    laizi_discards: int
    discards: list[DiscardView]


class TableTile(TypedDict):
    seat: int
    tile: str


class RevealView(TypedDict):
    hands: list[str]
    wall: str
    salt: str


class ResultView(TypedDict):
    outcome: str  # win, exhausted
    winner: int | None
    win_by: str | None
    from_seat: int | None
    tile: str | None
    deltas: list[int]
    settlement: dict[str, Any] | None
    reveal: RevealView


class SeatView(TypedDict):
    schema: int
    viewer: int | None  # None: a spectator
    decision: int  # the id of the decision now open; an answer carries it
    hand_no: int
    profile: str
    options: dict[str, Any]  # rule options that differ from the profile's preset
    dealer: int
    phase: str  # turn, claim, rob, final, ended
    turn: int  # the seat whose turn it is (the discarder / konger during a window)
    indicator: str
    laizi: str
    commitment: str
    wall: int  # tiles left in the live wall
    end_phase: bool
    final_draws_left: int
    replacement_draw: bool  # the seat in turn drew its tile as a kong's replacement (杠上花)
    on_table: TableTile | None  # the discard being answered, or the added-kong tile (rob)
    seats: list[PublicSeat]
    hand: str | None  # own concealed tiles (None for a spectator)
    drawn: str | None  # own tile just drawn
    legal_actions: list[ActionView]
    result: ResultView | None


def action_tiles(state: HandState, seat: int, action: Action) -> str:
    """The tiles ``action`` by ``seat`` uses now, in the compact notation ("" for a pass)."""
    if isinstance(action, Discard):
        return tile_str(action.tile)
    if isinstance(action, Chi):
        return format_tiles(action.tiles)
    if isinstance(action, Peng):
        return format_tiles((action.tile,) * 3)
    if isinstance(action, Kong):
        return format_tiles((action.tile,) * 4)
    if isinstance(action, SpecialKong):
        return tile_str(state.rules.special_kong_tile(action.kind, state.indicator))
    if isinstance(action, LaiziDiscard):
        return tile_str(state.laizi)
    if isinstance(action, Win):
        won = state.pending_tile if state.phase in ("claim", "rob") else state.drawn
        return "" if won is None else tile_str(won)
    return ""


def action_view(state: HandState, seat: int, action: Action) -> ActionView:
    """The JSON form of ``action`` with the tiles it uses (see :func:`action_tiles`)."""
    out: ActionView = action.to_json()  # type: ignore[assignment]
    out["tiles"] = action_tiles(state, seat, action)
    return out


def _public_seat(state: HandState, seat: int, viewer: int | None) -> PublicSeat:
    melds: list[MeldView] = []
    for m in state.melds[seat]:
        hidden = m.kind == "concealed" and seat != viewer and state.phase != "ended"
        melds.append({"type": m.type, "kind": m.kind,
                      "tiles": None if hidden else format_tiles(m.tiles),
                      "from_seat": m.from_seat})
    sp = state.specials[seat]
    return {
        "seat": seat,
        "concealed": sum(state.counts[seat]),
        "melds": melds,
        "special_kongs": {"red": sp.red, "green": sp.green, "laizi": sp.laizi, "pi": sp.pi},
        "laizi_discards": sp.laizi_discards,
        "discards": [{"tile": _TILE_STR[t], "laizi": bool(lz), "claimed_by": None if c < 0 else c}
                     for t, c, lz in state.rivers[seat]],
    }


def public_seat(state: HandState, seat: int, viewer: int | None) -> PublicSeat:
    """What ``viewer`` (a seat, or ``None`` for a spectator) sees of ``seat``: the same for
    every viewer but ``seat`` himself, who sees the faces of his own concealed kongs."""
    return _public_seat(state, seat, viewer)


def shows_own_kongs(state: HandState, seat: int) -> bool:
    """Whether ``seat`` sees more of his own melds than the others do (a concealed kong
    while the hand goes on): only then does his :func:`public_seat` differ from theirs."""
    return state.phase != "ended" and any(m.kind == "concealed" for m in state.melds[seat])


def _result(state: HandState) -> ResultView | None:
    r = state.result
    if r is None:
        return None
    return {
        "outcome": r.outcome,
        "winner": r.winner,
        "win_by": r.win_by,
        "from_seat": r.from_seat,
        "tile": None if r.tile is None else tile_str(r.tile),
        "deltas": list(r.deltas),
        "settlement": r.settlement.to_json() if r.settlement is not None else None,
        "reveal": {"hands": [format_tiles(state.hand_tiles(s)) for s in range(4)],
                   "wall": "".join(tile_str(t) for t in state.wall),
                   "salt": state.salt.hex()},
    }


def own_part(state: HandState, viewer: int | None) -> tuple[str | None, str | None, list[ActionView]]:
    """What only ``viewer`` sees: (his concealed tiles, his tile just drawn, his legal
    actions); ``(None, None, [])`` for a spectator."""
    if viewer is None:
        return None, None, []
    drawn = None
    if state.current == viewer and state.drawn is not None and state.phase in ("turn", "final"):
        drawn = _TILE_STR[state.drawn]
    return (format_tiles(state.hand_tiles(viewer)), drawn,
            [action_view(state, viewer, a) for a in state.legal_actions(viewer)])


def replacement_draw(state: HandState) -> bool:
    """Whether the seat in turn holds a kong's replacement draw (a self-drawn win now is
    杠上花, ``kong_bloom``).  Public: every seat saw the kong the draw follows; it stays
    true through further kongs' replacement draws and ends with the turn."""
    return state.phase == "turn" and state.draw_source == "replacement"


def seat_view(state: HandState, viewer: int | None) -> SeatView:
    """The view of seat ``viewer`` (0-3), or of a spectator (``None``).

    The server builds the public part once per move and shares it among the seats
    (``server/frames.py``) from :func:`public_seat`, :func:`own_part` and the spectator
    view; a test checks that its frames hold exactly this view, byte for byte."""
    if viewer is not None and not 0 <= viewer < 4:
        raise ValueError(f"no seat {viewer}")
    on_table: TableTile | None = None
    if state.phase in ("claim", "rob") and state.pending_tile is not None:
        assert state.pending_from is not None
        on_table = {"seat": state.pending_from, "tile": _TILE_STR[state.pending_tile]}
    hand, drawn, legal = own_part(state, viewer)
    return {
        "schema": VIEW_VERSION,
        "viewer": viewer,
        "decision": state.decision,
        "hand_no": state.hand_no,
        "profile": state.rules.profile,
        "options": state.rules.overrides(),
        "dealer": state.dealer,
        "phase": state.phase,
        "turn": state.current if state.pending_from is None else state.pending_from,
        "indicator": _TILE_STR[state.indicator],
        "laizi": _TILE_STR[state.laizi],
        "commitment": state.commitment,
        "wall": state.live,
        "end_phase": state.end_phase,
        "final_draws_left": state.final_left if state.phase == "final" else (
            min(state.rules.final_draws, state.live) if state.end_phase else state.rules.final_draws),
        "replacement_draw": replacement_draw(state),
        "on_table": on_table,
        "seats": [_public_seat(state, s, viewer) for s in range(4)],
        "hand": hand,
        "drawn": drawn,
        "legal_actions": legal,
        "result": _result(state),
    }


def spectator_view(state: HandState) -> SeatView:
    """Everything public and nothing concealed (``viewer`` is ``None``)."""
    return seat_view(state, None)

