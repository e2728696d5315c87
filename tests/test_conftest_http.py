"""The tests' own plumbing (``tests/conftest.py``): httpx's one-request calls reuse one TLS
context instead of building one from certifi's bundle at each call."""

from __future__ import annotations

import socket
import ssl

import httpx
import pytest

HTTPX_CALLS = ("request", "stream", "get", "options", "head", "post", "put", "patch", "delete")


def test_one_request_calls_build_no_tls_context(monkeypatch: pytest.MonkeyPatch) -> None:
    def built(*args: object, **kwargs: object) -> ssl.SSLContext:
        raise AssertionError("a TLS context was built for a one-request call")

    monkeypatch.setattr(ssl, "create_default_context", built)
    with socket.socket() as probe:  # a port nobody listens on: the call fails to connect
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
    with pytest.raises(httpx.ConnectError):
        httpx.post(f"http://127.0.0.1:{port}/", json={}, timeout=5)
    shared = {id(getattr(httpx, name).keywords["verify"]) for name in HTTPX_CALLS}
    assert len(shared) == 1 and isinstance(httpx.get.keywords["verify"], ssl.SSLContext)

