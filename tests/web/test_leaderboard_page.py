"""The leaderboards in the real browser against the real server (``web/leaderboard.js``).

Five players sign up; four of them have played five rated matches together (the board's
minimum), the fifth two.  Anyone, signed in or not, finds the board from the menu: the four
in the server's order with their ratings and match counts; the week's board (its start
shown); another profile's board, empty, saying what it takes to appear.  A player on the
board finds his line marked; the fifth finds his rating and how many matches he still
needs.  Each board has an address of its own.  No console errors.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.store import open_store

from .conftest import as_guest, open_page, register_user, run_server, signed_in, wait_js

PASSWORD = "correct horse battery staple"
NAMES = ["ann", "ben", "cat", "dan", "eve"]


@pytest.fixture(scope="module")
def board_server(tmp_path_factory: pytest.TempPathFactory, rated_match: Callable[..., None],
                 played_match: Callable[..., list[Any]]) -> Iterator[tuple[str, dict[str, str]]]:
    """A server whose database holds the rated matches of the module's doc; the players'
    tokens."""
    pytest.importorskip("wuhan_mahjong.server.app")
    data = tmp_path_factory.mktemp("board-data")
    with run_server(data) as base:
        tokens = {n: register_user(base, n, PASSWORD) for n in NAMES}
        store = open_store(f"sqlite:///{data / 'wuhan_mahjong.db'}")
        try:
            ids = {n: store.account_by_username(n).id for n in NAMES}  # type: ignore[union-attr]
            four = [ids[n] for n in NAMES[:4]]
            for k in range(5):  # ann first every time, dan last
                rated_match(store, f"m{k}", four, [30, 10, -10, -30])
            for k in range(2):  # eve twice, in ben's seat
                rated_match(store, f"e{k}", [ids["ann"], ids["eve"], ids["cat"], ids["dan"]],
                             [0, 10, -5, -5])
            # played hands for the statistics (dan wins a 清一色 in s1's second hand)
            played_match(store, "s0", four, "laizishanzhuang", 4)
            played_match(store, "s1", four, "yuanhang", 17)
        finally:
            store.close()
        yield base, tokens


def _board(page: Any) -> list[list[str]]:
    rows = page.locator("table.board tbody tr")
    return [[c.strip() for c in rows.nth(i).locator("td").all_inner_texts()]
            for i in range(rows.count())]


@pytest.mark.slow
def test_the_leaderboards_in_the_browser(browser: Any, board_server: tuple[str, dict[str, str]],
                                         artifacts: Path) -> None:
    base, tokens = board_server
    expected = json.loads(urllib.request.urlopen(
        f"{base}/api/leaderboard?profile=yuanhang", timeout=30).read())["players"]
    assert [p["username"] for p in expected] == ["ann", "ben", "cat", "dan"]

    # not signed in: the menu has the boards
    context, page, console = open_page(browser, f"{base}/")
    try:
        page.click("#nav [data-nav='leaderboard']")
        page.wait_for_selector("table.board tbody tr")
        assert page.url.endswith("#/leaderboard")
        assert page.locator("#nav [data-nav='leaderboard'][aria-current='page']").count() == 1
        assert _board(page) == [[str(p["rank"]), p["username"], str(p["rating"]),
                                 str(p["matches"])] for p in expected]
        assert [p["matches"] for p in expected] == [7, 5, 7, 7]
        assert page.locator(".tabs [data-board-profile='yuanhang'][aria-current='page']").count() == 1
        assert page.locator(".board-me").count() == 0  # nobody to tell what he needs
        page.screenshot(path=str(artifacts / "leaderboard.png"))

        # this week: the same four (their matches are this week's), and when the week began
        page.click("[data-board-period='week']")
        page.wait_for_selector("[data-since]")
        assert "period=week" in page.url and "profile=yuanhang" in page.url
        assert [r[1] for r in _board(page)] == ["ann", "ben", "cat", "dan"]
        assert page.locator("table.board th").nth(3).inner_text() == "本周场次"
        since = page.locator("[data-since]").get_attribute("data-since")
        assert since and "本周从" in page.locator("[data-since]").inner_text()

        # another profile: nobody yet, and what it takes (the server's minimum)
        page.click("[data-board-profile='bianfeng']")
        page.wait_for_selector(".board-empty")
        assert "profile=bianfeng" in page.url and "period=week" in page.url
        assert "5 场" in page.locator(".board-empty").inner_text()
        assert page.locator("table.board").count() == 0

        # an address of a board opens that board; an unknown one the first
        page.goto(f"{base}/#/leaderboard?profile=laizishanzhuang&period=all")
        wait_js(page, "window.__wm.board.data && window.__wm.board.data.key === 'laizishanzhuang/all'")
        assert page.locator(".tabs [data-board-profile='laizishanzhuang'][aria-current='page']").count() == 1
        page.goto(f"{base}/#/leaderboard?profile=mahjong&period=year")
        wait_js(page, "window.__wm.board.data && window.__wm.board.data.key === 'yuanhang/all'")
        assert len(_board(page)) == 4
        page.go_back()  # Back returns to the board before
        wait_js(page, "window.__wm.board.data && window.__wm.board.data.key === 'laizishanzhuang/all'")

        # a name on the board opens the player's public page: level, rating, place
        page.goto(f"{base}/#/leaderboard?profile=yuanhang&period=all")
        page.wait_for_selector("table.board [data-player='ben']")
        page.click("table.board [data-player='ben']")
        page.wait_for_selector("[data-player-name='ben']")
        assert "#/player?name=ben" in page.url
        ben = next(p for p in expected if p["username"] == "ben")
        row = page.locator("tr[data-profile='yuanhang'] td").all_inner_texts()
        assert row == ["远航", str(ben["rating"]), "5", f"第 {ben['rank']} 名"], row
        assert page.locator(".player-level").inner_text().startswith("等级 1 · ")
        page.screenshot(path=str(artifacts / "player.png"))
        page.go_back()
        page.wait_for_selector("table.board [data-player='ben']")
        # nobody by that name: said, not a broken page
        page.goto(f"{base}/#/player?name=nobody")
        page.wait_for_selector(".error")
        assert page.locator(".error").inner_text() == "没有这个玩家"
        # the browser's own line for that 404, which the page has just said; nothing else
        missing = "/api/players/nobody: Failed to load resource: the server responded with a status of 404"
        assert [e for e in console.errors if missing not in e] == [], console.errors
    finally:
        context.close()

    # a board's address opened in a new tab shows that board
    context, page, console = open_page(browser, f"{base}/#/leaderboard?profile=bianfeng&period=all")
    try:
        page.wait_for_selector(".board-empty")
        assert page.locator(".tabs [data-board-profile='bianfeng'][aria-current='page']").count() == 1
        assert console.errors == [], console.errors
    finally:
        context.close()

    # ben is on the board: his line is marked
    context, page, console = signed_in(browser, base, tokens["ben"], "#/leaderboard")
    try:
        page.wait_for_selector("table.board tr.me")
        mine = page.locator("table.board tr.me")
        assert mine.count() == 1 and mine.get_attribute("aria-current") == "true"
        assert "ben" in mine.inner_text() and "你" in mine.inner_text()
        # a table's row, its cells side by side (the table screen's own .me layout once
        # stacked them one under another)
        # read in one step: a redraw of the board between finding the row and asking its
        # style left a detached row, whose computed display is ""
        assert page.evaluate("() => getComputedStyle(document.querySelector("
                             "'table.board tr.me')).display") == "table-row"
        tops = {round(c["y"]) for c in (mine.locator("td").nth(k).bounding_box() for k in range(4))
                if c is not None}
        assert len(tops) == 1, tops
        assert page.locator(".board-me").count() == 0
        assert console.errors == [], console.errors
    finally:
        context.close()

    # eve is not: her rating and the three matches she still needs
    context, page, console = signed_in(browser, base, tokens["eve"], "#/leaderboard")
    try:
        page.wait_for_selector(".board-me")
        wait_js(page, "document.querySelector('.board-me').textContent.includes('等级分')")
        line = page.locator(".board-me").inner_text()
        assert "再打 3 场就能上榜" in line, line
        profile = json.loads(urllib.request.urlopen(urllib.request.Request(
            f"{base}/api/profile", headers={"Authorization": f"Bearer {tokens['eve']}"}),
            timeout=30).read())
        (rating,) = [r["rating"] for r in profile["ratings"] if r["profile"] == "yuanhang"]
        assert f"你的等级分 {rating}" in line, line
        assert page.locator("table.board tr.me").count() == 0
        # the English page says the same
        page.click("#lang")
        wait_js(page, "document.querySelector('.board-me').textContent.includes('more rated')")
        assert "3 more rated matches to appear" in page.locator(".board-me").inner_text()
        assert page.locator("h2").first.inner_text() == "Leaderboards"
        # her own page, from her profile: not placed yet, and what it takes
        page.evaluate("() => { location.hash = '#/profile'; }")
        page.click("[data-my-page]")
        page.wait_for_selector("[data-player-name='eve']")
        row = page.locator("tr[data-profile='yuanhang'] td").all_inner_texts()
        assert row == ["Yuanhang", str(rating), "2", "3 more matches to be ranked"], row
        assert console.errors == [], console.errors
    finally:
        context.close()


@pytest.mark.slow
def test_a_players_page_leads_to_the_table_he_plays_at(
        browser: Any, board_server: tuple[str, dict[str, str]]) -> None:
    base, tokens = board_server
    context, player, player_console = signed_in(browser, base, tokens["cat"], "#/lobby")
    fan_context, fan, fan_console = as_guest(browser, base)  # watching takes an account
    try:
        fan.goto(f"{base}/#/player?name=cat")
        fan.wait_for_selector("[data-player-name='cat']")
        assert fan.locator(".player-live").count() == 0  # not at a table
        player.click("[data-do='quick']")
        player.wait_for_selector(".table", timeout=20_000)
        table_id = wait_js(player, "window.__wm.table && window.__wm.table.table_id")
        fan.goto(f"{base}/#/player?name=CAT")  # another address: the page asks again
        fan.wait_for_selector(".player-live")
        assert "正在对局：远航" in fan.locator(".player-live").inner_text()
        fan.click(f".player-live [data-watch='{table_id}']")
        fan.wait_for_selector(f".watch-bar[data-watching='{table_id}']", timeout=15_000)
        assert player_console.errors == [] and fan_console.errors == [], (
            player_console.errors, fan_console.errors)
    finally:
        fan_context.close()
        context.close()


@pytest.mark.slow
def test_following_a_player_from_his_page(browser: Any,
                                          board_server: tuple[str, dict[str, str]]) -> None:
    """dan follows ann on her page (关注); the lobby's card lists her, online once she is
    connected; unfollowing takes her off."""
    base, tokens = board_server
    context, page, console = signed_in(browser, base, tokens["dan"], "#/lobby")
    ann_context, ann, ann_console = signed_in(browser, base, tokens["ann"], "#/lobby")
    try:
        page.wait_for_selector(".following-card .following-none")
        page.goto(f"{base}/#/player?name=ann")
        button = page.locator("[data-follow='ann']")
        button.wait_for()
        assert button.inner_text() == "关注" and button.get_attribute("aria-pressed") == "false"
        button.click()
        page.wait_for_selector("[data-follow='ann'][aria-pressed='true']")
        assert page.locator("[data-follow='ann']").inner_text() == "取消关注"
        page.click("#nav [data-nav='lobby']")
        row = page.locator(".following-list li[data-followed='ann']")
        row.wait_for()
        wait_js(ann, "window.__wm.wsOpen === true")
        page.click("[data-do='following-refresh']")
        page.wait_for_selector(".following-list li[data-followed='ann'][data-online='1']")
        assert "在线" in row.inner_text()
        row.locator("[data-player='ann']").click()  # her name leads to her page
        page.wait_for_selector("[data-follow='ann'][aria-pressed='true']")
        page.click("[data-follow='ann']")
        page.wait_for_selector("[data-follow='ann'][aria-pressed='false']")
        page.click("#nav [data-nav='lobby']")
        page.wait_for_selector(".following-card .following-none")
        # one's own page has no button
        page.goto(f"{base}/#/player?name=dan")
        page.wait_for_selector("[data-player-name='dan']")
        assert page.locator("[data-follow]").count() == 0
        assert console.errors == [] and ann_console.errors == [], (console.errors,
                                                                   ann_console.errors)
    finally:
        ann_context.close()
        context.close()


def _stats_cells(page: Any, stat: str) -> list[str]:
    return [c.strip() for c in page.locator(f"table.stats tr[data-stat='{stat}'] td")
            .all_inner_texts()]


@pytest.mark.slow
def test_a_players_statistics_in_the_browser(browser: Any,
                                             board_server: tuple[str, dict[str, str]]) -> None:
    """dan's profile shows his statistics (战绩) per profile as the server counted them, his
    best hand with its replay; his public page, to a guest, the same without the replay."""
    base, tokens = board_server
    profile = json.loads(urllib.request.urlopen(urllib.request.Request(
        f"{base}/api/profile", headers={"Authorization": f"Bearer {tokens['dan']}"}),
        timeout=30).read())
    stats = profile["stats"]
    assert [s["profile"] for s in stats] == ["yuanhang", "laizishanzhuang"]

    def pct(part: int, whole: int) -> str:
        return f"{round(1000 * part / whole) / 10:.1f}%" if whole else "—"

    context, page, console = signed_in(browser, base, tokens["dan"], "#/profile")
    guest_context, guest, guest_console = as_guest(browser, base)
    try:
        page.wait_for_selector("table.stats")
        head = page.locator("table.stats thead th").all_inner_texts()
        assert head == ["", "远航", "赖子山庄"], head
        assert _stats_cells(page, "hands") == ["2", "2"]
        assert _stats_cells(page, "win_rate") == [pct(s["wins"], s["hands"]) for s in stats]
        assert _stats_cells(page, "deal_in_rate") == [pct(s["dealt_in"], s["hands"])
                                                      for s in stats]
        best = _stats_cells(page, "best")[0]
        assert "清一色" in best and f"+{stats[0]['best']['points']}" in best, best
        assert "清一色 ×1" in _stats_cells(page, "big_hands")[0]
        # the best hand's replay
        page.click("table.stats tr[data-stat='best'] td[data-profile='yuanhang'] [data-replay]")
        page.wait_for_selector(".replay-caption")
        assert wait_js(page, "location.hash").startswith("#/replay")
        assert page.evaluate("location.hash") == "#/replay?id=s1%2F1"
        # in English
        page.evaluate("() => { location.hash = '#/profile'; }")
        page.wait_for_selector("table.stats")
        page.click("#lang")
        page.wait_for_selector("table.stats tr[data-stat='win_rate'] th:text('Win rate')")
        # the public page: the same numbers, no replay
        guest.goto(f"{base}/#/player?name=dan")
        guest.wait_for_selector("table.stats")
        assert _stats_cells(guest, "win_rate") == [pct(s["wins"], s["hands"]) for s in stats]
        assert guest.locator("table.stats [data-replay]").count() == 0
        assert "清一色" in _stats_cells(guest, "best")[0]
        # a player with no recorded hands
        guest.goto(f"{base}/#/player?name=eve")
        guest.wait_for_selector(".stats-none")
        assert console.errors == [] and guest_console.errors == [], (console.errors,
                                                                     guest_console.errors)
    finally:
        guest_context.close()
        context.close()
