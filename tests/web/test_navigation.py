"""Routes: every screen has an address; Back and Forward move between them; a link or a typed
address works in an open tab; Back at the table asks before leaving the hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import as_guest, to_quick_table, wait_js


def _screen(page: Any) -> str:
    return str(page.evaluate("() => window.__wm.screen"))


@pytest.mark.slow
def test_back_forward_and_deep_links(browser: Any, live_server: str, artifacts: Path) -> None:
    context, page, console = as_guest(browser, live_server, viewport={"width": 1280, "height": 800})
    assert page.url.endswith("#/lobby")
    page.click("[data-nav='profile']")
    page.wait_for_selector("[data-field='points']")
    assert page.url.endswith("#/profile")
    page.click("[data-nav='rules']")
    page.wait_for_selector(".rules-table")
    assert page.url.endswith("#/rules")
    page.go_back()
    wait_js(page, "window.__wm.screen === 'profile'")
    page.go_back()
    wait_js(page, "window.__wm.screen === 'lobby'")
    assert page.locator("[data-do='quick']").count() == 1
    page.go_forward()
    wait_js(page, "window.__wm.screen === 'profile'")
    # a typed address (or a link) in the open tab
    page.evaluate("() => { location.hash = '#/rules?profile=laizishanzhuang'; }")
    page.wait_for_selector(".rules-page[data-profile='laizishanzhuang']")
    page.evaluate("() => { location.hash = '#/settings'; }")
    page.wait_for_selector("#settings-form")
    page.evaluate("() => { location.hash = '#/lobby'; }")
    page.wait_for_selector("[data-do='quick']")
    # an unknown address goes to the lobby
    page.evaluate("() => { location.hash = '#/nowhere'; }")
    wait_js(page, "window.__wm.screen === 'lobby' && location.hash === '#/lobby'")
    # a reload keeps the screen
    page.evaluate("() => { location.hash = '#/profile'; }")
    page.wait_for_selector("[data-field='points']")
    page.reload()
    page.wait_for_selector("[data-field='points']")
    assert console.errors == [], console.errors
    context.close()


def test_back_at_the_table_asks_first(browser: Any, live_server: str) -> None:
    context, page, console = as_guest(browser, live_server, viewport={"width": 1280, "height": 800})
    to_quick_table(page)
    wait_js(page, "window.__wm.view && window.__wm.view.phase !== 'ended'")
    assert page.url.endswith("#/table")
    asked: list[str] = []

    def dismiss(d: Any) -> None:
        asked.append(d.message)
        d.dismiss()

    page.once("dialog", dismiss)
    page.go_back()
    wait_js(page, "location.hash === '#/table'")
    assert len(asked) == 1 and "逃跑" in asked[0]
    assert _screen(page) == "table" and page.locator(".table").count() == 1
    # the same through a link; this time the player leaves: an escape, then the lobby
    page.once("dialog", lambda d: d.accept())
    page.click("[data-nav='lobby']")
    page.wait_for_selector("[data-do='quick']", timeout=10_000)
    assert _screen(page) == "lobby"
    assert console.errors == [], console.errors
    context.close()


@pytest.mark.slow
def test_a_reload_in_a_room_comes_back_clean(browser: Any, live_server: str) -> None:
    """The server holds a room's place for a member whose connection closes (离线): after a
    reload the player is back in his room, with no error, as its only member and host; he
    leaves it and is free to create a room again."""
    context, page, console = as_guest(browser, live_server, viewport={"width": 1280, "height": 800})
    page.click("#create-form button[type='submit']")
    page.wait_for_selector(".room-code")
    code = page.get_attribute(".room-code", "data-code")
    assert page.url.endswith("#/room")
    page.reload()
    page.wait_for_selector(f".room-code[data-code='{code}']")
    assert page.locator(".seats-list li").count() == 1
    assert page.locator(".seats-list li .member-away").count() == 0
    assert page.evaluate("() => window.__wm.error") == ""
    assert page.locator(".error:not(:empty)").count() == 0
    page.click("[data-do='leave']")
    page.wait_for_selector("#create-form")
    page.click("#create-form button[type='submit']")
    page.wait_for_selector(".room-code")
    assert console.errors == [], console.errors
    context.close()
