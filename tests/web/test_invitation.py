"""A room's invitation link in the real browser against the real server.

The host of a private room finds its invitation link (#/join?code=…) on the room screen and
copies it with one button.  A friend who opens it without an account is told where it
leads, plays as guest and lands in the room; a friend already signed in lands there at
once.  A link with a code that is not one opens the lobby with the join form saying so.
No console errors.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import as_guest, open_page, wait_js


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
