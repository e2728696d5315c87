"""Exposed and concealed melds (吃, 碰, 杠) and the single-tile special kongs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .tiles import format_tiles, suit_of

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

    @property
    def is_opening(self) -> bool:
        """Chi, peng and 冲杠 open the hand (开口); whether 冲杠 counts is a rule option."""
        return self.type in ("chi", "peng") or self.kind == "direct"

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
    """How many openings (口) the melds contain: chi, peng and (optionally) 冲杠."""
    return sum(
        1 for m in melds if m.type in ("chi", "peng") or (direct_kong_opens and m.kind == "direct")
    )
