"""The notice to every player (系统公告, ``web/notice.js``) and the staff pages' additions
(``web/staff.js``) in the real browser against the real server:

* an admin gives a notice on the staff page's 公告 tab; a player signed in elsewhere sees it
  under the menu bar within a poll, without reloading, its text as text; he dismisses it and
  a reload does not bring it back; the admin's next notice shows again, at a live table on
  a phone too without pushing the own hand or its buttons off the first screen; taken down,
  it goes;
* a moderator opens the match a report names from the reports tab and steps through its
  replay (``#/replay?staff=…``), its players' names shown;
* the menu's 管理 is there as soon as a staff member connects (the welcome's ``staff``), and
  never for a player.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import websockets

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.store import Store
from wuhan_mahjong.store.admin import Admin

from .conftest import PHONE, Console, register_user, server_and_store, to_quick_table, wait_js

POLL = 30.0
"""Seconds to wait for a notice to reach a page: the server polls every 2 s; a busy machine."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Store]]:
    with server_and_store(tmp_path_factory.mktemp("notice-data")) as running:
        yield running


def _page(browser: Any, base: str, token: str, hash_: str, **ctx: Any) -> tuple[Any, Any, Console]:
    context = browser.new_context(**ctx)
    context.add_init_script(f"localStorage.setItem('wm.token', {json.dumps(token)})")
    page = context.new_page()
    console = Console(page)
    page.on("dialog", lambda d: d.accept())
    page.goto(f"{base}/{hash_}")
    return context, page, console


def _welcomed(page: Any) -> None:
    wait_js(page, "window.__wm.wsOpen && window.__wm.account", timeout=20)


def _banner(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => {
      const b = document.querySelector('#notice');
      const r = b.getBoundingClientRect();
      return {hidden: b.hidden, id: b.dataset.noticeId || null,
              text: (b.querySelector('.notice-text') || {}).textContent || '',
              html: (b.querySelector('.notice-text') || {}).innerHTML || '',
              top: r.top, bottom: r.bottom,
              bar: document.querySelector('#topbar').getBoundingClientRect().bottom};
    }""")


def _shows(page: Any, text: str) -> None:
    wait_js(page, f"!document.querySelector('#notice').hidden && "
                  f"document.querySelector('#notice .notice-text').textContent === {json.dumps(text)}",
            timeout=POLL)


@pytest.mark.slow
def test_an_admin_gives_a_notice_every_player_sees(browser: Any, server: tuple[str, Store],
                                                  artifacts: Path) -> None:
    base, store = server
    boss = register_user(base, "notice_boss")
    pat = register_user(base, "notice_pat")
    Admin(store, "root").set_role("notice_boss", "admin")
    admin_ctx, admin, admin_console = _page(browser, base, boss, "#/lobby",
                                            viewport={"width": 1280, "height": 800})
    player_ctx, player, player_console = _page(browser, base, pat, "#/lobby", **PHONE)
    try:
        # the menu's 管理 comes with the welcome: at the lobby, no profile asked
        admin.wait_for_selector("#nav [data-nav='staff']", timeout=20_000)
        _welcomed(player)
        assert player.locator("#nav [data-nav='staff']").count() == 0
        assert player.is_hidden("#notice")
        # the admin's 公告 tab: nothing shown yet; he gives one (its text is text, not HTML)
        admin.click("#nav [data-nav='staff']")
        admin.wait_for_selector("[data-staff-tab='notice']")
        admin.click("[data-staff-tab='notice']")
        admin.wait_for_selector("[data-staff-notice='none']")
        first = "今晚 23:00 停服维护十分钟 <b>请提前结束对局</b>"
        admin.fill("#staff-notice-text", first)
        admin.fill("#staff-notice-hours", "2")
        admin.click("#staff-notice-form button[type=submit]")
        admin.wait_for_selector("[data-staff-section='notice'] .staff-notice-now")
        assert admin.inner_text(".staff-notice-now .staff-notice-text") == first
        assert admin.input_value("#staff-notice-text") == ""
        # the player's lobby shows it within a poll, without a reload
        _shows(player, first)
        b = _banner(player)
        assert "<b>" not in b["html"] and player.locator("#notice b").count() == 0
        assert b["top"] >= b["bar"] - 0.5, b  # under the menu bar
        assert player.get_attribute("#notice", "aria-label") == "系统公告"
        assert player.get_attribute("#notice .notice-close", "aria-label") == "关闭这条公告"
        player.screenshot(path=str(artifacts / "notice-lobby-phone-zh.png"))
        _shows(admin, first)  # the admin is a player too
        admin.screenshot(path=str(artifacts / "notice-staff-desktop-zh.png"), full_page=True)
        first_id = b["id"]
        # dismissed: gone, and a reload does not bring it back
        player.click("#notice .notice-close")
        wait_js(player, "document.querySelector('#notice').hidden")
        player.reload()
        _welcomed(player)
        wait_js(player, "window.__wm.announcement() && "
                        f"String(window.__wm.announcement().id) === '{first_id}'")
        assert player.is_hidden("#notice")
        # a new notice (replacing the first) shows again; in English the labels too
        second = "Welcome to the spring tournament! 春季赛报名开始了"
        admin.fill("#staff-notice-text", second)
        admin.fill("#staff-notice-hours", "")
        admin.click("#staff-notice-form button[type=submit]")
        wait_js(admin, "document.querySelector('.staff-notice-now .staff-notice-text')?.textContent"
                       f" === {json.dumps(second)}")
        assert admin.locator("[data-staff-notice-row] [data-notice-state='ended']").count() == 1
        _shows(player, second)
        player.click("#lang")
        wait_js(player, "document.querySelector('#notice').getAttribute('aria-label')"
                        " === 'Notice to all players'")
        assert player.get_attribute("#notice .notice-close", "aria-label") == "Dismiss this notice"
        player.screenshot(path=str(artifacts / "notice-lobby-phone-en.png"))
        # at a live table on a phone: one line, the own hand and its buttons on the first screen
        to_quick_table(player)
        player.wait_for_selector(".hand .tile", timeout=30_000)
        wait_js(player, "document.querySelector('#notice').classList.contains('at-table')")
        assert not player.is_hidden("#notice")
        fit = player.evaluate("""() => ({
          vh: innerHeight, hand: document.querySelector('.hand').getBoundingClientRect().bottom,
          acts: [...document.querySelectorAll('.actions .act')].map((e) => e.getBoundingClientRect().bottom),
          notice: document.querySelector('#notice').getBoundingClientRect().height})""")
        assert fit["hand"] <= fit["vh"] + 0.5, fit
        assert all(a <= fit["vh"] + 0.5 for a in fit["acts"]), fit
        assert fit["notice"] <= 32, fit
        player.screenshot(path=str(artifacts / "notice-table-phone-en.png"))
        # taken down: gone from every page
        admin.click("[data-staff-do='notice-off']")
        admin.wait_for_selector("[data-staff-notice='none']")
        wait_js(player, "document.querySelector('#notice').hidden", timeout=POLL)
        wait_js(admin, "document.querySelector('#notice').hidden", timeout=POLL)
        assert not player.evaluate("document.body.classList.contains('has-notice')")
        assert admin_console.errors == [] and player_console.errors == []
    finally:
        admin_ctx.close()
        player_ctx.close()


async def _play_a_match(base: str, tokens: list[str]) -> str:
    """Two players and two bots play a room's one hand (each player's moves chosen by a
    random bot); the match's id."""
    url = base.replace("http", "ws", 1) + "/ws"

    async def connect(token: str) -> Any:
        ws = await websockets.connect(url, max_size=2**22)
        await ws.send(json.dumps({"type": "hello", "token": token}))
        await expect(ws, "welcome")
        return ws

    async def expect(ws: Any, kind: str) -> dict[str, Any]:
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
            if msg["type"] == kind:
                return msg
            assert msg["type"] != "error", msg

    async def play(ws: Any, seed: int) -> dict[str, Any]:
        bot = get_bot("random", seed)
        done: set[int] = set()
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 120))
            if msg["type"] == "match_end":
                return msg
            assert msg["type"] != "error" or msg["code"] == "stale_decision", msg
            if msg["type"] != "state" or msg.get("answered"):
                continue
            view = msg["view"]
            if not view["legal_actions"] or view["decision"] in done:
                continue
            done.add(view["decision"])
            await ws.send(json.dumps({"type": "action", "action": bot.choose(view).to_json(),
                                      "hand_no": view["hand_no"], "decision": view["decision"]}))

    host, guest = [await connect(t) for t in tokens]
    try:
        await host.send(json.dumps({"type": "create_room", "options": {"hands": 1}}))
        room = await expect(host, "room")
        await guest.send(json.dumps({"type": "join_room", "code": room["code"]}))
        await expect(guest, "room")
        for ws in (host, guest):
            await ws.send(json.dumps({"type": "ready"}))
        while not ((r := await expect(host, "room"))["members"] and len(r["members"]) == 2
                   and all(m["ready"] for m in r["members"])):
            pass
        await host.send(json.dumps({"type": "start"}))
        ends = await asyncio.gather(play(host, 1), play(guest, 2))
        return str(ends[0]["match_id"])
    finally:
        await host.close()
        await guest.close()


@pytest.mark.slow
def test_a_moderator_replays_the_match_a_report_names(browser: Any, server: tuple[str, Store],
                                                      artifacts: Path) -> None:
    base, store = server
    mod = register_user(base, "replay_mod")
    alice = register_user(base, "replay_alice")
    bob = register_user(base, "replay_bob")
    Admin(store, "root").set_role("replay_mod", "moderator")
    # in a thread of its own: the browser's driver runs an event loop in this one
    with ThreadPoolExecutor(1) as pool:
        match_id = pool.submit(asyncio.run, _play_a_match(base, [alice, bob])).result(timeout=300)
    hands = store.staff_hand_numbers(match_id)
    assert hands, match_id
    record = store.staff_hand_record(match_id, hands[0])
    assert record is not None
    bob_account = store.account_by_username("replay_bob")
    assert bob_account is not None
    seat = next(s for s, a in record.seats.items() if a == bob_account.id)
    request = urllib.request.Request(
        f"{base}/api/reports", method="POST", headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {alice}"},
        data=json.dumps({"reason": "collusion", "match_id": match_id, "seat": seat}).encode())
    with urllib.request.urlopen(request, timeout=30) as r:
        assert r.status in (200, 201)
    context, page, console = _page(browser, base, mod, "#/staff?tab=reports",
                                   viewport={"width": 1280, "height": 900})
    try:
        link = f"[data-staff-report] a[data-staff-match='{match_id}']"
        page.wait_for_selector(link, timeout=20_000)
        page.click(link)
        page.wait_for_selector(f"[data-replay-staff-match='{match_id}'] .table", timeout=20_000)
        assert page.evaluate("location.hash").startswith(f"#/replay?staff={match_id}")
        players = page.inner_text(".staff-replay-players")
        assert "replay_alice" in players and "replay_bob" in players, players
        # the table names the seats by the players' names
        names = page.locator(".replay .seat .name").all_inner_texts()
        assert any("replay_alice" in n for n in names), names
        # stepping through: → and the buttons move the frame, the caption says what happened
        n = page.evaluate("window.__wm.replay.frames.length")
        assert n > 3
        page.click("[data-rp='next']")
        wait_js(page, "document.querySelector('.replay [data-step=\"1\"]')")
        page.keyboard.press("ArrowRight")
        wait_js(page, "document.querySelector('.replay [data-step=\"2\"]')")
        assert page.inner_text(".replay-caption")
        page.click("[data-rp='end']")
        wait_js(page, f"document.querySelector('.replay [data-step=\"{n - 1}\"]')")
        # none of the players' own tools (review, check, sharing) for the staff
        assert page.locator(".replay .review, .replay .verify, .replay .share-bar, #replay-form").count() == 0
        page.screenshot(path=str(artifacts / "staff-replay-desktop.png"))
        page.set_viewport_size({"width": 390, "height": 844})
        page.click("[data-rp='start']")
        wait_js(page, "document.querySelector('.replay [data-step=\"0\"]')")
        page.screenshot(path=str(artifacts / "staff-replay-phone.png"), full_page=True)
        # back to the reports
        page.click(".staff-replay-head a[href='#/staff?tab=reports']")
        page.wait_for_selector(link)
        assert console.errors == []
    finally:
        context.close()
