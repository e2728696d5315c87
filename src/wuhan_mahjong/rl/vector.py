"""A vectorised self-play runner: many hands in one process, NumPy batches in and out.

Every seat of every hand is played by the caller (one policy for all seats, as in
self-play); only seats with a real choice are asked (``auto_pass``).  Finished
hands are replaced at once by new ones, so every row always holds a decision.

>>> import numpy as np
>>> vec = SelfPlayVector(8, "yuanhang", seed=1)
>>> obs, mask, seat = vec.reset()
>>> obs.shape, mask.shape, seat.shape
((8, 138, 34), (8, 114), (8,))
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
        self.games = [IndexedGame(profile, match=match, hands=hands, auto_pass=True,
                             reward_scale=reward_scale, options=options) for _ in range(num_envs)]
        self._seeds = self._table_seeds(seed)
        self._seeded = False  # the next reset starts every table's stream from its seed
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

    def _table_seeds(self, seed: Any) -> list[int]:
        master = random.Random(seed_value(seed))
        return [master.getrandbits(62) for _ in range(self.num_envs)]

    def reset(self, seed: int | None = None
              ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int8]]:
        """Deal every table; the first batch: observations, masks and the seat deciding in each row.

        The first reset deals from the runner's ``seed``, ``reset(seed=s)`` from ``s`` (as a
        new ``SelfPlayVector(seed=s)``); a later ``reset()`` deals new hands, each table's
        stream going on (it dealt the first hands again: an epoch per reset saw one set of
        deals)."""
        if seed is not None:
            self._seeds = self._table_seeds(seed)
            self._seeded = False
        for i, t in enumerate(self.games):
            t.reset(None if self._seeded else self._seeds[i])
            self._fill(i)
        self._seeded = True
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
