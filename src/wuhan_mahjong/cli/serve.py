"""``wuhan-mahjong serve``: run the game server (HTTP API, WebSocket protocol, browser client)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..rules import PROFILES
from ..server.config import ServerConfig, database_url
from . import UsageError

__all__ = ["add_serve_command", "cmd_serve", "config_from_args", "tune_gc"]


def add_serve_command(sub: Any) -> None:
    """Register ``serve`` on the CLI's sub-parsers."""
    s = sub.add_parser(
        "serve", help="run the game server (browser client, WebSocket protocol, HTTP API)",
        description="Serve the browser client at /, the game protocol at /ws and the HTTP API "
        "under /api. The database is an SQLite file in --data-dir unless --db (or "
        "$WUHAN_MAHJONG_DB) names a postgresql:// URL; it is migrated at start.")
    d = ServerConfig()
    s.add_argument("--host", default=d.host, help=f"address to listen on (default {d.host})")
    s.add_argument("--port", type=int, default=d.port, help=f"port (default {d.port})")
    s.add_argument("--data-dir", type=Path, default=d.data_dir,
                   help="folder of the SQLite database (default ./data)")
    s.add_argument("--db", metavar="URL", help="database URL (postgresql://user:pw@host/db or "
                   "sqlite:///path); default $WUHAN_MAHJONG_DB, else SQLite in --data-dir")
    s.add_argument("--bot", help="bot policy for bot seats and auto-play (default: greedy if "
                   "available, else random)")
    s.add_argument("--bot-wait", type=float, default=d.bot_wait,
                   help=f"quick match: seconds before bots fill a table (default {d.bot_wait:g})")
    s.add_argument("--bot-delay", type=float, default=d.bot_delay,
                   help=f"seconds a bot waits before it acts (default {d.bot_delay:g})")
    s.add_argument("--claim-hold", type=float, default=d.claim_hold,
                   help="every claim window lasts at least this long, whoever may claim "
                   f"(default {d.claim_hold:g})")
    s.add_argument("--claim-seconds", type=float,
                   help="claim window on every table (default: each table's rules)")
    s.add_argument("--turn-seconds", type=float,
                   help="turn timer on every table (default: each table's rules)")
    s.add_argument("--hand-pause", type=float, default=d.hand_pause,
                   help=f"pause between hands (default {d.hand_pause:g})")
    s.add_argument("--quick-profile", default=d.quick_profile, choices=sorted(PROFILES),
                   help=f"profile of quick matches without one (default {d.quick_profile})")
    s.add_argument("--quick-hands", type=int, default=d.quick_hands,
                   help=f"hands per quick match (default {d.quick_hands})")
    s.add_argument("--quick-stake", type=int, default=d.quick_stake,
                   help=f"silver per point at silver quick matches (default {d.quick_stake})")
    s.add_argument("--fee", type=int, help="service fee F per match at silver tables "
                   "(default: the profile's service_fee)")
    s.add_argument("--starting-silver", type=int, default=d.starting_silver,
                   help=f"silver of a new account (default {d.starting_silver})")
    s.add_argument("--msg-rate", type=float, default=d.msg_rate,
                   help=f"messages per second a connection may send (default {d.msg_rate:g})")
    s.add_argument("--msg-burst", type=int, default=d.msg_burst,
                   help=f"burst of messages above the rate (default {d.msg_burst})")
    s.add_argument("--login-failures", type=int, default=d.login_failures,
                   help="failed logins of one username from one address that lock further "
                   f"attempts for --login-window seconds; 0: no limit (default {d.login_failures})")
    s.add_argument("--login-window", type=float, default=d.login_window,
                   help=f"seconds a failed login counts (default {d.login_window:g})")
    s.add_argument("--no-gc-tuning", dest="gc_tuning", action="store_false",
                   help="keep Python's default garbage-collector thresholds (see docs/server.md)")
    s.add_argument("--log-level", default="info",
                   choices=["critical", "error", "warning", "info", "debug"])
    s.set_defaults(func=cmd_serve)


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    from ..bots import bot_names

    if args.bot is not None and args.bot not in bot_names():
        raise UsageError(f"unknown bot '{args.bot}' (choose from {', '.join(bot_names())})")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0-65535, got {args.port}")
    try:
        return ServerConfig(
            host=args.host, port=args.port, data_dir=args.data_dir, db_url=args.db, bot=args.bot,
            bot_wait=args.bot_wait, bot_delay=args.bot_delay, claim_hold=args.claim_hold,
            claim_seconds=args.claim_seconds, turn_seconds=args.turn_seconds,
            hand_pause=args.hand_pause, quick_profile=args.quick_profile,
            quick_hands=args.quick_hands, quick_stake=args.quick_stake, fee=args.fee,
            starting_silver=args.starting_silver, msg_rate=args.msg_rate,
            msg_burst=args.msg_burst, login_failures=args.login_failures,
            login_window=args.login_window)
    except ValueError as e:
        raise UsageError(str(e)) from None


GC_THRESHOLDS = (5_000, 20, 100)


def tune_gc() -> None:
    """Fewer, cheaper garbage-collector passes for a long-running server.

    Nearly all of the server's garbage is freed by reference counting; the cyclic
    collector's full passes over a heap of a thousand connections and their tables
    took 100-200 ms each, stalling every table (the benchmark's p99).  Objects alive
    at start (modules, the store) are frozen out of the collector's scans, and the
    thresholds make collections rarer (docs/server.md has the figures).
    """
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def _shown(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from ..server.app import create_app
    from ..store import open_store

    config = config_from_args(args)
    url = database_url(config)
    try:
        store = open_store(url, starting_silver=config.starting_silver)
    except Exception as e:  # a bad URL, an unreachable server, a locked file ...
        raise UsageError(f"cannot open the database {_shown(url)}: {e}") from None
    if args.gc_tuning:
        tune_gc()
    print(f"wuhan-mahjong: database {_shown(url)}", flush=True)
    print(f"wuhan-mahjong: serving http://{config.host}:{config.port}/ (WebSocket /ws)", flush=True)
    try:
        server = uvicorn.Server(uvicorn.Config(
            create_app(config, store=store), host=config.host, port=config.port,
            log_level=args.log_level, ws_max_size=64 * 1024, lifespan="on"))
        server.run()
    finally:
        store.close()
    if not server.started:
        raise UsageError(f"the server could not start on {config.host}:{config.port}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m wuhan_mahjong.server``: the same as ``wuhan-mahjong serve``."""
    from . import _fail, _Parser

    parser = _Parser(prog="wuhan-mahjong")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    add_serve_command(sub)
    args = parser.parse_args(["serve", *(sys.argv[1:] if argv is None else argv)])
    try:
        code: int = args.func(args)
        return code
    except UsageError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        return 130
