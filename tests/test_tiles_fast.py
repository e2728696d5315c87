"""The fast paths of the tile notation agree with the general ones: the grouped reader
(every view's hand and meld strings) with the regular-expression reader, and the
table-driven writer with its definition (kinds grouped by suit, ranks in order)."""

from __future__ import annotations

import random

from wuhan_mahjong import tiles
from wuhan_mahjong.tiles import TileError, format_tiles, parse_tiles


def _general(text: str) -> list[int] | str:
    try:
        return tiles._parse_general(text)
    except TileError as e:
        return str(e)


def _reference_format(ts: list[int]) -> str:
    by_suit: dict[int, list[int]] = {}
    for t in sorted(ts):
        by_suit.setdefault(t // 9, []).append(t % 9 + 1)
    return "".join("".join(map(str, r)) + tiles.SUITS[s] for s, r in sorted(by_suit.items()))


def test_grouped_reader_agrees_with_the_general_one() -> None:
    rng = random.Random(5)
    alphabet = "0123456789mpszx ,z9"
    taken = 0
    for n in range(6000):
        if n % 2:
            text = format_tiles(rng.randrange(34) for _ in range(rng.randrange(16)))
        else:
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        fast = tiles._grouped(text)
        if n % 2:
            assert fast is not None, text  # every string the writer makes takes the fast path
        if fast is not None:
            taken += 1
            assert fast == _general(text), text
        try:
            got: list[int] | str = parse_tiles(text)
        except TileError as e:
            got = str(e)
        assert got == _general(text), text
    assert taken > 3000


def test_writer_agrees_with_its_definition() -> None:
    rng = random.Random(6)
    for _ in range(3000):
        ts = [rng.randrange(34) for _ in range(rng.randrange(18))]
        assert format_tiles(ts) == _reference_format(ts)
        assert parse_tiles(format_tiles(ts)) == sorted(ts)
