"""Discard puzzles (何切) in the real browser against the real server (``web/puzzles.js``).

The menu's 练习 opens the puzzle of the day; the page draws the position the server sends
(the hand as dealt with the drawn tile set apart, the melds, the indicator and the laizi),
and a tap on a tile answers: ✓ or ✗ as the rules core decides (checked here against
``wuhan_mahjong.bots.puzzles.make_puzzle``), every legal cut with its shanten, its
acceptance and the kinds that help, best first, the player's row and the answer's marked.
A guest's record counts his first answers only; a shared link opens the same puzzle, which
remembers his earlier answer; 下一题 gives another.  Without an account the puzzles work
too, with no record.  On a phone held upright the page fits.  No console errors.
"""

from __future__ import annotations

import functools
import itertools
import re
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.bots.puzzles import Puzzle, make_puzzle
from wuhan_mahjong.tiles import tile_str

from .conftest import PHONE, Console, as_guest, open_page, wait_js


@functools.cache
def _puzzle(profile: str, number: int) -> Puzzle:
    return make_puzzle(profile, number)


@functools.cache
def _with_melds(profile: str) -> int:
    """The first puzzle number of ``profile`` whose hand has a meld."""
    return next(n for n in itertools.count(1) if _puzzle(profile, n).melds)


def _shown(page: Any) -> tuple[str, int]:
    """The profile and number of the puzzle on screen, once drawn."""
    page.wait_for_selector(".puzzle-hand .tile")
    head = page.locator(".puzzle-head")
    return str(head.get_attribute("data-profile")), int(str(head.get_attribute("data-number")))


def _hand_as_dealt(p: Puzzle) -> list[str]:
    """The hand in the table's order: sorted, the drawn tile (one copy) last."""
    tiles = [tile_str(t) for t in p.hand]
    if p.drawn is not None:
        drawn = tile_str(p.drawn)
        del tiles[len(tiles) - 1 - tiles[::-1].index(drawn)]
        tiles.append(drawn)
    return tiles


def _check_position(page: Any, p: Puzzle) -> None:
    """The position on screen is puzzle ``p``'s."""
    tiles = page.locator(".puzzle-hand [data-puzzle-tile]")
    assert tiles.count() == 14 - 3 * len(p.melds) == len(p.hand)
    assert [tiles.nth(i).get_attribute("data-tile") for i in range(tiles.count())] == _hand_as_dealt(p)
    drawn = page.locator(".puzzle-hand .tile.drawn")
    if p.drawn is None:
        assert drawn.count() == 0 and page.locator("[data-after-claim]").count() == 1
    else:
        assert drawn.count() == 1 and drawn.get_attribute("data-tile") == tile_str(p.drawn)
    melds = page.locator(".puzzle-melds .meld")
    assert melds.count() == len(p.melds)
    for i, m in enumerate(p.melds):
        assert melds.nth(i).get_attribute("data-meld") == m.type
        shown = melds.nth(i).locator(".tile")
        faces = [shown.nth(k).get_attribute("data-tile") for k in range(shown.count())]
        expected = [tile_str(t) for t in m.tiles]
        if m.kind == "concealed":  # its two end tiles face down, as at the table
            expected[0] = expected[-1] = "back"
        assert faces == expected
    assert page.locator(".puzzle-lz .indicator .tile").get_attribute("data-tile") == tile_str(p.indicator)
    assert page.locator(".puzzle-lz .laizi-fig .tile.laizi").get_attribute("data-tile") == tile_str(p.laizi)
    assert page.locator(f"[data-turn='{p.turn}']").count() == 1
    assert page.locator(f"[data-wall='{p.wall_left}']").count() == 1


def _answer(page: Any, tile: str) -> None:
    """Tap ``tile`` (its rightmost copy) and wait for the server's answer."""
    page.locator(f".puzzle-hand [data-puzzle-tile='{tile}']").last.click()
    page.wait_for_selector(".puzzle-choices tbody tr")


def _check_answer(page: Any, p: Puzzle, cut: str) -> None:
    """The answer on screen is the rules core's for cutting ``cut``."""
    answer = tile_str(p.answer)
    verdict = page.locator(".puzzle-verdict")
    assert verdict.get_attribute("data-correct") == ("1" if cut == answer else "0")
    rows = page.locator(".puzzle-choices tbody tr")
    assert rows.count() == len(p.choices)
    for i, c in enumerate(p.choices):
        row = rows.nth(i)
        assert row.get_attribute("data-choice-tile") == tile_str(c.tile)
        assert row.locator("[data-shanten]").get_attribute("data-shanten") == str(c.shanten)
        assert row.locator("[data-acceptance]").get_attribute("data-acceptance") == str(c.acceptance)
        kinds = row.locator(".puzzle-kinds .tile")
        assert [kinds.nth(k).get_attribute("data-tile") for k in range(kinds.count())] == \
            [tile_str(k) for k in c.kinds]
    assert page.locator(".puzzle-choices tr.best").get_attribute("data-choice-tile") == answer
    assert page.locator(".puzzle-choices tr.mine").get_attribute("data-choice-tile") == cut
    assert rows.first.get_attribute("class") and "best" in str(rows.first.get_attribute("class"))
    marked = "cut-right" if cut == answer else "cut-wrong"
    assert page.locator(f".puzzle-hand .tile.{marked}").get_attribute("data-tile") == cut


def _stats(page: Any) -> dict[str, int]:
    line = page.locator(".puzzle-stats")
    return {k: int(str(line.get_attribute(f"data-{k}")))
            for k in ("attempted", "solved", "streak", "best-streak")}


def _wrong(p: Puzzle) -> str:
    """A legal cut that is not the answer."""
    return tile_str(p.choices[1].tile)


def test_a_puzzle_without_an_account(browser: Any, live_server: str) -> None:
    """Anyone may solve: a numbered puzzle's address shows it (melds too); the answer is
    the rules core's; no record, an invitation to sign in instead; a bad number says so."""
    profile = "bianfeng"
    number = _with_melds(profile)
    p = _puzzle(profile, number)
    context, page, console = open_page(browser, f"{live_server}/#/puzzles?profile={profile}&n={number}",
                                       viewport={"width": 1280, "height": 800})
    try:
        assert _shown(page) == (profile, number)
        assert page.locator("#nav [data-nav='puzzles'][aria-current='page']").count() == 1
        assert page.locator("#puzzle-profile").input_value() == profile
        _check_position(page, p)
        assert page.locator(".puzzle-stats").count() == 0
        assert page.locator(".puzzle-stats-none a[href='#/login']").count() == 1
        _answer(page, tile_str(p.answer))
        _check_answer(page, p, tile_str(p.answer))
        assert page.locator(".puzzle-share #puzzle-link").input_value().endswith(
            f"#/puzzles?profile={profile}&n={number}")
        # 每日一题: the day's puzzle of the profile on screen
        page.click(".puzzle-bar [data-puzzle='daily']")
        page.wait_for_selector(".puzzle-head[data-daily]")
        assert page.url.endswith(f"#/puzzles?profile={profile}")
        _check_position(page, _puzzle(*_shown(page)))
        # a number that is none: said, nothing drawn
        page.evaluate("() => { location.hash = '#/puzzles?profile=yuanhang&n=0'; }")
        page.wait_for_selector("[data-puzzle-error]")
        assert page.locator(".puzzle-hand").count() == 0
        assert console.errors == [], console.errors
    finally:
        context.close()


def test_the_lobby_leads_to_the_days_puzzle(browser: Any, live_server: str) -> None:
    """The lobby's link opens the puzzles at the day's puzzle, its position drawn."""
    context, page, console = as_guest(browser, live_server)
    try:
        page.click("[data-lobby-puzzle]")
        page.wait_for_selector(".puzzle-head[data-daily]")
        assert page.locator("#nav [data-nav='puzzles'][aria-current='page']").count() == 1
        _check_position(page, _puzzle(*_shown(page)))
        assert console.errors == [], console.errors
    finally:
        context.close()


@pytest.mark.slow
def test_a_guests_puzzles(browser: Any, live_server: str, artifacts: Path) -> None:
    """The menu's 练习 opens the day's puzzle; a wrong cut and then a right one count in
    the guest's record; the shared link opens the same puzzle with his earlier answer, and
    answering it again does not count; 下一题 gives another."""
    context, page, console = as_guest(browser, live_server, viewport={"width": 1280, "height": 800})
    try:
        page.click("#nav [data-nav='puzzles']")
        profile, number = _shown(page)
        assert page.url.endswith("#/puzzles")
        assert profile == "yuanhang"  # the first profile, until another is chosen
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", str(page.locator(".puzzle-head").get_attribute("data-daily")))
        p = _puzzle(profile, number)
        _check_position(page, p)
        wait_js(page, "document.querySelector('.puzzle-stats')")
        assert _stats(page) == {"attempted": 0, "solved": 0, "streak": 0, "best-streak": 0}
        assert page.locator(".puzzle-verdict").count() == 0

        wrong = _wrong(p)
        _answer(page, wrong)
        _check_answer(page, p, wrong)
        assert _stats(page) == {"attempted": 1, "solved": 0, "streak": 0, "best-streak": 0}
        page.screenshot(path=str(artifacts / "puzzle-answered-desktop.png"), full_page=True)
        link = page.locator("#puzzle-link").input_value()
        assert link.endswith(f"#/puzzles?profile={profile}&n={number}")

        # the shared link in another tab of the same guest: the same puzzle, his first answer
        other = context.new_page()
        other_console = Console(other)
        other.goto(link)
        assert _shown(other) == (profile, number)
        _check_position(other, p)
        earlier = other.locator(".puzzle-verdict.earlier")
        earlier.wait_for()
        assert earlier.get_attribute("data-earlier") == "0"
        assert _tile_name(other, wrong) in str(earlier.text_content())
        other.click("[data-puzzle='show']")
        other.wait_for_selector(".puzzle-choices tbody tr")
        _check_answer(other, p, wrong)
        # answering again shows the answer, and does not count
        _answer(other, tile_str(p.answer))
        wait_js(other, "document.querySelector(\".puzzle-verdict[data-correct='1']\")")
        _check_answer(other, p, tile_str(p.answer))
        assert other.locator(".puzzle-again").count() == 1
        assert _stats(other) == {"attempted": 1, "solved": 0, "streak": 0, "best-streak": 0}
        assert other_console.errors == [], other_console.errors
        other.close()

        # the next puzzle: another number, in the address; the right cut counts
        page.click(".puzzle-after [data-puzzle='next']")
        wait_js(page, f"document.querySelector('.puzzle-head') && "
                      f"document.querySelector('.puzzle-head').dataset.number !== '{number}'")
        profile2, number2 = _shown(page)
        assert profile2 == profile and number2 != number
        assert page.url.endswith(f"#/puzzles?profile={profile}&n={number2}")
        p2 = _puzzle(profile2, number2)
        _check_position(page, p2)
        assert page.locator(".puzzle-verdict").count() == 0
        _answer(page, tile_str(p2.answer))
        _check_answer(page, p2, tile_str(p2.answer))
        assert _stats(page) == {"attempted": 2, "solved": 1, "streak": 1, "best-streak": 1}
        # Back: the day's puzzle again, its answer still on screen
        page.go_back()
        wait_js(page, f"document.querySelector('.puzzle-head') && "
                      f"document.querySelector('.puzzle-head').dataset.number === '{number}'")
        _check_answer(page, p, wrong)

        # another profile: its puzzle of the day, and the choice is remembered
        page.select_option("#puzzle-profile", "laizishanzhuang")
        wait_js(page, "document.querySelector('.puzzle-head') && "
                      "document.querySelector('.puzzle-head').dataset.profile === 'laizishanzhuang'")
        profile3, number3 = _shown(page)
        assert profile3 == "laizishanzhuang"
        _check_position(page, _puzzle(profile3, number3))
        page.reload()
        assert _shown(page) == (profile3, number3)
        # the keyboard: 1 picks the first tile, Enter cuts it
        page.keyboard.press("1")
        page.wait_for_selector(".puzzle-hand .tile.selected[data-pi='0']")
        page.keyboard.press("Enter")
        page.wait_for_selector(".puzzle-choices tbody tr")
        first = _hand_as_dealt(_puzzle(profile3, number3))[0]
        _check_answer(page, _puzzle(profile3, number3), first)
        assert _stats(page)["attempted"] == 3
        assert console.errors == [], console.errors
    finally:
        context.close()


def _tile_name(page: Any, tile: str) -> str:
    """The tile's name as the page writes it (in its language)."""
    return str(page.locator(f".puzzle-hand [data-tile='{tile}']").first.get_attribute("aria-label"))


BOXES = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {x: r.x, y: r.y, w: r.width, h: r.height};
  };
  const shown = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.offsetParent !== null);
  return {
    vw: innerWidth, scroll: document.documentElement.scrollWidth,
    hand: shown('.puzzle-hand .tile').map(box),
    targets: shown('#app button, #app select, #app a.button, .topbar button, .topbar a')
      .map((e) => ({...box(e), what: e.outerHTML.slice(0, 60)})),
    table: document.querySelector('.puzzle-choices') ? box(document.querySelector('.puzzle-choices')) : null,
  };
}"""


@pytest.mark.slow
def test_the_puzzle_page_on_a_phone(browser: Any, live_server: str, artifacts: Path) -> None:
    """Upright on a phone 390 px wide: nothing wider than the screen, the whole hand on one
    row with no tile over another, touch targets of 40 px, before and after the answer."""
    context, page, console = as_guest(browser, live_server, **PHONE)
    try:
        page.evaluate("() => { location.hash = '#/puzzles'; }")
        profile, number = _shown(page)
        p = _puzzle(profile, number)
        for stage in ("question", "answer"):
            if stage == "answer":
                page.locator(f".puzzle-hand [data-puzzle-tile='{_wrong(p)}']").last.tap()
                page.wait_for_selector(".puzzle-choices tbody tr")
                _check_answer(page, p, _wrong(p))
            page.screenshot(path=str(artifacts / f"puzzle-{stage}-portrait.png"), full_page=True)
            b = page.evaluate(BOXES)
            assert b["scroll"] <= b["vw"], (stage, "wider than the screen")
            xs = sorted(b["hand"], key=lambda t: t["x"])
            assert len(xs) == len(p.hand)
            assert xs[0]["x"] >= 0 and xs[-1]["x"] + xs[-1]["w"] <= b["vw"], stage
            assert min(t["w"] for t in xs) >= 24, [t["w"] for t in xs][:3]
            for left, right in itertools.pairwise(xs):
                assert left["x"] + left["w"] <= right["x"] + 0.5, stage
            small = [t for t in b["targets"] if t["h"] < 40 or t["w"] < 40]
            assert not small, (stage, small[:3])
            if b["table"]:
                assert b["table"]["x"] >= 0 and b["table"]["x"] + b["table"]["w"] <= b["vw"] + 0.5
        assert console.errors == [], console.errors
    finally:
        context.close()
