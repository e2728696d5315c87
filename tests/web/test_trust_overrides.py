"""A room's hidden rule overrides are shown to a joining player before he presses ready
(issue 10, finding 2: a hidden ``escape_penalty_per_opening`` took a victim's silver).

The host sets rules the browser's room form cannot (``options.rules``) over a raw
WebSocket; a player joins in the real browser client and must see every one of them
in the room, with the CSP of every response in force (no console error).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from .conftest import as_guest


@pytest.mark.slow
def test_a_joiner_sees_every_override_before_ready(browser: Any, live_server: str,
                                                    artifacts: Path) -> None:
    token = httpx.post(f"{live_server}/api/guest", timeout=10).json()["token"]
    ws_url = live_server.replace("http://", "ws://") + "/ws"
    with connect(ws_url, additional_headers={"Authorization": f"Bearer {token}"}) as host:
        assert json.loads(host.recv(timeout=10))["type"] == "welcome"
        host.send(json.dumps({"type": "create_room", "options": {
            "hands": 1, "rules": {"escape_penalty_per_opening": 50, "laizi_kong_factor": 2}}}))
        room = json.loads(host.recv(timeout=10))
        assert room["type"] == "room"
        assert room["overrides"] == {"escape_penalty_per_opening": 50, "laizi_kong_factor": 2}
        context, page, console = as_guest(browser, live_server)
        try:
            page.fill("#join-form input[name='code']", room["code"])
            page.click("#join-form button[type='submit']")
            page.wait_for_selector(".room-code")
            for name in room["overrides"]:
                page.wait_for_selector(f"[data-override='{name}']", timeout=10_000)
            text = page.locator("[data-override='escape_penalty_per_opening']").inner_text()
            assert "50" in text
            assert page.locator("[data-do='ready']").count() == 1  # nobody is ready yet
            page.screenshot(path=str(artifacts / "room-overrides.png"))
            assert console.errors == [], console.errors
        finally:
            context.close()
