"""Benchmark of the rules core: win checks and waits per second.

Run:  python3 bench/rules_bench.py [--hands 100000] [--seed 1]

On one fixed, seeded set of hands it times

* ``shape.is_complete`` (four sets and a pair) with 0, 1 and 2 laizi, on the
  packed integer form the engine keeps; and once more including the packing
  from a 34-count list, the form the peer library takes;
* the riichi ``mahjong`` library's ``Agari.is_agari`` on the same no-laizi
  hands (34-count lists), in the same process, and prints the ratio;
* ``shape.wait_mask`` (all waiting tiles of a 13-tile hand) and the rules-level
  ``analysis.waits`` (every legal win, with its big hands) for comparison.

Half of the hands are built from sets and a pair and then disturbed, so that
both answers are common; the other half are random draws from a full set.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from wuhan_mahjong import shape
from wuhan_mahjong.analysis import waits
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import all_tiles, counts_of


def make_hand(rng: random.Random, n: int) -> list[int]:
    if rng.random() < 0.5:
        wall = all_tiles()
        rng.shuffle(wall)
        return wall[:n]
    counts = [0] * 34
    tiles: list[int] = []
    while len(tiles) < n + 1:
        if rng.random() < 0.5:
            s = rng.randrange(3) * 9 + rng.randrange(7)
            group = [s, s + 1, s + 2]
        else:
            group = [rng.randrange(34)] * 3
        if all(counts[t] + group.count(t) <= 4 for t in group):
            for t in group:
                counts[t] += 1
            tiles += group
    tiles = tiles[:n - 2]
    p = rng.randrange(34)
    while counts[p] > 2:
        p = rng.randrange(34)
    tiles += [p, p]
    if rng.random() < 0.5:
        i = rng.randrange(n)
        t = rng.randrange(34)
        if tiles.count(t) < 4:
            tiles[i] = t
    return tiles


def timed(fn: Callable[[], int], repeat: int = 3) -> tuple[float, int]:
    best = float("inf")
    result = 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--waits-sample", type=int, default=2_000,
                    help="hands for the (slower) rules-level waits figure")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    n = args.hands

    print(f"rules core benchmark: {n:,} hands per set, seed {args.seed}")
    results: dict[str, float] = {}
    no_laizi_counts: list[list[int]] = []
    for wilds in (0, 1, 2):
        counts = [counts_of(make_hand(rng, 14 - wilds)) for _ in range(n)]
        packed = [shape.pack(c) for c in counts]
        if wilds == 0:
            no_laizi_counts = counts
        # warm the lazily filled suit tables once; steady state is what the engine sees
        wins = sum(shape.is_complete(h, wilds) for h in packed)
        secs, _ = timed(lambda p=packed, w=wilds, f=shape.is_complete: sum(1 for h in p if f(h, w)))
        results[f"win{wilds}"] = n / secs
        print(f"  win check, {wilds} laizi:  {n / secs:>12,.0f} /s   ({wins / n:.0%} winning)")

    pack, is_complete = shape.pack, shape.is_complete
    secs, _ = timed(lambda: sum(1 for c in no_laizi_counts if is_complete(pack(c), 0)))
    results["win0_from_list"] = n / secs
    print(f"  win check from a 34-list: {n / secs:>12,.0f} /s   (packing included)")

    try:
        from mahjong.agari import Agari
    except ImportError:  # pragma: no cover
        print("  riichi `mahjong` library not installed: pip install mahjong")
        peer = None
    else:
        agari = Agari()
        peer_n = min(n, 20_000)
        sample = no_laizi_counts[:peer_n]
        ours = sum(1 for c in sample if shape.is_complete(shape.pack(c), 0))
        theirs = sum(1 for c in sample if agari.is_agari(c))
        secs, _ = timed(lambda: sum(1 for c in sample if agari.is_agari(c)), repeat=2)
        peer = peer_n / secs
        print(f"  mahjong Agari.is_agari:   {peer:>12,.0f} /s   (agrees on {peer_n:,} hands: "
              f"{'yes' if ours == theirs else f'NO ({ours} vs {theirs})'})")
        print(f"  ratio, packed / is_agari:       {results['win0'] / peer:6.1f}x")
        print(f"  ratio, from 34-list / is_agari: {results['win0_from_list'] / peer:6.1f}x")

    for wilds in (0, 1):
        hands13 = [shape.pack(counts_of(make_hand(rng, 13 - wilds))) for _ in range(n)]
        ready = sum(1 for h in hands13 if shape.wait_mask(h, wilds))
        secs, _ = timed(lambda h13=hands13, w=wilds, f=shape.wait_mask: sum(1 for h in h13 if f(h, w)))
        results[f"waits{wilds}"] = n / secs
        print(f"  waits (shape), {wilds} laizi: {n / secs:>11,.0f} /s   ({ready / n:.0%} ready)")

    rules = get_rules()
    chi = [Meld("chi", (0, 1, 2), 3)]  # opened, so that every wait is a real candidate
    sample10 = [make_hand(rng, 10) for _ in range(args.waits_sample)]
    laizi = 33  # no laizi in these hands
    secs, found = timed(lambda: sum(len(waits(h, chi, laizi, rules)) for h in sample10), repeat=1)
    print(f"  waits (rules, readings):  {len(sample10) / secs:>12,.0f} /s   "
          f"({found / len(sample10):.2f} winning tiles per hand)")


if __name__ == "__main__":
    main()
