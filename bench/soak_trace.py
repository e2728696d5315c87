"""Run ``wuhan-mahjong`` with a memory census: the soak benchmark's ``--trace`` helper.

Run:  python3 bench/soak_trace.py OUT.txt serve [serve options]

Every ``SOAK_TRACE_INTERVAL`` seconds (default 30) a thread writes to ``OUT.txt``:

* the process RSS and the number of objects the collector tracks;
* the memory outside Python's objects: SQLite's (``sqlite3_memory_used``: page caches,
  prepared statements), glibc malloc's in use and free-but-kept bytes (``mallinfo2``),
  Python's allocated blocks and the number of threads;
* the object counts by type that grew most since the first census after warm-up
  (``SOAK_TRACE_WARMUP``, default 60 s);
* the size of every container held by the project's code: the module-level dicts,
  lists and sets of ``wuhan_mahjong.*`` (memo caches) and the container attributes of
  its objects (the hub's, the lobby's, the limiters' ...), summed per class and
  attribute, with the number of instances of each class.  A structure that grows
  without a bound shows up here by name.

``SOAK_TRACE_FRAMES=N`` also starts :mod:`tracemalloc` with N frames and lists the
allocation sites that grew most; it slows the server several times over (a snapshot of
a busy server takes tens of seconds), so it is off by default.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import gc
import os
import sys
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

from wuhan_mahjong.cli import main as cli_main

_SIZED = (dict, list, set, frozenset, collections.deque)


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def _native() -> str:
    """Memory outside Python's objects: SQLite's own (page caches, statements), glibc
    malloc's in use and free-but-kept bytes (all arenas), Python's allocated blocks."""
    parts = []
    with contextlib.suppress(OSError, AttributeError):
        lib = ctypes.CDLL("libsqlite3.so.0")  # the library the sqlite3 module uses
        lib.sqlite3_memory_used.restype = ctypes.c_int64
        parts.append(f"sqlite={lib.sqlite3_memory_used() / 2**20:.1f} MiB")
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
        m = libc.mallinfo2()
        parts.append(f"malloc in use={m.uordblks / 2**20:.1f} MiB free={m.fordblks / 2**20:.1f} "
                     f"MiB mmapped={m.hblkhd / 2**20:.1f} MiB")
    parts.append(f"python blocks={sys.getallocatedblocks()} threads={threading.active_count()}")
    return " ".join(parts)


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def census() -> tuple[collections.Counter[str], collections.Counter[str]]:
    """(objects by type, container lengths by ``module.Class.attr`` or ``module.NAME``)."""
    types: collections.Counter[str] = collections.Counter()
    sizes: collections.Counter[str] = collections.Counter()
    for obj in gc.get_objects():
        cls = type(obj)
        types[cls.__qualname__] += 1
        module = cls.__dict__.get("__module__")
        if not isinstance(module, str) or not module.startswith("wuhan_mahjong"):
            continue
        where = f"{module}.{cls.__qualname__}"
        sizes[where + " (instances)"] += 1
        attrs: Any = getattr(obj, "__dict__", None)
        for name, value in (attrs or {}).items():
            if isinstance(value, _SIZED):
                sizes[f"{where}.{name}"] += len(value)
    for modname, module in list(sys.modules.items()):
        if modname.startswith("wuhan_mahjong"):
            for name, value in list(vars(module).items()):
                if isinstance(value, _SIZED) and not name.startswith("__"):
                    sizes[f"{modname}.{name}"] += len(value)
                elif callable(getattr(value, "cache_info", None)):
                    with contextlib.suppress(Exception):  # functools.cache / lru_cache
                        sizes[f"{modname}.{name}()"] += value.cache_info().currsize
    return types, sizes


def _grown(now: collections.Counter[str], base: collections.Counter[str], top: int) -> str:
    diffs = sorted(((now[k] - base.get(k, 0), k) for k in now), reverse=True)
    return ", ".join(f"{k} {d:+d} (={now[k]})" for d, k in diffs[:top] if d > 0)


def _tracer(out: Path, interval: float, warmup: float, frames: int) -> None:
    start = time.monotonic()
    base: tuple[collections.Counter[str], collections.Counter[str]] | None = None
    snap0: tracemalloc.Snapshot | None = None
    with out.open("w") as f:
        while True:
            time.sleep(interval)
            gc.collect()
            try:
                types, sizes = census()
            except Exception as e:  # a census must not end the tracing
                f.write(f"\ncensus failed: {e!r}\n")
                f.flush()
                continue
            t = time.monotonic() - start
            f.write(f"\n=== t={t:.0f}s rss={_rss_mib():.1f} MiB objects={sum(types.values())}\n")
            f.write(_native() + "\n")
            snap = tracemalloc.take_snapshot() if frames else None
            if base is None:
                if t >= warmup:
                    base, snap0 = (types, sizes), snap
                    f.write("(baseline) largest project containers: " + ", ".join(
                        f"{k} {n}" for k, n in sizes.most_common(25)) + "\n")
                f.flush()
                continue
            f.write("objects grown: " + _grown(types, base[0], 25) + "\n")
            f.write("project containers grown: " + _grown(sizes, base[1], 25) + "\n")
            if snap is not None and snap0 is not None:
                for stat in snap.compare_to(snap0, "traceback")[:10]:
                    f.write(f"{stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks "
                            + " <- ".join(str(fr) for fr in stat.traceback) + "\n")
            f.flush()


def main() -> int:
    out = Path(sys.argv[1])
    frames = int(os.environ.get("SOAK_TRACE_FRAMES", "0"))
    if frames:
        tracemalloc.start(frames)
    interval = float(os.environ.get("SOAK_TRACE_INTERVAL", "30"))
    warmup = float(os.environ.get("SOAK_TRACE_WARMUP", "60"))
    threading.Thread(target=_tracer, args=(out, interval, warmup, frames), daemon=True).start()
    return cli_main(sys.argv[2:]) or 0


if __name__ == "__main__":
    sys.exit(main())
