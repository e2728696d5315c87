"""``wuhan-mahjong dataset``: the arrays, reproducibility from the seed, errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from wuhan_mahjong.cli import main
from wuhan_mahjong.rl import dataset, spaces


def test_cli_writes_a_reproducible_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b, c = (str(tmp_path / n) for n in ("a.npz", "b.npz", "c.npz"))
    assert main(["dataset", "--profile", "bianfeng", "--hands", "4", "--policy", "greedy",
                 "--seed", "5", "--out", a]) == 0
    assert "decisions from 4 hands" in capsys.readouterr().out
    assert main(["dataset", "--profile", "bianfeng", "--hands", "4", "--policy", "greedy",
                 "--seed", "5", "--out", b, "--progress"]) == 0
    assert "4/4 hands" in capsys.readouterr().err
    assert main(["dataset", "--profile", "bianfeng", "--hands", "4", "--policy", "greedy",
                 "--seed", "6", "--out", c]) == 0
    da, db, dc = dataset.load(a), dataset.load(b), dataset.load(c)
    for k in ("obs", "mask", "action", "seat", "hand", "reward", "deltas", "dealer"):
        assert np.array_equal(da[k], db[k]), k
    assert not np.array_equal(da["deltas"], dc["deltas"]) or not np.array_equal(da["action"], dc["action"])
    assert da["meta"]["profile"] == "bianfeng" and da["meta"]["seed"] == 5
    assert da["meta"]["policy"] == "greedy" and da["meta"]["hands"] == 4


def test_the_file_holds_what_generate_returns(tmp_path: Path) -> None:
    """The command writes the planes to disk as the hands are played and compresses them
    from there; the file is what :func:`dataset.generate` builds in memory, and nothing
    is left beside it."""
    out = tmp_path / "d.npz"
    assert main(["dataset", "--profile", "yuanhang", "--hands", "3", "--policy", "greedy",
                 "--seed", "4", "--out", str(out)]) == 0
    built = dataset.generate("yuanhang", 3, "greedy", seed=4)
    with np.load(out) as stored:
        assert sorted(stored.files) == sorted(built)
        for k in built:
            assert stored[k].dtype == built[k].dtype and np.array_equal(stored[k], built[k]), k
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.npz"]


def test_arrays_are_consistent() -> None:
    d = dataset.generate("laizishanzhuang", 3, "greedy", seed=2)
    n = len(d["action"])
    assert n > 30
    assert d["obs"].shape == (n, *spaces.OBS_SHAPE) and d["mask"].shape == (n, spaces.NUM_ACTIONS)
    assert d["mask"][np.arange(n), d["action"]].all()  # every chosen action was legal
    assert (d["mask"].sum(axis=1) >= 2).all()  # only real choices by default
    assert (d["deltas"].sum(axis=1) == 0).all()
    assert np.array_equal(d["reward"], d["deltas"][d["hand"], d["seat"]].astype(np.float32))
    assert list(d["planes"]) == list(spaces.PLANES)
    assert json.loads(str(d["meta"]))["format"] == "wuhan-mahjong/dataset"
    # a hand of the dataset is regenerated alone, identically
    rows, deltas, _ = dataset.play_hand_rows("laizishanzhuang", {}, "greedy", 2, 1)
    assert tuple(d["deltas"][1]) == deltas
    assert [r[2] for r in rows] == d["action"][d["hand"] == 1].tolist()
    everything = dataset.generate("laizishanzhuang", 3, "greedy", seed=2, all_decisions=True)
    assert len(everything["action"]) >= n


@pytest.mark.slow
def test_expert_policy_dataset() -> None:
    d = dataset.generate("yuanhang", 1, "expert", seed=0)
    assert len(d["action"]) > 10 and d["mask"][np.arange(len(d["action"])), d["action"]].all()


@pytest.mark.parametrize("argv, message", [
    (["--hands", "2", "--policy", "nobody"], "unknown bot 'nobody'"),
    (["--hands", "0"], "--hands must be at least 1"),
    # a huge count used to end in a numpy traceback (an array of that many hands)
    (["--hands", "99999999999999999999"], "--hands must be at most 100,000 per file"),
    (["--hands", "100001"], "--hands must be at most 100,000 per file"),
    (["--hands", "2", "--option", "cap=-5"], "cap"),
    (["--hands", "2", "--option", "nonsense"], "NAME=VALUE"),
])
def test_bad_arguments_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           argv: list[str], message: str) -> None:
    out = tmp_path / "x.npz"
    assert main(["dataset", "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "Traceback" not in err[0]
    assert not out.exists() and not list(tmp_path.iterdir())  # no planes file left either


def test_unwritable_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dataset", "--hands", "1", "--policy", "random", "--out",
                 str(tmp_path / "no" / "d.npz")]) == 2
    assert "no such directory" in capsys.readouterr().err
    assert main(["dataset", "--hands", "1", "--policy", "random", "--out", str(tmp_path / "d.csv")]) == 2
    assert dataset.main(["--hands", "1", "--policy", "random", "--out", str(tmp_path / "d.csv")]) == 2


def test_without_the_rl_extra_the_command_says_so(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = ("import sys\nsys.modules['numpy'] = None\n"
            "from wuhan_mahjong.cli import main\n"
            f"sys.exit(main(['dataset', '--hands', '1', '--out', {str(tmp_path / 'd.npz')!r}]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "wuhan-mahjong: error: the dataset command needs the rl extra (numpy is not installed): "
        "pip install 'wuhan-mahjong[rl]'"]
