"""The fixed discrete action space and the observation planes of :mod:`wuhan_mahjong.rl`.

Actions (``NUM_ACTIONS`` = 114, in the style of mjx: the tile of a claim is the
tile on the table, so peng and 冲杠 need one index each, chi three):

=========  =============================================================
index      action
=========  =============================================================
0-33       discard tile kind ``i`` (1m..9m, 1p..9p, 1s..9s, 1z..7z)
34         chi, the discard is the lowest tile of the run  (吃, e.g. 3m → 345m)
35         chi, the discard is the middle tile             (3m → 234m)
36         chi, the discard is the highest tile            (3m → 123m)
37         peng the tile on the table                      (碰)
38         冲杠 (direct kong) on the tile on the table
39-72      暗杠 (concealed kong) of kind ``i - 39``
73-106     蓄杠 (added kong) of kind ``i - 73``
107-110    红中杠, 发财杠, 癞子杠, 癞子皮杠 (single-tile special kongs)
111        丢癞子 (laizi discard)
112        win (胡: self-draw, on a discard, robbing a kong, 海底)
113        pass
=========  =============================================================

Observations are ``float32`` planes of shape ``(NUM_PLANES, 34)`` over the 34
tile kinds, built by :func:`encode` from a seat view
(:func:`wuhan_mahjong.engine.views.seat_view`) and nothing else, so they can
never show another seat's concealed tiles.  Seats are relative to the viewer
(0 = self, 1 = next player 下家, 2 = opposite, 3 = previous 上家).  Scalar
features fill a whole plane with one value in ``[0, 1]``.  ``PLANES`` names
every plane; ``docs/rl.md`` has the table.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine.actions import (
    ADDED_KONGS,
    CHIS,
    CONCEALED_KONGS,
    DIRECT_KONGS,
    DISCARDS,
    LAIZI_DISCARD,
    PASS,
    PENGS,
    SPECIAL_KINDS,
    SPECIAL_KONGS,
    WIN,
    Action,
    Chi,
    Discard,
    Kong,
    LaiziDiscard,
    Pass,
    Peng,
    SpecialKong,
    Win,
)
from ..engine.views import SeatView
from ..rules import PROFILES, Rules, get_rules
from ..tiles import NUM_KINDS, parse_tile, parse_tiles

# ----------------------------------------------------------------------------- actions
DISCARD = 0
CHI_LOW, CHI_MID, CHI_HIGH = 34, 35, 36
PENG = 37
KONG_DIRECT = 38
KONG_CONCEALED = 39
KONG_ADDED = 73
SPECIAL = {kind: 107 + i for i, kind in enumerate(SPECIAL_KINDS)}  # red green laizi pi
LAIZI_DISCARD_INDEX = 111
WIN_INDEX = 112
PASS_INDEX = 113
NUM_ACTIONS = 114


def action_index(action: Action, on_table: int | None = None) -> int:
    """The index of an engine action; ``on_table`` (the discard being answered) places a chi.

    >>> action_index(Chi(2), on_table=3), action_index(Kong("added", 4)), action_index(PASS)
    (35, 77, 113)
    """
    if isinstance(action, Discard):
        return DISCARD + action.tile
    if isinstance(action, Chi):
        if on_table is None or not 0 <= on_table - action.low <= 2:
            raise ValueError(f"{action} needs the discard on the table to be one of its tiles")
        return CHI_LOW + (on_table - action.low)
    if isinstance(action, Peng):
        return PENG
    if isinstance(action, Kong):
        if action.kind == "direct":
            return KONG_DIRECT
        return (KONG_CONCEALED if action.kind == "concealed" else KONG_ADDED) + action.tile
    if isinstance(action, SpecialKong):
        return SPECIAL[action.kind]
    if isinstance(action, LaiziDiscard):
        return LAIZI_DISCARD_INDEX
    if isinstance(action, Win):
        return WIN_INDEX
    if isinstance(action, Pass):
        return PASS_INDEX
    raise TypeError(f"not an action: {action!r}")  # pragma: no cover


_SPECIAL_BY_INDEX = {i: SPECIAL_KONGS[k] for k, i in SPECIAL.items()}


def action_number(index: Any) -> int | None:
    """``index`` as an action number if it is an integer (not a bool: ``True`` is no
    action), else None.  ``int()`` would turn ``3.7`` and ``"3"`` into 3, so a learner
    emitting floats would play actions it never chose, unflagged."""
    if isinstance(index, bool | np.bool_):
        return None
    try:
        return operator.index(index)
    except TypeError:
        return None


def index_action(index: int, on_table: int | None = None) -> Action:
    """The engine action of an index (claims take their tile from ``on_table``).

    Raises ``ValueError`` for an index out of range, one that is no integer (``int(3.7)``
    is 3: a float was read as another action) or a claim without a tile; whether the
    action is legal now is the engine's business.
    """
    i = action_number(index)
    if i is None:
        raise ValueError(f"action index {index!r} is no integer")
    if 0 <= i < 34:
        return DISCARDS[i]
    if CHI_LOW <= i <= KONG_DIRECT:
        if on_table is None:
            raise ValueError(f"action {i} claims a discard, but there is none on the table")
        if i == PENG:
            return PENGS[on_table]
        if i == KONG_DIRECT:
            return DIRECT_KONGS[on_table]
        low = on_table - (i - CHI_LOW)
        if on_table >= 27 or not 0 <= low % 9 <= 6 or low // 9 != on_table // 9:
            raise ValueError(f"no chi run puts the discard at position {i - CHI_LOW}")
        return CHIS[low]
    if KONG_CONCEALED <= i < KONG_ADDED:
        return CONCEALED_KONGS[i - KONG_CONCEALED]
    if KONG_ADDED <= i < KONG_ADDED + 34:
        return ADDED_KONGS[i - KONG_ADDED]
    if i in _SPECIAL_BY_INDEX:
        return _SPECIAL_BY_INDEX[i]
    if i == LAIZI_DISCARD_INDEX:
        return LAIZI_DISCARD
    if i == WIN_INDEX:
        return WIN
    if i == PASS_INDEX:
        return PASS
    raise ValueError(f"action index {i} out of range 0-{NUM_ACTIONS - 1}")


def action_mask(actions: Iterable[Action], on_table: int | None = None) -> npt.NDArray[np.int8]:
    """``int8`` vector of length ``NUM_ACTIONS``: 1 for each legal action."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for a in actions:
        mask[action_index(a, on_table)] = 1
    return mask


def action_names() -> list[str]:
    """A short readable name per index (for tables and logs)."""
    from ..tiles import tile_str

    names = [f"discard {tile_str(t)}" for t in range(34)]
    names += ["chi (discard lowest)", "chi (discard middle)", "chi (discard highest)", "peng",
              "kong direct (冲杠)"]
    names += [f"kong concealed {tile_str(t)}" for t in range(34)]
    names += [f"kong added {tile_str(t)}" for t in range(34)]
    names += ["red kong (红中杠)", "green kong (发财杠)", "laizi kong (癞子杠)", "pi kong (癞子皮杠)",
              "laizi discard (丢癞子)", "win", "pass"]
    return names


# ----------------------------------------------------------------------------- observations
RECENT = 6  # last discards of each seat, one plane each
_RULE_PLANES: tuple[tuple[str, Any], ...] = (
    ("rule direct_kong_opens", lambda r: float(r.direct_kong_opens)),
    ("rule opening_scoring per_opening", lambda r: float(r.opening_scoring == "per_opening")),
    ("rule big_hand_accumulation multiply", lambda r: float(r.big_hand_accumulation == "multiply")),
    ("rule pengpenghu", lambda r: float(r.pengpenghu)),
    ("rule situational_big_hands_need_258", lambda r: float(r.situational_big_hands_need_258)),
    ("rule small_hand_max_laizi / 4", lambda r: min(r.small_hand_max_laizi, 4) / 4),
    ("rule min_score_one_loser / 100", lambda r: min(r.min_score_one_loser, 100) / 100),
    ("rule min_score_every_loser / 100", lambda r: min(r.min_score_every_loser, 100) / 100),
    ("rule laizi_kong_factor / 4", lambda r: min(r.laizi_kong_factor, 4) / 4),
    ("rule fengyise_big_hands / 2", lambda r: min(r.fengyise_big_hands, 2) / 2),
    ("rule winner_order from_dealer", lambda r: float(r.winner_order == "from_dealer")),
    ("rule end_phase_wall / 82", lambda r: min(r.end_phase_wall, 82) / 82),
    ("rule final_draws / 8", lambda r: min(r.final_draws, 8) / 8),
)
_SEAT_SCALARS = ("concealed tiles / 14", "hidden concealed kongs / 4", "红中杠 / 4", "发财杠 / 4",
                 "癞子杠 / 4", "癞子皮杠 / 3", "丢癞子 / 4", "exposed melds / 4", "discards / 30")
_PROFILES = tuple(sorted(PROFILES))


def _plane_names() -> list[str]:
    names = [f"own hand: at least {k} of the kind" for k in (1, 2, 3, 4)]
    names += ["own drawn tile", "tile on the table (discard answered or added-kong tile)",
              "laizi", "indicator (癞子皮)", "must-kong tiles (红中 / 发财)", "癞子皮杠 tile"]
    for r in range(4):
        names += [f"seat +{r}: exposed meld tiles, at least {k}" for k in (1, 2, 3, 4)]
        names += [f"seat +{r}: discards, at least {k}" for k in (1, 2, 3, 4)]
        names += [f"seat +{r}: discard {k + 1} from last" for k in range(RECENT)]
    for r in range(4):
        names += [f"seat +{r}: {s}" for s in _SEAT_SCALARS]
    names += [f"phase {p}" for p in ("turn", "claim", "rob", "final")]
    names += [f"turn / discarder is seat +{r}" for r in range(4)]
    names += ["live wall / 82", "end phase (海底)", "final draws left / 4"]
    names += [f"dealer is seat +{r}" for r in range(4)]
    names += [f"own seat is {s}" for s in range(4)]
    names += [f"profile {p}" for p in _PROFILES]
    names += [n for n, _ in _RULE_PLANES]
    names += ["replacement draw: the seat in turn drew a kong's replacement (杠上花 if it wins)"]
    return names


PLANES: tuple[str, ...] = tuple(_plane_names())
NUM_PLANES = len(PLANES)
OBS_SHAPE = (NUM_PLANES, NUM_KINDS)
_SEAT_BASE = 10
_PER_SEAT = 8 + RECENT
_SCALAR_BASE = _SEAT_BASE + 4 * _PER_SEAT
_GLOBAL = _SCALAR_BASE + 4 * len(_SEAT_SCALARS)
_RULES_END = _GLOBAL + 19 + len(_PROFILES) + len(_RULE_PLANES)
_REPLACEMENT_DRAW = _RULES_END  # appended after the rules, so planes 0-136 kept their places
_PHASES = {"turn": 0, "claim": 1, "rob": 2, "final": 3}


@lru_cache(maxsize=64)
def _tile(text: str) -> int:
    return parse_tile(text)


@lru_cache(maxsize=4096)
def _tiles(text: str) -> tuple[int, ...]:
    return tuple(parse_tiles(text)) if text else ()


@lru_cache(maxsize=64)
def _rules_row(profile: str, options_key: str) -> tuple[Rules, npt.NDArray[np.float32]]:
    rules = get_rules(profile, json.loads(options_key))
    row = np.zeros(len(_PROFILES) + len(_RULE_PLANES), dtype=np.float32)
    row[_PROFILES.index(profile)] = 1.0
    for i, (_, f) in enumerate(_RULE_PLANES):
        row[len(_PROFILES) + i] = f(rules)
    return rules, row


_LEVELS = np.arange(1, 5, dtype=np.int64)[:, None]  # thermometer thresholds 1..4


def _thermometer(out: npt.NDArray[np.float32], base: int, tiles: Sequence[int]) -> None:
    """Planes ``base .. base+3``: at least 1, 2, 3, 4 of each kind among ``tiles``."""
    if tiles:
        out[base:base + 4] = np.bincount(tiles, minlength=NUM_KINDS) >= _LEVELS


def encode(view: SeatView, out: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
    """The observation planes of a seat view (shape ``OBS_SHAPE``; written into ``out`` if given).

    Everything comes from ``view``: the viewer's own hand and drawn tile and what is
    public.  A spectator view (``viewer`` None) is encoded from seat 0's place with an
    empty hand.
    """
    if out is None:
        out = np.zeros(OBS_SHAPE, dtype=np.float32)
    else:
        out.fill(0.0)
    me = view["viewer"] if view["viewer"] is not None else 0
    options = view["options"]
    rules, row = _rules_row(view["profile"], json.dumps(options, sort_keys=True) if options else "{}")
    _thermometer(out, 0, _tiles(view["hand"] or ""))
    if view["drawn"]:
        out[4, _tile(view["drawn"])] = 1.0
    table = view["on_table"]
    if table is not None:
        out[5, _tile(table["tile"])] = 1.0
    indicator = _tile(view["indicator"])
    out[6, _tile(view["laizi"])] = 1.0
    out[7, indicator] = 1.0
    for t in rules.must_kong_tiles:
        out[8, t] = 1.0
    if rules.pi_kong_active and indicator not in rules.must_kong_tiles:
        out[9, indicator] = 1.0
    scalars = np.zeros((4, len(_SEAT_SCALARS)), dtype=np.float32)
    for seat in view["seats"]:
        r = (seat["seat"] - me) % 4
        base = _SEAT_BASE + r * _PER_SEAT
        meld_tiles: list[int] = []
        hidden = exposed = 0
        for m in seat["melds"]:
            if m["tiles"] is None:
                hidden += 1
                continue
            if m["from_seat"] is not None:
                exposed += 1
            meld_tiles.extend(_tiles(m["tiles"]))
        _thermometer(out, base, meld_tiles)
        river = [_tile(d["tile"]) for d in seat["discards"]]
        _thermometer(out, base + 4, river)
        if river:
            last = river[:-RECENT - 1:-1]  # most recent first
            out[base + 8 + np.arange(len(last)), last] = 1.0
        sk = seat["special_kongs"]
        scalars[r] = (seat["concealed"] / 14, hidden / 4, sk["red"] / 4, sk["green"] / 4,
                      sk["laizi"] / 4, sk["pi"] / 3, seat["laizi_discards"] / 4, exposed / 4,
                      len(river) / 30)
    out[_SCALAR_BASE:_GLOBAL] = np.minimum(scalars.reshape(-1), 1.0)[:, None]
    g = _GLOBAL
    phase = _PHASES.get(view["phase"])
    if phase is not None:
        out[g + phase] = 1.0
    out[g + 4 + (view["turn"] - me) % 4] = 1.0
    out[g + 8] = min(view["wall"], 82) / 82
    out[g + 9] = float(view["end_phase"])
    out[g + 10] = min(view["final_draws_left"], 4) / 4
    out[g + 11 + (view["dealer"] - me) % 4] = 1.0
    out[g + 15 + me] = 1.0
    out[g + 19:_RULES_END] = row[:, None]
    if view["replacement_draw"]:
        out[_REPLACEMENT_DRAW] = 1.0
    return out


def view_mask(view: SeatView) -> npt.NDArray[np.int8]:
    """The action mask of a seat view (from its ``legal_actions``)."""
    from ..engine.actions import action_from_json

    table = view["on_table"]
    on_table = _tile(table["tile"]) if table is not None else None
    return action_mask((action_from_json(a) for a in view["legal_actions"]), on_table)


__all__ = [
    "CHI_HIGH", "CHI_LOW", "CHI_MID", "DISCARD", "KONG_ADDED", "KONG_CONCEALED", "KONG_DIRECT",
    "LAIZI_DISCARD_INDEX", "NUM_ACTIONS", "NUM_PLANES", "OBS_SHAPE", "PASS_INDEX", "PENG", "PLANES",
    "SPECIAL", "WIN_INDEX", "action_index", "action_mask", "action_names", "action_number", "encode",
    "index_action",
    "view_mask",
]
