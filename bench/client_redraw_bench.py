"""The browser client's redraw: milliseconds per table frame, in place against replaced.

    python bench/client_redraw_bench.py [--hands 3] [--rounds 5] [--seed 1] [--width 390]

Every state frame of a table draws the page again (``render()`` in ``web/app.js``). Both
sides draw the same frames, seat 0's views of seeded hands played by the engine (every
move of each hand, in order), on the client's fixture page in headless Chromium:

``in place``
    what the client does now (``web/draw.js``): the fresh HTML parsed aside, the page
    changed where it differs (morphdom);
``replaced``
    what it did until 7 December 2026: the page's HTML replaced at every frame
    (``window.__wmDrawReplace``, the switch the client keeps for this comparison).

Each frame's redraw is followed by a forced layout (the browser lays the page out before
it paints it anyway), so the figure is what a frame costs the page's main thread. The
sides run ``--rounds`` times each, alternating, and the best round counts. CPU time is
the main thread's busy time as Chromium counts it (the DevTools protocol's
``TaskDuration``), wall time (``performance.now``) is printed beside it.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import random
import tempfile
import threading
from pathlib import Path
from typing import Any

from wuhan_mahjong.engine import new_hand, random_policy, seat_view, simple_policy
from wuhan_mahjong.rules import get_rules

WEB = Path(__file__).resolve().parents[1] / "src" / "wuhan_mahjong" / "web"
CHROMIUM = os.environ.get("WUHAN_MAHJONG_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")

DRAW_ALL = """async (frames) => {
  // the fixture page lists its frames in a list at its top; it is given one frame at a
  // time, so that the page is a table's (not one with a list of hundreds of choices)
  const S = window.__wm;
  const all = window.__allViews || (window.__allViews = S.fixture.views);
  const t0 = performance.now();
  for (const name of frames) {
    S.fixture.views = {now: all[name]};
    const list = document.getElementById("fixture-frame");
    if (list.value !== "now") list.add(new Option("now", "now"));  // the first time
    list.value = "now";
    list.dispatchEvent(new Event("change", {bubbles: true}));
    void document.body.offsetHeight;  // the layout a painted frame needs
  }
  return performance.now() - t0;
}"""


def frames(hands: int, seed: int) -> dict[str, Any]:
    """Seat 0's view after every move of ``hands`` seeded hands, in order."""
    views: dict[str, Any] = {}
    for h in range(hands):
        rng = random.Random(seed * 1000 + h)
        state = new_hand(get_rules(PROFILES[h % 3]), dealer=h % 4, rng=random.Random(seed * 1000 + h))
        rand = random_policy(rng)
        views[f"h{h}m000"] = seat_view(state, 0)
        move = 0
        while not state.ended:
            s = state.to_act()[0]
            act = simple_policy(state, s) if rng.random() < 0.8 else rand(state, s)
            state.apply(s, act)
            move += 1
            views[f"h{h}m{move:03d}"] = seat_view(state, 0)
    return views


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """The client's files, and ``/frames.json`` from ``folder``, on a free loopback port."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def translate_path(self, path: str) -> str:
            if path.split("?")[0] == "/frames.json":
                return str(folder / "frames.json")
            return super().translate_path(path)

    handler = functools.partial(Quiet, directory=str(WEB))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--width", type=int, default=390, help="the page's width in CSS pixels (390: a phone)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    views = frames(args.hands, args.seed)
    names = list(views)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "frames.json").write_text(json.dumps(views, ensure_ascii=False))
        server, base = serve(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": args.width, "height": 844})
                page.goto(f"{base}/index.html#/fixture?src=/frames.json&frame={names[0]}")
                page.wait_for_selector("body[data-ready='1'] .table")
                cdp = page.context.new_cdp_session(page)
                cdp.send("Performance.enable")

                def busy() -> float:
                    metrics = cdp.send("Performance.getMetrics")["metrics"]
                    return float(next(m["value"] for m in metrics if m["name"] == "TaskDuration"))

                best: dict[str, tuple[float, float]] = {}
                for _ in range(args.rounds):
                    for side, replace in (("in place", False), ("replaced", True)):
                        page.evaluate(f"window.__wmDrawReplace = {'true' if replace else 'false'}")
                        cpu0 = busy()
                        wall = float(page.evaluate(DRAW_ALL, names))
                        cpu_ms = (busy() - cpu0) * 1000
                        if side not in best or cpu_ms < best[side][0]:
                            best[side] = (cpu_ms, wall)
                errors = page.evaluate("window.__wm.error")
                browser.close()
        finally:
            server.shutdown()
            server.server_close()
    if errors:
        raise SystemExit(f"the page reported an error: {errors}")
    n = len(names)
    print(f"{n} frames of {args.hands} hands (seed {args.seed}), page {args.width} px wide, "
          f"best of {args.rounds} rounds each; per frame:")
    for side, (cpu_ms, wall_ms) in best.items():
        print(f"  {side:9s} {cpu_ms / n:6.2f} ms of CPU   {wall_ms / n:6.2f} ms wall")
    ratio = best["replaced"][0] / best["in place"][0]
    print(f"  replaced / in place (CPU): {ratio:.2f}x")


if __name__ == "__main__":
    main()
