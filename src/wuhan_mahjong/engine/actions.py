"""The actions a seat can take, as small frozen dataclasses with a JSON form.

Every action is hashable and compares by value, so ``action in
state.legal_actions(seat)`` is the legality test.  The engine hands out shared
instances (``DISCARDS[t]``, ``PASS`` ...) so the common membership test is an
identity check.

JSON forms (``to_json`` / :func:`action_from_json`), tiles in the compact
notation of :mod:`wuhan_mahjong.tiles`:

============================  =====================================================
``{"type": "discard", "tile": "5m"}``              a normal discard
``{"type": "chi", "tile": "3m"}``                  chi the run starting at 3m (345m)
``{"type": "peng", "tile": "5m"}``                 peng the discarded 5m
``{"type": "kong", "kind": "direct", "tile": "5m"}``  冲杠 / 蓄杠 ``added`` / 暗杠 ``concealed``
``{"type": "special_kong", "kind": "red"}``        红中杠; ``green`` 发财杠, ``laizi`` 癞子杠, ``pi`` 癞子皮杠
``{"type": "laizi_discard"}``                      丢癞子: the laizi to the discards, never claimable
``{"type": "win"}``                                胡: self-draw, on a discard or robbing a kong
``{"type": "pass"}``                               decline a claim (or a final draw's win)
============================  =====================================================

>>> action_from_json({"type": "chi", "tile": "3m"})
Chi(low=2)
>>> str(Kong("added", 4)), PASS.to_json()
('kong added 5m', {'type': 'pass'})
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..meld import KongKind
from ..rules import SPECIAL_KONG_KINDS, SpecialKongKind
from ..tiles import NUM_KINDS, TileError, parse_tile, tile_str

SpecialKind = SpecialKongKind
SPECIAL_KINDS: tuple[SpecialKind, ...] = SPECIAL_KONG_KINDS
SPECIAL_ZH: dict[str, str] = {"red": "红中杠", "green": "发财杠", "laizi": "癞子杠", "pi": "癞子皮杠"}
KONG_ZH: dict[str, str] = {"direct": "冲杠", "added": "蓄杠", "concealed": "暗杠"}


class IllegalAction(ValueError):
    """An action that the rules do not allow now; the message says why, ``rule`` names
    the requirement of :mod:`wuhan_mahjong.engine.legality` it fails.

    Raised by :meth:`HandState.apply`, which then leaves the state unchanged.
    """

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(message)
        self.rule = rule


class ActionFormatError(ValueError):
    """A JSON or text action that cannot be read at all."""


@dataclass(frozen=True, slots=True)
class Discard:
    tile: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "discard", "tile": tile_str(self.tile)}

    def __str__(self) -> str:
        return f"discard {tile_str(self.tile)}"


@dataclass(frozen=True, slots=True)
class Chi:
    """Chi (吃) the current discard into the run ``low, low+1, low+2``."""

    low: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "chi", "tile": tile_str(self.low)}

    @property
    def tiles(self) -> tuple[int, int, int]:
        return (self.low, self.low + 1, self.low + 2)

    def __str__(self) -> str:
        return f"chi {''.join(tile_str(t)[0] for t in self.tiles)}{tile_str(self.low)[1]}"


@dataclass(frozen=True, slots=True)
class Peng:
    tile: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "peng", "tile": tile_str(self.tile)}

    def __str__(self) -> str:
        return f"peng {tile_str(self.tile)}"


@dataclass(frozen=True, slots=True)
class Kong:
    """A four-tile kong: ``direct`` 冲杠 (on a discard), ``added`` 蓄杠, ``concealed`` 暗杠."""

    kind: KongKind
    tile: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "kong", "kind": self.kind, "tile": tile_str(self.tile)}

    def __str__(self) -> str:
        return f"kong {self.kind} {tile_str(self.tile)}"


@dataclass(frozen=True, slots=True)
class SpecialKong:
    """A single tile played out as a kong (红中杠, 发财杠, 癞子杠, 癞子皮杠)."""

    kind: SpecialKind

    def to_json(self) -> dict[str, Any]:
        return {"type": "special_kong", "kind": self.kind}

    def __str__(self) -> str:
        return f"{self.kind} kong ({SPECIAL_ZH[self.kind]})"


@dataclass(frozen=True, slots=True)
class LaiziDiscard:
    """丢癞子: the laizi goes to the discards; it can never be claimed; the turn ends."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "laizi_discard"}

    def __str__(self) -> str:
        return "laizi discard (丢癞子)"


@dataclass(frozen=True, slots=True)
class Win:
    """胡.  The engine knows whether it is a self-draw, a discard or a robbed kong."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "win"}

    def __str__(self) -> str:
        return "win"


@dataclass(frozen=True, slots=True)
class Pass:
    def to_json(self) -> dict[str, Any]:
        return {"type": "pass"}

    def __str__(self) -> str:
        return "pass"


Action = Discard | Chi | Peng | Kong | SpecialKong | LaiziDiscard | Win | Pass
ACTION_TYPES = (Discard, Chi, Peng, Kong, SpecialKong, LaiziDiscard, Win, Pass)

# Shared instances: legal_actions hands these out, so membership tests are cheap.
DISCARDS: tuple[Discard, ...] = tuple(Discard(t) for t in range(NUM_KINDS))
CHIS: tuple[Chi, ...] = tuple(Chi(t) for t in range(NUM_KINDS))
PENGS: tuple[Peng, ...] = tuple(Peng(t) for t in range(NUM_KINDS))
DIRECT_KONGS: tuple[Kong, ...] = tuple(Kong("direct", t) for t in range(NUM_KINDS))
ADDED_KONGS: tuple[Kong, ...] = tuple(Kong("added", t) for t in range(NUM_KINDS))
CONCEALED_KONGS: tuple[Kong, ...] = tuple(Kong("concealed", t) for t in range(NUM_KINDS))
SPECIAL_KONGS: dict[str, SpecialKong] = {k: SpecialKong(k) for k in SPECIAL_KINDS}
LAIZI_DISCARD = LaiziDiscard()
WIN = Win()
PASS = Pass()


def _tile_field(obj: Mapping[str, Any], kind: str) -> int:
    raw = obj.get("tile")
    if not isinstance(raw, str):
        raise ActionFormatError(f"a {kind} action needs a 'tile' string")
    try:
        return parse_tile(raw)
    except TileError as e:
        raise ActionFormatError(f"{kind}: {e}") from None


def action_from_json(obj: Any) -> Action:
    """Read the JSON form of an action; raises :class:`ActionFormatError`."""
    if not isinstance(obj, Mapping):
        raise ActionFormatError("an action must be a JSON object")
    kind = obj.get("type")
    if kind == "discard":
        return DISCARDS[_tile_field(obj, kind)]
    if kind == "chi":
        low = _tile_field(obj, kind)
        if low >= 27 or low % 9 > 6:
            raise ActionFormatError(f"chi: no run starts at {tile_str(low)}")
        return CHIS[low]
    if kind == "peng":
        return PENGS[_tile_field(obj, kind)]
    if kind == "kong":
        k = obj.get("kind")
        table = {"direct": DIRECT_KONGS, "added": ADDED_KONGS, "concealed": CONCEALED_KONGS}
        if not isinstance(k, str) or k not in table:
            raise ActionFormatError("kong: 'kind' must be direct, added or concealed")
        return table[k][_tile_field(obj, "kong")]
    if kind == "special_kong":
        k = obj.get("kind")
        if not isinstance(k, str) or k not in SPECIAL_KONGS:
            raise ActionFormatError("special_kong: 'kind' must be red, green, laizi or pi")
        return SPECIAL_KONGS[k]
    if kind == "laizi_discard":
        return LAIZI_DISCARD
    if kind == "win":
        return WIN
    if kind == "pass":
        return PASS
    raise ActionFormatError(f"unknown action type {kind!r}")


_WORDS = {
    "red": "red", "hongzhong": "red", "红中杠": "red",
    "green": "green", "facai": "green", "发财杠": "green",
    "laizi": "laizi", "laizi-kong": "laizi", "癞子杠": "laizi",
    "pi": "pi", "pi-kong": "pi", "癞子皮杠": "pi",
}


def parse_action(text: str, pending: int | None = None) -> Action:
    """Read an action written as words, for scripts and people.

    ``discard 5m``, ``chi 3m`` (the run's lowest tile), ``peng``, ``kong direct``,
    ``kong added 5m``, ``kong concealed 1z``, ``red`` / ``green`` / ``laizi`` /
    ``pi`` (single-tile kongs), ``laizi-discard``, ``win``, ``pass``, or a JSON
    object.  ``pending`` fills in the tile of ``peng`` and ``kong direct``.

    >>> parse_action("kong direct", pending=4), parse_action("discard 五万")
    (Kong(kind='direct', tile=4), Discard(tile=4))
    """
    text = text.strip()
    if text.startswith("{"):
        import json

        from .. import jsontext

        try:
            return action_from_json(jsontext.loads(text))
        except json.JSONDecodeError as e:
            raise ActionFormatError(f"bad JSON action: {e.msg}") from None
    words = text.split()
    if not words:
        raise ActionFormatError("empty action")
    head, rest = words[0].lower(), words[1:]

    def tile(i: int, default: int | None = None) -> int:
        if len(rest) > i:
            try:
                return parse_tile(rest[i])
            except TileError as e:
                raise ActionFormatError(str(e)) from None
        if default is None:
            raise ActionFormatError(f"'{text}' needs a tile")
        return default

    if head == "discard":
        return DISCARDS[tile(0)]
    if head == "chi":
        low = tile(0)
        if low >= 27 or low % 9 > 6:
            raise ActionFormatError(f"chi: no run starts at {tile_str(low)}")
        return CHIS[low]
    if head == "peng":
        return PENGS[tile(0, pending)]
    if head == "kong":
        kind = rest[0].lower() if rest else ""
        rest = rest[1:]
        if kind == "direct":
            return DIRECT_KONGS[tile(0, pending)]
        if kind == "added":
            return ADDED_KONGS[tile(0)]
        if kind == "concealed":
            return CONCEALED_KONGS[tile(0)]
        raise ActionFormatError("kong needs a kind: direct, added or concealed")
    if head in ("laizi-discard", "laizi_discard", "丢癞子"):
        return LAIZI_DISCARD
    if head in _WORDS:
        return SPECIAL_KONGS[_WORDS[head]]
    if head in ("special_kong", "special-kong") and rest and rest[0] in _WORDS:
        return SPECIAL_KONGS[_WORDS[rest[0]]]
    if head in ("win", "hu", "胡"):
        return WIN
    if head == "pass":
        return PASS
    raise ActionFormatError(f"unknown action '{text}'")
