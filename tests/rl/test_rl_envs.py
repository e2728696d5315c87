"""The PettingZoo and Gymnasium environments pass their libraries' own checks."""

from __future__ import annotations

import functools
import re
import types
import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, seed_test

from wuhan_mahjong import rl
from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.engine import seat_view

PROFILES = ["yuanhang", "bianfeng", "laizishanzhuang"]


@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.filterwarnings("ignore", message=".*Observation.*")
    warnings.filterwarnings("ignore", message=".*render modes.*")


@pytest.mark.parametrize("profile", [PROFILES[0], *(pytest.param(p, marks=pytest.mark.slow)
                                                   for p in PROFILES[1:])])
def test_pettingzoo_api_seed_and_max_cycles(profile: str) -> None:
    api_test(rl.env(profile), num_cycles=200)
    seed_test(functools.partial(rl.env, profile), num_cycles=200)
    mod = types.SimpleNamespace(env=functools.partial(rl.env, profile),
                                parallel_env=functools.partial(rl.parallel_env, profile))
    max_cycles_test(mod)
    parallel_api_test(rl.parallel_env(profile), num_cycles=200)


def test_pettingzoo_match_env() -> None:
    api_test(rl.env("bianfeng", match=True, hands=2), num_cycles=200)
    seed_test(functools.partial(rl.env, "yuanhang", match=True, hands=2), num_cycles=200)


@pytest.mark.parametrize("profile", PROFILES)
def test_gymnasium_check_env(profile: str) -> None:
    check_env(rl.GymEnv(profile, opponents="greedy"), skip_render_check=True)


def _play_aec(e, seed: int, bot: str = "greedy") -> tuple[dict[str, float], int]:  # type: ignore[no-untyped-def]
    """Play a hand or match through the AEC API, each seat's choice made by a shipped bot
    from its seat view and sent as an action index."""
    e.reset(seed=seed)
    bots = [get_bot(bot, s) for s in range(4)]
    totals = dict.fromkeys(e.possible_agents, 0.0)
    steps = 0
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        mask = obs["action_mask"]
        seat = rl.AGENTS.index(agent)
        state = e.unwrapped.game.state
        if not state.legal_actions(seat):
            assert mask.tolist() == [0] * rl.spaces.PASS_INDEX + [1]  # idle: may only wait
            e.step(rl.spaces.PASS_INDEX)
            continue
        action = bots[seat].choose(seat_view(state, seat))
        index = rl.action_index(action, state.pending_tile)
        assert mask[index] == 1
        assert rl.index_action(index, state.pending_tile) == action
        e.step(index)
        steps += 1
    return totals, steps


def test_a_hand_pays_the_settlement_deltas_scaled() -> None:
    e = rl.env("laizishanzhuang", reward_scale=0.01)
    paid = 0
    for seed in range(8):
        totals, steps = _play_aec(e, seed)
        state = e.unwrapped.game.state
        assert state.ended and steps > 30
        assert state.result is not None
        for s, a in enumerate(rl.AGENTS):
            assert totals[a] == pytest.approx(state.result.deltas[s] * 0.01)
        paid += any(totals.values())
    assert paid > 0


def test_match_env_sums_every_hand() -> None:
    e = rl.env("laizishanzhuang", match=True, hands=3)
    totals, _ = _play_aec(e, 11)
    match = e.unwrapped.game.match
    assert match is not None and match.finished and len(match.history) == 3
    assert [totals[a] for a in rl.AGENTS] == pytest.approx([float(x) for x in match.totals])


def test_every_agent_is_polled_once_per_cycle() -> None:
    e = rl.env("yuanhang")
    e.reset(seed=3)
    order = []
    for agent in e.agent_iter(max_iter=40):
        obs, *_ = e.last()
        order.append(agent)
        mask = obs["action_mask"]
        e.step(int(np.flatnonzero(mask)[-1]))
    assert order == [rl.AGENTS[i % 4] for i in range(40)]


def test_illegal_index_plays_the_default_and_is_flagged() -> None:
    e = rl.raw_env("yuanhang", illegal_penalty=1.0)
    e.reset(seed=2)
    while True:
        obs = e.observe(e.agent_selection)
        if obs["action_mask"][rl.spaces.PASS_INDEX] == 0:
            break
        e.step(rl.spaces.PASS_INDEX)
    agent = e.agent_selection
    seat = rl.AGENTS.index(agent)
    state = e.game.state
    hand_before = state.hand_size(seat)
    e.step(rl.spaces.PASS_INDEX)  # a turn cannot pass
    assert e.infos[agent] == {"illegal": True}
    assert e._cumulative_rewards[agent] == -1.0
    assert state.hand_size(seat) == hand_before - 1  # it discarded (the default action)


def test_gym_env_plays_whole_hands_against_bots() -> None:
    env = rl.GymEnv("bianfeng", opponents=["random", "greedy", "random"], seat=2)
    rng = np.random.default_rng(0)
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        assert info["seat"] == 2
        total, done = 0.0, False
        while not done:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, reward, done, _, info = env.step(action)
            total += reward
        assert total == info["deltas"][2]
        assert "match" not in info  # one hand: no match to tell of
    with pytest.raises(ValueError, match="unknown bot"):
        rl.GymEnv(opponents="nobody")


def test_gym_env_in_match_mode_tells_the_hand_and_the_totals() -> None:
    """A learner playing a match sees where it stands (public to every seat): the hand being
    played, the number of hands and every seat's points so far; its returns add up to its
    total, and the totals to zero."""
    env = rl.GymEnv("yuanhang", opponents="greedy", match=True, hands=3, reward_scale=0.5)
    rng = np.random.default_rng(1)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        seen = [info["match"]["hand_no"]]
        assert info["match"]["hands"] == 3
        total, done = 0.0, False
        while not done:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, reward, done, _, info = env.step(action)
            total += reward
            seen.append(info["match"]["hand_no"])
        assert seen == sorted(seen) and seen[-1] == 3 and len(set(seen)) >= 2
        totals = info["match"]["totals"]
        assert sum(totals) == 0 and total == 0.5 * totals[info["seat"]]
        assert env.game.match is not None and totals == env.game.match.totals


def test_parallel_env_resolves_claim_windows_at_once() -> None:
    p = rl.parallel_env("yuanhang", max_cycles=500)
    obs, _ = p.reset(seed=4)
    rng = np.random.default_rng(4)
    steps = 0
    while p.agents:
        acts = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, *_ = p.step(acts)
        steps += 1
    assert p.game.state.ended and steps < 500


def test_the_core_never_imports_the_rl_extra() -> None:
    import subprocess
    import sys

    code = ("import sys, wuhan_mahjong, wuhan_mahjong.engine, wuhan_mahjong.bots, wuhan_mahjong.cli, "
            "wuhan_mahjong.scoring\n"
            "bad = [m for m in ('wuhan_mahjong.rl', 'pettingzoo', 'gymnasium') if m in sys.modules]\n"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow
def test_vector_runner_is_reproducible_and_zero_sum() -> None:
    runs = []
    for _ in range(2):
        vec = rl.SelfPlayVector(6, "bianfeng", seed=9, reward_scale=0.5)
        obs, mask, seat = vec.reset()
        rng = np.random.default_rng(1)
        total = np.zeros((6, 4))
        trace = [obs.sum()]
        ended = 0
        for _ in range(400):
            legal = [np.flatnonzero(m) for m in mask]
            win = rl.spaces.WIN_INDEX
            actions = [win if mask[i][win] else int(rng.choice(legal[i])) for i in range(6)]
            obs, mask, seat, rewards, done = vec.step(actions)
            assert obs.shape == (6, *rl.OBS_SHAPE) and mask.dtype == np.int8
            for i in range(6):  # every row holds a decision of the seat it names
                legal_now = vec.games[i].state.legal_actions(int(seat[i]))
                assert int(mask[i].sum()) == len(legal_now) >= 1
            total += rewards
            ended += int(done.sum())
            trace.append(obs.sum())
        assert np.allclose(total.sum(axis=1), 0.0) and ended == vec.hands_done > 0
        runs.append((trace, total))
    assert runs[0][0] == runs[1][0] and np.array_equal(runs[0][1], runs[1][1])


def test_gymnasium_make_by_id() -> None:
    import gymnasium as gym

    env = gym.make("wuhan_mahjong.rl.gym_env:WuhanMahjong-v0", profile="laizishanzhuang",
                   opponents="random", render_mode="ansi")
    obs, info = env.reset(seed=4)
    assert info["seat"] in range(4)
    assert obs["observation"].shape == rl.OBS_SHAPE and obs["action_mask"].any()
    assert "phase" in env.render()
    check_env(env.unwrapped)


def test_an_idle_agent_only_waits() -> None:
    e = rl.raw_env("yuanhang", illegal_penalty=0.5)
    e.reset(seed=6)
    agent = e.agent_selection
    while e.game.deciding(rl.AGENTS.index(agent)):
        e.step(int(np.flatnonzero(e.observe(agent)["action_mask"])[0]))
        agent = e.agent_selection
    before = [list(c) for c in e.game.state.counts]
    e.step("nonsense")
    assert e.infos[agent] == {"illegal": True} and e._cumulative_rewards[agent] == -0.5
    assert [list(c) for c in e.game.state.counts] == before
    agent = e.agent_selection
    while e.game.deciding(rl.AGENTS.index(agent)):
        e.step(int(np.flatnonzero(e.observe(agent)["action_mask"])[0]))
        agent = e.agent_selection
    e.step(rl.spaces.PASS_INDEX)
    assert e.infos[agent] == {}


@pytest.mark.parametrize(("make", "kwargs", "message"), [
    (rl.GymEnv, {"seat": True}, "seat must be 0-3 or None, got True"),
    (rl.GymEnv, {"seat": 1.5}, "seat must be 0-3 or None, got 1.5"),
    (rl.GymEnv, {"opponents": [1, 2, 3]}, "opponents: 1 is neither a bot name nor a bot"),
    (rl.GymEnv, {"reward_scale": float("nan")}, "reward_scale must be a finite number"),
    (rl.GymEnv, {"illegal_penalty": float("inf")},
     "illegal_penalty must be a finite number"),
    (rl.GymEnv, {"match": True, "hands": 2.5}, "hands must be a whole number of at least 1"),
    (rl.raw_env, {"max_cycles": True}, "max_cycles must be a whole number of at least 1"),
    (rl.parallel_env, {"match": True, "hands": 0},
     "hands must be a whole number of at least 1, got 0"),
    (functools.partial(rl.SelfPlayVector, 2.0), {}, "num_envs must be a whole number of at least 1"),
])
def test_a_bad_setting_is_refused_when_the_environment_is_made(make: Any, kwargs: dict[str, Any],
                                                              message: str) -> None:
    """A seat of True, a float hand count, three opponents that are not bots, a NaN reward
    scale: each is a ValueError naming it at construction, not a crash at the first reset
    or a NaN in every return."""
    with pytest.raises(ValueError, match=re.escape(message)):
        make(**kwargs)
