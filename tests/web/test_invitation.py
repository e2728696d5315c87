"""A room's invitation link in the real browser against the real server.

The host of a private room finds its invitation link (#/join?code=…) on the room screen and
copies it with one button.  A friend who opens it without an account is told where it
leads, plays as guest and lands in the room; a friend already signed in lands there at
once.  A link with a code that is not one opens the lobby with the join form saying so.
No console errors.
"""

from __future__ import annotations

import urllib.request
from typing import Any

import pytest

from .conftest import as_guest, open_page, register_user, signed_in, wait_js


def _members(page: Any) -> int:
    return int(page.locator(".seats-list li").count())


@pytest.mark.slow
def test_a_friend_joins_the_room_from_its_link(browser: Any, live_server: str) -> None:
    base = live_server
    host_ctx, host, host_console = as_guest(browser, base,
                                           permissions=["clipboard-read", "clipboard-write"])
    contexts = [host_ctx]
    try:
        host.click("#create-form button[type='submit']")
        host.wait_for_selector(".room-code")
        code = host.get_attribute(".room-code", "data-code")
        assert code and len(code) == 6
        link = host.input_value("#invite-link")
        assert link == f"{base}/#/join?code={code}", link
        host.click("[data-do='invite']")
        wait_js(host, "document.querySelector(\"[data-do='invite']\").textContent === '已复制'")
        assert host.evaluate("navigator.clipboard.readText()") == link

        # a friend with no account: told where the link leads, in the room once he plays as guest
        friend_ctx, friend, friend_console = open_page(browser, link)
        contexts.append(friend_ctx)
        friend.wait_for_selector(".invited")
        assert code in friend.locator(".invited").inner_text()
        friend.click("[data-do='guest']")
        friend.wait_for_selector(f".room-code[data-code='{code}']")
        assert "#/room" in friend.url
        wait_js(host, "document.querySelectorAll('.seats-list li').length === 2")
        assert _members(friend) == 2

        # a friend already signed in: in the room at once
        third_ctx, third, third_console = as_guest(browser, base)
        contexts.append(third_ctx)
        third.goto(link)
        third.wait_for_selector(f".room-code[data-code='{code}']")
        wait_js(host, "document.querySelectorAll('.seats-list li').length === 3")

        # the host asks the friend to leave (after a confirmation): he is told, in the lobby,
        # and the link no longer lets him in
        friend_name = friend.evaluate("window.__wm.account.username")
        host.once("dialog", lambda dialog: dialog.accept())
        host.click(f"[data-kick='{friend_name}']")
        friend.wait_for_selector("#create-form")
        wait_js(friend, "document.querySelector('.screen').innerText.includes('房主请你离开了房间')")
        wait_js(host, "document.querySelectorAll('.seats-list li').length === 2")
        assert third.locator("[data-kick]").count() == 0  # only the host has the buttons
        friend.goto(link)
        wait_js(friend, "document.querySelector('#join-form').innerText.includes('不能再进')")

        # a link whose code is not one: the lobby's join form says so, holding the code
        fourth_ctx, fourth, fourth_console = as_guest(browser, base)
        contexts.append(fourth_ctx)
        fourth.goto(f"{base}/#/join?code=12")
        fourth.wait_for_selector("#join-form .error, #join-form [role='alert']")
        assert "请输入6位数字房间号" in fourth.locator("#join-form").inner_text()
        assert fourth.input_value("#join-form input[name='code']") == "12"
        for console in (host_console, friend_console, third_console, fourth_console):
            assert console.errors == [], console.errors
    finally:
        for c in contexts:
            c.close()


@pytest.mark.slow
def test_a_rooms_match_ends_with_a_rematch_in_the_same_room(browser: Any, live_server: str) -> None:
    """The summary of a room's match offers *同一房间再来一场*: one click, and the player is in
    a new room with the match's options, hosting it (the first back)."""
    context, page, console = as_guest(browser, live_server)
    try:
        page.fill("#cf-hands", "1")
        page.select_option("#cf-profile", "bianfeng")
        page.click("#create-form button[type='submit']")
        page.wait_for_selector(".room-code")
        first = page.get_attribute(".room-code", "data-code")
        page.click("[data-do='ready']")
        wait_js(page, "window.__wm.room.members[0].ready === true")
        page.click("[data-do='start']")  # bots fill the three seats
        page.wait_for_selector("[data-do='auto']", timeout=20_000)
        page.click("[data-do='auto']")  # 托管: the hand plays itself
        page.wait_for_selector("#overlay [data-act='continue']", timeout=60_000)
        wait_js(page, "window.__wm.matchEnd !== null", timeout=30)
        page.click("#overlay [data-act='continue']")  # the last hand's settlement, then the summary
        page.wait_for_selector("[data-do='rematch']", timeout=15_000)
        rematch = page.evaluate("window.__wm.matchEnd.rematch")
        assert rematch and rematch != first
        assert "同样的规则" in page.inner_text(".screen")
        page.click("[data-do='rematch']")
        page.wait_for_selector(f".room-code[data-code='{rematch}']")
        assert page.evaluate("window.__wm.room.options.profile") == "bianfeng"
        assert page.evaluate("window.__wm.room.options.hands") == 1
        assert page.evaluate("window.__wm.room.members.map((m) => [m.host, m.you])") == [[True, True]]
        assert console.errors == [], console.errors
    finally:
        context.close()


@pytest.mark.slow
def test_a_host_invites_a_friend(browser: Any, live_server: str) -> None:
    """The room lists the friends (who follow each other) online and free, one *邀请* each; the
    invited player, in his lobby, reads who invites him to which room and joins with one
    click."""
    base = live_server
    host_token, friend_token = register_user(base, "inv_host"), register_user(base, "inv_friend")
    for name, token in (("inv_friend", host_token), ("inv_host", friend_token)):  # friends
        request = urllib.request.Request(f"{base}/api/following/{name}", method="POST",
                                         headers={"Authorization": f"Bearer {token}"})
        urllib.request.urlopen(request, timeout=30).close()
    friend_ctx, friend, friend_console = signed_in(browser, base, friend_token)
    host_ctx, host, host_console = signed_in(browser, base, host_token)
    for page in (friend, host):
        page.wait_for_selector("#create-form")
    try:
        wait_js(friend, "window.__wm.wsOpen === true")
        host.click("#create-form button[type='submit']")
        host.wait_for_selector(".room-code")
        code = host.get_attribute(".room-code", "data-code")
        button = host.locator("[data-invite-player='inv_friend']")
        button.wait_for()
        button.click()
        host.wait_for_selector("[data-invite-player='inv_friend'][disabled]")
        assert host.locator("[data-invite-player='inv_friend']").inner_text() == "已邀请"
        card = friend.locator(f".invited-card[data-invited='{code}']")
        card.wait_for()
        assert f"inv_host 邀请你进房间 {code}（远航 · " in card.inner_text()
        card.locator("[data-do='invited-join']").click()
        friend.wait_for_selector(f".room-code[data-code='{code}']")
        wait_js(host, "document.querySelectorAll('.seats-list li').length === 2")
        assert friend.locator(".invited-card").count() == 0
        assert host_console.errors == [] and friend_console.errors == [], (
            host_console.errors, friend_console.errors)
    finally:
        host_ctx.close()
        friend_ctx.close()
