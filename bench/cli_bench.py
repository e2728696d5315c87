"""Command start-up benchmark: ``wuhan-mahjong --help``, ``score`` and ``hand`` against
Python's own start-up (``python -c pass``), timed in the same run.

    python bench/cli_bench.py [--runs 20]

Each command runs ``--runs`` times as a new process (``python -m wuhan_mahjong ...``,
the same interpreter as the peer), the commands taking turns so that a busy machine
slows them all alike.  Wall time is the median per run (``time.perf_counter``);
CPU time is the child processes' user + system time per run (``resource.getrusage``
of the children; ``time.process_time`` of this process, printed too, only counts
the parent's own bookkeeping).  Ratios are against ``python -c pass``.  The last
row, importing the server stack, is for scale: what every command paid before the
commands were loaded lazily.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

SAMPLE = {
    "profile": "yuanhang", "dealer": 0, "indicator": "9p", "winner": 1, "win_by": "discard",
    "from": 2, "winning_tile": "5m",
    "seats": [{}, {"hand": "456p678s5m", "melds": [{"type": "chi", "tiles": "234m", "from": 0},
                                                   {"type": "peng", "tiles": "777s", "from": 3}]},
              {"melds": [{"type": "kong", "kind": "direct", "tiles": "8888p", "from": 0}],
               "kongs": {"red": 1}, "laizi_discards": 1}, {}],
}


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20, help="runs of each command (default 20)")
    args = ap.parse_args()

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(SAMPLE, f)
        record = f.name
    py = [sys.executable]
    cli = [*py, "-m", "wuhan_mahjong"]
    cases = {
        "python -c pass": [*py, "-c", "pass"],
        "wuhan-mahjong --help": [*cli, "--help"],
        "wuhan-mahjong --version": [*cli, "--version"],
        "wuhan-mahjong score FILE": [*cli, "score", record],
        "wuhan-mahjong hand ...": [*cli, "hand", "456p678s5m", "--indicator", "9p",
                                   "--meld", "chi:234m", "--meld", "peng:777s"],
        "wuhan-mahjong rules": [*cli, "rules"],
        "(import the server stack)": [*py, "-c", "import wuhan_mahjong.server.app, wuhan_mahjong.store"],
    }
    walls: dict[str, list[float]] = {k: [] for k in cases}
    cpus: dict[str, float] = dict.fromkeys(cases, 0.0)
    own_cpu = time.process_time()
    try:
        for _ in range(args.runs):
            for name, argv in cases.items():
                c0, t0 = child_cpu(), time.perf_counter()
                subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
                walls[name].append(time.perf_counter() - t0)
                cpus[name] += child_cpu() - c0
    finally:
        os.unlink(record)
    own_cpu = time.process_time() - own_cpu

    base_wall = statistics.median(walls["python -c pass"])
    base_cpu = cpus["python -c pass"] / args.runs
    print(f"{args.runs} runs each, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; "
          f"this process's own CPU (time.process_time) {own_cpu:.2f} s")
    print(f"{'command':<28} {'wall ms (median)':>16} {'CPU ms (mean)':>14} {'wall ×':>7} {'CPU ×':>6}")
    for name in cases:
        wall = statistics.median(walls[name])
        cpu = cpus[name] / args.runs
        print(f"{name:<28} {wall * 1000:>16.1f} {cpu * 1000:>14.1f} "
              f"{wall / base_wall:>7.1f} {cpu / base_cpu:>6.1f}")


if __name__ == "__main__":
    main()
