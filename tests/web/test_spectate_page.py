"""Spectating in the real browser against the real server (``web/spectate.js``).

A guest sits at a quick-match table; a second guest finds the table in the lobby's watch
list, opens it (#/watch?id=…) and sees the read-only table: the spectator view (no hand of
his own, no action buttons) with the players' names; the player sees "1 watching" and back
to 0 when the spectator returns to the lobby.  A private room whose host turned watching
off is not listed.  No console errors on either page.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import as_guest, run_server, to_quick_table, wait_js


@pytest.fixture(scope="module")
def watch_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("wuhan_mahjong.server.app")
    # delay 0: the player never acts here (60 s turns), so the table shows at once
    with run_server(tmp_path_factory.mktemp("watch-data"), ["--spectator-delay-moves", "0"]) as base:
        yield base


@pytest.mark.slow
def test_the_lobby_lists_a_table_and_the_watch_page_shows_it(browser: object, watch_server: str,
                                                              artifacts: Path) -> None:
    base = watch_server
    ctx_p, player, console_p = as_guest(browser, base)
    ctx_w, watcher, console_w = as_guest(browser, base)
    ctx_h, host, console_h = as_guest(browser, base)
    try:
        to_quick_table(player)
        table_id = wait_js(player, "window.__wm.table && window.__wm.table.table_id")
        assert player.locator(".watchers[data-watchers='0']").count() == 1
        assert not player.locator(".watchers").is_visible()  # nobody watching: nothing said
        # a private room with watching off: its table is never listed
        host.select_option("#cf-spectators", "off")
        host.click("#create-form button[type='submit']")
        host.wait_for_selector(".room-code")
        assert wait_js(host, "window.__wm.room && window.__wm.room.options.spectators === false")
        assert "不许观战" in host.locator(".room-options").inner_text()

        watcher.click("[data-do='watch-refresh']")
        link = watcher.locator(f"[data-watch='{table_id}']")
        link.wait_for(timeout=15_000)
        row = watcher.locator(f".watch-list li[data-table='{table_id}']").inner_text()
        player_name = wait_js(player, "window.__wm.account && window.__wm.account.username")
        assert player_name in row
        link.click()
        watcher.wait_for_selector(".watch .table", timeout=15_000)
        assert "#/watch?id=" in watcher.url
        v = watcher.evaluate("() => window.__wm.watch.frame.view")
        assert v["viewer"] is None and v["hand"] is None and v["drawn"] is None
        assert v["legal_actions"] == []
        assert watcher.locator(".table[data-viewer='null']").count() == 1
        assert watcher.locator("button[data-act]").count() == 0  # read-only: nothing to play
        assert player_name in watcher.locator(".watch").inner_text()
        # the player is told at once
        player.wait_for_selector(".watchers[data-watchers='1']", timeout=15_000)
        assert player.locator(".watchers").is_visible()
        watcher.screenshot(path=str(artifacts / "watch-page.png"))
        # English too
        watcher.click("#lang")
        assert "Watching" in watcher.locator(".watch-bar").inner_text()
        # back to the lobby: watching stops, the player sees 0 again
        watcher.click(".watch-bar [data-nav='lobby']")
        watcher.wait_for_selector("#create-form")
        player.wait_for_selector(".watchers[data-watchers='0']", state="attached", timeout=15_000)
        assert not player.locator(".watchers").is_visible()
        assert wait_js(watcher, "window.__wm.watch.id === null")
        # the private room started with bots is not in the list
        host.click("[data-do='ready']")
        host.click("[data-do='start']")
        host.wait_for_selector(".table", timeout=20_000)
        private_id = wait_js(host, "window.__wm.table && window.__wm.table.table_id")
        watcher.click("[data-do='watch-refresh']")
        watcher.locator(f"[data-watch='{table_id}']").wait_for(timeout=15_000)
        assert watcher.locator(f"[data-watch='{private_id}']").count() == 0
        # a typed address of the private table says why it cannot be watched
        watcher.goto(f"{base}/#/watch?id={private_id}")
        watcher.wait_for_selector(".watch-error, .screen .error", timeout=15_000)
        assert "watching off" in watcher.locator("#app").inner_text()
        assert console_p.errors == [] and console_w.errors == [] and console_h.errors == []
    finally:
        ctx_p.close()
        ctx_w.close()
        ctx_h.close()
