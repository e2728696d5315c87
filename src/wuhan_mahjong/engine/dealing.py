"""Fair dealing: the wall, its commitment, and the deal order.

Randomness only comes from the ``rng`` passed in (a :class:`random.Random`).
The default everywhere is :class:`secrets.SystemRandom` (the operating
system's CSPRNG); a seeded ``random.Random(seed)`` gives replays and tests;
an explicit 136-tile wall gives scripted tests.

Commitment (published before the deal, see ``docs/records.md``)::

    commitment = SHA-256( b"wuhan-mahjong/wall/v1" || salt || wall )

where ``salt`` is 32 random bytes and ``wall`` is 136 bytes, byte ``i`` being
the tile kind (0-33, see :mod:`wuhan_mahjong.tiles`) at wall position ``i``.
The hex digest is published; after the hand the wall and the salt are revealed
and anyone can recompute it.

Deal order (positions in the wall): three rounds of four tiles to each seat,
starting with the dealer (positions 0-47), then one tile to each seat from the
dealer (48-51), then the dealer's 14th (52).  Position 53 is the indicator
(癞子皮), face up and out of play.  Normal draws take the next position from
the front (54, 55, ...); kong replacement draws take the last position of the
wall and move backwards (135, 134, ...).

>>> w = arrange_wall(0, hands=[[0] * 3], indicator=4, draws=[8], replacements=[9])
>>> w[:3], w[53], w[54], w[135], len(w)
([0, 0, 0], 4, 8, 9, 136)
>>> commitment(bytes(32), list(range(34)) * 4)[:16]
'ddd0c6206a8e51f2'
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Sequence
from typing import Any

from ..tiles import COPIES, NUM_KINDS, NUM_TILES, all_tiles, tile_str

COMMIT_TAG = b"wuhan-mahjong/wall/v1"
SALT_BYTES = 32
DEAL_SIZE = 53
INDICATOR_POS = 53
FIRST_DRAW_POS = 54


class WallError(ValueError):
    """A wall that is not a full set of 136 tiles, or an impossible arrangement."""


def default_rng() -> random.Random:
    """The cryptographically secure default source."""
    return secrets.SystemRandom()


class SeededRandom(random.Random):
    """A deterministic *and* unpredictable source: SHA-256 in counter mode over a secret key.

    A server that must rebuild a match after a crash (its walls, salts and first
    dealer) keeps one 32-byte key per match, server-side only, and gives the
    match ``SeededRandom(key)``: the same key gives the same match, and without the
    key the revealed walls and salts of past hands tell nothing about the next ones
    (unlike a seeded ``random.Random``, whose state can be recovered from its output).

    >>> a, b = SeededRandom(bytes(32)), SeededRandom(bytes(32))
    >>> shuffled_wall(a) == shuffled_wall(b), new_salt(a) == new_salt(b)
    (True, True)
    """

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("a seed key has at least 16 bytes")
        self._key = bytes(key)
        self._counter = 0
        self._buffer = b""
        super().__init__()

    def seed(self, a: object = None, version: int = 2) -> None:
        """The key is the seed: re-seeding is not supported (and ignored at construction)."""

    def _take(self, n: int) -> bytes:
        while len(self._buffer) < n:
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._buffer += block
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def getrandbits(self, k: int, /) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        n = (k + 7) // 8
        return int.from_bytes(self._take(n), "big") >> (8 * n - k)

    def random(self) -> float:
        return self.getrandbits(53) * 2.0**-53

    def getstate(self) -> tuple[Any, ...]:
        return (self._key, self._counter, self._buffer)

    def setstate(self, state: tuple[Any, ...]) -> None:
        self._key, self._counter, self._buffer = state


def shuffled_wall(rng: random.Random | None = None) -> list[int]:
    """A uniform random wall (Fisher-Yates via ``rng.shuffle``).

    For a plain seeded :class:`random.Random` (simulations, tests, the RL environments)
    the same Fisher-Yates runs inline, drawing exactly what ``Random.shuffle`` draws
    (``getrandbits`` of the bit length of ``i + 1``, redrawn while too large), so the
    walls are identical (``tests/engine/test_engine_records.py`` checks it) without a
    Python call per tile."""
    wall = list(_FULL_WALL)
    if type(rng) is not random.Random:
        (rng or default_rng()).shuffle(wall)
        return wall
    getrandbits = rng.getrandbits
    for i, n, k in _SHUFFLE_STEPS:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        wall[i], wall[j] = wall[j], wall[i]
    return wall


_SHUFFLE_STEPS = tuple((i, i + 1, (i + 1).bit_length()) for i in range(NUM_TILES - 1, 0, -1))
"""Fisher-Yates from the top: (position, how many to choose from, bits drawn per try)."""


def new_salt(rng: random.Random | None = None) -> bytes:
    return (rng or default_rng()).getrandbits(8 * SALT_BYTES).to_bytes(SALT_BYTES, "big")


_FULL_WALL = tuple(all_tiles())
_FULL_SET = sorted(_FULL_WALL)


def check_wall(wall: Sequence[int]) -> tuple[int, ...]:
    """Validate a wall: exactly 136 tiles, four of each kind."""
    tiles = tuple(wall)
    if sorted(tiles) == _FULL_SET and set(map(type, tiles)) == {int}:
        return tiles  # the common case at C speed; anything else is explained below
    if len(wall) != NUM_TILES:
        raise WallError(f"a wall has {NUM_TILES} tiles, got {len(wall)}")
    counts = [0] * NUM_KINDS
    for t in wall:
        if not (isinstance(t, int) and 0 <= t < NUM_KINDS):
            raise WallError(f"not a tile kind: {t!r}")
        counts[t] += 1
    for t, n in enumerate(counts):
        if n != COPIES:
            raise WallError(f"a wall holds four of each tile; {tile_str(t)} appears {n} times")
    return tuple(wall)


def commitment(salt: bytes, wall: Sequence[int]) -> str:
    """SHA-256 hex digest of the tag, the salt and the wall bytes."""
    return hashlib.sha256(COMMIT_TAG + salt + bytes(wall)).hexdigest()


def deal_positions(dealer: int) -> list[list[int]]:
    """For each seat, the wall positions of its dealt tiles, in deal order."""
    pos = [[] for _ in range(4)]  # type: list[list[int]]
    p = 0
    for _ in range(3):
        for k in range(4):
            pos[(dealer + k) % 4].extend(range(p, p + 4))
            p += 4
    for k in range(4):
        pos[(dealer + k) % 4].append(p)
        p += 1
    pos[dealer].append(p)
    return pos


def arrange_wall(
    dealer: int,
    hands: Sequence[Sequence[int]] = (),
    indicator: int | None = None,
    draws: Sequence[int] = (),
    replacements: Sequence[int] = (),
    rng: random.Random | None = None,
) -> list[int]:
    """Build a wall that deals the given tiles (for scripted tests and examples).

    ``hands[i]`` are tiles for seat ``i`` (at most 14 for the dealer, 13 for the
    others; missing tiles are filled in), ``draws`` the normal draws in order
    (position 54 on), ``replacements`` the kong replacement draws in order
    (position 135 down).  The remaining tiles fill the remaining positions in
    kind order, or shuffled by ``rng`` when given.
    """
    wall: list[int | None] = [None] * NUM_TILES
    left = [COPIES] * NUM_KINDS

    def put(p: int, t: int) -> None:
        if left[t] == 0:
            raise WallError(f"more than four {tile_str(t)} in the arrangement")
        left[t] -= 1
        wall[p] = t

    positions = deal_positions(dealer)
    for seat, tiles in enumerate(hands):
        if len(tiles) > len(positions[seat]):
            raise WallError(f"seat {seat} is dealt {len(positions[seat])} tiles, not {len(tiles)}")
        for p, t in zip(positions[seat], tiles, strict=False):
            put(p, t)
    if indicator is not None:
        put(INDICATOR_POS, indicator)
    if FIRST_DRAW_POS + len(draws) > NUM_TILES - len(replacements):
        raise WallError("too many draws and replacements for one wall")
    for i, t in enumerate(draws):
        put(FIRST_DRAW_POS + i, t)
    for i, t in enumerate(replacements):
        put(NUM_TILES - 1 - i, t)
    rest = [t for t in range(NUM_KINDS) for _ in range(left[t])]
    if rng is not None:
        rng.shuffle(rest)
    it = iter(rest)
    return [t if t is not None else next(it) for t in wall]
