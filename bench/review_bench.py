"""The AI review (复盘): CPU per reviewed seat, against the replay frames of the same hand.

    python bench/review_bench.py [--hands 40] [--seed 1]

A review request (``server/review_api.py`` ``review_body``) replays a stored hand, asks the
expert at each decision of one seat that had an alternative, counts the marks and each
discard's 进张, then maps the decisions to the replay's frames.  The peer is what a replay
request costs for the same hand (``server/replays.py`` ``frames_body``: the frames built,
encoded and gzipped), timed in the same run on the same records: the review is the other
thing a player asks of a finished hand.  Hands of the expert playing all four seats (the
decisions a reviewed player meets), every profile; each seat of each hand reviewed once.

Reported per profile: the review's CPU ms per seat (median, p99, the largest), the frames'
CPU ms per hand, and the ratio of the medians.  CPU time is ``time.process_time`` (other
load on the shared machine cancels out), wall time beside it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.engine import Match
from wuhan_mahjong.engine.state import HandState
from wuhan_mahjong.engine.views import seat_view
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.server.replays import frames_body
from wuhan_mahjong.server.review_api import review_body
from wuhan_mahjong.store import HandRecord

PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")


def _records(profile: str, hands: int, seed: int) -> list[str]:
    """``hands`` hands of four experts, as record texts."""
    bots = [get_bot("expert", seed + k) for k in range(4)]

    def policy(state: HandState, seat: int):  # type: ignore[no-untyped-def]
        return bots[seat].choose(seat_view(state, seat))

    match = Match(get_rules(profile), hands, rng=random.Random(seed))
    match.run(policy)
    return ["\n".join(h.records) for h in match.history]


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=40, help="hands per profile")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("| profile | hands | review CPU ms per seat: median / p99 / max | wall ms median "
          "| frames CPU ms per hand: median | review ÷ frames (medians) |")
    print("|---|---|---|---|---|---|")
    for profile in PROFILES:
        texts = _records(profile, args.hands, args.seed)
        reviews: list[float] = []
        walls: list[float] = []
        frames: list[float] = []
        for n, text in enumerate(texts):
            record = HandRecord(match_id="bench", hand_no=n, commitment="", wall="", salt="",
                                events=text, seats={k: k for k in range(4)})
            cpu = time.process_time()
            frames_body(record)
            frames.append((time.process_time() - cpu) * 1000)
            for seat in range(4):
                cpu, wall = time.process_time(), time.perf_counter()
                review_body(text, seat)
                reviews.append((time.process_time() - cpu) * 1000)
                walls.append((time.perf_counter() - wall) * 1000)
        review_median = statistics.median(reviews)
        frames_median = statistics.median(frames)
        print(f"| {profile} | {len(texts)} | {review_median:.1f} / {_quantile(reviews, 0.99):.1f}"
              f" / {max(reviews):.1f} | {statistics.median(walls):.1f} | {frames_median:.1f} "
              f"| {review_median / frames_median:.1f}× |")


if __name__ == "__main__":
    main()
