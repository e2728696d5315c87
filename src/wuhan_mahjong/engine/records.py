"""Hand records: a JSON-lines event log per hand, its replay and its verification.

The format is documented in ``docs/records.md`` (schema ``wuhan-mahjong/hand``,
version ``RECORD_VERSION``).  A record opens with a ``header`` (rules, dealer,
commitment) and closes with a ``reveal`` (wall and salt).  The ``act`` lines
are the input: replaying them on the revealed wall rebuilds the state, and
every other line (deal, draws, claims, the settlement ...) must come out
identical.  A file may hold several hands one after the other.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import jsontext
from ..rules import RulesError, get_rules
from ..tiles import TileError, format_tiles, parse_tiles, tile_str
from .actions import ACTION_TYPES, Action, ActionFormatError, IllegalAction, action_from_json
from .dealing import FIRST_DRAW_POS, WallError, check_wall, commitment
from .state import HandState, seat_name

RECORD_SCHEMA = "wuhan-mahjong/hand"
RECORD_VERSION = 1
COMMITMENT_FORMAT = "sha256(b'wuhan-mahjong/wall/v1' + salt[32] + wall[136 bytes, tile kind 0-33])"
EVENT_TYPES = ("header", "deal", "act", "draw", "claim", "kong", "end_phase", "win", "exhausted",
               "escape", "reveal")


class HandRecordError(ValueError):
    """A malformed record (bad JSON, missing or wrong fields): exit status 2."""


class VerifyError(ValueError):
    """A well-formed record that does not check out (commitment or replay): exit status 1."""


# --------------------------------------------------------------------------- writing
def _event_json(state: HandState, ev: tuple[object, ...]) -> dict[str, Any]:
    kind = ev[0]
    if kind == "act":
        seat, action = ev[1], ev[2]
        assert isinstance(action, ACTION_TYPES)
        return {"e": "act", "seat": seat, "action": action.to_json()}
    if kind == "draw":
        _, seat, tile, source, left = ev
        assert isinstance(tile, int)
        return {"e": "draw", "seat": seat, "tile": tile_str(tile), "from": source, "wall": left}
    if kind == "claim":
        _, seat, action, frm = ev
        assert isinstance(action, ACTION_TYPES)
        return {"e": "claim", "seat": seat, "action": action.to_json(), "from": frm}
    if kind == "kong":
        _, seat, tile = ev
        assert isinstance(tile, int)
        return {"e": "kong", "seat": seat, "kind": "added", "tile": tile_str(tile)}
    if kind == "end_phase":
        return {"e": "end_phase", "wall": ev[1]}
    if kind == "win":
        _, seat, win_by, frm, tile = ev
        r = state.result
        assert r is not None and r.settlement is not None and isinstance(tile, int)
        return {"e": "win", "seat": seat, "win_by": win_by, "from": frm, "tile": tile_str(tile),
                "deltas": list(r.deltas), "settlement": r.settlement.to_json()}
    if kind == "exhausted":
        return {"e": "exhausted", "deltas": [0, 0, 0, 0]}
    if kind == "escape":
        _, seat, penalty, deltas = ev
        assert isinstance(deltas, tuple)
        return {"e": "escape", "seat": seat, "penalty": penalty, "deltas": list(deltas)}
    raise AssertionError(f"unknown event {kind}")  # pragma: no cover


def header_json(state: HandState) -> dict[str, Any]:
    rules = state.rules.to_dict()
    rules.pop("profile")
    return {"e": "header", "schema": RECORD_SCHEMA, "version": RECORD_VERSION,
            "hand_no": state.hand_no, "dealer": state.dealer, "profile": state.rules.profile,
            "rules": rules, "commitment": state.commitment, "commitment_format": COMMITMENT_FORMAT}


def record_events(state: HandState) -> list[dict[str, Any]]:
    """The record of a hand as a list of JSON objects (the reveal only once it is over)."""
    out = [header_json(state),
           {"e": "deal", "hands": [format_tiles(h) for h in state.initial_hands],
            "indicator": tile_str(state.indicator), "laizi": tile_str(state.laizi),
            "wall": len(state.wall) - FIRST_DRAW_POS}]
    out.extend(_event_json(state, ev) for ev in state.log)
    if state.ended:
        out.append({"e": "reveal", "wall": "".join(tile_str(t) for t in state.wall),
                    "salt": state.salt.hex(),
                    "hands": [format_tiles(state.hand_tiles(s)) for s in range(4)]})
    return out


def dumps_line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def record_lines(state: HandState) -> list[str]:
    """The record as JSON lines (one string per line, no newlines)."""
    return [dumps_line(e) for e in record_events(state)]


# --------------------------------------------------------------------------- reading
def load_records(text: str) -> list[list[dict[str, Any]]]:
    """Split JSON-lines text into hands (each a list of events starting with a header)."""
    hands: list[list[dict[str, Any]]] = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = jsontext.loads(line)
        except json.JSONDecodeError as e:
            raise HandRecordError(f"line {no}: bad JSON: {e.msg}") from None
        if not isinstance(obj, dict) or obj.get("e") not in EVENT_TYPES:
            raise HandRecordError(f"line {no}: not a record event (an object with a known 'e' field)")
        obj["_line"] = no
        if obj["e"] == "header":
            hands.append([obj])
        elif not hands:
            raise HandRecordError(f"line {no}: the record must start with a header line")
        else:
            hands[-1].append(obj)
    if not hands:
        raise HandRecordError("empty record: no header line")
    return hands


def _field(ev: dict[str, Any], name: str, typ: type | tuple[type, ...]) -> Any:
    v = ev.get(name)
    if not isinstance(v, typ) or (isinstance(v, bool) and typ is int):
        raise HandRecordError(f"line {ev.get('_line', '?')}: '{ev['e']}' needs a valid '{name}' field")
    return v


def _seat(ev: dict[str, Any]) -> int:
    s = _field(ev, "seat", int)
    if not 0 <= s < 4:
        raise HandRecordError(f"line {ev.get('_line', '?')}: seat out of range: {s}")
    assert isinstance(s, int)
    return s


SELF_DRAWN_WINS = ("self_draw", "kong_bloom", "last_tile")
"""The ``win_by`` of a win on the winner's own draw: 自摸, 杠上花, 海底捞."""


@dataclass(frozen=True, slots=True)
class SeatOutcome:
    """How one seat fared in a recorded hand: a line of a player's statistics (战绩)."""

    seat: int
    points: int
    """The seat's point change from the hand's end (the ``win`` or ``exhausted`` line);
    an escape's penalty is not in it."""
    won: bool
    self_drawn: bool
    """Won on his own draw (:data:`SELF_DRAWN_WINS`)."""
    dealt_in: bool
    """放冲: the winning tile was his discard, or the kong robbed from him."""
    claimed: bool
    """Took at least one discard (a chi, a peng or a direct kong)."""
    escaped: bool
    big_hands: tuple[str, ...]
    """The big hands (``analysis.BIG_HAND_NAMES`` ids) he won with; empty otherwise."""


@dataclass(frozen=True, slots=True)
class RecordOutcome:
    """How a recorded hand ended, seat by seat (:func:`record_outcome`)."""

    profile: str
    exhausted: bool
    """荒庄: the wall ran out and nobody won."""
    seats: tuple[SeatOutcome, SeatOutcome, SeatOutcome, SeatOutcome]


def record_outcome(events: Sequence[dict[str, Any]]) -> RecordOutcome:
    """Who won, how, who dealt in, who claimed and who escaped, from one hand's events.

    It reads the derived lines (``claim``, ``win``, ``exhausted``, ``escape``) without
    replaying the hand: a record that was verified, or that the engine wrote, says it all.
    A hand that has not ended raises :class:`HandRecordError`.

    >>> hand = [{"e": "header", "profile": "yuanhang"}, {"e": "claim", "seat": 3},
    ...         {"e": "win", "seat": 3, "win_by": "discard", "from": 1,
    ...          "deltas": [-8, -16, -8, 32], "settlement": {"hands": ["qingyise"]}}]
    >>> out = record_outcome(hand)
    >>> out.seats[3].won, out.seats[3].claimed, out.seats[3].big_hands, out.seats[1].dealt_in
    (True, True, ('qingyise',), True)
    """
    if not events or events[0].get("e") != "header":
        raise HandRecordError("a hand's record starts with its header")
    profile = _field(events[0], "profile", str)
    claimed: set[int] = set()
    escaped: set[int] = set()
    end: dict[str, Any] | None = None
    for ev in events[1:]:
        kind = ev.get("e")
        if kind == "claim":
            claimed.add(_seat(ev))
        elif kind == "escape":
            escaped.add(_seat(ev))
        elif kind in ("win", "exhausted"):
            if end is not None:
                raise HandRecordError(f"line {ev.get('_line', '?')}: a hand ends once")
            end = ev
    if end is None:
        raise HandRecordError("the hand has not ended: no 'win' or 'exhausted' line")
    deltas = _field(end, "deltas", list)
    if len(deltas) != 4 or not all(isinstance(d, int) and not isinstance(d, bool)
                                   for d in deltas):
        raise HandRecordError(f"line {end.get('_line', '?')}: 'deltas' is four integers")
    winner = feeder = None
    win_by = ""
    big: tuple[str, ...] = ()
    if end["e"] == "win":
        winner = _seat(end)
        win_by = _field(end, "win_by", str)
        if win_by not in SELF_DRAWN_WINS:
            feeder = _field(end, "from", int)
        settlement = _field(end, "settlement", dict)
        hands = settlement.get("hands", [])
        if not isinstance(hands, list) or not all(isinstance(h, str) for h in hands):
            raise HandRecordError(f"line {end.get('_line', '?')}: the settlement's 'hands' "
                                  "is a list of names")
        big = tuple(hands)
    seats = tuple(
        SeatOutcome(seat=s, points=deltas[s], won=s == winner,
                    self_drawn=s == winner and win_by in SELF_DRAWN_WINS,
                    dealt_in=s == feeder, claimed=s in claimed, escaped=s in escaped,
                    big_hands=big if s == winner else ())
        for s in range(4))
    assert len(seats) == 4
    return RecordOutcome(profile=profile, exhausted=end["e"] == "exhausted",
                       seats=(seats[0], seats[1], seats[2], seats[3]))


def start_state(events: Sequence[dict[str, Any]]) -> HandState:
    """The dealt state of a recorded hand (needs its reveal: wall and salt)."""
    head = events[0]
    if head.get("schema") != RECORD_SCHEMA:
        raise HandRecordError(f"line {head['_line']}: unknown schema {head.get('schema')!r}")
    if head.get("version") != RECORD_VERSION:
        raise HandRecordError(f"line {head['_line']}: unsupported record version {head.get('version')!r}"
                          f" (this program reads version {RECORD_VERSION})")
    profile = _field(head, "profile", str)
    options = _field(head, "rules", dict)
    try:
        rules = get_rules(profile, options)
    except RulesError as e:
        raise HandRecordError(f"line {head['_line']}: {e}") from None
    dealer = _field(head, "dealer", int)
    if not 0 <= dealer < 4:
        raise HandRecordError(f"line {head['_line']}: dealer out of range: {dealer}")
    hand_no = _field(head, "hand_no", int)
    _field(head, "commitment", str)
    reveal = next((e for e in events if e["e"] == "reveal"), None)
    if reveal is None:
        raise VerifyError("the hand has no reveal line (unfinished hand): nothing to check the "
                          "commitment against")
    try:
        wall = parse_tiles(_field(reveal, "wall", str))
        salt = bytes.fromhex(_field(reveal, "salt", str))
    except (TileError, ValueError) as e:
        if isinstance(e, HandRecordError):
            raise
        raise HandRecordError(f"line {reveal['_line']}: bad wall or salt: {e}") from None
    try:
        check_wall(wall)
    except WallError as e:
        raise VerifyError(f"line {reveal['_line']}: the revealed wall is not a full set: {e}") from None
    return HandState(rules, dealer, wall, salt, hand_no=hand_no)


def replay(events: Sequence[dict[str, Any]],
           on_step: Callable[[HandState], None] | None = None) -> HandState:
    """Rebuild a hand by applying its ``act`` lines (and noting escapes) in order.

    ``on_step``, if given, sees the state as dealt and after each ``act`` or ``escape``
    line (the replay viewer's frames are built in the same pass)."""
    state = start_state(events)
    if on_step is not None:
        on_step(state)
    for ev in events[1:]:
        if ev["e"] == "act":
            seat = _seat(ev)
            try:
                action: Action = action_from_json(ev.get("action"))
            except ActionFormatError as e:
                raise HandRecordError(f"line {ev['_line']}: {e}") from None
            try:
                state.apply(seat, action)
            except IllegalAction as e:
                raise VerifyError(f"line {ev['_line']}: illegal action {action} by seat {seat}: {e}"
                                  ) from None
        elif ev["e"] == "escape":
            seat = _seat(ev)
            deltas = _field(ev, "deltas", list)
            state.note_escape(seat, _field(ev, "penalty", int), deltas)
        else:
            continue  # a line that follows from the acts (a draw, a claim ...)
        if on_step is not None:
            on_step(state)
    return state


def verify(events: Sequence[dict[str, Any]]) -> HandState:
    """Check one hand's record: the commitment, then a replay that must reproduce every line.

    Raises :class:`VerifyError` (mismatch) or :class:`HandRecordError` (malformed).
    """
    head = events[0]
    reveal = next((e for e in events if e["e"] == "reveal"), None)
    state = start_state(events)  # also checks there is a reveal
    assert reveal is not None
    if commitment(state.salt, state.wall) != head["commitment"]:
        raise VerifyError(f"commitment mismatch (line {head['_line']}): the revealed wall and salt "
                          f"hash to {commitment(state.salt, state.wall)}, not to the committed "
                          f"{head['commitment']}")
    state = replay(events)
    if not state.ended:
        raise VerifyError("the replayed hand did not finish: the record misses actions")
    expected = record_events(state)
    got = [{k: v for k, v in e.items() if k != "_line"} for e in events]
    for i, (a, b) in enumerate(zip(expected, got, strict=False)):
        if a != b:
            line = events[i]["_line"]
            raise VerifyError(f"line {line} differs from the replay: the record has {dumps_line(b)}, "
                              f"the replay gives {dumps_line(a)}")
    if len(expected) != len(got):
        where = events[min(len(expected), len(got)) - 1]["_line"]
        raise VerifyError(f"after line {where}: the record has {len(got)} lines, "
                          f"the replay gives {len(expected)}")
    return state


# --------------------------------------------------------------------------- text
def _who(seat: Any) -> str:
    return seat_name(seat) if isinstance(seat, int) and 0 <= seat < 4 else str(seat)


def _act_text(ev: dict[str, Any]) -> str:
    try:
        action = action_from_json(ev.get("action"))
    except ActionFormatError as e:
        raise HandRecordError(f"line {ev.get('_line', '?')}: {e}") from None
    return str(action)


def describe(events: Iterable[dict[str, Any]]) -> list[str]:
    """A hand move by move in readable text (for ``wuhan-mahjong replay``); an event whose
    fields cannot be read raises :class:`HandRecordError` naming its line."""
    out: list[str] = []
    passes: list[str] = []
    for ev in events:
        try:
            e = ev["e"]
            if e == "act" and isinstance(ev.get("action"), dict) and ev["action"].get("type") == "pass":
                passes.append(_who(ev.get("seat")))
                continue
            if passes:
                out.append(f"  ({', '.join(passes)} pass)")
                passes = []
            if e == "header":
                out.append(f"Hand {ev.get('hand_no')} · profile {ev.get('profile')} · "
                           f"dealer {_who(ev.get('dealer'))} · commitment {str(ev.get('commitment'))[:16]}…")
            elif e == "deal":
                hands = ev.get("hands") or []
                for s, h in enumerate(hands):
                    out.append(f"  deal {_who(s)}: {h}")
                out.append(f"  indicator {ev.get('indicator')} → laizi {ev.get('laizi')}; "
                           f"live wall {ev.get('wall')}")
            elif e == "act":
                out.append(f"  {_who(ev.get('seat'))}: {_act_text(ev)}")
            elif e == "draw":
                src = {"wall": "draws", "replacement": "draws a replacement", "final": "final draw (海底)"}
                how = src.get(str(ev.get("from")), "draws")
                out.append(f"  {_who(ev.get('seat'))} {how} {ev.get('tile')}  [wall {ev.get('wall')}]")
            elif e == "claim":
                out.append(f"  → {_who(ev.get('seat'))} takes it: {_act_text(ev)} "
                           f"from {_who(ev.get('from'))}")
            elif e == "kong":
                out.append(f"  → nobody robs: {_who(ev.get('seat'))} completes the added kong of "
                           f"{ev.get('tile')}")
            elif e == "end_phase":
                out.append(f"  -- end phase (海底): {ev.get('wall')} tiles left, no more kongs --")
            elif e == "win":
                st = ev.get("settlement") or {}
                hands = ", ".join(st.get("hands_zh") or []) or "小胡"
                frm = f" from {_who(ev.get('from'))}" if ev.get("from") is not None else ""
                out.append(f"  ** {_who(ev.get('seat'))} wins ({ev.get('win_by')}) on {ev.get('tile')}{frm}:"
                           f" {hands}; deltas {ev.get('deltas')}")
            elif e == "exhausted":
                out.append("  ** 荒庄: the wall is exhausted, nobody wins, nobody pays")
            elif e == "escape":
                out.append(f"  !! {_who(ev.get('seat'))} escapes: pays {ev.get('penalty')} "
                           f"(deltas {ev.get('deltas')}); a bot plays the seat from now on")
            elif e == "reveal":
                out.append(f"  reveal: salt {ev.get('salt')}")
                out.append(f"  wall {ev.get('wall')}")
        except (TypeError, AttributeError, KeyError, ValueError) as err:
            # load_records checked only that each line is an event; a field of the wrong
            # type is found here, where the text is built
            raise HandRecordError(f"line {ev.get('_line', '?')}: a malformed '{ev.get('e')}' "
                                  f"event ({type(err).__name__}: {err})") from None
    return out
