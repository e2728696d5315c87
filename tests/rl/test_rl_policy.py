"""The NumPy policy network, its bot, and the learning baseline of examples/."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.arena import run_arena
from wuhan_mahjong.engine import new_hand, seat_view
from wuhan_mahjong.rl import policy as pol
from wuhan_mahjong.rl.spaces import NUM_ACTIONS
from wuhan_mahjong.rules import get_rules

ROOT = Path(__file__).resolve().parents[2]


def test_gradients_match_finite_differences() -> None:
    rng = np.random.default_rng(0)
    net = pol.MLP([p.astype(np.float64) for p in pol.MLP.create([6, 5, 4], seed=1).params])
    net.params[-2] *= 10.0  # away from the near-uniform start
    obs = rng.standard_normal((3, 6))
    mask = np.array([[1, 1, 0, 1], [0, 1, 1, 0], [1, 1, 1, 1]], dtype=np.bool_)
    actions = np.array([3, 2, 0])
    weights = np.array([1.0, -0.5, 2.0])
    _, grads = pol.policy_gradient(net, obs, mask, actions, weights)
    eps = 1e-5
    for k, p in enumerate(net.params):
        for idx in [(0,) * p.ndim, tuple(s - 1 for s in p.shape)]:
            old = p[idx]
            p[idx] = old + eps
            up, _ = pol.policy_gradient(net, obs, mask, actions, weights)
            p[idx] = old - eps
            down, _ = pol.policy_gradient(net, obs, mask, actions, weights)
            p[idx] = old
            assert grads[k][idx] == pytest.approx((up - down) / (2 * eps), rel=1e-3, abs=1e-6)


def test_sampled_and_greedy_actions_are_legal() -> None:
    net = pol.MLP.create([pol.OBS_SIZE, 8, NUM_ACTIONS], seed=2)
    rng = np.random.default_rng(3)
    obs = rng.random((50, pol.OBS_SIZE)).astype(np.float32)
    mask = rng.random((50, NUM_ACTIONS)) < 0.05
    mask[:, 113] = True
    for a in (net.act(obs, mask), net.act(obs, mask, rng)):
        assert mask[np.arange(50), a].all()


def test_the_bot_plays_whole_hands_and_reloads(tmp_path: Path) -> None:
    net = pol.MLP.create([pol.OBS_SIZE, 8, NUM_ACTIONS], seed=4)
    path = str(tmp_path / "w.npz")
    net.save(path)
    again = pol.MLP.load(path)
    assert all(np.array_equal(a, b) for a, b in zip(net.params, again.params, strict=True))
    pol.register("test-mlp", path)
    bot = get_bot("test-mlp")
    for h in range(3):
        state = new_hand(get_rules("bianfeng"), h, rng=random.Random(h), auto_pass=True)
        while not state.ended:
            s = state.to_act()[0]
            state.apply(s, bot.choose(seat_view(state, s)))  # IllegalAction if not legal
    bad = tmp_path / "bad.npz"
    pol.MLP.create([10, 4], seed=0).save(str(bad))
    with pytest.raises(ValueError, match="needs"):
        pol.MLP.load(str(bad))
    assert pol.main(["--weights", str(bad)]) == 2


def test_the_network_sits_in_the_arena_as_an_external_command(tmp_path: Path) -> None:
    path = tmp_path / "w.npz"
    pol.MLP.create([pol.OBS_SIZE, 8, NUM_ACTIONS], seed=5).save(str(path))
    seat = f"cmd:{sys.executable} -m wuhan_mahjong.rl.policy --weights {path}"
    report = run_arena(get_rules(), [seat, "random", "random", "random"], 4, seed=2)
    assert report.hands == 4 and report.stats[seat].hands == 4


def _example() -> object:
    spec = importlib.util.spec_from_file_location("bc_baseline", ROOT / "examples" / "bc_baseline.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_a_tiny_baseline_beats_random(tmp_path: Path) -> None:
    """Clone 12 expert hands, 16 self-play hands: the policy beats random on duplicate
    deals with a 95% interval above zero."""
    ex = _example()
    out = str(tmp_path / "tiny.npz")
    lines: list[str] = []
    ex.train("yuanhang", hands=12, epochs=5, hidden=32, selfplay=16, seed=0,  # type: ignore[attr-defined]
             out=out, log=lines.append)
    assert any("cloned: accuracy" in x for x in lines) and any("self-play 16/16" in x for x in lines)
    report = ex.evaluate(out, "yuanhang", 96, seed=1)  # type: ignore[attr-defined]
    diff = report.to_json()["differences"]["mlp - random"]
    assert diff["ci95"][0] > 0, report.text()
