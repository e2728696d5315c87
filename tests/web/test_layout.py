"""Phone layouts, portrait and landscape, and the desktop: tile sizes, nothing cut off or
overlapping, names whole, touch targets of at least 40 px.  Screenshots of each size go to
``artifacts/``.  Real seat views on the fixture page (no game server)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import Console, register_user, signed_in, to_quick_table

PAGE = "/src/wuhan_mahjong/web/index.html"

SIZES = {
    # name: (viewport, smallest own tile width, phone)
    "portrait": ({"width": 390, "height": 844}, 26, True),
    "landscape": ({"width": 844, "height": 390}, 40, True),
    "desktop": ({"width": 1280, "height": 800}, 40, False),
}
NAMES = ["汉口老李 · 机器人", "武昌张师傅 · 机器人", "averyveryverylongplayername", "江汉胡婆婆 · 机器人"]

BOXES = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {x: r.x, y: r.y, w: r.width, h: r.height};
  };
  const all = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.offsetParent !== null).map(box);
  return {
    vw: innerWidth, vh: innerHeight, scroll: document.documentElement.scrollWidth,
    regions: Object.fromEntries(['.seat-top', '.seat-left', '.center', '.seat-right', '.me']
      .map((s) => [s, document.querySelector(s) ? box(document.querySelector(s)) : null])),
    hand: all('.hand .tile'), actions: all('.actions .act'), river: all('.river .tile'),
    handBox: box(document.querySelector('.hand')),
    names: [...document.querySelectorAll('.seat .name')]
      .map((e) => [e.scrollWidth, e.clientWidth, e.textContent]),
    targets: [...document.querySelectorAll('#app button, #app select, .topbar button, .topbar a')]
      .filter((e) => e.offsetParent !== null).map((e) => ({...box(e), what: e.outerHTML.slice(0, 60)})),
  };
}"""


def _overlap(a: dict[str, float], b: dict[str, float]) -> float:
    w = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
    return max(0.0, w) * max(0.0, h)


NOTICE = {"id": 7, "text": "今晚 23:00 停服维护十分钟，请大家提前结束对局。维护后新增亲友圈排行榜，欢迎体验！"
                         " Maintenance tonight at 23:00 for ten minutes.", "expires_at": None}
"""A long notice to every player (系统公告, ``notice.js``): the table leaves it room."""


@pytest.mark.slow
@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("frame", ["turn", "late"])
@pytest.mark.parametrize("notice", [False, True], ids=["", "notice"])
def test_table_layout(browser: Any, static_server: str, artifacts: Path, size: str, frame: str,
                      notice: bool) -> None:
    viewport, min_tile, phone = SIZES[size]
    # reduced motion: the boxes and screenshots show where things end up, not an animation's frame
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone,
                                  device_scale_factor=2 if phone else 1, reduced_motion="reduce")
    page = context.new_page()
    console = Console(page)
    page.goto(f"{static_server}{PAGE}#/fixture?src=/tests/web/fixtures/views.json&frame={frame}")
    page.wait_for_selector(".table")
    # long player names, as at a live table
    page.evaluate(f"() => {{ window.__wm.fixture.names = {NAMES!r}; }}")
    if notice:  # the notice banner under the menu bar, as the server's frame would show it
        page.evaluate(f"() => window.__wm.showAnnouncement({json.dumps(NOTICE)})")
    other = "claim" if frame != "claim" else "turn"
    page.select_option("#fixture-frame", other)
    page.select_option("#fixture-frame", frame)
    b = page.evaluate(BOXES)
    if notice:
        assert page.is_visible("#notice .notice-text"), "no notice shown"
    page.screenshot(path=str(artifacts / f"layout-{size}-{frame}{'-notice' if notice else ''}.png"))
    vw, vh = b["vw"], b["vh"]
    assert b["scroll"] <= vw, "wider than the screen"
    # own tiles and discards big enough
    assert b["hand"] and min(t["w"] for t in b["hand"]) >= min_tile, [t["w"] for t in b["hand"]][:3]
    assert b["river"] and min(t["w"] for t in b["river"]) >= 18, min(t["w"] for t in b["river"])
    # the hand: inside the screen, tiles side by side without overlapping, all visible at once
    xs = sorted(b["hand"], key=lambda t: t["x"])
    assert xs[0]["x"] >= 0 and xs[-1]["x"] + xs[-1]["w"] <= vw
    for left, right in itertools.pairwise(xs):
        assert left["x"] + left["w"] <= right["x"] + 0.5
    # the hand and its buttons on the first screen, without scrolling: on a phone the menu
    # once wrapped onto three rows and pushed them below it
    bottom = b["handBox"]["y"] + b["handBox"]["h"]
    assert bottom <= vh + 0.5, "the hand is below the screen"
    assert b["actions"] or frame != "turn", "no action buttons on the turn frame"
    for act in b["actions"]:
        assert act["y"] + act["h"] <= vh + 0.5, ("an action button is below the screen", act)
    # the seats, the centre and the own area do not overlap and stay on the screen
    regions = {k: v for k, v in b["regions"].items() if v}
    assert len(regions) == 5
    for k, r in regions.items():
        assert r["x"] >= -0.5 and r["x"] + r["w"] <= vw + 0.5, k
    keys = list(regions)
    for i, k in enumerate(keys):
        for k2 in keys[i + 1:]:
            assert _overlap(regions[k], regions[k2]) < 1, (k, k2)
    # names are whole, not cut off
    for scroll, client, text in b["names"]:
        assert scroll <= client + 1, text
    # touch targets
    if phone:
        small = [t for t in b["targets"] if t["h"] < 40 or t["w"] < 40]
        assert not small, small[:3]
    assert console.errors == []
    context.close()


@pytest.mark.slow
@pytest.mark.parametrize("size", list(SIZES))
def test_screens_fit(browser: Any, live_server: str, artifacts: Path, size: str) -> None:
    """The lobby, the rules page, the settings and the leaderboards fit the screen (the menu
    too, with all its items, in one row), and a live table shows the whole own hand;
    screenshots at each size."""
    viewport, _, phone = SIZES[size]
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    console = Console(page)
    page.goto(f"{live_server}/")
    page.click("[data-do='guest']")
    page.wait_for_selector("#create-form")
    screens = (("lobby", "#create-form"), ("rules", ".rules-table"), ("settings", "#settings-form"),
               ("leaderboard", ".board-empty, table.board"))
    for screen, ready in screens:
        page.evaluate(f"() => {{ location.hash = '#/{screen}'; }}")
        page.wait_for_selector(ready)
        page.screenshot(path=str(artifacts / f"screen-{screen}-{size}.png"), full_page=True)
        b = page.evaluate(BOXES.replace("document.querySelector('.hand')", "document.body"))
        assert b["scroll"] <= b["vw"], screen
        if phone:
            small = [t for t in b["targets"] if t["h"] < 40 or t["w"] < 40]
            assert not small, (screen, small[:3])
        # the menu, with all its items for an account, is one row on every size: on a phone
        # it once wrapped onto three rows (160 px) and pushed the own hand below the screen
        bar = page.evaluate("() => document.querySelector('#topbar').getBoundingClientRect().height")
        assert bar <= 56, (screen, bar)
    # a live table of a quick match: the whole own hand on the first screen
    page.evaluate("() => { location.hash = '#/lobby'; }")
    page.wait_for_selector("#create-form")
    to_quick_table(page)
    page.wait_for_selector(".hand .tile")
    hand = page.evaluate("() => { const r = document.querySelector('.hand').getBoundingClientRect();"
                         " return [r.bottom, innerHeight]; }")
    page.screenshot(path=str(artifacts / f"screen-table-{size}.png"))
    assert hand[0] <= hand[1] + 0.5, ("the hand is below the screen", hand)
    assert console.errors == []
    context.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_menu_is_one_row_at_every_width(browser: Any, live_server: str, lang: str) -> None:
    """A registered player's menu (every item) is one row from tablet to wide desktop, in
    both languages; where it does not fit it scrolls sideways and every item stays
    reachable.  In English at 1024 px it wrapped onto three rows (108 px)."""
    token = register_user(live_server, f"menu_{lang}")
    context, page, console = signed_in(browser, live_server, token)
    try:
        page.evaluate(f"() => localStorage.setItem('wm.lang', '{lang}')")
        page.reload()
        page.wait_for_selector("#create-form")
        page.wait_for_selector("#nav [data-nav='clubs']")  # the account's menu, every item
        for width in (768, 900, 1024, 1152, 1280, 1366, 1440):
            page.set_viewport_size({"width": width, "height": 800})
            bar = page.evaluate("() => document.querySelector('#topbar').getBoundingClientRect()"
                                ".height")
            assert bar <= 56, (lang, width, bar)
            nav = page.evaluate("""() => { const n = document.querySelector('#topbar nav');
              const r = n.getBoundingClientRect();
              return {scroll: n.scrollWidth, client: n.clientWidth, right: r.right,
                      vw: document.documentElement.clientWidth,
                      items: n.querySelectorAll('a, button').length}; }""")
            assert nav["items"] >= 9 and nav["right"] <= nav["vw"], (lang, width, nav)
            # the last item is reachable: scrolled into view it lies inside the menu
            last = page.evaluate("""() => { const n = document.querySelector('#topbar nav');
              const items = n.querySelectorAll('a, button'); const e = items[items.length - 1];
              e.scrollIntoView({inline: 'end'}); const r = e.getBoundingClientRect();
              const m = n.getBoundingClientRect(); return r.right <= m.right + 1; }""")
            assert last, (lang, width)
        assert not console.errors
    finally:
        context.close()
