"""The research surfaces against hostile input: the environments' actions, seeds and call
order, the policy network's weights and views, the dataset files.  Bad input is a clear
error (or, for an action index, the documented illegal-index handling), never a crash
deep inside, a silent wrong move, or lost work."""

from __future__ import annotations

import copy
import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from wuhan_mahjong import rl
from wuhan_mahjong.bots.jsonl import BotProtocolError, serve
from wuhan_mahjong.cli import main
from wuhan_mahjong.engine.state import new_hand
from wuhan_mahjong.engine.views import seat_view
from wuhan_mahjong.rl import dataset
from wuhan_mahjong.rl.dataset_args import DatasetError
from wuhan_mahjong.rl.policy import MLP, NUM_ACTIONS, OBS_SIZE, MLPBot
from wuhan_mahjong.rules import get_rules

# ----------------------------------------------------------------------------- actions


def _discard_turn(env: rl.GymEnv) -> int:
    """Reset until the learner holds a turn where some discard index ``d`` is legal and
    ``d + 1`` is not a legal discard; return ``d``."""
    for seed in range(100):
        obs, _ = env.reset(seed=seed)
        mask = obs["action_mask"]
        for d in range(33):
            if mask[d] and not mask[d + 1]:
                return d
    raise AssertionError("no such turn")


@pytest.mark.parametrize("offset", [0.7, 0.2, 0.999])
def test_a_float_action_is_illegal_not_rounded(offset: float) -> None:
    """``int(3.7)`` is 3: a learner emitting float indices played actions it never chose
    (a legal discard), with no ``illegal`` flag."""
    env = rl.GymEnv("yuanhang", seat=0)
    d = _discard_turn(env)
    _, _, _, _, info = env.step(d + offset)
    assert info.get("illegal") is True
    d = _discard_turn(env)
    _, _, _, _, info = env.step(np.float32(d))  # even a whole float: not an index
    assert info.get("illegal") is True


@pytest.mark.parametrize("make", [str, lambda d: str(d).encode(), lambda d: f" {d} ",
                                  lambda d: True, lambda d: np.bool_(True), lambda d: None,
                                  lambda d: [d], lambda d: np.array([d]), lambda d: d + 0j,
                                  lambda d: float("nan"), lambda d: 10 ** 40, lambda d: -1])
def test_what_is_no_index_plays_the_default(make: Any) -> None:
    """``int("5")`` is 5: the string of a legal index was played as that index."""
    env = rl.GymEnv("yuanhang", seat=0)
    d = _discard_turn(env)
    _, _, _, _, info = env.step(make(d))
    assert info.get("illegal") is True


@pytest.mark.parametrize("kind", [int, np.int64, np.uint8, np.array])
def test_integer_indices_of_every_kind_are_played(kind: Any) -> None:
    env = rl.GymEnv("yuanhang", seat=0)
    d = _discard_turn(env)
    _, _, _, _, info = env.step(kind(d))
    assert "illegal" not in info


def test_an_idle_agent_waits_only_with_pass_itself() -> None:
    """An idle AEC agent's 113.5 was taken for pass (113), unflagged."""
    e = rl.raw_env("yuanhang", illegal_penalty=1.0)
    e.reset(seed=6)
    agent = e.agent_selection
    while e.game.deciding(rl.AGENTS.index(agent)):
        e.step(int(np.flatnonzero(e.observe(agent)["action_mask"])[0]))
        agent = e.agent_selection
    e.step(rl.spaces.PASS_INDEX + 0.5)
    assert e.infos[agent] == {"illegal": True}


# ----------------------------------------------------------------------------- seeds


@pytest.mark.parametrize("make", [
    lambda: rl.raw_env("yuanhang"), lambda: rl.parallel_env("yuanhang"),
    lambda: rl.GymEnv("yuanhang", seat=1),
])
def test_a_numpy_integer_seed_is_the_integer(make: Any) -> None:
    """``reset(seed=np.int64(5))`` (a seed drawn with NumPy) was a TypeError from
    ``random.Random`` (or Gymnasium's "must be a python integer")."""
    def first_obs(seed: Any) -> Any:
        env = make()
        out = env.reset(seed=seed)
        if out is None:  # AEC
            return env.observe(env.agent_selection)["observation"]
        obs = out[0]
        return obs["observation"] if "observation" in obs else obs["player_0"]["observation"]

    assert np.array_equal(first_obs(np.int64(5)), first_obs(5))
    assert np.array_equal(first_obs(np.uint32(7)), first_obs(7))


def test_the_vector_runner_takes_a_numpy_seed_and_refuses_nonsense() -> None:
    one = rl.SelfPlayVector(2, seed=np.int64(9)).reset()[0]
    two = rl.SelfPlayVector(2, seed=9).reset()[0]
    assert np.array_equal(one, two)
    with pytest.raises(ValueError, match=re.escape("seed must be an integer or None, got [1]")):
        rl.SelfPlayVector(1, seed=[1])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed must be an integer or None"):
        rl.raw_env("yuanhang").reset(seed={"a": 1})  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- call order


def test_the_raw_aec_env_says_to_reset_first() -> None:
    """Before reset (or once every agent is done) ``step`` was an AttributeError on
    ``agent_selection``."""
    e = rl.raw_env("yuanhang")
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        e.step(0)
    e.reset(seed=1)
    for _agent in e.agent_iter(max_iter=10_000):
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert not e.agents
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        e.step(0)


def test_the_gym_env_says_to_reset_first() -> None:
    """docs/rl.md: stepping before the first ``reset()`` is a RuntimeError that says to
    reset.  ``GymEnv.step`` played the learner's action on the unseeded hand the env was
    made with, then failed with a KeyError (no bots yet)."""
    g = rl.GymEnv("yuanhang", seat=0)
    before = copy.deepcopy(seat_view(g.game.state, None))
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        g.step(0)
    assert seat_view(g.game.state, None) == before


def test_an_unknown_agent_is_named() -> None:
    """``observe("player_9")`` said only ``tuple.index(x): x not in tuple``."""
    e = rl.raw_env("yuanhang")
    e.reset(seed=1)
    for call in (e.observe, e.observation_space, e.action_space):
        with pytest.raises(ValueError, match="unknown agent 'player_9' "
                                             r"\(agents: player_0, player_1, player_2, player_3\)"):
            call("player_9")
    assert e.observation_space(np.str_("player_1")) is e.observation_space("player_1")


def test_the_parallel_env_plays_nothing_after_the_episode() -> None:
    """After truncation (``agents`` empty) ``step`` went on playing the hand, unseen, and
    returned empty dicts; before reset it was a KeyError."""
    p = rl.parallel_env("yuanhang", max_cycles=2)
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        p.step({})
    obs, _ = p.reset(seed=1)
    while p.agents:
        obs, *_ = p.step({a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()})
    before = copy.deepcopy(seat_view(p.game.state, None))
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        p.step({a: rl.spaces.PASS_INDEX for a in rl.AGENTS})
    assert seat_view(p.game.state, None) == before


def test_the_parallel_env_wants_a_dict_of_actions() -> None:
    p = rl.parallel_env("yuanhang")
    p.reset(seed=1)
    for bad in ([1, 2, 3, 4], None, 5):
        with pytest.raises(TypeError, match="actions must be a dict of agent -> action index"):
            p.step(bad)  # type: ignore[arg-type]


def test_the_vector_runner_says_to_reset_first() -> None:
    """``step`` before ``reset`` played the unseeded hands the games were made with (so a
    run was not reproducible from its seed), without a word."""
    vec = rl.SelfPlayVector(2, seed=1)
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        vec.step([0, 0])
    assert vec.hands_done == 0 and vec.illegal == 0


@pytest.mark.parametrize(("actions", "got"), [
    (np.zeros((3, 1), dtype=np.int64), "shape (3, 1)"),
    (np.zeros((1, 3), dtype=np.int64), "shape (1, 3)"),
    (np.int64(3), "shape ()"),
    (3, "int"),
    ([1, 2], "2"),
])
def test_the_vector_runner_wants_one_action_per_row(actions: Any, got: str) -> None:
    """An ``(n, 1)`` array of actions (a network's output, unsqueezed) made every row's
    action an array: all illegal, every row played its default action, silently."""
    vec = rl.SelfPlayVector(3, seed=1)
    vec.reset()
    with pytest.raises(ValueError, match=re.escape(f"need 3 actions, one per row, got {got}")):
        vec.step(actions)
    assert vec.illegal == 0


# ----------------------------------------------------------------------------- the policy


def _weights(tmp_path: Path, name: str, **arrays: Any) -> str:
    path = tmp_path / name
    np.savez(path, **arrays)
    return str(path)


def test_damaged_weights_are_a_value_error_naming_the_file(tmp_path: Path) -> None:
    """A truncated or empty weights file was a BadZipFile / EOFError (a traceback from
    ``python -m wuhan_mahjong.rl.policy``, which caught only OSError, ValueError and
    KeyError); 1-D layers an IndexError; layers that do not chain, or NaN weights, were
    accepted (and the NaN network played illegal moves)."""
    good = tmp_path / "good.npz"
    MLP.create([OBS_SIZE, 8, NUM_ACTIONS]).save(str(good))
    raw = good.read_bytes()
    (tmp_path / "half.npz").write_bytes(raw[: len(raw) // 2])
    (tmp_path / "empty.npz").write_bytes(b"")
    (tmp_path / "text.npz").write_text("hello")
    np.save(tmp_path / "single.npy", np.zeros(3))
    cases = {
        str(tmp_path / "half.npz"): "not a weights file (.npz)",
        str(tmp_path / "empty.npz"): "not a weights file (.npz)",
        str(tmp_path / "text.npz"): "not a weights file (.npz)",
        str(tmp_path / "single.npy"): "not a weights file (.npz): a single array",
        _weights(tmp_path, "none.npz", x=np.zeros(2)): "no network",
        _weights(tmp_path, "flat.npz", p0=np.zeros(3), p1=np.zeros(3)): "layer 0 does not fit",
        _weights(tmp_path, "gap.npz", p0=np.zeros((OBS_SIZE, 8)), p1=np.zeros(8),
                 p2=np.zeros((9, NUM_ACTIONS)), p3=np.zeros(NUM_ACTIONS)):
            "layer 1 does not fit: weights (9, 114), bias (114,) after a layer of 8 units",
        _weights(tmp_path, "nan.npz", p0=np.full((OBS_SIZE, NUM_ACTIONS), np.nan),
                 p1=np.zeros(NUM_ACTIONS)): "layer 0 holds NaN or infinite weights",
        _weights(tmp_path, "text_weights.npz", p0=np.array([["a"]]), p1=np.array(["b"])):
            "not numbers",
    }
    for path, message in cases.items():
        with pytest.raises(ValueError, match=re.escape(message)) as e:
            MLP.load(path)
        assert path in str(e.value)
    from wuhan_mahjong.rl.policy import main as policy_main

    assert policy_main(["--weights", str(tmp_path / "half.npz")]) == 2


def _view() -> dict[str, Any]:
    return dict(seat_view(new_hand(get_rules(), 0, rng=random.Random(4)), 0))


@pytest.mark.parametrize(("field", "value"), [
    ("viewer", 1.5), ("viewer", 10 ** 30), ("viewer", -1), ("viewer", None), ("dealer", 0.5),
    ("hand", 5), ("laizi", 5), ("drawn", 3), ("options", 5), ("options", [1]), ("turn", 10 ** 30),
])
def test_the_policy_bot_refuses_a_malformed_view_in_one_line(field: str, value: Any) -> None:
    """The network's bot read the view without checking it: a float or huge seat number
    was an IndexError, a number where tiles belong an AttributeError (tracebacks from
    ``python -m wuhan_mahjong.rl.policy``), a spectator or seat -1 view was answered."""
    view = _view()
    view[field] = value
    bot = MLPBot(MLP.create([OBS_SIZE, 8, NUM_ACTIONS]))
    with pytest.raises(BotProtocolError, match="line 1: cannot decide: "):
        serve(bot, io.StringIO(json.dumps(view) + "\n"), io.StringIO())


def test_a_network_of_nan_outputs_never_answers_an_illegal_action() -> None:
    net = MLP.create([OBS_SIZE, 8, NUM_ACTIONS])
    net.params[0][:] = np.nan
    with pytest.raises(ValueError, match="scores no legal action"):
        MLPBot(net).choose(_view())  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- datasets


def test_a_damaged_dataset_file_is_a_dataset_error(tmp_path: Path) -> None:
    """``dataset.load`` of a truncated file was a BadZipFile, of an empty one an EOFError,
    of an .npz without the arrays a KeyError."""
    good = tmp_path / "d.npz"
    np.savez_compressed(good, **dataset.generate(hands=1, policy="random"))  # type: ignore[arg-type]
    assert dataset.load(str(good))["meta"]["hands"] == 1
    raw = good.read_bytes()
    (tmp_path / "half.npz").write_bytes(raw[: len(raw) // 2])
    (tmp_path / "empty.npz").write_bytes(b"")
    np.savez(tmp_path / "other.npz", obs=np.zeros(3))
    # a member whose bytes are damaged, in a zip that still opens
    with zipfile.ZipFile(good) as z:
        info = z.getinfo("action.npy")
    damaged = bytearray(raw)
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for i in range(start, start + info.compress_size):
        damaged[i] ^= 0x55
    (tmp_path / "damaged.npz").write_bytes(bytes(damaged))
    for name, message in [("half.npz", "not a dataset file (.npz)"),
                          ("empty.npz", "not a dataset file (.npz)"),
                          ("other.npz", "not a dataset file: no mask, action"),
                          ("damaged.npz", "a damaged dataset file")]:
        with pytest.raises(DatasetError, match=re.escape(message)):
            dataset.load(str(tmp_path / name))


def test_an_output_that_is_a_directory_is_refused_before_any_hand_is_played(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``--out`` naming a directory failed only at the very end, when the file was moved
    in place: every hand played (hours, for a large file) was lost."""
    played: list[int] = []
    real = dataset.play_hand_rows

    def counting(*args: Any, **kwargs: Any) -> Any:
        played.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(dataset, "play_hand_rows", counting)
    out = tmp_path / "d.npz"
    out.mkdir()
    assert main(["dataset", "--hands", "2", "--policy", "random", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"wuhan-mahjong: error: cannot write {out}: it is a directory"]
    assert played == [] and sorted(p.name for p in tmp_path.iterdir()) == ["d.npz"]


# ----------------------------------------------------------------------------- settings


def test_numpy_rule_options_are_the_numbers_they_hold() -> None:
    """``GymEnv(cap=np.int64(100))`` was refused: "option 'cap' must be a non-negative
    integer, at most 10000; got np.int64(100)"."""
    games = [make(cap=np.int64(100), direct_kong_opens=np.bool_(False)).game
             for make in (rl.GymEnv, rl.raw_env, rl.parallel_env)]
    games.append(rl.SelfPlayVector(1, cap=np.int64(100), direct_kong_opens=np.bool_(False)).games[0])
    for game in games:
        assert game.rules.cap == 100 and game.rules.direct_kong_opens is False


@pytest.mark.parametrize("profile", [["yuanhang"], {"a": 1}, None, 3])
def test_a_profile_that_is_no_name_is_an_unknown_profile(profile: Any) -> None:
    """A list or dict was ``TypeError: unhashable type``."""
    with pytest.raises(ValueError, match=r"unknown profile .* \(choose from bianfeng"):
        rl.GymEnv(profile)


def test_a_dataset_of_numpy_counts_is_written_not_lost() -> None:
    """``generate(hands=np.int64(2), seed=np.int64(3))`` played every hand and then failed
    on the meta ("Object of type int64 is not JSON serializable"): the work lost."""
    a = dataset.generate(hands=np.int64(2), seed=np.int64(3), policy="random",
                         options={"cap": np.int64(100)})
    b = dataset.generate(hands=2, seed=3, policy="random", options={"cap": 100})
    assert set(a) == set(b) and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"hands": 2.5}, "--hands must be a whole number, got 2.5"),
    ({"hands": True}, "--hands must be a whole number, got True"),
    ({"hands": "2"}, "--hands must be a whole number, got '2'"),
    ({"hands": 1, "seed": 1.5}, "--seed must be a whole number, got 1.5"),
    ({"hands": 1, "profile": ["yuanhang"]}, "unknown profile ['yuanhang']"),
])
def test_bad_dataset_arguments_are_a_dataset_error(kwargs: dict[str, Any], message: str) -> None:
    """They were TypeErrors from deep inside (``'<' not supported``, ``unhashable type``)."""
    with pytest.raises(DatasetError, match=re.escape(message)):
        dataset.generate(policy="random", **kwargs)


@pytest.mark.parametrize("index", [3.7, 3.0, np.float64(3), "3", True, None])
def test_index_action_refuses_what_is_no_integer(index: Any) -> None:
    """``rl.index_action(3.7)`` was discard 3m (``int(3.7)``), ``"3"`` too."""
    with pytest.raises(ValueError, match="is no integer"):
        rl.index_action(index)
    assert rl.index_action(np.int16(3)) == rl.index_action(3)


def test_a_terminated_dataset_run_leaves_no_partial_file(tmp_path: Path) -> None:
    """``kill`` (SIGTERM) ended the process at once: the raw planes file beside the output
    (0.45 MB a hand) stayed, against the promise that a killed run leaves no half file.
    It now ends as an exception does, the partial files removed, exit status 143."""
    out = tmp_path / "d.npz"
    proc = subprocess.Popen([sys.executable, "-m", "wuhan_mahjong", "dataset", "--hands", "20000",
                             "--policy", "random", "--out", str(out), "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    planes = tmp_path / "d.npz.part.obs"
    deadline = time.monotonic() + 300  # a safety net only: the first hand is written at once
    while not (planes.exists() and planes.stat().st_size > 0):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 128 + signal.SIGTERM and b"Traceback" not in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("make", [
    lambda seed: rl.raw_env("yuanhang").reset(seed=seed),
    lambda seed: rl.parallel_env("yuanhang").reset(seed=seed),
    lambda seed: rl.SelfPlayVector(1, seed=seed),
])
def test_a_negative_seed_is_refused_not_the_positive_one(make: Any) -> None:
    """``random.Random(-1)`` is ``Random(1)``: seeds -1 and 1 dealt the same episodes, so a
    sweep over both counted each deal twice, unseen (Gymnasium refuses a negative seed)."""
    with pytest.raises(ValueError, match=re.escape("seed must be at least 0 (Random(-n) is "
                                                   "Random(n)), got -1")):
        make(-1)
    with pytest.raises(ValueError, match="seed must be at least 0"):
        make(np.int64(-7))
    make(0)


def test_an_output_name_of_bytes_that_are_no_utf8_is_written_and_shown(tmp_path: Path) -> None:
    """``--out`` naming a file in bytes that are no UTF-8 (a Latin-1 name): the file was
    written, then printing its name on a strict UTF-8 standard output was a
    UnicodeEncodeError traceback, exit 1."""
    out = os.path.join(os.fsencode(tmp_path), b"caf\xe9.npz")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    r = subprocess.run([sys.executable.encode(), b"-m", b"wuhan_mahjong", b"dataset", b"--hands",
                        b"1", b"--policy", b"random", b"--out", out], capture_output=True,
                       env=env, timeout=300)
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    assert r.stdout.decode().startswith(f"{os.fsdecode(tmp_path)}/caf\\udce9.npz: ")
    assert os.listdir(os.fsencode(tmp_path)) == [b"caf\xe9.npz"]


def test_an_interrupted_dataset_module_run_exits_130_without_a_traceback(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) on ``python -m wuhan_mahjong.rl.dataset`` was a KeyboardInterrupt
    traceback (``wuhan-mahjong dataset`` exits 130); the partial files are removed."""
    out = tmp_path / "d.npz"
    proc = subprocess.Popen([sys.executable, "-m", "wuhan_mahjong.rl.dataset", "--hands", "20000",
                             "--policy", "random", "--out", str(out), "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    planes = tmp_path / "d.npz.part.obs"
    deadline = time.monotonic() + 300  # a safety net only: the first hand is written at once
    while not (planes.exists() and planes.stat().st_size > 0):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 130 and b"Traceback" not in err, err
    assert list(tmp_path.iterdir()) == []
