"""Where PostgreSQL's CPU goes in one group-commit batch of the match log (docs/cluster.md).

Eighty running matches in a fresh schema; each batch appends to 34 of them (one or two
events each, as at 80 tables flat out) through ``store.matchlog.append_many`` and commits.
Beside it, in the same run and the same backend, the statement's parts alone: the
guarded ``UPDATE`` of the matches, the ``INSERT`` of the events, and a bare round trip
with its commit (the peer every figure is a ratio to).  CPU is the backend process's own
(``/proc/PID/stat``), so the client's time does not count.

    python3 bench/matchlog_append_bench.py --db "$WUHAN_MAHJONG_TEST_PG" --batches 800
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import uuid

from sqlalchemy import Connection, create_engine, text
from sqlalchemy.orm import Session

from wuhan_mahjong.store import MatchEvent, open_store
from wuhan_mahjong.store.matchlog import MatchAppend, append_many


def backend_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", default=os.environ.get("WUHAN_MAHJONG_TEST_PG"))
    ap.add_argument("--batches", type=int, default=800)
    args = ap.parse_args()
    if not args.db or not args.db.startswith("postgresql"):
        print("error: --db must be a PostgreSQL URL (or set WUHAN_MAHJONG_TEST_PG)", file=sys.stderr)
        return 2
    schema = "bench_" + uuid.uuid4().hex[:8]
    with create_engine(args.db).begin() as c:
        c.execute(text(f"CREATE SCHEMA {schema}"))
    url = args.db + ("&" if "?" in args.db else "?") + f"options=-csearch_path%3D{schema}"
    try:
        store = open_store(url)
        ids = [f"m{i}" for i in range(80)]
        epochs = {m: store.open_match(m, "t" + m, "ab" * 32, {"profile": "yuanhang"}) for m in ids}
        nxt = dict.fromkeys(ids, 0)
        rng = random.Random(1)
        engine = create_engine(url)

        def events_for(m: str) -> list[MatchEvent]:
            k = rng.choice((1, 1, 2))
            evs = [MatchEvent(nxt[m] + j, 0, "act", seat=1, data='{"type":"discard","tile":"1m"}',
                              source="player") for j in range(k)]
            nxt[m] += k
            return evs

        def full(session: Session) -> None:
            appends = [MatchAppend(m, epochs[m], events_for(m)) for m in rng.sample(ids, 34)]
            assert all(isinstance(r, int) for r in append_many(session, appends))

        def update(conn: Connection) -> None:
            conn.execute(text("UPDATE matches m SET updated_at = now() FROM unnest(CAST(:ids AS text[])) "
                              "v(id) WHERE m.match_id = v.id"), {"ids": rng.sample(ids, 34)})

        def insert(conn: Connection) -> None:
            e_ids, e_seqs = [], []
            for m in rng.sample(ids, 34):
                for ev in events_for(m):
                    e_ids.append(m)
                    e_seqs.append(ev.seq)
            conn.execute(text(
                "INSERT INTO match_events (match_id, seq, hand_no, kind, seat, data, source, created_at) "
                "SELECT e.id, e.s, 0, 'act', 1, '{\"type\":\"discard\",\"tile\":\"1m\"}', 'player', now() "
                "FROM unnest(CAST(:a AS text[]), CAST(:b AS integer[])) e(id, s)"), {"a": e_ids, "b": e_seqs})

        def bare(conn: Connection) -> None:
            conn.execute(text("SELECT 1"))

        results: dict[str, tuple[float, float]] = {}
        with Session(engine) as session:
            pid = int(session.connection().execute(text("SELECT pg_backend_pid()")).scalar_one())
            session.commit()
            t0, w0 = backend_cpu(pid), time.perf_counter()
            for _ in range(args.batches):
                full(session)
                session.commit()
            results["append_many (34 appends)"] = (backend_cpu(pid) - t0, time.perf_counter() - w0)
        for name, part in (("its UPDATE alone", update), ("its INSERT alone", insert),
                           ("a bare round trip and commit", bare)):
            with engine.connect() as conn:
                pid = int(conn.execute(text("SELECT pg_backend_pid()")).scalar_one())
                conn.commit()
                t0, w0 = backend_cpu(pid), time.perf_counter()
                for _ in range(args.batches):
                    part(conn)
                    conn.commit()
                results[name] = (backend_cpu(pid) - t0, time.perf_counter() - w0)
        peer = results["a bare round trip and commit"][0] / args.batches
        print(f"{args.batches} batches; backend CPU per batch (ms), wall per batch (ms), "
              f"ratio to a bare round trip")
        for name, (cpu, wall) in results.items():
            per = cpu / args.batches
            print(f"  {name:32s} {1000 * per:6.3f} {1000 * wall / args.batches:7.3f} "
                  f"{per / peer if peer else float('nan'):6.1f}x")
    finally:
        with create_engine(args.db).begin() as c:
            c.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
