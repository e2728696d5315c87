"""Engine benchmark: random-legal hands per second, against rlcard's Mahjong random self-play.

    python bench/engine_bench.py [--seconds 10] [--profile yuanhang] [--seed 1]

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


def timed(step: Callable[[], int], seconds: float, warmup: float) -> dict[str, float]:
    """Call ``step`` (one game, returning its action count) for ``seconds`` of CPU time."""
    start = time.process_time()
    while time.process_time() - start < warmup:
        step()
    games = actions = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    while True:
        actions += step()
        games += 1
        cpu = time.process_time() - cpu0
        if cpu >= seconds:
            break
    wall = time.perf_counter() - wall0
    return {"hands": games, "cpu": cpu, "wall": wall, "per_second": games / cpu,
            "actions_per_second": actions / cpu}


def bench_engine(profile: str, seconds: float, seed: int, auto_pass: bool = True,
                 warmup: float = 1.0) -> dict[str, float]:
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

    out = timed(one, seconds, warmup)
    out["win_rate"] = outcomes["win"] / max(1, sum(outcomes.values()))
    return out


def bench_rlcard(seconds: float, seed: int, warmup: float = 1.0) -> dict[str, float] | None:
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

    return timed(one, seconds, warmup)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=10.0, help="CPU seconds per side")
    p.add_argument("--profile", default="yuanhang")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    ours = bench_engine(args.profile, args.seconds, args.seed)
    full = bench_engine(args.profile, args.seconds / 2, args.seed, auto_pass=False)
    theirs = bench_rlcard(args.seconds, args.seed)
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
