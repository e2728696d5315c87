"""Win questions (胡不胡, "can this hand win?") in the real browser against the real server
(``web/puzzles.js``, ``#/puzzles?kind=win``).

The page draws the question the server sends (a settlement record, checked here against
``wuhan_mahjong.bots.win_puzzles.make_win_question``): the winner's concealed hand with the
winning tile set apart and how it came, his melds, special kongs and laizi thrown, the
dealer, and the other seats' melds and kongs but never their concealed tiles.  能胡 / 不能胡
(a click, or Y / N) answers: ✓ or ✗ as the question's truth says, the rule that stops a
refused win in the player's language, the settlement of a win as the calculator draws it,
and a link that opens the record in the calculator, showing the same position and result.
A guest's record in win questions counts his first answers; his record in discard puzzles
does not move.  On a phone held upright the page fits.  No console errors.
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.bots.win_puzzles import WinQuestion, make_win_question
from wuhan_mahjong.tiles import parse_tiles, tile_str

from .conftest import PHONE, Console, as_guest, open_page, wait_js

# picked with make_win_question: yes on a discard (from the seat across), yes self-drawn with
# three melds and a laizi in the hand, no (the minimum score not reached by one loser)
YES_DISCARD = ("yuanhang", 2)
YES_SELF_DRAW = ("yuanhang", 6)
NO_MINIMUM = ("bianfeng", 4)
KONGS = ("red", "green", "laizi", "pi")


@functools.cache
def _question(profile: str, number: int) -> WinQuestion:
    return make_win_question(profile, number)


def tiles(text: str) -> list[str]:
    """"123m5p" -> ["1m", "2m", "3m", "5p"] (the record's notation)."""
    return [tile_str(t) for t in parse_tiles(text)]


def _faces(locator: Any) -> list[str]:
    return [str(locator.nth(i).get_attribute("data-tile")) for i in range(locator.count())]


def _shown(page: Any) -> tuple[str, int]:
    """The profile and number of the win question on screen, once drawn."""
    page.wait_for_selector(".winq-hand .tile")
    head = page.locator(".puzzle-head[data-kind='win']")
    return str(head.get_attribute("data-profile")), int(str(head.get_attribute("data-number")))


def _meld_faces(m: dict[str, Any]) -> list[str]:
    faces = tiles(m["tiles"])
    if m.get("kind") == "concealed":  # its two end tiles face down, as at the table
        faces[0] = faces[-1] = "back"
    return faces


def _specials(seat: dict[str, Any]) -> dict[str, int]:
    out = {k: n for k, n in seat.get("kongs", {}).items() if k in KONGS and n}
    if seat.get("laizi_discards"):
        out["laizi_discards"] = seat["laizi_discards"]
    return out


def _shown_specials(locator: Any) -> dict[str, int]:
    chips = [locator.nth(i) for i in range(locator.count())]
    return {str(c.get_attribute("data-special")): int(str(c.get_attribute("data-n"))) for c in chips}


def _check_question(page: Any, q: WinQuestion) -> None:
    """The question on screen is ``q``'s record, the other seats' concealed tiles left out."""
    rec = q.record
    w = rec["winner"]
    me = rec["seats"][w]
    assert page.locator(".puzzle-lz .indicator .tile").get_attribute("data-tile") == rec["indicator"]
    # the hand sorted, the winning tile set apart at the right
    assert _faces(page.locator(".winq-hand .tile")) == [*tiles(me["hand"]), rec["winning_tile"]]
    assert page.locator(".winq-hand .tile").last.get_attribute("data-winning") == "1"
    how = page.locator(".winq-how")
    assert how.get_attribute("data-win-by") == rec["win_by"]
    if rec["win_by"] == "discard":
        assert how.get_attribute("data-from") == str(rec["from"])
        assert how.get_attribute("data-from-rel") == str((rec["from"] - w) % 4)
    melds = page.locator(".winq-me .meld")
    assert melds.count() == len(me["melds"])
    for i, m in enumerate(me["melds"]):
        assert melds.nth(i).get_attribute("data-meld") == m["type"]
        assert _faces(melds.nth(i).locator(".tile")) == _meld_faces(m)
    assert _shown_specials(page.locator(".winq-me [data-special]")) == _specials(me)
    dealer = page.locator(".puzzle-facts [data-dealer]").get_attribute("data-dealer")
    assert dealer == ("1" if rec["dealer"] == w else "0")
    # the other three: 下家, 对家, 上家, their melds and kongs, no concealed tile
    others = page.locator(".winq-others .winq-seat")
    assert others.count() == 3
    for k in range(3):
        li = others.nth(k)
        s = (w + k + 1) % 4
        seat = rec["seats"][s]
        assert li.get_attribute("data-seat") == str(s)
        assert _faces(li.locator(".tile")) == [x for m in seat["melds"] for x in _meld_faces(m)]
        assert _shown_specials(li.locator("[data-special]")) == _specials(seat)
        assert li.locator("[data-dealer-mark]").count() == (1 if rec["dealer"] == s else 0)
    # the laizi the rules name (GET /api/rules), marked in the hand
    laizi = page.locator(".puzzle-lz .laizi-fig .tile.laizi")
    laizi.wait_for()
    lz = str(laizi.get_attribute("data-tile"))
    hand = [*tiles(me["hand"]), rec["winning_tile"]]
    assert page.locator(".winq-hand .tile.laizi").count() == hand.count(lz)


def _answer(page: Any, win: bool, *, key: bool = False) -> None:
    if key:
        page.keyboard.press("y" if win else "n")
    else:
        page.click(f".winq-buttons [data-winq='{'yes' if win else 'no'}']")
    page.wait_for_selector(".winq-result")


SETTLEMENT = """(root) => {
  const q = (s) => [...document.querySelectorAll(root + ' ' + s)];
  return {
    amounts: q('tr.payment').map((tr) => [Number(tr.dataset.loser),
                                         Number(tr.querySelector('td.amt b').textContent)]),
    factors: q('tr.payment').map((tr) => [...tr.querySelectorAll('.factor')].map((a) => a.dataset.id)),
    deltas: q('table.deltas td.delta').map((td) => Number(td.textContent.replace('+', ''))),
  };
}"""


def _settlement(page: Any, root: str) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(SETTLEMENT, root)
    return found


def _expected_settlement(q: WinQuestion) -> dict[str, Any]:
    a = q.answer
    return {"amounts": [[p["loser"], p["amount"]] for p in a["payments"]],
            "factors": [[f["id"] for f in p["factors"]] for p in a["payments"]],
            "deltas": a["deltas"]}


def _check_answer(page: Any, q: WinQuestion, said: bool) -> None:
    """The verdict on screen is the question's: ✓ when ``said`` is its truth; a win's
    settlement, or a refused win's rule."""
    verdict = page.locator(".winq .puzzle-verdict:not(.earlier)")
    assert verdict.get_attribute("data-correct") == ("1" if said == q.win else "0")
    assert verdict.get_attribute("data-win") == ("1" if q.win else "0")
    assert ("✓" if said == q.win else "✗") in str(verdict.text_content())
    if q.win:
        assert page.locator(".winq-truth").get_attribute("data-refusal") is None
        assert _settlement(page, ".winq-settlement") == _expected_settlement(q)
    else:
        assert page.locator(".winq-truth").get_attribute("data-refusal") == q.answer["refusal"]["code"]
        assert page.locator(".winq-settlement").count() == 0
    assert page.locator(".winq-buttons").count() == 0


def _stats(page: Any, kind: str) -> dict[str, int]:
    line = page.locator(f".puzzle-stats[data-kind='{kind}']")
    line.wait_for()
    return {k: int(str(line.get_attribute(f"data-{k}")))
            for k in ("attempted", "solved", "streak", "best-streak")}


def _normal(rec: dict[str, Any]) -> dict[str, Any]:
    """A record as the calculator writes it (empty fields left out, tiles grouped)."""
    out = {k: v for k, v in rec.items() if k != "options" or v}
    seats = []
    for seat in rec["seats"]:
        s = {"hand": seat["hand"], "melds": seat["melds"]}
        if any(seat.get("kongs", {}).values()):
            s["kongs"] = seat["kongs"]
        if seat.get("laizi_discards"):
            s["laizi_discards"] = seat["laizi_discards"]
        seats.append(s)
    out["seats"] = seats
    return out


def _calculator_errors(console: Console) -> list[str]:
    """Console errors but the browser's line for the calculator's refused win (422)."""
    return [e for e in console.errors
            if "/api/score: Failed to load resource: the server responded with a status of 422" not in e]


def _open_in_calculator(page: Any, q: WinQuestion) -> str:
    """Follow the answer's calculator link: the calculator shows this record and its answer
    (the result's state)."""
    page.click(".winq-result [data-calc-link]")
    page.wait_for_selector(".screen.calculator")
    wait_js(page, "window.__wmCalc.timer === null && window.__wmCalc.seq > 0"
                  " && window.__wmCalc.answered >= window.__wmCalc.seq"
                  " && document.querySelector('#calc-result:not([data-state=pending])')")
    assert page.evaluate("window.__wmCalc.recordJSON()") == _normal(q.record)
    # the winner's seat is the one on screen, his hand and the winning tile
    rec = q.record
    assert _faces(page.locator(".calc-hand .tile")) == tiles(rec["seats"][rec["winner"]]["hand"])
    assert page.locator(".calc-win .tile").get_attribute("data-tile") == rec["winning_tile"]
    return str(page.get_attribute("#calc-result", "data-state"))


def test_a_win_question_without_an_account(browser: Any, live_server: str) -> None:
    """Anyone may answer: a numbered question's address shows it; Y answers; a win's
    settlement is the calculator's, and its link opens the calculator on the same record and
    the same settlement; no record, an invitation to sign in instead."""
    profile, number = YES_DISCARD
    q = _question(profile, number)
    assert q.win
    url = f"{live_server}/#/puzzles?kind=win&profile={profile}&n={number}"
    context, page, console = open_page(browser, url, viewport={"width": 1280, "height": 800})
    try:
        assert _shown(page) == (profile, number)
        assert page.locator(".puzzle-switch [data-puzzle-kind='win'][aria-selected='true']").count() == 1
        assert page.locator("#puzzle-profile").input_value() == profile
        _check_question(page, q)
        assert page.locator(".puzzle-stats").count() == 0
        assert page.locator(".puzzle-stats-none a[href='#/login']").count() == 1
        _answer(page, True, key=True)
        _check_answer(page, q, True)
        assert page.locator("#puzzle-link").input_value().endswith(
            f"#/puzzles?kind=win&profile={profile}&n={number}")
        assert _open_in_calculator(page, q) == "settled"
        assert _settlement(page, "#calc-result") == _expected_settlement(q)
        # Back: the question again, answered
        page.go_back()
        page.wait_for_selector(".winq-result")
        _check_answer(page, q, True)
        assert console.errors == [], console.errors
    finally:
        context.close()


@pytest.mark.slow
def test_a_guests_win_questions(browser: Any, live_server: str, artifacts: Path) -> None:
    """The switch opens the day's win question; a wrong answer, then a right one, count in
    the guest's record of win questions and not in his discard puzzles'; the refused win names
    its rule as the calculator does; a shared link shows his earlier answer; N is the next."""
    context, page, console = as_guest(browser, live_server, viewport={"width": 1280, "height": 800})
    try:
        page.click("#nav [data-nav='puzzles']")
        page.wait_for_selector(".puzzle-hand .tile")
        assert _stats(page, "discard") == {"attempted": 0, "solved": 0, "streak": 0, "best-streak": 0}
        page.click(".puzzle-switch [data-puzzle-kind='win']")
        profile, number = _shown(page)
        assert page.url.endswith("#/puzzles?kind=win&profile=yuanhang")
        assert page.locator(".puzzle-head").get_attribute("data-daily")
        _check_question(page, _question(profile, number))
        assert _stats(page, "win") == {"attempted": 0, "solved": 0, "streak": 0, "best-streak": 0}

        # a question whose answer is no, answered yes
        profile, number = NO_MINIMUM
        q = _question(profile, number)
        assert not q.win
        page.evaluate(f"() => {{ location.hash = '#/puzzles?kind=win&profile={profile}&n={number}'; }}")
        assert _shown(page) == (profile, number)
        _check_question(page, q)
        _answer(page, True)
        _check_answer(page, q, True)
        assert _stats(page, "win") == {"attempted": 1, "solved": 0, "streak": 0, "best-streak": 0}
        truth = str(page.locator(".winq-truth").text_content())
        page.screenshot(path=str(artifacts / "win-question-refused-desktop.png"), full_page=True)
        link = page.locator("#puzzle-link").input_value()

        # the calculator says the same rule
        assert _open_in_calculator(page, q) == "refused"
        rule = str(page.locator("#calc-result .calc-refused").text_content())
        because = rule.split(" ", 1)[1].strip()  # after the calculator's "不能胡" / "Not a win"
        assert because and because in truth, (because, truth)
        page.go_back()
        page.wait_for_selector(".winq-result")

        # the shared link in another tab of the same guest: his earlier answer; again, not counted
        other = context.new_page()
        other_console = Console(other)
        other.goto(link)
        assert _shown(other) == (profile, number)
        earlier = other.locator(".puzzle-verdict.earlier")
        earlier.wait_for()
        assert earlier.get_attribute("data-earlier") == "0"
        _answer(other, False, key=True)
        _check_answer(other, q, False)
        assert other.locator(".puzzle-again").count() == 1
        assert _stats(other, "win") == {"attempted": 1, "solved": 0, "streak": 0, "best-streak": 0}
        assert other_console.errors == [], other_console.errors
        other.close()

        # N: the next question, another number of the same profile; a right answer counts
        page.keyboard.press("n")
        wait_js(page, f"document.querySelector('.puzzle-head') && "
                      f"document.querySelector('.puzzle-head').dataset.number !== '{number}'")
        profile2, number2 = _shown(page)
        assert profile2 == profile and number2 != number
        assert page.url.endswith(f"#/puzzles?kind=win&profile={profile}&n={number2}")
        q2 = _question(profile2, number2)
        _check_question(page, q2)
        _answer(page, q2.win)
        _check_answer(page, q2, q2.win)
        assert _stats(page, "win") == {"attempted": 2, "solved": 1, "streak": 1, "best-streak": 1}

        # the discard puzzles' record has not moved; the switch back shows the last win question
        page.click(".puzzle-switch [data-puzzle-kind='discard']")
        page.wait_for_selector(".puzzle-head[data-kind='discard']")
        assert _stats(page, "discard") == {"attempted": 0, "solved": 0, "streak": 0, "best-streak": 0}
        page.click(".puzzle-switch [data-puzzle-kind='win']")
        assert _shown(page) == (profile2, number2)
        page.wait_for_selector(".winq-result")
        assert _calculator_errors(console) == [], console.errors
    finally:
        context.close()


BOXES = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {x: r.x, y: r.y, w: r.width, h: r.height};
  };
  const shown = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.offsetParent !== null);
  return {
    vw: innerWidth, scroll: document.documentElement.scrollWidth,
    hand: shown('.winq-hand .tile').map(box),
    wide: shown('.screen.puzzles *').map((e) => ({...box(e), what: e.outerHTML.slice(0, 60)}))
      .filter((b) => b.x < -0.5 || b.x + b.w > innerWidth + 0.5),
    targets: shown('#app button, #app select, #app a.button, .topbar button, .topbar a')
      .map((e) => ({...box(e), what: e.outerHTML.slice(0, 60)})),
  };
}"""


@pytest.mark.slow
def test_the_win_question_on_a_phone(browser: Any, live_server: str, artifacts: Path) -> None:
    """Upright on a phone 390 px wide: nothing wider than the screen, the hand and the winning
    tile on one row, touch targets of 40 px, before and after the answer (a settlement)."""
    profile, number = YES_SELF_DRAW
    q = _question(profile, number)
    context, page, console = as_guest(browser, live_server, **PHONE)
    try:
        page.evaluate(f"() => {{ location.hash = '#/puzzles?kind=win&profile={profile}&n={number}'; }}")
        assert _shown(page) == (profile, number)
        _check_question(page, q)
        for stage in ("question", "answer"):
            if stage == "answer":
                page.locator(".winq-buttons [data-winq='no']").tap()
                page.wait_for_selector(".winq-result")
                _check_answer(page, q, False)
            page.screenshot(path=str(artifacts / f"win-question-{stage}-portrait.png"), full_page=True)
            b = page.evaluate(BOXES)
            assert b["scroll"] <= b["vw"], (stage, "wider than the screen")
            assert not b["wide"], (stage, b["wide"][:3])
            xs = sorted(b["hand"], key=lambda t: t["x"])
            assert len(xs) == len(tiles(q.record["seats"][q.record["winner"]]["hand"])) + 1
            assert len({round(t["y"]) for t in xs}) == 1, stage
            for left, right in itertools.pairwise(xs):
                assert left["x"] + left["w"] <= right["x"] + 0.5, stage
            small = [t for t in b["targets"] if t["h"] < 40 or t["w"] < 40]
            assert not small, (stage, small[:3])
        assert _stats(page, "win")["attempted"] == 1
        assert console.errors == [], console.errors
    finally:
        context.close()
