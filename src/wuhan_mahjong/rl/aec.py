"""PettingZoo environments: :class:`WuhanMahjongEnv` (AEC) and :class:`WuhanMahjongParallelEnv`.

Agents are ``player_0`` .. ``player_3`` (seats 0-3; the dealer of the first hand
comes from the seed).  Play is polled round-robin, as at a real table where every
seat answers every discard: the AEC environment selects ``player_0, player_1,
player_2, player_3, player_0, ...``; a selected agent with a decision now (a
turn, a claim window, a robbing window, a final draw) plays it, an agent with
none sees a mask holding only ``pass`` and its step changes nothing.  So every
agent is selected once per *cycle*, nobody can tell from the selection order who
was offered a claim, and ``max_cycles`` cycles truncate the episode.  (With
``auto_pass`` a claim window stays open only while a seat that can claim answers:
an idle agent polled then learns that someone can claim the discard.)  (For
throughput use :class:`~wuhan_mahjong.rl.gym_env.GymEnv` or
:class:`~wuhan_mahjong.rl.vector.SelfPlayVector`, which only ask seats that
decide.)  The parallel environment asks all agents at once: the seats that must
act play, in seat order; the others' actions are ignored.

Rewards are the settlement's point changes times ``reward_scale``, given when a
hand ends (every hand of a match).  An illegal index plays the default action
(see :mod:`.game`) and sets ``info["illegal"]``; ``illegal_penalty`` is then
subtracted from that agent's reward.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from ..engine.state import seat_name
from ..engine.views import seat_view
from .game import IndexedGame, finite_number, whole_number
from .spaces import NUM_ACTIONS, OBS_SHAPE, PASS_INDEX, action_number

AGENTS = ("player_0", "player_1", "player_2", "player_3")
ENV_OPTIONS = ("match", "hands", "auto_pass", "reward_scale", "illegal_penalty", "max_cycles",
               "render_mode")


def observation_space() -> spaces.Dict:
    return spaces.Dict({
        "observation": spaces.Box(0.0, 1.0, OBS_SHAPE, dtype=np.float32),
        "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
    })


_IDLE_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)
_IDLE_MASK[PASS_INDEX] = 1


def _is_pass(action: Any) -> bool:
    return action_number(action) == PASS_INDEX


def _seat_of(agent: Any) -> int:
    """The seat of an agent's name, or a ValueError that lists the agents."""
    if agent not in AGENTS:
        raise ValueError(f"unknown agent {agent!r} (agents: {', '.join(AGENTS)})")
    return AGENTS.index(agent)


class _Base:
    """What both PettingZoo environments share: the game, spaces, observations, render."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "name": "wuhan_mahjong_v0",
                                "is_parallelizable": False, "render_fps": 1}

    def _setup(self, profile: str, match: bool, hands: int, auto_pass: bool, reward_scale: float,
               illegal_penalty: float, max_cycles: int | None, render_mode: str | None,
               options: dict[str, Any]) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if max_cycles is not None:
            max_cycles = whole_number("max_cycles", max_cycles, 1)
        self.game = IndexedGame(profile, match=match, hands=hands, auto_pass=auto_pass,
                           reward_scale=reward_scale, options=options)
        self.illegal_penalty = finite_number("illegal_penalty", illegal_penalty)
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self._obs_spaces = {a: observation_space() for a in AGENTS}
        self._act_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_spaces[AGENTS[_seat_of(agent)]]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_spaces[AGENTS[_seat_of(agent)]]

    def _observe_seat(self, seat: int) -> dict[str, np.ndarray]:
        game = self.game
        if game.over:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        elif game.deciding(seat):
            mask = game.mask(seat)
        else:
            mask = _IDLE_MASK.copy()
        return {"observation": game.observe(seat), "action_mask": mask}

    def _render_text(self) -> str:
        state = self.game.state
        view = seat_view(state, None)
        lines = [f"{view['profile']} hand {view['hand_no']} · phase {view['phase']} · "
                 f"wall {view['wall']} · laizi {view['laizi']}"]
        for s in view["seats"]:
            melds = " ".join(m["tiles"] or "[kong]" for m in s["melds"])
            river = "".join(d["tile"] for d in s["discards"])
            lines.append(f"  {seat_name(s['seat'])}: {s['concealed']} tiles  melds {melds or '-'}  "
                         f"discards {river or '-'}")
        return "\n".join(lines)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class WuhanMahjongEnv(_Base, AECEnv):  # type: ignore[misc]
    """The AEC environment (see the module docstring)."""

    def __init__(self, profile: str = "yuanhang", *, match: bool = False, hands: int = 4,
                 auto_pass: bool = False, reward_scale: float = 1.0, illegal_penalty: float = 0.0,
                 max_cycles: int | None = None, render_mode: str | None = None,
                 **options: Any) -> None:
        super().__init__()
        self._setup(profile, match, hands, auto_pass, reward_scale, illegal_penalty, max_cycles,
                    render_mode, options)
        self.agents: list[str] = []
        self._steps = 0

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.game.reset(seed)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._steps = 0

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._observe_seat(_seat_of(agent))

    def step(self, action: Any) -> None:
        if not self.agents:  # before reset (an AttributeError), or once every agent is done
            raise RuntimeError("no hand is being played: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = AGENTS.index(agent)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        game = self.game
        info: dict[str, Any] = {}
        if game.deciding(seat):
            played, illegal = game.to_action(seat, action)
            if illegal:
                info["illegal"] = True
                self.rewards[agent] -= self.illegal_penalty
            deltas = game.play(seat, played)
            if deltas is not None:
                for s, a in enumerate(AGENTS):
                    self.rewards[a] += deltas[s]
        elif action is not None and not _is_pass(action):
            info["illegal"] = True  # an idle seat may only wait (pass)
            self.rewards[agent] -= self.illegal_penalty
        # only the acting agent's info changes: another agent reads its own with ``last()``
        # when it is selected again, as its rewards (emptied here, its ``illegal`` never
        # reached it)
        self.infos[agent] = info
        self._steps += 1
        if game.over:
            self.terminations = {a: True for a in self.agents}
        elif self.max_cycles is not None and self._steps >= self.max_cycles * len(AGENTS):
            self.truncations = {a: True for a in self.agents}
        self.agent_selection = AGENTS[(seat + 1) % 4]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()


class WuhanMahjongParallelEnv(_Base, ParallelEnv):  # type: ignore[misc]
    """The parallel environment: every step all live agents answer at once."""

    def __init__(self, profile: str = "yuanhang", *, match: bool = False, hands: int = 4,
                 auto_pass: bool = False, reward_scale: float = 1.0, illegal_penalty: float = 0.0,
                 max_cycles: int | None = None, render_mode: str | None = None,
                 **options: Any) -> None:
        self._setup(profile, match, hands, auto_pass, reward_scale, illegal_penalty, max_cycles,
                    render_mode, options)
        self.agents: list[str] = []
        self._steps = 0

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        self.game.reset(seed)
        self.agents = list(AGENTS)
        self._steps = 0
        return {a: self._observe_seat(s) for s, a in enumerate(AGENTS)}, {a: {} for a in AGENTS}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                     dict[str, bool], dict[str, Any]]:
        if not self.agents:  # before reset, or after the end: it played the hand on, unseen
            raise RuntimeError("no hand is being played: call reset()")
        if not isinstance(actions, Mapping):
            raise TypeError(f"actions must be a dict of agent -> action index, got "
                            f"{type(actions).__name__}")
        game = self.game
        rewards = {a: 0.0 for a in self.agents}
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        for seat in game.state.to_act():
            agent = AGENTS[seat]
            if game.over or not game.deciding(seat):
                continue
            played, illegal = game.to_action(seat, actions.get(agent, PASS_INDEX))
            if illegal:
                infos[agent]["illegal"] = True
                rewards[agent] -= self.illegal_penalty
            deltas = game.play(seat, played)
            if deltas is not None:
                for s, a in enumerate(AGENTS):
                    rewards[a] += deltas[s]
                break  # a hand ended: the next hand's seats answer next step
        self._steps += 1
        over = game.over
        trunc = not over and self.max_cycles is not None and self._steps >= self.max_cycles
        obs = {a: self._observe_seat(s) for s, a in enumerate(AGENTS) if a in self.agents}
        terminations = {a: over for a in self.agents}
        truncations = {a: trunc for a in self.agents}
        if over or trunc:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terminations, truncations, infos



def raw_env(profile: str = "yuanhang", **kwargs: Any) -> WuhanMahjongEnv:
    """The AEC environment without wrappers."""
    return WuhanMahjongEnv(profile, **kwargs)


def env(profile: str = "yuanhang", **kwargs: Any) -> Any:
    """The PettingZoo AEC environment of one hand (``match=True``: a match of ``hands`` hands).

    Keyword arguments: ``match``, ``hands``, ``auto_pass``, ``reward_scale``,
    ``illegal_penalty``, ``max_cycles``, ``render_mode``; any other keyword is a rule
    option of the profile (``wuhan-mahjong rules PROFILE`` lists them).
    """
    return wrappers.OrderEnforcingWrapper(raw_env(profile, **kwargs))


def parallel_env(profile: str = "yuanhang", **kwargs: Any) -> WuhanMahjongParallelEnv:
    """The PettingZoo parallel environment (all agents answer every step)."""
    return WuhanMahjongParallelEnv(profile, **kwargs)
