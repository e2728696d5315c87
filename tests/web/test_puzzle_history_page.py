"""我的记录 (the puzzle history, 错题本) in the real browser against the real server
(``web/puzzles.js``, ``GET /api/puzzles/history``).

Below the puzzle a signed-in player (a guest too) reads his first answers in the kind shown,
newest first: ✓ or ✗, the profile, the number, the answer he gave (a tile, or 能胡 / 不能胡)
and when; 只看错题 keeps the wrong ones; each row opens its puzzle, which shows his earlier
answer; an answer that counts is listed at once; 更多 shows the next page.  Without an
account there is no list.  On a phone held upright it fits.  No console errors.
"""

from __future__ import annotations

import functools
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.bots.puzzles import Puzzle, make_puzzle
from wuhan_mahjong.bots.win_puzzles import WinQuestion, make_win_question
from wuhan_mahjong.tiles import tile_str

from .conftest import PHONE, as_guest, open_page, wait_js

# two discard puzzles (the one answered first has the higher number, so the order is the
# answers' and not the numbers') and a win question whose answer is yes
FIRST = ("bianfeng", 5)
SECOND = ("bianfeng", 3)
WIN = ("yuanhang", 2)


@functools.cache
def _puzzle(profile: str, number: int) -> Puzzle:
    return make_puzzle(profile, number)


@functools.cache
def _question(profile: str, number: int) -> WinQuestion:
    return make_win_question(profile, number)


def _goto(page: Any, hash_: str) -> None:
    page.evaluate(f"() => {{ location.hash = {json.dumps(hash_)}; }}")


def _shown(page: Any, kind: str = "discard",
           coming: tuple[str, int] | None = None) -> tuple[str, int]:
    """The profile and number of the puzzle on screen, once drawn; after a click that opens
    another, once it has replaced the one before (``coming``: the one it should be; a
    timeout if it never comes)."""
    if coming is not None:  # read at once, the click's puzzle may not have replaced the old
        page.wait_for_selector(f".puzzle-head[data-kind='{kind}'][data-profile='{coming[0]}']"
                               f"[data-number='{coming[1]}']")
    page.wait_for_selector(".winq-hand .tile" if kind == "win" else ".puzzle-hand .tile")
    head = page.locator(f".puzzle-head[data-kind='{kind}']")
    return str(head.get_attribute("data-profile")), int(str(head.get_attribute("data-number")))


def _history(page: Any, kind: str, rows: int, *, wrong: bool = False) -> list[dict[str, Any]]:
    """The history's rows once it lists ``rows`` of ``kind`` (the filter ``wrong``)."""
    where = f"[data-kind='{kind}'][data-wrong='{int(wrong)}'][data-state='loaded'][data-rows='{rows}']"
    wait_js(page, f"document.querySelector(\".puzzle-history{where}\")")
    found: list[dict[str, Any]] = page.evaluate("""() => [...document.querySelectorAll('.puzzle-history-row')]
      .map((a) => ({profile: a.dataset.historyProfile, number: Number(a.dataset.historyNumber),
                    correct: a.dataset.correct === '1', answer: a.dataset.answer,
                    href: a.getAttribute('href'), mark: a.querySelector('.puzzle-mark').textContent,
                    tile: a.querySelector('.puzzle-history-answer .tile')?.dataset.tile ?? null,
                    said: a.querySelector('.puzzle-history-said')?.textContent ?? null,
                    when: a.querySelector('time').textContent, current: a.hasAttribute('aria-current')}))""")
    return found


def _filter(page: Any, wrong: bool) -> None:
    which = "wrong" if wrong else "all"
    page.click(f".puzzle-history [data-puzzle-history='{which}']")
    assert page.locator(f"[data-puzzle-history='{which}'][aria-pressed='true']").count() == 1


def _cut(page: Any, tile: str) -> None:
    page.locator(f".puzzle-hand [data-puzzle-tile='{tile}']").last.click()
    page.wait_for_selector(".puzzle-choices tbody tr")


def test_a_wrong_answer_is_listed(browser: Any, live_server: str) -> None:
    """Without an account there is no list; a guest's list is empty, then shows the puzzle he
    cut wrong (✗, his tile, when) at once, in all and in 只看错题."""
    profile, number = SECOND
    p = _puzzle(profile, number)
    wrong = tile_str(p.choices[1].tile)
    hash_ = f"#/puzzles?profile={profile}&n={number}"
    desktop = {"width": 1280, "height": 800}
    context, page, console = open_page(browser, f"{live_server}/{hash_}", viewport=desktop)
    try:
        assert _shown(page) == (profile, number)
        assert page.locator(".puzzle-history").count() == 0
    finally:
        context.close()
    context, page, console = as_guest(browser, live_server, viewport=desktop)
    try:
        _goto(page, hash_)
        assert _shown(page) == (profile, number)
        assert _history(page, "discard", 0) == []
        assert page.locator(".puzzle-history-none").count() == 1
        _cut(page, wrong)
        rows = _history(page, "discard", 1)
        assert [(r["profile"], r["number"], r["correct"], r["answer"], r["tile"], r["mark"])
                for r in rows] == [(profile, number, False, wrong, wrong, "✗")]
        assert rows[0]["href"] == hash_ and rows[0]["current"] and rows[0]["when"]
        _filter(page, True)
        assert [r["number"] for r in _history(page, "discard", 1, wrong=True)] == [number]
        assert console.errors == [], console.errors
    finally:
        context.close()


@pytest.mark.slow
def test_a_guests_history(browser: Any, live_server: str, artifacts: Path) -> None:
    """A right cut, then a wrong one, then a win question: each kind lists its own, newest
    first; 只看错题 keeps the wrong cut; after a reload a row opens its puzzle, which shows
    the earlier answer."""
    context, page, console = as_guest(browser, live_server, viewport={"width": 1280, "height": 800})
    try:
        p1, p2 = _puzzle(*FIRST), _puzzle(*SECOND)
        right, wrong = tile_str(p1.answer), tile_str(p2.choices[1].tile)
        _goto(page, f"#/puzzles?profile={FIRST[0]}&n={FIRST[1]}")
        assert _shown(page) == FIRST
        assert _history(page, "discard", 0) == []
        _cut(page, right)
        rows = _history(page, "discard", 1)
        assert [(r["number"], r["correct"], r["mark"]) for r in rows] == [(FIRST[1], True, "✓")]
        _goto(page, f"#/puzzles?profile={SECOND[0]}&n={SECOND[1]}")
        assert _shown(page) == SECOND
        _cut(page, wrong)
        rows = _history(page, "discard", 2)
        assert [(r["profile"], r["number"], r["correct"], r["answer"], r["tile"]) for r in rows] == \
            [(*SECOND, False, wrong, wrong), (*FIRST, True, right, right)]
        assert [r["current"] for r in rows] == [True, False]
        assert rows[1]["href"] == f"#/puzzles?profile={FIRST[0]}&n={FIRST[1]}"
        _filter(page, True)
        rows = _history(page, "discard", 1, wrong=True)
        assert [(r["number"], r["correct"]) for r in rows] == [(SECOND[1], False)]
        _filter(page, False)
        assert len(_history(page, "discard", 2)) == 2

        # the win question: its own list
        q = _question(*WIN)
        assert q.win
        _goto(page, f"#/puzzles?kind=win&profile={WIN[0]}&n={WIN[1]}")
        assert _shown(page, "win") == WIN
        assert _history(page, "win", 0) == []
        page.click(".winq-buttons [data-winq='yes']")
        page.wait_for_selector(".winq-result")
        rows = _history(page, "win", 1)
        assert [(r["profile"], r["number"], r["correct"], r["answer"], r["tile"]) for r in rows] == \
            [(*WIN, True, "yes", None)]
        assert rows[0]["said"] in ("能胡", "It can win")
        assert rows[0]["href"] == f"#/puzzles?kind=win&profile={WIN[0]}&n={WIN[1]}"
        _filter(page, True)
        assert _history(page, "win", 0, wrong=True) == []
        assert page.locator(".puzzle-history-none").count() == 1
        page.screenshot(path=str(artifacts / "puzzle-history-desktop.png"), full_page=True)

        # a new visit: the list from the server; a row opens its puzzle with the earlier answer
        page.reload()
        assert _shown(page, "win") == WIN
        assert len(_history(page, "win", 1)) == 1
        page.click(".puzzle-switch [data-puzzle-kind='discard']")
        page.wait_for_selector(".puzzle-head[data-kind='discard']")
        assert [r["number"] for r in _history(page, "discard", 2)] == [SECOND[1], FIRST[1]]
        _filter(page, True)
        assert len(_history(page, "discard", 1, wrong=True)) == 1
        page.click(".puzzle-history-row")
        assert _shown(page, coming=SECOND) == SECOND
        assert page.url.endswith(f"#/puzzles?profile={SECOND[0]}&n={SECOND[1]}")
        earlier = page.locator(".puzzle-verdict.earlier")
        earlier.wait_for()
        assert earlier.get_attribute("data-earlier") == "0"
        assert _history(page, "discard", 1, wrong=True)[0]["current"]
        # and the right one, from the whole list
        _filter(page, False)
        _history(page, "discard", 2)
        page.click(f".puzzle-history-row[data-history-number='{FIRST[1]}']")
        assert _shown(page, coming=FIRST) == FIRST
        page.locator(".puzzle-verdict.earlier[data-earlier='1']").wait_for()
        assert console.errors == [], console.errors
    finally:
        context.close()


BOXES = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {x: r.x, y: r.y, w: r.width, h: r.height, what: e.outerHTML.slice(0, 60)};
  };
  const shown = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.offsetParent !== null);
  return {
    vw: innerWidth, scroll: document.documentElement.scrollWidth,
    wide: shown('.puzzle-history *').map(box).filter((b) => b.x < -0.5 || b.x + b.w > innerWidth + 0.5),
    targets: shown('.puzzle-history button, .puzzle-history a').map(box),
  };
}"""


def _post(base: str, path: str, token: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{base}{path}", method="POST", data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as r:
        found: dict[str, Any] = json.loads(r.read())
    return found


@pytest.mark.slow
def test_more_on_a_phone(browser: Any, live_server: str, artifacts: Path) -> None:
    """Upright on a phone 390 px wide: 21 answers make a page of 20 and 更多 the last one;
    nothing wider than the screen, the rows and buttons 40 px at least."""
    context, page, console = as_guest(browser, live_server, **PHONE)
    try:
        token = str(page.evaluate("() => localStorage.getItem('wm.token')"))
        profile = "yuanhang"
        numbers = list(range(101, 122))
        for n in numbers:  # the best cut of odd numbers, another cut of even ones
            p = _puzzle(profile, n)
            cut = tile_str(p.answer if n % 2 else p.choices[1].tile)
            said = _post(live_server, f"/api/puzzles/{profile}/{n}/answer", token, {"discard": cut})
            assert said["correct"] == (n % 2 == 1)
        _goto(page, "#/puzzles")
        _shown(page)
        rows = _history(page, "discard", 20)
        assert [r["number"] for r in rows] == numbers[::-1][:20]
        assert all(r["correct"] == (r["number"] % 2 == 1) for r in rows)
        more = page.locator(".puzzle-history [data-puzzle-history='more']")
        assert more.count() == 1
        for stage in ("list", "more"):
            if stage == "more":
                more.tap()
                rows = _history(page, "discard", 21)
                assert [r["number"] for r in rows] == numbers[::-1]
                assert more.count() == 0
            page.screenshot(path=str(artifacts / f"puzzle-history-{stage}-portrait.png"), full_page=True)
            b = page.evaluate(BOXES)
            assert b["scroll"] <= b["vw"], (stage, "wider than the screen")
            assert not b["wide"], (stage, b["wide"][:3])
            small = [t for t in b["targets"] if t["h"] < 40 or t["w"] < 40]
            assert not small, (stage, small[:3])
        _filter(page, True)
        rows = _history(page, "discard", 10, wrong=True)
        assert [r["number"] for r in rows] == [n for n in numbers[::-1] if n % 2 == 0]
        assert console.errors == [], console.errors
    finally:
        context.close()
