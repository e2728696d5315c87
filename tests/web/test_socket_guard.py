"""A socket that closes as it opens.

A proxy, a load balancer or a node that refuses the connection can close a WebSocket
the moment it opens; its ``open`` event then runs on a socket already closing.  The
client sent its hello into it, which only logs "WebSocket is already in CLOSING or
CLOSED state" (a loaded end-to-end run showed it once).  Here the page's own sockets are
closed by a listener that runs before the client's, every time, so the race is forced:
the client sends nothing into them, retries, and is welcomed on the third socket.
"""

from __future__ import annotations

from typing import Any

from .conftest import open_page, wait_js

CLOSE_AS_THEY_OPEN = """(() => {
  const Native = window.WebSocket;
  let left = 2;
  window.__closedOnOpen = 0;
  window.__sentWhileClosing = 0;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      if (left > 0) {
        left -= 1;
        // registered before the client sets onopen, so it runs first
        this.addEventListener("open", () => { window.__closedOnOpen += 1; this.close(); });
      }
    }
    send(data) {
      if (this.readyState !== Native.OPEN) window.__sentWhileClosing += 1;
      return super.send(data);
    }
  };
})();"""


def test_a_socket_closed_as_it_opens_gets_no_hello_and_the_client_comes_back(
        browser: Any, live_server: str) -> None:
    context, page, console = open_page(browser, f"{live_server}/", init_script=CLOSE_AS_THEY_OPEN)
    try:
        page.click("[data-do='guest']")
        wait_js(page, "window.__wm.wsOpen", 30)  # welcomed on the third socket
        assert page.evaluate("window.__closedOnOpen") == 2
        assert page.evaluate("window.__sentWhileClosing") == 0
        page.wait_for_selector("#create-form")
        assert console.errors == [], console.errors
    finally:
        context.close()
