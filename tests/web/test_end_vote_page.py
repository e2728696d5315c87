"""Ending a match early by agreement (申请解散, ``web/endvote.js``) in the real browser against
the real server: two guests at a private table with bots.  One asks; the other sees who asked,
that he is awaited and the time left, with 同意 / 拒绝, and refuses; the asker reads the
refusal.  Then the other asks and the first agrees: both read that the match ends after this
hand, and the button to ask is gone.  (The room marks the two 同IP: one machine.)  No console
errors."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import as_guest, room_with_friend, start_with_bots, wait_js


@pytest.mark.slow
def test_two_players_refuse_then_agree_to_end_early(browser: Any, live_server: str) -> None:
    host_ctx, host, host_console = as_guest(browser, live_server)
    friend_ctx, friend, friend_console = as_guest(browser, live_server)
    try:
        room_with_friend(host, friend, live_server)
        # both connect from 127.0.0.1 here: the room marks them 同IP, with one number
        marks = host.locator(".seats-list .same-address")
        assert marks.count() == 2 and {marks.nth(i).get_attribute("data-same-address")
                                       for i in range(2)} == {"1"}
        assert "同IP 1" in marks.first.inner_text()
        # what the mark means is written under the members (phones show no hover title)
        assert "同一个网络地址" in host.locator(".room-notes [data-note='same-address']").inner_text()
        start_with_bots(host, friend)

        host.click("[data-do='propose-end']")
        friend.wait_for_selector(".end-vote [data-do='end-no']")
        panel = friend.locator(".end-vote").inner_text()
        assert "申请提前结束牌局" in panel and "不回答视为同意" in panel
        seconds = int(friend.locator("[data-end-vote-seconds]").inner_text())
        assert 0 < seconds <= 60
        host.wait_for_selector(".end-vote")  # the asker sees it too, without the buttons
        assert host.locator(".end-vote [data-do='end-yes']").count() == 0
        assert "你申请了提前结束牌局" in host.locator(".end-vote").inner_text()
        assert host.locator("[data-do='propose-end']").count() == 0
        friend.click(".end-vote [data-do='end-no']")
        for page in (host, friend):
            page.wait_for_selector(".end-vote-outcome")
            assert "拒绝了提前结束" in page.locator(".end-vote-outcome").inner_text()
            assert page.locator(".end-vote").count() == 0

        friend.click("[data-do='propose-end']")
        host.click(".end-vote [data-do='end-yes']")
        for page in (host, friend):
            wait_js(page, "(document.querySelector('.end-vote-outcome') || {}).textContent"
                          "?.includes('大家同意提前结束')")
            assert "第 1 局" in page.locator(".end-vote-outcome").inner_text()
            assert page.locator("[data-do='propose-end']").count() == 0  # nothing to ask
        friend.reload()  # the table frame after a reload says the match ends early
        friend.wait_for_selector(".end-vote-outcome", timeout=20_000)
        assert "打完第 1 局结束" in friend.locator(".end-vote-outcome").inner_text()
        assert friend.locator("[data-do='propose-end']").count() == 0
        assert not host_console.errors and not friend_console.errors, (
            host_console.errors + friend_console.errors)
    finally:
        host_ctx.close()
        friend_ctx.close()
