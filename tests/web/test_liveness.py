"""A socket that dies without closing: the client notices and connects again.

A phone moving from Wi-Fi to mobile data, a laptop waking up elsewhere: the browser keeps
such a WebSocket "open" for minutes while nothing arrives, and the player looked at a
frozen table as his turn ran out.  The client now pings after a quiet spell and drops a
socket that delivers nothing (``app.js``, "liveness").  Playwright routes the page's
WebSocket through the test, which forwards every frame until it plays dead.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .conftest import Console

LIVENESS = {"pingEvery": 1000, "deadAfter": 12000, "suspectGrace": 4000, "check": 250}
"""Shorter than the client's own (10 s, 25 s), with a pong eleven seconds to arrive, so a
busy machine does not make a healthy socket look dead."""


@pytest.mark.slow
def test_a_socket_that_goes_silent_is_replaced(browser: Any, live_server: str) -> None:
    context = browser.new_context()
    context.add_init_script(f"window.__wmLiveness = {LIVENESS!r};".replace("'", '"'))
    page = context.new_page()
    console = Console(page)
    sockets: list[dict[str, Any]] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        state = {"silent": False, "pings": 0, "welcomed": False}
        sockets.append(state)

        def to_server(message: str | bytes) -> None:
            if state["silent"]:
                return
            if isinstance(message, str) and '"ping"' in message:
                state["pings"] += 1
            server.send(message)

        def to_page(message: str | bytes) -> None:
            if state["silent"]:
                return
            if isinstance(message, str) and '"welcome"' in message:
                state["welcomed"] = True
            ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws$"), route)
    page.goto(f"{live_server}/")
    page.click("[data-do='guest']")
    page.wait_for_selector("#create-form")
    page.wait_for_function("() => window.__wm.wsOpen === true", timeout=30_000)
    assert len(sockets) == 1 and sockets[0]["welcomed"]

    # quiet but alive: pinged, answered, kept (longer than deadAfter)
    page.wait_for_timeout(LIVENESS["deadAfter"] + 2000)
    assert len(sockets) == 1, "a socket that answers its pings was dropped"
    assert sockets[0]["pings"] >= 2

    # dead without a close: dropped, and a new socket is welcomed (the lobby stays usable)
    sockets[0]["silent"] = True
    page.wait_for_function("() => window.__wm.wsOpen === false", timeout=30_000)
    page.wait_for_function("() => window.__wm.wsOpen === true", timeout=30_000)
    assert len(sockets) == 2 and sockets[1]["welcomed"]
    assert page.locator("#banner").is_hidden()
    page.click("[data-do='quick']")
    page.wait_for_selector(".table", timeout=20_000)
    assert console.errors == [], console.errors
    context.close()


@pytest.mark.slow
def test_a_second_tab_takes_the_connection_and_the_first_may_take_it_back(
        browser: Any, live_server: str) -> None:
    """One live connection per account: a second tab takes it.  The first showed the
    server's English sentence in the Chinese interface and offered nothing but a reload;
    it now says so in the player's language, does not reconnect on its own (two tabs
    would take the connection from each other for ever), and a button takes it back."""
    page = browser.new_context().new_page()
    console = Console(page)
    page.goto(f"{live_server}/")
    page.click("[data-do='guest']")
    page.wait_for_function("() => window.__wm.wsOpen === true", timeout=30_000)
    token = page.evaluate("localStorage.getItem('wm.token')")
    other = browser.new_context()
    other.add_init_script(f"localStorage.setItem('wm.token', {token!r});".replace("'", '"'))
    second = other.new_page()
    second.goto(f"{live_server}/")
    second.wait_for_function("() => window.__wm.wsOpen === true", timeout=30_000)

    banner = page.locator("#banner")
    banner.locator("[data-do='reconnect']").wait_for(timeout=30_000)
    assert banner.inner_text().startswith("这个账号已在其他页面或设备连接了。"), banner.inner_text()
    page.wait_for_timeout(3000)  # no reconnecting on its own: the second tab keeps it
    assert page.evaluate("window.__wm.wsOpen") is False
    assert second.evaluate("window.__wm.wsOpen") is True
    assert second.locator("#banner").is_hidden()

    banner.locator("[data-do='reconnect']").click()
    page.wait_for_function("() => window.__wm.wsOpen === true", timeout=30_000)
    assert banner.is_hidden()
    second.locator("#banner [data-do='reconnect']").wait_for(timeout=30_000)
    assert console.errors == [], console.errors
    other.close()
    page.context.close()


@pytest.mark.slow
def test_a_page_of_another_protocol_reloads_once(browser: Any, live_server: str) -> None:
    """After an upgrade a tab may still run the old client: its hello now says which
    protocol it speaks (it said nothing, so the server took every client for current),
    and the server's answer that it speaks another makes the page reload, once, to fetch
    the client that goes with it.  Here the test answers the first hello as a newer
    server would; the reloaded page reaches the real one."""
    context = browser.new_context()
    page = context.new_page()
    console = Console(page)
    hellos: list[dict[str, Any]] = []

    def route(ws: Any) -> None:
        if hellos:  # after the reload: the real server
            server = ws.connect_to_server()
            ws.on_message(lambda m: server.send(m))
            server.on_message(lambda m: ws.send(m))
            return

        def answer(message: str | bytes) -> None:
            hello = json.loads(message)
            hellos.append(hello)
            ws.send(json.dumps({"type": "error", "code": "invalid_message", "ref": None,
                                "params": {"field": "protocol", "problem": "version",
                                           "expected": 2},
                                "message": "this server speaks protocol 2, not 1"}))
            ws.close(code=1000)
        ws.on_message(answer)

    page.route_web_socket(re.compile(r"/ws$"), route)
    page.goto(f"{live_server}/")
    page.click("[data-do='guest']")
    # the page reloads while this waits: the new document may be asked before app.js
    # has run, so a missing `__wm` is "not yet", not an error
    page.wait_for_function("() => window.__wm?.wsOpen === true", timeout=30_000)
    assert [h.get("protocol") for h in hellos] == [1]
    assert page.evaluate("performance.getEntriesByType('navigation')[0].type") == "reload"
    assert page.evaluate("sessionStorage.getItem('wm.protocol-reload')") is None
    assert console.errors == [], console.errors
    context.close()

    # a reload that does not help (a cache in the way): said once, no reloading for ever
    context = browser.new_context()
    page = context.new_page()
    hellos.clear()

    def always_other(ws: Any) -> None:
        def answer(message: str | bytes) -> None:
            hellos.append(json.loads(message))
            ws.send(json.dumps({"type": "error", "code": "invalid_message", "ref": None,
                                "params": {"field": "protocol", "problem": "version",
                                           "expected": 2}, "message": "protocol 2"}))
            ws.close(code=1000)
        ws.on_message(answer)

    page.route_web_socket(re.compile(r"/ws$"), always_other)
    page.goto(f"{live_server}/")
    page.click("[data-do='guest']")
    page.wait_for_function("() => document.querySelector('#banner').textContent.length > 0",
                           timeout=30_000)
    assert page.locator("#banner").inner_text() == "服务器已更新，请重新加载页面。"
    page.wait_for_timeout(2000)
    assert len(hellos) == 2  # the first page, and the one reload
    context.close()
