"""Environment steps per second: wuhan_mahjong.rl beside rlcard's Mahjong and PettingZoo's classics.

    python bench/rl_bench.py [--seconds 5] [--profile yuanhang] [--seed 1]

Every environment is stepped by a uniformly random player that samples from the
action mask (rlcard: from the legal actions), resetting when an episode ends,
for the same CPU time (``time.process_time``) after a short warm-up; a step is
one call of ``step``.  All run in this process, one after the other:

* ``wuhan_mahjong.rl.env`` (PettingZoo AEC, every agent polled every cycle, so
  idle polls count as steps; the observation of every step is built),
* the same with ``auto_pass`` (claim windows nobody can use are skipped),
* ``SelfPlayVector`` (64 hands; a step is one decision of one hand),
* ``GymEnv`` with three ``random`` bots (a step is one decision of the learner),
* rlcard's ``mahjong`` environment (``env.step``),
* PettingZoo's classic ``leduc_holdem_v4``, ``texas_holdem_v4``, ``tictactoe_v3``
  and ``connect_four_v3`` (AEC).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def timed(run: Callable[[float], int], seconds: float, warmup: float) -> dict[str, float]:
    run(warmup)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    steps = run(seconds)
    cpu = time.process_time() - cpu0
    return {"steps": steps, "cpu": cpu, "wall": time.perf_counter() - wall0, "per_second": steps / cpu}


def aec_runner(make: Callable[[], Any], seed: int) -> Callable[[float], int]:
    env = make()
    rng = np.random.default_rng(seed)
    episode = [seed]

    def run(seconds: float) -> int:
        steps = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            env.reset(seed=episode[0])
            episode[0] += 1
            for agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                mask = obs["action_mask"]
                env.step(int(rng.choice(np.flatnonzero(mask))))
                steps += 1
                _ = agent
        return steps

    return run


def vector_runner(profile: str, seed: int, n: int = 64) -> Callable[[float], int]:
    from wuhan_mahjong.rl import SelfPlayVector

    vec = SelfPlayVector(n, profile, seed=seed)
    rng = np.random.default_rng(seed)
    state = {"mask": vec.reset()[1]}

    def run(seconds: float) -> int:
        steps = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            mask = state["mask"]
            noise = rng.random(mask.shape) * mask  # a random legal action per row
            _, state["mask"], _, _, _ = vec.step(noise.argmax(axis=1))
            steps += n
        return steps

    return run


def gym_runner(profile: str, seed: int) -> Callable[[float], int]:
    from wuhan_mahjong.rl import GymEnv

    env = GymEnv(profile, opponents="random")
    rng = np.random.default_rng(seed)
    episode = [seed]

    def run(seconds: float) -> int:
        steps = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            obs, _ = env.reset(seed=episode[0])
            episode[0] += 1
            done = False
            while not done:
                obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                steps += 1
        return steps

    return run


def rlcard_runner(seed: int) -> Callable[[float], int] | None:
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("mahjong", config={"seed": seed})
    rng = np.random.default_rng(seed)

    def run(seconds: float) -> int:
        steps = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[int(rng.integers(len(legal)))])
                steps += 1
        return steps

    return run


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per environment")
    p.add_argument("--warmup", type=float, default=0.5)
    p.add_argument("--profile", default="yuanhang")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    from wuhan_mahjong import rl

    runs: list[tuple[str, Callable[[float], int] | None]] = [
        (f"wuhan_mahjong.rl.env({args.profile!r}) AEC, polled",
         aec_runner(lambda: rl.env(args.profile), args.seed)),
        ("wuhan_mahjong.rl.env auto_pass=True",
         aec_runner(lambda: rl.env(args.profile, auto_pass=True), args.seed)),
        ("wuhan_mahjong.rl.SelfPlayVector(64)", vector_runner(args.profile, args.seed)),
        ("wuhan_mahjong.rl.GymEnv, 3 random bots", gym_runner(args.profile, args.seed)),
        ("rlcard mahjong env.step", rlcard_runner(args.seed)),
    ]
    try:
        from pettingzoo.classic import connect_four_v3, leduc_holdem_v4, texas_holdem_v4, tictactoe_v3

        for name, mod in (("leduc_holdem_v4", leduc_holdem_v4), ("texas_holdem_v4", texas_holdem_v4),
                          ("tictactoe_v3", tictactoe_v3), ("connect_four_v3", connect_four_v3)):
            runs.append((f"pettingzoo.classic.{name}", aec_runner(mod.env, args.seed)))
    except ImportError as e:
        print(f"pettingzoo classic environments unavailable ({e}); pip install pygame rlcard")
    print(f"{'environment':<48} {'steps/CPU s':>12} {'steps':>9} {'CPU s':>6} {'wall s':>7}")
    for name, runner in runs:
        if runner is None:
            print(f"{name:<48} {'not installed':>12}")
            continue
        r = timed(runner, args.seconds, args.warmup)
        print(f"{name:<48} {r['per_second']:>12,.0f} {r['steps']:>9,.0f} {r['cpu']:>6.1f} {r['wall']:>7.1f}")


if __name__ == "__main__":
    main()
