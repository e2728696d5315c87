"""Wuhan Mahjong for reinforcement learning: PettingZoo and Gymnasium environments, a fixed
action space with masks, observation planes, a vectorised self-play runner and datasets.

Installed with the ``rl`` extra (``pip install 'wuhan-mahjong[rl]'``: PettingZoo, Gymnasium,
NumPy).  The core package never imports this one.  See ``docs/rl.md``.

>>> from wuhan_mahjong import rl
>>> e = rl.env("bianfeng")
>>> e.reset(seed=1)
>>> obs, reward, term, trunc, info = e.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum()) > 0
((137, 34), True)
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from .aec import AGENTS, WuhanMahjongEnv, WuhanMahjongParallelEnv
from .gym_env import GymEnv
from .spaces import (
    NUM_ACTIONS,
    NUM_PLANES,
    OBS_SHAPE,
    PLANES,
    action_index,
    action_mask,
    action_names,
    encode,
    index_action,
    view_mask,
)
from .vector import SelfPlayVector


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


__all__ = [
    "AGENTS", "NUM_ACTIONS", "NUM_PLANES", "OBS_SHAPE", "PLANES", "GymEnv", "SelfPlayVector",
    "WuhanMahjongEnv", "WuhanMahjongParallelEnv", "action_index", "action_mask", "action_names",
    "encode", "env", "index_action", "parallel_env", "raw_env", "view_mask",
]
