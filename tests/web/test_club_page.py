"""Clubs (亲友圈) in the real browser against the real server (``web/clubs.js``): a player
founds one from the menu's 亲友圈 page with its rules, another asks to join by its number,
the owner lets him in on the club's page, and the member then sees the standings' tabs and
the members; a member opens a table of the club (played by the club's rules) and another
joins it from the club's page, an outsider is refused it; an applicant sees only the club's
face; the pages fit a phone held upright and a desktop."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.server.clubs_api import period_start
from wuhan_mahjong.store.models import utcnow

from .conftest import PHONE, as_guest, register_user, signed_in, wait_held, wait_js

RULES = {"profile": "bianfeng", "hands": 2, "opening_scoring": "per_opening", "cap": 250}
BOXES = """() => ({
  vw: innerWidth, scroll: document.documentElement.scrollWidth,
  bar: document.querySelector('#topbar').getBoundingClientRect().height,
  small: [...document.querySelectorAll('#app button, #app select, #app input, .topbar button, .topbar a')]
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


def _call(base: str, method: str, path: str, token: str, body: Any = None) -> Any:
    request = urllib.request.Request(
        f"{base}{path}", method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.loads(r.read())


def _club_over_http(base: str, owner: str, members: list[str], pending: list[str]) -> int:
    """A club of `owner`'s (its rules :data:`RULES`) with `members` let in and `pending`
    waiting; its number."""
    number = int(_call(base, "POST", "/api/clubs", owner,
                       {"name": "江汉 牌友", "notice": "每晚八点", "options": RULES})["number"])
    for token in members + pending:
        assert _call(base, "POST", f"/api/clubs/{number}/apply", token, {}) == {"role": "pending"}
    mine = _call(base, "GET", f"/api/clubs/{number}", owner)["members"]
    for m in mine:
        if m["role"] == "pending" and m["username"] in _names(base, members):
            _call(base, "POST", f"/api/clubs/{number}/members", owner,
                  {"username": m["username"], "action": "approve"})
    return number


_NAMES: dict[str, str] = {}


def _user(base: str, name: str) -> str:
    token = register_user(base, name)
    _NAMES[token] = name
    return token


def _names(base: str, tokens: list[str]) -> list[str]:
    return [_NAMES[t] for t in tokens]


def _unexpected(*consoles: Any) -> list[str]:
    """Console errors but the refusals the tests ask for (the browser logs a 4xx fetch)."""
    return [e for c in consoles for e in c.errors
            if not re.search(r"status of (400|404|409)", e)]


def _fits(page: Any, what: str, phone: bool) -> None:
    b = page.evaluate(BOXES)
    assert b["scroll"] <= b["vw"], (what, b["wide"])
    assert b["bar"] <= 56, (what, b["bar"])
    if phone:
        assert not b["small"], (what, b["small"][:3])


@pytest.mark.slow
def test_found_apply_approve_in_the_pages(browser: Any, live_server: str, artifacts: Path) -> None:
    base = live_server
    owner_token = _user(base, "圈主老王")
    amy_token = _user(base, "amy_club")
    context, page, console = signed_in(browser, base, owner_token, "#/lobby")
    amy_context, amy, amy_console = signed_in(browser, base, amy_token, "#/clubs")
    page.on("dialog", lambda d: d.accept())
    try:
        page.click("#nav [data-nav='clubs']")
        page.wait_for_selector("#club-form")
        assert page.locator(".club-none").count() == 1
        limits = page.inner_text(".club-limits")
        assert "3" in limits and "20" in limits and "500" in limits, limits
        page.click("#club-form button[type=submit]")  # no name: said on the form, nothing sent
        wait_js(page, "document.querySelector(\"[data-error-for='club-form']\")"
                      ".textContent.includes('名称')")
        page.fill("#club-name", "汉口老友")
        page.fill("#club-notice", "周五晚八点 不见不散")
        page.select_option("#club-profile", "bianfeng")
        page.select_option("#club-opening_scoring", "per_opening")
        page.fill("#club-hands", "2")
        page.fill("#club-cap", "250")
        page.select_option("#club-distinct_addresses", "on")  # 同IP禁止进入 at its tables
        page.click("#club-form button[type=submit]")
        page.wait_for_selector("[data-club-name='汉口老友']")
        number = page.get_attribute("[data-club-number]", "data-club-number")
        assert number is not None and re.fullmatch(r"[0-9]{6}", number)
        assert page.evaluate("location.hash") == f"#/club?n={number}"
        rules = page.inner_text(".club-rules")
        for part in ("边锋", "口口翻", "局数 2", "封顶 250", "同IP禁止进入"):
            assert part in rules, (part, rules)
        assert page.inner_text("[data-club-notice]") == "周五晚八点 不见不散"
        assert page.inner_text(".club-page .club-role") == "我的身份：圈主"
        assert page.locator(".club-no-applications").count() == 1
        assert page.locator("[data-club-member-row]").count() == 1
        # the second player asks to join by the number: a bad number first
        amy.wait_for_selector("#club-join-form")
        amy.fill("#club-join-number", "12345")
        amy.click("#club-join-form button[type=submit]")
        wait_js(amy, "document.querySelector(\"[data-error-for='club-join-form']\")"
                     ".textContent.includes('6 位数字')")
        other = "100000" if number != "100000" else "100001"
        amy.fill("#club-join-number", other)  # no such club
        amy.click("#club-join-form button[type=submit]")
        wait_js(amy, "document.querySelector(\"[data-error-for='club-join-form']\")"
                     ".textContent.includes('没有这个亲友圈')")
        amy.fill("#club-join-number", number)
        amy.click("#club-join-form button[type=submit]")
        amy.wait_for_selector("[data-club-applied]")
        assert "等圈主或管理员同意" in amy.inner_text("[data-club-applied]")
        amy.wait_for_selector(f".club-list [data-club='{number}'] .club-role[data-role='pending']")
        assert amy.input_value("#club-join-number") == ""
        amy.click(f".club-list [data-club='{number}'] a")
        amy.wait_for_selector("[data-club-name='汉口老友']")
        assert amy.locator(".club-members, .club-tables, .club-board").count() == 0
        # the owner's list says an application waits; he answers on the club's page
        page.click("#nav [data-nav='clubs']")
        page.wait_for_selector(f".club-list [data-club='{number}'] [data-club-pending='1']")
        assert page.inner_text("[data-club-pending]") == "1 个申请待审核"
        page.click(f".club-list [data-club='{number}'] a")
        page.wait_for_selector("[data-club-applicant='amy_club']")
        page.click("[data-club-applicant='amy_club'] [data-club-action='approve']")
        page.wait_for_selector("[data-club-member-row='amy_club'][data-role='member']")
        assert page.locator("[data-club-applicant]").count() == 0
        assert page.locator("[data-club-members='2']").count() == 1
        page.screenshot(path=str(artifacts / "club-owner.png"), full_page=True)
        # the member's page: the standings' tabs and the members, nothing to manage
        amy.reload()
        amy.wait_for_selector(".club-board nav.tabs")
        tabs = amy.locator(".club-board [data-club-period]")
        assert tabs.all_inner_texts() == ["本周", "本月", "全部"]
        assert amy.get_attribute("[data-club-period='week']", "aria-current") == "page"
        amy.wait_for_selector(".club-no-standings")
        amy.click("[data-club-period='month']")
        wait_js(amy, "location.hash.endsWith('&period=month') && document.querySelector("
                     "\"[data-club-period='month']\").getAttribute('aria-current') === 'page'")
        amy.wait_for_selector(".club-no-standings")
        # the month began at midnight on the server's calendar (Asia/Shanghai): its first day,
        # whatever the browser's zone (in UTC that midnight is on the day before)
        first = period_start("month", utcnow(), "Asia/Shanghai")
        assert first is not None
        amy.wait_for_selector(".club-board .muted")
        assert f"自 {first.year}/{first.month}/1 起" in amy.inner_text(".club-board")
        rows = amy.locator("[data-club-member-row]")
        assert rows.count() == 2
        # both have the page open, so both are connected: online, and counted
        assert amy.locator("[data-club-member-row][data-online='1'] .club-online").count() == 2
        assert amy.inner_text(".club-online-count") == "2 人在线"
        assert amy.get_attribute("[data-club-member-row='圈主老王']", "data-role") == "owner"
        assert amy.inner_text("[data-club-member-row='圈主老王'] .club-role") == "圈主"
        assert amy.locator("[data-club-member], [data-club-transfer], [data-club-applicant]").count() == 0
        assert amy.locator("[data-club-do='leave']").count() == 1
        assert amy.locator("[data-club-do='dissolve'], [data-club-do='edit']").count() == 0
        amy.screenshot(path=str(artifacts / "club-member.png"), full_page=True)
        # the owner names him admin, then changes the notice; the member sees both
        page.click("[data-club-member='amy_club'][data-club-action='admin']")
        page.wait_for_selector("[data-club-member-row='amy_club'][data-role='admin']")
        page.click("[data-club-do='edit']")
        page.wait_for_selector("#club-edit-form #ce-hands")
        assert page.input_value("#ce-hands") == "2" and page.input_value("#ce-cap") == "250"
        page.fill("#ce-notice", "改到周六")
        page.fill("#ce-hands", "3")
        page.click("#club-edit-form button[type=submit]")
        wait_js(page, "document.querySelector('[data-club-notice]').textContent === '改到周六'")
        assert page.locator("#club-edit-form").count() == 0
        assert "局数 3" in page.inner_text(".club-rules")
        amy.reload()
        amy.wait_for_selector("[data-club-member-row='amy_club'][data-role='admin']")
        assert amy.inner_text("[data-club-notice]") == "改到周六"
        # an admin edits the notice only, and may not dissolve
        assert amy.locator("[data-club-do='edit']").count() == 1
        amy.click("[data-club-do='edit']")
        amy.wait_for_selector("#club-edit-form #ce-notice")
        assert amy.locator("#ce-name, #ce-hands").count() == 0
        # the lobby's card lists his club, no application waiting now
        page.click("#nav [data-nav='lobby']")
        page.wait_for_selector(f".club-card [data-club='{number}']")
        assert page.locator(".club-card [data-club-pending]").count() == 0
        assert _unexpected(console, amy_console) == []
    finally:
        amy_context.close()
        context.close()


@pytest.mark.slow
def test_a_club_table_opened_and_joined_from_the_page(browser: Any, live_server: str) -> None:
    base = live_server
    host, friend, third, outsider = (_user(base, n) for n in ("tbl_host", "tbl_friend",
                                                              "tbl_third", "tbl_out"))
    number = _club_over_http(base, host, [friend, third], [])
    context, page, console = signed_in(browser, base, friend, f"#/club?n={number}")
    host_context, other, other_console = signed_in(browser, base, host, f"#/club?n={number}")
    out_context, out, out_console = signed_in(browser, base, outsider, "#/lobby")
    third_context, watcher, watcher_console = signed_in(browser, base, third, f"#/club?n={number}")
    try:
        page.wait_for_selector(".club-no-rooms")
        page.click("[data-club-do='open']")
        page.wait_for_selector(".room-code", timeout=15_000)  # the room's screen
        code = page.get_attribute(".room-code", "data-code")
        assert code and re.fullmatch(r"[0-9]{6}", code)
        assert page.get_attribute("[data-room-club]", "data-room-club") == str(number)
        assert page.inner_text("[data-room-club]") == f"亲友圈「江汉 牌友」（{number}）的桌子"
        line = page.inner_text(".room-options")
        assert "边锋" in line and "局数 2" in line and "口口翻" in line, line  # the club's rules
        # another member's page lists the waiting table with its 加入; 快速加入 seats him at
        # the waiting table (not at a new one)
        other.click("[data-club-do='refresh']")
        other.wait_for_selector(f"[data-club-room='{code}']")
        listed = other.inner_text(f"[data-club-room='{code}']")
        assert "tbl_friend" in listed and "1/4" in listed, listed
        assert other.locator(f"[data-club-join='{code}']").count() == 1
        other.click("[data-club-do='quick']")
        other.wait_for_selector(f".room-code[data-code='{code}']", timeout=15_000)
        wait_js(other, "window.__wm.room && window.__wm.room.members.length === 2")
        assert "局数 2" in other.inner_text(".room-options")
        # an outsider with the code is refused, in his words
        out.wait_for_selector("#join-form")
        out.fill("#join-form input[name=code]", code)
        out.click("#join-form button[type=submit]")
        wait_js(out, "document.querySelector(\"[data-error-for='join-form']\").textContent"
                     f".includes('只有亲友圈 {number} 的成员')")
        # he cannot see the club's tables either
        out.evaluate(f"() => {{ location.hash = '#/club?n={number}'; }}")
        out.wait_for_selector("[data-club-do='apply']")
        assert out.locator("[data-club-room], .club-tables").count() == 0
        # the table starts (bots fill it); a third member sees the match running and watches it
        for p in (page, other):
            p.click("[data-do='ready']")
        wait_js(page, "window.__wm.room && window.__wm.room.members.every((m) => m.ready)")
        page.click("[data-do='start']")
        page.wait_for_selector(".table", timeout=20_000)
        watcher.click("[data-club-do='refresh']")
        watcher.wait_for_selector(".club-matches [data-status='running']")
        assert watcher.locator("[data-club-room]").count() == 0  # no longer waiting
        running = watcher.inner_text(".club-matches li")
        assert "0/2" in running, running
        table_id = wait_js(page, "window.__wm.table && window.__wm.table.table_id")
        watcher.click(f".club-matches [data-watch='{table_id}']")
        wait_js(watcher, "window.__wm.screen === 'watch'")
        assert f"#/watch?id={table_id}" in watcher.url
        assert _unexpected(console, other_console, out_console, watcher_console) == []
    finally:
        third_context.close()
        out_context.close()
        host_context.close()
        context.close()


def test_an_applicant_sees_the_face_only(browser: Any, live_server: str) -> None:
    base = live_server
    owner, member, waiting, stranger = (_user(base, n) for n in ("face_owner", "face_member",
                                                                  "face_wait", "face_new"))
    number = _club_over_http(base, owner, [member], [waiting])
    context, page, console = signed_in(browser, base, waiting, f"#/club?n={number}")
    s_context, s_page, s_console = signed_in(browser, base, stranger, f"#/club?n={number}")
    try:
        page.wait_for_selector("[data-club-name='江汉 牌友']")
        assert page.inner_text(".club-page .club-role") == "我的身份：待审核"
        assert page.locator(".club-pending").count() == 1
        assert "face_owner" in page.inner_text(".club-page .card")
        assert page.locator("[data-club-members='2']").count() == 1
        assert page.locator(".club-members, .club-tables, .club-board, .club-matches").count() == 0
        assert page.locator("[data-club-member-row], [data-club-room], [data-standing]").count() == 0
        assert page.locator("[data-club-do='open'], [data-club-do='apply']").count() == 0
        # an outsider sees the face and asks to join from the page; then he waits too
        s_page.wait_for_selector("[data-club-do='apply']")
        assert s_page.locator(".club-members, .club-tables, .club-board").count() == 0
        s_page.click("[data-club-do='apply']")
        s_page.wait_for_selector(".club-page .club-role[data-role='pending']")
        assert s_page.locator("[data-club-do='apply']").count() == 0
        s_page.click("[data-club-do='withdraw']")  # and takes it back
        s_page.wait_for_selector("[data-club-do='apply']")
        # a club that is not there
        s_page.evaluate("() => { location.hash = '#/club?n=12'; }")
        wait_js(s_page, "document.body.textContent.includes('没有这个亲友圈')")
        assert _unexpected(console, s_console) == []
    finally:
        s_context.close()
        context.close()


def test_a_guest_is_told_to_sign_up(browser: Any, live_server: str) -> None:
    context, page, console = as_guest(browser, live_server)
    try:
        page.click("#nav [data-nav='clubs']")
        page.wait_for_selector(".club-guest")
        assert "注册账号" in page.inner_text(".club-guest")
        assert page.locator("#club-form, #club-join-form").count() == 0
        assert console.errors == []
    finally:
        context.close()


@pytest.mark.slow
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_club_pages_fit(browser: Any, live_server: str, artifacts: Path, size: str) -> None:
    """The list with its forms and an owner's club page (applications, members with their
    buttons, tables, standings) fit a phone held upright and a desktop, in both languages:
    no sideways scrolling, the menu one row, touch targets of 40 px on the phone."""
    base = live_server
    owner = _user(base, f"fit{size[0]}_owner")
    others = [_user(base, f"fit{size[0]}_longplayername{k}") for k in range(2)]
    waiting = _user(base, f"fit{size[0]}_waiting")
    number = _club_over_http(base, owner, others, [waiting])
    _call(base, "POST", f"/api/clubs/{number}/settings", owner,
          {"notice": "公告：" + "周末八点开打，迟到罚唱一首歌。" * 8})
    phone = size == "phone"
    ctx = PHONE if phone else {"viewport": {"width": 1280, "height": 800}}
    context = browser.new_context(**ctx)
    context.add_init_script(f"localStorage.setItem('wm.token', {json.dumps(owner)})")
    page = context.new_page()
    try:
        for lang in ("zh", "en"):
            page.goto(f"{base}/#/clubs")
            page.evaluate(f"() => localStorage.setItem('wm.lang', '{lang}')")
            page.reload()
            page.wait_for_selector(f".club-list [data-club='{number}']")
            page.screenshot(path=str(artifacts / f"clubs-{size}-{lang}.png"), full_page=True)
            _fits(page, f"clubs {lang}", phone)
            page.evaluate(f"() => {{ location.hash = '#/club?n={number}'; }}")
            page.wait_for_selector("[data-club-applicant] [data-club-action='approve']")
            page.wait_for_selector(".club-no-standings")
            page.click("[data-club-do='edit']")
            page.wait_for_selector("#club-edit-form")
            page.screenshot(path=str(artifacts / f"club-{size}-{lang}.png"), full_page=True)
            _fits(page, f"club {lang}", phone)
    finally:
        context.close()


def test_remove_transfer_and_dissolve(browser: Any, live_server: str) -> None:
    """The owner's buttons: a refusal said by its code (the member he removes has just left),
    handing the club over (he stays an admin), and the new owner dissolving it, each after
    a question that may be answered no."""
    base = live_server
    owner, gone, heir = (_user(base, n) for n in ("own_old", "own_gone", "own_heir"))
    number = _club_over_http(base, owner, [gone, heir], [])
    context, page, console = signed_in(browser, base, owner, f"#/club?n={number}")
    heir_context, new, new_console = signed_in(browser, base, heir, f"#/club?n={number}")
    page.on("dialog", lambda d: d.accept())
    try:
        page.wait_for_selector("[data-club-member-row='own_gone']")
        assert _call(base, "POST", f"/api/clubs/{number}/leave", gone, {}) == {"ok": True}
        page.click("[data-club-member='own_gone'][data-club-action='remove']")  # a stale page
        wait_js(page, "document.querySelector(\"[data-error-for='club-members']\").textContent"
                      " === 'own_gone 不在这个亲友圈里，也没有申请加入'")
        assert page.locator("[data-club-member-row='own_gone']").count() == 0  # asked again
        page.click("[data-club-transfer='own_heir']")
        page.wait_for_selector("[data-club-member-row='own_heir'][data-role='owner']")
        assert page.inner_text(".club-page .club-role") == "我的身份：管理员"
        assert page.locator("[data-club-do='leave']").count() == 1
        assert page.locator("[data-club-do='dissolve'], [data-club-transfer]").count() == 0
        new.reload()
        new.wait_for_selector("[data-club-do='dissolve']")
        new.once("dialog", lambda d: d.dismiss())
        new.click("[data-club-do='dissolve']")  # answered no: nothing happens
        new.wait_for_timeout(300)
        assert new.evaluate("location.hash") == f"#/club?n={number}"
        new.once("dialog", lambda d: d.accept())
        new.click("[data-club-do='dissolve']")
        new.wait_for_selector(".club-none")
        assert new.evaluate("location.hash") == "#/clubs"
        page.click("[data-club-do='refresh']")
        wait_js(page, "document.body.textContent.includes('没有这个亲友圈')")
        assert _unexpected(console, new_console) == []
    finally:
        heir_context.close()
        context.close()


def test_the_owner_hears_of_an_application_on_any_screen(browser: Any, live_server: str) -> None:
    """A ``club_event`` on a page: the owner, on the lobby, sees the application and goes
    to review it; the applicant, on the lobby, sees that he is in and the line closes."""
    base = live_server
    owner, newcomer = (_user(base, n) for n in ("ev_owner", "ev_new"))
    number = _club_over_http(base, owner, [], [])
    context, page, console = signed_in(browser, base, owner, "#/lobby")
    new_context, new, new_console = signed_in(browser, base, newcomer, "#/lobby")
    try:
        page.wait_for_selector("#create-form")  # the lobby: welcomed, so connected
        new.wait_for_selector("#create-form")
        assert _call(base, "POST", f"/api/clubs/{number}/apply", newcomer, {}) == {
            "role": "pending"}
        page.wait_for_selector("[data-club-event='applied']")
        assert "ev_new 申请加入亲友圈" in page.inner_text("[data-club-event='applied']")
        page.click("[data-club-event-open]")
        page.wait_for_selector("[data-club-applicant='ev_new']")
        assert page.locator("[data-club-event]").count() == 0  # closed by going there
        page.click("[data-club-applicant='ev_new'] [data-club-action='approve']")
        new.wait_for_selector("[data-club-event='approved']")
        assert "ev_owner 同意了你加入亲友圈" in new.inner_text("[data-club-event]")
        new.wait_for_selector(f".club-card [data-club='{number}']")  # his clubs, asked again
        new.click("[data-club-event-close]")
        assert new.locator("[data-club-event]").count() == 0
        assert _unexpected(console, new_console) == []
    finally:
        new_context.close()
        context.close()


def test_names_and_notices_are_text_not_markup(browser: Any, live_server: str) -> None:
    """A club's name, notice and a member's name are shown as typed: markup in them is
    text (no element, no script), on the club's page, in my clubs and in an event line."""
    base = live_server
    owner, member = _user(base, "xss_owner"), _user(base, "xss_member")
    name = "<i>圈</i>&amp;"
    notice = "<img src=x onerror=\"window.__pwned=1\">公告"
    number = int(_call(base, "POST", "/api/clubs", owner,
                       {"name": name, "notice": notice, "options": RULES})["number"])
    context, page, console = signed_in(browser, base, owner, f"#/club?n={number}")
    try:
        page.wait_for_selector("[data-club-notice]")
        assert page.inner_text(".club-page h2") == name
        assert page.inner_text("[data-club-notice]") == notice
        assert page.locator(".club-page h2 i, .club-page img").count() == 0
        assert _call(base, "POST", f"/api/clubs/{number}/apply", member, {}) == {
            "role": "pending"}
        page.wait_for_selector("[data-club-event='applied']")  # the name in the event line
        assert name in page.inner_text("[data-club-event]")
        assert page.locator("[data-club-event] i").count() == 0
        page.goto(f"{base}/#/clubs")
        page.wait_for_selector(f"[data-club='{number}']")
        assert name in page.inner_text(f"[data-club='{number}']")
        assert page.evaluate("() => window.__pwned === undefined")
        assert _unexpected(console) == []
    finally:
        context.close()


def test_a_late_answer_does_not_undo_what_an_action_showed(browser: Any, live_server: str) -> None:
    """Two loads of the club's page in flight: a refresh asked before an approval must not,
    coming back after it, put the stale page back (the applicant waiting again, his button
    again). The refresh's answer is fetched at once and held back until the approval's
    load has been shown; then anything that draws the page again shows the newer one."""
    base = live_server
    owner, newcomer = _user(base, "late_owner"), _user(base, "late_new")
    number = _club_over_http(base, owner, [], [newcomer])
    context, page, console = signed_in(browser, base, owner, f"#/club?n={number}")
    held: list[tuple[Any, Any]] = []

    def hold_the_first(route: Any) -> None:
        if route.request.method == "GET" and not held:
            held.append((route, route.fetch()))  # the club as it is now, answered later
        else:
            route.continue_()

    try:
        page.wait_for_selector("[data-club-applicant='late_new']")
        page.route(re.compile(rf".*/api/clubs/{number}$"), hold_the_first)
        page.click("[data-club-do='refresh']")
        wait_held(page, held, "the refresh did not ask for the club")
        page.click("[data-club-applicant='late_new'] [data-club-action='approve']")
        page.wait_for_selector("[data-club-member-row='late_new'][data-role='member']")
        route, stale = held[0]
        with page.expect_event("requestfinished", lambda r: r == route.request):
            route.fulfill(response=stale)  # the refresh's answer, from before the approval
        page.wait_for_timeout(500)  # its JSON read and handled
        now = page.evaluate("""() => {
          document.querySelector('#lang').click(); // draws the page again from what it holds
          const row = document.querySelector("[data-club-member-row='late_new']");
          return {role: row && row.dataset.role,
                  waiting: document.querySelectorAll('[data-club-applicant]').length};
        }""")  # read at once: the page asks again every few seconds and would mend itself
        assert now == {"role": "member", "waiting": 0}
        assert _unexpected(console) == []
    finally:
        context.close()


def test_a_refresh_while_a_load_waits_for_the_standings_asks_for_them(
        browser: Any, live_server: str) -> None:
    """The page refreshes itself every few seconds without the standings (they change only
    with matches).  A load for an action or the refresh button asks for them; a timed
    refresh begun while that answer was on its way made it stale, and the standings stayed
    as they were before.  A refresh now asks for standings an overtaken load never showed."""
    base = live_server
    owner, newcomer = _user(base, "owed_owner"), _user(base, "owed_new")
    number = _club_over_http(base, owner, [], [newcomer])
    context, page, console = signed_in(browser, base, owner, f"#/club?n={number}")
    held: list[tuple[Any, Any]] = []
    later: list[int] = []
    standings_url = re.compile(rf".*/api/clubs/{number}/standings.*")

    def standings(route: Any) -> None:
        answer = route.fetch()
        if not held:
            held.append((route, answer))  # the button's standings, answered late
            return
        later.append(1)
        route.fulfill(response=answer, json={**answer.json(), "answer": len(later)})

    try:
        page.wait_for_selector("[data-club-applicant='owed_new']")
        # the button's load, answered: its end sets the next timed refresh, 8 s on
        with page.expect_response(standings_url):
            page.click("[data-club-do='refresh']")
        page.route(standings_url, standings)
        page.click("[data-club-do='refresh']")  # again at once: its standings are held
        wait_held(page, held, "the button's load did not ask for the standings")
        # the timed refresh comes while they are held, and asks for them itself
        wait_js(page, "window.__wm.club.standings && window.__wm.club.standings.answer >= 1", 30)
        route, answer = held[0]
        route.fulfill(response=answer)
        assert _unexpected(console) == []
    finally:
        context.close()
