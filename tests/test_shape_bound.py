"""``shape.could_complete``: a cheap necessary condition of ``shape.is_complete``.

The engine asks it first whether a hand could win at all (one more laizi), so it must
never say no to a hand that completes; it should say no to most hands far from it.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wuhan_mahjong import shape
from wuhan_mahjong.tiles import all_tiles, counts_of, parse_tiles


def _near_complete(rng: random.Random, n: int) -> list[int]:
    """``n`` tiles built from sets and a pair (runs, triplets, honour pairs), a few swapped."""
    tiles: list[int] = []
    while len(tiles) < n + 3:
        if rng.random() < 0.5:
            s = rng.randrange(3) * 9 + rng.randrange(7)
            tiles += [s, s + 1, s + 2]
        else:
            tiles += [rng.randrange(34)] * rng.choice((2, 3))
    tiles = tiles[:n]
    for _ in range(rng.randrange(3)):
        tiles[rng.randrange(n)] = rng.randrange(34)
    counts = counts_of(tiles)
    return [t for t in range(34) for _ in range(min(4, counts[t]))]


HANDS = (st.integers(0, 2**32), st.integers(0, 5), st.booleans(), st.integers(0, 1))
"""A seed, the wilds, near a complete hand or not, fewer tiles or not."""


def check_never_rules_out(seed: int, wilds: int, near: bool, extra: int) -> None:
    rng = random.Random(seed)
    n = max(1, 14 - wilds - extra * rng.randrange(3))  # 3n+2 tiles with the wilds, or fewer
    if near:
        tiles = _near_complete(rng, n)
    else:
        wall = all_tiles()
        rng.shuffle(wall)
        tiles = wall[:n]
    h = shape.pack(counts_of(tiles))
    if shape.is_complete(h, wilds):
        assert shape.could_complete(h, wilds)


@settings(max_examples=250, deadline=None)
@given(*HANDS)
def test_never_rules_out_a_complete_hand(seed: int, wilds: int, near: bool, extra: int) -> None:
    check_never_rules_out(seed, wilds, near, extra)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(*HANDS)
def test_never_rules_out_a_complete_hand_thoroughly(seed: int, wilds: int, near: bool,
                                                    extra: int) -> None:
    check_never_rules_out(seed, wilds, near, extra)


@pytest.mark.parametrize("hands", [300, pytest.param(3000, marks=pytest.mark.slow)])
def test_every_complete_hand_of_a_sweep_passes(hands: int) -> None:
    """Complete hands with wilds standing in for removed tiles, all positions."""
    rng = random.Random(3)
    checked = 0
    for _ in range(hands):
        tiles = _near_complete(rng, 14)
        for wilds in range(4):
            for drop in range(len(tiles)):
                rest = tiles[:drop] + tiles[drop + wilds:]
                h = shape.pack(counts_of(rest))
                if shape.is_complete(h, wilds):
                    checked += 1
                    assert shape.could_complete(h, wilds), (rest, wilds)
    assert checked > hands // 3


def test_it_rules_out_scattered_hands() -> None:
    # seven isolated singles (1m 5m 9m 3p 7p 1z 2z) need far more than two wilds
    h = shape.pack(counts_of(parse_tiles("159m37p12z1s4s7s2s5s")))
    assert not shape.could_complete(h, 2)
    assert not shape.is_complete(h, 2)
    # an honour pair and a single: the pair is the eye, the single takes two wilds
    h = shape.pack(counts_of(parse_tiles("123m456p789s11z2z")))
    assert not shape.could_complete(h, 1) and shape.could_complete(h, 2)
    assert shape.is_complete(h, 2)
