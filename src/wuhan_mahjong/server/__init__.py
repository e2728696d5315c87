"""The game server: ``wuhan-mahjong serve`` (see ``docs/server.md`` and ``docs/protocol.md``).

One process serves the browser client (``web/``), the WebSocket game protocol
(``/ws``) and a small HTTP API (``/api``) with Starlette on uvicorn.  Each
table is one asyncio task that owns its :class:`~wuhan_mahjong.engine.Match`;
every frame a client gets is built from its own seat view.  Accounts, silver
and hand records live in :mod:`wuhan_mahjong.store`.
"""

from .app import create_app
from .config import ServerConfig, database_url, normalize_db_url
from .protocol import PROTOCOL_VERSION

__all__ = ["PROTOCOL_VERSION", "ServerConfig", "create_app", "database_url", "normalize_db_url"]
