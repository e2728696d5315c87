"""What README.md and docs/*.md promise, checked as a reader would follow it.

Each test names the doc it keeps honest and reads the doc's own text where it can
(a table, a snippet), so that it follows the doc when the doc changes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

SERVER_EXTRA_MODULES = ("sqlalchemy", "alembic", "argon2", "zxcvbn", "precis_i18n",
                        "confusable_homoglyphs", "starlette", "uvicorn", "pydantic",
                        "pydantic_settings", "websockets", "orjson", "openskill",
                        "prometheus_client", "psycopg", "redis")
"""The import names of the ``server`` extra (pyproject.toml), hidden to play a core-only
install (``pip install wuhan-mahjong``) inside the test environment."""


def _admin_actions() -> list[list[str]]:
    """Every ``admin`` action of docs/operations.md's table, with placeholder arguments."""
    text = (DOCS / "operations.md").read_text(encoding="utf-8")
    table = text[text.index("| command | what it does |"):text.index("The running server polls")]
    actions = re.findall(r"^\| `admin ([a-z-]+)", table, re.M)
    assert len(actions) >= 20, actions
    args = {"grant": ["someone", "5"], "report-close": ["1"], "tournament-cancel": ["1"],
            "club-dissolve": ["123456"], "backup": ["copy.bak"], "restore": ["copy.bak"]}
    one_name = {"ban", "unban", "close", "show", "export", "reset-password"}
    return [[a, *args.get(a, ["someone"] if a in one_name else [])] for a in actions]


@pytest.mark.parametrize("action", _admin_actions(), ids=lambda a: a[0])
def test_admin_without_the_server_extra_says_what_to_install(tmp_path: Path, action: list[str]) -> None:
    """docs/operations.md: every ``admin`` error is one line on stderr with exit status 2,
    and ``serve`` without the ``[server]`` extra names what to install.  In a core-only
    install most actions (grant, show, audit, tables ...) ended in a traceback (exit 1):
    they imported the store before any guard."""
    hide = "".join(f"sys.modules[{m!r}] = None\n" for m in SERVER_EXTRA_MODULES)
    code = (f"import sys\n{hide}from wuhan_mahjong.cli import main\n"
            f"sys.exit(main(['admin', '--data-dir', {str(tmp_path)!r}, *{action!r}]))")
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("WUHAN_MAHJONG_")}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    [line] = p.stderr.strip().splitlines()
    assert line.startswith("wuhan-mahjong: error: admin needs the server extra ("), line
    assert line.endswith("pip install 'wuhan-mahjong[server]'"), line


def test_the_metrics_table_names_every_metric_the_server_exports() -> None:
    """docs/operations.md's metrics table is what an operator alerts on: every metric the
    server registers (``PREFIX + "name"`` in ``server/``) is in it, and every row is one the
    server exports.  The bot worker's three were missing."""
    pytest.importorskip("prometheus_client")
    text = (DOCS / "operations.md").read_text(encoding="utf-8")
    table = text[text.index("| metric | type | what |"):text.index("The audit reads every")]
    documented: set[str] = set()
    for cell in re.findall(r"^\| (`[^|]+) \|", table, re.M):
        for name in re.findall(r"`([a-z_]+)(?:\{[^}]*\})?`", cell):
            documented.add(name.removesuffix("_total"))
    code: set[str] = set()
    for path in (ROOT / "src" / "wuhan_mahjong" / "server").glob("*.py"):
        code |= set(re.findall(r'PREFIX \+ "([a-z_]+)"', path.read_text(encoding="utf-8")))
    assert len(code) >= 20
    assert code - documented == set(), "metrics missing from docs/operations.md"
    assert documented - code == set(), "documented metrics the server does not export"


def test_the_bot_command_s_help_names_every_shipped_policy(capsys: pytest.CaptureFixture[str]) -> None:
    """README and docs/bots.md ship four policies; ``bot --help`` named three (no ``search``),
    and docs/bots.md said "the three shipped ones" accept the typed view."""
    from wuhan_mahjong.bots import get_bot
    from wuhan_mahjong.cli import main

    shipped = ("random", "greedy", "expert", "search")
    with pytest.raises(SystemExit):
        main(["bot", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert all(name in help_text for name in shipped), help_text
    assert all(getattr(get_bot(name, 0), "accepts_int_view", False) for name in shipped)
    assert "the\n  four shipped ones do" in (DOCS / "bots.md").read_text(encoding="utf-8")


def test_the_fairness_page_s_python_check_runs_as_written(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/fairness.md's check by hand, on the file ``simulate --records`` writes."""
    from contextlib import redirect_stdout
    from io import StringIO

    from wuhan_mahjong.cli import main

    text = (DOCS / "fairness.md").read_text(encoding="utf-8")
    start = text.index("```python", text.index("Or by hand in Python")) + len("```python")
    snippet = text[start:text.index("```", start)]
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "--hands", "1", "--seed", "3", "--records", "hand.jsonl"]) == 0
    out = StringIO()
    with redirect_stdout(out):
        exec(compile(snippet, "docs/fairness.md", "exec"), {})
    assert out.getvalue() == "True\n"
