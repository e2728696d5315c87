"""A single-agent Gymnasium environment: one seat learns, the shipped bots play the other three.

The learner is asked only when it has a real choice (``auto_pass``: a claim window
where it could only pass is answered for it).  Observations and actions are those
of :mod:`.spaces`; the reward is the learner's settlement points times
``reward_scale`` when a hand ends (every hand of a match), minus
``illegal_penalty`` for an illegal index (which plays the default action, see
:mod:`.game`, and sets ``info["illegal"]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from ..bots import Bot, get_bot
from ..engine.views import seat_view
from .aec import observation_space
from .game import IndexedGame, finite_number
from .spaces import NUM_ACTIONS


class GymEnv(gym.Env):
    """``GymEnv(profile="yuanhang", opponents="greedy")``; ``seat=None`` draws the learner's seat
    from the seed at every reset; ``opponents`` is a bot name or three names / bots."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012

    def __init__(self, profile: str = "yuanhang", opponents: str | Sequence[str | Bot] = "greedy", *,
                 seat: int | None = None, match: bool = False, hands: int = 4,
                 reward_scale: float = 1.0, illegal_penalty: float = 0.0,
                 render_mode: str | None = None, **options: Any) -> None:
        if seat is not None:
            if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or not 0 <= seat < 4:
                raise ValueError(f"seat must be 0-3 or None, got {seat!r}")
            seat = int(seat)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError("render_mode must be None or 'ansi'")
        specs = [opponents] * 3 if isinstance(opponents, str) else list(opponents)
        if len(specs) != 3:
            raise ValueError("opponents: one bot name, or three names / bots")
        for spec in specs:
            if isinstance(spec, str):
                get_bot(spec, 0)  # unknown names fail now, with the list of bots
            elif not callable(getattr(spec, "choose", None)):
                raise ValueError(f"opponents: {spec!r} is neither a bot name nor a bot")
        self._specs = specs
        self.game = IndexedGame(profile, match=match, hands=hands, auto_pass=True,
                           reward_scale=reward_scale, options=options)
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.illegal_penalty = finite_number("illegal_penalty", illegal_penalty)
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = gym.spaces.Discrete(NUM_ACTIONS)
        self.bots: dict[int, Bot] = {}
        self._carried = 0.0  # the learner's points of match hands ended before its first decision

    def _obs(self) -> dict[str, np.ndarray]:
        t = self.game
        mask = t.mask(self.seat) if t.deciding(self.seat) else np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": t.observe(self.seat), "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        """``seat``, and in match mode ``match``: the hand being played, the number of hands
        and every seat's points so far (:meth:`.IndexedGame.progress`)."""
        info: dict[str, Any] = {"seat": self.seat}
        progress = self.game.progress()
        if progress is not None:
            info["match"] = progress
        return info

    def _advance(self) -> float:
        """Let the bots play until the learner decides or the episode is over; its reward."""
        t = self.game
        reward = 0.0
        while not t.over:
            seat = t.actor()
            assert seat is not None
            if seat == self.seat:
                break
            deltas = t.play(seat, self.bots[seat].choose(seat_view(t.state, seat)))
            if deltas is not None:
                reward += deltas[self.seat]
        return reward

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if isinstance(seed, np.integer):  # Gymnasium refuses a NumPy integer ("must be a
            seed = int(seed)              # python integer"), as seeds drawn by NumPy are
        super().reset(seed=seed)
        rng = self.np_random
        while True:
            self.game.reset(int(rng.integers(2**62)))
            self.seat = int(rng.integers(4)) if self.fixed_seat is None else self.fixed_seat
            others = [s for s in range(4) if s != self.seat]
            self.bots = {}
            for s, spec in zip(others, self._specs, strict=True):
                self.bots[s] = get_bot(spec, int(rng.integers(2**31))) if isinstance(spec, str) else spec
            # a match hand the bots end before the learner's first decision is paid with the
            # first step's reward (reset dropped it: the returns missed the match's totals)
            self._carried = self._advance()
            if not self.game.over:  # (a hand the bots end before the learner's first
                break                # decision would be no episode at all: deal again)
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        t = self.game
        if not self.bots:  # never reset: the hand the table was made with is no episode
            raise RuntimeError("no hand is being played: call reset()")
        if t.over:
            raise RuntimeError("the episode is over: call reset()")
        played, illegal = t.to_action(self.seat, action)
        reward, self._carried = self._carried, 0.0
        if illegal:
            reward -= self.illegal_penalty
        deltas = t.play(self.seat, played)
        if deltas is not None:
            reward += deltas[self.seat]
        reward += self._advance()
        info = self._info()
        if illegal:
            info["illegal"] = True
        over = t.over
        if over:
            info["deltas"] = list(t.state.result.deltas) if t.state.result else None
        return self._obs(), float(reward), over, False, info

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        state = self.game.state
        view = seat_view(state, self.seat)
        return (f"seat {self.seat} · phase {view['phase']} · wall {view['wall']} · laizi {view['laizi']}"
                f" · hand {view['hand']}")


ENV_ID = "WuhanMahjong-v0"
"""``gymnasium.make("wuhan_mahjong.rl.gym_env:WuhanMahjong-v0", profile="bianfeng")`` (the
module prefix imports this module, which registers the id)."""

if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="wuhan_mahjong.rl.gym_env:GymEnv")
