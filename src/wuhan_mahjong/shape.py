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
>>> is_complete(h, 0), is_complete(h - tile_bit(27), 1), is_complete(h - tile_bit(27), 0)
(True, True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

INF: Final = 99
# positions in a table row; DELTA = PAIR - SETS, kept for the hot path
SETS, DELTA, PAIR, PAIR258, PSETS, PPAIR = range(6)
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


def tile_bit(t: int) -> int:
    """The packed form of one tile of kind ``t``: add it to (or subtract it from) a
    packed hand to keep the packed form up to date without repacking."""
    return 1 << (3 * t)


MEMO_LIMIT: Final = 1 << 13
"""Entries a memo table of this module (and of ``analysis``, ``bots.handeval``) keeps.

The memos are keyed by one suit's counts: about 1.3 million possible keys, ~0.5-1 KiB
each, so a memo that kept everything would grow for days in a long-running server
(the soak benchmark, docs/server.md).  A full table starts over (or drops its least
recently used entries); the hot keys of the hands in play come back at once."""


@lru_cache(maxsize=MEMO_LIMIT)
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


Row = tuple[int, int, int, int, int, int]


class _SuitTable(dict[int, Row]):
    """key (packed suit slice) -> (SETS, DELTA, PAIR, PAIR258, PSETS, PPAIR), filled on demand."""

    def __init__(self, size: int, runs: bool) -> None:
        super().__init__()
        self.size = size
        self.runs = runs

    def __missing__(self, key: int) -> Row:
        c = tuple((key >> (3 * i)) & 7 for i in range(self.size))
        sets, pair = _need(c, self.runs, 0), _need(c, self.runs, 1)
        v = (sets, pair - sets, pair, _need(c, self.runs, 2), _need(c, False, 0),
             _need(c, False, 1))
        if len(self) >= MEMO_LIMIT:
            self.clear()
        self[key] = v
        return v


SUITED: Final = _SuitTable(9, True)
HONOURS: Final = _SuitTable(7, False)


def suit_entries(h: int) -> tuple[Row, Row, Row, Row]:
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


def is_complete(h: int, wilds: int = 0, _s: _SuitTable = SUITED, _h: _SuitTable = HONOURS,
                _m: int = MASK9) -> bool:
    """Whether the concealed tiles ``h`` plus ``wilds`` laizi form four-sets-and-a-pair.

    The hot path of the engine and the benchmark: four table lookups, the sum of
    the set needs and the smallest extra cost of holding the pair.
    """
    a = _s[h & _m]
    b = _s[h >> 27 & _m]
    c = _s[h >> 54 & _m]
    d = _h[h >> 81]
    x = a[1]
    y = b[1]
    if y < x:
        x = y
    y = c[1]
    if y < x:
        x = y
    y = d[1]
    if y < x:
        x = y
    return a[0] + b[0] + c[0] + d[0] + x <= wilds


_ONES3: Final = sum(1 << (3 * t) for t in range(34))
_SUITED3: Final = sum(1 << (3 * t) for t in range(27))
_HONOURS3: Final = _ONES3 & ~_SUITED3
_RANK_GE1: Final = sum(1 << (3 * t) for t in range(27) if t % 9 >= 1)
_RANK_GE2: Final = sum(1 << (3 * t) for t in range(27) if t % 9 >= 2)
_RANK_LE7: Final = sum(1 << (3 * t) for t in range(27) if t % 9 <= 7)
_RANK_LE6: Final = sum(1 << (3 * t) for t in range(27) if t % 9 <= 6)


def could_complete(h: int, wilds: int) -> bool:
    """A cheap necessary condition of :func:`is_complete` without a table lookup: ``False``
    when the isolated tiles of ``h`` alone need more than ``wilds`` wilds.

    A suited single with no other tile of its suit within two ranks, or an honour single,
    shares a group with wilds only: it takes two (a set) or one (as the pair).  An honour
    pair takes one (a triplet) unless it is the pair.  Only one group is the pair, so
    ``s`` such singles and ``p`` such pairs need at least ``2s + p - 1`` wilds.  It rules
    out most hands far from complete (the engine asks it first whether a hand could win
    at all, and the tables see far fewer suits)."""
    one = h >> 1
    two = h >> 2
    pres = (h | one | two) & _ONES3  # bit 3t: one or more of t
    single = h & ~(one | two) & _ONES3  # exactly one
    near = ((pres << 3) & _RANK_GE1 | (pres << 6) & _RANK_GE2 | (pres >> 3) & _RANK_LE7
            | (pres >> 6) & _RANK_LE6)  # another tile of the suit within two ranks
    s = (single & ~near & _SUITED3 | single & _HONOURS3).bit_count()
    p = (one & ~h & ~two & _HONOURS3).bit_count()  # honours: exactly two
    return s + p == 0 or 2 * s + p - 1 <= wilds


_THRESHOLDS: Final = 10
_WAIT_ROWS: dict[tuple[int, int, int], tuple[tuple[int, ...], tuple[int, ...]]] = {}


def _wait_rows(suit: int, key: int, mode: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For one suit slice: masks of the ranks whose addition brings the set need
    (resp. the pair need) down to at most v, for v = 0..9."""
    cache_key = (suit, key, mode)
    hit = _WAIT_ROWS.get(cache_key)
    if hit is not None:
        return hit
    sets = SETS if mode != PPAIR else PSETS
    table, size = (SUITED, 9) if suit < 3 else (HONOURS, 7)
    sm = [0] * _THRESHOLDS
    pm = [0] * _THRESHOLDS
    for r in range(size):
        if (key >> (3 * r)) & 7 >= 4:
            continue  # a fifth real copy cannot be drawn
        row = table[key + (1 << (3 * r))]
        bit = 1 << (suit * 9 + r)
        for v in range(_THRESHOLDS):
            if row[sets] <= v:
                sm[v] |= bit
            if row[mode] <= v:
                pm[v] |= bit
    res = (tuple(sm), tuple(pm))
    if len(_WAIT_ROWS) >= MEMO_LIMIT:
        _WAIT_ROWS.clear()
    _WAIT_ROWS[cache_key] = res
    return res


def wait_mask(h: int, wilds: int, mode: int = PAIR) -> int:
    """Bit t set when adding one tile of kind t to ``h`` (3n+1 tiles) completes it.

    With the other suits' needs fixed, a tile of suit X completes the hand when
    X's new set need fits the budget left after the others hold the pair, or
    X's new pair need fits the budget left after the others' sets.  Both are
    precomputed per suit slice as masks over budgets.
    """
    sets = SETS if mode != PPAIR else PSETS
    e = suit_entries(h)
    s = [x[sets] for x in e]
    d = [x[mode] - x[sets] for x in e]
    s_all = s[0] + s[1] + s[2] + s[3]
    out = 0
    top = _THRESHOLDS - 1
    for suit in range(4):
        budget = wilds - (s_all - s[suit])
        d_other = min(d[j] for j in range(4) if j != suit)
        key = (h >> SUIT_SHIFT[suit]) & (MASK9 if suit < 3 else MASK7)
        sm, pm = _wait_rows(suit, key, mode)
        v = budget - d_other
        if v >= 0:
            out |= sm[v if v < top else top]
        if budget >= 0:
            out |= pm[budget if budget < top else top]
    return out
