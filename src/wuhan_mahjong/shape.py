"""Fast winning-shape checks with laizi (wild tiles), by per-suit tables.

A hand's concealed tiles (without the wild laizi) are packed into one integer,
three bits per tile kind: 万 in bits 0-26, 筒 27-53, 条 54-80, honours 81-101.
For each suit slice, a memoised table gives the fewest wilds needed to turn
that suit's tiles into

* ``SETS``: sets only (runs 123 / triplets 111),
* ``PAIR``: sets plus one pair (any pair),
* ``PAIR258``: sets plus one pair of a suited 2, 5 or 8,
* ``PSETS`` / ``PPAIR``: triplets only, without / with one pair (碰碰胡 shape).

A hand completes with ``w`` wilds exactly when, choosing the suit that holds
the pair, the sum of the needs is at most ``w`` (the wilds left over always
form whole sets of their own, because the tile count is 3n+2).  A wild may
stand for any tile, including a fifth copy.

The tables fill lazily: a suit slice is solved by a small recursive search the
first time it is seen and looked up afterwards.

>>> from wuhan_mahjong.tiles import parse_tiles, counts_of
>>> h = pack(counts_of(parse_tiles("123m456p789s11122z")))
>>> is_complete(h, 0), is_complete(h - (1 << 81), 1), is_complete(h - (1 << 81), 0)
(True, True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Final

INF: Final = 99
SETS, PAIR, PAIR258, PSETS, PPAIR = range(5)
MASK9: Final = (1 << 27) - 1
MASK7: Final = (1 << 21) - 1
SUIT_SHIFT: Final = (0, 27, 54, 81)
_IS258: Final = (False, True, False, False, True, False, False, True, False)


def pack(counts: Sequence[int]) -> int:
    """Pack a 34-entry count vector into the integer form used by the tables."""
    h = 0
    for i, n in enumerate(counts):
        if n:
            h |= n << (3 * i)
    return h


def unpack(h: int) -> list[int]:
    return [(h >> (3 * i)) & 7 for i in range(34)]


@cache
def _need(c: tuple[int, ...], runs: bool, pair: int) -> int:
    """Fewest wilds to complete one suit's counts ``c``.

    ``pair``: 0 = sets only, 1 = sets and one pair, 2 = sets and one 2/5/8 pair.
    """
    i = next((k for k, n in enumerate(c) if n), -1)
    if i < 0:
        if pair == 0:
            return 0
        return 2 if pair == 1 or runs else INF
    n = c[i]
    best = INF
    lst = list(c)
    # a triplet of tile i, holding 1-3 real copies
    for k in range(1, min(n, 3) + 1):
        lst[i] = n - k
        best = min(best, 3 - k + _need(tuple(lst), runs, pair))
    lst[i] = n
    # the pair, holding 1-2 real copies of tile i
    if pair == 1 or (pair == 2 and runs and _IS258[i]):
        for k in range(1, min(n, 2) + 1):
            lst[i] = n - k
            best = min(best, 2 - k + _need(tuple(lst), runs, 0))
        lst[i] = n
    # a run containing tile i (tiles below i are absent, so they would be wilds)
    if runs:
        for s in range(max(0, i - 2), min(i, 6) + 1):
            used = [j for j in range(s, s + 3) if j >= i and lst[j]]
            for j in used:
                lst[j] -= 1
            best = min(best, 3 - len(used) + _need(tuple(lst), runs, pair))
            for j in used:
                lst[j] += 1
    return min(best, INF)


class _SuitTable(dict[int, tuple[int, int, int, int, int]]):
    """key (packed suit slice) -> (SETS, PAIR, PAIR258, PSETS, PPAIR) needs, filled on demand."""

    def __init__(self, size: int, runs: bool) -> None:
        super().__init__()
        self.size = size
        self.runs = runs

    def __missing__(self, key: int) -> tuple[int, int, int, int, int]:
        c = tuple((key >> (3 * i)) & 7 for i in range(self.size))
        v = (
            _need(c, self.runs, 0),
            _need(c, self.runs, 1),
            _need(c, self.runs, 2),
            _need(c, False, 0),
            _need(c, False, 1),
        )
        self[key] = v
        return v


SUITED: Final = _SuitTable(9, True)
HONOURS: Final = _SuitTable(7, False)


def suit_entries(h: int) -> tuple[tuple[int, ...], ...]:
    """The four table rows (万, 筒, 条, honours) of a packed hand."""
    return (SUITED[h & MASK9], SUITED[(h >> 27) & MASK9], SUITED[(h >> 54) & MASK9],
            HONOURS[h >> 81])


def need(h: int, mode: int = PAIR) -> int:
    """Fewest wilds that complete packed hand ``h`` (3n+2 tiles with the wilds).

    ``mode``: ``PAIR`` standard shape, ``PAIR258`` standard shape with a 2/5/8
    pair, ``PPAIR`` all triplets and a pair.
    """
    sets = SETS if mode != PPAIR else PSETS
    e = suit_entries(h)
    total = e[0][sets] + e[1][sets] + e[2][sets] + e[3][sets]
    return min(total + min(x[mode] - x[sets] for x in e), INF)


def is_complete(h: int, wilds: int = 0) -> bool:
    """Whether the concealed tiles ``h`` plus ``wilds`` laizi form four-sets-and-a-pair.

    The hot path of the engine and the benchmark: eight table lookups.
    """
    a = SUITED[h & MASK9]
    b = SUITED[(h >> 27) & MASK9]
    c = SUITED[(h >> 54) & MASK9]
    d = HONOURS[h >> 81]
    s = a[0] + b[0] + c[0] + d[0]
    return s + min(a[1] - a[0], b[1] - b[0], c[1] - c[0], d[1] - d[0]) <= wilds


def wait_mask(h: int, wilds: int, mode: int = PAIR) -> int:
    """Bit t set when adding one tile of kind t to ``h`` (3n+1 tiles) completes it.

    Uses the suit tables once per suit and kind: no full re-check per tile.
    """
    sets = SETS if mode != PPAIR else PSETS
    e = suit_entries(h)
    s_all = e[0][sets] + e[1][sets] + e[2][sets] + e[3][sets]
    out = 0
    for suit in range(4):
        shift = SUIT_SHIFT[suit]
        size = 9 if suit < 3 else 7
        table = SUITED if suit < 3 else HONOURS
        mask = MASK9 if suit < 3 else MASK7
        own = e[suit]
        s_other = s_all - own[sets]
        d_other = min((x[mode] - x[sets] for k, x in enumerate(e) if k != suit), default=INF)
        key = (h >> shift) & mask
        for r in range(size):
            if (key >> (3 * r)) & 7 >= 4:
                # a fifth real copy cannot be drawn; only a wild could stand for it
                continue
            row = table[key + (1 << (3 * r))]
            if (s_other + row[sets] + min(d_other, row[mode] - row[sets])) <= wilds:
                out |= 1 << (suit * 9 + r)
    return out
