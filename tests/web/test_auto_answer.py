"""自动胡 / 自动过 (``web/settings.js``) in the shipped client: off by default; turned on
in the settings page (kept on the device), 自动过 passes a chi offered on another's
discard at once, and 自动胡 declares a win offered at once; 自动过 never passes a win.
The views are real engine views (``make_fixtures.py``); the win is added to one's legal
actions here, since the client only picks among the actions the server sent."""

from __future__ import annotations

import json
from typing import Any

from .conftest import Console, as_guest, to_quick_table, wait_js
from .test_fixture_page import PAGE, VIEWS


def open_claim(browser: Any, base: str, settings: dict[str, bool] | None,
               with_win: bool = False) -> tuple[Any, Any, Console]:
    """The claim frame (a chi offered), with these settings saved on the device."""
    context = browser.new_context()
    if settings is not None:
        context.add_init_script(
            f"localStorage.setItem('wm.settings', {json.dumps(json.dumps(settings))})")
    page = context.new_page()
    console = Console(page)
    if with_win:
        view = dict(VIEWS["claim_chi"])
        view["legal_actions"] = [*view["legal_actions"], {"type": "win", "tiles": ""}]
        body = json.dumps({"claim_chi": view})
        page.route("**/views-with-win.json", lambda route: route.fulfill(
            status=200, content_type="application/json", body=body))
        src = "/tests/web/fixtures/views-with-win.json"
    else:
        src = "/tests/web/fixtures/views.json"
    page.goto(f"{base}{PAGE}#/fixture?src={src}&frame=claim_chi")
    page.wait_for_selector(".table")
    wait_js(page, "document.body.dataset.ready === '1'")
    return context, page, console


def last_action(page: Any) -> Any:
    return page.evaluate("window.__lastAction === undefined ? null : window.__lastAction")


def test_off_by_default_then_pass_and_win_at_once(browser: Any, static_server: str) -> None:
    pass_action = next(a for a in VIEWS["claim_chi"]["legal_actions"] if a["type"] == "pass")
    checks = [
        (None, False, None),  # nothing saved: the player decides
        ({"autopass": True}, False, pass_action),
        ({"autopass": True}, True, None),  # a win offered: never passed
        ({"autowin": True}, True, {"type": "win", "tiles": ""}),
        ({"autowin": True, "autopass": True}, True, {"type": "win", "tiles": ""}),
    ]
    for settings, with_win, expected in checks:
        context, page, console = open_claim(browser, static_server, settings, with_win)
        page.wait_for_timeout(100)
        assert last_action(page) == expected, (settings, with_win)
        assert page.locator("button[data-act='chi']").count() == 1
        assert console.errors == []
        context.close()


def test_the_settings_page_keeps_them(browser: Any, static_server: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    console = Console(page)
    page.goto(f"{static_server}{PAGE}#/settings")
    page.wait_for_selector("#set-autowin")
    assert not page.is_checked("#set-autowin") and not page.is_checked("#set-autopass")
    assert "自动胡" in page.locator("label[for='set-autowin']").inner_text()
    page.check("#set-autopass")
    saved = json.loads(page.evaluate("localStorage.getItem('wm.settings')"))
    assert saved["autopass"] is True and saved["autowin"] is False
    page.reload()
    page.wait_for_selector("#set-autopass")
    assert page.is_checked("#set-autopass") and not page.is_checked("#set-autowin")
    assert console.errors == []
    context.close()


def test_the_table_info_panel_switches_them(browser: Any, live_server: str) -> None:
    """At the table (where the settings page is an escape away) the 本桌规则 panel has the
    two switches; a change is kept on the device."""
    context, page, console = as_guest(browser, live_server)
    to_quick_table(page)
    page.click("[data-do='info']")
    page.wait_for_selector("#table-auto-form input[name='autopass']")
    assert not page.is_checked("#table-auto-form input[name='autopass']")
    page.check("#table-auto-form input[name='autopass']")
    saved = json.loads(page.evaluate("localStorage.getItem('wm.settings')"))
    assert saved["autopass"] is True and saved["autowin"] is False
    assert page.is_checked("#table-auto-form input[name='autopass']")  # drawn again, still on
    # the tiles' size, the sound and the animations' speed change there too, at once
    page.select_option("#table-set-tiles", "large")
    wait_js(page, "document.documentElement.dataset.tiles === 'large'")
    page.uncheck("#table-auto-form input[name='sound']")
    page.select_option("#table-set-speed", "fast")
    saved = json.loads(page.evaluate("localStorage.getItem('wm.settings')"))
    assert (saved["tiles"], saved["sound"], saved["speed"]) == ("large", False, "fast")
    assert page.input_value("#table-set-tiles") == "large"
    assert console.errors == []
    context.close()
