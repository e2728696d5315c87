"""The settlement calculator page (#/calculator), driven in the real browser against the real
server, like a person at a real table: every record is entered with the tile palette, the
selects and the number fields, on a phone-sized screen (390 x 844).

Each hand's figures on the page must be the library's (the same functions as
``wuhan-mahjong score`` and ``hand``): a big hand with contracting (清一色碰碰胡全求人, the
third feeder pays for all), a 金顶 (golden cap) and a refused win (the minimum score not
reached) with the rule that stops it; the waits before the win with what each would pay;
and the page's shareable address re-opens the same settlement in a fresh browser.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, cast

import pytest

from wuhan_mahjong.calculator import hand_query, score_record

from .conftest import Console, open_page, wait_held, wait_js

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

# docs/RULES.md §21 example 4: seat 1 wins four pungs of characters on 3m from seat 0; seat 3
# fed the third meld of the one-suit hand and contracts (承包) for everyone.
BIG_CONTRACT: dict[str, Any] = {
    "profile": "yuanhang", "options": {"opening_scoring": "once"},
    "dealer": 2, "indicator": "9p", "winner": 1, "win_by": "discard", "from": 0, "winning_tile": "3m",
    "seats": [
        {"hand": "", "melds": [{"type": "peng", "tiles": "111z", "from": 2}], "ready": True},
        {"hand": "3m", "melds": [{"type": "peng", "tiles": "111m", "from": 0},
                                 {"type": "peng", "tiles": "444m", "from": 2},
                                 {"type": "peng", "tiles": "777m", "from": 3},
                                 {"type": "peng", "tiles": "999m", "from": 0}]},
        {"hand": "", "melds": [{"type": "kong", "kind": "direct", "tiles": "5555p", "from": 0}]},
        {"hand": "", "melds": []},
    ],
}

# example 6: a self-drawn small hand with two concealed kongs reaches the golden cap (金顶).
GOLDEN: dict[str, Any] = {
    "profile": "yuanhang",
    "dealer": 2, "indicator": "1z", "winner": 1, "win_by": "self_draw", "winning_tile": "5s",
    "seats": [
        {"hand": "", "melds": [{"type": "kong", "kind": "direct", "tiles": "3333z", "from": 2}]},
        {"hand": "678m5s", "melds": [{"type": "chi", "tiles": "234s", "from": 0},
                                     {"type": "kong", "kind": "concealed", "tiles": "6666p"},
                                     {"type": "kong", "kind": "concealed", "tiles": "9999m"}]},
        {"hand": "", "melds": [], "kongs": {"red": 1, "green": 0, "laizi": 0, "pi": 0}},
        {"hand": "", "melds": [{"type": "peng", "tiles": "333p", "from": 0},
                               {"type": "kong", "kind": "concealed", "tiles": "1111s"}]},
    ],
}

# docs/score.md's record under 边锋: every loser must owe 8, seat 3 owes 4: refused.
REFUSED: dict[str, Any] = {
    "profile": "bianfeng",
    "dealer": 0, "indicator": "9p", "winner": 1, "win_by": "discard", "from": 2, "winning_tile": "5m",
    "seats": [
        {"hand": "", "melds": []},
        {"hand": "456p678s5m", "melds": [{"type": "chi", "tiles": "234m", "from": 0},
                                         {"type": "peng", "tiles": "777s", "from": 3}]},
        {"hand": "", "melds": [{"type": "kong", "kind": "direct", "tiles": "8888p", "from": 0}],
         "kongs": {"red": 1, "green": 0, "laizi": 0, "pi": 0}, "laizi_discards": 1},
        {"hand": "", "melds": [], "ready": False},
    ],
}

MELD_KIND = {("chi", None): "chi", ("peng", None): "peng", ("kong", "direct"): "kong:direct",
             ("kong", "added"): "kong:added", ("kong", "concealed"): "kong:concealed"}


def page_errors(console: Console) -> list[str]:
    """Console errors but the browser's own line for each calculator answer that is not 200:
    while a hand is entered it is incomplete (400), and a refused win is 422; the page shows
    the server's message for each (asserted by the tests)."""
    expected = ("/api/hand: Failed to load resource: the server responded with a status of 400",
                "/api/score: Failed to load resource: the server responded with a status of 400",
                "/api/score: Failed to load resource: the server responded with a status of 422")
    return [e for e in console.errors if not any(x in e for x in expected)]


def tiles(text: str) -> list[str]:
    out: list[str] = []
    digits = ""
    for ch in text:
        if ch.isdigit():
            digits += ch
        else:
            out += [f"{d}{ch}" for d in digits]
            digits = ""
    return out


def palette(page: Any, target: str, tile_list: list[str]) -> None:
    page.click(f".calculator [data-calc-target='{target}']")
    for x in tile_list:
        page.click(f".calc-palette [data-calc-tile='{x}']")


def settle_page(page: Any) -> str:
    """Wait until the server answered the latest change (no change waiting for the debounce,
    every request sent answered, however many changes one request covered); the result's state."""
    wait_js(page, "window.__wmCalc.timer === null && window.__wmCalc.seq > 0"
                  " && window.__wmCalc.answered >= window.__wmCalc.seq"
                  " && document.querySelector('#calc-result:not([data-state=pending])')")
    state: str = page.get_attribute("#calc-result", "data-state")
    return state


def set_option(page: Any, name: str, value: Any) -> None:
    """Set a rule option in the page's options panel (opened if it is closed)."""
    if not page.evaluate("document.querySelector('.calc-options').open"):
        page.click(".calc-options summary")
    field = f"[data-calc-option='{name}']"
    if page.get_attribute(field, "type") == "checkbox":
        page.set_checked(field, bool(value))
    else:
        page.select_option(field, str(value))


def enter(page: Any, rec: dict[str, Any], *, fresh: bool = False) -> None:
    """Type a settlement record into the page with its controls, as a player would
    (``fresh``: from a new calculator, its 重新开始 pressed first)."""
    if fresh:
        page.click("[data-calc-do='new']")
    page.wait_for_selector("#calc-profile option", state="attached")
    page.select_option("#calc-profile", rec["profile"])
    for name, value in rec.get("options", {}).items():
        set_option(page, name, value)
    page.select_option("#calc-dealer", str(rec["dealer"]))
    page.select_option("#calc-winner", str(rec["winner"]))
    page.select_option("#calc-winby", rec["win_by"])
    if "from" in rec:
        page.select_option("#calc-from", str(rec["from"]))
    palette(page, "indicator", [rec["indicator"]])
    for s, seat in enumerate(rec["seats"]):
        page.click(f".calc-tabs [data-calc-seat='{s}']")
        if seat.get("hand"):
            palette(page, "hand", tiles(seat["hand"]))
        for m in seat.get("melds", []):
            page.select_option("#calc-meld-kind", MELD_KIND[(m["type"], m.get("kind"))])
            if "from" in m:
                page.select_option("#calc-meld-from", str(m["from"]))
            palette(page, "meld", tiles(m["tiles"]))
            page.click("[data-calc-do='add-meld']")
        for k, n in seat.get("kongs", {}).items():
            if n:
                page.fill(f"#calc-k-{k}", str(n))
                page.press(f"#calc-k-{k}", "Tab")
        if seat.get("laizi_discards"):
            page.fill("#calc-ld", str(seat["laizi_discards"]))
            page.press("#calc-ld", "Tab")
        if "ready" in seat:
            page.select_option("#calc-ready", "1" if seat["ready"] else "0")
    page.click(f".calc-tabs [data-calc-seat='{rec['winner']}']")
    palette(page, "win", [rec["winning_tile"]])


def normal(rec: dict[str, Any]) -> dict[str, Any]:
    """A record as the page writes it (empty fields left out, tiles grouped)."""
    out = copy.deepcopy(rec)
    for seat in out["seats"]:
        grouped = ""
        for suit in "mpsz":
            digits = "".join(sorted(x[0] for x in tiles(seat["hand"]) if x[1] == suit))
            grouped += f"{digits}{suit}" if digits else ""
        seat["hand"] = grouped
        if not any(seat.get("kongs", {}).values()):
            seat.pop("kongs", None)
    return out


SHOWN = """() => {
  const q = (s, root = document) => [...root.querySelectorAll(s)];
  const rows = q('#calc-result tr.payment');
  const limit = (tr) => {
    const l = tr.querySelector('.limit');
    return l ? l.className.split('limit-')[1] : 'none';
  };
  return {
    deltas: q('#calc-result table.deltas td.delta').map((td) => Number(td.textContent.replace('+', ''))),
    amounts: rows.map((tr) => [Number(tr.dataset.loser), Number(tr.querySelector('td.amt b').textContent)]),
    limits: rows.map(limit),
    factors: rows.map((tr) => q('.factor', tr).map((a) => a.dataset.id)),
    contract: (document.querySelector('#calc-result .contract') || {}).textContent || '',
    golden: !!document.querySelector('#calc-result .golden'),
    text: (document.querySelector('#calc-result') || {}).innerText || '',
  };
}"""
"""What the settlement panel on the page says."""


def shown(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(SHOWN)
    return result


def expect_settled(page: Any, rec: dict[str, Any]) -> dict[str, Any]:
    answer = score_record(json.dumps(rec))
    assert answer.settled, answer.body
    body: dict[str, Any] = answer.body
    seen = shown(page)
    assert seen["deltas"] == body["deltas"]
    assert seen["amounts"] == [[p["loser"], p["amount"]] for p in body["payments"]]
    assert seen["limits"] == [p["limit"] for p in body["payments"]]
    # every factor of every payment is named, as the server listed it
    assert seen["factors"] == [[f["id"] for f in p["factors"]] for p in body["payments"]]
    assert seen["golden"] == body["golden_cap"]
    assert bool(seen["contract"]) == (body["contractor"] is not None)
    return seen


def entered(browser: Any, base: str, rec: dict[str, Any], state: str) -> tuple[Any, Any, Console]:
    """A phone's page of the calculator with ``rec`` entered: the page's record is ``rec``
    and the server's answer (``state``) is on screen."""
    context, page, console = open_page(browser, f"{base}/#/calculator", **PHONE)
    enter(page, rec)
    assert settle_page(page) == state, page.inner_text("#calc-result")
    assert page.evaluate("window.__wmCalc.recordJSON()") == normal(rec)
    return context, page, console


def assert_headers_one_line(page: Any) -> None:
    """The payments' table headers are one line each (付款人 once stood one character a line
    beside long factor lists on a phone)."""
    heads = page.evaluate("""() => [...document.querySelectorAll('.calc-result .settlement th')]
        .map((th) => [th.textContent, th.getBoundingClientRect().height,
                      parseFloat(getComputedStyle(th).lineHeight) || 20])""")
    assert heads and all(h <= 1.6 * line + 8 for _, h, line in heads), heads


@pytest.mark.slow
def test_big_hand_with_contracting_and_its_waits(browser: Any, live_server: str, artifacts: Path) -> None:
    context, page, console = entered(browser, live_server, BIG_CONTRACT, "settled")
    seen = expect_settled(page, BIG_CONTRACT)
    assert "北家" in seen["contract"]  # seat 3 fed the third meld and contracts
    assert "清一色" in seen["text"] and "碰碰胡" in seen["text"]
    # the laizi is the server's: 9p → 1p
    assert page.get_attribute("[data-calc-laizi]", "data-calc-laizi") == "1p"
    # before the win: the winner's waits with what each pays, as `wuhan-mahjong hand` says
    hand = hand_query({"hand": "3m", "indicator": "9p", "dealer": False, "profile": "yuanhang",
                       "options": {"opening_scoring": "once"},
                       "melds": ["peng:111m", "peng:444m", "peng:777m", "peng:999m"]})
    waits = page.evaluate("""() => [...document.querySelectorAll('#calc-waits tr[data-wait]')].map(
        (tr) => [tr.dataset.wait, ...[...tr.querySelectorAll('td')].slice(3).map((td) => td.textContent)])""")
    expected = [[w["tile"], *(str(w["values"].get(k, "—")) for k in ("self_draw", "discard"))]
                for w in cast(list[dict[str, Any]], hand["waits"])]
    assert waits == expected and len(waits) == 2
    page.screenshot(path=str(artifacts / "calculator-contract.png"), full_page=True)
    # nothing overflows the phone's width, and the payments' headers stay one line each
    # (付款人 once stood one character a line)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert_headers_one_line(page)
    assert page_errors(console) == []
    context.close()


@pytest.mark.slow
def test_golden_cap_and_the_share_link_reopens_it(browser: Any, live_server: str, artifacts: Path) -> None:
    context, page, console = entered(browser, live_server, GOLDEN, "settled")
    seen = expect_settled(page, GOLDEN)
    assert seen["golden"] and "golden" in seen["limits"]
    assert_headers_one_line(page)
    page.screenshot(path=str(artifacts / "calculator-golden.png"), full_page=True)
    link = page.input_value("#calc-link")
    assert link == page.url and "#/calculator?r=" in link
    # a friend opens the link: the same record, the same settlement, in English too
    other, friend, console2 = open_page(browser, link, **PHONE)
    assert settle_page(friend) == "settled"
    assert friend.evaluate("window.__wmCalc.recordJSON()") == normal(GOLDEN)
    assert shown(friend) == seen
    friend.click("#lang")
    friend.wait_for_selector("#calc-result .golden")
    assert "Golden cap" in friend.inner_text("#calc-result")
    assert page_errors(console) == [] and page_errors(console2) == []
    other.close()
    context.close()


@pytest.mark.slow
def test_refused_win_names_the_rule(browser: Any, live_server: str) -> None:
    context, page, console = entered(browser, live_server, REFUSED, "refused")
    answer = score_record(json.dumps(REFUSED))
    assert not answer.settled
    # why, in the player's language (it was the core's English sentence in the Chinese page)
    assert answer.body["refusal"] == {"code": "minimum_every_loser",
                                      "params": {"minimum": 8, "lowest": 4}}
    shown = page.inner_text("#calc-result .calc-refused")
    assert "不够起胡分：每家都要输到 8 分（现在最少 4 分）" in shown, shown
    # and so are the waits' refusals (the 5m would owe at most 16 self-drawn)
    waits = page.inner_text("#calc-waits tr[data-wait='5m']")
    assert "不够起胡分：要有一家输到 20 分（现在最多 16 分）" in waits, waits
    assert "minimum score" not in page.inner_text("#calc-waits")
    page.click("#lang")
    page.wait_for_selector("#calc-result .calc-refused")
    assert str(answer.body["reason"]) in page.inner_text("#calc-result .calc-refused")
    page.click("#lang")
    # the same hand under 远航 wins: one change of profile, and the server settles it
    page.select_option("#calc-profile", "yuanhang")
    assert settle_page(page) == "settled"
    expect_settled(page, {**REFUSED, "profile": "yuanhang"})
    # a fifth copy of a tile is malformed, and the page says why (the server's 400)
    page.click(".calc-tabs [data-calc-seat='3']")
    page.select_option("#calc-meld-kind", "kong:concealed")
    palette(page, "meld", ["9p", "9p", "9p", "9p"])
    page.click("[data-calc-do='add-meld']")
    assert settle_page(page) == "error"
    # why, in the player's language (it was the core's English sentence): the 400's
    # params.problem, translated
    shown = page.inner_text("#calc-result")
    assert "这副牌不成立：九筒超过四张（共 5 张，翻出的癞子皮也算一张，它不再上场）" in shown, shown
    # a meld the rules never allow: the laizi (一筒 under indicator 9p) in a peng
    page.click("[data-calc-remove-meld='0']")
    page.select_option("#calc-meld-kind", "peng")
    page.select_option("#calc-meld-from", "2")
    palette(page, "meld", ["1p", "1p", "1p"])
    page.click("[data-calc-do='add-meld']")
    assert settle_page(page) == "error"
    shown = page.inner_text("#calc-result")
    assert "这副牌不成立：北家的第 1 副副露：癞子一筒不能用来吃、碰、杠" in shown, shown
    page.click("#lang")
    wait_js(page, "document.querySelector('#calc-result').innerText.includes('laizi')")
    shown = page.inner_text("#calc-result")
    assert "North's meld 1: the laizi 1 dots never takes part in a meld" in shown, shown
    page.click("#lang")
    # an address that does not hold a record opens an empty calculator, never a broken page
    for junk in ("%%%", "bm90IGpzb24", "eyJzZWF0cyI6IDN9"):  # not base64, not JSON, no four seats
        page.goto(f"{live_server}/#/calculator?r={junk}")
        page.wait_for_selector("#calc-result[data-state=incomplete]")
        assert page.evaluate("window.__wmCalc.recordJSON().seats.length") == 4
    assert page_errors(console) == []
    context.close()


@pytest.mark.slow
def test_a_tap_held_while_the_answer_arrives_still_counts(browser: Any, live_server: str) -> None:
    """A palette tile pressed while the server's answer to the previous tile comes in is still
    entered: the answer redraws what it changed, not the palette under the finger (a full
    redraw between the press and the release swallowed the tap; two browser tests lost a
    tile that way on a busy machine)."""
    context, page, console = open_page(browser, f"{live_server}/#/calculator", **PHONE)
    page.wait_for_selector("#calc-profile option", state="attached")
    palette(page, "indicator", ["9p"])
    held: list[Any] = []

    def hold(route: Any) -> None:
        held.append(route)

    page.route("**/api/hand", hold)  # the answer to the next tile waits for us
    palette(page, "hand", ["1m"])
    wait_held(page, held, "the page never asked the server about its hand")
    page.hover(".calc-palette [data-calc-tile='2m']")
    page.mouse.down()
    held[0].continue_()
    wait_js(page, "window.__wmCalc.timer === null && window.__wmCalc.answered >= window.__wmCalc.seq"
                  " && window.__wmCalc.waits !== null")
    page.mouse.up()
    assert page.evaluate("window.__wmCalc.rec.seats[0].hand") == ["1m", "2m"]
    page.unroute("**/api/hand", hold)
    assert page_errors(console) == []
    context.close()


@pytest.mark.slow
def test_fourteen_tiles_are_a_win_only_in_a_winning_shape(browser: Any, live_server: str) -> None:
    """A closed 14-tile winning shape says why it may not win yet (no opening); 14 tiles
    that are no winning shape show their shanten (the page used to call every 14-tile hand
    "already a win" and print the refusal as the points it pays)."""
    context, page, console = open_page(browser, f"{live_server}/#/calculator", **PHONE)
    page.wait_for_selector("#calc-profile option", state="attached")
    palette(page, "indicator", ["9p"])
    # a hand being entered: how many tiles it has and needs, quietly, not as an error
    palette(page, "hand", tiles("123m"))
    settle_page(page)  # the answer to the third tile, not an earlier one
    wait_js(page, "document.querySelector('#calc-waits .calc-building')")
    assert page.inner_text("#calc-waits .calc-building").startswith("手牌 3 张、副露 0 副")
    assert page.query_selector("#calc-waits .error") is None
    page.click("[data-calc-do='clear-hand']")
    palette(page, "hand", tiles("123m456m789m22m555s"))
    settle_page(page)
    wait_js(page, "document.querySelector('#calc-waits .calc-complete')")
    text = page.inner_text("#calc-waits")
    assert "牌型已成" in text and "开口" in text and "已经胡了" not in text
    assert page.get_attribute("#calc-waits", "data-shanten") == "-1"
    page.click("[data-calc-do='clear-hand']")
    palette(page, "hand", tiles("123m456m789m11z22z3z"))
    settle_page(page)
    wait_js(page, "document.querySelector('#calc-waits[data-shanten=\"2\"]')")
    assert page.query_selector("#calc-waits .calc-complete") is None
    assert "已经胡了" not in page.inner_text("#calc-waits")
    assert page_errors(console) == []
    context.close()


def test_rules_that_cannot_be_fetched_are_said_in_words(browser: Any, live_server: str) -> None:
    """The rule table (GET /api/rules) unreachable: the page says so in the player's
    language; it showed the browser's own sentence (出错了：Failed to fetch)."""
    context = browser.new_context()
    page = context.new_page()
    console = Console(page)
    page.route("**/api/rules", lambda route: route.abort())
    page.goto(f"{live_server}/#/calculator")
    page.wait_for_selector("[data-rules-error]")
    said = page.locator("[data-rules-error]").inner_text()
    assert "连不上服务器" in said and "Failed to fetch" not in said, said
    assert [e for e in console.errors if "api/rules" not in e] == []  # the aborted fetch only
    context.close()
