"""A vectorised self-play runner: many hands in one process, NumPy batches in and out.

Every seat of every hand is played by the caller (one policy for all seats, as in
self-play); only seats with a real choice are asked (``auto_pass``).  Finished
hands are replaced at once by new ones, so every row always holds a decision.

>>> import numpy as np
>>> vec = SelfPlayVector(8, "yuanhang", seed=1)
>>> obs, mask, seat = vec.reset()
>>> obs.shape, mask.shape, seat.shape
((8, 137, 34), (8, 114), (8,))
>>> rng = np.random.default_rng(0)
>>> for _ in range(50):
...     actions = [rng.choice(np.flatnonzero(m)) for m in mask]
...     obs, mask, seat, rewards, done = vec.step(actions)
>>> rewards.shape, rewards.sum(axis=1).tolist() == [0.0] * 8
((8, 4), True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .game import IndexedGame, seed_value, whole_number
from .spaces import NUM_ACTIONS, OBS_SHAPE


class SelfPlayVector:
    """``num_envs`` independent hands (``match=True``: matches) stepped together."""

    def __init__(self, num_envs: int, profile: str = "yuanhang", *, seed: int | None = None,
                 match: bool = False, hands: int = 4, reward_scale: float = 1.0,
                 **options: Any) -> None:
        num_envs = whole_number("num_envs", num_envs, 1)
        self.num_envs = num_envs
        master = random.Random(seed_value(seed))
        self.games = [IndexedGame(profile, match=match, hands=hands, auto_pass=True,
                             reward_scale=reward_scale, options=options) for _ in range(num_envs)]
        self._seeds = [master.getrandbits(62) for _ in range(num_envs)]
        self.obs = np.zeros((num_envs, *OBS_SHAPE), dtype=np.float32)
        self.mask = np.zeros((num_envs, NUM_ACTIONS), dtype=np.int8)
        self.seat = np.zeros(num_envs, dtype=np.int8)
        self.hands_done = 0
        self.illegal = 0
        self._dealt = False

    def _fill(self, i: int) -> None:
        t = self.games[i]
        s = t.actor()
        assert s is not None
        self.seat[i] = s
        self.mask[i] = t.mask(s)
        t.observe(s, self.obs[i])

    def reset(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int8]]:
        """Deal every table; the first batch: observations, masks and the seat deciding in each row."""
        for i, t in enumerate(self.games):
            t.reset(self._seeds[i])
            self._fill(i)
        self._dealt = True
        return self.obs.copy(), self.mask.copy(), self.seat.copy()

    def step(self, actions: Sequence[int] | npt.NDArray[np.integer[Any]]
             ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int8],
                        npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Play one action per row.  Returns the next observations, masks and seats, the
        rewards of hands that ended (``(num_envs, 4)``, by seat; zero elsewhere) and which
        rows ended an episode (and were dealt again)."""
        if not self._dealt:  # it played the unseeded hands made with the games, unseen
            raise RuntimeError("no hands are dealt: call reset()")
        try:
            count: int | None = len(actions)
        except TypeError:  # a bare number
            count = None
        shape = getattr(actions, "shape", None)
        if count != self.num_envs or (shape is not None and len(shape) != 1):
            # an (n, 1) array made every row's action an array, illegal: each row played
            # its default action, with no word but the ``illegal`` count
            got = f"shape {tuple(shape)}" if shape is not None else \
                f"{count}" if count is not None else type(actions).__name__
            raise ValueError(f"need {self.num_envs} actions, one per row, got {got}")
        rewards = np.zeros((self.num_envs, 4), dtype=np.float32)
        done = np.zeros(self.num_envs, dtype=np.bool_)
        for i, t in enumerate(self.games):
            seat = int(self.seat[i])
            action, illegal = t.to_action(seat, actions[i])
            self.illegal += illegal
            deltas = t.play(seat, action)
            if deltas is not None:
                rewards[i] = deltas
            if t.over:
                done[i] = True
                self.hands_done += 1
                t.reset()
            self._fill(i)
        return self.obs.copy(), self.mask.copy(), self.seat.copy(), rewards, done
