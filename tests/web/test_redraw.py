"""A redraw changes only what differs (``web/draw.js``).

Every frame of a table draws the page again from the state. Replacing the page's HTML threw
away every element, and with it what the browser keeps in an element: the focus, a
selection, a running animation, an inner scroll. The page is now changed in place, so what
a frame did not change is the very element it was; these tests check that, and the two
places where a new element is wanted (a new phrase pops a new bubble).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from .conftest import as_guest, run_server, wait_js
from .test_client_hunt import SERVER_QUEUED
from .test_press import HeldLobby, a_frame, at_a_decision, quiet

ELEMENTS_KEPT = """() => {
  const all = window.__elements;
  return {kept: all.filter((e) => e.isConnected).length, all: all.length,
          gone: all.filter((e) => !e.isConnected).slice(0, 5).map((e) => e.outerHTML.slice(0, 120))};
}"""
"""How many of the elements noted before a frame are still on the page after it."""


def test_a_frame_that_changes_nothing_keeps_every_element_of_the_table(
        browser: Any, live_server: str) -> None:
    """The table's own snapshot, asked for while it waits for the player, is the frame
    the page already shows: after its redraw every element of the table is the one it
    was (with the page's HTML replaced, none was)."""
    context, page, console = as_guest(browser, live_server, viewport={"width": 1200, "height": 900})
    try:
        at_a_decision(page)
        quiet(page)
        page.evaluate("""() => { window.__elements = [...document.querySelectorAll("#app *")];
            window.__drawn = window.__wm.drawn; }""")
        a_frame(page)
        wait_js(page, "window.__wm.drawn > window.__drawn")  # the page was drawn again
        kept = page.evaluate(ELEMENTS_KEPT)
        assert kept["all"] > 100 and kept["kept"] == kept["all"], kept
        assert console.errors == []
    finally:
        context.close()


def test_a_frame_keeps_the_tiles_it_does_not_change(browser: Any, live_server: str) -> None:
    """A frame that changes the table (a discard) redraws what it changed; the seats'
    hands and rivers that it did not change stay the same elements."""
    context, page, console = as_guest(browser, live_server, viewport={"width": 1200, "height": 900})
    try:
        at_a_decision(page)
        quiet(page)
        page.evaluate("""() => { window.__elements = [...document.querySelectorAll(
            "#app .tile")]; window.__drawn = window.__wm.drawn; }""")
        # 托管 plays the guest's seat: the hand goes on, a frame at every move
        page.click(".table-tools [data-do='auto']")
        wait_js(page, "window.__wm.drawn > window.__drawn + 3", 20)
        kept = page.evaluate(ELEMENTS_KEPT)
        # a discard moves one tile of a hand to a river; a draw adds one: most stay
        assert kept["all"] > 40 and kept["kept"] > kept["all"] / 2, kept
        assert console.errors == []
    finally:
        context.close()


def test_a_new_phrase_pops_a_new_bubble(browser: Any, live_server: str) -> None:
    """A bubble drawn again is kept (it does not pop again), but a new phrase from the same
    seat before the first one's bubble is gone is a new bubble: it pops."""
    context, page, console = as_guest(browser, live_server, viewport={"width": 1200, "height": 900})
    say = """(phrase) => window.__wm.ws.send(JSON.stringify({type: "chat", phrase, ref: "chat"}))"""
    try:
        at_a_decision(page)
        quiet(page)
        # each bubble as it comes: its text, and whether it pops (its running animations)
        page.evaluate("""() => { window.__bubbles = [];
            new MutationObserver(() => {
              const b = document.querySelector(".bubble");
              if (!b || b === window.__bubble) return;
              window.__bubble = b;
              window.__bubbles.push({text: b.textContent, popping: b.getAnimations().length});
            }).observe(document.getElementById("app"), {childList: true, subtree: true}); }""")
        page.evaluate(say, "nice")
        wait_js(page, "window.__bubbles.length === 1", 10)
        page.evaluate(say, "thanks")
        wait_js(page, "window.__bubbles.length === 2", 10)
        first, second = page.evaluate("window.__bubbles")
        assert first["popping"] == 1 and second["popping"] == 1, (first, second)
        assert first["text"] != second["text"], (first, second)
        assert console.errors == []
    finally:
        context.close()


def test_the_queues_spinner_turns_on_through_a_redraw(browser: Any, tmp_path: Path) -> None:
    """Queued for a quick match, the lobby shows a turning spinner. The lobby is drawn
    again when its list of live tables comes (and as the queue changes): the spinner
    started over from the top at each, a jerk. It turns on, as the same animation."""
    with run_server(tmp_path, ["--bot-wait", "600"]) as base:
        lobby = HeldLobby(browser, base)
        page = lobby.page
        try:
            # the server's own answer, not the page's placeholder shown at a tap made while
            # the socket connects (the answers around it may redraw the lobby without it)
            wait_js(page, "window.__wm.wsOpen")
            page.click("[data-do='quick']")
            wait_js(page, f"({SERVER_QUEUED}) && document.querySelector('[data-queued] .spinner') !== null")
            page.evaluate("""() => { window.__spin = document.querySelector(".spinner")
                .getAnimations()[0]; }""")
            assert page.evaluate("window.__spin.playState") == "running"
            lobby.redraw()
            assert page.evaluate("""() => document.querySelector(".spinner")
                .getAnimations()[0] === window.__spin""")
            assert lobby.console.errors == [], lobby.console.errors
        finally:
            lobby.context.close()


DRAW_CHECK = """() => {
  window.__mismatches = []; window.__checked = 0;
  // an element as markup: its tag, its attributes in order, its children; without what the
  // page keeps of its own (a style set through the CSSOM, a running anim-* class, a
  // section the player opened)
  const norm = (n) => {
    if (n.nodeType === Node.TEXT_NODE) return JSON.stringify(n.data);
    if (n.nodeType === Node.COMMENT_NODE) return `<!--${n.data}-->`;
    if (n.nodeType !== Node.ELEMENT_NODE) return "";
    const attrs = [];
    for (const a of n.attributes) {
      if (a.name === "style" || (a.name === "open" && n.tagName === "DETAILS" && n.dataset.openKey)) continue;
      const value = a.name === "class"
        ? a.value.split(/\\s+/).filter((c) => c && !c.startsWith("anim-")).join(" ") : a.value;
      if (a.name !== "class" || value) attrs.push(`${a.name}=${JSON.stringify(value)}`);
    }
    return `<${n.tagName} ${attrs.sort().join(" ")}>${[...n.childNodes].map(norm).join("")}</${n.tagName}>`;
  };
  const children = (n) => [...n.childNodes].map(norm).join("");
  window.__wmDrawCheck = (root, html) => {
    window.__checked += 1;
    const fresh = document.createElement("div");
    fresh.innerHTML = html;
    const [drawn, scratch] = [children(root), children(fresh)];
    if (drawn === scratch || window.__mismatches.length >= 3) return;
    let i = 0;
    while (i < drawn.length && drawn[i] === scratch[i]) i += 1;
    window.__mismatches.push({root: root.id, drawn: drawn.slice(Math.max(0, i - 100), i + 150),
                              scratch: scratch.slice(Math.max(0, i - 100), i + 150)});
  };
}"""
"""Checks every redraw: the page it leaves is the page the same HTML draws from scratch."""


def test_every_redraw_of_a_match_leaves_the_page_the_html_draws_from_scratch(
        browser: Any, live_server: str) -> None:
    """The oracle of the redraws: through a whole hand played by 托管 (a frame at every
    move: discards, claims, kongs, the settlement on top), its replay stepped through, then
    every screen of the menu,
    each redraw leaves the page, the menu and the settlement exactly as the same HTML
    parsed from scratch, but for what the page keeps of its own (a style set through the
    CSSOM, a running animation's class, a section the player opened)."""
    context, page, console = as_guest(browser, live_server, viewport={"width": 1200, "height": 900})
    try:
        page.evaluate(DRAW_CHECK)
        at_a_decision(page)
        page.click(".table-tools [data-do='auto']")
        page.wait_for_selector("#overlay .settlement", timeout=90_000)
        page.click("#overlay [data-act='continue']")
        page.wait_for_selector("table.summary", timeout=15_000)
        # the hand again, in the replay viewer, move by move to its settlement
        page.locator("button[data-replay]").first.click()
        page.wait_for_selector(".replay .table", timeout=10_000)
        for _ in range(25):
            page.keyboard.press("ArrowRight")
        page.keyboard.press("End")
        for item in ("profile", "clubs", "tournaments", "leaderboard", "puzzles", "replay",
                     "rules", "calculator", "settings", "lobby"):
            page.click(f"#nav [data-nav='{item}']")
            wait_js(page, f"window.__wm.screen === '{item}'")
            quiet(page)
        checked, mismatches = page.evaluate("[window.__checked, window.__mismatches]")
        assert mismatches == [], mismatches
        assert checked > 30, checked
        assert console.errors == [], console.errors
    finally:
        context.close()


def test_the_redraw_benchmark_draws_both_ways(browser: Any) -> None:
    """``bench/client_redraw_bench.py`` (its figures are in the README) draws real frames
    both ways through the client's switch, and the page reports no error; no timing is
    checked here."""
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, str(root / "bench" / "client_redraw_bench.py"),
                          "--hands", "1", "--rounds", "1"],
                         capture_output=True, text=True, timeout=300, cwd=root)
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert re.match(r"\d+ frames of 1 hands", lines[0]) and int(lines[0].split()[0]) > 20, lines
    assert [line.split()[0] for line in lines[1:3]] == ["in", "replaced"], lines
    assert "replaced / in place (CPU)" in lines[3], lines


def fixture_page(browser: Any, static_server: str, frame: str) -> tuple[Any, Any]:
    """The fixture page (stored seat views, no server) showing ``frame``."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.goto(f"{static_server}/src/wuhan_mahjong/web/index.html"
              f"#/fixture?src=/tests/web/fixtures/views.json&frame={frame}")
    wait_js(page, "document.body.dataset.ready === '1'")
    return context, page


def test_a_focused_claim_button_does_not_become_another_claim(browser: Any, static_server: str) -> None:
    """A redraw keeps a focused element as it is while it does the same thing. A frame that
    offers other claims turns the focused 吃 into the next frame's first button (碰): the
    focus must not stay on it, or Enter would claim what the player never chose. It goes
    (no button does 吃 any more)."""
    context, page = fixture_page(browser, static_server, "claim_chi")
    try:
        page.focus("button[data-act='chi']")
        page.evaluate("""() => { window.__chi = document.activeElement;
            const list = document.getElementById("fixture-frame");
            list.value = "claim"; list.dispatchEvent(new Event("change", {bubbles: true})); }""")
        page.wait_for_selector("button[data-act='peng']")
        after = page.evaluate("""() => ({focused: document.activeElement.tagName,
            act: document.activeElement.dataset.act || null,
            kept: window.__chi.isConnected && window.__chi.dataset.act})""")
        assert after["kept"] == "peng", after  # the very element now claims 碰
        assert after == {"focused": "BODY", "act": None, "kept": "peng"}, after
    finally:
        context.close()


def test_a_frame_in_the_middle_of_a_discards_drop_does_not_cut_it_short(
        browser: Any, static_server: str) -> None:
    """A new discard drops into its river (a 0.3 s animation, the class ``anim-in``). A frame
    that comes before it is over (at a table, the next move's often does) drew the river
    again without the class and cut the drop short. The drop goes on, as the same
    animation; once it is over the class goes."""
    context, page = fixture_page(browser, static_server, "claim_chi")
    try:
        # two frames of one hand, the later with more discards; then the same frame again,
        # at once (one task: no time for the drop to end)
        seen = page.evaluate("""() => {
            const show = (name) => { const list = document.getElementById("fixture-frame");
                list.value = name; list.dispatchEvent(new Event("change", {bubbles: true})); };
            const dropping = () => { const t = document.querySelector(".river .tile.anim-in");
                return t && t.getAnimations().find((a) => a.playState === "running"); };
            show("late");
            const first = dropping();
            show("late");
            const again = dropping();
            return {first: !!first, same: !!first && first === again}; }""")
        assert seen == {"first": True, "same": True}, seen
        wait_js(page, "!document.querySelector('.river .tile.anim-in') || "
                      "!document.querySelector('.river .tile.anim-in').getAnimations().length", 10)
        page.evaluate("""() => { const list = document.getElementById("fixture-frame");
            list.dispatchEvent(new Event("change", {bubbles: true})); }""")
        assert page.locator(".river .tile.anim-in").count() == 0  # over: the class went
    finally:
        context.close()


def test_the_settlement_panels_focus_stays_through_a_redraw(browser: Any, static_server: str) -> None:
    """The settlement panel is drawn again with the page (a frame, the next hand's
    countdown). Its button, focused with Tab, lost the focus at each redraw (the panel was
    drawn afresh, and the kept focus looked only in the page and the menu). It stays."""
    context, page = fixture_page(browser, static_server, "win")
    try:
        page.wait_for_selector("#overlay .settlement [data-act='continue']")
        page.focus("#overlay [data-act='continue']")
        page.evaluate("""() => { window.__button = document.activeElement;
            window.__drawn = window.__wm.drawn;
            document.getElementById("fixture-frame")
              .dispatchEvent(new Event("change", {bubbles: true})); }""")
        wait_js(page, "window.__wm.drawn > window.__drawn")
        assert page.evaluate("document.activeElement === window.__button")
    finally:
        context.close()
