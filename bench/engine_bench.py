"""Engine benchmark: random-legal hands per second, against rlcard's Mahjong random self-play.

    python bench/engine_bench.py [--seconds 10] [--profile yuanhang] [--seed 1] [--slices 10]

Our side: four uniformly random legal players (a win is always taken, as rlcard's
game declares wins by itself), seats with nothing but "pass" answered at once
(``auto_pass``, as rlcard asks only players with a claim), walls from a seeded
``random.Random``.  Every hand is complete: deal, commitment, claims, settlement
of wins and the event log.  rlcard's side: ``rlcard.make("mahjong")`` with four
``RandomAgent`` seats, ``env.run`` per game.  Both run in this process, one after
the other, each for the same CPU time after a short warm-up (the shape tables of
:mod:`wuhan_mahjong.shape` fill on first use), and the ratio is of hands per CPU
second (``time.process_time``), so other load on the machine cancels out; wall
time is printed beside it.

The two sides take turns in ``--slices`` slices of equal CPU time (default 10: one
second each of the 10), and each side's figure is its games over its CPU time summed
over its slices.  A machine whose speed drifts (other load, clock changes) then slows
both sides alike instead of whichever ran in the slow minute; rlcard, which plays only
a few hundred games in 10 s, gains the most steadiness from it.  ``--slices 1`` runs
each side in one piece, as before.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Callable
from operator import itemgetter

from wuhan_mahjong.engine import new_hand, play_hand, random_policy
from wuhan_mahjong.rules import get_rules

_KIND = itemgetter(0)


class Timed:
    """Games, actions, CPU and wall time of one side, summed over its slices."""

    def __init__(self, step: Callable[[], int]) -> None:
        self.step = step
        self.games = self.actions = 0
        self.cpu = self.wall = 0.0

    def warm_up(self, seconds: float) -> None:
        start = time.process_time()
        while time.process_time() - start < seconds:
            self.step()

    def run(self, seconds: float) -> None:
        """Play whole games for ``seconds`` of CPU time (the last game is finished)."""
        step = self.step
        games = actions = 0
        cpu0, wall0 = time.process_time(), time.perf_counter()
        while True:
            actions += step()
            games += 1
            cpu = time.process_time() - cpu0
            if cpu >= seconds:
                break
        self.wall += time.perf_counter() - wall0
        self.games += games
        self.actions += actions
        self.cpu += cpu

    def result(self) -> dict[str, float]:
        return {"hands": self.games, "cpu": self.cpu, "wall": self.wall,
                "per_second": self.games / self.cpu, "actions_per_second": self.actions / self.cpu}


def interleaved(sides: list[Timed], seconds: float, slices: int, warmup: float = 1.0
                ) -> list[dict[str, float]]:
    """Warm every side up, then run them in turn, ``slices`` times ``seconds / slices`` each."""
    for side in sides:
        side.warm_up(warmup)
    for _ in range(slices):
        for side in sides:
            side.run(seconds / slices)
    return [side.result() for side in sides]


def engine_side(profile: str, seed: int, auto_pass: bool = True) -> tuple[Timed, Counter[str]]:
    """Our side: one complete random-legal hand per step; the outcomes counted."""
    rules = get_rules(profile)
    rng = random.Random(seed)
    policy = random_policy(rng)
    outcomes: Counter[str] = Counter()

    def one() -> int:
        state = new_hand(rules, rng.randrange(4), rng=rng, auto_pass=auto_pass)
        play_hand(state, policy)
        assert state.result is not None
        outcomes[state.result.outcome] += 1
        return list(map(_KIND, state.log)).count("act")  # at C speed: not the engine's time

    return Timed(one), outcomes


def rlcard_side(seed: int) -> Timed | None:
    """rlcard's side: one ``env.run`` game of four ``RandomAgent`` seats per step."""
    try:
        import rlcard
        from rlcard.agents import RandomAgent
    except ImportError:
        return None
    env = rlcard.make("mahjong", config={"seed": seed})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])

    def one() -> int:
        trajectories, _ = env.run(is_training=False)
        return sum((len(t) - 1) // 2 for t in trajectories)

    return Timed(one)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=10.0, help="CPU seconds per side")
    p.add_argument("--profile", default="yuanhang")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--slices", type=int, default=10,
                   help="the sides take turns in this many slices of equal CPU time")
    args = p.parse_args()
    if args.seconds <= 0 or args.slices < 1:
        p.error("--seconds must be positive and --slices at least 1")
    engine, outcomes = engine_side(args.profile, args.seed)
    peer = rlcard_side(args.seed)
    ours, *rest = interleaved([engine] if peer is None else [engine, peer], args.seconds, args.slices)
    theirs = rest[0] if rest else None
    ours["win_rate"] = outcomes["win"] / max(1, sum(outcomes.values()))
    full_side, _ = engine_side(args.profile, args.seed, auto_pass=False)
    (full,) = interleaved([full_side], args.seconds / 2, 1)
    print(f"wuhan-mahjong engine ({args.profile}, random legal, auto-pass): "
          f"{ours['per_second']:.0f} hands per CPU second ({ours['hands']:.0f} hands in "
          f"{ours['cpu']:.1f} s CPU, {ours['wall']:.1f} s wall; {ours['actions_per_second']:.0f} "
          f"actions/s, {ours['win_rate']:.1%} won)")
    print(f"wuhan-mahjong engine, every seat answers every discard: {full['per_second']:.0f} hands/s, "
          f"{full['actions_per_second']:.0f} actions/s")
    if theirs is None:
        print("rlcard: not installed (pip install rlcard); no ratio")
        return
    print(f"rlcard mahjong random self-play: {theirs['per_second']:.1f} games per CPU second "
          f"({theirs['hands']:.0f} games in {theirs['cpu']:.1f} s CPU, {theirs['wall']:.1f} s wall)")
    print(f"ratio: {ours['per_second'] / theirs['per_second']:.1f}x rlcard (target >= 50x)")


if __name__ == "__main__":
    main()
