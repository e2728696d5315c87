"""``bench/bots_eval.py report`` pools runs of the same bots on several seeds (a publication
seed's protocol may say so before its run): every deal stays a group of its own, and runs
of another kind, or a seed given twice, are refused with a one-line error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bots_eval.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=300)


def _play(out: Path, seed: int, profile: str = "yuanhang") -> None:
    done = _run("play", "--profile", profile, "--seed", str(seed), "--seats",
                "greedy,random,random,random", "--deals", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_two_seeds_pool_into_one_report_of_all_their_deals(tmp_path: Path) -> None:
    one, two, other = tmp_path / "one.jsonl", tmp_path / "two.jsonl", tmp_path / "other.jsonl"
    _play(one, 11)
    _play(two, 12)
    _play(other, 13, profile="bianfeng")
    alone = _run("report", str(one), "--markdown")
    assert alone.returncode == 0, alone.stderr
    assert alone.stdout.splitlines()[-1].endswith("| 8 | 2 |")  # hands, deals
    both = _run("report", str(one), str(two), "--markdown")
    assert both.returncode == 0, both.stderr
    lines = both.stdout.splitlines()
    assert lines[0] == "pooled: seeds 11, 12 (4 deals)"
    assert lines[-1].endswith("| 16 | 4 |")
    for bad, says in (([one, one], "pooled twice"), ([one, other], "another kind of run")):
        refused = _run("report", *map(str, bad))
        assert refused.returncode != 0 and says in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
