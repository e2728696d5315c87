"""Faults a researcher training on the environments met: each test failed before its fix,
but the ``auto_pass`` one, which checks what docs/rl.md now says of it (the fault was the doc)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from wuhan_mahjong import rl
from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.engine.actions import DISCARDS, PENGS, WIN, Action
from wuhan_mahjong.engine.dealing import arrange_wall
from wuhan_mahjong.engine.match import Match
from wuhan_mahjong.engine.views import SeatView
from wuhan_mahjong.rl import dataset
from wuhan_mahjong.rl import game as rl_game
from wuhan_mahjong.rl.policy import MLP, NUM_ACTIONS, OBS_SIZE
from wuhan_mahjong.rules import Rules
from wuhan_mahjong.tiles import parse_tile, parse_tiles


def test_the_submodules_named_in_the_docs_are_attributes_of_rl() -> None:
    """docs/rl.md writes ``rl.dataset.load(path)``, ``rl.policy.MLP``: in a fresh process
    ``from wuhan_mahjong import rl`` then ``rl.dataset`` was an AttributeError (the lazy
    names knew the classes, not the modules)."""
    code = ("from wuhan_mahjong import rl\n"
            "assert callable(rl.dataset.load) and callable(rl.dataset.play_hand_rows)\n"
            "assert rl.policy.MLP and rl.policy.MLPBot and rl.spaces.PASS_INDEX == 113\n"
            "assert rl.vector.SelfPlayVector is rl.SelfPlayVector\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_an_aec_agent_reads_its_illegal_flag_with_last() -> None:
    """``info["illegal"]`` reaches the agent through ``env.last()`` at its next turn, as its
    penalty does (the next agent's step emptied every other agent's info, so the flag was
    gone before the agent that played the illegal index was selected again)."""
    e = rl.env("yuanhang", illegal_penalty=1.0)
    e.reset(seed=2)
    culprit = None
    seen: list[tuple[str, float, dict[str, object]]] = []
    for agent in e.agent_iter(400):
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        if agent == culprit:
            seen.append((agent, reward, dict(info)))
            if len(seen) == 2:
                break
        mask = obs["action_mask"]
        if culprit is None and not mask[rl.spaces.PASS_INDEX]:  # a turn: pass is illegal
            culprit = agent
            e.step(rl.spaces.PASS_INDEX)
            continue
        e.step(int(np.flatnonzero(mask)[0]))
    assert seen[0][1] == -1.0 and seen[0][2] == {"illegal": True}
    assert seen[1][2] == {}  # its next step was legal


def test_the_vector_runner_deals_new_hands_at_every_reset() -> None:
    """``reset()`` again goes on with each table's stream (it dealt the very same hands
    every time, seeded or not: a loop resetting per epoch trained on one set of deals);
    ``reset(seed=s)`` deals what a new ``SelfPlayVector(seed=s)`` deals."""
    for seed in (1, None):
        vec = rl.SelfPlayVector(3, "yuanhang", seed=seed)
        first = vec.reset()[0]
        assert not np.array_equal(first, vec.reset()[0])
    vec = rl.SelfPlayVector(3, "yuanhang", seed=5)
    vec.reset()
    again = vec.reset(seed=7)
    fresh = rl.SelfPlayVector(3, "yuanhang", seed=7).reset()
    for a, b in zip(again, fresh, strict=True):
        assert np.array_equal(a, b)


def test_all_decisions_keeps_the_forced_ones_of_the_same_hands() -> None:
    """``--all-decisions`` ("also keep decisions with a single legal action") wrote the
    same rows as without: the hands were played with ``auto_pass``, so a claim window or
    a final draw where a seat could only pass was never a decision.  Now those are rows
    too, and the hands, the real decisions and the settlements are the same."""
    some = dataset.generate("bianfeng", 2, "random", seed=3)
    every = dataset.generate("bianfeng", 2, "random", seed=3, all_decisions=True)
    assert np.array_equal(some["deltas"], every["deltas"])
    forced = every["mask"].sum(axis=1) == 1
    assert forced.sum() > 20
    assert (every["action"][forced] == rl.spaces.PASS_INDEX).sum() > 20
    for k in ("obs", "mask", "action", "seat", "hand", "reward"):
        assert np.array_equal(every[k][~forced], some[k]), k
    rows, deltas, _ = dataset.play_hand_rows("bianfeng", {}, "random", 3, 1, all_decisions=True)
    assert [a for _, _, a, _ in rows] == every["action"][every["hand"] == 1].tolist()
    assert tuple(every["deltas"][1]) == deltas


def _idle_agents_polled_in_open_windows(env, seed: int) -> int:  # type: ignore[no-untyped-def]
    """How often an agent that is neither the discarder nor asked is polled while a claim
    window is open (it sees the phase and the discard), over one random hand."""
    claim = rl.PLANES.index("phase claim")
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    seen = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = rl.AGENTS.index(agent)
        state = env.unwrapped.game.state
        if obs["observation"][claim, 0] and not state.legal_actions(seat) \
                and state.pending_from != seat:
            seen += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


def test_only_auto_pass_shows_an_idle_agent_that_someone_can_claim() -> None:
    """What docs/rl.md now says (it said ``auto_pass`` in the PettingZoo environments only
    made fewer decisions): by default no idle agent is polled in an open claim window;
    with ``auto_pass`` one is, and learns that another seat can claim the discard."""
    assert sum(_idle_agents_polled_in_open_windows(rl.env("yuanhang"), s) for s in range(3)) == 0
    assert sum(_idle_agents_polled_in_open_windows(rl.env("yuanhang", auto_pass=True), s)
               for s in range(3)) > 0


class _Script:
    """A bot playing the given moves in the first hand of a match, then ``random``."""

    def __init__(self, *moves: Action) -> None:
        self.moves = list(moves)
        self.rest = get_bot("random", 0)

    def choose(self, view: SeatView) -> Action:
        if view["hand_no"] == 0 and self.moves:
            return self.moves.pop(0)
        return self.rest.choose(view)


def test_a_match_hand_the_bots_end_before_the_learner_decides_is_paid(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """In a ``GymEnv`` match the first hand ended before the learner's first decision (the
    dealer discards 1s, 南家 pengs, throws 2z, 西家 throws 9p, 南家 wins; 北家, the learner,
    is never asked): ``reset`` played it and dropped the learner's payment, so the returns
    did not add up to the match's totals.  It is paid with the first step's reward."""
    t = parse_tile
    hands = [parse_tiles("1s9m9m9m1p1p2p2p3p3p4p4p3s3s"), parse_tiles("1s1s1m2m3m4m5m6m7p8p5s5s2z"),
             parse_tiles("9p2s2s4s4s6s6s7s7s8s8s1z1z"), parse_tiles("5p5p6p6p3z3z4z4z5z5z6z6z1z")]
    first = arrange_wall(0, hands, indicator=t("8s"), draws=[t("3m")])

    def dealt(rules: Rules, count: int, *, rng: random.Random, auto_pass: bool) -> Match:
        return Match(rules, count, rng=rng, auto_pass=auto_pass, first_dealer=0,
                     walls=[first, arrange_wall(0, rng=random.Random(5))])

    monkeypatch.setattr(rl_game, "Match", dealt)
    env = rl.GymEnv("yuanhang", [_Script(DISCARDS[t("1s")]),
                                 _Script(PENGS[t("1s")], DISCARDS[t("2z")], WIN),
                                 _Script(DISCARDS[t("9p")])],
                    seat=3, match=True, hands=2, min_score_one_loser=0)
    obs, _ = env.reset(seed=0)
    match = env.game.match
    assert match is not None and len(match.history) == 1 and match.totals[3] < 0
    total, done = 0.0, False
    while not done:
        obs, reward, done, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        total += reward
    assert total == match.totals[3]


def test_weights_saved_under_a_name_load_from_that_name(tmp_path: Path) -> None:
    """``MLP.save("w")`` wrote ``w.npz`` (NumPy adds the suffix), and ``MLP.load("w")`` then
    found no file: ``bc_baseline.py --out mlp`` trained, said ``weights: mlp`` and failed
    in its arena."""
    net = MLP.create([OBS_SIZE, 8, NUM_ACTIONS], seed=1)
    for name in ("w", "w.npz", "w.weights"):
        net.save(str(tmp_path / name))
        back = MLP.load(str(tmp_path / name))
        assert all(np.array_equal(a, b) for a, b in zip(net.params, back.params, strict=True))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w", "w.npz", "w.weights"]
