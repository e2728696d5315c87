"""Wuhan Mahjong for reinforcement learning: PettingZoo and Gymnasium environments, a fixed
action space with masks, observation planes, a vectorised self-play runner and datasets.

Installed with the ``rl`` extra (``pip install 'wuhan-mahjong[rl]'``: PettingZoo, Gymnasium,
NumPy).  The core package never imports this one.  The names below are loaded on first
use, so ``wuhan_mahjong.rl.dataset_args`` (the ``dataset`` command's arguments) can be read
without the extra.  See ``docs/rl.md``.

>>> from wuhan_mahjong import rl
>>> e = rl.env("bianfeng")
>>> e.reset(seed=1)
>>> obs, reward, term, trunc, info = e.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum()) > 0
((138, 34), True)
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .aec import AGENTS, WuhanMahjongEnv, WuhanMahjongParallelEnv, env, parallel_env, raw_env
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

_WHERE = {
    "AGENTS": "aec", "WuhanMahjongEnv": "aec", "WuhanMahjongParallelEnv": "aec", "env": "aec",
    "parallel_env": "aec", "raw_env": "aec", "GymEnv": "gym_env", "SelfPlayVector": "vector",
    "NUM_ACTIONS": "spaces", "NUM_PLANES": "spaces", "OBS_SHAPE": "spaces", "PLANES": "spaces",
    "action_index": "spaces", "action_mask": "spaces", "action_names": "spaces", "encode": "spaces",
    "index_action": "spaces", "view_mask": "spaces",
}

_SUBMODULES = frozenset(("aec", "dataset", "dataset_args", "game", "gym_env", "npz", "policy",
                         "spaces", "vector"))
"""Loaded on first use too: ``rl.dataset.load(path)``, ``rl.policy.MLP`` (docs/rl.md) were an
AttributeError in a process that had not imported them yet."""


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return import_module(f"{__name__}.{name}")  # (the import sets the attribute)
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "AGENTS", "NUM_ACTIONS", "NUM_PLANES", "OBS_SHAPE", "PLANES", "GymEnv", "SelfPlayVector",
    "WuhanMahjongEnv", "WuhanMahjongParallelEnv", "action_index", "action_mask", "action_names",
    "encode", "env", "index_action", "parallel_env", "raw_env", "view_mask",
]
