"""Browser tests: Playwright for Python driving Debian's chromium, headless.

Skipped when Playwright or /usr/bin/chromium is missing on a developer's machine,
but failed, naming what is missing, when ``CI`` or ``WUHAN_MAHJONG_REQUIRE_SERVICES``
is set: CI must not silently lose them (``.ci/run`` installs both).  Screenshots go
to ``tests/web/artifacts/`` (git-ignored).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from loopback import free_port

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "src" / "wuhan_mahjong" / "web"
ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = os.environ.get("WUHAN_MAHJONG_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


PACKAGE = ROOT / "src" / "wuhan_mahjong"
FIXTURES_CACHE_DAYS = 2
"""Cached fixture folders of other inputs not used for this long are removed."""


VIEW_SOURCES = ("engine", "bots")
"""The packages the fixture views come from besides the core modules: ``make_fixtures.py``
imports the engine and the bots' hint, which import nothing above the bots (layers 0-2 of
``tests/test_layers.py``, which checks it)."""


def fixture_inputs_key() -> str:
    """A hash of everything the fixture views are made from: the core modules, the engine and
    the bots (:data:`VIEW_SOURCES`), ``make_fixtures.py`` and the Python version."""
    digest = hashlib.sha256(sys.version.encode())
    sources = [*PACKAGE.glob("*.py"), *(p for d in VIEW_SOURCES for p in (PACKAGE / d).rglob("*.py"))]
    for path in sorted([*sources, Path(__file__).with_name("make_fixtures.py")]):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


@functools.cache
def fixtures_dir() -> Path:
    """The fixture page's seat views, made from the engine (``make_fixtures.py``), so they are
    never stale; served as ``/tests/web/fixtures/``.

    Making them plays a few hundred hands (about 4 s of CPU), so they are kept in the temporary
    folder under the hash of their inputs (:func:`fixture_inputs_key`): a run after a change
    of the engine, the bots, the core or ``make_fixtures.py`` makes them afresh, other runs
    reuse them."""
    from .make_fixtures import main as make_fixtures

    cache = Path(tempfile.gettempdir())
    out = cache / f"wuhan-mahjong-fixtures-{fixture_inputs_key()}"
    if not (out / "views.json").is_file():
        made = Path(tempfile.mkdtemp(prefix="wuhan-mahjong-fixtures-new-", dir=cache))
        try:
            make_fixtures(made)
            os.replace(made, out)  # atomic; fails if a concurrent run put its own there first
        except OSError:
            if not (out / "views.json").is_file():
                raise
        finally:
            shutil.rmtree(made, ignore_errors=True)
    os.utime(out)
    too_old = time.time() - FIXTURES_CACHE_DAYS * 86400
    for other in cache.glob("wuhan-mahjong-fixtures-*"):
        with contextlib.suppress(OSError):
            if other != out and other.stat().st_mtime < too_old:
                shutil.rmtree(other)
    return out


def services_required() -> bool:
    """Whether a missing browser fails the tests instead of skipping them."""
    return bool(os.environ.get("CI") or os.environ.get("WUHAN_MAHJONG_REQUIRE_SERVICES"))


def missing_service(why: str) -> NoReturn:
    """Skip, or fail under CI: the browser tests must not vanish silently there."""
    if services_required():
        pytest.fail(f"{why}; the browser tests cannot run (CI / WUHAN_MAHJONG_REQUIRE_SERVICES is set)",
                    pytrace=False)
    pytest.skip(why)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium, for one test module.  Not for the session: while Playwright's synchronous API
    runs, its event loop is this thread's running loop, so every later ``asyncio.run`` in the
    process fails ("cannot be called from a running event loop").  One test process running
    the browser tests before others (``pytest -n``, or any order) must not inherit it."""
    try:
        from playwright import sync_api
    except ImportError:
        missing_service("no Playwright for Python (pip install playwright)")
    if not (shutil.which(CHROMIUM) or Path(CHROMIUM).exists()):
        missing_service(f"no chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def static_server() -> Iterator[str]:
    """The repository root over HTTP (the client), and this run's fixtures under
    ``/tests/web/fixtures/``, on a free loopback port."""
    made = fixtures_dir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def translate_path(self, path: str) -> str:
            prefix = "/tests/web/fixtures/"
            if path.startswith(prefix):
                name = path[len(prefix):].split("?", 1)[0].split("#", 1)[0]
                return str(made / Path(name).name)
            return super().translate_path(path)

    handler = functools.partial(Quiet, directory=str(ROOT))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


SERVER_ARGS = ["--bot-wait", "0", "--bot-delay", "0.05", "--claim-hold", "0.3", "--hand-pause", "1",
               "--quick-hands", "1", "--turn-seconds", "60", "--claim-seconds", "30",
               "--log-level", "warning"]
"""The live tests' server: bots at once and fast, one-hand quick matches, long timers."""


SERVER_START_SECONDS = 60
"""How long :func:`run_server` waits for a server's health check before it fails."""


@contextlib.contextmanager
def run_server(data: Path, extra: list[str] | None = None) -> Iterator[str]:
    """``python -m wuhan_mahjong serve`` on a free loopback port with a SQLite folder; its URL."""
    port = free_port()
    log = open(data / "server.log", "w")  # noqa: SIM115 - closed below
    # every test comes from 127.0.0.1: no per-address limits on accounts; hints and the calculator
    # answer as fast as the browser asks (the limits have their own tests in tests/server); and
    # no cap on the address's running tables: a test that leaves its table leaves it running
    # (its seat waits out --turn-seconds), and on a busy machine more than the default 8 of
    # them were still running when a later test asked for a quick match, which was refused
    # (`busy`) and never showed its table
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "WUHAN_MAHJONG_GUESTS_PER_HOUR": "0",
           "WUHAN_MAHJONG_REGISTER_PER_HOUR": "0", "WUHAN_MAHJONG_HINT_RATE": "50",
           "WUHAN_MAHJONG_HINT_BURST": "100", "WUHAN_MAHJONG_CALC_RATE": "1000",
           "WUHAN_MAHJONG_CALC_BURST": "1000", "WUHAN_MAHJONG_TABLES_PER_ADDRESS": "1000"}
    env.pop("WUHAN_MAHJONG_DB", None)
    args = [sys.executable, "-m", "wuhan_mahjong", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--data-dir", str(data), *SERVER_ARGS, *(extra or [])]
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        # a minute, as ServeProcess waits: on a busy machine (a full run beside other work)
        # a start took 17 s, its imports alone 13, and the 15 s once allowed here failed
        # every browser test of the worker's shared server
        deadline = time.monotonic() + SERVER_START_SECONDS
        while proc.poll() is None:
            try:
                with urllib.request.urlopen(f"{base}/api/health", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"the server did not start in {SERVER_START_SECONDS} s")
                time.sleep(0.1)
        if proc.poll() is not None:
            log.flush()
            pytest.fail(f"the server exited: {(data / 'server.log').read_text()[-2000:]}")
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@contextlib.contextmanager
def server_and_store(data: Path) -> Iterator[tuple[str, Any]]:
    """:func:`run_server` on ``data`` with its database open beside it (a test names staff,
    files reports or reads what the browser did): (URL, ``Store``)."""
    pytest.importorskip("wuhan_mahjong.server.app")
    from wuhan_mahjong.server.config import DB_FILE
    from wuhan_mahjong.store import open_store

    with run_server(data) as base:
        store = open_store(f"sqlite:///{(data / DB_FILE).resolve()}")
        try:
            yield base, store
        finally:
            store.close()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real server, shared by the live browser tests of a run."""
    pytest.importorskip("wuhan_mahjong.server.app", reason="the game server is not there yet")
    with run_server(tmp_path_factory.mktemp("server-data")) as base:
        yield base


def wait_js(page: Any, expression: str, timeout: float = 15.0) -> Any:
    """Poll a JavaScript expression until it is truthy (``page.wait_for_function`` evaluates a
    string inside the page, which the server's Content-Security-Policy forbids)."""
    end = time.monotonic() + timeout
    while True:
        value = page.evaluate(f"() => ({expression})")
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {expression}")
        page.wait_for_timeout(50)


def wait_held(page: Any, held: list[Any], what: str, timeout: float = 5.0) -> None:
    """Wait until a route handler of ``page`` has held back a request (appended it to
    ``held``): the page's events are handled while it waits (Playwright's synchronous API
    runs the handlers only then)."""
    end = time.monotonic() + timeout
    while not held:
        assert time.monotonic() < end, what
        page.wait_for_timeout(25)


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
"""A phone held upright: the context options of the phone-sized tests."""
PHONE_LANDSCAPE = {"viewport": {"width": 844, "height": 390}, "is_mobile": True, "has_touch": True}


def open_page(browser: Any, url: str, *, init_script: str | None = None,
              **ctx: Any) -> tuple[Any, Any, Console]:
    """A new context and page at ``url``, with its console watched (``init_script`` runs
    in every page of the context before the page's own scripts)."""
    context = browser.new_context(**ctx)
    if init_script is not None:
        context.add_init_script(init_script)
    page = context.new_page()
    console = Console(page)
    page.goto(url)
    return context, page, console


def as_guest(browser: Any, base: str, **ctx: Any) -> tuple[Any, Any, Console]:
    """A page of the live server, logged in as a new guest, at the lobby."""
    context, page, console = open_page(browser, f"{base}/", **ctx)
    page.click("[data-do='guest']")
    page.wait_for_selector("#create-form")
    return context, page, console


def register_user(base: str, username: str,
                  password: str = "correct horse battery staple") -> str:
    """Sign ``username`` up on the live server at ``base``; his token."""
    request = urllib.request.Request(
        f"{base}/api/register", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"username": username, "password": password}).encode())
    with urllib.request.urlopen(request, timeout=30) as r:
        token: str = json.loads(r.read())["token"]
    return token


def signed_in(browser: Any, base: str, token: str, hash_: str = "#/lobby") -> tuple[Any, Any, Console]:
    """A new context whose pages start signed in with ``token``, and its page at ``hash_``."""
    context = browser.new_context()
    context.add_init_script(f"localStorage.setItem('wm.token', {json.dumps(token)})")
    page = context.new_page()
    console = Console(page)
    page.goto(f"{base}/{hash_}")
    return context, page, console


def room_with_friend(host: Any, friend: Any, base: str) -> str:
    """The host (at the lobby) opens a private room and the friend comes in by its
    invitation link; both see the two members.  The room's code."""
    host.click("#create-form button[type='submit']")
    host.wait_for_selector(".room-code")
    code: str = host.get_attribute(".room-code", "data-code")
    friend.goto(f"{base}/#/join?code={code}")
    friend.wait_for_selector(f".room-code[data-code='{code}']")
    wait_js(host, "document.querySelectorAll('.seats-list li').length === 2")
    return code


def start_with_bots(host: Any, friend: Any) -> None:
    """Both members of the host's room ready up, the host starts it (bots fill the two empty
    seats), and both see their hands at the table."""
    for page in (host, friend):
        page.click("[data-do='ready']")
    wait_js(host, "!document.querySelector(\"[data-do='ready']\")")
    host.click("[data-do='start']")
    for page in (host, friend):
        page.wait_for_selector(".table .hand .tile", timeout=20_000)


def to_quick_table(page: Any) -> None:
    """From the lobby to a quick match's table (against three bots)."""
    page.click("[data-do='quick']")
    page.wait_for_selector(".table", timeout=20_000)


class Console:
    """Collects console errors and page errors of a page, each with the URL it came from
    (for a failed fetch, the resource's URL: ``/api/hint`` answering 404, say)."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.errors.append(f"pageerror at {page.url}: {e}"))

    def _console(self, m: Any) -> None:
        if m.type == "error":
            where = m.location.get("url") or "?"
            self.errors.append(f"console.{m.type} at {where}: {m.text}")


@pytest.fixture()
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
