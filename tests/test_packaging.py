"""The package as users get it (issue 14): a core with no dependencies, extras that fit,
an sdist and a wheel that build without warnings and carry the licence and the docs,
the wheel alone running the core commands in a fresh virtual environment, and
``deploy/install.sh`` (the container image's install steps) producing a server that
answers.

The slow tests build from a copy of the repository's files, offline: no build isolation
(setuptools from the test extra) and ``pip install --no-index``, so a dependency
the core does not declare, or a file the wheel lacks, fails here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
import urllib.request
import zipfile
from pathlib import Path

import pytest

import wuhan_mahjong
from loopback import free_port
from test_cli_imports import HAND, SAMPLE  # the same inputs as the import checks

REPO = Path(__file__).resolve().parents[1]
VERSION = wuhan_mahjong.__version__


def project() -> dict[str, object]:
    with open(REPO / "pyproject.toml", "rb") as f:
        meta: dict[str, object] = tomllib.load(f)["project"]
    return meta


def names(requirements: list[str]) -> set[str]:
    """Distribution names of requirement strings (``psycopg[binary]>=3.1`` -> ``psycopg``)."""
    out = set()
    for r in requirements:
        name = r.split(";")[0]
        for stop in "[<>=!~ ":
            name = name.split(stop)[0]
        out.add(name.strip().lower())
    return out


def test_the_core_has_no_dependencies_and_the_extras_fit() -> None:
    meta = project()
    assert meta["dependencies"] == []
    extras: dict[str, list[str]] = meta["optional-dependencies"]  # type: ignore[assignment]
    assert {"server", "postgres", "redis", "rl", "test", "lint", "bench", "dev"} <= set(extras)
    server = names(extras["server"])
    assert {"starlette", "uvicorn", "pydantic", "pydantic-settings", "sqlalchemy", "alembic",
            "argon2-cffi", "websockets", "orjson"} <= server
    assert "psycopg" not in server and "redis" not in server  # SQLite needs neither
    assert "psycopg" in names(extras["postgres"]) and "redis" in names(extras["redis"])
    for tool in ("pytest", "ruff", "mypy", "rlcard", "hypothesis"):
        assert all(tool not in names(extras[e]) for e in ("server", "postgres", "redis", "rl"))
    [dev] = extras["dev"]
    wanted = set(extras) - {"dev"}
    assert dev.startswith("wuhan-mahjong[") and set(dev[len("wuhan-mahjong["):-1].split(",")) == wanted
    assert meta["license"] == "MIT" and meta["license-files"] == ["LICENSE"]


def test_licence_file() -> None:
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "Copyright (c) 2026 the wuhan-mahjong authors" in text


def _quick_start() -> str:
    """The README's Quick start section."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]


def test_readme_quick_start_installs_the_server() -> None:
    quick = _quick_start()
    assert "pip install -e '.[server]' && wuhan-mahjong serve" in quick
    assert "python3 -m pytest -q" in quick


def test_ci_runs_the_readme_test_command() -> None:
    """CI runs exactly the test command the README's Quick start prints (its first)."""
    command = next(line.strip() for line in _quick_start().splitlines()
                   if line.startswith("    python3 -m pytest"))
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert [line for line in ci.splitlines() if line.strip()][-1] == command


# --- built packages ------------------------------------------------------------------------

def source_copy(dest: Path) -> Path:
    """The repository's files as a clean clone has them: tracked, or new and not ignored (the
    working tree's version; in CI, a fresh clone, that is exactly the commit)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, check=False)
    if listed.returncode != 0:  # not a git checkout (e.g. an unpacked sdist): copy the tree
        shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(
            ".git", "__pycache__", "*.egg-info", "build", "dist", ".*_cache", "data", "*.db*"))
        return dest
    for rel in listed.stdout.decode().split("\0"):
        if rel and (REPO / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, dest / rel)
    return dest


Built = tuple[Path, Path, str, Path]
"""The sdist, the wheel, the build's output, the source copy built from."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """``python -m build`` on a copy of the tracked files."""
    root = tmp_path_factory.mktemp("build")
    src = source_copy(root / "src")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # else a warning
    p = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(root / "dist"),
                        str(src)], capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    sdist = next((root / "dist").glob("wuhan_mahjong-*.tar.gz"))
    wheel = next((root / "dist").glob("wuhan_mahjong-*.whl"))
    return sdist, wheel, p.stdout + p.stderr, src


@pytest.mark.slow
def test_build_has_no_warnings(built: Built) -> None:
    sdist, wheel, output, _ = built
    assert sdist.name == f"wuhan_mahjong-{VERSION}.tar.gz"
    assert wheel.name == f"wuhan_mahjong-{VERSION}-py3-none-any.whl"
    warnings = [line for line in output.splitlines() if "warning" in line.lower()]
    assert warnings == []


@pytest.mark.slow
def test_sdist_carries_licence_docs_tests_and_deploy_kit(built: Built) -> None:
    sdist, src = built[0], built[3]
    with tarfile.open(sdist) as tar:
        members = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
    assert len(list((src / "docs").glob("*.md"))) >= 5
    for doc in (src / "docs").glob("*.md"):
        assert f"docs/{doc.name}" in members
    assert {"LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "MANIFEST.in",
            "deploy/install.sh", "deploy/Dockerfile", "deploy/nginx.conf", "deploy/compose.yaml",
            "deploy/wuhan-mahjong.service", "tests/test_packaging.py", "bench/cli_bench.py",
            "src/wuhan_mahjong/store/migrations/script.py.mako"} <= members
    assert not [m for m in members if "__pycache__" in m or m.endswith((".pyc", ".db"))]


@pytest.mark.slow
def test_wheel_carries_licence_and_metadata(built: Built) -> None:
    wheel = built[1]
    with zipfile.ZipFile(wheel) as z:
        files = set(z.namelist())
        info = f"wuhan_mahjong-{VERSION}.dist-info"
        metadata = z.read(f"{info}/METADATA").decode()
        licence = z.read(f"{info}/licenses/LICENSE").decode()
    assert "the wuhan-mahjong authors" in licence
    headers = metadata.split("\n\n", 1)[0].splitlines()
    assert "License-Expression: MIT" in headers and "License-File: LICENSE" in headers
    assert not [h for h in headers if h.startswith("Classifier: License ::")]  # PEP 639: not both
    assert any(h.startswith("Project-URL: ") for h in headers)
    requires = [h for h in headers if h.startswith("Requires-Dist:")]
    assert requires and all("extra ==" in h for h in requires)  # nothing without an extra
    assert {"wuhan_mahjong/web/index.html", "wuhan_mahjong/py.typed",
            "wuhan_mahjong/store/migrations/script.py.mako", "wuhan_mahjong/cli/__init__.py"} <= files
    assert "wuhan_mahjong/cli.py" not in files
    # the whole browser client: every file of web/ (scripts, service worker, manifest, icons,
    # fonts), since a missing one breaks the page or its offline copy only where installed
    web = Path(__file__).resolve().parents[1] / "src" / "wuhan_mahjong" / "web"
    client = {f"wuhan_mahjong/web/{p.relative_to(web).as_posix()}" for p in web.rglob("*")
              if p.is_file() and "__pycache__" not in p.parts}
    assert len(client) > 20 and not client - files, sorted(client - files)


def venv_bin(venv: Path, name: str) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin") / name


def clean_env() -> dict[str, str]:
    drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_")
    return {k: v for k, v in os.environ.items()
            if not k.startswith(drop) and not k.upper().startswith("WUHAN_MAHJONG_")}


@pytest.mark.slow
def test_the_wheel_alone_runs_the_core_commands(built: Built, tmp_path: Path) -> None:
    """No extras, a fresh environment, no package index: score, hand, simulate, verify."""
    wheel = built[1]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = clean_env()
    pip = subprocess.run([str(venv_bin(venv, "python")), "-m", "pip", "install", "--no-index",
                          "--disable-pip-version-check", str(wheel)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert pip.returncode == 0, pip.stdout + pip.stderr  # --no-index: it needs nothing else
    listed = subprocess.run([str(venv_bin(venv, "python")), "-m", "pip", "list", "--format=json",
                             "--disable-pip-version-check"], capture_output=True, text=True, env=env,
                            check=True)
    assert {d["name"].lower() for d in json.loads(listed.stdout)} <= {"pip", "setuptools", "wuhan-mahjong"}

    def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(venv_bin(venv, "wuhan-mahjong")), *args], input=stdin,
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)

    p = cli("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"wuhan-mahjong {VERSION}"
    p = cli("score", stdin=json.dumps(SAMPLE))
    assert p.returncode == 0 and json.loads(p.stdout)["deltas"] == [-16, 280, -256, -8], p.stderr
    p = cli(*HAND)
    assert p.returncode == 0 and "5m" in p.stdout, p.stderr
    p = cli("simulate", "--hands", "3", "--seed", "11", "--records", "hands.jsonl")
    assert p.returncode == 0 and "3 hands" in p.stdout, p.stderr
    p = cli("verify", "hands.jsonl")
    assert p.returncode == 0 and p.stdout.count("ok: hand") == 3, p.stderr
    p = cli("rules", "bianfeng")
    assert p.returncode == 0 and "bianfeng" in p.stdout
    p = cli("serve")
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
    assert "pip install 'wuhan-mahjong[server]'" in p.stderr
    # the library layers below the server import with the standard library alone
    probe = subprocess.run([str(venv_bin(venv, "python")), "-c",
                            "import wuhan_mahjong.engine, wuhan_mahjong.bots, wuhan_mahjong.handinfo, "
                            "wuhan_mahjong.cli.engine, wuhan_mahjong.cli.bots; "
                            "print(wuhan_mahjong.__file__)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip().startswith(str(venv))


@pytest.mark.slow
def test_deploy_install_script_gives_a_working_server(tmp_path: Path) -> None:
    """deploy/install.sh, as the Dockerfile runs it, into a fresh virtual environment.

    Offline here: the environment sees this machine's packages (the extras' dependencies)
    and pip uses no index; the wheel itself is built from a clean copy by the script.
    """
    src = source_copy(tmp_path / "src")
    venv = tmp_path / "opt"
    env = {**clean_env(), "PYTHON": sys.executable, "VENV_ARGS": "--system-site-packages",
           "PIP_ARGS": "--no-index --no-build-isolation"}
    p = subprocess.run(["sh", str(src / "deploy" / "install.sh"), str(venv)], capture_output=True,
                       text=True, env=env, cwd=tmp_path, timeout=900)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert f"wuhan-mahjong {VERSION}" in p.stdout.splitlines()
    where = subprocess.run([str(venv_bin(venv, "python")), "-c",
                            "import wuhan_mahjong; print(wuhan_mahjong.__file__)"],
                           capture_output=True, text=True, env=clean_env(), cwd=tmp_path, check=True)
    assert where.stdout.strip().startswith(str(venv))  # the installed copy, not the source tree
    port = free_port()
    server = subprocess.Popen(
        [str(venv_bin(venv, "wuhan-mahjong")), "serve", "--port", str(port), "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
        env={**clean_env(), "WUHAN_MAHJONG_DATA_DIR": str(tmp_path / "data")})
    try:
        for _ in range(600):  # the server may take a while on a busy machine; 60 s at most
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2) as r:
                    assert r.status == 200
                    break
            except OSError:
                assert server.poll() is None, server.communicate()[0]
                time.sleep(0.1)
        else:
            raise AssertionError("the installed server did not answer")
    finally:
        server.terminate()
        server.wait(30)
    assert (tmp_path / "data" / "wuhan_mahjong.db").exists()
