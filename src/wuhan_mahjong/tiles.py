"""Tiles and their notation.

A tile *kind* is an integer 0-33:

* 0-8   ``1m``-``9m``  万 (characters)
* 9-17  ``1p``-``9p``  筒 (dots)
* 18-26 ``1s``-``9s``  条 (bamboo)
* 27-33 ``1z``-``7z``  东 南 西 北 白 发 中

Hands are written in the compact grouped form used by most mahjong software
(``123m456p77z``); single tiles may be written one by one (``1m2m3m``) and the
Chinese names accepted on input (``五万``, ``三筒``, ``七条``, ``东风``, ``红中``,
``发财``, ``白板``).

>>> parse_tiles("123m5p77z")
[0, 1, 2, 13, 33, 33]
>>> format_tiles([33, 0, 13, 1])
'12m5p7z'
>>> tile_name(parse_tile("红中")), tile_name(parse_tile("五万"), lang="en")
('红中', '5-characters')
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Final

NUM_KINDS: Final = 34
COPIES: Final = 4
NUM_TILES: Final = NUM_KINDS * COPIES

SUITS: Final = "mpsz"
EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = range(27, 34)
HONOURS: Final = tuple(range(27, 34))
WINDS: Final = (EAST, SOUTH, WEST, NORTH)

_SUIT_ZH: Final = {"m": "万", "p": "筒", "s": "条"}
_HONOUR_ZH: Final = ("东风", "南风", "西风", "北风", "白板", "发财", "红中")
_HONOUR_EN: Final = ("east", "south", "west", "north", "white", "green", "red")
_SUIT_EN: Final = {"m": "characters", "p": "dots", "s": "bamboo"}
_NUM_ZH: Final = "一二三四五六七八九"


class TileError(ValueError):
    """A tile or hand string could not be read; the message names the bad token."""


def suit_of(tile: int) -> int:
    """0 = 万, 1 = 筒, 2 = 条, 3 = honours."""
    return tile // 9


def rank_of(tile: int) -> int:
    """Rank 1-9 for suited tiles, 1-7 for honours."""
    return tile % 9 + 1


def is_suited(tile: int) -> bool:
    return tile < 27


def is_honour(tile: int) -> bool:
    return tile >= 27


def is_258(tile: int) -> bool:
    """A suited 2, 5 or 8: the tiles a 将 (pair) must be made of in a small hand."""
    return tile < 27 and tile % 9 in (1, 4, 7)


_TILE_STR: Final = tuple(f"{t % 9 + 1}{SUITS[t // 9]}" for t in range(34))


def tile_str(tile: int) -> str:
    """The compact notation of one tile kind, e.g. ``5m`` (a table lookup: views call
    it for every tile they show)."""
    if not 0 <= tile < NUM_KINDS:
        raise TileError(f"tile index out of range: {tile}")
    return _TILE_STR[tile]


def tile_name(tile: int, lang: str = "zh") -> str:
    """A human name: ``五万`` / ``红中`` (``lang="zh"``) or ``5-characters`` / ``red``."""
    s = tile_str(tile)
    if is_honour(tile):
        return (_HONOUR_ZH if lang == "zh" else _HONOUR_EN)[tile - 27]
    if lang == "zh":
        return _NUM_ZH[rank_of(tile) - 1] + _SUIT_ZH[s[1]]
    return f"{rank_of(tile)}-{_SUIT_EN[s[1]]}"


_CHINESE: dict[str, int] = {}
for _i, _n in enumerate(_NUM_ZH):
    for _suit_idx, (_letter, _zh) in enumerate(_SUIT_ZH.items()):
        _CHINESE[_n + _zh] = _suit_idx * 9 + _i
        _CHINESE[_n + {"m": "萬", "p": "饼", "s": "索"}[_letter]] = _suit_idx * 9 + _i
    _CHINESE[_n + "餅"] = 9 + _i
for _i, _n in enumerate(_HONOUR_ZH):
    _CHINESE[_n] = 27 + _i
    _CHINESE[_n[0]] = 27 + _i
_CHINESE.update({"白": WHITE, "发": GREEN, "發": GREEN, "中": RED, "红": RED, "紅中": RED,
                 "發財": GREEN, "东": EAST, "東": EAST, "東風": EAST, "北風": NORTH,
                 "南風": SOUTH, "西風": WEST})
del _i, _n, _suit_idx, _letter, _zh

_CHINESE_RE = re.compile("|".join(sorted(map(re.escape, _CHINESE), key=len, reverse=True)))
_GROUP_RE = re.compile(r"([0-9]+)([mpsz])")
_SEPARATORS = re.compile(r"[\s,;、]+")
"""Between tiles: spaces, commas, semicolons and the ideographic comma 、 (after NFKC,
the full-width ，and ；are , and ;)."""


def echo(text: str, limit: int = 40) -> str:
    """``text`` as an error message quotes it: at most ``limit`` characters, so that a
    bad input of any size gives a one-line error of a readable length.

    >>> echo("5p" * 100)
    '5p5p5p5p5p5p5p5p5p5p5p5p5p5p5p5p5p5p5...'
    """
    return text if len(text) <= limit else text[:limit - 3] + "..."


def parse_tiles(text: str) -> list[int]:
    """Parse a hand string into a list of tile kinds, in written order.

    Accepts grouped notation (``123m456p77z``), single tiles separated or not by
    spaces or commas, and Chinese tile names.  Text typed in a Chinese input
    method's full-width mode reads the same (``１２３ｍ``, ``，``, ``、``: NFKC).
    Raises :class:`TileError` naming the first token that is not a tile.

    >>> parse_tiles("五万 5m 红中")
    [4, 4, 33]
    >>> parse_tiles("１２３ｍ，五万、红中") == parse_tiles("123m, 五万, 红中")
    True
    >>> parse_tiles("12x")
    Traceback (most recent call last):
    ...
    wuhan_mahjong.tiles.TileError: not a tile: '12x'
    """
    if text.isascii():
        fast = _grouped(text)
        if fast is not None:
            return fast
    return _parse_general(text)


def _parse_general(text: str) -> list[int]:
    """:func:`parse_tiles` for any notation (regular expressions, token by token)."""
    out: list[int] = []
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    for chunk in _SEPARATORS.split(text.strip()):
        if chunk:
            _parse_chunk(chunk, out)
    return out


_RANK_OF_DIGIT: Final = {str(r): r - 1 for r in range(1, 10)}
_SUIT_BASE: Final = {"m": 0, "p": 9, "s": 18, "z": 27}


def _grouped(text: str) -> list[int] | None:
    """``text`` read as plain grouped notation (``123m5p77z``: digits 1-9 and a suit
    letter, nothing else), the form :func:`format_tiles` writes and every view carries;
    ``None`` for anything else (separators, Chinese names, a bad token), which the
    general reader then reads or refuses with its message.  A loop over the characters,
    several times faster than the regular expressions (a test checks the two agree)."""
    out: list[int] = []
    ranks: list[int] = []
    for ch in text:
        r = _RANK_OF_DIGIT.get(ch)
        if r is not None:
            ranks.append(r)
            continue
        base = _SUIT_BASE.get(ch)
        if base is None or not ranks or (base == 27 and max(ranks) > 6):
            return None
        out += [base + r for r in ranks]
        ranks.clear()
    return None if ranks else out


def _parse_chunk(chunk: str, out: list[int]) -> None:
    pos = 0
    while pos < len(chunk):
        m = _GROUP_RE.match(chunk, pos)
        if m:
            digits, suit = m.groups()
            for d in digits:
                rank = int(d)
                if (suit == "z" and not 1 <= rank <= 7) or (suit != "z" and not 1 <= rank <= 9):
                    raise TileError(f"not a tile: '{d}{suit}'")
                out.append("mpsz".index(suit) * 9 + rank - 1)
            pos = m.end()
            continue
        c = _CHINESE_RE.match(chunk, pos)
        if c:
            out.append(_CHINESE[c.group()])
            pos = c.end()
            continue
        bad = re.match(r"[0-9]*\S?[^0-9\s]*", chunk[pos:])
        token = bad.group() if bad and bad.group() else chunk[pos:]
        raise TileError(f"not a tile: '{echo(token)}'")


def parse_tile(text: str) -> int:
    """Parse exactly one tile (``5m``, ``五万``, ``红中``)."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise TileError(f"expected one tile, got '{echo(text)}'")
    return tiles[0]


def format_tiles(tiles: Iterable[int]) -> str:
    """Grouped notation, sorted by suit then rank: ``[0, 1, 2, 33]`` -> ``123m7z``."""
    parts: list[str] = []
    suit = None
    for t in sorted(tiles):  # one suit's tiles are neighbours once sorted
        s = t // 9
        if s != suit:
            if suit is not None:
                parts.append(SUITS[suit])
            suit = s
        parts.append(_RANK_STR[t % 9])
    if suit is not None:
        parts.append(SUITS[suit])
    return "".join(parts)


_RANK_STR: Final = "123456789"


def counts_of(tiles: Iterable[int]) -> list[int]:
    """A 34-entry list of how many of each kind ``tiles`` holds."""
    c = [0] * NUM_KINDS
    for t in tiles:
        c[t] += 1
    return c


def tiles_of(counts: Sequence[int]) -> list[int]:
    """Inverse of :func:`counts_of`."""
    return [t for t, n in enumerate(counts) for _ in range(n)]


def all_tiles() -> list[int]:
    """The 136 tiles of a full set, as kinds (four of each)."""
    return [t for t in range(NUM_KINDS) for _ in range(COPIES)]
