"""The profile's account card in the real browser against the real server: a new password
(a wrong current one is marked on its field; the tab keeps a fresh session and its socket,
where every other session ends), and closing the account (注销) after a confirmation, which
leads to the login screen saying so; a guest closes without a password."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import as_guest, register_user, run_server, signed_in, wait_js

PASSWORD = "correct horse battery staple"
NEW_PASSWORD = "a whole new staple horse"


@pytest.fixture(scope="module")
def account_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("wuhan_mahjong.server.app")
    with run_server(tmp_path_factory.mktemp("account-data")) as base:
        yield base


def _login(base: str, username: str, password: str) -> int:
    request = urllib.request.Request(
        f"{base}/api/login", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"username": username, "password": password}).encode())
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def _unexpected(errors: list[str]) -> list[str]:
    """Console errors but the 401 answers the test asks for (a wrong password)."""
    return [e for e in errors if "401" not in e]


@pytest.mark.slow
def test_a_new_password_then_closing_the_account(browser: Any, account_server: str,
                                                 artifacts: Path) -> None:
    base = account_server
    token = register_user(base, "wendy", PASSWORD)
    other = register_user(base, "wendy2", PASSWORD)
    assert other
    context, page, console = signed_in(browser, base, token, "#/profile")
    try:
        page.wait_for_selector(".account-card #password-form")
        wait_js(page, "window.__wm.wsOpen === true")
        page.fill("#pw-old", "not my password")
        page.fill("#pw-new", NEW_PASSWORD)
        page.click("#password-form button[type=submit]")
        page.wait_for_selector("#password-form [data-field-error='old_password']")
        assert page.get_attribute("#pw-old", "aria-invalid") == "true"
        page.fill("#pw-old", PASSWORD)
        page.fill("#pw-new", NEW_PASSWORD)
        page.click("#password-form button[type=submit]")
        page.wait_for_selector("[data-password-changed]")
        assert page.input_value("#pw-old") == page.input_value("#pw-new") == ""
        # still signed in, on a new session, with the socket back
        assert page.evaluate("location.hash") == "#/profile"
        fresh = page.evaluate("localStorage.getItem('wm.token')")
        assert fresh and fresh != token
        wait_js(page, "window.__wm.wsOpen === true")
        assert _login(base, "wendy", PASSWORD) == 401
        assert _login(base, "wendy", NEW_PASSWORD) == 200
        page.screenshot(path=str(artifacts / "account-card.png"), full_page=True)

        # closing: a wrong password is refused, cancelling the confirmation keeps it
        page.click(".close-account summary")
        page.fill("#close-pw", PASSWORD)  # the old one
        page.once("dialog", lambda d: d.accept())
        page.click("#close-form button[type=submit]")
        page.wait_for_selector("#close-form [data-error-for='close-form']:not(:empty)")
        assert page.get_attribute("#close-pw", "aria-invalid") == "true"
        page.fill("#close-pw", NEW_PASSWORD)
        page.once("dialog", lambda d: d.dismiss())
        page.click("#close-form button[type=submit]")
        assert _login(base, "wendy", NEW_PASSWORD) == 200
        page.fill("#close-pw", NEW_PASSWORD)
        page.once("dialog", lambda d: d.accept())
        page.click("#close-form button[type=submit]")
        page.wait_for_selector("[data-login-note]")
        assert page.locator("[data-login-note]").inner_text() == "账号已注销。"
        assert page.evaluate("localStorage.getItem('wm.token')") is None
        assert _login(base, "wendy", NEW_PASSWORD) == 401
        assert _unexpected(console.errors) == [], console.errors
    finally:
        context.close()


@pytest.mark.slow
def test_a_guest_closes_his_account(browser: Any, account_server: str) -> None:
    context, page, console = as_guest(browser, account_server)
    try:
        page.evaluate("() => { location.hash = '#/profile'; }")
        page.wait_for_selector(".account-card")
        assert page.locator("#password-form").count() == 0  # no password to change
        page.click(".close-account summary")
        assert page.locator("#close-pw").count() == 0
        page.once("dialog", lambda d: d.accept())
        page.click("#close-form button[type=submit]")
        page.wait_for_selector("[data-login-note]")
        page.click("#lang")
        page.wait_for_selector("[data-login-note]")
        assert console.errors == [], console.errors
    finally:
        context.close()
