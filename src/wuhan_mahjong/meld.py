"""Exposed and concealed melds (吃, 碰, 杠) and the single-tile special kongs."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from typing import Literal

from .problems import InputProblem
from .tiles import echo, format_tiles, suit_of, tile_str

MeldType = Literal["chi", "peng", "kong"]
KongKind = Literal["direct", "added", "concealed"]


@dataclass(frozen=True, slots=True)
class Meld:
    """One meld laid down by a player.

    ``from_seat`` is the seat that fed it (for an added kong 蓄杠, the feeder of
    the original peng; for a concealed kong 暗杠, ``None``).
    """

    type: MeldType
    tiles: tuple[int, ...]
    from_seat: int | None = None
    kind: KongKind | None = None

    def is_opening(self, direct_kong_opens: bool = True) -> bool:
        """Chi, peng and 冲杠 open the hand (开口); whether 冲杠 counts is a rule option.

        An added kong (蓄杠) was a peng when it was made, so it holds that one
        opening; adding the fourth tile opens nothing more (Project decision 5).
        """
        return (self.type in ("chi", "peng") or self.kind == "added"
                or (direct_kong_opens and self.kind == "direct"))

    @property
    def is_pung(self) -> bool:
        """A triplet or a kong of any kind."""
        return self.type != "chi"

    @property
    def is_claimed(self) -> bool:
        """Made from other players' tiles (everything except a concealed kong)."""
        return self.kind != "concealed"

    @property
    def tile(self) -> int:
        """The lowest tile of the meld (the run's start, or the pung's tile)."""
        return min(self.tiles)

    @property
    def suit(self) -> int:
        return suit_of(self.tiles[0])

    def __str__(self) -> str:
        label = self.type if self.type != "kong" else f"{self.kind} kong"
        return f"{label} {format_tiles(self.tiles)}"


def opening_count(melds: tuple[Meld, ...] | list[Meld], direct_kong_opens: bool = True) -> int:
    """How many openings (口) the melds contain: chi, peng (an added kong keeps its
    peng's) and, by default, 冲杠."""
    return sum(1 for m in melds if m.is_opening(direct_kong_opens))


def parse_meld_spec(spec: str, seat: int = 0) -> Meld:
    """A meld from a short spec for people and tests: ``chi:234m``, ``peng:777s``,
    ``kong:9999p`` (冲杠), ``addkong:5555m`` (蓄杠), ``ankong:1111z`` (暗杠).

    A chi comes from the previous seat, anything else from the seat opposite.

    >>> parse_meld_spec("peng:777s")
    Meld(type='peng', tiles=(24, 24, 24), from_seat=2, kind=None)
    """
    from .tiles import TileError, parse_tiles

    kind_name, _, tiles_text = spec.partition(":")
    tiles = tuple(sorted(parse_tiles(tiles_text)))
    prev, opposite = (seat - 1) % 4, (seat + 2) % 4
    table: dict[str, tuple[MeldType, KongKind | None, int | None, int]] = {
        "chi": ("chi", None, prev, 3), "peng": ("peng", None, opposite, 3),
        "kong": ("kong", "direct", opposite, 4), "addkong": ("kong", "added", opposite, 4),
        "ankong": ("kong", "concealed", None, 4),
    }
    if kind_name not in table:
        raise TileError(f"unknown meld type '{echo(kind_name)}' (chi, peng, kong, addkong, ankong)")
    mtype, kind, frm, size = table[kind_name]
    ok = len(tiles) == size and (
        len(set(tiles)) == 1 if mtype != "chi"
        else tiles[0] < 27 and tiles[2] == tiles[0] + 2 and tiles[1] == tiles[0] + 1
        and tiles[0] // 9 == tiles[2] // 9)
    if not ok:
        raise TileError(f"not a {kind_name}: '{echo(tiles_text)}'")
    return Meld(mtype, tiles, frm, kind)


class MeldError(InputProblem):
    """A meld no table can show (see :func:`check_meld`)."""


def check_meld(meld: Meld, laizi: int, must_kong_tiles: Set[int]) -> None:
    """Refuse a meld the rules never let a player lay down, whatever its shape: the laizi
    (癞子) never takes part in a meld, and a tile that must be konged on its own (红中, and
    发财 where it is a special kong: ``Rules.must_kong_tiles``) is never in a chi, a peng
    or a kong of four.  The settlement record and the hand query both ask this, so that
    neither values a hand the other calls malformed.

    >>> check_meld(parse_meld_spec("peng:777s"), laizi=4, must_kong_tiles={33})
    >>> check_meld(parse_meld_spec("peng:555m"), laizi=4, must_kong_tiles={33})
    Traceback (most recent call last):
    ...
    wuhan_mahjong.meld.MeldError: the laizi 5m never takes part in a meld
    """
    if laizi in meld.tiles:
        raise MeldError(f"the laizi {tile_str(laizi)} never takes part in a meld",
                        "laizi_in_meld", tile=tile_str(laizi))
    bad = set(meld.tiles) & set(must_kong_tiles)
    if bad:
        tile = tile_str(min(bad))
        raise MeldError(f"{tile} can only be konged on its own", "kong_alone", tile=tile)
