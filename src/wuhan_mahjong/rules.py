"""Rule profiles: one immutable :class:`Rules` object holds every option.

Three presets follow the three source texts (see ``docs/rules.md``):

* ``yuanhang`` (default): 远航游戏, 口口翻 (every opening doubles).
* ``bianfeng``: 边锋, 开口翻 (opening doubles once); silver and levels.
* ``laizishanzhuang``: 赖子山庄, 红中 *and* 发财 are must-kong tiles.

Any option can be overridden by name:

>>> r = get_rules("bianfeng", {"opening_scoring": "per_opening"})
>>> r.opening_scoring, r.pi_kong_active
('per_opening', True)
>>> get_rules("yuanhang", {"no_such_option": 1})
Traceback (most recent call last):
...
wuhan_mahjong.rules.RulesError: unknown option 'no_such_option'
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args, get_type_hints

from . import jsontext
from .problems import InputProblem
from .tiles import EAST, GREEN, NORTH, RED, SOUTH, WEST, WHITE, TileError, parse_tile, tile_str

OpeningScoring = Literal["once", "per_opening"]
Accumulation = Literal["multiply", "add"]
GoldenTrigger = Literal["reach", "exceed"]
CapUnit = Literal["stake", "hand_base"]
RobbingSettlement = Literal["konger_bloom", "robber_hand"]
QuanqiurenContract = Literal["jiang_discard", "not_ready"]
WinnerOrder = Literal["from_dealer", "from_discarder"]
PiKong = Literal["off", "with_per_opening", "on"]
SpecialKongKind = Literal["red", "green", "laizi", "pi"]
"""A single tile played out as a kong: 红中杠, 发财杠, 癞子杠, 癞子皮杠."""
SPECIAL_KONG_KINDS: tuple[SpecialKongKind, ...] = ("red", "green", "laizi", "pi")


HONOUR_CYCLE = (EAST, SOUTH, WEST, NORTH, RED, GREEN, WHITE)
"""The order in which an honour indicator points to the laizi: 东南西北中发白."""


class RulesError(InputProblem):
    """An unknown profile or option name, or a bad option value (a numeric one out of its
    range with the code ``option_range``, so that a client can say it in its player's
    language: :mod:`wuhan_mahjong.problems`)."""


def _opt(default: Any, doc: str, bounds: tuple[float, float] | None = None) -> Any:
    """A rule option: its default, a one-line doc string and, for a number, its range."""
    meta: dict[str, Any] = {"doc": doc}
    if bounds is not None:
        meta["bounds"] = bounds
    return field(default=default, metadata=meta)


FACTOR = (1, 16)
"""Range of the kong and discard multipliers."""
POINTS = (0, 10_000)
"""Range of caps, penalties and fees (points or silver; 0 switches a cap off)."""


@dataclass(frozen=True)
class Rules:
    """Every rule option of docs/RULES.md §20 and its decisions list.

    Field defaults are the ``yuanhang`` profile.  Use :func:`get_rules` to
    build a profile with overrides; the object is immutable and hashable.
    """

    profile: str = _opt("yuanhang", "the preset these options started from")
    must_kong: tuple[str, ...] = _opt(
        ("7z",), "tiles that can only be played out as a single-tile kong and block a win when held"
    )
    opening_scoring: OpeningScoring = _opt(
        "per_opening", "口口翻 per_opening: every opening doubles; 开口翻 once: opening doubles once"
    )
    direct_kong_opens: bool = _opt(True, "a 冲杠 (kong on a discard) counts as an opening")
    laizi_kong_factor: int = _opt(4, "multiplier of each 癞子杠 (laizi played out as a kong)", FACTOR)
    laizi_discard_factor: int = _opt(2, "multiplier of each laizi discarded without a kong (丢癞子)", FACTOR)
    special_kong_factor: int = _opt(2, "multiplier of each 红中杠 / 发财杠", FACTOR)
    pi_kong: PiKong = _opt(
        "off", "癞子皮杠 (an indicator-kind tile played out singly): off, on, or only in 口口翻"
    )
    pi_kong_factor: int = _opt(2, "multiplier of each 癞子皮杠", FACTOR)
    big_hand_accumulation: Accumulation = _opt(
        "multiply", "several big hands: multiply = 10 x 2^(n-1), add = 10 x n"
    )
    fengyise_big_hands: int = _opt(2, "how many big hands 风一色 counts as", (1, 4))
    pengpenghu: bool = _opt(True, "碰碰胡 (all triplets) is a big hand")
    situational_big_hands_need_258: bool = _opt(
        False, "杠上花 / 海底捞 / 抢杠 with an otherwise small-hand shape need a 2/5/8 pair"
    )
    small_hand_max_laizi: int = _opt(1, "a small hand may hold at most this many laizi when it wins", (0, 4))
    min_score_one_loser: int = _opt(
        20, "at least one loser must owe this much (raw) to win; 0 = off", (0, 1000)
    )
    min_score_every_loser: int = _opt(0, "every loser must owe this much (raw) to win; 0 = off", (0, 1000))
    cap_unit: CapUnit = _opt(
        "stake", "caps count in table stakes (300 = 300 points) or in the hand's base (1 or 10)"
    )
    golden_trigger: GoldenTrigger = _opt(
        "reach", "金顶 when all three losers reach (>=) or exceed (>) the cap"
    )
    cap: int = _opt(300, "封顶: cap per loser (开口翻 mode)", POINTS)
    contract_cap: int = _opt(400, "cap per share when someone contracts or a kong is robbed", POINTS)
    golden_cap: int = _opt(400, "金顶: what each loser pays when all three hit the cap", POINTS)
    bright_cap: int = _opt(0, "光明顶: what a never-opened loser pays at 金顶; 0 = no such rule", POINTS)
    cap_per_opening: int = _opt(300, "封顶 in 口口翻 mode", POINTS)
    contract_cap_per_opening: int = _opt(400, "contract cap in 口口翻 mode", POINTS)
    golden_cap_per_opening: int = _opt(400, "金顶 in 口口翻 mode", POINTS)
    bright_cap_per_opening: int = _opt(0, "光明顶 in 口口翻 mode; 0 = none", POINTS)
    robbing_settlement: RobbingSettlement = _opt(
        "konger_bloom",
        "抢杠: konger_bloom = the konger pays his own hypothetical 杠开 (杠进杠出); "
        "robber_hand = the robber's hand, the robbed player contracts",
    )
    quanqiuren_contract: QuanqiurenContract = _opt(
        "jiang_discard",
        "全求人 contract: jiang_discard = the discarder pays if the tile was a 2/5/8; "
        "not_ready = the discarder pays if he was not ready",
    )
    one_suit_contract_hands: tuple[str, ...] = _opt(
        ("qingyise",), "big hands the third feeder contracts for (承包)"
    )
    winner_order: WinnerOrder = _opt(
        "from_dealer", "several winners on one discard: the first counting from the dealer"
    )
    dealer_keeps_after_draw: bool = _opt(True, "the dealer keeps the deal after a 荒庄 (exhaustive draw)")
    claim_window_seconds: float = _opt(8.0, "time to claim a discard (碰牌要快)", (2.0, 60.0))
    turn_seconds: float = _opt(15.0, "time to discard on one's own turn (server timer)", (5.0, 60.0))
    end_phase_wall: int = _opt(
        14, "the 海底 phase starts when the live wall is at most this after a draw", (4, 40)
    )
    final_draws: int = _opt(4, "draws in the 海底 phase, each without a discard", (1, 8))
    escape_penalty: int = _opt(0, "points an escaper pays, split among the others (开口翻 mode)", POINTS)
    escape_penalty_per_opening: int = _opt(0, "escape penalty in 口口翻 mode", POINTS)
    service_fee: int = _opt(0, "silver each player pays per finished game (platform fee F)", POINTS)
    min_silver: int = _opt(
        100, "silver needed to sit at a silver table at stake 1, at the least (the server "
        "asks stake x the most one hand can cost, never less)", (0, 1_000_000)
    )

    # ---- derived values -------------------------------------------------
    @functools.cached_property
    def must_kong_tiles(self) -> frozenset[int]:
        """:attr:`must_kong` as tile numbers (read once: the engine and the bots ask often)."""
        return frozenset(parse_tile(t) for t in self.must_kong)

    @property
    def per_opening(self) -> bool:
        return self.opening_scoring == "per_opening"

    @property
    def pi_kong_active(self) -> bool:
        """Whether 癞子皮杠 exists under these options."""
        return self.pi_kong == "on" or (self.pi_kong == "with_per_opening" and self.per_opening)

    def caps(self) -> tuple[int, int, int, int]:
        """(cap, contract cap, 金顶, 光明顶) for the opening mode in force."""
        if self.per_opening:
            return (self.cap_per_opening, self.contract_cap_per_opening,
                    self.golden_cap_per_opening, self.bright_cap_per_opening)
        return self.cap, self.contract_cap, self.golden_cap, self.bright_cap

    @property
    def escape(self) -> int:
        return self.escape_penalty_per_opening if self.per_opening else self.escape_penalty

    def laizi_of(self, indicator: int) -> int:
        """The laizi (癞子) for an indicator tile: "plus one", honours skipping must-kong tiles.

        >>> r = get_rules("yuanhang")
        >>> [tile_str(r.laizi_of(parse_tile(t))) for t in ("5m", "9p", "4z", "7z", "6z", "5z")]
        ['6m', '1p', '6z', '6z', '5z', '1z']
        >>> r3 = get_rules("laizishanzhuang")
        >>> [tile_str(r3.laizi_of(parse_tile(t))) for t in ("4z", "7z", "6z", "5z")]
        ['5z', '5z', '5z', '1z']
        """
        if indicator < 27:
            base = indicator - indicator % 9
            return base + (indicator % 9 + 1) % 9
        skip = self.must_kong_tiles
        order = HONOUR_CYCLE
        i = order.index(indicator)
        while True:
            i = (i + 1) % len(order)
            if order[i] not in skip:
                return order[i]

    def special_kong_tile(self, kind: SpecialKongKind, indicator: int) -> int:
        """The tile a special kong of ``kind`` plays out, in a hand with that indicator:
        红中杠 a 红中, 发财杠 a 发财, 癞子杠 the laizi, 癞子皮杠 a tile of the indicator's kind.

        The one place this map lives (the engine, the views' action tiles, the tile census).

        >>> r = get_rules("yuanhang")
        >>> [tile_str(r.special_kong_tile(k, parse_tile("5m"))) for k in SPECIAL_KONG_KINDS]
        ['7z', '6z', '6m', '5m']
        """
        if kind == "red":
            return RED
        if kind == "green":
            return GREEN
        if kind == "laizi":
            return self.laizi_of(indicator)
        if kind == "pi":
            return indicator
        raise ValueError(f"no special kong {kind!r} (red, green, laizi, pi)")

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}

    def overrides(self) -> dict[str, Any]:
        """The options that differ from this profile's preset (JSON-ready), so that
        ``get_rules(r.profile, r.overrides()) == r``.

        >>> get_rules("bianfeng", {"opening_scoring": "per_opening"}).overrides()
        {'opening_scoring': 'per_opening'}
        """
        return dict(_overrides(self))

    def describe(self) -> list[tuple[str, Any, str]]:
        """(name, value, one-line explanation) for every option."""
        return [(f.name, getattr(self, f.name), f.metadata["doc"]) for f in dataclasses.fields(self)]


PROFILES: dict[str, dict[str, Any]] = {
    "yuanhang": {},
    "bianfeng": {
        "opening_scoring": "once",
        "pi_kong": "with_per_opening",
        "min_score_every_loser": 8,
        "claim_window_seconds": 3.0,
        "one_suit_contract_hands": ("qingyise", "jiangyise", "fengyise"),
        "quanqiuren_contract": "not_ready",
        "service_fee": 10,
    },
    "laizishanzhuang": {
        "must_kong": ("7z", "6z"),
        "opening_scoring": "once",
        "laizi_kong_factor": 2,
        "big_hand_accumulation": "add",
        "fengyise_big_hands": 1,
        "situational_big_hands_need_258": True,
        "min_score_one_loser": 0,
        "golden_trigger": "exceed",
        "cap": 400, "contract_cap": 400, "golden_cap": 500, "bright_cap": 600,
        "cap_per_opening": 500, "contract_cap_per_opening": 500,
        "golden_cap_per_opening": 600, "bright_cap_per_opening": 700,
        "robbing_settlement": "robber_hand",
        "quanqiuren_contract": "not_ready",
        "escape_penalty": 400, "escape_penalty_per_opening": 500,
    },
}
DEFAULT_PROFILE = "yuanhang"
BIG_HAND_IDS = ("pengpenghu", "qingyise", "fengyise", "jiangyise", "quanqiuren",
                "gangshanghua", "haidilao", "qiangganghu")

_HINTS = get_type_hints(Rules)


@functools.lru_cache(maxsize=256)  # bounded: rooms may choose many rule sets (soak bench)
def _overrides(rules: Rules) -> tuple[tuple[str, Any], ...]:
    preset = get_rules(rules.profile).to_dict()
    return tuple((k, v) for k, v in rules.to_dict().items() if preset[k] != v)


OPTION_BOUNDS: dict[str, tuple[float, float]] = {
    f.name: f.metadata["bounds"] for f in dataclasses.fields(Rules) if "bounds" in f.metadata
}
"""The range (inclusive) of every numeric option: :func:`get_rules` refuses anything
outside it, and non-finite numbers.  Timers stay within a few seconds and a minute
(the seeds' 3 s and 8 s claim windows, a 15 s turn); caps, penalties and fees within
10,000 points; multipliers within 16.

>>> OPTION_BOUNDS["turn_seconds"], OPTION_BOUNDS["cap"]
((5.0, 60.0), (0, 10000))
>>> get_rules("yuanhang", {"turn_seconds": float("inf")})
Traceback (most recent call last):
...
wuhan_mahjong.rules.RulesError: option 'turn_seconds' must be a number from 5 to 60; got inf
"""
assert all(
    f.name in OPTION_BOUNDS for f in dataclasses.fields(Rules) if _HINTS[f.name] in (int, float)
), "every numeric option has a range"


def _shown(value: Any) -> str:
    """A short repr for an error message (a client may send a 10,000-digit number)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _coerce(name: str, value: Any) -> Any:
    hint = _HINTS[name]
    choices = get_args(hint)
    if hint is bool:
        if isinstance(value, bool):
            return value
    elif hint is int:
        low, high = OPTION_BOUNDS[name]
        if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
            return value
        what = f"a non-negative integer, at most {high}" if low == 0 else \
            f"an integer from {low} to {high}"
        raise RulesError(f"option '{name}' must be {what}; got {_shown(value)}", "option_range",
                         option=name, value=_shown(value), low=low, high=high)
    elif hint is float:
        low, high = OPTION_BOUNDS[name]
        if (isinstance(value, int | float) and not isinstance(value, bool)
                and math.isfinite(value) and low <= value <= high):
            return float(value)
        raise RulesError(f"option '{name}' must be a number from {low:g} to {high:g}; "
                         f"got {_shown(value)}", "option_range",
                         option=name, value=_shown(value), low=low, high=high)
    elif hint is str:
        if isinstance(value, str):
            return value
    elif getattr(hint, "__origin__", None) is Literal:
        if value in choices:
            return value
        raise RulesError(
            f"option '{name}' must be one of {', '.join(map(str, choices))}; got {value!r}"
        )
    elif name == "must_kong":
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            try:
                tiles = tuple(tile_str(parse_tile(v)) for v in value)
            except TileError as e:
                raise RulesError(f"option 'must_kong': {e}") from None
            if not set(tiles) <= {tile_str(RED), tile_str(GREEN)} or tile_str(RED) not in tiles:
                raise RulesError("option 'must_kong' must be ['7z'] or ['7z', '6z']")
            return tiles
    elif name == "one_suit_contract_hands":
        allowed = {"qingyise", "jiangyise", "fengyise"}
        if isinstance(value, list | tuple) and set(value) <= allowed:
            return tuple(value)
        raise RulesError(f"option '{name}' must be a list drawn from {sorted(allowed)}")
    raise RulesError(f"option '{name}' has a bad value {value!r}")


def parse_overrides(items: Iterable[str]) -> dict[str, Any]:
    """Rule overrides from ``NAME=VALUE`` strings (VALUE is JSON, or else a bare string),
    as the commands' ``--option`` takes them; :class:`ValueError` names a bad item.

    >>> parse_overrides(["cap=500", "opening_scoring=per_opening"])
    {'cap': 500, 'opening_scoring': 'per_opening'}
    """
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--option needs NAME=VALUE, got '{item}'")
        name, value = item.split("=", 1)
        try:
            out[name] = jsontext.loads(value)
        except json.JSONDecodeError:
            out[name] = value
    return out


def get_rules(profile: str = DEFAULT_PROFILE, overrides: Mapping[str, Any] | None = None) -> Rules:
    """Build the options of a named profile, with overrides by option name."""
    if profile not in PROFILES:
        raise RulesError(f"unknown profile '{profile}' (choose from {', '.join(PROFILES)})")
    values: dict[str, Any] = {"profile": profile, **PROFILES[profile]}
    for name, value in (overrides or {}).items():
        if name not in _HINTS or name == "profile":
            raise RulesError(f"unknown option '{name}'")
        values[name] = _coerce(name, value)
    return Rules(**values)
