"""A player's own tools in the real browser against the real server: the AI review (复盘) of
a hand in its replay, the downloads of his data and his hands, a player page's rating curve,
and reporting (举报) a name and a player of a finished match.  The hands and matches are
written into the server's database as a table writes them (the engine's records), so the
tests need no played match."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from wuhan_mahjong.engine import Match, simple_policy
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.store import HandRecord, Store
from wuhan_mahjong.store.ratings import MIN_MATCHES
from wuhan_mahjong.store.reports import close_report, open_reports

from .conftest import open_page, register_user, server_and_store, signed_in, wait_js


@pytest.fixture(scope="module")
def tools_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Store]]:
    with server_and_store(tmp_path_factory.mktemp("tools-data")) as running:
        yield running


def _id(store: Store, name: str) -> int:
    account = store.account_by_username(name)
    assert account is not None
    return account.id


def _hand(store: Store, match_id: str, players: list[int]) -> HandRecord:
    """A real hand of the engine's, saved for ``players`` as a table saves it."""
    match = Match(get_rules("yuanhang"), 1, rng=random.Random(11))
    match.run(simple_policy)
    (hand,) = match.history
    return store.save_hand_record(HandRecord(
        match_id=match_id, hand_no=0, commitment="c" * 64, wall="", salt="00" * 32,
        events="\n".join(hand.records), seats=dict(enumerate(players))))


@pytest.mark.slow
def test_the_ai_review_of_a_replay(browser: Any, tools_server: tuple[str, Store],
                                   artifacts: Path) -> None:
    base, store = tools_server
    token = register_user(base, "reviewer")
    others = [register_user(base, f"reviewed{k}") for k in range(3)]
    assert others
    players = [_id(store, n) for n in ("reviewer", "reviewed0", "reviewed1", "reviewed2")]
    _hand(store, "rv-match", players)
    auth = {"Authorization": f"Bearer {token}"}
    review = httpx.get(f"{base}/api/matches/rv-match/hands/0/review", headers=auth,
                       timeout=60).json()
    differ = sorted({d["frame"] for d in review["decisions"] if not d["agree"]})
    context, page, console = signed_in(browser, base, token, "#/replay?id=rv-match/0")
    try:
        if page.evaluate("document.documentElement.lang") != "en":
            page.click("#lang")
        page.wait_for_selector(".replay [data-review='load']")
        page.click("[data-review='load']")
        page.wait_for_selector(".review-summary")
        s = review["summary"]
        assert page.inner_text(".review-summary") == (
            f"The AI agrees with {s['agreed']} of {s['decisions']} choices; {s['slower']} "
            f"slower discards; {s['missed_wins']} wins not taken")
        assert page.get_attribute(".review", "data-review-seat") == "0"  # his own seat
        assert differ, "the engine's simple player and the expert never differ: pick a seed"
        page.click("[data-review='next']")
        wait_js(page, f"window.__wm.replay.i === {differ[0]}")
        here = [d for d in review["decisions"] if d["frame"] == differ[0]]
        rows = page.locator(".review-here .review-decision")
        assert rows.count() == len(here)
        assert [rows.nth(k).get_attribute("data-agree") for k in range(len(here))] == [
            "1" if d["agree"] else "0" for d in here]
        accepts = [n for d in here for n in (d["accept_played"], d["accept_suggested"])
                   if n is not None]  # 进张 beside each discard, as the server counted it
        assert [int(x) for x in page.locator(".review-here [data-accept]").evaluate_all(
            "els => els.map((e) => e.dataset.accept)")] == accepts
        page.screenshot(path=str(artifacts / "replay-review.png"))
        if len(differ) > 1:
            page.click("[data-review='next']")
            wait_js(page, f"window.__wm.replay.i === {differ[1]}")
            page.click("[data-review='prev']")
            wait_js(page, f"window.__wm.replay.i === {differ[0]}")
        # another seat of his hand
        page.click(".review-seats [data-seat='2']")
        wait_js(page, "document.querySelector('.review') && document.querySelector('.review')"
                      ".dataset.reviewSeat === '2'")
        assert console.errors == []
    finally:
        context.close()
    # once published, anyone reviews a seat he chooses, without an account
    assert httpx.post(f"{base}/api/hands/rv-match/0/publish", headers=auth,
                      timeout=30).status_code == 200
    seat3 = httpx.get(f"{base}/api/public/hands/rv-match/0/review?seat=3", timeout=60).json()
    context, page, console = open_page(browser, f"{base}/#/replay?public=rv-match/0")
    try:
        page.wait_for_selector(".review-seats [data-seat='3']")
        page.click(".review-seats [data-seat='3']")
        page.wait_for_selector(".review-summary")
        assert page.get_attribute(".review", "data-review-seat") == "3"
        assert page.inner_text(".review-summary").startswith(
            f"{seat3['summary']['decisions']} 次选择中，AI 同意 {seat3['summary']['agreed']} 次")
        assert console.errors == []
    finally:
        context.close()


@pytest.mark.slow
def test_downloading_ones_data_and_hands(browser: Any, tools_server: tuple[str, Store]) -> None:
    base, store = tools_server
    token = register_user(base, "downloader")
    players = [_id(store, "downloader"), *(_id(store, n) for n in ("reviewed0", "reviewed1",
                                                                    "reviewed2"))]
    saved = _hand(store, "dl-match", players)
    context, page, console = signed_in(browser, base, token, "#/profile")
    try:
        page.wait_for_selector(".account-card [data-mydata='account']")
        with page.expect_download() as got:
            page.click("[data-mydata='account']")
        document = json.loads(Path(got.value.path()).read_text(encoding="utf-8"))
        assert document["account"]["username"] == "downloader"
        assert [h["match_id"] for h in document["hands"]] == ["dl-match"]
        with page.expect_download() as got:
            page.click("[data-mydata='hands']")
        assert Path(got.value.path()).read_text(encoding="utf-8") == saved.events + "\n"
        assert got.value.suggested_filename.endswith(".jsonl")
        assert console.errors == []
    finally:
        context.close()


def _rated(store: Store, match_id: str, players: list[int], points: list[int]) -> None:
    seats = [{"account_id": a, "name": f"p{a}", "is_bot": False} for a in players]
    epoch = store.open_match(match_id, "t-" + match_id, "00", {"profile": "yuanhang",
                                                              "seats": seats})
    store.finish_hand(match_id, epoch, HandRecord(
        match_id=match_id, hand_no=0, commitment="c" * 64, wall="1m" * 136, salt="00" * 32,
        events="{}", seats=dict(enumerate(players))), dict(zip(players, points, strict=True)),
        stake=0, fee=0, profile="yuanhang", totals=points)
    store.end_match(match_id, epoch, "finished")


@pytest.mark.slow
def test_a_rating_curve_and_reports(browser: Any, tools_server: tuple[str, Store]) -> None:
    base, store = tools_server
    names = ["curvy", "cb", "cc", "cd"]
    tokens = {n: register_user(base, n) for n in names}
    ids = [_id(store, n) for n in names]
    for k in range(MIN_MATCHES + 1):
        _rated(store, f"cv-{k}", ids, [30, 10, -10, -30] if k % 2 else [-10, 30, 10, -30])
    context, page, console = signed_in(browser, base, tokens["cb"], "#/player?name=curvy")
    try:
        page.wait_for_selector("figure.rating-curve[data-profile='yuanhang']")
        assert page.get_attribute("figure.rating-curve", "data-points") == str(MIN_MATCHES + 2)
        assert page.locator("figure.rating-curve polyline").count() == 1
        # the name report; its form stays open through a redraw (here: a change of language)
        wait_js(page, "window.__wm.blocks.loaded === true")  # no late answer redraws the page
        page.click("details.report summary")
        page.wait_for_selector("details.report[open]")
        page.click("#lang")
        wait_js(page, "document.documentElement.lang === 'en'")
        assert page.locator("details.report[open]").count() == 1
        page.click("#lang")
        wait_js(page, "document.documentElement.lang !== 'en'")
        page.click("form[data-report] button[type=submit]")
        page.wait_for_selector("[data-report-sent]")
        (named,) = [r for r in open_reports(store) if r.reason == "name"]
        assert (named.reporter, named.reported) == ("cb", "curvy")
        # a player of a finished match, from its summary: not a bot's seat, not one's own
        seats = [{"account_id": ids[1], "name": "cb", "is_bot": False},
                 {"account_id": ids[0], "name": "curvy", "is_bot": False},
                 {"account_id": store.create_bot().id, "name": "老李", "is_bot": True},
                 {"account_id": ids[2], "name": "cc", "is_bot": False}]
        store.open_match("rp-match", "t-rp", "00", {"profile": "yuanhang", "seats": seats})
        page.evaluate("""() => {
          const S = window.__wm;
          S.matchEnd = {match_id: 'rp-match', totals: [0, 0, 0, 0], stake: 0, account: null,
            results: [0, 1, 2, 3].map((seat) => ({seat, name: `n${seat}`, points: 0, silver: 0, fee: 0})),
            mySeat: 0, players: [0, 1, 2, 3].map((seat) => ({seat, bot: seat === 2}))};
          location.hash = '#/summary';
        }""")
        page.wait_for_selector("table.summary")
        assert page.locator("table.summary details.report").count() == 2  # seats 1 and 3
        row = page.locator("table.summary tr[data-seat='1']")
        row.locator("details.report summary").click()
        row.locator("select[name=reason]").select_option("collusion")
        row.locator("button[type=submit]").click()
        row.locator("[data-report-sent]").wait_for()
        (table_report,) = [r for r in open_reports(store) if r.match_id == "rp-match"]
        assert (table_report.reported, table_report.reason, table_report.seat) == (
            "curvy", "collusion", 1)
        # his profile lists them, and says when an operator has dealt with one
        close_report(store, table_report.id, "op", "warned")
        page.goto(f"{base}/#/profile")
        page.wait_for_selector(".my-reports li[data-status='closed']")
        states = page.locator(".my-reports li").evaluate_all(
            "els => els.map((e) => [Number(e.dataset.reportId), e.dataset.status])")
        assert states == [[table_report.id, "closed"], [named.id, "open"]]
        assert "warned" not in page.inner_text(".my-reports")
        assert console.errors == []
    finally:
        context.close()


@pytest.mark.slow
def test_blocking_a_player_hides_his_quick_chat(browser: Any,
                                                tools_server: tuple[str, Store]) -> None:
    base, _ = tools_server
    tokens = {n: register_user(base, n) for n in ("bk-a", "bk-b", "bk-c")}
    pages = {}
    try:
        for name, token in tokens.items():
            pages[name] = signed_in(browser, base, token, "#/lobby")
        a = pages["bk-a"][1]
        # bk-a blocks bk-b from his page; the profile lists him
        a.goto(f"{base}/#/player?name=bk-b")
        a.once("dialog", lambda d: d.accept())
        a.click("[data-block='bk-b'][data-on='1']")
        a.wait_for_selector("[data-block='bk-b'][data-on='0']")
        assert httpx.get(f"{base}/api/blocks", timeout=10, headers={
            "Authorization": f"Bearer {tokens['bk-a']}"}).json() == {"players": ["bk-b"]}
        a.goto(f"{base}/#/profile")
        a.wait_for_selector(".blocked-card [data-blocked='bk-b']")
        a.goto(f"{base}/#/lobby")
        # the three at one table (bk-b hosts, a bot fills the fourth seat)
        host = pages["bk-b"][1]
        host.wait_for_selector("#create-form")
        host.fill("#create-form input[name='hands']", "1")
        host.click("#create-form button[type='submit']")
        code = host.locator(".room-code").get_attribute("data-code", timeout=10_000)
        for name in ("bk-a", "bk-c"):
            page = pages[name][1]
            page.wait_for_selector("#join-form")
            page.fill("#join-form input[name='code']", code)
            page.click("#join-form button[type='submit']")
            page.wait_for_selector(".room-code")
        for name in ("bk-a", "bk-c", "bk-b"):
            pages[name][1].click("[data-do='ready']")
        host.click("[data-do='start']")
        for page in (p[1] for p in pages.values()):
            page.wait_for_selector(".table", timeout=15_000)
        seat = {n: pages[n][1].evaluate("() => window.__wm.table.seat") for n in pages}
        # bk-b speaks (bk-c sees it), then bk-c: bk-a sees bk-c's, and so has had bk-b's
        # before it on the same socket, and shows none
        def say(speaker: str) -> None:
            pages[speaker][1].evaluate(
                "() => window.__wm.ws.send(JSON.stringify({type: 'chat', phrase: 'nice'}))")

        say("bk-b")
        pages["bk-c"][1].locator(f".bubble[data-bubble-seat='{seat['bk-b']}']").wait_for(
            timeout=15_000)
        say("bk-c")
        a.locator(f".bubble[data-bubble-seat='{seat['bk-c']}']").wait_for(timeout=15_000)
        assert a.locator(f".bubble[data-bubble-seat='{seat['bk-b']}']").count() == 0
        for _, _, console in pages.values():
            assert console.errors == [], console.errors
    finally:
        for context, _, _ in pages.values():
            context.close()


@pytest.mark.slow
def test_the_lobby_says_how_many_play_now(browser: Any,
                                          tools_server: tuple[str, Store]) -> None:
    base, _ = tools_server
    token = register_user(base, "counted")
    context, page, console = signed_in(browser, base, token, "#/lobby")
    try:
        wait_js(page, "window.__wm.wsOpen === true")
        # the server reuses its count a moment (NOW_SECONDS): ask again until this player is in it
        for _ in range(60):
            page.click("[data-do='watch-refresh']")
            page.wait_for_timeout(500)
            if int(page.get_attribute(".now-playing", "data-online") or 0) >= 1:
                break
        assert int(page.get_attribute(".now-playing", "data-online") or 0) >= 1
        assert page.inner_text(".now-playing").startswith("在线 ")
        assert console.errors == []
    finally:
        context.close()
