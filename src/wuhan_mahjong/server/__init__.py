"""The game server: ``wuhan-mahjong serve`` (see ``docs/server.md`` and ``docs/protocol.md``).

One process serves the browser client (``web/``), the WebSocket game protocol
(``/ws``) and a small HTTP API (``/api``) with Starlette on uvicorn.  Each
table is one asyncio task that owns its :class:`~wuhan_mahjong.engine.Match`;
every frame a client gets is built from its own seat view.  Accounts, silver
and hand records live in :mod:`wuhan_mahjong.store`.

The names below are imported on first use, so that importing a light module of
this package (``server.config``, ``server.settings``: what ``serve --help``
needs) does not load Starlette, pydantic and SQLAlchemy.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import create_app
    from .config import ServerConfig, database_url, normalize_db_url
    from .protocol import PROTOCOL_VERSION

__all__ = ["PROTOCOL_VERSION", "ServerConfig", "create_app", "database_url", "normalize_db_url"]

_HOMES = {"PROTOCOL_VERSION": "protocol", "ServerConfig": "config", "create_app": "app",
          "database_url": "config", "normalize_db_url": "config"}


def __getattr__(name: str) -> Any:
    """PEP 562: ``server.create_app`` and friends, imported when first asked for."""
    if name in _HOMES:
        return getattr(import_module(f".{_HOMES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
