"""A learning baseline on the CPU in minutes: behaviour cloning of the expert, then self-play.

    pip install 'wuhan-mahjong[rl]'
    nice python examples/bc_baseline.py --profile yuanhang --hands 200 --out mlp.npz

1. **Data.**  The ``expert`` bot plays ``--hands`` hands at all four seats
   (:func:`wuhan_mahjong.rl.dataset.generate`; or ``--data FILE`` from
   ``wuhan-mahjong dataset``): one row per decision with a real choice.
2. **Behaviour cloning.**  A NumPy MLP (observation planes -> ``--hidden`` ReLU
   units -> 114 logits, illegal actions masked) learns the expert's choices by
   cross-entropy with Adam, ``--epochs`` passes over the data.
3. **Self-play improvement.**  The cloned policy plays ``--selfplay`` hands
   against itself in :class:`~wuhan_mahjong.rl.SelfPlayVector` (sampling its
   actions); REINFORCE with each seat's final points (times 0.01, minus the batch
   mean) as the return, plus the cloning loss on the expert's data as a regulariser.
4. **Evaluation.**  The network plays as a registered bot (``mlp``) against
   ``random`` in the duplicate arena; the report gives the difference per hand
   with its 95% confidence interval.

The weights are written to ``--out``; play them anywhere a bot can sit::

    wuhan-mahjong arena --hands 400 \
        --seats "cmd:python -m wuhan_mahjong.rl.policy --weights mlp.npz,greedy,greedy,greedy"
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from wuhan_mahjong.bots.arena import ArenaReport, run_arena
from wuhan_mahjong.rl import SelfPlayVector, dataset
from wuhan_mahjong.rl.policy import MLP, OBS_SIZE, Adam, policy_gradient, register
from wuhan_mahjong.rl.spaces import NUM_ACTIONS
from wuhan_mahjong.rules import get_rules

Log = Callable[[str], None]


def behaviour_cloning(net: MLP, data: dict[str, Any], epochs: int, seed: int, lr: float = 1e-3,
                      batch: int = 256, log: Log = print) -> float:
    """Train ``net`` on the dataset's (obs, mask, action); the final training accuracy."""
    obs = data["obs"].reshape(len(data["action"]), -1).astype(np.float32)
    mask = data["mask"].astype(np.bool_)
    actions = data["action"].astype(np.int64)
    n = len(actions)
    opt = Adam(net.params, lr)
    rng = np.random.default_rng(seed)
    ones = np.ones(batch, dtype=np.float32)
    for epoch in range(epochs):
        order = rng.permutation(n)
        losses = []
        for i in range(0, n, batch):
            idx = order[i:i + batch]
            loss, grads = policy_gradient(net, obs[idx], mask[idx], actions[idx], ones[:len(idx)])
            opt.step(grads)
            losses.append(loss)
        acc = float((net.act(obs, mask) == actions).mean())
        log(f"  cloning epoch {epoch + 1}/{epochs}: loss {np.mean(losses):.3f}, accuracy {acc:.1%}")
    return float((net.act(obs, mask) == actions).mean())


def self_play(net: MLP, profile: str, hands: int, seed: int, data: dict[str, Any], lr: float = 2e-4,
              envs: int = 16, update_every: int = 16, bc_weight: float = 1.0, log: Log = print) -> None:
    """REINFORCE on self-play hands, with the cloning loss as a regulariser."""
    vec = SelfPlayVector(envs, profile, seed=seed)
    rng = np.random.default_rng(seed)
    opt = Adam(net.params, lr)
    d_obs = data["obs"].reshape(len(data["action"]), -1).astype(np.float32)
    d_mask = data["mask"].astype(np.bool_)
    d_act = data["action"].astype(np.int64)
    obs, mask, seat = vec.reset()
    open_rows: list[list[tuple[np.ndarray, np.ndarray, int, int]]] = [[] for _ in range(envs)]
    done_rows: list[tuple[np.ndarray, np.ndarray, int, float]] = []
    finished = since = 0
    while finished < hands:
        actions = net.act(obs, mask, rng)
        for i in range(envs):
            open_rows[i].append((obs[i].reshape(-1), mask[i].astype(np.bool_), int(actions[i]),
                                 int(seat[i])))
        obs, mask, seat, rewards, done = vec.step(actions)
        for i in np.flatnonzero(done):
            for o, m, a, s in open_rows[i]:
                done_rows.append((o, m, a, float(rewards[i, s]) * 0.01))
            open_rows[i] = []
            finished += 1
            since += 1
        if since >= update_every and done_rows:
            o = np.stack([r[0] for r in done_rows])
            m = np.stack([r[1] for r in done_rows])
            a = np.asarray([r[2] for r in done_rows])
            ret = np.asarray([r[3] for r in done_rows], dtype=np.float32)
            adv = (ret - ret.mean()).astype(np.float32)
            _, grads = policy_gradient(net, o, m, a, adv)
            idx = rng.integers(len(d_act), size=min(512, len(d_act)))
            bc_loss, bc_grads = policy_gradient(net, d_obs[idx], d_mask[idx], d_act[idx],
                                                np.ones(len(idx), dtype=np.float32))
            opt.step([g + bc_weight * h for g, h in zip(grads, bc_grads, strict=True)])
            log(f"  self-play {finished}/{hands} hands: {len(done_rows)} decisions, "
                f"mean |return| {np.abs(ret).mean():.2f}, cloning loss {bc_loss:.3f}")
            done_rows = []
            since = 0


def evaluate(weights: str, profile: str, hands: int, seed: int, opponent: str = "random") -> ArenaReport:
    """The network as bot ``mlp`` against ``opponent`` on duplicate deals."""
    register("mlp", weights)
    return run_arena(get_rules(profile), ["mlp", opponent, opponent, opponent], hands, seed)


def train(profile: str = "yuanhang", hands: int = 200, epochs: int = 8, hidden: int = 256,
          selfplay: int = 200, seed: int = 0, data_path: str | None = None, out: str = "mlp.npz",
          log: Log = print) -> MLP:
    """Steps 1-3; the trained network is saved to ``out`` and returned."""
    t0 = time.process_time()
    if data_path:
        data = dataset.load(data_path)
        log(f"data: {data_path}, {len(data['action'])} decisions")
    else:
        bar = dataset.ProgressBar(hands, sys.stderr) if sys.stderr.isatty() else None
        data = dataset.generate(profile, hands, "expert", seed, progress=bar)
        data["obs"] = data["obs"].astype(np.float32)
        log(f"data: {hands} expert hands, {len(data['action'])} decisions "
            f"({time.process_time() - t0:.0f} s CPU)")
    net = MLP.create([OBS_SIZE, hidden, NUM_ACTIONS], seed)
    acc = behaviour_cloning(net, data, epochs, seed, log=log)
    log(f"cloned: accuracy {acc:.1%} on the expert's decisions ({time.process_time() - t0:.0f} s CPU)")
    if selfplay:
        self_play(net, profile, selfplay, seed, data, log=log)
        log(f"self-play done ({time.process_time() - t0:.0f} s CPU)")
    net.save(out, {"profile": profile, "hands": hands, "epochs": epochs, "selfplay": selfplay,
                   "seed": seed})
    return net


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--profile", default="yuanhang")
    p.add_argument("--hands", type=int, default=200, help="expert hands to clone (default 200)")
    p.add_argument("--data", help="a dataset file (wuhan-mahjong dataset) instead of --hands")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--selfplay", type=int, default=200, help="self-play hands (0: none)")
    p.add_argument("--arena", type=int, default=400, help="arena hands against random (0: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="mlp.npz")
    args = p.parse_args(argv)
    train(args.profile, args.hands, args.epochs, args.hidden, args.selfplay, args.seed, args.data,
          args.out)
    print(f"weights: {args.out}")
    if args.arena:
        print(evaluate(args.out, args.profile, args.arena, args.seed + 1).text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
