"""Fairness a player can check, in the real browser against the real server.

A guest plays a quick match hand (托管: the server's player acts for him).  The table
shows the hand's commitment from the deal on; after the hand the settlement panel's
"verify" button recomputes SHA-256 in the browser (WebCrypto) from the revealed wall
and salt, and checks the deal and every draw against that wall: it says so.  A record
whose reveal was tampered with (a wall with two tiles swapped; a draw that is not the
wall's next tile) fails, naming the check.  Then the player publishes the hand and a
stranger without an account opens its public link and verifies it too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.engine import load_records

from .conftest import as_guest, open_page, to_quick_table, wait_js

DONE = "document.querySelector('SCOPE [data-verify-state]:not([data-verify-state=running])')"
"""The check has an outcome (ok, bad or error) in SCOPE."""


def _swap_two_tiles(wall: str) -> str:
    k = next(i for i in range(2, len(wall), 2) if wall[i:i + 2] != wall[0:2])
    return wall[k:k + 2] + wall[2:k] + wall[0:2] + wall[k + 2:]


def _tamper(kind: str):  # type: ignore[no-untyped-def]
    """A route handler that changes the hand record the server answers."""

    def handle(route: Any) -> None:
        response = route.fetch()
        body = response.json()
        events = body["events"]
        if kind == "wall":
            reveal = events[-1]
            assert reveal["e"] == "reveal"
            reveal["wall"] = _swap_two_tiles(reveal["wall"])
        else:  # a draw that is not the wall's tile at its position
            draw = next(e for e in events if e["e"] == "draw")
            draw["tile"] = "7z" if draw["tile"] != "7z" else "1m"
        route.fulfill(response=response, body=json.dumps(body))

    return handle


def _checks(page: Any) -> dict[str, str]:
    result: dict[str, str] = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.verify-result li')]
              .map((li) => [li.dataset.check, li.className]))""")
    return result


@pytest.mark.slow
def test_verify_a_real_hand_and_refuse_a_tampered_reveal(browser: Any, live_server: str,
                                                           artifacts: Path) -> None:
    context, page, console = as_guest(browser, live_server, viewport={"width": 390, "height": 844},
                                      is_mobile=True, has_touch=True)
    to_quick_table(page)
    # the commitment is on the table from the deal on, before any tile is revealed
    shown = wait_js(page, "(document.querySelector('.commitment code') || {}).textContent")
    assert len(shown) == 64 and shown == page.evaluate("window.__wm.view.commitment")
    assert page.evaluate("window.__wm.view.result") is None
    page.click("[data-do='auto']")
    # 托管 is on before the hand is waited for (a tap lost to a re-render once left the hand
    # waiting on this seat's turn timeouts: test_press.py)
    wait_js(page, "window.__wm.state && window.__wm.state.auto === true")
    page.wait_for_selector("#overlay [data-verify]", timeout=120_000)
    key = page.get_attribute("#overlay [data-verify]", "data-verify")
    match_id, hand_no = key.split("/")
    page.click("#overlay [data-verify]")
    wait_js(page, DONE.replace("SCOPE", "#overlay"))
    page.screenshot(path=str(artifacts / "verify-ok.png"), full_page=True)
    state = page.get_attribute("#overlay .verify-result", "data-verify-state")
    assert state == "ok", page.inner_text("#overlay .verify-result")
    checks = _checks(page)
    for name in ("record", "shown", "full_wall", "hash", "deal", "indicator", "draws", "own"):
        assert checks.get(name) == "ok", (name, checks)
    # the browser's hash is the commitment shown at the deal
    assert shown[:16] in page.inner_text("#overlay [data-check=hash]")

    # the same hand in the replay viewer, its record tampered with on the way: refused
    record_url = f"**/api/matches/{match_id}/hands/{hand_no}"
    for kind, failed in (("wall", "hash"), ("draw", "draw")):
        page.unroute(record_url)
        page.route(record_url, _tamper(kind))
        page.goto(f"{live_server}/#/replay?id={match_id}/{hand_no}")
        page.reload()
        page.wait_for_selector(".replay [data-verify]", timeout=15_000)
        page.click(".replay [data-verify]")
        wait_js(page, "document.querySelector('.replay [data-verify-state=bad]')")
        assert _checks(page).get(failed) == "bad", (kind, _checks(page))
        assert "✗" in page.inner_text(".replay .verify-result")
    page.unroute(record_url)
    page.screenshot(path=str(artifacts / "verify-tampered.png"), full_page=True)

    # untampered in the replay viewer: verified; then published for everyone
    page.reload()
    page.wait_for_selector(".replay [data-verify]", timeout=15_000)
    page.click(".replay [data-verify]")
    wait_js(page, DONE.replace("SCOPE", ".replay"))
    state = page.get_attribute(".replay .verify-result", "data-verify-state")
    assert state == "ok", page.inner_text(".replay .verify")
    page.wait_for_selector(".share-bar[data-published='0'] [data-publish]", timeout=10_000)
    page.click(".share-bar [data-publish]")
    page.wait_for_selector(".share-bar[data-published='1'] a.public-link", timeout=10_000)
    link = page.get_attribute(".share-bar a.public-link", "href")
    assert page.get_attribute(".share-bar a.record-download", "href").endswith("/record.jsonl")

    # a stranger (no account) opens the public link: the replay, and it verifies
    other, stranger, console2 = open_page(browser, link, viewport={"width": 390, "height": 844})
    stranger.wait_for_selector(".replay .table", timeout=15_000)
    stranger.click(".replay [data-verify]")
    wait_js(stranger, "document.querySelector('.replay [data-verify-state=ok]')")
    assert stranger.locator(".share-bar").count() == 0
    other.close()

    # a page without WebCrypto (plain http to another machine) says it cannot check, not "failed"
    other, stranger, _ = open_page(browser, "about:blank", viewport={"width": 390, "height": 844})
    stranger.add_init_script("Object.defineProperty(Crypto.prototype, 'subtle', {get: () => undefined})")
    stranger.goto(link)
    stranger.wait_for_selector(".replay [data-verify]", timeout=15_000)
    stranger.click(".replay [data-verify]")
    wait_js(stranger, DONE.replace("SCOPE", ".replay"))
    assert stranger.get_attribute(".replay .verify-result", "data-verify-state") == "error"
    assert "https" in stranger.inner_text(".replay .verify-result")
    assert stranger.locator(".replay button[data-verify]").count() == 1  # and it may try again
    other.close()

    # made private again: the public link no longer opens it
    page.click(".share-bar [data-publish]")
    page.wait_for_selector(".share-bar[data-published='0']", timeout=10_000)
    other, stranger, _ = open_page(browser, link)
    wait_js(stranger, "window.__wm.replay && window.__wm.replay.error")
    assert stranger.locator(".replay .table").count() == 0
    other.close()
    assert console.errors == [] and console2.errors == [], console.errors + console2.errors
    context.close()


@pytest.mark.slow
def test_verify_in_the_browser_agrees_with_the_engine(browser: Any, static_server: str,
                                                      tmp_path: Path) -> None:
    """verify.js on 40 simulated hands (kong replacements and 海底 draws among them): every
    commitment recomputed by WebCrypto is the engine's, every deal and draw from its wall;
    each kind of tampering is caught by the check that names it."""
    path = tmp_path / "hands.jsonl"
    subprocess.run([sys.executable, "-m", "wuhan_mahjong", "simulate", "--hands", "40", "--seed", "3",
                    "--records", str(path)], check=True, capture_output=True, timeout=300)
    text = path.read_text(encoding="utf-8")
    assert '"from":"replacement"' in text and '"from":"final"' in text
    context, page, console = open_page(browser, f"{static_server}/tests/web/fixtures/")
    hands = [[{k: v for k, v in e.items() if k != "_line"} for e in hand] for hand in load_records(text)]
    outcome = page.evaluate("""async (hands) => {
      const { verifyHand } = await import('/src/wuhan_mahjong/web/verify.js');
      const failed = (r) => r.checks.filter((c) => !c.ok).map((c) => c.id);
      const good = [];
      for (const h of hands) good.push(failed(await verifyHand(h)));
      const tamper = async (edit) => {
        const h = structuredClone(hands[1]);
        edit(h);
        return failed(await verifyHand(h));
      };
      const flip = (x, a, b) => (x === a ? b : a);
      const reveal = (h) => h[h.length - 1];
      const deal = (h) => h.find((e) => e.e === 'deal');
      const lastDraw = (h) => h.filter((e) => e.e === 'draw').pop();
      return {
        n: hands.length, good,
        salt: await tamper((h) => { const r = reveal(h);
          r.salt = flip(r.salt[0], '0', '1') + r.salt.slice(1); }),
        short: await tamper((h) => { reveal(h).wall = reveal(h).wall.slice(2); }),
        deal: await tamper((h) => { const d = deal(h); d.hands = [...d.hands.slice(1), d.hands[0]]; }),
        indicator: await tamper((h) => { const d = deal(h); d.indicator = flip(d.indicator, '1m', '2m'); }),
        draw: await tamper((h) => { const d = lastDraw(h); d.tile = flip(d.tile, '7z', '1m'); }),
        seen: await (async () => { const h = hands[1];
          const r = await verifyHand(h, { commitment: '0'.repeat(64), seat: 0, dealt: null, draws: [] });
          return failed(r); })(),
      };
    }""", hands)
    assert outcome["n"] == 40 and outcome["good"] == [[]] * 40
    assert outcome["salt"] == ["hash"] and outcome["short"] == ["full_wall"]
    assert outcome["deal"] == ["deal"] and outcome["indicator"] == ["indicator"]
    assert outcome["draw"] == ["draw"] and outcome["seen"] == ["shown"]
    assert [e for e in console.errors if "favicon.ico" not in e] == []
    context.close()
