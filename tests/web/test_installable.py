"""The installable client (a Progressive Web App): the manifest and its icons, the service
worker that keeps the client's files, the client opening with the server stopped and saying
it is offline, a new version replacing the kept files, and the turn's vibration.

The service worker is ``web/sw.js`` served at ``/sw.js`` by ``server/pwa.py``, which fills
in the version (a hash of the client's folder) and the files to keep."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import socket
import struct
import threading
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import WEB, as_guest, open_page, run_server, to_quick_table, wait_js

pwa = pytest.importorskip("wuhan_mahjong.server.pwa", reason="the game server is not installed")

OFFLINE = {"zh": "离线：连不上服务器，正在重试…", "en": "Offline: the server cannot be reached. Retrying…"}
"""``app.unreachable`` of i18n.js."""

CACHES = """async () => {
  const out = {};
  for (const name of await caches.keys()) {
    out[name] = (await (await caches.open(name)).keys()).map((r) => r.url);
  }
  return out;
}"""
"""Every Cache Storage cache of the page's origin with the URLs it holds."""

REGISTRATION = """navigator.serviceWorker.getRegistration().then((r) => ({
  installing: r.installing && r.installing.state, waiting: r.waiting && r.waiting.state,
  active: r.active && r.active.state}))"""
"""The service worker registration's workers, by state (``None`` where there is none)."""


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _controlled(page: Any) -> None:
    """Wait until the service worker controls ``page`` (it has kept the files by then: it
    activates, and claims the page, only after installing)."""
    wait_js(page, "navigator.serviceWorker && navigator.serviceWorker.controller "
                  "&& navigator.serviceWorker.controller.state === 'activated'", timeout=30)


def _expected_urls(base: str, folder: Path) -> set[str]:
    return {f"{base}/" if f == "./" else f"{base}/{f}" for f in pwa.shell_build(folder).files}


# --------------------------------------------------------------------------- the worker's build
def _client(folder: Path) -> Path:
    (folder / "fonts").mkdir(parents=True)
    (folder / "index.html").write_text("<!doctype html><title>t</title>")
    (folder / "app.js").write_text("console.log(1);\n")
    (folder / "fonts" / "f.woff2").write_bytes(b"\0font")
    shutil.copy(WEB / "sw.js", folder / "sw.js")
    return folder


def test_the_cache_name_changes_with_any_client_file(tmp_path: Path) -> None:
    folder = _client(tmp_path / "web")
    first = pwa.shell_build(folder)
    assert first.files == ("app.js", "fonts/f.woff2", "./")  # every file but the worker
    assert pwa.shell_build(folder) == first  # the same files, the same version
    (folder / "app.js").write_text("console.log(2);\n")
    second = pwa.shell_build(folder)
    assert second.version != first.version and second.files == first.files
    (folder / "fonts" / "f.woff2").write_bytes(b"\0font2")
    third = pwa.shell_build(folder)
    assert third.version not in (first.version, second.version)
    (folder / "style.css").write_text("body{}")
    (folder / ".swap").write_text("an editor's")  # hidden files are not the client's
    fourth = pwa.shell_build(folder)
    assert fourth.version != third.version and fourth.files == ("app.js", "fonts/f.woff2", "./", "style.css")
    (folder / "app.js").write_text("console.log(1);\n")
    (folder / "fonts" / "f.woff2").write_bytes(b"\0font")
    (folder / "style.css").unlink()
    assert pwa.shell_build(folder).version == first.version  # the content decides, not the time

    # the worker as served: BUILD filled in, the rest of sw.js as it is
    text = pwa.service_worker(folder)
    build = json.dumps({"version": first.version, "files": ["app.js", "fonts/f.woff2", "./"]})
    assert f"/*BUILD*/{build}/*BUILD*/" in text
    source = (WEB / "sw.js").read_text()
    assert text.replace(text[text.index("/*BUILD*/"):text.rindex("/*BUILD*/")], "") == \
        source.replace(source[source.index("/*BUILD*/"):source.rindex("/*BUILD*/")], "")
    (folder / "sw.js").write_text("const BUILD = {};\n")
    with pytest.raises(ValueError, match="BUILD"):
        pwa.service_worker(folder)


def _asgi(app: Any) -> Any:
    """A client of ``app`` without a network: ``get(path, headers)`` → httpx's response.  Each
    request runs its own event loop in a thread (this thread may hold Playwright's)."""
    import httpx

    class Client:
        def get(self, path: str, headers: dict[str, str] | None = None) -> httpx.Response:
            out: list[httpx.Response] = []

            async def ask() -> None:
                transport = httpx.ASGITransport(app=app)
                async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
                    out.append(await c.get(path, headers=headers))

            thread = threading.Thread(target=lambda: asyncio.run(ask()))
            thread.start()
            thread.join(30)
            return out[0]

    return Client()


def test_the_route_rebuilds_the_worker_when_a_file_changes(tmp_path: Path) -> None:
    from starlette.applications import Starlette

    folder = _client(tmp_path / "web")
    client = _asgi(Starlette(routes=pwa.pwa_routes(folder, {"Cache-Control": "no-cache"})))
    first = client.get("/sw.js")
    assert first.status_code == 200 and first.headers["cache-control"] == "no-cache"
    assert first.headers["content-type"].startswith("text/javascript")
    assert first.headers["etag"] == f'"{pwa.shell_build(folder).version}"'
    again = client.get("/sw.js", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.headers["cache-control"] == "no-cache"
    (folder / "app.js").write_text("console.log('a new version');\n")
    second = client.get("/sw.js")
    assert second.headers["etag"] != first.headers["etag"] and second.text != first.text
    assert pwa.shell_build(folder).version in second.text
    assert client.get("/manifest.webmanifest").status_code == 404  # this folder has none
    (folder / "sw.js").unlink()
    assert client.get("/sw.js").status_code == 404


# --------------------------------------------------------------------------- the real server
def test_worker_and_manifest_headers(live_server: str) -> None:
    """Plain HTTP: the content types, and no long caching (a browser must see a new worker)."""
    status, headers, body = _get(f"{live_server}/sw.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    assert headers["cache-control"] == "no-cache"
    assert f'"version": "{pwa.shell_build(WEB).version}"' in body.decode()
    status, headers, _ = _get(f"{live_server}/sw.js", {"If-None-Match": headers["etag"]})
    assert status == 304
    status, headers, body = _get(f"{live_server}/manifest.webmanifest")
    assert status == 200 and headers["content-type"] == "application/manifest+json"
    assert headers["cache-control"] == "no-cache"
    assert json.loads(body)["start_url"] == "/"


def test_the_manifest_is_linked_and_its_icons_are_served(browser: Any, live_server: str) -> None:
    context, page, console = open_page(browser, f"{live_server}/")
    page.wait_for_selector("[data-do='guest']")
    links = page.evaluate("""() => ({
      manifest: document.querySelector("link[rel=manifest]").href,
      apple: document.querySelector("link[rel=apple-touch-icon]").href,
      icon: document.querySelector("link[rel=icon]").href,
      theme: document.querySelector("meta[name=theme-color]").content,
    })""")
    assert links["manifest"] == f"{live_server}/manifest.webmanifest"
    status, headers, body = _get(links["manifest"])
    assert status == 200 and headers["content-type"] == "application/manifest+json"
    manifest = json.loads(body)
    assert manifest["short_name"] == "武汉麻将" and "武汉麻将" in manifest["name"]
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    # the colours of style.css: the felt, and its dark edge behind the splash screen
    css = (WEB / "style.css").read_text()
    assert manifest["theme_color"] == links["theme"] == "#1d5b45" and "--felt: #1d5b45;" in css
    assert manifest["background_color"] == "#123d2e" and "--felt-dark: #123d2e;" in css
    sizes: dict[str, set[str]] = {}
    for icon in manifest["icons"]:
        url = f"{live_server}/{icon['src']}"
        status, headers, data = _get(url)
        assert status == 200 and headers["content-type"] == icon["type"], url
        sizes.setdefault(icon.get("purpose", "any"), set()).add(icon["sizes"])
        if icon["type"] == "image/png":
            width, height = _png_size(data)
            assert f"{width}x{height}" == icon["sizes"], url
        else:  # the SVG: shapes only, no text for a font to draw
            root = ET.fromstring(data)
            assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox") == "0 0 512 512"
            assert not [e for e in root.iter() if e.tag.endswith(("}text", "}tspan", "}image"))]
    assert {"192x192", "512x512"} <= sizes["any"] and "512x512" in sizes["maskable"]
    status, headers, data = _get(links["apple"])
    assert status == 200 and _png_size(data) == (180, 180)
    assert _get(links["icon"])[0] == 200
    assert console.errors == [], console.errors
    context.close()


def test_the_worker_controls_the_page_and_keeps_the_shell_not_the_api(browser: Any, live_server: str) -> None:
    context, page, console = as_guest(browser, live_server)
    _controlled(page)
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == f"{live_server}/sw.js"
    scope = page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.scope)")
    assert scope == f"{live_server}/"
    # screens that ask the API, now through the worker's page
    page.click("[data-nav='profile']")
    page.wait_for_selector("[data-field='points']")
    page.click("[data-nav='leaderboard']")
    page.wait_for_selector("table.board, .board-empty")
    page.reload()
    page.wait_for_selector("table.board, .board-empty")
    wait_js(page, "window.__wm.wsOpen")
    kept = page.evaluate(CACHES)
    version = pwa.shell_build(WEB).version
    assert list(kept) == [f"wm-shell-{version}"], kept
    urls = set(kept[f"wm-shell-{version}"])
    assert urls == _expected_urls(live_server, WEB)
    for needed in ("/", "/index.html", "/app.js", "/i18n.js", "/install.js", "/style.css",
                   "/fonts/wm-sans-sc.woff2", "/fonts/wm-sans-sc.css", "/manifest.webmanifest",
                   "/icons/icon-192.png"):
        assert needed == "/index.html" or f"{live_server}{needed}" in urls, needed
    assert not [u for u in urls if "/api" in u or u.endswith("/sw.js") or "/ws" in u]
    assert console.errors == [], console.errors
    context.close()


# --------------------------------------------------------------------------- a private server
@contextlib.contextmanager
def _server_of(web: Path, data: Path) -> Iterator[str]:
    """The game server in a thread of this process, serving the client from ``web``."""
    import uvicorn

    from wuhan_mahjong.server import ServerConfig, create_app

    config = ServerConfig(data_dir=data, db_url=f"sqlite:///{data / 'db.sqlite'}", redis_url=None,
                          web_dir=web, bot="random", bot_worker="inline", bot_delay=0.05, bot_wait=0)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(config), log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60  # a busy machine (conftest.SERVER_START_SECONDS)
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            pytest.fail("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def test_a_new_version_replaces_the_kept_files(browser: Any, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WUHAN_MAHJONG_DB", raising=False)
    monkeypatch.delenv("WUHAN_MAHJONG_REDIS", raising=False)
    web = tmp_path / "web"
    shutil.copytree(WEB, web)
    (tmp_path / "data").mkdir()
    with _server_of(web, tmp_path / "data") as base:
        context, page, console = open_page(browser, f"{base}/")
        page.wait_for_selector("[data-do='guest']")
        _controlled(page)
        old = pwa.shell_build(web).version
        assert list(page.evaluate(CACHES)) == [f"wm-shell-{old}"]
        # an upgrade of the server changes one file; the browser sees the new worker
        with open(web / "style.css", "a") as f:
            f.write("\n/* a new version */\n")
        new = pwa.shell_build(web).version
        assert new != old
        page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
        # the new worker installs (it fetches every file of the shell: seconds on a loaded
        # machine), takes over and deletes the old cache. An install whose fetches failed
        # leaves no worker installing or waiting: a browser tries again at its next update
        # check, and so does this test, once, saying so if it comes to nothing either.
        end = time.monotonic() + 90
        retried = False
        while True:
            kept = page.evaluate(CACHES)
            if list(kept) == [f"wm-shell-{new}"]:
                break
            workers = page.evaluate(REGISTRATION)
            if (not retried and workers["installing"] is None and workers["waiting"] is None
                    and kept.get(f"wm-shell-{new}") == []):
                retried = True
                page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
            assert time.monotonic() < end, (kept, workers, retried)
            page.wait_for_timeout(100)
        assert set(kept[f"wm-shell-{new}"]) == _expected_urls(base, web)
        style = page.evaluate(f"caches.open('wm-shell-{new}').then((c) => c.match('/style.css'))"
                              ".then((r) => r.text())")
        assert style.endswith("/* a new version */\n")
        page.reload()
        page.wait_for_selector("[data-do='guest']")
        assert console.errors == [], console.errors
        context.close()


def test_offline_the_client_opens_and_says_so(browser: Any, tmp_path: Path) -> None:
    """Loaded once, then the server stopped for real: a reload shows the client, signed in (the
    lobby) or not (the login screen), with the offline message in the player's language."""
    with run_server(tmp_path) as base:
        signed, page, _ = as_guest(browser, base)
        _controlled(page)
        english = browser.new_context()
        english.add_init_script("localStorage.setItem('wm.lang', 'en')")
        visitor = english.new_page()
        visitor.goto(f"{base}/")
        visitor.wait_for_selector("[data-do='guest']")
        _controlled(visitor)
        for p in (page, visitor):  # no banner while the server runs (a socket refused "busy" on a
            wait_js(p, "document.getElementById('banner').hidden")  # loaded machine comes back)
    with pytest.raises(OSError):  # stopped: nothing answers
        urllib.request.urlopen(f"{base}/api/health", timeout=5)

    page.reload()
    page.wait_for_selector("[data-do='quick']")  # the lobby, from the kept files
    wait_js(page, f"document.getElementById('banner').textContent === {json.dumps(OFFLINE['zh'])}")
    assert page.locator("#banner").is_visible()
    assert page.evaluate("document.body.dataset.ready") == "1"
    assert page.evaluate("window.__wm.screen") == "lobby"

    visitor.reload()
    visitor.wait_for_selector("[data-do='guest']")  # the login screen
    wait_js(visitor, f"document.getElementById('banner').textContent === {json.dumps(OFFLINE['en'])}")
    assert visitor.locator("#banner").is_visible()
    # the message follows a change of language
    visitor.click("#lang")
    wait_js(visitor, f"document.getElementById('banner').textContent === {json.dumps(OFFLINE['zh'])}")
    # a page the worker did not keep is not made up
    with pytest.raises(Exception, match="ERR_CONNECTION_REFUSED"):
        visitor.goto(f"{base}/api/health")
    signed.close()
    english.close()


# --------------------------------------------------------------------------- the turn's vibration
VIBRATE = """window.__buzz = [];
Object.defineProperty(Navigator.prototype, "vibrate", {
  configurable: true, value(pattern) { window.__buzz.push(pattern); return true; },
});"""


@pytest.mark.slow
def test_a_turn_vibrates_unless_the_sound_is_off(browser: Any, live_server: str) -> None:
    for sound in (True, False):
        context = browser.new_context()
        context.add_init_script(VIBRATE)
        if not sound:
            context.add_init_script("localStorage.setItem('wm.settings', JSON.stringify({sound: false}))")
        page = context.new_page()
        page.goto(f"{live_server}/")
        page.click("[data-do='guest']")
        page.wait_for_selector("#create-form")
        to_quick_table(page)
        wait_js(page, "document.title.startsWith('轮到你')", timeout=30)
        buzz = page.evaluate("window.__buzz")
        assert (len(buzz) >= 1) if sound else (buzz == []), (sound, buzz)
        context.close()
