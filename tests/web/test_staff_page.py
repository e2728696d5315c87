"""The staff pages (管理, ``web/staff.js``) in the real browser against the real server
(``server/staff_api.py``): a player opening ``#/staff`` is told he may not and sees nothing
else; a moderator reaches the page from his profile, reads a report a player filed, looks
the reported player up from it and bans him with a reason (the API then has the ban), and
has no admin's buttons; an admin grants silver and sees the new balance, and resets a
password, shown once; the page fits a phone held upright (nothing wider than the screen,
touch targets of 40 px) and a desktop."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.store import Store
from wuhan_mahjong.store.admin import Admin

from .conftest import PHONE, register_user, server_and_store, wait_js

BOXES = """() => ({
  vw: innerWidth, scroll: document.documentElement.scrollWidth,
  small: [...document.querySelectorAll('#app button, #app select, #app input, #app .tab')]
    .filter((e) => e.offsetParent !== null)
    .map((e) => {
      const r = e.getBoundingClientRect();
      return {w: r.width, h: r.height, what: e.outerHTML.slice(0, 80)};
    })
    .filter((b) => b.h < 40 || b.w < 40),
  wide: [...document.querySelectorAll('#app *')]
    .filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5)
    .map((e) => e.outerHTML.slice(0, 80)).slice(0, 3),
})"""


@pytest.fixture(scope="module")
def staff_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Store]]:
    with server_and_store(tmp_path_factory.mktemp("staff-data")) as running:
        yield running


def _call(base: str, method: str, path: str, token: str, body: Any = None) -> Any:
    request = urllib.request.Request(
        f"{base}{path}", method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.loads(r.read())


def _signed_in(browser: Any, base: str, token: str, hash_: str, **ctx: Any) -> tuple[Any, Any, list[str]]:
    """A page signed in with ``token`` at ``hash_``; its console errors but the 403 of a
    refusal the test asks for."""
    context = browser.new_context(**ctx)
    context.add_init_script(f"localStorage.setItem('wm.token', {json.dumps(token)})")
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error"
            and not re.search(r"status of 403", m.text) else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/{hash_}")
    return context, page, errors


def _fits(page: Any, what: str) -> None:
    b = page.evaluate(BOXES)
    assert b["scroll"] <= b["vw"], (what, b["wide"])
    assert not b["wide"], (what, b["wide"])
    assert not b["small"], (what, b["small"][:3])


@pytest.mark.slow
def test_a_player_is_refused(browser: Any, staff_server: tuple[str, Store]) -> None:
    base, _ = staff_server
    token = register_user(base, "just_a_player")
    context, page, errors = _signed_in(browser, base, token, "#/staff")
    try:
        page.wait_for_selector("[data-staff-refused='1']")
        assert page.inner_text("[data-staff-refused]") == "只有管理人员可以打开这一页"
        assert page.locator(".staff-tabs, [data-staff-section], #nav [data-nav='staff']").count() == 0
        assert page.locator(".staff-page button").count() == 0
        page.goto(f"{base}/#/profile")
        page.wait_for_selector("[data-field='silver']")
        wait_js(page, "window.__wm.history !== undefined")
        assert page.locator("[data-staff-link]").count() == 0
        assert errors == []
    finally:
        context.close()


@pytest.mark.slow
def test_a_moderator_bans_a_reported_player(browser: Any, staff_server: tuple[str, Store],
                                            artifacts: Path) -> None:
    base, store = staff_server
    mod = register_user(base, "mod_mei")
    reporter = register_user(base, "reporter_li")
    register_user(base, "cheater_wu")
    Admin(store, "root").set_role("mod_mei", "moderator")
    _call(base, "POST", "/api/reports", reporter, {"reason": "name", "username": "cheater_wu"})
    context, page, errors = _signed_in(browser, base, mod, "#/profile")
    page.on("dialog", lambda d: d.accept())
    try:
        # his profile links to the staff pages (and the menu has them, once the role is known)
        page.wait_for_selector("[data-staff-link='moderator']")
        page.wait_for_selector("#nav [data-nav='staff']")
        page.click("[data-staff-link]")
        page.wait_for_selector("[data-staff-section='reports'] [data-staff-report]")
        assert page.get_attribute(".staff-page", "data-staff-role") == "moderator"
        # the platform at a glance: the report just filed is open, its players registered
        stats = page.locator("[data-staff-stat] b").evaluate_all(
            "els => Object.fromEntries(els.map((e) => [e.parentNode.dataset.staffStat, "
            "Number(e.textContent)]))")
        assert stats["reports"] >= 1 and stats["players"] >= 3 and stats["online"] >= 1, stats
        tabs = page.locator(".staff-tabs [data-staff-tab]").evaluate_all(
            "els => els.map((e) => e.dataset.staffTab)")
        assert tabs == ["reports", "player", "tables", "clubs", "tournaments", "fairplay", "log"]
        row = page.locator("[data-staff-report]").first
        text = row.inner_text()
        assert "不当昵称" in text and "reporter_li" in text, text
        page.screenshot(path=str(artifacts / "staff-reports-desktop.png"), full_page=True)
        # the reported player, looked up from the report
        row.locator("[data-staff-lookup='cheater_wu']").click()
        page.wait_for_selector("[data-staff-account='cheater_wu']")
        assert page.evaluate("location.hash") == "#/staff?tab=player&name=cheater_wu"
        assert page.input_value("#staff-name") == "cheater_wu"
        assert page.inner_text("[data-field='ban']") == "未封禁"
        assert page.inner_text("[data-field='reports']") == "待处理 1 · 共 1"
        assert page.locator("#staff-grant-form, [data-staff-act='reset_password'], "
                            "#staff-close-form, [data-staff-act='moderator']").count() == 0
        page.fill("#staff-ban-reason", "昵称辱骂他人")
        page.click("#staff-ban-form button[type=submit]")
        page.wait_for_selector("[data-staff-act='unban']")
        assert "昵称辱骂他人" in page.inner_text("[data-field='ban']")
        assert page.inner_text("[data-staff-note]") == "已封禁 cheater_wu"
        shown = _call(base, "GET", "/api/staff/accounts/cheater_wu", mod)["account"]
        assert shown["ban"]["reason"] == "昵称辱骂他人"
        # a second ban is refused by the store: said next to the account, in words
        # (the report closes with a note)
        with page.expect_response(lambda r: "/api/staff/reports" in r.url):  # the list, fresh
            page.click("[data-staff-tab='reports']")
        page.wait_for_selector("form[data-staff-close] input[name=note]")
        page.fill("form[data-staff-close] input[name=note]", "已封号")
        wait_js(page, "document.querySelector('form[data-staff-close] input[name=note]')"
                      ".value === '已封号'")
        page.press("form[data-staff-close] input[name=note]", "Enter")
        page.wait_for_selector(".staff-none")
        page.click("[data-staff-do='closed-too']")
        page.wait_for_selector("[data-staff-report][data-status='closed']")
        assert "已封号" in page.inner_text("[data-staff-report]")
        # the other tabs draw (empty lists), the log has his actions under web:NAME
        page.click("[data-staff-tab='log']")
        page.wait_for_selector("[data-staff-log]")
        assert "web:mod_mei" in page.inner_text("[data-staff-section='log']")
        page.click("[data-staff-tab='tables']")
        page.wait_for_selector(".staff-drain[data-draining='0']")
        assert page.locator("[data-staff-do='drain']").count() == 0  # an admin's
        page.click("[data-staff-tab='fairplay']")
        page.click("#staff-fair-form button[type=submit]")
        page.wait_for_selector(".staff-fair-summary")
        assert errors == []
    finally:
        context.close()


@pytest.mark.slow
def test_an_admin_grants_and_resets_a_password(browser: Any, staff_server: tuple[str, Store],
                                               artifacts: Path) -> None:
    base, store = staff_server
    boss = register_user(base, "boss_zhang")
    register_user(base, "pat_chen")
    Admin(store, "root").set_role("boss_zhang", "admin")
    before = _call(base, "GET", "/api/staff/accounts/pat_chen", boss)["account"]["silver"]
    context, page, errors = _signed_in(browser, base, boss, "#/staff?tab=player")
    page.on("dialog", lambda d: d.accept())
    try:
        page.wait_for_selector("#staff-lookup-form")
        assert page.locator("[data-staff-tab='audit']").count() == 1
        page.fill("#staff-name", "pat_chen")
        page.click("#staff-lookup-form button[type=submit]")
        page.wait_for_selector("[data-staff-account='pat_chen'] #staff-grant-form")
        assert page.inner_text("[data-field='silver']") == str(before)
        page.fill("#staff-grant-amount", "250")
        page.fill("#staff-grant-reason", "补偿掉线")
        page.click("#staff-grant-form button[type=submit]")
        wait_js(page, f"document.querySelector(\"[data-field='silver']\").textContent === '{before + 250}'")
        assert page.inner_text("[data-ledger-reason='operator_grant']") == "管理发放"
        assert page.inner_text("[data-staff-note]") == f"已发放，pat_chen 现在有 {before + 250} 银子"
        assert page.input_value("#staff-grant-amount") == ""
        # the password: shown once, with a copy button; gone after leaving the tab
        page.click("[data-staff-act='reset_password']")
        page.wait_for_selector("[data-staff-password='pat_chen'] [data-password]")
        password = page.inner_text("[data-password]")
        assert len(password) >= 8
        assert page.locator("[data-staff-password] [data-staff-do='copy']").count() == 1
        with urllib.request.urlopen(urllib.request.Request(
                f"{base}/api/login", method="POST", headers={"Content-Type": "application/json"},
                data=json.dumps({"username": "pat_chen", "password": password}).encode()),
                timeout=30) as r:
            assert r.status == 200
        page.screenshot(path=str(artifacts / "staff-admin-desktop.png"), full_page=True)
        page.click("[data-staff-tab='audit']")
        page.wait_for_selector("[data-audit-ok='1']")
        page.click("[data-staff-tab='player']")
        page.wait_for_selector("[data-staff-account='pat_chen']")
        assert page.locator("[data-staff-password]").count() == 0
        # a refusal of the store is said in words: taking more silver than he has
        page.fill("#staff-grant-amount", str(-(before + 1000)))
        page.click("#staff-grant-form button[type=submit]")
        page.wait_for_selector("[data-error-for='staff-player']")
        assert page.inner_text("[data-error-for='staff-player']").startswith("没有做成")
        assert errors == [] or all("status of 409" in e for e in errors), errors
    finally:
        context.close()


@pytest.mark.slow
def test_the_pages_fit_a_phone(browser: Any, staff_server: tuple[str, Store],
                               artifacts: Path) -> None:
    base, store = staff_server
    admin = register_user(base, "phone_admin")
    register_user(base, "WWWWWWWWWWWWWWWWWWWW")
    Admin(store, "root").set_role("phone_admin", "admin")
    reporter = register_user(base, "phone_reporter")
    _call(base, "POST", "/api/reports", reporter,
          {"reason": "name", "username": "WWWWWWWWWWWWWWWWWWWW"})
    with pytest.raises(urllib.error.HTTPError):  # a player may not
        _call(base, "GET", "/api/staff", reporter)
    context, page, errors = _signed_in(browser, base, admin, "#/staff", **PHONE)
    page.on("dialog", lambda d: d.accept())
    try:
        page.wait_for_selector("[data-staff-report]")
        _fits(page, "reports")
        page.screenshot(path=str(artifacts / "staff-reports-phone.png"), full_page=True)
        page.click("[data-staff-lookup='WWWWWWWWWWWWWWWWWWWW']")
        page.wait_for_selector("[data-staff-account] #staff-close-form")
        _fits(page, "player")
        page.click("[data-staff-act='reset_password']")
        page.wait_for_selector("[data-password]")
        _fits(page, "password")
        page.screenshot(path=str(artifacts / "staff-player-phone.png"), full_page=True)
        for tab in ("tables", "clubs", "tournaments", "fairplay", "log", "audit"):
            page.click(f"[data-staff-tab='{tab}']")
            page.wait_for_selector(f"[data-staff-section='{tab}']")
            wait_js(page, "!document.querySelector('.staff-section').textContent.includes('加载中')")
            if tab == "fairplay":
                page.click("#staff-fair-form button[type=submit]")
                page.wait_for_selector(".staff-fair-summary")
            _fits(page, tab)
        page.click("[data-staff-tab='tables']")
        page.click("[data-staff-do='drain']")
        page.wait_for_selector(".staff-drain[data-draining='1']")
        page.click("[data-staff-do='drain']")
        page.wait_for_selector(".staff-drain[data-draining='0']")
        page.screenshot(path=str(artifacts / "staff-tables-phone.png"), full_page=True)
        assert errors == []
    finally:
        context.close()
