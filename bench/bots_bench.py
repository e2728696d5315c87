"""Bot benchmarks: the targets of docs/bots.md, run as arena matches.

    nice python3 bench/bots_bench.py                  # everything, 4,000 hands each
    nice python3 bench/bots_bench.py --hands 400 --only speed greedy-random

Each pairing is an arena run (duplicate deals, 95% intervals over deals); the
results are printed and written as JSON lines to ``--out`` (default
``bench/bots_results.jsonl``).  Not a test: it takes tens of minutes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from wuhan_mahjong.bots.arena import run_arena
from wuhan_mahjong.rules import PROFILES, get_rules

PAIRINGS = {
    "greedy-random": ["greedy", "random", "random", "random"],
    "expert-greedy": ["expert", "greedy", "greedy", "greedy"],
    "speed": ["greedy", "greedy", "greedy", "greedy"],
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--hands", type=int, default=4000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--profiles", default=",".join(sorted(PROFILES)))
    p.add_argument("--only", nargs="*", default=list(PAIRINGS), choices=list(PAIRINGS))
    p.add_argument("--out", default=str(Path(__file__).with_name("bots_results.jsonl")))
    args = p.parse_args(argv)
    with open(args.out, "a", encoding="utf-8") as out:
        for name in args.only:
            for profile in args.profiles.split(","):
                hands = args.hands if name != "speed" else min(args.hands, 400)
                jobs = args.jobs if name != "speed" else 1
                t0 = time.time()
                rep = run_arena(get_rules(profile), PAIRINGS[name], hands, args.seed, jobs=jobs,
                                progress=sys.stderr if sys.stderr.isatty() else None)
                print(f"== {name} ({profile}, {hands} hands, seed {args.seed}, jobs {jobs})")
                print(rep.text(), flush=True)
                j = rep.to_json()
                j["pairing"] = name
                j["jobs"] = jobs
                j["started"] = t0
                out.write(json.dumps(j) + "\n")
                out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
