"""Replay frames: a stored hand replayed by the engine, one frame per step a watcher sees.

The replay viewer draws these frames with the table renderer of live play; it holds no
game logic of its own.  :func:`hand_frames` starts from the record's revealed wall and
applies its ``act`` lines (and notes its escapes) in order, as
:func:`wuhan_mahjong.engine.records.replay` does.  After each step it takes the views:

``view``
    the engine's :func:`~wuhan_mahjong.engine.views.spectator_view` of the state, except
    that each seat's entry is the one its own player saw
    (:func:`~wuhan_mahjong.engine.views.public_seat` with the seat as viewer: the faces of
    his concealed kongs, 暗杠).
``hands``
    each seat's concealed tiles, as its player saw them (``seat_view(state, s)["hand"]``).
``events``
    the record lines this step covers, as the engine writes them: the ``act`` and what
    followed from it (a draw, a claim, the win ...); the first frame holds the header and
    the deal, the last one the reveal.  Together the frames' events are the whole record,
    in order, each line once.

A step a watcher cannot see (a pass in a claim window that stays open, an escape: a bot
plays on for the seat) makes no frame of its own: its lines go with the frame shown then.

Only a finished hand has frames (the record of a hand still being played is not stored,
and a record without its reveal cannot be replayed): after the hand nothing is hidden any
more, so the frames show every hand, as the settlement's reveal does.  A record that does
not replay to the end is refused.  The record is replayed twice: once by the engine's
:func:`~wuhan_mahjong.engine.records.replay`, which checks and parses it, then step by
step from the actions it parsed (a hand takes a few tens of milliseconds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from ..engine.actions import ACTION_TYPES
from ..engine.records import VerifyError, record_events, replay, start_state
from ..engine.state import HandState
from ..engine.views import SeatView, public_seat, spectator_view
from ..tiles import format_tiles

__all__ = ["ReplayFrame", "hand_frames"]


class ReplayFrame(TypedDict):
    """One step of a replay (see the module's doc string)."""

    events: list[dict[str, Any]]
    view: SeatView
    hands: list[str]


def _shown(state: HandState) -> tuple[SeatView, list[str]]:
    view = spectator_view(state)
    view["seats"] = [public_seat(state, s, s) for s in range(4)]
    hands = [format_tiles(state.hand_tiles(s)) for s in range(4)]  # each seat view's "hand"
    return view, hands


def hand_frames(events: Sequence[dict[str, Any]]) -> list[ReplayFrame]:
    """The frames of one finished hand's record (``load_records`` gives the events).

    Raises the engine's errors for a record that does not replay to the end of the hand
    (:func:`~wuhan_mahjong.engine.records.replay` checks it first)."""
    final = replay(events)
    if not final.ended:
        raise VerifyError("the replayed hand did not finish: the record misses actions")
    state = start_state(events)
    shown = [_shown(state)]
    ends = [0]  # how many of the hand's log entries the frames cover, up to each one
    for entry in final.log:  # the record's inputs, parsed and checked by the replay
        if entry[0] == "act":
            seat, action = entry[1], entry[2]
            assert isinstance(seat, int) and isinstance(action, ACTION_TYPES)
            state.apply(seat, action)
        elif entry[0] == "escape":
            _, seat, penalty, deltas = entry
            assert isinstance(seat, int) and isinstance(penalty, int) and isinstance(deltas, tuple)
            state.note_escape(seat, penalty, deltas)
        else:
            continue  # a line that follows from the acts (a draw, a claim ...)
        now = _shown(state)
        if now == shown[-1]:
            ends[-1] = len(state.log)  # nothing a watcher sees changed: no frame of its own
        else:
            shown.append(now)
            ends.append(len(state.log))
    lines = record_events(state)  # header, deal, one line per log entry, reveal
    frames: list[ReplayFrame] = []
    for i, ((view, hands), end) in enumerate(zip(shown, ends, strict=True)):
        first = 0 if i == 0 else 2 + ends[i - 1]
        last = len(lines) if i == len(shown) - 1 else 2 + end
        frames.append({"events": lines[first:last], "view": view, "hands": hands})
    return frames
