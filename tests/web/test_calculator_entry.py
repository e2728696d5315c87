"""Entering a real table's hand on the calculator page (#/calculator), in the real browser
against the real server, on a phone: what a person settling it meets.

* A chi's "fed by" defaulted to the seat opposite, which never feeds a chi: every chi needed
  the select changed, or the record was refused.  Its default is now the seat before (上家).
* A rule option out of its range (``cap`` 20000) showed the server's English sentence on the
  Chinese page; a hand that has not opened was told "a chi, peng or 冲杠 first" when the
  options say a 冲杠 does not open.
* The melds' order decides the third feeder's contract (承包): the page says so where they are
  entered, and moves a meld up or down.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from .conftest import open_page, wait_js
from .test_calculator_hunt import encoded
from .test_calculator_page import PHONE, page_errors, palette, settle_page, tiles

DIRECT_ONLY: dict[str, Any] = {
    "profile": "yuanhang", "dealer": 2, "indicator": "1z", "winner": 1, "win_by": "self_draw",
    "winning_tile": "2p",
    "seats": [{"hand": "", "melds": []},
              {"hand": "234m567m345s2p",
               "melds": [{"type": "kong", "kind": "direct", "tiles": "8888p", "from": 2}]},
              {"hand": "", "melds": []}, {"hand": "", "melds": []}],
}


def with_options(**options: Any) -> dict[str, Any]:
    out = copy.deepcopy(DIRECT_ONLY)
    out["options"] = options
    return out


def fed_by(page: Any) -> int:
    return int(page.evaluate("document.querySelector('#calc-meld-from').selectedOptions[0].value"))


@pytest.mark.slow
def test_a_chi_is_fed_by_the_seat_before_unless_another_is_chosen(browser: Any, live_server: str) -> None:
    context, page, console = open_page(browser, f"{live_server}/#/calculator", **PHONE)
    page.wait_for_selector("#calc-profile option", state="attached")
    for seat in (1, 0):
        page.click(f".calc-tabs [data-calc-seat='{seat}']")
        page.select_option("#calc-meld-kind", "peng")
        assert fed_by(page) == (seat + 2) % 4  # a peng's default, as before
        page.select_option("#calc-meld-from", str((seat + 1) % 4))  # chosen for the peng ...
        page.select_option("#calc-meld-kind", "chi")
        assert fed_by(page) == (seat + 3) % 4  # ... a chi is fed by the seat before
        palette(page, "meld", tiles("234m"))
        page.click("[data-calc-do='add-meld']")
        melds = page.evaluate(f"window.__wmCalc.rec.seats[{seat}].melds")
        assert melds == [{"type": "chi", "tiles": "234m", "from": (seat + 3) % 4}]
    # a feeder chosen for the chi stays chosen (the server judges it)
    page.select_option("#calc-meld-from", "2")
    palette(page, "meld", tiles("567s"))
    page.click("[data-calc-do='add-meld']")
    assert page.evaluate("window.__wmCalc.rec.seats[0].melds[1].from") == 2
    assert page_errors(console) == []
    context.close()


@pytest.mark.slow
def test_an_option_out_of_range_is_said_in_the_players_language(browser: Any, live_server: str) -> None:
    context, page, console = open_page(
        browser, f"{live_server}/#/calculator?r={encoded(with_options(cap=20000))}", **PHONE)
    assert settle_page(page) == "error"
    wait_js(page, "document.querySelector('#calc-profile option')")
    wait_js(page, "document.querySelector('#calc-result').innerText.includes('封顶')")
    shown = page.inner_text("#calc-result")
    assert "规则选项“封顶（开口翻）”是 20000：只能是 0 到 10000" in shown, shown
    assert "option 'cap'" not in shown
    page.click("#lang")
    wait_js(page, "document.querySelector('#calc-result').innerText.includes('Cap')")
    shown = page.inner_text("#calc-result")
    assert "the rule option “Cap (开口翻)” is 20000: it can only be 0 to 10000" in shown, shown
    page.click("#lang")
    assert page_errors(console) == []
    context.close()


@pytest.mark.slow
def test_not_opened_says_what_opens_under_the_options(browser: Any, live_server: str) -> None:
    context, page, console = open_page(
        browser, f"{live_server}/#/calculator?r={encoded(with_options(direct_kong_opens=False))}",
        **PHONE)
    assert settle_page(page) == "refused"
    shown = page.inner_text("#calc-result")
    assert "还没开口：要先吃或碰才能胡（这些规则下冲杠不算开口）" in shown, shown
    assert "冲杠才能胡" not in shown
    assert page_errors(console) == []
    context.close()


@pytest.mark.slow
def test_the_melds_order_is_said_and_a_meld_moves(browser: Any, live_server: str) -> None:
    rec = copy.deepcopy(DIRECT_ONLY)
    rec["seats"][1]["hand"] = "567m345s2p"
    rec["seats"][1]["melds"].append({"type": "chi", "tiles": "234m", "from": 0})
    context, page, console = open_page(browser, f"{live_server}/#/calculator?r={encoded(rec)}", **PHONE)
    assert settle_page(page) == "settled"
    assert "谁喂的第三口可能要承包" in page.inner_text(".calc-draft")
    assert page.is_disabled(".calc-meld[data-meld-index='0'] [data-calc-move-meld][data-by='-1']")
    page.click(".calc-meld[data-meld-index='0'] [data-calc-move-meld][data-by='1']")
    melds = page.evaluate("window.__wmCalc.rec.seats[1].melds")
    assert [m["type"] for m in melds] == ["chi", "kong"]
    assert page.is_disabled(".calc-meld[data-meld-index='1'] [data-calc-move-meld][data-by='1']")
    assert settle_page(page) == "settled"
    assert "#/calculator?r=" in page.url and page.evaluate(
        "JSON.stringify(window.__wmCalc.recordJSON().seats[1].melds.map((m) => m.type))") == '["chi","kong"]'
    page.click(".calc-meld[data-meld-index='1'] [data-calc-move-meld][data-by='-1']")
    assert [m["type"] for m in page.evaluate("window.__wmCalc.rec.seats[1].melds")] == ["kong", "chi"]
    page.click("#lang")
    wait_js(page, "document.querySelector('.calc-draft').innerText.includes('contract')")
    assert "whoever fed the third may owe the contract" in page.inner_text(".calc-draft")
    page.click("#lang")
    assert page_errors(console) == []
    context.close()
