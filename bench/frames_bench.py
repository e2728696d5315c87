"""State frames: CPU microseconds per delivered frame, seat by seat against shared (issue 11, item 5).

    python bench/frames_bench.py [--hands 40] [--rounds 3] [--profile yuanhang] [--seed 1]

A table of four human seats sends each seat its state frame after every move.
Both sides build the same frames (same text, checked) for the same moves of
seeded random hands (every seat answers every claim window, as on the server):

``per seat``
    what ``Table._broadcast`` did before: the players' pydantic models dumped on
    every broadcast, then per seat ``seat_view`` (the public seat entries, header
    and result built again for every viewer), one JSON encoding of the whole view,
    the frame around it;
``shared``
    what it does now: the players' dicts kept until a player's status changes,
    the public part of the view built and encoded once per move and shared
    (``server/frames.py`` ``MoveViews``), only the viewer's own part per seat.

The moves are recorded first (copies of the hand), so only frame building is
timed; each side runs ``--rounds`` times, alternating, and the best round counts.
CPU time is ``time.process_time`` (other load on the machine cancels out), wall
time is printed beside it.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from wuhan_mahjong.engine import HandState, new_hand, random_policy, seat_view
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.server.frames import MoveViews
from wuhan_mahjong.server.protocol import PlayerInfo, encode_view, state_frame, state_frame_parts

MATCH_ID = "0123456789abcdef0123456789abcdef"
NAMES = ("east", "south", "west", "north")
T = TypeVar("T")


def record(profile: str, hands: int, seed: int) -> list[HandState]:
    """Every state (after every move) of ``hands`` random hands."""
    rng = random.Random(seed)
    policy = random_policy(rng)
    out: list[HandState] = []
    for h in range(hands):
        state = new_hand(get_rules(profile), h % 4, rng=rng, hand_no=h)
        out.append(state.copy())
        while not state.ended:
            seat = state.to_act()[0]
            state.apply(seat, policy(state, seat))
            out.append(state.copy())
    return out


def _players() -> list[PlayerInfo]:
    return [PlayerInfo(seat=s, name=NAMES[s], bot=False, connected=True, auto=False, escaped=False)
            for s in range(4)]


def per_seat(states: list[HandState]) -> list[str]:
    """The frames as ``Table._broadcast`` built them seat by seat."""
    out = []
    totals = [0, 0, 0, 0]
    for hand in states:
        players = [p.model_dump() for p in _players()]
        parts = None
        for s in range(4):
            view: dict[str, Any] = dict(seat_view(hand, s))
            text = encode_view(view)
            if parts is None:
                parts = state_frame_parts(MATCH_ID, hand.hand_no, totals, players, None)
            out.append(state_frame(parts, text, False, False))
    return out


def shared(states: list[HandState]) -> list[str]:
    """The frames as ``Table._broadcast`` builds them now."""
    out = []
    totals = [0, 0, 0, 0]
    players = [p.model_dump() for p in _players()]  # kept until a player's status changes
    for hand in states:
        views = MoveViews(hand)
        parts = state_frame_parts(MATCH_ID, hand.hand_no, totals, players, None)
        for s in range(4):
            out.append(state_frame(parts, views.text(s), False, False))
    return out


def timed(build: Callable[[list[HandState]], list[str]], states: list[HandState]
          ) -> tuple[float, float, list[str]]:
    fresh = [s.copy() for s in states]
    cpu0, wall0 = time.process_time(), time.perf_counter()
    frames = build(fresh)
    return time.process_time() - cpu0, time.perf_counter() - wall0, frames


def best_rounds(rounds: int, sides: dict[str, Callable[[], tuple[float, float, list[T]]]]
                ) -> tuple[dict[str, tuple[float, float]], list[T]]:
    """Run every side ``rounds`` times, alternating (each returns its CPU and wall seconds
    and its output); every output must be the first one.  The best round of each side by
    CPU time, (CPU, wall), and that output (``replay_frames_bench.py`` uses it too)."""
    best: dict[str, tuple[float, float]] = {}
    reference: list[T] | None = None
    for _ in range(rounds):
        for name, run in sides.items():
            cpu, wall, out = run()
            if reference is None:
                reference = out
            assert out == reference, f"{name}: the output differs"
            if name not in best or cpu < best[name][0]:
                best[name] = (cpu, wall)
    assert reference is not None, "no round"
    return best, reference


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=40)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--profile", default="yuanhang")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    states = record(args.profile, args.hands, args.seed)
    best, reference = best_rounds(args.rounds, {"per seat": partial(timed, per_seat, states),
                                                "shared": partial(timed, shared, states)})
    n = len(reference)
    print(f"{args.hands} {args.profile} hands, {len(states)} moves, {n} frames (4 seats a move); "
          f"best of {args.rounds} rounds")
    for name, (cpu, wall) in best.items():
        print(f"  {name:>8}: {cpu / n * 1e6:6.1f} µs CPU per frame ({cpu:.2f} s CPU, {wall:.2f} s wall)")
    ratio = best["per seat"][0] / best["shared"][0]
    print(f"shared / per seat: {ratio:.2f}x fewer CPU microseconds per frame (target >= 1.5x)")


if __name__ == "__main__":
    main()
