"""Engine benchmark: random-legal hands per second, against rlcard's Mahjong random self-play.

    python bench/engine_bench.py [--seconds 10] [--profile yuanhang] [--seed 1]

Our side: four uniformly random legal players (a win is always taken, as rlcard's
game declares wins by itself), seats with nothing but "pass" answered at once
(``auto_pass``, as rlcard asks only players with a claim), walls from a seeded
``random.Random``.  Every hand is complete: deal, commitment, claims, settlement
of wins and the event log.  rlcard's side: ``rlcard.make("mahjong")`` with four
``RandomAgent`` seats, ``env.run`` per game.  Both run in this process, one after
the other, for the same wall-clock time.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from wuhan_mahjong.engine import new_hand, play_hand, random_policy
from wuhan_mahjong.rules import get_rules


def bench_engine(profile: str, seconds: float, seed: int, auto_pass: bool = True) -> dict[str, float]:
    rules = get_rules(profile)
    rng = random.Random(seed)
    policy = random_policy(rng)
    hands = actions = 0
    outcomes: Counter[str] = Counter()
    start = time.perf_counter()
    while True:
        state = new_hand(rules, hands % 4, rng=rng, auto_pass=auto_pass)
        play_hand(state, policy)
        hands += 1
        actions += sum(1 for e in state.log if e[0] == "act")
        assert state.result is not None
        outcomes[state.result.outcome] += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return {"hands": hands, "seconds": elapsed, "per_second": hands / elapsed,
            "actions_per_second": actions / elapsed, "win_rate": outcomes["win"] / hands}


def bench_rlcard(seconds: float, seed: int) -> dict[str, float] | None:
    try:
        import rlcard
        from rlcard.agents import RandomAgent
    except ImportError:
        return None
    env = rlcard.make("mahjong", config={"seed": seed})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    games = 0
    start = time.perf_counter()
    while True:
        env.run(is_training=False)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return {"hands": games, "seconds": elapsed, "per_second": games / elapsed}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--profile", default="yuanhang")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    ours = bench_engine(args.profile, args.seconds, args.seed)
    full = bench_engine(args.profile, args.seconds / 2, args.seed, auto_pass=False)
    theirs = bench_rlcard(args.seconds, args.seed)
    print(f"wuhan-mahjong engine ({args.profile}, random legal, auto-pass): "
          f"{ours['per_second']:.0f} hands/s ({ours['hands']:.0f} hands in {ours['seconds']:.1f} s, "
          f"{ours['actions_per_second']:.0f} actions/s, {ours['win_rate']:.1%} won)")
    print(f"wuhan-mahjong engine, every seat answers every discard: {full['per_second']:.0f} hands/s, "
          f"{full['actions_per_second']:.0f} actions/s")
    if theirs is None:
        print("rlcard: not installed (pip install rlcard); no ratio")
        return
    print(f"rlcard mahjong random self-play: {theirs['per_second']:.1f} games/s "
          f"({theirs['hands']:.0f} games in {theirs['seconds']:.1f} s)")
    print(f"ratio: {ours['per_second'] / theirs['per_second']:.1f}x rlcard (target >= 8x)")


if __name__ == "__main__":
    main()
