"""The arena (duplicate deals, statistics, determinism), the JSON-lines mode as a real
subprocess, and the command line."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.bots import _REGISTRY, bot_names, get_bot
from wuhan_mahjong.bots.arena import ci95, deal, parse_seats, percentile, run_arena
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.jsonl import SubprocessBot
from wuhan_mahjong.engine import action_from_json, new_hand, seat_view
from wuhan_mahjong.rules import get_rules

BOT_CMD = f"{sys.executable} -m wuhan_mahjong bot --policy greedy --jsonl --seed 3"


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wuhan_mahjong", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def _strip_times(j: dict) -> dict:  # type: ignore[type-arg]
    j = dict(j)
    for k in ("seconds", "hands_per_second", "cpu_seconds", "hands_per_cpu_second"):
        j.pop(k)
    j["policies"] = {k: {f: v for f, v in p.items() if not f.startswith("decision_ms")}
                     for k, p in j["policies"].items()}
    return j


def test_registry() -> None:
    assert {"random", "greedy", "expert"} <= set(bot_names())
    assert get_bot("greedy").name == "greedy"
    with pytest.raises(ValueError, match="unknown bot"):
        get_bot("nobody")


@pytest.mark.slow
def test_same_seed_same_games(monkeypatch: pytest.MonkeyPatch) -> None:
    # the expert with small work budgets: its decisions depend on the seed and the
    # view only (no wall-clock cap), and the test stays quick on a busy machine
    monkeypatch.setitem(_REGISTRY, "expert",
                        lambda seed: ExpertBot(seed, samples=30, lookahead_work=60))
    rules = get_rules("bianfeng")
    a = run_arena(rules, ["greedy", "random", "expert", "greedy"], 8, seed=11)
    b = run_arena(rules, ["greedy", "random", "expert", "greedy"], 8, seed=11)
    c = run_arena(rules, ["greedy", "random", "expert", "greedy"], 8, seed=12)
    assert _strip_times(a.to_json()) == _strip_times(b.to_json())
    assert _strip_times(a.to_json()) != _strip_times(c.to_json())


def test_duplicate_groups_share_the_wall_and_rotate_seats() -> None:
    rules = get_rules("yuanhang")
    wall1, salt1 = deal(3, 5)
    wall2, salt2 = deal(3, 5)
    assert wall1 == wall2 and salt1 == salt2 and deal(3, 6)[0] != wall1
    from wuhan_mahjong.bots.arena import BotPool, play_group

    pool = BotPool()
    hands = play_group(rules, ["greedy", "random", "random", "random"], 3, 5, pool)
    assert [h.policies.index("greedy") for h in hands] == [0, 3, 2, 1]
    assert all(sum(h.deltas) == 0 for h in hands)


def test_report_statistics() -> None:
    rules = get_rules("laizishanzhuang")
    rep = run_arena(rules, ["greedy", "random", "random", "random"], 40, seed=2)
    j = rep.to_json()
    assert j["hands"] == 40 and j["groups"] == 10
    g, r = j["policies"]["greedy"], j["policies"]["random"]
    assert g["hands"] == 40 and r["hands"] == 120
    assert g["mean_points"] * 40 + r["mean_points"] * 120 == pytest.approx(0, abs=1e-6)
    lo, hi = g["ci95"]
    assert lo <= g["mean_points"] <= hi
    assert 0 <= g["win_rate"] <= 1 and g["decision_ms_p99"] >= g["decision_ms_p50"] > 0
    d = j["differences"]["greedy - random"]
    assert d["mean"] == pytest.approx(g["mean_points"] - r["mean_points"])
    assert "greedy" in rep.text()


def test_ci_and_percentile_helpers() -> None:
    assert ci95([1.0, 1.0, 1.0]) == (1.0, 0.0)
    mean, hw = ci95([0.0, 2.0])
    assert mean == 1.0 and hw == pytest.approx(1.96)
    assert percentile([3, 1, 2, 4], 50) == 2 and percentile([], 99) == 0.0
    with pytest.raises(ValueError):
        parse_seats("greedy,greedy")


def test_jsonl_bot_as_a_real_subprocess() -> None:
    """A hand where two seats are played by an external process over JSON lines."""
    rules = get_rules("yuanhang")
    ext = SubprocessBot(BOT_CMD)
    try:
        same = get_bot("greedy", 3)
        for h in range(3):
            state = new_hand(rules, 0, rng=random.Random(h), auto_pass=True)
            local = get_bot("random", h)
            while not state.ended:
                s = state.to_act()[0]
                view = seat_view(state, s)
                if s in (0, 2):
                    action = ext.choose(view)
                    assert action == same.choose(view)  # the same policy, in or out of process
                else:
                    action = local.choose(view)
                assert action in state.legal_actions(s)
                state.apply(s, action)
    finally:
        ext.close()
    assert ext.proc.returncode == 0


def test_jsonl_errors_are_one_line_exit_2() -> None:
    r = cli("bot", "--policy", "greedy", "--jsonl", stdin="{not json\n")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "not JSON" in r.stderr
    r = cli("bot", "--policy", "greedy", "--jsonl", stdin='{"a": 1}\n')
    assert r.returncode == 2 and "not a seat view" in r.stderr
    r = cli("bot", "--policy", "nobody", "--jsonl", stdin="")
    assert r.returncode == 2 and "unknown bot" in r.stderr


def test_bot_single_view_and_jsonl_lines() -> None:
    state = new_hand(get_rules(), 0, rng=random.Random(4))
    view = seat_view(state, 0)
    r = cli("bot", "--policy", "greedy", stdin=json.dumps(view))
    assert r.returncode == 0, r.stderr
    assert action_from_json(json.loads(r.stdout)) in state.legal_actions(0)
    r = cli("bot", "--policy", "expert", "--jsonl", stdin=json.dumps(view) + "\n\n"
            + json.dumps(view) + "\n")
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and len(lines) == 2 and lines[0] == lines[1]


def test_arena_command_with_an_external_seat() -> None:
    r = cli("arena", "--seats", f"cmd:{BOT_CMD},greedy,random,random", "--hands", "4",
            "--seed", "3", "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["hands"] == 4 and f"cmd:{BOT_CMD}" in j["policies"]
    assert r.stderr == ""  # no progress bar when stderr is not a terminal


def test_arena_command_errors() -> None:
    r = cli("arena", "--seats", "greedy,greedy,greedy")
    assert r.returncode == 2 and "four" in r.stderr
    r = cli("arena", "--seats", "greedy,greedy,greedy,nobody")
    assert r.returncode == 2 and "unknown policy" in r.stderr
    r = cli("arena", "--hands", "0")
    assert r.returncode == 2
    r = cli("arena", "--seats", "cmd:false,greedy,greedy,greedy", "--hands", "4")
    assert r.returncode == 2 and "bot 'false'" in r.stderr
    # a bot that echoes its view: the error quotes the start of the answer, not all of it
    r = cli("arena", "--seats", "cmd:cat,greedy,greedy,greedy", "--hands", "4")
    [line] = r.stderr.strip().splitlines()
    assert r.returncode == 2 and "bot 'cat' answered" in line and len(line) < 200, line
    # a bot whose answer never ends: it was read whole, until the memory ran out
    r = cli("arena", "--seats", "cmd:cat /dev/zero,greedy,greedy,greedy", "--hands", "4")
    [line] = r.stderr.strip().splitlines()
    assert r.returncode == 2 and line == ("wuhan-mahjong: error: bot 'cat /dev/zero' answered "
                                          "a line longer than 1,000,000 characters"), line


@pytest.mark.parametrize(("script", "message"), [
    # reads its view, then leaves: the error gives the exit status (it said "status None")
    ("import sys; sys.stdin.readline(); sys.exit(3)",
     "closed its output and exited with status 3"),
    ("import os, signal, sys; sys.stdin.readline(); os.kill(os.getpid(), signal.SIGKILL)",
     "closed its output and was killed by signal 9"),
    # an answer that is no UTF-8: it was a UnicodeDecodeError without the bot's name
    ("import sys; sys.stdin.readline(); sys.stdout.buffer.write(b'\\xff\\xfe\\n'); "
     "sys.stdout.flush(); sys.stdin.readline()",
     "answered bytes that are not UTF-8 (byte 0xff)"),
])
def test_an_external_bot_that_fails_is_named_with_how(tmp_path: Path, script: str,
                                                      message: str) -> None:
    path = tmp_path / "bot.py"
    path.write_text(script + "\n")
    command = f"{sys.executable} {path}"
    r = cli("arena", "--seats", f"cmd:{command},greedy,greedy,greedy", "--hands", "4")
    [line] = r.stderr.strip().splitlines()
    assert r.returncode == 2 and line == f"wuhan-mahjong: error: bot '{command}' {message}", line


def test_an_external_bot_that_hangs_ends_the_run(tmp_path: Path) -> None:
    """A bot that reads its view and never answers stalled the arena for good, without a
    word; past ``--bot-timeout`` the run stops and names it.  0 switches the net off."""
    path = tmp_path / "bot.py"
    path.write_text("import sys, time\nsys.stdin.readline()\ntime.sleep(600)\n")
    command = f"{sys.executable} {path}"
    r = cli("arena", "--seats", f"cmd:{command},greedy,greedy,greedy", "--hands", "4",
            "--bot-timeout", "1")
    [line] = r.stderr.strip().splitlines()
    assert r.returncode == 2 and line == f"wuhan-mahjong: error: bot '{command}' gave no answer in 1 s"
    for bad in ("-1", "nan", "inf"):
        r = cli("arena", "--seats", "greedy,greedy,greedy,greedy", "--hands", "4",
                "--bot-timeout", bad)
        assert r.returncode == 2 and "--bot-timeout must be" in r.stderr, r.stderr


def test_arena_progress_and_text() -> None:
    r = cli("arena", "--seats", "greedy,random,random,random", "--hands", "4", "--progress",
            "--profile", "laizishanzhuang")
    assert r.returncode == 0
    assert "4/4 hands" in r.stderr and "points/hand" in r.stdout


def test_permuted_arrangements_balance_every_seat() -> None:
    from collections import Counter

    from wuhan_mahjong.bots.arena import arrangements

    assert len(arrangements(["a", "b", "b", "b"], permute=True)) == 4
    assert len(arrangements(["a", "b", "c", "c"], permute=True)) == 12
    assert len(arrangements(["a", "a", "b", "b"], permute=True)) == 6
    assert len(arrangements(["a", "b", "c", "d"], permute=True)) == 24
    arrs = arrangements(["a", "b", "c", "c"], permute=True)
    # every policy holds every seat equally often, and a and b sit next to each other
    # on both sides (rotations of a,b,c,c only ever seat b right after a)
    for p, n in (("a", 3), ("b", 3), ("c", 6)):
        assert all(Counter(arr[i] for arr in arrs)[p] == n for i in range(4))
    after_a = Counter(arr[(arr.index("a") + 1) % 4] for arr in arrs)
    assert after_a["b"] == 4 and after_a["c"] == 8
    rot = arrangements(["a", "b", "c", "c"])
    assert {arr[(arr.index("a") + 1) % 4] for arr in rot} == {"b"}


def test_permuted_arena_plays_whole_groups_and_reports_cpu_time() -> None:
    rules = get_rules("yuanhang")
    rep = run_arena(rules, ["greedy", "random", "greedy", "random"], 7, seed=4, permute=True)
    j = rep.to_json()
    assert j["hands"] == 12 and j["groups"] == 2 and j["arrangements"] == "permutations"
    assert j["policies"]["greedy"]["hands"] == j["policies"]["random"]["hands"] == 24
    assert j["cpu_seconds"] > 0 and j["hands_per_cpu_second"] > 0
    assert "6 permutations" in rep.text()


@pytest.mark.slow
def test_worker_processes_play_the_same_games() -> None:
    rules = get_rules("laizishanzhuang")
    seats = ["greedy", "random", "greedy", "expert"]
    one = run_arena(rules, seats, 24, 3, permute=True)
    two = run_arena(rules, seats, 24, 3, permute=True, jobs=2)
    assert _strip_times(one.to_json()) == _strip_times(two.to_json())
    assert two.cpu_seconds > 0  # the workers' CPU time is counted


def test_the_json_report_of_one_deal_is_strict_json() -> None:
    """One deal gives no interval (a single group score): the ``--json`` report held
    ``-Infinity`` and ``Infinity``, which are no JSON (JavaScript's parser and ``jq``
    refuse them).  The unbounded interval is ``[null, null]``; the text still says inf."""
    def no_constants(name: str) -> Any:
        raise AssertionError(f"{name} is no JSON")

    r = cli("arena", "--seats", "greedy,random,random,random", "--hands", "4", "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout, parse_constant=no_constants)
    assert j["policies"]["greedy"]["ci95"] == [None, None]
    assert j["differences"]["greedy - random"]["ci95"] == [None, None]
    assert j["differences"]["greedy - random"]["excludes_zero"] is False
    r = cli("arena", "--seats", "greedy,random,random,random", "--hands", "4")
    assert "[   -inf,     inf]" in r.stdout and "95% CI [-inf, +inf]" in r.stdout


def test_the_text_report_shows_a_seat_named_in_bytes_that_are_no_utf8(tmp_path: Path) -> None:
    """A ``cmd:`` seat whose path holds a byte that is no UTF-8 (a Latin-1 file name): the
    hands were all played, then printing the report on a strict UTF-8 standard output was
    a UnicodeEncodeError traceback, exit 1, the run lost.  It is shown escaped, as
    standard error shows it."""
    bot = os.path.join(os.fsencode(tmp_path), b"b\xe9.py")
    with open(bot, "w") as f:
        f.write("import json, sys\nfor line in sys.stdin:\n"
                "    print(json.dumps(json.loads(line)['legal_actions'][0]), flush=True)\n")
    seats = b"cmd:" + sys.executable.encode() + b" " + bot + b",greedy,greedy,greedy"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    r = subprocess.run([sys.executable.encode(), b"-m", b"wuhan_mahjong", b"arena", b"--seats",
                        seats, b"--hands", b"4"], capture_output=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert b"b\\udce9.py - greedy" in r.stdout
