"""The calculator page (#/calculator) as a person at a real table uses it, in the real browser
against the real server.

Every hand of ``tests/test_calculator_hunt.py`` (worked on paper, in the three profiles) is
entered with the page's own controls, on a phone; the page's record must be the hand's, and
what the page shows must be the paper's answer and exactly ``POST /api/score``'s: the deltas,
each payment's amount and what it was before a cap, and the refusal of a hand that is no legal
win.  The page's explanation must add up: each payment's factors multiply to its raw amount,
the winner's points are the sum of the payments and each payer's are what he pays.

And the page's own faults: an address whose options hold a value of the wrong kind froze the
page (it never drew the server's answer).
"""

from __future__ import annotations

import base64
import copy
import importlib.util
import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from .conftest import Console, open_page, wait_js
from .test_calculator_page import PHONE, enter, page_errors, palette, settle_page, tiles

ROOT = Path(__file__).resolve().parents[2]


def _hunt_module() -> Any:
    spec = importlib.util.spec_from_file_location("calculator_hunt_hands",
                                                  ROOT / "tests" / "test_calculator_hunt.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HUNT = _hunt_module()
TABLE_HANDS: list[tuple[str, dict[str, Any], list[int] | str]] = HUNT.TABLE_HANDS


def api_score(base: str, record: dict[str, Any]) -> tuple[int, Any]:
    req = urllib.request.Request(f"{base}/api/score", method="POST",
                                 data=json.dumps(record, ensure_ascii=False).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def normal(rec: dict[str, Any]) -> dict[str, Any]:
    """``rec`` as the page writes it: tiles grouped and sorted, empty fields left out."""
    out = copy.deepcopy(rec)
    for seat in out["seats"]:
        grouped = ""
        for suit in "mpsz":
            digits = "".join(sorted(x[0] for x in tiles(seat.get("hand", "")) if x[1] == suit))
            grouped += f"{digits}{suit}" if digits else ""
        seat["hand"] = grouped
        seat.setdefault("melds", [])
        if "kongs" in seat:
            seat["kongs"] = {k: seat["kongs"].get(k, 0) for k in ("red", "green", "laizi", "pi")}
    return out


FACTOR = re.compile(r"^×(\d+(?:\.\d+)?) .*?(?: ×(\d+))?$")

SHOWN = """() => {
  const q = (s, root = document) => [...root.querySelectorAll(s)];
  return {
    deltas: q('#calc-result table.deltas td.delta').map((td) => Number(td.textContent.replace('+', ''))),
    rows: q('#calc-result tr.payment').map((tr) => ({
      loser: Number(tr.dataset.loser),
      payer: tr.querySelector('.pays-for') ? tr.querySelector('.pays-for').textContent : '',
      factors: q('.factor', tr).map((a) => a.textContent),
      raw: tr.querySelector('s.raw') ? Number(tr.querySelector('s.raw').textContent) : null,
      amount: Number(tr.querySelector('td.amt b').textContent),
    })),
    refused: (document.querySelector('#calc-result .calc-refused') || {}).textContent || '',
  };
}"""


def product(labels: list[str]) -> Fraction:
    """The product of the factors as the page labels them (×2 口口翻 ×2 is 2 twice)."""
    out = Fraction(1)
    for label in labels:
        m = FACTOR.match(label)
        assert m, label
        out *= Fraction(m.group(1)) ** int(m.group(2) or 1)
    return out


@pytest.fixture(scope="module")
def calc_page(browser: Any, live_server: str) -> Iterator[tuple[Any, Console]]:
    context, page, console = open_page(browser, f"{live_server}/#/calculator", **PHONE)
    page.wait_for_selector("#calc-profile option", state="attached")
    yield page, console
    context.close()


def _controls(record: dict[str, Any]) -> set[tuple[Any, ...]]:
    """What entering ``record`` with the page's controls touches (``enter``): the profile, each
    option, the seats, how the hand was won, each kind of meld and where it came from, each
    kind of kong counted, the laizi discards, the ready choice."""
    used: set[tuple[Any, ...]] = {("profile", record["profile"]), ("win_by", record["win_by"]),
                                  ("from" in record,)}
    used |= {("option", name, type(value).__name__) for name, value in record.get("options", {}).items()}
    for seat in record["seats"]:
        used |= {("meld", m["type"], m.get("kind"), "from" in m) for m in seat.get("melds", [])}
        used |= {("kong", k) for k, n in seat.get("kongs", {}).items() if n}
        used |= {("laizi_discards",)} if seat.get("laizi_discards") else set()
        used |= {("ready", seat["ready"])} if "ready" in seat else set()
    return used


def _covering(hands: list[tuple[str, dict[str, Any], list[int] | str]]) -> set[str]:
    """The names of a few hands that, entered with the controls, touch every control any hand
    touches (greedily: the hand that adds most first), a refused one among them."""
    wanted = set().union(*(_controls(r) for _, r, _ in hands))
    chosen = {next(n for n, _, a in hands if isinstance(a, str))}
    have = set().union(*(_controls(r) for n, r, _ in hands if n in chosen))
    while have != wanted:
        name, record, _ = max(hands, key=lambda h: len(_controls(h[1]) - have))
        chosen.add(name)
        have |= _controls(record)
    return chosen


ENTERED = _covering(TABLE_HANDS)
"""The hands entered tap by tap; the others are opened from their share link (the page's record
is the same, and so must be everything it shows), which takes a tenth of the time."""


def _check_shown(page: Any, console: Console, live_server: str, record: dict[str, Any],
                 expected: list[int] | str) -> None:
    """The page holds ``record`` and shows the paper's answer, which is the API's, and an
    explanation that adds up."""
    state = settle_page(page)
    mine = page.evaluate("window.__wmCalc.recordJSON()")
    assert mine == normal(record)
    status, body = api_score(live_server, mine)
    seen = page.evaluate(SHOWN)
    if isinstance(expected, str):
        assert (state, status, body["refusal"]["code"]) == ("refused", 422, expected), seen
        assert seen["refused"] and not seen["deltas"]
        assert page_errors(console) == []
        return
    assert (state, status) == ("settled", 200), page.inner_text("#calc-result")
    # the paper's answer, the API's, the page's
    assert body["deltas"] == expected
    assert seen["deltas"] == expected
    pays = body["payments"]
    assert [(r["loser"], r["amount"], r["raw"]) for r in seen["rows"]] == \
        [(p["loser"], p["amount"], p["raw"] if p["raw"] != p["amount"] else None) for p in pays]
    # the explanation adds up: the factors shown make the raw amount; the payments the deltas
    paid = [0, 0, 0, 0]
    for row, p in zip(seen["rows"], pays, strict=True):
        assert product(row["factors"]) == (row["raw"] if row["raw"] is not None else row["amount"])
        assert bool(row["payer"]) == (p["payer"] != p["loser"])
        paid[p["payer"]] += row["amount"]
    w = body["winner"]
    assert seen["deltas"][w] == sum(paid)
    assert all(seen["deltas"][s] == -paid[s] for s in range(4) if s != w)
    # the laizi shown is the server's
    assert page.get_attribute("[data-calc-laizi]", "data-calc-laizi") == body["laizi"]
    assert page_errors(console) == []


def test_the_hands_entered_touch_every_control_the_hands_use() -> None:
    used = set().union(*(_controls(r) for _, r, _ in TABLE_HANDS))
    entered = set().union(*(_controls(r) for n, r, _ in TABLE_HANDS if n in ENTERED))
    assert entered == used and len(ENTERED) < len(TABLE_HANDS)
    assert any(isinstance(a, str) for n, _, a in TABLE_HANDS if n in ENTERED)


@pytest.mark.slow
@pytest.mark.parametrize(("record", "expected"),
                         [pytest.param(r, a, id=n) for n, r, a in TABLE_HANDS if n in ENTERED])
def test_a_table_hand_entered_on_the_page(calc_page: tuple[Any, Console], live_server: str,
                                          record: dict[str, Any], expected: list[int] | str) -> None:
    page, console = calc_page
    enter(page, record, fresh=True)
    _check_shown(page, console, live_server, record, expected)


@pytest.mark.slow
@pytest.mark.parametrize(("record", "expected"),
                         [pytest.param(r, a, id=n) for n, r, a in TABLE_HANDS if n not in ENTERED])
def test_a_table_hand_opened_from_its_link(calc_page: tuple[Any, Console], live_server: str,
                                           record: dict[str, Any], expected: list[int] | str) -> None:
    page, console = calc_page
    page.goto(f"{live_server}/#/calculator?r={encoded(record)}")
    page.reload()
    page.wait_for_selector("#calc-profile option", state="attached")
    _check_shown(page, console, live_server, record, expected)


def encoded(record: dict[str, Any]) -> str:
    raw = json.dumps(record, ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.slow
@pytest.mark.parametrize("options", [{"must_kong": 5}, {"one_suit_contract_hands": 5},
                                     {"one_suit_contract_hands": None}])
def test_an_address_with_an_option_of_the_wrong_kind_shows_the_servers_reason(
        browser: Any, live_server: str, options: dict[str, Any]) -> None:
    """A shared address is typed or cut by people: one whose list option held a number, a
    string or null threw while the page drew its options (``cur.join is not a function``), and
    the page stayed at "loading" with an empty profile list, whatever was tapped.  It must
    draw, and say what is wrong (the server's 400)."""
    rec = copy.deepcopy(HUNT.QING_SELF)
    rec["options"] = options
    context, page, console = open_page(browser, f"{live_server}/#/calculator?r={encoded(rec)}",
                                       **PHONE)
    assert settle_page(page) == "error"
    name = next(iter(options))
    assert f"option '{name}'" in page.inner_text("#calc-result")
    assert page.evaluate("document.querySelectorAll('#calc-profile option').length") == 3
    # and the player can put it right: the profile's own value back, and the hand settles
    page.click(".calc-options summary")
    page.click("[data-calc-do='reset-options']")
    assert settle_page(page) == "settled"
    wait_js(page, "document.querySelectorAll('#calc-result td.delta').length === 4")
    assert page.evaluate(SHOWN)["deltas"] == [360, -120, -120, -120]
    assert [e for e in page_errors(console) if "pageerror" in e] == []
    context.close()


@pytest.mark.slow
def test_the_fed_by_select_shows_the_feeder_the_meld_gets(browser: Any, live_server: str) -> None:
    """Choosing the winner moves the page to his seat without a tab, and kept the new meld's
    feeder: when that was the winner's own seat, the "fed by" select (which cannot list him)
    showed its first seat while the meld was recorded as fed by another (the select said 东家,
    the peng came from 南家), a silent change of who fed it (the one-suit contract's third
    feeder).  So after "start again"."""
    context, page, console = open_page(browser, f"{live_server}/#/calculator", **PHONE)
    page.wait_for_selector("#calc-profile option", state="attached")

    def add_peng(tiles_text: str) -> tuple[str, int]:
        shown = page.evaluate("document.querySelector('#calc-meld-from').selectedOptions[0].value")
        palette(page, "meld", tiles(tiles_text))
        page.click("[data-calc-do='add-meld']")
        seat = page.evaluate("window.__wmCalc.seat")
        melds = page.evaluate(f"window.__wmCalc.rec.seats[{seat}].melds")
        return shown, melds[-1]["from"]

    page.select_option("#calc-winner", "2")  # the draft's feeder was seat 2 (across from seat 0)
    assert page.evaluate("window.__wmCalc.seat") == 2
    shown, recorded = add_peng("555p")
    assert int(shown) == recorded
    page.click(".calc-tabs [data-calc-seat='0']")  # feeder: seat 2
    page.click("[data-calc-do='new']")  # back to seat 0 ...
    page.click(".calc-tabs [data-calc-seat='2']")
    page.select_option("#calc-meld-from", "0")
    page.click("[data-calc-do='new']")  # ... with the feeder seat 0 kept
    assert page.evaluate("[window.__wmCalc.seat, window.__wmCalc.draft.from]") == [0, 0]
    shown, recorded = add_peng("777s")
    assert int(shown) == recorded
    assert page_errors(console) == []
    context.close()


@pytest.mark.slow
def test_the_laizi_shown_is_never_the_presets_when_an_option_moves_it(
        browser: Any, live_server: str) -> None:
    """With 发 made a must-kong tile in yuanhang (option must_kong), 北 turned up makes 白 the
    laizi (the cycle skips the must-kong tiles, decision 1).  Until the server answered for the
    record, the page named the profile's preset laizi, 发, and marked the palette's 发 as the
    laizi while the hand was entered."""
    context, page, console = open_page(browser, f"{live_server}/#/calculator", **PHONE)
    page.wait_for_selector("#calc-profile option", state="attached")
    page.click(".calc-options summary")
    page.fill("[data-calc-option='must_kong']", "7z 6z")
    page.press("[data-calc-option='must_kong']", "Tab")
    wait_js(page, "window.__wmCalc.rec.options.must_kong")
    palette(page, "indicator", ["4z"])
    palette(page, "hand", tiles("123m"))
    settle_page(page)
    marked = ("[...document.querySelectorAll('.calc-palette .tile.laizi')]"
              ".map((e) => e.closest('[data-calc-tile]').dataset.calcTile)")
    assert page.get_attribute("[data-calc-laizi]", "data-calc-laizi") in ("", "5z")
    assert "6z" not in page.evaluate(marked)
    palette(page, "hand", tiles("456m789m11p22p5z"))  # 13 tiles: the server's waits name it
    settle_page(page)
    wait_js(page, "document.querySelector('[data-calc-laizi]').dataset.calcLaizi === '5z'")
    assert page.evaluate(marked) == ["5z"]
    assert page_errors(console) == []
    context.close()


@pytest.mark.slow
def test_the_ready_choice_says_what_the_server_does_with_it(browser: Any, live_server: str) -> None:
    """A loser's "ready?" left at "don't know" said "(not ready)", but the server works his
    readiness out from his tiles when they are entered (docs/score.md).  In bianfeng a 全求人
    dealt in by a player who was not ready is his to pay for everyone: here seat 2's tiles are
    ready (123456789m 2s), so each loser pays his own, while the page said it counted him as
    not ready."""
    qqr = {"profile": "bianfeng", "dealer": 0, "indicator": "1z", "winner": 1, "win_by": "discard",
           "from": 2, "winning_tile": "5p", "seats": [
               {"hand": "", "melds": []},
               {"hand": "5p", "melds": [HUNT.chi("123m", 0), HUNT.peng("444s", 2),
                                        HUNT.peng("777p", 3), HUNT.chi("678m", 0)]},
               {"hand": "123456789m2s", "melds": [HUNT.peng("666s", 3)]},
               {"hand": "", "melds": []}]}
    context, page, console = open_page(browser, f"{live_server}/#/calculator", **PHONE)
    page.wait_for_selector("#calc-profile option", state="attached")
    enter(page, qqr, fresh=True)
    assert settle_page(page) == "settled"
    status, body = api_score(live_server, page.evaluate("window.__wmCalc.recordJSON()"))
    assert status == 200 and body["contractor"] is None and body["deltas"] == [-40, 200, -120, -40]
    assert page.evaluate(SHOWN)["deltas"] == body["deltas"]
    page.click(".calc-tabs [data-calc-seat='2']")
    said = "document.querySelector('#calc-ready').selectedOptions[0].textContent"
    assert page.input_value("#calc-ready") == ""
    assert "按手牌算" in page.evaluate(said), page.evaluate(said)
    page.click("#lang")
    wait_js(page, "document.documentElement.lang === 'en'")
    assert "from his tiles" in page.evaluate(said), page.evaluate(said)
    page.click("#lang")
    # "not ready" said so is what contracts him
    page.select_option("#calc-ready", "0")
    assert settle_page(page) == "settled"
    wait_js(page, "document.querySelector('#calc-result .contract')")
    assert page.evaluate(SHOWN)["deltas"] == [0, 200, -200, 0]
    assert page_errors(console) == []
    context.close()


@pytest.mark.slow
def test_a_settlement_is_drawn_with_the_record_it_answers(browser: Any, live_server: str) -> None:
    """Between a change and the server's answer to it (a slow phone network), the page drew
    the previous answer's figures with the new record: the dealer just moved to West was
    marked 庄 beside East still paying the dealer's double.  The figures shown must be one
    answer's, with its own record, and marked as being worked out again."""
    rec = HUNT.DEALER_LOSES
    context, page, console = open_page(browser, f"{live_server}/#/calculator?r={encoded(rec)}",
                                       **PHONE)
    assert settle_page(page) == "settled"
    dealer_row = ("[...document.querySelectorAll('#calc-result table.deltas tr')]"
                  ".findIndex((tr) => tr.querySelector('.dealer'))")
    assert page.evaluate(SHOWN)["deltas"] == [-32, 64, -16, -16]
    assert page.evaluate(dealer_row) == 0
    held: list[Any] = []

    def hold(route: Any) -> None:
        held.append(route)

    page.route("**/api/score", hold)
    page.select_option("#calc-dealer", "2")
    for _ in range(200):
        if held:
            break
        page.wait_for_timeout(25)
    assert held, "the page never asked the server"
    # the previous answer, whole: East deals and pays 32; shown as being recomputed
    assert page.evaluate(SHOWN)["deltas"] == [-32, 64, -16, -16]
    assert page.evaluate(dealer_row) == 0
    assert page.get_attribute("#calc-result", "aria-busy") == "true"
    held[0].continue_()
    assert settle_page(page) == "settled"
    wait_js(page, "!document.querySelector('#calc-result[aria-busy]')")
    assert page.evaluate(SHOWN)["deltas"] == [-16, 64, -32, -16]
    assert page.evaluate(dealer_row) == 2
    page.unroute("**/api/score", hold)
    assert page_errors(console) == []
    context.close()


@pytest.mark.slow
def test_an_option_changed_while_the_answer_is_awaited_marks_it_as_old(
        browser: Any, live_server: str) -> None:
    """The settlement is kept with the record it answers, and that must not change with the
    page's record: the record sent shared its options with the page's, so an option changed
    in place (a cap typed in) went into the old answer's record too, and the old figures were
    shown as the answer to the new record until the server's came."""
    rec = HUNT.as_profile(HUNT.QING_SELF, "yuanhang", opening_scoring="once")
    context, page, console = open_page(browser, f"{live_server}/#/calculator?r={encoded(rec)}",
                                       **PHONE)
    assert settle_page(page) == "settled"
    assert page.evaluate(SHOWN)["deltas"] == [180, -60, -60, -60]  # M(W) = 2 x 2 x 1.5 = 6
    held: list[Any] = []

    def hold(route: Any) -> None:
        held.append(route)

    page.route("**/api/score", hold)
    page.click(".calc-options summary")
    page.fill("[data-calc-option='cap']", "50")
    page.press("[data-calc-option='cap']", "Tab")
    for _ in range(200):
        if held:
            break
        page.wait_for_timeout(25)
    assert held
    assert page.evaluate("window.__wmCalc.score.rec.options") == {"opening_scoring": "once"}
    assert page.get_attribute("#calc-result", "aria-busy") == "true"
    held[0].continue_()
    assert settle_page(page) == "settled"
    wait_js(page, "!document.querySelector('#calc-result[aria-busy]')")
    # all three reach the cap of 50: 金顶, 400 each
    assert page.evaluate(SHOWN)["deltas"] == [1200, -400, -400, -400]
    page.unroute("**/api/score", hold)
    assert page_errors(console) == []
    context.close()


@pytest.mark.slow
def test_a_count_typed_out_of_range_is_said_in_the_players_language(
        browser: Any, live_server: str) -> None:
    """A 5 typed in a seat's 红中 field (or 4 in 皮) is refused by the server (400); the page
    showed its English sentence with the record's path ("seats[0].kongs.red out of range
    (0-4): 5") to a Chinese page's player."""
    context, page, console = open_page(browser, f"{live_server}/#/calculator?r={encoded(HUNT.QING_SELF)}",
                                       **PHONE)
    assert settle_page(page) == "settled"
    page.click(".calc-tabs [data-calc-seat='1']")
    page.fill("#calc-k-red", "5")
    page.press("#calc-k-red", "Tab")
    assert settle_page(page) == "error"
    shown = page.inner_text("#calc-result")
    assert "南家的“红中”是 5：只能是 0 到 4" in shown and "seats[" not in shown, shown
    page.click("#lang")
    wait_js(page, "document.querySelector('#calc-result').innerText.includes('South')")
    shown = page.inner_text("#calc-result")
    assert "South's “Red” is 5: it can only be 0 to 4" in shown, shown
    page.click("#lang")
    page.fill("#calc-k-red", "1")
    page.press("#calc-k-red", "Tab")
    assert settle_page(page) == "settled"  # 清一色 as before; South's 红中杠 doubles his share
    assert page.evaluate(SHOWN)["deltas"] == [480, -240, -120, -120]
    assert page_errors(console) == []
    context.close()
