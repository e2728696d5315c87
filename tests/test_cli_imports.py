"""The CLI imports only what a command needs (issue 14: a fast CLI, a light core).

Each check runs the command in a new interpreter and looks at ``sys.modules``
afterwards; the last tests hide the server stack's packages altogether, as in a
plain ``pip install wuhan-mahjong`` without extras.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import wuhan_mahjong

SERVER_STACK = ("starlette", "pydantic", "pydantic_core", "pydantic_settings", "sqlalchemy", "alembic",
                "uvicorn", "psycopg", "orjson", "argon2", "websockets", "redis", "anyio", "httpx")
"""Third-party packages of the [server], [postgres] and [redis] extras (and theirs)."""

HEAVY_LAYERS = ("wuhan_mahjong.server.app", "wuhan_mahjong.store", "wuhan_mahjong.bots",
                "wuhan_mahjong.engine.match", "wuhan_mahjong.rl")
"""Layers above the rules core that the core commands must not load."""

SAMPLE = {
    "dealer": 0, "indicator": "9p", "winner": 1, "win_by": "discard", "from": 2,
    "winning_tile": "5m",
    "seats": [{}, {"hand": "456p678s5m", "melds": [{"type": "chi", "tiles": "234m", "from": 0},
                                                   {"type": "peng", "tiles": "777s", "from": 3}]},
              {"melds": [{"type": "kong", "kind": "direct", "tiles": "8888p", "from": 0}],
               "kongs": {"red": 1}, "laizi_discards": 1}, {}],
}
HAND = ["hand", "456p678s5m", "--indicator", "9p", "--meld", "chi:234m", "--meld", "peng:777s"]

PROBE = """
import json, os, sys
blocked = set(json.loads(os.environ["PROBE_BLOCK"]))
if blocked:
    import importlib.abc

    class Missing(importlib.abc.MetaPathFinder):
        '''Behave as if these distributions were not installed.'''

        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in blocked:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Missing())
from wuhan_mahjong.cli import main
try:
    code = main(json.loads(os.environ["PROBE_ARGV"]))
except SystemExit as e:
    code = e.code
with open(os.environ["PROBE_OUT"], "w") as f:
    json.dump(sorted(sys.modules), f)
sys.exit(code)
"""


def run(tmp_path: Path, argv: list[str], block: tuple[str, ...] = (),
        stdin: str = "") -> tuple[subprocess.CompletedProcess[str], set[str]]:
    out = tmp_path / "modules.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("WUHAN_MAHJONG_")}
    env.update(PROBE_ARGV=json.dumps(argv), PROBE_OUT=str(out), PROBE_BLOCK=json.dumps(block))
    p = subprocess.run([sys.executable, "-c", PROBE], input=stdin, capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=120)
    modules = set(json.loads(out.read_text())) if out.exists() else set()
    return p, modules


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.mark.parametrize("argv", [
    ["--help"], ["rules"], ["rules", "bianfeng", "--json"], ["score"], HAND, ["hand", "--help"],
    ["score", "--help"], ["--version"],
], ids=lambda a: " ".join(a))
def test_core_commands_never_import_the_server_stack(tmp_path: Path, argv: list[str]) -> None:
    p, modules = run(tmp_path, argv, stdin=json.dumps(SAMPLE))
    assert p.returncode == 0, p.stderr
    assert "wuhan_mahjong.cli" in modules  # the probe did run the CLI
    assert loaded(modules, SERVER_STACK) == []
    assert loaded(modules, HEAVY_LAYERS) == []


def test_score_loads_the_scoring_not_the_engine(tmp_path: Path) -> None:
    """The check above cannot pass vacuously: ``score`` loads what it needs."""
    p, modules = run(tmp_path, ["score"], stdin=json.dumps(SAMPLE))
    assert p.returncode == 0 and '"deltas"' in p.stdout
    assert {"wuhan_mahjong.scoring", "wuhan_mahjong.win_record"} <= modules
    assert "wuhan_mahjong.cli.serve" not in modules and "wuhan_mahjong.cli.engine" not in modules


def test_serve_help_needs_no_server_stack(tmp_path: Path) -> None:
    p, modules = run(tmp_path, ["serve", "--help"], block=SERVER_STACK)
    assert p.returncode == 0 and "--claim-hold" in p.stdout and "WUHAN_MAHJONG_PORT" in p.stdout
    assert loaded(modules, SERVER_STACK) == []


def test_version_is_the_package_version(tmp_path: Path) -> None:
    from importlib.metadata import version

    p, _ = run(tmp_path, ["--version"])
    assert p.returncode == 0
    assert p.stdout.strip() == f"wuhan-mahjong {wuhan_mahjong.__version__}"
    assert version("wuhan-mahjong") == wuhan_mahjong.__version__


def test_every_non_server_command_works_without_the_extras(tmp_path: Path) -> None:
    """As in an install without extras: the server stack cannot be imported at all."""
    p, _ = run(tmp_path, ["score"], block=SERVER_STACK, stdin=json.dumps(SAMPLE))
    assert p.returncode == 0 and json.loads(p.stdout)["deltas"] == [-16, 280, -256, -8]
    p, _ = run(tmp_path, HAND, block=SERVER_STACK)
    assert p.returncode == 0 and "5m" in p.stdout
    p, _ = run(tmp_path, ["rules", "laizishanzhuang"], block=SERVER_STACK)
    assert p.returncode == 0 and "laizishanzhuang" in p.stdout
    records = tmp_path / "hands.jsonl"
    p, _ = run(tmp_path, ["simulate", "--hands", "2", "--seed", "5", "--records", str(records)],
                     block=SERVER_STACK)
    assert p.returncode == 0 and "2 hands" in p.stdout, p.stderr
    p, _ = run(tmp_path, ["verify", str(records)], block=SERVER_STACK)
    assert p.returncode == 0 and p.stdout.count("ok: hand") == 2, p.stderr
    p, _ = run(tmp_path, ["replay", str(records)], block=SERVER_STACK)
    assert p.returncode == 0 and p.stdout


def test_serve_without_the_server_extra_says_what_to_install(tmp_path: Path) -> None:
    p, _ = run(tmp_path, ["serve", "--port", "0"], block=SERVER_STACK)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    [line] = p.stderr.strip().splitlines()
    assert re.fullmatch(r"wuhan-mahjong: error: serve needs the server extra \((pydantic\w*) is not "
                        r"installed\): pip install 'wuhan-mahjong\[server\]'", line), line


def test_hand_of_the_wrong_size_is_a_library_error_and_exit_2(tmp_path: Path) -> None:
    from wuhan_mahjong.handinfo import HandInputError, hand_report
    from wuhan_mahjong.rules import get_rules

    with pytest.raises(HandInputError, match="wrong hand size"):
        hand_report("123m", "1m", [], get_rules("yuanhang"))
    assert not issubclass(HandInputError, __import__("wuhan_mahjong.cli").cli.UsageError)
    p, _ = run(tmp_path, ["hand", "123m", "--indicator", "1m"])
    assert p.returncode == 2
    assert p.stderr.strip().splitlines()[-1].startswith("wuhan-mahjong: error: wrong hand size")


@pytest.mark.parametrize("argv", [
    ["nonsense"], [], ["score", "--bogus"], ["hand", "123m"], ["serve", "--port"],
    ["simulate", "--hands", "many"], ["rules", "tokyo"],
], ids=lambda a: " ".join(a) or "(none)")
def test_bad_arguments_are_one_line_and_exit_2(tmp_path: Path, argv: list[str]) -> None:
    p, _ = run(tmp_path, argv)
    assert p.returncode == 2
    [line] = p.stderr.strip().splitlines()
    assert line.startswith("wuhan-mahjong: error: ") and line.endswith("--help')"), line
