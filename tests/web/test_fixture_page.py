"""The table and the settlement rendered from real engine views.

The views in ``views.json`` come from real random hands, made by this test run
(``make_fixtures.py``); the page is the shipped client (``index.html#/fixture?src=...``),
so no game server is needed here.  The replay viewer needs the server, which makes its
frames: ``test_replay_page.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import PHONE_LANDSCAPE, Console, fixtures_dir, wait_js

FIXTURES = fixtures_dir()
VIEWS = json.loads((FIXTURES / "views.json").read_text())
PAGE = "/src/wuhan_mahjong/web/index.html"


def open_frame(browser: Any, base: str, frame: str, **ctx: Any) -> tuple[Any, Any, Console]:
    context = browser.new_context(**ctx)
    page = context.new_page()
    console = Console(page)
    page.goto(f"{base}{PAGE}#/fixture?src=/tests/web/fixtures/views.json&frame={frame}")
    page.wait_for_selector(".table")
    return context, page, console


def check_deltas(page: Any, deltas: list[int]) -> None:
    for s, d in enumerate(deltas):
        text = page.locator(f"table.deltas tr[data-seat='{s}'] .delta").inner_text()
        assert text == (f"+{d}" if d > 0 else str(d))


def test_turn_frame(browser: Any, static_server: str, artifacts: Path) -> None:
    view = VIEWS["late"]
    context, page, console = open_frame(browser, static_server, "late",
                                        viewport={"width": 1200, "height": 820})
    hand = page.locator(".hand .tile")
    assert hand.count() == view["seats"][0]["concealed"]
    # the drawn tile is set apart, last
    assert page.locator(".hand .tile.drawn").get_attribute("data-tile") == view["drawn"]
    # laizi marked in the hand, the indicator and the laizi shown in the centre
    n_laizi = sum(1 for i in range(hand.count()) if hand.nth(i).get_attribute("data-tile") == view["laizi"])
    assert page.locator(".hand .tile.laizi").count() == n_laizi
    assert page.locator(".center .indicator .tile").get_attribute("data-tile") == view["indicator"]
    assert page.locator(".center .laizi-fig .tile").get_attribute("data-tile") == view["laizi"]
    assert page.locator(".wall").get_attribute("data-wall") == str(view["wall"])
    # every seat's discards and melds
    for ps in view["seats"]:
        seat = page.locator(f".seat[data-seat='{ps['seat']}']")
        assert seat.locator(".river .tile").count() == len(ps["discards"])
        assert seat.locator(".meld").count() == len(ps["melds"])
    assert page.locator(f".seat[data-seat='{view['dealer']}'] .dealer").count() == 1
    # every tile has a name for screen readers (its picture is aria-hidden): the river's
    # had none at all, and the others only a title
    assert page.locator(".tile:not([aria-label]):not([aria-hidden='true'])").count() == 0
    assert page.locator(".backs[role='img'][aria-label]").count() == 3  # the others' hands
    river = page.locator(".seat .river .tile").first
    assert river.get_attribute("role") == "img" and river.get_attribute("aria-label")
    assert page.locator(".hand .tile").first.get_attribute("role") == "button"
    page.screenshot(path=str(artifacts / "fixture-table.png"))
    # keyboard: pick a discardable tile with arrows, Enter plays it
    discards = [a["tile"] for a in view["legal_actions"] if a["type"] == "discard"]
    page.keyboard.press("ArrowLeft")  # the drawn tile
    tile = page.locator(".hand .tile.selected").get_attribute("data-tile")
    page.keyboard.press("Enter")
    sent = page.evaluate("window.__lastAction")
    if tile in discards:
        assert sent == {"type": "discard", "tile": tile, "tiles": tile}
    else:
        assert (sent is None or sent["type"] in ("special_kong", "laizi_discard")
                or page.locator(".chooser").count())
    assert console.errors == []
    context.close()


@pytest.mark.slow
def test_claim_with_chi_choice(browser: Any, static_server: str) -> None:
    view = VIEWS["claim_chi"]
    chis = [a for a in view["legal_actions"] if a["type"] == "chi"]
    context, page, console = open_frame(browser, static_server, "claim_chi")
    assert page.locator("button[data-act='chi']").count() == 1
    assert page.locator("button[data-act='pass']").count() == 1
    assert page.locator(".on-table .tile").get_attribute("data-tile") == view["on_table"]["tile"]
    page.keyboard.press("c")
    if len(chis) > 1:
        assert page.locator(".chooser .choice").count() == len(chis)
        page.keyboard.press(str(len(chis)))
        assert page.evaluate("window.__lastAction") == chis[-1]
    else:
        assert page.evaluate("window.__lastAction") == chis[0]
    page.keyboard.press(" ")
    assert page.evaluate("window.__lastAction") == {"type": "pass", "tiles": ""}
    assert console.errors == []
    context.close()


@pytest.mark.slow
@pytest.mark.parametrize("frame", ["win", "contract", "exhausted"])
def test_settlement_panel(browser: Any, static_server: str, artifacts: Path, frame: str) -> None:
    view = VIEWS[frame]
    context, page, console = open_frame(browser, static_server, frame,
                                        viewport={"width": 900, "height": 900})
    panel = page.locator("#overlay .settlement")
    panel.wait_for()
    st = view["result"]["settlement"]
    if st is None:
        assert "荒庄" in panel.inner_text()
    else:
        rows = panel.locator("tr.payment")
        assert rows.count() == len(st["payments"])
        for i, p in enumerate(st["payments"]):
            text = rows.nth(i).inner_text()
            assert str(p["amount"]) in text
            for f in p["factors"]:
                assert f["label"] in text
        if st["contractor"] is not None:
            assert panel.locator(".contract").count() == 1
    check_deltas(page, view["result"]["deltas"])
    page.screenshot(path=str(artifacts / f"fixture-settlement-{frame}.png"), full_page=True)
    assert console.errors == []
    context.close()


@pytest.mark.slow
def test_the_settlements_continue_button_is_on_a_phones_screen(browser: Any, static_server: str) -> None:
    """A phone on its side shows a settlement in three screens; its 继续 used to be under the
    last of them, found only by scrolling (and a test's click once hit the fairness check
    above it, the panel scrolled back).  It now stays at the bottom of the screen."""
    context, page, console = open_frame(browser, static_server, "win", **PHONE_LANDSCAPE)
    page.locator("#overlay .settlement").wait_for()
    assert page.evaluate("document.getElementById('overlay').scrollHeight") > 390 * 1.5
    for where in ("top", "middle"):
        page.evaluate(f"() => {{ const o = document.getElementById('overlay');"
                      f" o.scrollTop = {'0' if where == 'top' else 'o.scrollHeight / 3'}; }}")
        hit = page.evaluate("""() => { const b = document.querySelector("#overlay [data-act='continue']");
            const r = b.getBoundingClientRect();
            const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
            return { bottom: r.bottom, top: r.top, hit: top === b || b.contains(top) }; }""")
        assert hit["hit"] and hit["top"] >= 0 and hit["bottom"] <= 390, (where, hit)
    page.click("#overlay [data-act='continue']", no_wait_after=True)
    assert console.errors == []
    context.close()


@pytest.mark.slow
def test_phone_and_english(browser: Any, static_server: str, artifacts: Path) -> None:
    context, page, console = open_frame(browser, static_server, "late",
                                        viewport={"width": 390, "height": 844}, is_mobile=True,
                                        has_touch=True, device_scale_factor=2)
    # nothing wider than the screen; the whole hand fits
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = page.locator(".hand").bounding_box()
    last = page.locator(".hand .tile").last.bounding_box()
    assert box is not None and last is not None and last["x"] + last["width"] <= 390
    page.screenshot(path=str(artifacts / "fixture-phone.png"))
    page.click("#lang")
    assert "Indicator" in page.locator(".center").inner_text()
    assert page.evaluate("localStorage.getItem('wm.lang')") == "en"
    page.click("#lang")
    assert console.errors == []
    context.close()


@pytest.mark.slow
def test_help_panel_only_with_data(browser: Any, static_server: str) -> None:
    """The help panel shows the server's hint (waits with unseen counts, shanten, each
    cut's tile acceptance, best first) when present."""
    hint = VIEWS["ready"]["hint"]
    context, page, console = open_frame(browser, static_server, "ready")
    panel = page.locator(".hint")
    assert panel.count() == 1
    for option in hint["discards"]:
        box = panel.locator(f".option[data-option='{option['tile']}']")
        for w in option["waits"]:
            assert box.locator(f".wait[data-wait='{w['tile']}'] b").inner_text() == str(w["unseen"])
    # a hand not yet ready: each cut with its tile acceptance (进张), the best marked
    page.select_option("#fixture-frame", "turn")
    options = VIEWS["turn"]["hint"]["discards"][:8]
    assert options and not any(o["waits"] for o in options)
    shown = page.locator(".hint .option")
    assert shown.count() == len(options)
    most = max(o["acceptance"] for o in options)
    for i, option in enumerate(options):
        box = shown.nth(i)
        assert box.get_attribute("data-option") == option["tile"]
        assert box.locator(".acceptance").get_attribute("data-acceptance") == str(option["acceptance"])
        assert str(option["acceptance"]) in box.locator(".acceptance").inner_text()
        assert ("best" in (box.get_attribute("class") or "").split()) == (option["acceptance"] == most)
    page.select_option("#fixture-frame", "claim")  # a frame without a hint
    assert page.locator(".hint").count() == ("hint" in VIEWS["claim"])
    assert console.errors == []
    context.close()


def test_a_tile_dragged_up_is_played(browser: Any, static_server: str) -> None:
    """Phone mahjong apps play a tile dragged up from the hand, one gesture instead of two
    taps: past half the tile's height it is played; a shorter drag, or one more sideways
    than up, plays nothing (and is no tap: the tile is not even selected)."""
    view = VIEWS["late"]
    context, page, console = open_frame(browser, static_server, "late",
                                        viewport={"width": 390, "height": 844}, has_touch=True)
    plain = [a["tile"] for a in view["legal_actions"] if a["type"] == "discard"
             and a["tile"] not in (view["laizi"], "5z", "6z")
             and sum(b.get("tile") == a["tile"] for b in view["legal_actions"]) == 1]
    assert plain, view["legal_actions"]
    tile = page.locator(f".hand .tile[data-tile='{plain[0]}']").first
    box = tile.bounding_box()
    assert box is not None
    x, y, height = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, box["height"]

    def drag(dx: float, dy: float) -> Any:
        wait_js(page, "document.getAnimations().length === 0")  # the last tile sprang back
        page.mouse.move(x, y)
        page.mouse.down()
        for step in range(1, 6):
            page.mouse.move(x + dx * step / 5, y + dy * step / 5)
        page.mouse.up()
        return page.evaluate("window.__lastAction === undefined ? null : window.__lastAction")

    assert drag(0, -0.3 * height) is None
    assert drag(1.2 * height, -0.6 * height) is None
    assert page.locator(".hand .tile.selected").count() == 0
    assert drag(0, -0.8 * height) == {"type": "discard", "tile": plain[0], "tiles": plain[0]}
    cdp = context.new_cdp_session(page)

    def swipe_up(step: float, end: str) -> None:
        """A finger drawn up from the tile in four moves of ``step`` heights, then ``end``
        (``touchEnd``: lifted; ``touchCancel``: taken back by the system)."""
        page.evaluate("() => { window.__lastAction = undefined; }")
        wait_js(page, "document.getAnimations().length === 0")
        for kind, dy in (("touchStart", 0), *(("touchMove", -step * k * height)
                                              for k in range(1, 5)), (end, None)):
            points = [] if dy is None else [{"x": x, "y": y + dy}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    # and with a finger (touch events: the page must not take the move for a scroll)
    swipe_up(0.2, "touchEnd")
    assert page.evaluate("window.__lastAction") == {"type": "discard", "tile": plain[0],
                                                    "tiles": plain[0]}
    # a touch the system takes back (a call, a gesture of the phone's own: pointercancel)
    # plays nothing, however far up it went, and the tile springs back
    swipe_up(0.3, "touchCancel")
    assert page.evaluate("window.__lastAction === undefined")
    assert page.locator(".hand .tile.dragging").count() == 0
    assert page.evaluate(f"""document.querySelector(".hand .tile[data-tile='{plain[0]}']")
                             .style.transform""") == ""
    assert console.errors == []
    context.close()
