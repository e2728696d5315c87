"""When a seat may act, and why an action is not allowed: one table of requirements.

Every rule of legality lives here once, as a :class:`Requirement`: a name
(``discard.in_hand``), the phases and action types it governs, and one function
that returns ``None`` when the action meets it, else the sentence that says why
not.  :func:`allowed` keeps the candidate actions that meet every requirement;
:func:`explain` (and ``why_illegal``) reports the first requirement an action
fails, by name.  :meth:`HandState.legal_actions
<wuhan_mahjong.engine.state.HandState.legal_actions>` uses the generators at the
end of this module (:func:`turn_actions`, :func:`claim_actions`,
:func:`win_or_pass`), which produce those same actions without a predicate call
per candidate; the tests (``tests/engine/test_engine_legality.py``) check over
random states, and over unusual synthetic ones, that each generator returns
exactly what :func:`allowed` keeps of its candidates and that every action that
is not legal is explained and no legal one is.

Two levels, checked in this order:

``SEAT_REQUIREMENTS``
    whether ``seat`` may act at all now (the hand goes on, it is his turn or his
    claim window, he has not answered yet);
``ACTION_REQUIREMENTS``
    whether this action is one he may take, by phase and action type.

The candidates (:func:`turn_candidates`, :func:`claim_candidates`) only bound the
search: they may hold actions that fail a requirement, never miss a legal one.
Whether a hand wins is the analysis' and the scoring's call
(:meth:`HandState.win_now`), whose reason the ``win.is_a_win`` requirement
passes on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, cast

from ..tiles import NUM_KINDS, tile_str
from .actions import (
    ACTION_TYPES,
    ADDED_KONGS,
    CHIS,
    CONCEALED_KONGS,
    DIRECT_KONGS,
    DISCARDS,
    LAIZI_DISCARD,
    PASS,
    PENGS,
    SPECIAL_KONGS,
    SPECIAL_ZH,
    WIN,
    Action,
    Chi,
    Discard,
    Kong,
    LaiziDiscard,
    Pass,
    Peng,
    SpecialKind,
    SpecialKong,
    Win,
)

if TYPE_CHECKING:
    from .state import HandState

PLAY_PHASES = ("turn", "claim", "rob", "final")

SeatCheck = Callable[["HandState", int], "str | None"]
ActionCheck = Callable[["HandState", int, Action], "str | None"]


@dataclass(frozen=True)
class Requirement:
    """One rule of legality: ``check`` returns ``None`` when it is met, else the reason."""

    name: str
    phases: tuple[str, ...]
    types: tuple[type, ...]  # action types it governs (all of them for a seat requirement)
    check: Callable[..., str | None]
    doc: str
    form: bool = False
    """A requirement on the action's form alone (its tiles exist, a chi is a run): the
    candidates meet it by construction, so :func:`allowed` skips it."""
    phase_only: bool = False
    """A requirement on the phase and the action alone, which never reads the state (a
    turn is not passed): :func:`phase_violation` asks it without one."""


@dataclass(frozen=True)
class Violation:
    """Why an action is illegal now: the requirement it fails and the sentence for people."""

    rule: str
    message: str

    def __str__(self) -> str:
        return self.message


SEAT_REQUIREMENTS: list[Requirement] = []
ACTION_REQUIREMENTS: list[Requirement] = []


def _seat_rule(name: str, phases: Iterable[str], doc: str, *, phase_only: bool = False
               ) -> Callable[[SeatCheck], SeatCheck]:
    def add(check: SeatCheck) -> SeatCheck:
        SEAT_REQUIREMENTS.append(Requirement(name, tuple(phases), ACTION_TYPES, check, doc,
                                             phase_only=phase_only))
        return check
    return add


def _rule(name: str, phases: Iterable[str], types: Iterable[type], doc: str, *, form: bool = False,
          phase_only: bool = False) -> Callable[[ActionCheck], ActionCheck]:
    def add(check: ActionCheck) -> ActionCheck:
        ACTION_REQUIREMENTS.append(Requirement(name, tuple(phases), tuple(types), check, doc, form,
                                               phase_only))
        return check
    return add


def _who(seat: int) -> str:
    return f"seat {seat}"


def _must_kind(st: HandState, tile: int) -> SpecialKind:
    """The special kong that plays out the must-kong tile ``tile``: red (红中) or green (发财)."""
    return "red" if tile == st.rules.special_kong_tile("red", st.indicator) else "green"


# ====================================================================== may the seat act at all
@_seat_rule("seat.exists", (*PLAY_PHASES, "ended"), "seats are numbered 0-3")
def _seat_exists(st: HandState, seat: int) -> str | None:
    return None if 0 <= seat < 4 else f"no seat {seat}: seats are 0-3"


@_seat_rule("hand.goes_on", ("ended",), "nobody acts once the hand is over", phase_only=True)
def _hand_goes_on(st: HandState, seat: int) -> str | None:
    return "the hand is over"


@_seat_rule("window.not_own", ("claim", "rob"), "the discarder / konger does not answer his own tile")
def _not_own_window(st: HandState, seat: int) -> str | None:
    if seat != st.pending_from:
        return None
    if st.phase == "claim":
        return f"{_who(seat)} cannot claim his own discard; the others are answering"
    return f"{_who(seat)} declared the added kong; the others are answering (抢杠 window)"


@_seat_rule("window.not_answered", ("claim", "rob"), "one answer per seat and window")
def _not_answered(st: HandState, seat: int) -> str | None:
    if st.waiting[seat]:
        return None
    return f"{_who(seat)} has already answered this {'discard' if st.phase == 'claim' else 'kong'}"


@_seat_rule("turn.own", ("turn", "final"), "only the seat whose turn (or final draw) it is acts")
def _own_turn(st: HandState, seat: int) -> str | None:
    if seat == st.current:
        return None
    if st.phase == "final":
        return f"not {_who(seat)}'s draw: seat {st.current} is making a final draw (海底)"
    return f"not {_who(seat)}'s turn: seat {st.current} is to play"


# ====================================================================== what each phase admits
@_rule("action.tiles_exist", PLAY_PHASES, (Discard, Chi, Peng, Kong), "tiles are 0-33", form=True)
def _tiles_exist(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, (Discard, Chi, Peng, Kong))
    t = a.low if isinstance(a, Chi) else a.tile
    return None if 0 <= t < NUM_KINDS else f"no tile kind {t}: tiles are 0-{NUM_KINDS - 1}"


@_rule("chi.is_a_run", PLAY_PHASES, (Chi,), "a chi makes three consecutive tiles of one suit", form=True)
def _is_a_run(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Chi)
    if a.low < 27 and a.low % 9 <= 6:
        return None
    return f"no run starts at {tile_str(a.low)}: a chi is three consecutive tiles of one suit"


@_rule("turn.no_pass", ("turn",), (Pass,), "a turn is played, never passed", phase_only=True)
def _turn_no_pass(st: HandState, seat: int, a: Action) -> str | None:
    return "a player cannot pass his own turn: he must discard (or kong, or win)"


@_rule("turn.nothing_to_claim", ("turn",), (Chi, Peng), "chi and peng take a discard",
       phase_only=True)
def _turn_no_claim(st: HandState, seat: int, a: Action) -> str | None:
    return f"{a.__class__.__name__.lower()} claims a discard; there is none to claim"


@_rule("claim.answers", ("claim",), (Discard, SpecialKong, LaiziDiscard),
       "a discard is answered by win, peng, 冲杠, chi or pass", phase_only=True)
def _claim_answers(st: HandState, seat: int, a: Action) -> str | None:
    return f"{a} is not an answer to a discard: claim (win, peng, kong direct, chi) or pass"


@_rule("rob.answers", ("rob",), (Discard, Chi, Peng, Kong, SpecialKong, LaiziDiscard),
       "an added kong (蓄杠) is robbed (win) or let pass", phase_only=True)
def _rob_answers(st: HandState, seat: int, a: Action) -> str | None:
    return "an added kong (蓄杠) can only be robbed (win) or let pass"


@_rule("final.answers", ("final",), (Discard, Chi, Peng, Kong, SpecialKong, LaiziDiscard),
       "a final draw (海底) is won or passed", phase_only=True)
def _final_answers(st: HandState, seat: int, a: Action) -> str | None:
    return "in the final draws (海底) a player may only win or pass: no discard, no kong"


# ====================================================================== win
@_rule("win.after_draw", ("turn",), (Win,), "a self-drawn win follows a draw")
def _win_after_draw(st: HandState, seat: int, a: Action) -> str | None:
    if st.drawn is not None:
        return None
    return "a win in one's own turn must follow a draw (self-draw); there was none"


@_rule("win.is_a_win", PLAY_PHASES, (Win,), "the hand wins: the analysis and the scoring say so")
def _win_is_a_win(st: HandState, seat: int, a: Action) -> str | None:
    if st.win_now(seat) is not None:
        return None
    why = st._win_why[seat]
    if st.phase == "claim":
        return f"no win on {tile_str(st.pending_tile or 0)}: {why}"
    if st.phase == "rob":
        return f"no win robbing the kong of {tile_str(st.pending_tile or 0)}: {why}"
    if st.phase == "final":
        return f"no win on this final draw: {why}"
    return f"no win: {why}"


# ====================================================================== discards
@_rule("discard.not_must_kong", ("turn",), (Discard,), "红中 / 发财 leave the hand only as kongs")
def _discard_not_must(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Discard)
    if a.tile not in st.must:
        return None
    kong = SPECIAL_ZH[_must_kind(st, a.tile)]
    return f"{tile_str(a.tile)} can never be discarded normally; playing it is a {kong} (special_kong)"


@_rule("discard.not_laizi", ("turn",), (Discard,), "the laizi leaves as 丢癞子 or 癞子杠")
def _discard_not_laizi(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Discard)
    if a.tile != st.laizi:
        return None
    return (f"the laizi {tile_str(a.tile)} is not discarded normally: use laizi_discard "
            "(丢癞子) or special_kong laizi (癞子杠)")


@_rule("discard.in_hand", ("turn",), (Discard,), "one discards a tile one holds")
def _discard_in_hand(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Discard)
    return None if st.counts[seat][a.tile] else f"{tile_str(a.tile)} is not in seat {seat}'s hand"


@_rule("laizi_discard.holds_laizi", ("turn",), (LaiziDiscard,), "丢癞子 needs a laizi in hand")
def _holds_laizi(st: HandState, seat: int, a: Action) -> str | None:
    return None if st.counts[seat][st.laizi] else f"seat {seat} holds no laizi ({tile_str(st.laizi)})"


# ====================================================================== kongs in a turn
def _only_must_tiles(st: HandState, seat: int) -> bool:
    """Whether every concealed tile is a must-kong tile: no discard at all is possible."""
    c = st.counts[seat]
    return all(not c[t] or t in st.must for t in range(NUM_KINDS))


@_rule("kong.not_in_end_phase", ("turn",), (Kong, SpecialKong),
       "no kong in the end phase, but 红中 / 发财 may be played out when nothing else can")
def _kong_end_phase(st: HandState, seat: int, a: Action) -> str | None:
    if not st.end_phase:
        return None
    if isinstance(a, SpecialKong) and a.kind in ("red", "green") and _only_must_tiles(st, seat):
        return None
    return "no kong of any kind in the end phase (海底)"


@_rule("special_kong.must_kong_tile", ("turn",), (SpecialKong,),
       "红中杠 / 发财杠 exist for the must-kong tiles of the profile")
def _special_must(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, SpecialKong)
    if a.kind not in ("red", "green") or st.rules.special_kong_tile(a.kind, st.indicator) in st.must:
        return None
    return f"{SPECIAL_ZH[a.kind]} is only played when its tile is a must-kong tile (laizishanzhuang: 发财)"


@_rule("special_kong.pi_played", ("turn",), (SpecialKong,), "癞子皮杠 exists only under its option")
def _pi_played(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, SpecialKong)
    if a.kind != "pi" or st.rules.pi_kong_active:
        return None
    return "癞子皮杠 is not played under these rules"


@_rule("special_kong.pi_not_must", ("turn",), (SpecialKong,),
       "an indicator that is a must-kong tile is played as its own kong")
def _pi_not_must(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, SpecialKong)
    if a.kind != "pi" or st.pi_tile is not None:
        return None
    return (f"癞子皮杠 is not played in this hand: the indicator {tile_str(st.indicator)} "
            "is a must-kong tile")


@_rule("special_kong.holds_tile", ("turn",), (SpecialKong,), "a special kong plays out a held tile")
def _special_holds(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, SpecialKong)
    tile = st.rules.special_kong_tile(a.kind, st.indicator)
    return None if st.counts[seat][tile] else f"{SPECIAL_ZH[a.kind]} needs a {tile_str(tile)} in hand"


@_rule("kong.not_laizi", ("turn",), (Kong,), "the laizi is konged singly (癞子杠)")
def _kong_not_laizi(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Kong)
    if a.tile != st.laizi:
        return None
    return f"the laizi {tile_str(a.tile)} never takes part in a kong (use special_kong laizi)"


@_rule("kong.not_must_kong", ("turn",), (Kong,), "红中 / 发财 are konged singly")
def _kong_not_must(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Kong)
    return f"{tile_str(a.tile)} is only ever konged singly (special_kong)" if a.tile in st.must else None


@_rule("kong.direct_claims", ("turn",), (Kong,), "a 冲杠 takes a discard", phase_only=True)
def _kong_direct_in_turn(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Kong)
    if a.kind != "direct":
        return None
    return "a 冲杠 (direct kong) claims a discard; there is none to claim"


@_rule("kong.concealed_four", ("turn",), (Kong,), "暗杠: all four in hand")
def _concealed_four(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Kong)
    n = st.counts[seat][a.tile]
    if a.kind != "concealed" or n == 4:
        return None
    return f"暗杠 of {tile_str(a.tile)} needs all four in hand (has {n})"


@_rule("kong.added_to_peng", ("turn",), (Kong,), "蓄杠: a peng of the tile")
def _added_peng(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Kong)
    t = a.tile
    if a.kind != "added" or any(m.type == "peng" and m.tiles[0] == t for m in st.melds[seat]):
        return None
    return f"蓄杠 of {tile_str(t)} needs a peng of {tile_str(t)}"


@_rule("kong.added_fourth", ("turn",), (Kong,), "蓄杠: the fourth tile in hand")
def _added_fourth(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Kong)
    if a.kind != "added" or st.counts[seat][a.tile]:
        return None
    return f"蓄杠 of {tile_str(a.tile)} needs the fourth {tile_str(a.tile)} in hand"


# ====================================================================== claims on a discard
@_rule("claim.direct_kong_only", ("claim",), (Kong,), "the kong on a discard is the 冲杠",
       phase_only=True)
def _claim_direct_only(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Kong)
    if a.kind == "direct":
        return None
    return f"only a 冲杠 (direct kong) can be made on a discard, not a {a.kind} kong"


@_rule("claim.end_phase_no_kong", ("claim",), (Kong,), "no 冲杠 in the end phase")
def _claim_end_phase(st: HandState, seat: int, a: Action) -> str | None:
    return "no kong of any kind in the end phase (海底)" if st.end_phase else None


@_rule("claim.the_discard", ("claim",), (Peng, Kong), "peng and 冲杠 take the tile on the table")
def _claim_the_discard(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, (Peng, Kong))
    t = st.pending_tile
    assert t is not None
    return None if a.tile == t else f"the discard on the table is {tile_str(t)}, not {tile_str(a.tile)}"


@_rule("peng.two_in_hand", ("claim",), (Peng,), "peng: two of the discard in hand")
def _peng_two(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Peng)
    if st.counts[seat][a.tile] >= 2:
        return None
    ts = tile_str(a.tile)
    return f"peng {ts} needs two {ts} in hand (laizi never take part in claims)"


@_rule("kong.direct_three_in_hand", ("claim",), (Kong,), "冲杠: three of the discard in hand")
def _direct_three(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Kong)
    if st.counts[seat][a.tile] >= 3:
        return None
    return f"冲杠 of {tile_str(a.tile)} needs three {tile_str(a.tile)} in hand"


@_rule("chi.next_player", ("claim",), (Chi,), "only the discarder's next player chis")
def _chi_next(st: HandState, seat: int, a: Action) -> str | None:
    nxt = ((st.pending_from or 0) + 1) % 4
    return None if seat == nxt else f"only the discarder's next player (seat {nxt}) may chi"


@_rule("chi.uses_discard", ("claim",), (Chi,), "a chi's run holds the discard")
def _chi_uses(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Chi) and st.pending_tile is not None
    t = st.pending_tile
    return None if t in a.tiles else f"chi {a} does not use the discard {tile_str(t)}"


@_rule("chi.no_laizi", ("claim",), (Chi,), "the laizi never takes part in a chi")
def _chi_no_laizi(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Chi)
    if st.laizi in a.tiles and st.laizi != st.pending_tile:
        return f"the laizi {tile_str(st.laizi)} never takes part in a chi"
    return None


@_rule("chi.tiles_in_hand", ("claim",), (Chi,), "a chi's other two tiles are in hand")
def _chi_in_hand(st: HandState, seat: int, a: Action) -> str | None:
    assert isinstance(a, Chi)
    c = st.counts[seat]
    missing = [tile_str(x) for x in a.tiles if x != st.pending_tile and not c[x]]
    return f"chi {a} needs {' and '.join(missing)} in hand" if missing else None


# ====================================================================== the table, indexed
_INDEX: dict[tuple[str, type], tuple[ActionCheck, ...]] = {}
_NAMES: dict[tuple[str, type], tuple[str, ...]] = {}
_CANDIDATE_INDEX: dict[tuple[str, type], tuple[ActionCheck, ...]] = {}
_SEAT_INDEX: dict[str, tuple[Requirement, ...]] = {}
_PHASE_ONLY_INDEX: dict[tuple[str, type], tuple[tuple[Requirement, bool], ...]] = {}
"""The phase-only requirements of (phase, action type), each with whether it is a seat's."""


def _build_index() -> None:
    for phase in (*PLAY_PHASES, "ended"):
        _SEAT_INDEX[phase] = tuple(r for r in SEAT_REQUIREMENTS if phase in r.phases)
        for kind in ACTION_TYPES:
            reqs = [r for r in ACTION_REQUIREMENTS if phase in r.phases and kind in r.types]
            _INDEX[(phase, kind)] = tuple(r.check for r in reqs)
            _NAMES[(phase, kind)] = tuple(r.name for r in reqs)
            _CANDIDATE_INDEX[(phase, kind)] = tuple(r.check for r in reqs if not r.form)
            _PHASE_ONLY_INDEX[(phase, kind)] = (
                *((r, True) for r in _SEAT_INDEX[phase] if r.phase_only),
                *((r, False) for r in reqs if r.phase_only))


_build_index()


#: what a phase-only requirement is given for the state it never reads
_NO_STATE = cast("HandState", None)


def phase_violation(phase: str, action: Action) -> Violation | None:
    """Why ``action`` is no move of ``phase`` whatever the state, else None: a pass on a
    turn, a chi outside a claim window, a discard answering a discard, anything but a win
    or a pass in a final draw, anything once the hand is over.  For a reader of a view,
    such as a bot checking the legal actions it was sent; it asks only the requirements
    marked ``phase_only``.

    >>> from wuhan_mahjong.engine.actions import PASS
    >>> str(phase_violation("turn", PASS))
    'a player cannot pass his own turn: he must discard (or kong, or win)'
    >>> phase_violation("claim", PASS) is None
    True
    """
    for req, of_seat in _PHASE_ONLY_INDEX.get((phase, type(action)), ()):
        reason = req.check(_NO_STATE, -1) if of_seat else req.check(_NO_STATE, -1, action)
        if reason is not None:
            return Violation(req.name, reason)
    return None


def seat_violation(st: HandState, seat: int) -> Violation | None:
    """The first seat requirement ``seat`` fails now (he may not act at all), or ``None``."""
    for r in _SEAT_INDEX[st.phase]:
        why = r.check(st, seat)
        if why is not None:
            return Violation(r.name, why)
    return None


def action_violation(st: HandState, seat: int, action: Action) -> Violation | None:
    """The first action requirement ``action`` fails for ``seat`` now, or ``None``
    (the seat requirements are not checked here: see :func:`explain`)."""
    key = (st.phase, type(action))
    for name, check in zip(_NAMES.get(key, ()), _INDEX.get(key, ()), strict=True):
        why = check(st, seat, action)
        if why is not None:
            return Violation(name, why)
    return None


def explain(st: HandState, seat: int, action: Action) -> Violation | None:
    """Why ``action`` by ``seat`` is illegal now (the requirement that fails), or ``None``."""
    return seat_violation(st, seat) or action_violation(st, seat, action)


def allowed(st: HandState, seat: int, candidates: Iterable[Action]) -> tuple[Action, ...]:
    """The candidates that meet every action requirement (in the candidates' order).
    The candidates are well-formed (see ``Requirement.form``)."""
    phase = st.phase
    out = []
    for a in candidates:
        for check in _CANDIDATE_INDEX[(phase, type(a))]:
            if check(st, seat, a) is not None:
                break
        else:
            out.append(a)
    return tuple(out)


# ====================================================================== candidates
def turn_candidates(st: HandState, seat: int) -> list[Action]:
    """A superset of the legal actions in ``seat``'s turn, in the order they are offered:
    win, discards by tile, 丢癞子, special kongs (must-kong tiles, laizi, pi), 暗杠, 蓄杠.
    Only actions on held tiles (a cheap bound; the requirements decide)."""
    c = st.counts[seat]
    acts: list[Action] = [WIN] if st.drawn is not None else []
    acts.extend(DISCARDS[t] for t in range(NUM_KINDS) if c[t])
    laizi = c[st.laizi]
    if laizi:
        acts.append(LAIZI_DISCARD)
    acts.extend(SPECIAL_KONGS[_must_kind(st, t)] for t in st.must if c[t])
    if laizi:
        acts.append(SPECIAL_KONGS["laizi"])
    if c[st.indicator]:
        acts.append(SPECIAL_KONGS["pi"])
    acts.extend(CONCEALED_KONGS[t] for t in range(NUM_KINDS) if c[t] == 4)
    acts.extend(ADDED_KONGS[m.tiles[0]] for m in st.melds[seat] if m.type == "peng")
    return acts


def claim_candidates(st: HandState, seat: int) -> list[Action]:
    """A superset of the answers to the discard on the table: win, peng, 冲杠, the chis
    (lowest tile first), pass."""
    t = st.pending_tile
    assert t is not None
    acts: list[Action] = [WIN, PENGS[t], DIRECT_KONGS[t]]
    if t < 27:
        r = t % 9
        acts.extend(CHIS[t - r + low] for low in (r - 2, r - 1, r) if 0 <= low <= 6)
    acts.append(PASS)
    return acts


WIN_OR_PASS: tuple[Action, ...] = (WIN, PASS)
"""The candidates of a robbing window and of a final draw (海底)."""
_PASS_ONLY: tuple[Action, ...] = (PASS,)


# ====================================================================== the legal actions, generated
# The requirements above are the rules; the generators below produce exactly the candidates
# that meet them, without calling a predicate per candidate (the table costs a Python call per
# candidate and requirement: half of an engine's self-play time).  They are checked against
# the table, never trusted: ``tests/engine/test_engine_legality.py`` asserts over random states
# of every profile that an action is legal exactly when no requirement explains why not, and
# that each generator returns what :func:`allowed` keeps of its candidates, in the same order.

@dataclass(frozen=True)
class TurnFacts:
    """What a hand's legality needs that is fixed when it is dealt (rules, indicator, laizi)."""

    plain: tuple[int, ...]
    """tiles that may be discarded normally (not the laizi, not a must-kong tile)"""
    must_kongs: tuple[tuple[int, int, Action], ...]
    """(must-kong tile, tile played out, action) for the 红中 / 发财 kongs the profile has"""
    laizi_kong_tile: int
    pi: tuple[int, int] | None
    """(the indicator, the tile played out) when 癞子皮杠 is played in this hand"""
    kong_tiles: frozenset[int]
    """tiles that may form a 暗杠 or 蓄杠 (not the laizi, not a must-kong tile)"""
    plain3: int
    """bit 3t set for each plain kind (the packed form of ``plain``, for :func:`turn_actions`)"""


def turn_facts(st: HandState) -> TurnFacts:
    """The hand's fixed facts, derived from the same rules as the requirements."""
    must = set(st.must)
    plain = tuple(t for t in range(NUM_KINDS) if t not in must and t != st.laizi)
    must_kongs = []
    for t in st.must:
        kind = _must_kind(st, t)
        if st.rules.special_kong_tile(kind, st.indicator) in must:  # special_kong.must_kong_tile
            must_kongs.append((t, st.rules.special_kong_tile(kind, st.indicator), SPECIAL_KONGS[kind]))
    pi = None
    if st.rules.pi_kong_active and st.pi_tile is not None:  # special_kong.pi_played / pi_not_must
        pi = (st.indicator, st.rules.special_kong_tile("pi", st.indicator))
    plain3 = sum(1 << (3 * t) for t in plain)
    return TurnFacts(plain, tuple(must_kongs), st.rules.special_kong_tile("laizi", st.indicator), pi,
                     frozenset(plain), plain3)


def _discard_table(first: int, size: int) -> dict[int, tuple[Action, ...]]:
    """For one suit (or the honours) starting at tile ``first``: every set of held kinds,
    keyed by its bits 3r (rank r held) as they sit in the packed hand shifted down to the
    suit, to the discards of those kinds in tile order."""
    table: dict[int, tuple[Action, ...]] = {}
    for held in range(1 << size):
        ranks = [r for r in range(size) if held >> r & 1]
        table[sum(1 << (3 * r) for r in ranks)] = tuple(DISCARDS[first + r] for r in ranks)
    return table


_DISCARDS_M: Final = _discard_table(0, 9)
_DISCARDS_P: Final = _discard_table(9, 9)
_DISCARDS_S: Final = _discard_table(18, 9)
_DISCARDS_Z: Final = _discard_table(27, 7)
_SUIT27: Final = (1 << 27) - 1
_ONES3: Final = sum(1 << (3 * t) for t in range(NUM_KINDS))
_FOURS3: Final = _ONES3 << 2
"""bit 3t+2 of a packed hand: four of kind t"""


def turn_actions(st: HandState, seat: int) -> tuple[Action, ...]:
    """The legal actions of ``seat`` in his turn (he is ``st.current``): what :func:`allowed`
    keeps of :func:`turn_candidates`, in that order."""
    f: TurnFacts = st.facts
    c = st.counts[seat]
    p = st.packed[seat]  # the concealed tiles but the laizi, 3 bits a kind
    # every held kind in tile order but the laizi and the must-kong tiles, which are never
    # discarded normally (discard.not_laizi / not_must_kong): four lookups of the held
    # kinds of a suit (bits 3t of the packed hand) in the tables of their discards
    held = (p | p >> 1 | p >> 2) & f.plain3
    acts = (_DISCARDS_M[held & _SUIT27] + _DISCARDS_P[held >> 27 & _SUIT27]
            + _DISCARDS_S[held >> 54 & _SUIT27] + _DISCARDS_Z[held >> 81])
    # an unopened hand never wins (the analysis' first check): most turns skip the win check
    if (st.drawn is not None and st.openings[seat] and st.no_self_win != st.decision
            and st.win_now(seat) is not None):
        acts = (WIN, *acts)
    laizi = c[st.laizi]
    more: list[Action] = [LAIZI_DISCARD] if laizi else []
    if st.end_phase:
        # no kong, but 红中 / 发财 when nothing else can leave the hand (kong.not_in_end_phase)
        if f.must_kongs and _only_must_tiles(st, seat):
            more += [a for t, k, a in f.must_kongs if c[t] and c[k]]
        return acts + tuple(more) if more else acts
    for t, k, a in f.must_kongs:
        if c[t] and c[k]:
            more.append(a)
    if laizi and c[f.laizi_kong_tile]:
        more.append(SPECIAL_KONGS["laizi"])
    pi = f.pi
    if pi is not None and c[pi[0]] and c[pi[1]]:
        more.append(SPECIAL_KONGS["pi"])
    if p & _FOURS3:  # four of some kind (the laizi, never a kong tile, is not in p)
        kong_tiles = f.kong_tiles
        more += [CONCEALED_KONGS[t] for t in range(NUM_KINDS) if c[t] == 4 and t in kong_tiles]
    for m in st.melds[seat]:
        if m.type == "peng":
            t = m.tiles[0]
            if c[t] and t in f.kong_tiles:
                more.append(ADDED_KONGS[t])
    return acts + tuple(more) if more else acts


_CHI_OTHERS = tuple(
    tuple((low, *(k for k in (low, low + 1, low + 2) if k != 0)) for low in (-2, -1, 0) if 0 <= r + low <= 6)
    for r in range(9))
"""By rank: (lowest, other, other) offsets from the discard of each run that holds it."""


def claim_actions(st: HandState, seat: int, may_win: bool = True) -> tuple[Action, ...]:
    """The answers of ``seat`` to the discard on the table: what :func:`allowed` keeps of
    :func:`claim_candidates`, in that order.  ``may_win=False``: the caller knows that no
    tile could complete the hand, so the win check is skipped."""
    t = st.pending_tile
    assert t is not None
    c = st.counts[seat]
    n = c[t]
    acts: list[Action] = [WIN] if may_win and st.win_now(seat) is not None else []
    if n >= 2:
        acts.append(PENGS[t])
        if n >= 3 and not st.end_phase:
            acts.append(DIRECT_KONGS[t])
    if t < 27 and seat == ((st.pending_from or 0) + 1) % 4:
        r = t % 9
        laizi = st.laizi
        # the runs from t-2, t-1 and t within the suit, their other two tiles held, no laizi
        for low, a, b in _CHI_OTHERS[r]:
            x, y = t + a, t + b
            if c[x] and c[y] and laizi != x and laizi != y:
                acts.append(CHIS[t + low])
    if not acts:
        return _PASS_ONLY
    acts.append(PASS)
    return tuple(acts)


def win_or_pass(st: HandState, seat: int) -> tuple[Action, ...]:
    """The answers in a robbing window or a final draw: what :func:`allowed` keeps of
    :data:`WIN_OR_PASS`."""
    return WIN_OR_PASS if st.win_now(seat) is not None else _PASS_ONLY
