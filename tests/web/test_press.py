"""A tap outlasts the frames that come while the finger is down.

Every frame re-renders the page, and a click needs its press and its release on one
element: a frame between the two replaced the button under the finger and the tap did
nothing (托管 tapped while the bots played on; a flaky end-to-end test showed it).  While
a control is pressed the client holds its re-render until the click, then draws what
came meanwhile.
"""

from __future__ import annotations

from typing import Any

from .conftest import as_guest, to_quick_table, wait_js

AUTO = ".table-tools [data-do='auto']"


def test_a_frame_during_a_press_does_not_lose_the_tap(browser: Any, live_server: str) -> None:
    context, page, console = as_guest(browser, live_server, viewport={"width": 1200, "height": 900})
    try:
        to_quick_table(page)
        wait_js(page, "window.__wm.state && window.__wm.ws && window.__wm.ws.readyState === 1")
        assert not page.evaluate("window.__wm.state.auto")
        box = page.locator(AUTO).bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        # a frame arrives while the button is pressed: the table's own snapshot
        page.evaluate(f"""() => {{ window.__pressed = document.querySelector("{AUTO}");
            window.__before = window.__wm.state;
            window.__wm.ws.send(JSON.stringify({{type: "snapshot"}})); }}""")
        wait_js(page, "window.__wm.state !== window.__before")
        # the page held still under the finger
        assert page.evaluate(f"""document.querySelector("{AUTO}") === window.__pressed""")
        page.mouse.up()
        wait_js(page, "window.__wm.state.auto === true")  # the tap reached the server
        # and what came meanwhile is drawn once the finger is up
        wait_js(page, f"""document.querySelector("{AUTO}") !== window.__pressed
            && document.querySelector("{AUTO}").getAttribute("aria-pressed") === "true" """)
        assert console.errors == []
    finally:
        context.close()
