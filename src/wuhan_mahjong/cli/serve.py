"""``wuhan-mahjong serve``: run the game server (HTTP API, WebSocket protocol, browser client)."""

from __future__ import annotations

import argparse
import contextlib
import signal
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from .common import ArgumentParser, UsageError, check_database_url, one_line

if TYPE_CHECKING:
    import uvicorn

    from ..server.settings import Settings

__all__ = ["CONFIGURE", "add_serve_command", "cmd_serve", "print_settings", "settings_from_args", "tune_gc"]

FLAG_ALIASES = {"db_url": ["--db"], "redis_url": ["--redis"]}
"""Older spellings of some settings' flags, still accepted."""


def add_serve_command(s: ArgumentParser) -> None:
    """The flags of ``serve``: one per setting (:func:`~wuhan_mahjong.server.settings.settings_fields`),
    so a field added to ``ServerConfig`` gets its flag here with no other change."""
    from ..server.settings import CONFIG_ENV, NONE_WORD, settings_fields

    s.description = (
        "Serve the browser client at /, the game protocol at /ws and the HTTP API under /api. "
        "The database is an SQLite file in --data-dir unless --db-url (or $WUHAN_MAHJONG_DB) names "
        "a postgresql:// URL; it is migrated at start. Every setting below is also read from the "
        "environment variable WUHAN_MAHJONG_<NAME> and from the TOML file of --config (key "
        f"<name>); a flag beats the environment, which beats the file. '{NONE_WORD}' unsets an "
        "optional setting; a list takes JSON (on the command line also "
        "comma-separated words).")
    s.add_argument("--config", metavar="FILE",
                   help=f"TOML settings file, keys as the settings' names (default ${CONFIG_ENV})")
    s.add_argument("--print-config", action="store_true",
                   help="print the settings in force (TOML, each with its source) and exit")
    for f in settings_fields():
        shown = NONE_WORD if f.default is None else f.default
        help_text = f"{f.doc + ' ' if f.doc else ''}(default {shown}; ${f.env})".replace("%", "%%")
        flags = [f.flag, *FLAG_ALIASES.get(f.name, [])]
        if f.is_bool:
            s.add_argument(*flags, dest=f.name, action=argparse.BooleanOptionalAction,
                           default=argparse.SUPPRESS, help=help_text)
        else:
            metavar = "{" + ",".join(map(str, f.choices)) + "}" if f.choices else f.name.upper()
            s.add_argument(*flags, dest=f.name, metavar=metavar, default=argparse.SUPPRESS,
                           help=help_text)
    s.set_defaults(func=cmd_serve)


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The settings of ``serve``: its flags, then the environment, then the ``--config`` file."""
    try:
        from ..server.settings import SettingsError, load_settings, settings_fields
    except ModuleNotFoundError as e:
        raise _missing_extra(e) from None
    flags = {f.name: getattr(args, f.name) for f in settings_fields() if hasattr(args, f.name)}
    try:
        settings = load_settings(flags, args.config)
    except ModuleNotFoundError as e:
        raise _missing_extra(e) from None
    except SettingsError as e:
        raise UsageError(str(e)) from None
    try:
        from ..server.config import database_url
        from ..server.security import check_proxies
    except ModuleNotFoundError as e:
        raise _missing_extra(e) from None
    config = settings.server
    if not 0 <= config.port <= 65535:
        raise UsageError(f"port must be 0-65535, got {config.port}")
    try:
        check_proxies(config.forwarded_allow_ips)
    except ValueError as e:
        raise UsageError(str(e)) from None
    check_database_url(database_url(config))
    if config.bot is not None:
        from ..bots import bot_names

        if config.bot not in bot_names():
            raise UsageError(f"unknown bot '{config.bot}' (choose from {', '.join(bot_names())})")
    return settings


def _missing_extra(e: ModuleNotFoundError) -> UsageError:
    return UsageError(f"serve needs the server extra ({e.name} is not installed): "
                      "pip install 'wuhan-mahjong[server]'")


def print_settings(settings: Settings) -> None:
    """The settings in force as TOML (usable as a --config file), each with where it came from."""
    import dataclasses
    import json
    import os

    from ..server.config import DB_ENV, REDIS_ENV

    older = {"db_url": DB_ENV, "redis_url": REDIS_ENV}  # read when the setting is not set
    for part in (settings.server, settings.process):
        for f in dataclasses.fields(part):
            value = getattr(part, f.name)
            source = settings.sources.get(f.name, "default")
            if value is None and os.environ.get(older.get(f.name, "")):
                value, source = os.environ[older[f.name]], f"${older[f.name]}"
            if value is None:
                print(f"# {f.name} = (none)  # {source}")
                continue
            if f.name in ("db_url", "redis_url"):
                value = _hide_password(value)
            if isinstance(value, bool):
                text = "true" if value else "false"
            elif isinstance(value, (int, float)):
                text = repr(value)
            elif isinstance(value, (list, tuple, set, frozenset)):
                text = json.dumps([str(v) if not isinstance(v, (int, float)) else v for v in value])
            else:
                text = json.dumps(str(value), ensure_ascii=False)
            print(f"{f.name} = {text}  # {source}")


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


def raise_open_files_limit() -> tuple[int, int] | None:
    """Raise this process's soft limit of open files to its hard limit, as the Go runtime
    and nginx's ``worker_rlimit_nofile`` do; ``(old, new)`` when it rose, else ``None``.

    Every player's socket is an open file (at a table, in the lobby, watching).  A service
    started by systemd gets a soft limit of 1,024 unless its unit says otherwise, so a
    node stopped accepting players (``accept`` failing with "Too many open files") at
    about a thousand sockets.  The hard limit is what the system allows this process;
    the soft one is only a default for programs that never asked.
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft == resource.RLIM_INFINITY or soft >= target:
        return None
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):  # a kernel cap below the hard limit (macOS): leave it
        return None
    return soft, target


def _shown(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def configure_logging(settings: Settings) -> None:
    """The server's own loggers (``wuhan_mahjong.*``, the event log ``wuhan_mahjong.events``
    among them) on standard error, at ``log_level``: text lines, or one JSON object per line
    when ``log_format`` is ``json``."""
    import logging

    handler = logging.StreamHandler()
    if settings.process.log_format == "json":
        from ..server.observability import JsonFormatter

        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("wuhan_mahjong")
    logger.handlers[:] = [handler]
    logger.setLevel(settings.process.log_level.upper())
    logger.propagate = False


def uvicorn_logging(settings: Settings) -> None:
    """uvicorn's loggers (start-up, errors, access lines) as JSON lines too when ``log_format``
    is ``json``; called once uvicorn has configured them."""
    if settings.process.log_format != "json":
        return
    import logging

    from ..server.observability import JsonFormatter

    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        for handler in logging.getLogger(name).handlers:
            handler.setFormatter(JsonFormatter())


def cmd_serve(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    if args.print_config:
        print_settings(settings)
        return 0
    try:
        import uvicorn

        from ..server.app import create_app
        from ..server.config import database_url
        from ..store import open_store
    except ModuleNotFoundError as e:
        raise _missing_extra(e) from None

    config = settings.server
    url = database_url(config)
    with contextlib.ExitStack() as held:  # the store, the lock, the socket: closed in turn
        try:
            store = open_store(url, starting_silver=config.starting_silver)
        except Exception as e:  # a bad URL, an unreachable server, a locked file ...
            raise UsageError(f"cannot open the database {_shown(url)}: {one_line(e)}") from None
        held.callback(store.close)
        cluster = _check_redis(config)
        if cluster is not None:  # --redis or $WUHAN_MAHJONG_REDIS: the probes see it too
            import dataclasses

            config = dataclasses.replace(config, redis_url=cluster)
        # a server alone has its database to itself; nodes share it, with no server alone
        # beside them (store/serve_lock.py)
        from ..store.serve_lock import DatabaseInUse, hold_serve_lock

        # another server took the lock while PostgreSQL was away from this one, and so
        # claimed its matches: this one stops (gracefully: its tables' writes are fenced)
        lost: list[str] = []
        running: list[uvicorn.Server] = []

        def stop_on_lost(holder: str) -> None:
            lost.append(holder)
            for started in running:
                started.should_exit = True

        try:
            held.callback(hold_serve_lock(store.engine, node=cluster is not None,
                                          on_lost=stop_on_lost).release)
        except DatabaseInUse as e:
            raise UsageError(str(e)) from None
        if settings.process.gc_tuning:
            tune_gc()
        listener = held.enter_context(_listen(config.host, config.port))
        port = listener.getsockname()[1]  # --port 0: the port the system chose
        print(f"wuhan-mahjong: database {_shown(url)}", flush=True)
        raised = raise_open_files_limit()
        if raised is not None:
            print(f"wuhan-mahjong: open files limit raised from {raised[0]:,} to {raised[1]:,}",
                  flush=True)
        if cluster is not None:
            print(f"wuhan-mahjong: cluster node on Redis {_shown_redis(cluster)}", flush=True)
        configure_logging(settings)
        server = uvicorn.Server(uvicorn.Config(
            create_app(config, store=store), host=config.host, port=config.port,
            log_level=settings.process.log_level, ws_max_size=64 * 1024, lifespan="on",
            proxy_headers=False))  # the app trusts only config.forwarded_allow_ips (server/security.py)
        running.append(server)
        if lost:
            server.should_exit = True
        # SIGTERM drains (uvicorn stops accepting, closes the sockets, then the hub's
        # shutdown persists and stops every table) and uvicorn raises the signal again
        # once done: this handler turns that into a clean exit 0 instead of death by it.
        # Before uvicorn takes the signal over, the same handler asks the server to stop
        # as soon as it has started (a SIGTERM then was swallowed, and the server ran on
        # until systemd's SIGKILL): installed before "serving" is printed.
        uvicorn_logging(settings)  # after uvicorn.Config, which sets up its own loggers
        previous = signal.signal(signal.SIGTERM, _stop_when_started(server))
        host = f"[{config.host}]" if ":" in config.host else config.host
        print(f"wuhan-mahjong: serving http://{host}:{port}/ (WebSocket /ws)", flush=True)
        try:
            server.run(sockets=[listener])
        finally:
            signal.signal(signal.SIGTERM, previous)
    if lost:
        raise UsageError(f"another server took this one's database lock while PostgreSQL "
                         f"was away ({lost[0]}), and with it the matches: this one stopped")
    if not server.started:
        raise UsageError(f"the server could not start on {config.host}:{config.port}")
    return 0


def _listen(host: str, port: int) -> socket.socket:
    """The server's listening socket, bound here as uvicorn would bind it, so that a port in
    use or an address this machine does not have is a one-line error and exit status 2
    (uvicorn logs it among its start-up lines and exits with status 3)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family=family, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        reason = e.strerror or str(e)
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        raise UsageError(f"cannot listen on {shown}:{port}: {reason}") from None
    sock.set_inheritable(True)
    return sock


def _check_redis(config: object) -> str | None:
    """The cluster's Redis URL (``--redis`` or ``$WUHAN_MAHJONG_REDIS``), checked reachable;
    ``None`` without one (a process alone)."""
    from ..server.config import ServerConfig, redis_url

    assert isinstance(config, ServerConfig)
    try:
        url = redis_url(config)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if url is None:
        return None
    try:
        import redis
    except ModuleNotFoundError:
        raise UsageError("--redis needs the redis extra: pip install 'wuhan-mahjong[redis]'") from None
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5)
        try:
            client.ping()
        finally:
            client.close()
    except (redis.RedisError, ValueError) as e:
        raise UsageError(f"cannot reach Redis {_shown_redis(url)}: {e}") from None
    return url


def _hide_password(url: str) -> str:
    """``url`` with the password of its userinfo as ``***``: everything up to the last ``@``
    before the path, as URL parsers read it (up to the first, a password holding an ``@``
    was shown from there on)."""
    import re

    return re.sub(r"(://[^:/@]*:)[^/]*@", r"\1***@", url)


def _shown_redis(url: str) -> str:
    return _hide_password(url)


def _stop_when_started(server: uvicorn.Server) -> Callable[[int, object], None]:
    """The SIGTERM handler outside uvicorn's own: before uvicorn runs, the server stops as
    soon as it has started (uvicorn checks ``should_exit`` after its start-up and then
    shuts down gracefully); after its graceful shutdown, uvicorn's raising the signal
    again ends in a clean exit 0."""

    def handler(_signum: int, _frame: object) -> None:
        server.should_exit = True

    return handler


CONFIGURE = {"serve": add_serve_command}
"""Sub-command name -> the function that adds its arguments (read by ``cli.build_parser``)."""
