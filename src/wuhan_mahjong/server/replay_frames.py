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
not replay to the end is refused.  The record is replayed once, by the engine's
:func:`~wuhan_mahjong.engine.records.replay` (which checks and parses it), and the views
are taken in the same pass, after each step (``bench/replay_frames_bench.py``).  A seat's
own entry is built apart from the spectator's only when it differs (a concealed kong while
the hand goes on: :func:`~wuhan_mahjong.engine.views.shows_own_kongs`), and a hand is
written out once per set of tiles, not at every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from ..engine.records import VerifyError, record_events, replay
from ..engine.state import HandState
from ..engine.views import SeatView, public_seat, shows_own_kongs, spectator_view
from ..tiles import format_tiles

__all__ = ["ReplayFrame", "hand_frames"]


class ReplayFrame(TypedDict):
    """One step of a replay (see the module's doc string)."""

    events: list[dict[str, Any]]
    view: SeatView
    hands: list[str]


def _shown(state: HandState, written: dict[tuple[int, ...], str]) -> tuple[SeatView, list[str]]:
    """The view and the hands after a step; ``written`` keeps the hands already formatted
    (by tile counts: a step changes one or two hands of the four)."""
    view = spectator_view(state)
    # Each seat as its own player saw it: the spectator's entry unless he sees more of it.
    view["seats"] = [public_seat(state, s, s) if shows_own_kongs(state, s) else view["seats"][s]
                     for s in range(4)]
    hands = []
    for s in range(4):  # each seat view's "hand"
        counts = tuple(state.counts[s])
        text = written.get(counts)
        if text is None:
            text = written[counts] = format_tiles(state.hand_tiles(s))
        hands.append(text)
    return view, hands


def hand_frames(events: Sequence[dict[str, Any]]) -> list[ReplayFrame]:
    """The frames of one finished hand's record (``load_records`` gives the events).

    Raises the engine's errors for a record that does not replay to the end of the hand
    (:func:`~wuhan_mahjong.engine.records.replay` checks it as it goes)."""
    shown: list[tuple[SeatView, list[str]]] = []
    ends: list[int] = []  # how many of the hand's log entries the frames cover, up to each one
    written: dict[tuple[int, ...], str] = {}

    def step(state: HandState) -> None:  # the state as dealt, then after each act or escape
        add_step(shown, ends, _shown(state, written), len(state.log))

    final = replay(events, step)
    if not final.ended:
        raise VerifyError("the replayed hand did not finish: the record misses actions")
    return cut_frames(record_events(final), shown, ends)


def add_step(shown: list[tuple[SeatView, list[str]]], ends: list[int],
             now: tuple[SeatView, list[str]], covered: int) -> None:
    """A step of the replay, what it shows and how many log entries it covers: a frame of
    its own, or (nothing a watcher sees changed) its lines go with the last frame."""
    if shown and now == shown[-1]:
        ends[-1] = covered
    else:
        shown.append(now)
        ends.append(covered)


def cut_frames(lines: list[dict[str, Any]], shown: list[tuple[SeatView, list[str]]],
               ends: list[int]) -> list[ReplayFrame]:
    """The frames: each step's view with its record lines (header, deal, one line per log
    entry, reveal; the first frame from the header, the last one to the reveal)."""
    frames: list[ReplayFrame] = []
    for i, ((view, hands), end) in enumerate(zip(shown, ends, strict=True)):
        first = 0 if i == 0 else 2 + ends[i - 1]
        last = len(lines) if i == len(shown) - 1 else 2 + end
        frames.append({"events": lines[first:last], "view": view, "hands": hands})
    return frames
