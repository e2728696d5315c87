"""The browser tests' own helpers: a missing browser fails under CI, and console
errors say which URL they came from."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Console, missing_service


def test_a_missing_browser_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CI", "WUHAN_MAHJONG_REQUIRE_SERVICES"):
        monkeypatch.delenv("CI", raising=False)
        monkeypatch.delenv("WUHAN_MAHJONG_REQUIRE_SERVICES", raising=False)
        with pytest.raises(pytest.skip.Exception):
            missing_service("no chromium here")
        monkeypatch.setenv(name, "1")
        with pytest.raises(pytest.fail.Exception, match="no chromium here; the browser tests cannot run"):
            missing_service("no chromium here")


def test_console_errors_name_the_url(browser: Any, static_server: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    console = Console(page)
    page.goto(f"{static_server}/src/wuhan_mahjong/web/index.html#/fixture?src=/tests/web/fixtures/views.json"
              "&frame=turn")
    page.wait_for_selector(".table")
    assert console.errors == []
    with page.expect_console_message(lambda m: m.type == "error"):
        page.evaluate("fetch('/no/such/thing.json').catch(() => null)")
    with page.expect_event("pageerror"):
        page.evaluate("setTimeout(() => { throw new Error('boom') }, 0)")
    fetched, thrown = console.errors
    assert fetched.startswith("console.error at http") and "/no/such/thing.json" in fetched, fetched
    assert thrown.startswith("pageerror at http") and "boom" in thrown, thrown
    context.close()
