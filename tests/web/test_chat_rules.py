"""Quick chat at the table (phrases and emotes by id, rate-limited, per-player mute) and the
rules page generated from the rules module (GET /api/rules)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from .conftest import PHONE, WEB, as_guest, open_page, wait_js
from .test_press import at_a_decision, quiet
from .test_strings import _table

I18N = (WEB / "i18n.js").read_text()


def test_every_phrase_and_emote_has_both_languages() -> None:
    from wuhan_mahjong.server.chat import EMOTES, PHRASES

    for lang in ("zh", "en"):
        keys = _table(I18N, lang)
        assert {f"chat.phrase.{p}" for p in PHRASES} <= keys, lang
        assert {f"chat.emote.{e}" for e in EMOTES} <= keys, lang
    # the client offers exactly the server's ids
    table_js = (WEB / "table.js").read_text()
    offered = re.search(r"export const PHRASES = \[(.*?)\];", table_js)
    assert offered and re.findall(r'"(\w+)"', offered.group(1)) == list(PHRASES)
    emotes = re.search(r"export const EMOTES = \{(.*?)\n\};", table_js, re.S)
    assert emotes and re.findall(r"^  (\w+):", emotes.group(1), re.M) == list(EMOTES)


def test_the_rules_document_covers_every_option() -> None:
    from wuhan_mahjong.rules import PROFILES, Rules, get_rules
    from wuhan_mahjong.server.rules_api import PROFILE_TEXT, RULE_TEXT, VALUE_TEXT, rules_document

    names = [f.name for f in dataclasses.fields(Rules) if f.name != "profile"]
    assert sorted(RULE_TEXT) == sorted(names), "each rule option needs its Chinese label and explanation"
    assert sorted(PROFILE_TEXT) == sorted(PROFILES)
    doc = rules_document()
    assert [o["name"] for o in doc["options"]] == names
    for o in doc["options"]:
        assert o["doc_en"] and o["doc_zh"] and o["label_zh"] and o["label_en"], o["name"]
        for p in PROFILES:
            value = getattr(get_rules(p), o["name"])
            assert o["values"][p] == (list(value) if isinstance(value, tuple) else value)
        # every value that has a name has it in both languages
        for v in VALUE_TEXT.get(o["name"], {}).values():
            assert len(v) == 2 and all(v)


@pytest.mark.slow
def test_quick_chat_at_the_table(browser: Any, live_server: str, artifacts: Path) -> None:
    host_ctx, host, host_console = as_guest(browser, live_server, **PHONE)
    desktop = {"viewport": {"width": 1280, "height": 800}}
    friend_ctx, friend, friend_console = as_guest(browser, live_server, **desktop)
    host.fill("#create-form input[name='hands']", "1")
    host.fill("#create-form input[name='cap']", "200")
    host.click("#create-form button[type='submit']")
    code = host.locator(".room-code").get_attribute("data-code", timeout=10_000)
    friend.fill("#join-form input[name='code']", code)
    friend.click("#join-form button[type='submit']")
    friend.wait_for_selector(".room-code")
    friend.click("[data-do='ready']")
    host.click("[data-do='ready']")
    host.click("[data-do='start']")
    host.wait_for_selector(".table", timeout=15_000)
    friend.wait_for_selector(".table", timeout=15_000)
    host_seat = host.evaluate("() => window.__wm.table.seat")
    # the table's rules: every option changed from the profile is listed
    friend.click("[data-do='info']")
    friend.wait_for_selector(".table-info .overrides tr[data-rule='cap']")
    assert "200" in friend.locator(".table-info .overrides tr[data-rule='cap']").inner_text()
    assert friend.locator(".table-info .overrides tr[data-rule='cap_per_opening']").count() == 1
    # during the hand no link leaves the table (the rules page would be an escape): every
    # rule is read in the panel, with the table's own values (the room's cap of 200 marked)
    assert friend.evaluate("window.__wm.view.phase") != "ended"
    assert friend.locator(".table-info a[href^='#/rules']").count() == 0
    friend.click(".table-info [data-do='table-rules']")
    friend.wait_for_selector(".table-info [data-table-rules] tr[data-rule]")
    options = friend.evaluate("() => window.__wm.rules.options.map((o) => o.name)")
    shown = friend.locator(".table-info [data-table-rules] tr[data-rule]").evaluate_all(
        "rows => rows.map((r) => r.dataset.rule)")
    assert shown == options
    cap = friend.locator(".table-info [data-table-rules] tr[data-rule='cap']")
    assert "200" in cap.inner_text() and "differs" in (cap.get_attribute("class") or "")
    assert friend.locator(".table-info [data-table-rules] a").count() == 0
    assert friend.locator(".table-info [data-table-rules] .factors-table tr").count() > 0
    assert friend.evaluate("window.__wm.screen") == "table"
    friend.click(".table-info [data-do='table-rules']")  # 收起
    assert friend.locator(".table-info [data-table-rules]").count() == 0
    friend.click("[data-do='info']")
    # a phrase: everyone sees it by the speaker's seat, in his own language
    host.click("[data-do='chat']")
    host.screenshot(path=str(artifacts / "chat-panel-phone.png"))
    host.click("[data-chat='phrase:hurry']")
    bubble = friend.locator(f".bubble[data-bubble-seat='{host_seat}']")
    bubble.wait_for(timeout=15_000)
    assert bubble.inner_text() == "搞快点撒！"
    assert friend.locator(f".seat[data-seat='{host_seat}'] .bubble").count() == 1
    friend.screenshot(path=str(artifacts / "chat-bubble-desktop.png"))
    # an emote is drawn (no emoji font needed)
    host.click("[data-do='chat']")
    host.click("[data-chat='emote:laugh']")
    friend.wait_for_selector(f".bubble[data-bubble-seat='{host_seat}'] svg.emote", timeout=15_000)
    # the friend mutes the host: nothing more from him
    friend.click("[data-do='chat']")
    host_name = host.evaluate("() => window.__wm.account.username")
    friend.click(f"[data-mute-seat='{host_name}']")
    friend.wait_for_timeout(4500)  # the last bubble fades
    host.click("[data-do='chat']")
    host.click("[data-chat='phrase:nice']")
    friend.wait_for_timeout(1000)
    assert friend.locator(".bubble").count() == 0
    # too many phrases: the server refuses, the speaker reads why
    for _ in range(6):
        host.evaluate("() => window.__wm.ws.send(JSON.stringify({type: 'chat', phrase: 'again'}))")
    wait_js(host, "window.__wm.error.includes('说得太快')", timeout=5)
    # no free text: an unknown phrase is refused
    refused = host.evaluate("""() => new Promise((done) => {
      const ws = window.__wm.ws;
      const seen = (e) => { const m = JSON.parse(e.data); if (m.type === 'error' && m.ref === 'free') {
        ws.removeEventListener('message', seen); done(m.code); } };
      ws.addEventListener('message', seen);
      ws.send(JSON.stringify({type: 'chat', phrase: 'hello everyone', ref: 'free'}));
    })""")
    assert refused == "invalid_message"
    for c in (host_console, friend_console):
        assert c.errors == [], c.errors
    host_ctx.close()
    friend_ctx.close()



def test_a_chat_bubble_pops_once_not_at_every_frame(browser: Any, live_server: str) -> None:
    """A bubble pops in (a quarter-second animation) when the phrase comes.  Every frame
    redraws the table, and the bubble with it: it popped again at each one, a flicker as
    the bots played (12 pops in 2 s).  Now a redrawn bubble goes on where its pop was."""
    context, page, console = as_guest(browser, live_server, viewport={"width": 1200, "height": 900})
    try:
        at_a_decision(page)
        quiet(page)
        # at every redraw that shows the bubble: when (since its first), and how far into
        # its pop each of its running animations is (ms; about 0 for one that starts over)
        page.evaluate("""() => { window.__bubbles = [];
            new MutationObserver(() => {
              const b = document.querySelector(".bubble");
              if (!b || window.__wm.drawn === window.__seen) return;
              window.__seen = window.__wm.drawn;
              window.__first = window.__first || performance.now();
              window.__bubbles.push({age: performance.now() - window.__first,
                running: b.getAnimations().filter((a) => a.playState === "running")
                  .map((a) => a.currentTime - a.effect.getTiming().delay)});
            }).observe(document.getElementById("app"),
                       {childList: true, subtree: true, attributes: true, characterData: true}); }""")
        page.evaluate("""() => window.__wm.ws.send(JSON.stringify(
            {type: "chat", phrase: "nice", ref: "chat"}))""")
        page.wait_for_selector(".bubble")
        # 托管 plays the guest's seat: the hand goes on, a frame at every move
        page.click(".table-tools [data-do='auto']")
        wait_js(page, "window.__bubbles.some((b) => b.age > 400)"
                      " || !document.querySelector('.bubble')", 20)
        drawn = page.evaluate("window.__bubbles")
        first, *again = drawn
        assert len(first["running"]) == 1, drawn  # it pops
        for b in again:  # and then went on from where it was, not from the start
            assert b["age"] < 300 or all(into > 100 for into in b["running"]), drawn
        assert any(b["age"] > 400 and not b["running"] for b in again), drawn  # or not at all
        assert console.errors == []
    finally:
        context.close()


@pytest.mark.slow
def test_rules_page_per_profile_in_both_languages(browser: Any, live_server: str, artifacts: Path) -> None:
    from wuhan_mahjong.rules import get_rules
    from wuhan_mahjong.server.rules_api import RULE_TEXT, rules_document

    context, page, console = open_page(browser, f"{live_server}/#/rules?profile=laizishanzhuang", **PHONE)
    page.wait_for_selector(".rules-page[data-profile='laizishanzhuang']")
    doc = rules_document()
    assert page.locator(".rules-table tbody tr[data-rule]").count() == len(doc["options"])
    assert page.locator(".factors-table tr[data-factor]").count() == len(doc["factors"])
    row = page.locator("tr[data-rule='golden_cap']")
    assert row.locator("th").inner_text() == RULE_TEXT["golden_cap"][0]
    assert row.locator(".rule-value").inner_text() == str(get_rules("laizishanzhuang").golden_cap)
    assert page.locator("tr[data-rule='must_kong'] .rule-value").inner_text() == "红中、发财"
    assert page.locator("tr[data-rule='opening_scoring'] .rule-value").inner_text() == "开口翻"
    page.screenshot(path=str(artifacts / "rules-phone.png"), full_page=True)
    # English: the rules module's own explanations
    page.click("#lang")
    doc_en = next(o["doc_en"] for o in doc["options"] if o["name"] == "golden_cap")
    assert row.locator(".rule-doc").inner_text() == doc_en
    # another profile by its tab; Back returns
    page.click("[data-rules-profile='bianfeng']")
    page.wait_for_selector(".rules-page[data-profile='bianfeng']")
    assert page.locator("tr[data-rule='opening_scoring'] .rule-value").inner_text() == "once (开口翻)"
    page.go_back()
    page.wait_for_selector(".rules-page[data-profile='laizishanzhuang']")
    page.click("#lang")
    assert console.errors == [], console.errors
    context.close()


def test_every_settlement_factor_is_explained() -> None:
    """Each factor id the scoring module can put in a settlement has its explanation and, where
    an option sets it, that option."""
    from wuhan_mahjong.server.rules_api import FACTOR_TEXT, RULE_TEXT

    source = (WEB.parent / "scoring.py").read_text()
    ids = set(re.findall(r'Factor\(\s*"(\w+)"', source))
    ids |= set(re.findall(r'^\s*\("(\w+)", "[^"]+", "[^"]+", state\.', source, re.M))
    ids.discard("fid")
    assert {"base", "opening", "red_kong", "laizi_discard", "deal_in"} <= ids
    assert ids <= set(FACTOR_TEXT), sorted(ids - set(FACTOR_TEXT))
    for text in FACTOR_TEXT.values():
        assert text[4] is None or text[4] in RULE_TEXT


@pytest.mark.slow
def test_settlement_factors_link_to_their_rule(browser: Any, static_server: str, live_server: str,
                                               artifacts: Path) -> None:
    """On the fixture page (its settlement) and on the live server (the rules page)."""
    from .test_fixture_page import VIEWS

    view = VIEWS["win"]
    context = browser.new_context()
    page = context.new_page()
    fixture = "/src/wuhan_mahjong/web/index.html#/fixture?src=/tests/web/fixtures/views.json&frame=win"
    page.goto(f"{static_server}{fixture}")
    page.wait_for_selector("#overlay .settlement")
    links = page.locator("#overlay a.factor")
    assert links.count() > 0
    for i in range(links.count()):
        fid = links.nth(i).get_attribute("data-id")
        assert links.nth(i).get_attribute("href") == f"#/rules?profile={view['profile']}&factor={fid}"
    context.close()
    # the link's address opens the rules page at that factor, with the option that sets it
    url = f"{live_server}/#/rules?profile=laizishanzhuang&factor=laizi_kong"
    context, page, console = open_page(browser, url, **PHONE)
    row = page.locator("tr.current[data-factor='laizi_kong']")
    row.wait_for()
    assert "癞子杠倍数" in row.inner_text() and "2" in row.inner_text()
    box = row.bounding_box()
    assert box is not None and 0 <= box["y"] <= 844 - box["height"]
    page.screenshot(path=str(artifacts / "rules-factor-phone.png"))
    row.locator("[data-rule-link]").click()
    assert page.locator("tr.current[data-rule='laizi_kong_factor']").count() == 1
    assert console.errors == [], console.errors
    context.close()


@pytest.mark.slow
def test_worked_examples_are_scored_by_each_profile(browser: Any, live_server: str, artifacts: Path) -> None:
    """The rules page's examples are the scoring module's answers: the same small hand wins
    under 远航 and is refused under 边锋 (every loser must owe 8)."""
    from wuhan_mahjong.calculator import score_record
    from wuhan_mahjong.server.rules_api import EXAMPLES

    record = next(r for eid, _, _, r in EXAMPLES if eid == "small_hand")
    yuanhang = score_record(json.dumps({**record, "profile": "yuanhang"}))
    assert yuanhang.settled and not score_record(json.dumps({**record, "profile": "bianfeng"})).settled
    context, page, console = open_page(browser, f"{live_server}/#/rules?profile=yuanhang", **PHONE)
    example = page.locator(".example[data-example='small_hand']")
    example.wait_for()
    for s, d in enumerate(yuanhang.body["deltas"]):
        shown = example.locator(f"table.deltas tr[data-seat='{s}'] .delta").inner_text()
        assert shown == (f"+{d}" if d > 0 else str(d))
    page.screenshot(path=str(artifacts / "rules-examples-phone.png"), full_page=True)
    page.click("[data-rules-profile='bianfeng']")
    page.wait_for_selector(".rules-page[data-profile='bianfeng']")
    refused = page.locator(".example[data-example='small_hand'] .refused")
    assert refused.inner_text() == "按这套规则，这手牌不能胡"
    assert console.errors == [], console.errors
    context.close()


def test_a_bubble_stays_through_a_reconnection(browser: Any, live_server: str) -> None:
    """The table's frame the server sends again at a reconnection (a phone's network
    blinking) cleared the bubbles: what was just said vanished. The same match's table
    keeps them; a new match's starts without them."""
    context, page, console = as_guest(browser, live_server, viewport={"width": 1200, "height": 900})
    try:
        at_a_decision(page)
        quiet(page)
        page.evaluate("""() => window.__wm.ws.send(JSON.stringify(
            {type: "chat", phrase: "nice", ref: "chat"}))""")
        page.wait_for_selector(".bubble")
        # the bubble lasts as long as the test needs (4 s is short for a loaded machine)
        page.evaluate("""() => { for (const b of Object.values(window.__wm.bubbles)) b.until += 600000;
            window.__table = window.__wm.table; window.__wm.ws.close(); }""")
        wait_js(page, "window.__wm.table !== window.__table && window.__wm.wsOpen", 30)
        assert page.evaluate("window.__wm.table.match_id === window.__table.match_id")
        quiet(page)
        assert page.locator(".bubble").count() == 1
        assert console.errors == [], console.errors
    finally:
        context.close()
