"""The replay viewer in the real browser against the real server.

A guest plays a quick match hand (托管: the server's player acts for him), then opens it
in the replay viewer from the match summary.  The page fetches the server's frames (the
engine's views after each step, ``GET /api/matches/{id}/hands/{n}/frames``) and steps
through them with the buttons and the keys: at every step it shows exactly that frame's
tiles (each seat's hand, river, melds, the wall, the tile on the table), a caption saying
what happened, and at the end the settlement of the hand.  Once published, the hand opens
for anyone without an account (``#/replay?public=…``, and the older ``?src=`` links).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from wuhan_mahjong.tiles import format_tiles, parse_tiles

from .conftest import as_guest, open_page, to_quick_table, wait_js

WINDS = ("East", "South", "West", "North")


def tiles(text: str) -> list[str]:
    return [format_tiles([t]) for t in parse_tiles(text)]


def shown(page: Any) -> dict[str, Any]:
    """What the replay viewer shows now, read from the page."""
    result: dict[str, Any] = page.evaluate("""() => {
      const tiles = (root, sel) => [...root.querySelectorAll(sel)].map((e) => e.dataset.tile);
      const seats = [0, 1, 2, 3].map((s) => {
        const el = document.querySelector(`.replay .seat[data-seat='${s}']`);
        return { hand: tiles(el, '.open-hand .tile'), river: tiles(el, '.river .tile'),
                 melds: el.querySelectorAll('.meld').length };
      });
      const onTable = document.querySelector('.replay .on-table .tile');
      return { step: Number(document.querySelector('.replay [data-step]').dataset.step), seats,
               wall: Number(document.querySelector('.replay .wall').dataset.wall),
               on_table: onTable ? onTable.dataset.tile : null,
               caption: document.querySelector('.replay-caption').textContent };
    }""")
    return result


def expect(page: Any, frames: list[dict[str, Any]], k: int) -> dict[str, Any]:
    """The page shows frame ``k``, tile for tile."""
    wait_js(page, f"document.querySelector('.replay [data-step=\"{k}\"]')")
    got = shown(page)
    view = frames[k]["view"]
    for s in range(4):
        assert got["seats"][s]["hand"] == tiles(frames[k]["hands"][s]), (k, s)
        assert got["seats"][s]["river"] == [d["tile"] for d in view["seats"][s]["discards"]], (k, s)
        assert got["seats"][s]["melds"] == len(view["seats"][s]["melds"]), (k, s)
    assert got["wall"] == view["wall"]
    assert got["on_table"] == (view["on_table"]["tile"] if view["on_table"] else None), k
    assert got["caption"], k
    return got


def step_to(page: Any, frames: list[dict[str, Any]], k: int) -> dict[str, Any]:
    """From the first step to step ``k`` with the → key, one step at a time."""
    page.keyboard.press("Home")
    for _ in range(k):
        page.keyboard.press("ArrowRight")
    return expect(page, frames, k)


@pytest.mark.slow
def test_step_through_a_replay_of_a_hand_just_played(browser: Any, live_server: str, artifacts: Path) -> None:
    context, page, console = as_guest(browser, live_server, viewport={"width": 1200, "height": 900})
    to_quick_table(page)
    page.click("[data-do='auto']")
    page.wait_for_selector("#overlay .settlement", timeout=180_000)
    page.click("#overlay [data-act='continue']")
    page.wait_for_selector("table.summary", timeout=15_000)
    match_id = page.evaluate("window.__wm.matchEnd.match_id")
    token = page.evaluate("localStorage.getItem('wm.token')")
    got = httpx.get(
        f"{live_server}/api/matches/{match_id}/hands/0/frames",
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert got.status_code == 200
    frames: list[dict[str, Any]] = got.json()["frames"]
    assert len(frames) > 10

    if page.evaluate("document.documentElement.lang") != "en":
        page.click("#lang")  # English captions
    page.locator("button[data-replay]").first.click()
    page.wait_for_selector(".replay .table", timeout=15_000)
    first = expect(page, frames, 0)
    assert "Deal" in first["caption"]
    # his own hand: the seats are named, his own at the bottom as at the table, "(You)"
    listing = httpx.get(f"{live_server}/api/matches/{match_id}/hands",
                        headers={"Authorization": f"Bearer {token}"}, timeout=30).json()
    me, players = listing["seat"], listing["players"]
    assert players[me] == page.evaluate("window.__wm.account.username")
    assert page.evaluate("document.querySelector('.replay .me .seat').dataset.seat") == str(me)
    labels = page.evaluate("[0, 1, 2, 3].map((s) => document.querySelector("
                           "`.replay .seat[data-seat='${s}'] .name`).textContent)")
    for s, name in enumerate(players):
        assert (name or WINDS[s]) in labels[s], (s, labels)
        assert ("(You)" in labels[s]) == (s == me), (s, labels)
    # forward and back, with the keys and the buttons
    page.keyboard.press("ArrowRight")
    expect(page, frames, 1)
    page.click("button[data-rp='next']")
    expect(page, frames, 2)
    page.click("button[data-rp='prev']")
    expect(page, frames, 1)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")  # no step before the first
    expect(page, frames, 0)
    # the first discard: on the table, and the caption says who discarded what
    k = next(
        i
        for i, f in enumerate(frames)
        if any(e["e"] == "act" and e["action"]["type"] == "discard" for e in f["events"])
    )
    at = step_to(page, frames, k)
    discard = next(e for e in frames[k]["events"] if e["e"] == "act" and e["action"]["type"] == "discard")
    assert at["on_table"] == discard["action"]["tile"]
    assert f"{WINDS[discard['seat']]} discards" in at["caption"]
    # a claim, when the hand had one: the caption names the claimer and the discarder
    claim = next((i for i, f in enumerate(frames) if any(e["e"] == "claim" for e in f["events"])), None)
    if claim is not None:
        ev = next(e for e in frames[claim]["events"] if e["e"] == "claim")
        caption = step_to(page, frames, claim)["caption"]
        assert WINDS[ev["seat"]] in caption and f"({WINDS[ev['from']]})" in caption, caption
    # play runs on by itself; pause stops it
    page.click("button[data-rp='play']")
    wait_js(page, f"window.__wm.replay.i >= {min(len(frames) - 1, shown(page)['step'] + 2)}", timeout=30)
    page.click("button[data-rp='play']")
    expect(page, frames, page.evaluate("window.__wm.replay.i"))
    # the last step: the end of the hand and its settlement
    page.keyboard.press("End")
    last = expect(page, frames, len(frames) - 1)
    result = frames[-1]["view"]["result"]
    assert ("wins" if result["outcome"] == "win" else "Exhaustive draw") in last["caption"]
    page.click("button[data-rp='settle']")
    page.wait_for_selector("#overlay .settlement")
    for s, d in enumerate(result["deltas"]):
        text = page.locator(f"#overlay table.deltas tr[data-seat='{s}'] .delta").inner_text()
        assert text == (f"+{d}" if d > 0 else str(d))
        row = page.locator(f"#overlay table.deltas tr[data-seat='{s}']").inner_text()
        assert ("(You)" in row) == (s == me), row
    page.screenshot(path=str(artifacts / "replay-end.png"))
    page.click("#overlay [data-act='continue']")
    page.click("button[data-rp='start']")
    expect(page, frames, 0)
    page.keyboard.press("End")
    page.keyboard.press("Home")
    expect(page, frames, 0)
    assert console.errors == [], console.errors
    context.close()

    # published: anyone opens it without an account, also by a link of the older form
    auth = {"Authorization": f"Bearer {token}"}
    assert httpx.post(f"{live_server}/api/hands/{match_id}/0/publish", headers=auth).status_code == 200
    old = f"/api/public/hands/{match_id}/0/record.jsonl"
    for link in (f"#/replay?public={match_id}/0", f"#/replay?src={old}"):
        context, page, console = open_page(browser, f"{live_server}/{link}")
        page.wait_for_selector(".replay .table", timeout=15_000)
        expect(page, frames, 0)
        # the players are named (no "You": this watcher played no seat), East at the bottom
        wait_js(page, f"document.querySelector(\".replay .seat[data-seat='{me}'] .name\")"
                      f".textContent.includes({players[me]!r})")
        assert page.evaluate("document.querySelector('.replay .me .seat').dataset.seat") == "0"
        words = set(page.locator(".replay").inner_text().split())
        assert not {"(You)", "(你)"} & words, "a watcher played no seat"
        page.keyboard.press("End")
        expect(page, frames, len(frames) - 1)
        assert page.evaluate("location.hash") == f"#/replay?public={match_id}%2F0"
        assert page.locator(".share-bar").count() == 0  # publishing is for the hand's players
        assert console.errors == [], console.errors
        context.close()
