"""What an operator watches: health and readiness, Prometheus metrics, a structured event log.

- ``GET /healthz``: the process is alive and its event loop answers (200, no I/O).
- ``GET /readyz``: the database answers a query (and Redis a ``PING`` when the server has
  a ``redis_url`` setting); 503 with the failing check otherwise, or while the server has
  not started or is draining.
- ``GET /metrics``: Prometheus text format (``prometheus_client``), every name prefixed
  ``wuhan_mahjong_``: connections and tables (read from the hub at scrape time), hands,
  matches, settlements, settlement and table errors and login failures (counters),
  the latency of a frame from the table to the client's socket (histogram), the bot
  worker's decisions by outcome, its safety-net hits and its decision times
  (``server/bot_worker.py``), and the
  ledger's totals and consistency from the store's audit (one consistent read of the
  store, reused for ``metrics_audit_seconds``: :class:`AuditCache`), plus the standard
  ``process_*`` and ``python_*`` metrics.
- The event log: :func:`emit` writes one record to the logger ``wuhan_mahjong.events``
  for every match start and end, settlement, login failure, admin action and table error,
  each with its ids, and counts it in the metrics above, so the log and the metrics
  cannot disagree.  ``--log-format json`` (:class:`JsonFormatter`) writes every log
  record, these included, as one JSON object per line.

The counters live in this module's :data:`REGISTRY` (one server per process, as in
production); what depends on one application (its hub and store) is collected by a
per-application :class:`AppCollector`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import traceback
import weakref
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..store.database import error_line

if TYPE_CHECKING:
    from prometheus_client.metrics_core import Metric

    from ..store import Audit, Store
    from .hub import Hub

__all__ = ["EVENTS", "REGISTRY", "AppCollector", "JsonFormatter", "emit", "frame_sent",
           "observability_routes"]

PREFIX = "wuhan_mahjong_"
EVENTS = logging.getLogger("wuhan_mahjong.events")
log = logging.getLogger(__name__)
"""The event log: one record per match start and end, settlement, login failure, admin
action and table error; ``record.event`` names it and ``record.fields`` holds its ids."""

REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

MATCHES_STARTED = Counter(PREFIX + "matches_started", "Matches started (a table sat down).",
                          registry=REGISTRY)
MATCHES_ENDED = Counter(PREFIX + "matches_ended", "Matches ended, by how (finished, aborted).",
                        ["how"], registry=REGISTRY)
HANDS = Counter(PREFIX + "hands", "Hands played to the end and settled, by profile and outcome "
                "(rate() of it: hands per second).", ["profile", "outcome"], registry=REGISTRY)
SETTLEMENTS = Counter(PREFIX + "settlements", "Settlements written to the ledger, by kind "
                      "(hand, escape, fee: the service fee of a match that ended early).",
                      ["kind"], registry=REGISTRY)
SETTLEMENT_ERRORS = Counter(PREFIX + "settlement_errors", "Settlements that failed.",
                            registry=REGISTRY)
TABLE_ERRORS = Counter(PREFIX + "table_errors", "Tables stopped by an unexpected error.",
                       registry=REGISTRY)
LOGIN_FAILURES = Counter(PREFIX + "login_failures", "Failed logins (a wrong name or password).",
                         registry=REGISTRY)
FRAME_LATENCY = Histogram(
    PREFIX + "frame_latency_seconds",
    "Time from a frame's queueing by a table (or the hub) to its write on the client's socket.",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY)

CLUSTER_STRAYS = Counter(
    PREFIX + "cluster_strays", "Sockets held by this node that went to a lobby (its own or "
    "another node's) while their account's table ran elsewhere, closed (1012) for the "
    "reconnection to go to the table: each is a race that seated a player without moving "
    "his socket (Cluster._send_strays_home).",
    registry=REGISTRY)

BOT_DECISIONS = Counter(
    PREFIX + "bot_decisions", "Decisions asked of the bot worker for bot seats and auto-play "
    "(托管), by how they ended: played, stale (dropped: the decision moved on, the table "
    "stopped or the player came back), or a fallback (cap, error, illegal).", ["outcome"],
    registry=REGISTRY)
BOT_CAP_HITS = Counter(
    PREFIX + "bot_cap_hits", "Bot decisions that overran the wall-clock safety net "
    "(--bot-cap): a greedy decision was played instead.", registry=REGISTRY)
BOT_DECISION_SECONDS = Histogram(
    PREFIX + "bot_decision_seconds",
    "Wall time of a bot decision in the worker, from its asking to its result (queueing "
    "for a worker included).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
    registry=REGISTRY)

_COUNTED = {
    "match_start": lambda f: MATCHES_STARTED.inc(),
    "match_end": lambda f: MATCHES_ENDED.labels(str(f.get("how", "finished"))).inc(),
    "settlement": lambda f: _settled(f),
    "settlement_error": lambda f: SETTLEMENT_ERRORS.inc(),
    "table_error": lambda f: TABLE_ERRORS.inc(),
    "login_failure": lambda f: LOGIN_FAILURES.inc(),
}
"""Event name -> its metric.  An event not named here (``admin_action``: the admin commands
run in their own process, so their count is read from the store's admin log) is logged only."""


def _settled(fields: Mapping[str, Any]) -> None:
    kind = str(fields.get("kind", "hand"))
    SETTLEMENTS.labels(kind).inc()
    if kind == "hand":
        HANDS.labels(str(fields.get("profile", "?")), str(fields.get("outcome", "?"))).inc()


def emit(event: str, level: int = logging.INFO, **fields: Any) -> None:
    """Log ``event`` with its ids (``match_id=...``, ``account_id=...``) and count it.

    Never raises: observing the game must not stop it.
    """
    try:
        count = _COUNTED.get(event)
        if count is not None:
            count(fields)
        shown = " ".join(f"{k}={v}" for k, v in fields.items())
        EVENTS.log(level, "%s %s", event, shown, extra={"event": event, "fields": fields})
    except Exception:  # pragma: no cover - a broken log handler
        log.exception("could not record the event %s", event)


def frame_sent(queued_at: float) -> None:
    """A frame queued at ``queued_at`` (``time.perf_counter()``) reached the socket."""
    FRAME_LATENCY.observe(time.perf_counter() - queued_at)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and an event's name and ids."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        event = getattr(record, "event", None)
        if event is not None:
            out["event"] = event
            fields = getattr(record, "fields", None)
            if isinstance(fields, Mapping):
                for k, v in fields.items():
                    out.setdefault(str(k), v)
        if record.exc_info:
            out["exception"] = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        return json.dumps(out, ensure_ascii=False, default=str)


class AuditCache:
    """A store's last :meth:`~wuhan_mahjong.store.Store.audit`, reused for ``max_age`` seconds.

    The audit reads the whole ledger and every balance: run on every scrape it made
    ``/metrics`` cost more as the ledger grew, however often Prometheus (or anybody)
    asked.  Now a scrape runs it only when the last one is older than ``max_age``
    (``metrics_audit_seconds``, 0: every scrape); concurrent scrapes share one run.  The
    metrics say how old the audit they show is, how many ran and how long the last took.

    While the database cannot be read, the last audit is shown, older at every scrape,
    and ``reachable`` is False: a scrape used to fail as a whole (500), so the node's own
    figures went dark exactly when an operator looked at them.
    """

    def __init__(self, store: Store, max_age: float,
                 clock: Any = time.monotonic) -> None:
        self.store = store
        self.max_age = max_age
        self.clock = clock
        self.lock = threading.Lock()
        self.audit: Audit | None = None
        self.at = 0.0
        self.runs = 0
        self.seconds = 0.0
        """Wall seconds the last audit took."""
        self.reachable = True
        """Whether the last try to run the audit could read the database."""

    def get(self) -> tuple[Audit | None, float]:
        """The audit and its age in seconds (run now if there is none or it is too old);
        while the database cannot be read, the last one (``None`` if there is none)."""
        with self.lock:
            if self.audit is None or self.clock() - self.at >= self.max_age:
                start = time.perf_counter()
                try:
                    audit = self.store.audit()
                except SQLAlchemyError as e:
                    self.reachable = False
                    log.warning("/metrics: no ledger audit, the database cannot be read (%s)",
                                error_line(e))
                else:
                    self.reachable = True
                    self.audit = audit
                    self.seconds = time.perf_counter() - start
                    self.at = self.clock()
                    self.runs += 1
            return self.audit, max(0.0, self.clock() - self.at)


_AUDITS: weakref.WeakKeyDictionary[Hub, AuditCache] = weakref.WeakKeyDictionary()
_AUDITS_LOCK = threading.Lock()


def audit_cache(hub: Hub) -> AuditCache:
    """The hub's :class:`AuditCache` (made at its first scrape)."""
    with _AUDITS_LOCK:
        cache = _AUDITS.get(hub)
        if cache is None:
            cache = _AUDITS[hub] = AuditCache(
                hub.store, float(getattr(hub.config, "metrics_audit_seconds", 0.0)))
        return cache


class AppCollector(Collector):
    """The metrics read from one application's hub and store when Prometheus scrapes."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def collect(self) -> Iterator[Metric]:
        hub = self.hub
        yield GaugeMetricFamily(PREFIX + "connections", "Open authenticated WebSocket connections.",
                                value=len(hub.clients))
        yield GaugeMetricFamily(PREFIX + "tables", "Tables running in this process.",
                                value=len(hub.tables))
        audits = audit_cache(hub)
        audit, age = audits.get()
        try:
            admin_counts = _admin_counts(hub) if audits.reachable else None
        except SQLAlchemyError:
            admin_counts = None
        yield GaugeMetricFamily(PREFIX + "database_up", "1 when this scrape could read the "
                                "database, else 0 (the ledger metrics are then the last "
                                "audit's, as old as ledger_audit_age_seconds says).",
                                value=0 if admin_counts is None else 1)
        if audit is None:
            return
        yield GaugeMetricFamily(PREFIX + "ledger_audit_age_seconds", "Age of the ledger audit "
                                "the ledger metrics show (reused for metrics_audit_seconds).",
                                value=age)
        yield GaugeMetricFamily(PREFIX + "ledger_audit_duration_seconds", "Wall time the last "
                                "ledger audit took.", value=audits.seconds)
        yield CounterMetricFamily(PREFIX + "ledger_audits", "Ledger audits run for /metrics.",
                                  value=audits.runs)
        ledger = GaugeMetricFamily(PREFIX + "ledger_silver", "Silver by part of the ledger: the "
                                   "players' balances, the house's, the total created (sources) "
                                   "and taken out (sinks).", labels=["part"])
        ledger.add_metric(["players"], audit.player_balances)
        ledger.add_metric(["house"], audit.house_balance)
        ledger.add_metric(["sources"], audit.total_sources)
        ledger.add_metric(["sinks"], audit.sinks)
        yield ledger
        sources = CounterMetricFamily(PREFIX + "ledger_source_silver", "Silver created, by source.",
                                      labels=["source"])
        for name, total in sorted(audit.sources.items()):
            sources.add_metric([name], total)
        yield sources
        admin = CounterMetricFamily(PREFIX + "admin_actions", "Administrator actions in the "
                                    "store's admin log (wuhan-mahjong admin), by action.",
                                    labels=["action"])
        for action, count in admin_counts or ():
            admin.add_metric([action], count)
        if admin_counts is not None:
            yield admin
        yield GaugeMetricFamily(PREFIX + "ledger_consistent", "1 when every ledger invariant holds "
                                "(the audit of docs/store.md), else 0.", value=1 if audit.ok else 0)


def _admin_counts(hub: Hub) -> list[tuple[str, int]]:
    from sqlalchemy import func, select

    from ..store.models import AdminActionRow

    with hub.store.engine.connect() as connection:
        rows = connection.execute(select(AdminActionRow.action, func.count())
                                  .group_by(AdminActionRow.action)).all()
    return sorted((str(action), int(count)) for action, count in rows)


def _hub(request: Request) -> Hub | None:
    hub: Hub | None = getattr(request.app.state, "hub", None)
    return hub


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


READY_TIMEOUT = 5.0
"""Seconds a readiness check may take before it counts as failed."""


async def readyz(request: Request) -> Response:
    hub = _hub(request)
    if hub is None:
        return JSONResponse({"status": "starting", "checks": {}}, status_code=503)
    checks: dict[str, str] = {}

    def ping_database() -> None:
        from sqlalchemy import text

        with hub.store.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    try:
        await asyncio.wait_for(asyncio.to_thread(ping_database), READY_TIMEOUT)
        checks["database"] = "ok"
    except Exception as e:
        checks["database"] = f"error: {type(e).__name__}: {e}".splitlines()[0][:200]
    redis_url = getattr(hub.config, "redis_url", None)
    if redis_url:
        try:
            import redis.asyncio as aioredis

            client = aioredis.from_url(redis_url)
            try:
                await asyncio.wait_for(client.ping(), READY_TIMEOUT)
            finally:
                await client.aclose()
            checks["redis"] = "ok"
        except Exception as e:
            checks["redis"] = f"error: {type(e).__name__}: {e}".splitlines()[0][:200]
    draining = bool(getattr(hub, "draining", False))
    busy = hub.admission.busy()  # saturated: the load balancer sends new sockets elsewhere
    ok = all(v == "ok" for v in checks.values()) and not draining and busy is None
    status = "ready" if ok else ("draining" if draining else "busy" if busy else "not ready")
    body: dict[str, object] = {"status": status, "checks": checks}
    if busy is not None:
        body["busy"] = busy
    return JSONResponse(body, status_code=200 if ok else 503)


async def metrics(request: Request) -> Response:
    hub = _hub(request)

    def scrape() -> bytes:
        text = generate_latest(REGISTRY)
        if hub is not None:
            app_registry = CollectorRegistry()
            app_registry.register(AppCollector(hub))
            text += generate_latest(app_registry)
        return text

    return Response(await asyncio.to_thread(scrape), media_type=CONTENT_TYPE_LATEST)


def observability_routes() -> list[Route]:
    """``/healthz``, ``/readyz`` and ``/metrics``."""
    return [Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"])]
