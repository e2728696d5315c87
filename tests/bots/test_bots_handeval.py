"""The bots' fast evaluator agrees with the rules core's exact shanten."""

from __future__ import annotations

import random

import pytest

from wuhan_mahjong.analysis import shanten
from wuhan_mahjong.bots.handeval import Evaluator, hand_counts
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tile, parse_tiles


def _random_case(rng: random.Random) -> tuple[list[int], list[Meld], int]:
    pool = [t for t in range(33) for _ in range(4)]
    rng.shuffle(pool)
    melds: list[Meld] = []
    for _ in range(rng.randrange(4)):
        if rng.random() < 0.5:
            t = rng.randrange(34 if rng.random() < 0.2 else 27)
            t = min(t, 32)
            melds.append(Meld("peng", (t, t, t), 1))
        else:
            s = rng.randrange(3) * 9 + rng.randrange(7)
            melds.append(Meld("chi", (s, s + 1, s + 2), 1))
    n = 14 - 3 * len(melds) - rng.randrange(2)
    return pool[:n], melds, rng.randrange(33)


def test_matches_analysis_shanten() -> None:
    rules = get_rules()
    rng = random.Random(2024)
    for _ in range(600):
        hand, melds, laizi = _random_case(rng)
        counts, wilds = hand_counts(hand, laizi)
        ev = Evaluator(counts, wilds, melds, (33,))
        assert ev.best()[0] == shanten(hand, melds, laizi, rules), (hand, melds, laizi)


def test_what_if_queries_match_rebuilding() -> None:
    rng = random.Random(7)
    for _ in range(150):
        hand, melds, laizi = _random_case(rng)
        counts, wilds = hand_counts(hand, laizi)
        ev = Evaluator(counts, wilds, melds, (33,))
        for t in range(33):
            if t == laizi:
                continue
            if counts[t]:
                assert ev.shanten_after(t, -1) == ev.with_tile(t, -1).best()[0]
            if counts[t] < 4:
                assert ev.shanten_after(t, 1) == ev.with_tile(t, 1).best()[0]


def test_targets_and_acceptance() -> None:
    counts, wilds = hand_counts(parse_tiles("1112345678999m"), laizi=33)
    ev = Evaluator(counts, wilds, (), (33,))
    assert ev.shanten("qys") == 0 and ev.shanten("pph") >= 1
    unseen = [4] * 34
    for t in parse_tiles("1112345678999m"):
        unseen[t] -= 1
    tiles, kinds = ev.acceptance(unseen, laizi=33, target="qys0")
    assert kinds == 9 and tiles == sum(unseen[:9])  # 九莲宝灯 waits on every 万


def test_removing_a_tile_the_hand_does_not_hold_is_refused() -> None:
    """The laizi is held as a wild, not as a count: asking to discard it (or any absent
    tile) once recursed without end; it is a ValueError now."""
    laizi = parse_tile("9m")
    counts, wilds = hand_counts(parse_tiles("13355m799p33479s9m"), laizi)
    ev = Evaluator(counts, wilds, [], ())
    with pytest.raises(ValueError, match="holds no tile"):
        ev.shanten_after(laizi, -1)
    with pytest.raises(ValueError, match="holds no tile"):
        ev.with_tile(parse_tile("2p"), -1)
    assert ev.shanten_after(parse_tile("7p"), -1) >= 0
