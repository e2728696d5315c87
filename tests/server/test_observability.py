"""Health, readiness, Prometheus metrics and the event log (issue 14: observability).

Metrics are scraped over HTTP from a real server before and after a played hand,
and parsed with prometheus_client's own parser; counters are compared as deltas
(they are process-wide, and other tests' servers run in this process too).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from wuhan_mahjong.server.observability import JsonFormatter, emit

from .harness import Server, StartServer, free_port, guest_token, play, register, seat_four

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(server: Server) -> Samples:
    r = httpx.get(f"{server.http}/metrics", timeout=30)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    out: Samples = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def total(samples: Samples, name: str, **labels: str) -> float:
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= set(ls))


def test_health_and_readiness(server: Server) -> None:
    r = httpx.get(f"{server.http}/healthz", timeout=10)
    assert r.status_code == 200 and r.json() == {"status": "ok"}
    r = httpx.get(f"{server.http}/readyz", timeout=10)
    assert r.status_code == 200 and r.json() == {"status": "ready", "checks": {"database": "ok"}}


def test_not_ready_while_the_database_is_away(server: Server) -> None:
    url = server.store.engine.url
    if url.get_backend_name() != "sqlite":
        pytest.skip("the SQLite file is moved away; a PostgreSQL server is not stopped here")
    folder = Path(str(url.database)).parent
    away = folder.with_name(folder.name + "-away")
    folder.rename(away)
    server.store.engine.dispose()  # pooled connections would still reach the moved file
    try:
        r = httpx.get(f"{server.http}/readyz", timeout=30)
        assert r.status_code == 503
        body = r.json()
        assert body["status"] == "not ready" and body["checks"]["database"].startswith("error: ")
        assert httpx.get(f"{server.http}/healthz", timeout=10).status_code == 200  # alive all the same
    finally:
        away.rename(folder)
    assert httpx.get(f"{server.http}/readyz", timeout=30).status_code == 200


def test_metrics_after_a_played_hand(start_server: StartServer) -> None:
    server = start_server(metrics_audit_seconds=0.0)  # the ledger metrics of this moment
    before = scrape(server)
    assert all(name.startswith(("wuhan_mahjong_", "process_", "python_")) for name, _ in before)
    tokens = [guest_token(server) for _ in range(4)]

    async def scenario() -> None:
        clients = await seat_four(server, tokens, hands=1)
        ends = await asyncio.gather(*(play(c, seed=i) for i, c in enumerate(clients)))
        assert len({e["match_id"] for e in ends}) == 1
        # still connected while scraped
        during = await asyncio.to_thread(scrape, server)
        assert total(during, "wuhan_mahjong_connections") == 4
        for c in clients:
            await c.close()

    asyncio.run(scenario())
    after = scrape(server)

    def delta(name: str, **labels: str) -> float:
        return total(after, name, **labels) - total(before, name, **labels)

    assert delta("wuhan_mahjong_hands_total") == 1
    assert delta("wuhan_mahjong_settlements_total", kind="hand") == 1
    assert delta("wuhan_mahjong_matches_started_total") == 1
    assert delta("wuhan_mahjong_matches_ended_total", how="finished") == 1
    assert delta("wuhan_mahjong_table_errors_total") == 0
    assert delta("wuhan_mahjong_settlement_errors_total") == 0
    assert delta("wuhan_mahjong_frame_latency_seconds_count") > 10  # every state frame
    assert delta("wuhan_mahjong_frame_latency_seconds_sum") > 0
    audit = server.store.audit()
    assert total(after, "wuhan_mahjong_ledger_consistent") == 1 and audit.ok
    assert total(after, "wuhan_mahjong_ledger_silver", part="players") == audit.player_balances
    assert total(after, "wuhan_mahjong_ledger_silver", part="sources") == audit.total_sources
    assert total(after, "wuhan_mahjong_ledger_source_silver_total") == audit.total_sources


def test_metrics_reuse_the_ledger_audit(start_server: StartServer) -> None:
    """``/metrics`` runs the ledger audit (a scan of the whole ledger) at most once per
    ``metrics_audit_seconds``, however often it is scraped, and says how old it is; at 0
    every scrape runs one and shows the ledger of that moment."""
    server = start_server(metrics_audit_seconds=3600.0)
    first = scrape(server)
    assert total(first, "wuhan_mahjong_ledger_audits_total") == 1
    guest_token(server)  # a sign-up grant: the ledger changes
    for _ in range(5):
        again = scrape(server)
    assert total(again, "wuhan_mahjong_ledger_audits_total") == 1  # reused, not run again
    assert total(again, "wuhan_mahjong_ledger_audit_age_seconds") >= total(
        first, "wuhan_mahjong_ledger_audit_age_seconds")
    assert total(again, "wuhan_mahjong_ledger_silver", part="sources") == total(
        first, "wuhan_mahjong_ledger_silver", part="sources")  # what the audit saw then
    assert total(again, "wuhan_mahjong_ledger_consistent") == 1

    live = start_server(metrics_audit_seconds=0.0)
    for n in range(1, 4):
        samples = scrape(live)
        assert total(samples, "wuhan_mahjong_ledger_audits_total") == n
        assert total(samples, "wuhan_mahjong_ledger_silver", part="sources") == (
            live.store.audit().total_sources)
        guest_token(live)


def test_login_failure_is_an_event_and_a_metric(server: Server, caplog: pytest.LogCaptureFixture) -> None:
    register(server, "obsuser")
    before = total(scrape(server), "wuhan_mahjong_login_failures_total")
    with caplog.at_level(logging.INFO, logger="wuhan_mahjong.events"):
        r = httpx.post(f"{server.http}/api/login", json={"username": "obsuser", "password": "wrong-pass-1"},
                       timeout=10)
        assert r.status_code == 401
    assert total(scrape(server), "wuhan_mahjong_login_failures_total") - before == 1
    [record] = [r for r in caplog.records if getattr(r, "event", None) == "login_failure"]
    assert record.fields["username"] == "obsuser" and record.fields["address"] == "127.0.0.1"  # type: ignore[attr-defined]
    line = json.loads(JsonFormatter().format(record))
    assert line["event"] == "login_failure" and line["username"] == "obsuser"
    assert line["level"] == "warning" and line["logger"] == "wuhan_mahjong.events"


def test_admin_actions_are_counted_from_the_admin_log(server: Server) -> None:
    from wuhan_mahjong.store.admin import Admin

    register(server, "obsgrant")
    before = total(scrape(server), "wuhan_mahjong_admin_actions_total", action="grant")
    Admin(server.store, "ops").grant("obsgrant", 50, "test")  # as `wuhan-mahjong admin grant` does
    assert total(scrape(server), "wuhan_mahjong_admin_actions_total", action="grant") == before + 1


def test_match_events_carry_their_ids(server: Server, caplog: pytest.LogCaptureFixture) -> None:
    tokens = [guest_token(server) for _ in range(4)]

    async def scenario() -> str:
        clients = await seat_four(server, tokens, hands=1)
        ends = await asyncio.gather(*(play(c, seed=i) for i, c in enumerate(clients)))
        for c in clients:
            await c.close()
        match_id: str = ends[0]["match_id"]
        return match_id

    with caplog.at_level(logging.INFO, logger="wuhan_mahjong.events"):
        match_id = asyncio.run(scenario())
    events = [(r.event, r.fields) for r in caplog.records  # type: ignore[attr-defined]
              if getattr(r, "event", None) and r.fields.get("match_id") == match_id]  # type: ignore[attr-defined]
    kinds = [e for e, _ in events]
    assert kinds == ["match_start", "settlement", "match_end"], kinds
    start, settlement, end = (f for _, f in events)
    assert len(start["accounts"]) == 4 and start["profile"] == "yuanhang"
    assert settlement["kind"] == "hand" and settlement["hand_no"] == 0
    assert sorted(settlement["deltas"]) == sorted(start["accounts"])
    assert sum(settlement["deltas"].values()) == 0
    assert end["how"] == "finished" and sum(end["totals"]) == 0


def test_json_formatter_writes_one_object_per_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="wuhan_mahjong.events"):
        emit("admin_action", action="grant", account_id=7, amount=100, note="新年 bonus")
    records = [r for r in caplog.records if getattr(r, "event", None) == "admin_action"]
    text = JsonFormatter().format(records[-1])
    assert "\n" not in text
    line = json.loads(text)
    assert {k: line[k] for k in ("event", "action", "account_id", "amount", "note")} == {
        "event": "admin_action", "action": "grant", "account_id": 7, "amount": 100, "note": "新年 bonus"}
    assert line["time"].endswith("+00:00")


def test_serve_writes_json_event_lines(tmp_path: Path) -> None:
    """``wuhan-mahjong serve --log-format json``: the event log as JSON lines on stderr."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("WUHAN_MAHJONG_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "wuhan_mahjong", "serve", "--port", str(port), "--data-dir",
         f"{tmp_path}/d", "--log-format", "json", "--log-level", "info"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        for _ in range(600):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                assert proc.poll() is None
                time.sleep(0.1)
        r = httpx.post(f"http://127.0.0.1:{port}/api/login",
                       json={"username": "nobody", "password": "wrong-pass-1"}, timeout=10)
        assert r.status_code == 401
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    lines = [json.loads(line) for line in err.splitlines() if line.strip()]  # every line is JSON
    assert any(x["logger"].startswith("uvicorn") for x in lines)  # uvicorn's own lines too
    failures = [x for x in lines if x.get("event") == "login_failure"]
    assert len(failures) == 1 and failures[0]["username"] == "nobody", err[-2000:]
