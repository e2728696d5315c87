"""A small NumPy policy network (no deep-learning framework) and its bot.

:class:`MLP` maps the flattened observation planes through ReLU layers to one
logit per action; illegal actions are masked out.  :class:`MLPBot` plays it as
a bot (it sees only the seat view, like every bot): register it by name with
:func:`register`, or run it as an external arena seat over JSON lines::

    wuhan-mahjong arena --seats "cmd:python -m wuhan_mahjong.rl.policy --weights w.npz,random,random,random"

>>> import numpy as np
>>> net = MLP.create([OBS_SIZE, 16, NUM_ACTIONS], seed=0)
>>> obs = np.zeros((2, OBS_SIZE), dtype=np.float32)
>>> mask = np.zeros((2, NUM_ACTIONS), dtype=np.bool_); mask[:, [3, 113]] = True
>>> sorted(set(net.act(obs, mask).tolist()) - {3, 113})
[]
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine.actions import Action
from ..engine.views import SeatView
from .npz import DAMAGED, open_npz
from .spaces import NUM_ACTIONS, OBS_SHAPE, encode, index_action, view_mask

OBS_SIZE = OBS_SHAPE[0] * OBS_SHAPE[1]
Array = npt.NDArray[np.float32]


def masked_log_softmax(logits: Array, mask: npt.NDArray[np.bool_]) -> Array:
    """Log-probabilities over the legal actions (``-inf`` elsewhere), row by row."""
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    out: Array = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return out


class MLP:
    """Layers ``sizes[0] -> ... -> sizes[-1]`` with ReLU between them; float32 throughout."""

    def __init__(self, params: list[Array]) -> None:
        if len(params) % 2 or not params:
            raise ValueError("params: weight and bias of every layer")
        self.params = params

    @classmethod
    def create(cls, sizes: Sequence[int], seed: int = 0) -> MLP:
        rng = np.random.default_rng(seed)
        params: list[Array] = []
        for a, b in itertools.pairwise(sizes):
            params.append((rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32))
            params.append(np.zeros(b, dtype=np.float32))
        params[-2] *= 0.1  # small initial logits: a near-uniform first policy
        return cls(params)

    @property
    def sizes(self) -> list[int]:
        return [self.params[0].shape[0]] + [w.shape[1] for w in self.params[::2]]

    def forward(self, x: Array) -> tuple[Array, list[Array]]:
        """Logits and the activations the backward pass needs."""
        acts = [x]
        h = x
        n = len(self.params) // 2
        for i in range(n):
            h = h @ self.params[2 * i] + self.params[2 * i + 1]
            if i < n - 1:
                h = np.maximum(h, 0.0)
                acts.append(h)
        return h, acts

    def backward(self, acts: list[Array], dlogits: Array) -> list[Array]:
        """Gradients of the parameters for the upstream gradient ``dlogits``."""
        grads: list[Array] = [np.empty(0, dtype=np.float32)] * len(self.params)
        g = dlogits
        n = len(self.params) // 2
        for i in range(n - 1, -1, -1):
            a = acts[i]
            grads[2 * i] = a.T @ g
            grads[2 * i + 1] = g.sum(axis=0)
            if i:
                g = (g @ self.params[2 * i].T) * (a > 0)
        return grads

    def log_probs(self, obs: Array, mask: npt.NDArray[np.bool_]) -> Array:
        return masked_log_softmax(self.forward(obs.reshape(len(obs), -1))[0], mask)

    def act(self, obs: Array, mask: npt.NDArray[Any], rng: np.random.Generator | None = None
            ) -> npt.NDArray[np.int64]:
        """The best legal action per row, or one sampled from the policy with ``rng``."""
        logp = self.log_probs(obs, mask.astype(np.bool_))
        if rng is None:
            return np.asarray(logp.argmax(axis=1), dtype=np.int64)
        p = np.exp(logp)
        u = rng.random((len(p), 1))
        picked = np.minimum((p.cumsum(axis=1) < u).sum(axis=1), NUM_ACTIONS - 1)
        rows = np.arange(len(p))
        bad = ~mask.astype(np.bool_)[rows, picked]  # rounding at the top end: take the best
        picked[bad] = logp[bad].argmax(axis=1)
        return np.asarray(picked, dtype=np.int64)

    def save(self, path: str, meta: dict[str, Any] | None = None) -> None:
        """Write the network to the file ``path``, that very name: ``np.savez`` given a name
        without ``.npz`` wrote ``path.npz``, so :meth:`load` of the same name (the baseline's
        ``--out mlp``, then its arena) found no file."""
        arrays = {f"p{i}": p for i, p in enumerate(self.params)}
        with open(path, "wb") as f:
            np.savez(f, meta=np.asarray(json.dumps(meta or {})), **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: str) -> MLP:
        """The network saved in ``path`` (:meth:`save`).  A missing file is an ``OSError``;
        a file that is no such network (truncated, not an ``.npz``, layers that do not fit
        together or to the spaces, NaN weights) a ``ValueError`` saying what is wrong."""
        f = open_npz(path, "weights")
        try:
            with f:
                keys = [k for k in f.files if k.startswith("p") and k[1:].isdigit()]
                keys.sort(key=lambda k: int(k[1:]))
                params = [np.asarray(f[k]) for k in keys]
        except DAMAGED as e:
            raise ValueError(f"{path}: a damaged weights file: {e}") from None
        if not params or len(params) % 2 or keys != [f"p{i}" for i in range(len(params))]:
            raise ValueError(f"{path}: no network (arrays p0, p1, ...: a weight and a bias "
                             "per layer)")
        width = None
        for i in range(0, len(params), 2):
            w, b = params[i], params[i + 1]
            if w.ndim != 2 or b.shape != w.shape[1:] or width not in (None, w.shape[0]):
                after = f" after a layer of {width} units" if width is not None else ""
                raise ValueError(f"{path}: layer {i // 2} does not fit: weights "
                                 f"{w.shape}, bias {b.shape}{after}")
            if w.dtype.kind not in "fiu" or b.dtype.kind not in "fiu":
                raise ValueError(f"{path}: layer {i // 2} holds {w.dtype} values, not numbers")
            if not (np.isfinite(w).all() and np.isfinite(b).all()):
                raise ValueError(f"{path}: layer {i // 2} holds NaN or infinite weights")
            width = w.shape[1]
        net = cls([p.astype(np.float32) for p in params])
        if net.sizes[0] != OBS_SIZE or net.sizes[-1] != NUM_ACTIONS:
            raise ValueError(f"{path}: a network {net.sizes[0]} -> {net.sizes[-1]}, this "
                             f"observation/action space needs {OBS_SIZE} -> {NUM_ACTIONS}")
        return net


class Adam:
    """The Adam optimiser over a list of float32 arrays (updated in place)."""

    def __init__(self, params: list[Array], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        self.params = params
        self.lr = lr
        self.b1, self.b2 = betas
        self.eps = eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads: list[Array]) -> None:
        self.t += 1
        c1 = 1 - self.b1 ** self.t
        c2 = 1 - self.b2 ** self.t
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * g * g
            p -= (self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)).astype(np.float32)


def policy_gradient(net: MLP, obs: Array, mask: npt.NDArray[np.bool_], actions: npt.NDArray[Any],
                    weights: Array) -> tuple[float, list[Array]]:
    """Loss ``-mean(weight * log pi(action))`` and its gradients: cross-entropy (behaviour
    cloning) with unit weights, REINFORCE with returns as weights."""
    logits, acts = net.forward(obs.reshape(len(obs), -1))
    logp = masked_log_softmax(logits, mask)
    rows = np.arange(len(actions))
    chosen = logp[rows, actions]
    n = len(actions)
    loss = float(-(weights * chosen).sum() / n)
    d = np.exp(logp)  # softmax; zero on illegal actions
    d[rows, actions] -= 1.0
    d *= (weights / n)[:, None]
    return loss, net.backward(acts, d.astype(np.float32))


class MLPBot:
    """A bot that plays the network's best legal action for its seat view."""

    def __init__(self, net: MLP, name: str = "mlp") -> None:
        self.net = net
        self.name = name
        self._obs = np.zeros(OBS_SHAPE, dtype=np.float32)

    def choose(self, view: SeatView) -> Action:
        from ..bots.seat_reading import parse_view

        parse_view(view)  # a malformed view is a ViewError naming the field, not a crash
        mask = view_mask(view)
        if not mask.any():
            from ..bots.base import NoLegalAction

            raise NoLegalAction(f"seat {view['viewer']} has no decision to make")
        obs = encode(view, self._obs)
        index = int(self.net.act(obs[None], mask[None].astype(np.bool_))[0])
        if not mask[index]:  # every legal logit NaN (weights diverged in training)
            raise ValueError(f"the network '{self.name}' scores no legal action (NaN outputs)")
        table = view["on_table"]
        from ..tiles import parse_tile

        return index_action(index, parse_tile(table["tile"]) if table is not None else None)


def register(name: str, weights: str) -> None:
    """Make the network in ``weights`` a bot called ``name`` (arena, ``get_bot``)."""
    from ..bots import register as register_bot

    net = MLP.load(weights)
    register_bot(name, lambda seed: MLPBot(net, name))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m wuhan_mahjong.rl.policy --weights FILE``: play over JSON lines (a seat
    view per line in, an action per line out), e.g. as an arena seat ``cmd:...``."""
    p = argparse.ArgumentParser(prog="python -m wuhan_mahjong.rl.policy", description=main.__doc__)
    p.add_argument("--weights", required=True, help="network weights (.npz, MLP.save)")
    args = p.parse_args(argv)
    try:
        net = MLP.load(args.weights)
    except (OSError, ValueError, KeyError) as e:
        print(f"wuhan_mahjong.rl.policy: error: cannot load {args.weights}: {e}", file=sys.stderr)
        return 2
    from ..bots.jsonl import BotProtocolError, serve

    if sys.stdin is None:  # started with standard input closed (``<&-``): a traceback
        print("wuhan_mahjong.rl.policy: error: cannot read standard input: it is closed",
              file=sys.stderr)
        return 2
    if isinstance(sys.stdin, io.TextIOWrapper):  # bytes that are no UTF-8: a bad line, as
        sys.stdin.reconfigure(errors="surrogateescape")  # with `wuhan-mahjong bot --jsonl`
    try:
        serve(MLPBot(net), sys.stdin, sys.stdout)
    except BotProtocolError as e:
        print(f"wuhan_mahjong.rl.policy: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the table stopped reading (it ended, or died): nothing to
        return 0             # answer, as `wuhan-mahjong bot` (it was a traceback)
    except KeyboardInterrupt:
        return 130
    return 0


__all__ = ["MLP", "OBS_SIZE", "Adam", "MLPBot", "main", "masked_log_softmax", "policy_gradient",
           "register"]

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
