"""Replay frames: CPU per request of ``GET .../hands/{n}/frames``, one replay against two.

    python bench/replay_frames_bench.py [--hands 60] [--rounds 5] [--seed 1]

A frames request (``server/replays.py`` ``frames_body``) parses the stored record, builds
the frames (``server/replay_frames.py`` ``hand_frames``), encodes them and gzips them.
Three ways of building the frames are timed on the same records (random three-hand
matches of every profile, some with an escape), with the same parse, encoding and gzip:

``two passes``
    the peer: what the route did before, kept here as it was: the engine's ``replay``
    checks and parses the record, then a second state replays the parsed actions step
    by step and the views are taken (each seat's own entry built over the spectator's);
``one pass``
    the views taken in the replay's own pass (``replay(events, on_step)``), the seats
    still built twice;
``now``
    ``hand_frames`` as it is: one pass, a seat's own entry built only where it differs
    from the spectator's (a concealed kong while the hand goes on), and each concealed
    hand written out once per set of tiles instead of four hands at every step.

Every variant must give the same frames (checked).  The variants run alternately,
``--rounds`` times, and the best round of each counts.  CPU time is
``time.process_time`` (other load on the machine cancels out), wall time beside it.
"""

from __future__ import annotations

import argparse
import gzip
import random
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from wuhan_mahjong.engine import Match, SeededRandom, load_records, random_policy
from wuhan_mahjong.engine.actions import ACTION_TYPES
from wuhan_mahjong.engine.records import VerifyError, record_events, replay, start_state
from wuhan_mahjong.engine.state import HandState
from wuhan_mahjong.engine.views import SeatView, public_seat, spectator_view
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.server import replay_frames
from wuhan_mahjong.server.replay_frames import ReplayFrame, add_step, cut_frames, hand_frames
from wuhan_mahjong.tiles import format_tiles

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frames_bench import best_rounds  # alternating rounds, the best of each

PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")
Build = Callable[[Sequence[dict[str, Any]]], list[ReplayFrame]]


def _shown_twice(state: HandState, written: object = None) -> tuple[SeatView, list[str]]:
    """The views after a step as taken before: each seat's own entry built over the
    spectator's, the four hands written out at every step."""
    view = spectator_view(state)
    view["seats"] = [public_seat(state, s, s) for s in range(4)]
    return view, [format_tiles(state.hand_tiles(s)) for s in range(4)]


def two_passes(events: Sequence[dict[str, Any]]) -> list[ReplayFrame]:
    """``hand_frames`` before: replay to check and parse, then replay again for the views."""
    final = replay(events)
    if not final.ended:
        raise VerifyError("the replayed hand did not finish: the record misses actions")
    state = start_state(events)
    shown: list[tuple[SeatView, list[str]]] = []
    ends: list[int] = []
    add_step(shown, ends, _shown_twice(state), 0)
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
            continue
        add_step(shown, ends, _shown_twice(state), len(state.log))
    return cut_frames(record_events(state), shown, ends)


def one_pass(events: Sequence[dict[str, Any]]) -> list[ReplayFrame]:
    """``hand_frames`` (one replay) with the views taken as before (``_shown_twice``)."""
    now = replay_frames._shown
    replay_frames._shown = _shown_twice
    try:
        return hand_frames(events)
    finally:
        replay_frames._shown = now


def records(matches: int, seed: int) -> list[str]:
    """The stored records (JSON lines) of the hands of ``matches`` random matches."""
    out: list[str] = []
    for m in range(matches):
        rng = random.Random(seed * 1000 + m)
        policy = random_policy(rng)
        match = Match(get_rules(PROFILES[m % 3]), 3, rng=SeededRandom(rng.randbytes(32)))
        while not match.finished:
            hand = match.start_hand()
            if m % 4 == 3 and not match.escaped and not hand.ended:
                match.escape(m % 4)
            while not hand.ended:
                seat = next(s for s in hand.to_act() if s not in match.escaped)
                match.apply(seat, policy(hand, seat))
        out.extend("\n".join(h.records) for h in match.history)
    return out


def body(build: Build, text: str) -> bytes:
    """What ``frames_body`` does for a stored hand, with ``build`` making the frames."""
    frames = build(load_records(text)[0])
    return gzip.compress(orjson.dumps({"match_id": "m", "hand_no": 0, "frames": frames}),
                         compresslevel=6, mtime=0)


def timed(build: Build, texts: list[str]) -> tuple[float, float, list[bytes]]:
    cpu0, wall0 = time.process_time(), time.perf_counter()
    out = [body(build, t) for t in texts]
    return time.process_time() - cpu0, time.perf_counter() - wall0, out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=60, help="about this many hands (3 a match)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    texts = records(max(1, args.hands // 3), args.seed)
    variants: dict[str, Build] = {"two passes": two_passes, "one pass": one_pass, "now": hand_frames}
    best, reference = best_rounds(args.rounds, {name: partial(timed, build, texts)
                                                for name, build in variants.items()})
    n = len(texts)
    frames = sum(len(orjson.loads(gzip.decompress(b))["frames"]) for b in reference)
    print(f"{n} hands ({frames} frames, {frames / n:.0f} a hand), whole requests "
          f"(parse, frames, JSON, gzip); best of {args.rounds} rounds")
    peer = best["two passes"][0]
    for name, (cpu, wall) in best.items():
        print(f"  {name:>10}: {cpu / n * 1e3:6.2f} ms CPU per request ({cpu:.2f} s CPU, "
              f"{wall:.2f} s wall)  {peer / cpu:.2f}x the two passes")


if __name__ == "__main__":
    main()
