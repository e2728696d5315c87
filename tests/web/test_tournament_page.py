"""Tournaments in the real browser against the real server (``web/tournaments.js``): a
player creates one from the menu's 比赛 page, three others enter, a quick match is refused
him while entered, he starts it and his table comes up by itself; a guest sees it running
with a link to watch; auto-play finishes his match, whose summary leads back to the
tournament, finished, with its standings."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import as_guest, register_user, run_server, signed_in, wait_js

PASSWORD = "correct horse battery staple"


@pytest.fixture(scope="module")
def tournament_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("wuhan_mahjong.server.app")
    # the three players who never connect time out fast, twice, and are then auto-played
    with run_server(tmp_path_factory.mktemp("tournament-data"),
                    ["--turn-seconds", "2", "--claim-seconds", "1"]) as base:
        yield base


def _join(base: str, tid: int, token: str) -> None:
    request = urllib.request.Request(
        f"{base}/api/tournaments/{tid}/join", method="POST", data=b"{}",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as r:
        assert json.loads(r.read()) == {"ok": True}


@pytest.mark.slow
def test_a_tournament_in_the_browser(browser: Any, tournament_server: str,
                                     artifacts: Path) -> None:
    base = tournament_server
    tokens = {n: register_user(base, n, PASSWORD) for n in ("host", "amy", "bo", "cy")}
    context, page, console = signed_in(browser, base, tokens["host"], "#/lobby")
    guest_context, guest, guest_console = as_guest(browser, base)
    try:
        page.click("#nav [data-nav='tournaments']")
        page.wait_for_selector("#tournament-form")
        assert page.locator(".tour-none").count() == 1
        page.fill("#tour-name", "周末杯")
        page.fill("#tour-rounds", "1")
        page.fill("#tour-capacity", "99")  # out of range: said on the form, nothing sent
        page.click("#tournament-form button[type=submit]")
        wait_js(page, "document.querySelector(\"[data-error-for='tournament-form']\")"
                      ".textContent.includes('4 到 64')")
        page.fill("#tour-capacity", "4")
        page.click("#tournament-form button[type=submit]")
        page.wait_for_selector("[data-tournament-name='周末杯']")
        tid = int(page.evaluate("location.hash").split("id=")[1])
        assert page.locator(".tour-status").inner_text() == "报名中"
        assert page.locator("[data-standing='host']").count() == 1
        for name in ("amy", "bo", "cy"):
            _join(base, tid, tokens[name])
        # entered: no quick match meanwhile; the lobby lists the tournament
        page.click("#nav [data-nav='lobby']")
        page.wait_for_selector(f".tour-card [data-tournament='{tid}']")
        page.click("[data-do='quick']")
        wait_js(page, "document.body.textContent.includes('你已报名比赛')")
        page.click(f"[data-entered-tournament='{tid}']")  # the lobby leads to it
        page.wait_for_selector("[data-standing='cy']")
        page.click("[data-tour-do='start']")
        page.wait_for_selector(".table", timeout=30_000)  # his table, by itself
        assert page.locator(".tour-banner").inner_text() == "比赛「周末杯」· 第 1/1 轮"
        guest.goto(f"{base}/#/tournament?id={tid}")
        guest.wait_for_selector(".tour-tables [data-watch]")
        guest.screenshot(path=str(artifacts / "tournament-running.png"), full_page=True)
        assert "第 1/1 轮进行中" in guest.locator(".tour-status").inner_text()
        assert guest.locator("[data-tour-do]").count() == 0  # a guest enters nothing
        page.click("[data-do='auto']")
        # the hand's settlement, then its button to the match's summary
        page.wait_for_selector("#overlay [data-act='continue']", timeout=240_000)
        page.click("#overlay [data-act='continue']")
        page.wait_for_selector("[data-back-tournament]", timeout=30_000)
        page.click("[data-back-tournament]")
        page.wait_for_selector(".tour-status[data-status='finished']", timeout=30_000)
        assert page.locator(".tour-standings tbody tr").count() == 4
        line = page.locator(".tour-tables li").first.inner_text()  # the table's points
        assert re.search(r"host [+-]?\d+", line), line
        mine = page.locator("tr.me[data-standing='host']")
        assert mine.count() == 1 and mine.evaluate("e => getComputedStyle(e).display") == "table-row"
        page.screenshot(path=str(artifacts / "tournament-finished.png"), full_page=True)
        unexpected = [e for e in console.errors + guest_console.errors if "404" not in e]
        assert unexpected == [], unexpected
    finally:
        guest_context.close()
        context.close()


@pytest.mark.slow
def test_a_tournament_with_a_start_time(browser: Any, tournament_server: str) -> None:
    """定时开赛 from the form: the player's local time goes to the server with its zone and
    comes back on the tournament's page; one too soon is refused on the form."""
    base = tournament_server
    token = register_user(base, "timer", PASSWORD)
    context, page, console = signed_in(browser, base, token, "#/tournaments")
    try:
        page.wait_for_selector("#tournament-form #tour-starts")
        local = page.evaluate("""() => {
          const pad = (n) => String(n).padStart(2, '0');
          const at = (minutes) => {
            const d = new Date(Date.now() + minutes * 60000);
            const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
            return `${day}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
          };
          return {soon: at(2), later: at(180)};
        }""")
        page.fill("#tour-name", "定时杯")
        page.fill("#tour-starts", local["soon"])  # too soon
        page.click("#tournament-form button[type=submit]")
        wait_js(page, "document.querySelector(\"[data-error-for='tournament-form']\")"
                      ".textContent.includes('5 分钟后到 7 天内')")
        page.fill("#tour-starts", local["later"])
        page.click("#tournament-form button[type=submit]")
        page.wait_for_selector("[data-tournament-name='定时杯'] ~ p [data-starts-at]")
        sent = page.get_attribute("[data-starts-at]", "data-starts-at")
        assert sent is not None
        # the server holds the moment the player meant, in his local time
        meant = page.evaluate(f"new Date({json.dumps(local['later'])}).getTime()")
        held = page.evaluate(f"new Date({json.dumps(sent)}).getTime()")
        assert meant == held
        assert "开赛" in page.inner_text("[data-starts-at]")
        assert console.errors == [] or all("400" in e for e in console.errors), console.errors
    finally:
        context.close()
