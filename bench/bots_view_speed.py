"""Arena hands per CPU second with the in-process integer view against the JSON view.

    nice python3 bench/bots_view_speed.py --deals 100

Four greedy seats play the same deals twice in one process: once handed the JSON
seat view (``seat_view``: tiles formatted as strings, parsed back by the bot; the
arena's only path before the typed view existed) and once the typed in-process
view (``int_view``: the engine's integers).  The games are identical (checked);
the ratio is the speed-up.  CPU time is ``time.process_time``; wall time is
printed beside it.  Not a test.
"""

from __future__ import annotations

import argparse
import time

from wuhan_mahjong.bots.arena import BotPool, play_group
from wuhan_mahjong.rules import PROFILES, get_rules


def _run(profile: str, deals: int, int_views: bool, seats: list[str]
         ) -> tuple[float, float, list[tuple[int, ...]], int]:
    rules = get_rules(profile)
    pool = BotPool()
    c0, w0 = time.process_time(), time.perf_counter()
    deltas = []
    for g in range(deals):
        deltas += [h.deltas for h in play_group(rules, seats, 1, g, pool, int_views=int_views)]
    return time.process_time() - c0, time.perf_counter() - w0, deltas, len(deltas)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seats", default="greedy,greedy,greedy,greedy")
    p.add_argument("--profiles", default=",".join(sorted(PROFILES)))
    args = p.parse_args()
    seats = args.seats.split(",")
    print(f"{'profile':<16}{'view':<6}{'hands':>6}{'CPU s':>8}{'wall s':>8}"
          f"{'hands/CPU s':>13}{'ratio':>7}")
    for profile in args.profiles.split(","):
        jc, jw, jd, n = _run(profile, args.deals, False, seats)
        ic, iw, idl, _ = _run(profile, args.deals, True, seats)
        assert jd == idl, "the two views played different games"
        print(f"{profile:<16}{'json':<6}{n:>6}{jc:>8.2f}{jw:>8.2f}{n / jc:>13.1f}{1.0:>7.2f}")
        print(f"{profile:<16}{'int':<6}{n:>6}{ic:>8.2f}{iw:>8.2f}{n / ic:>13.1f}{jc / ic:>7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
