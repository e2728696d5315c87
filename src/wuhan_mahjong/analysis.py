"""Hand analysis: legal winning arrangements, big hands, hard/soft, waits, shanten.

Everything here is a pure function of the tiles, the melds, the laizi and the
:class:`~wuhan_mahjong.rules.Rules`.  The settlement (``scoring``) and the
engine ask this module; nothing else decides whether a hand wins.

Readings
    A hand holding laizi can be read two ways: *hard* (硬胡, every laizi stands
    for its own face) or *soft* (软胡, the laizi are wilds).  :func:`readings`
    returns every legal reading; the settlement picks the one that pays the
    winner most.

>>> from wuhan_mahjong.rules import get_rules
>>> from wuhan_mahjong.tiles import parse_tiles, parse_tile
>>> r = get_rules()
>>> m = [Meld("chi", tuple(parse_tiles("234m")), 0), Meld("peng", tuple(parse_tiles("777s")), 3)]
>>> [(x.hard, x.big_hands) for x in readings(parse_tiles("456p678s55m"), m, parse_tile("1p"), r,
...                                           win_by="discard", winning_tile=parse_tile("5m"))]
[(True, ())]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from . import shape
from .meld import Meld, opening_count
from .rules import Rules
from .tiles import NUM_KINDS, counts_of, is_258, is_honour, suit_of, tile_str

WinBy = Literal["self_draw", "discard", "kong_bloom", "rob_kong", "last_tile"]
WIN_BY: tuple[WinBy, ...] = ("self_draw", "discard", "kong_bloom", "rob_kong", "last_tile")
SELF_DRAWN: frozenset[str] = frozenset({"self_draw", "kong_bloom", "last_tile"})
SITUATIONAL = {"kong_bloom": "gangshanghua", "last_tile": "haidilao", "rob_kong": "qiangganghu"}
STRUCTURAL_BIG = ("qingyise", "pengpenghu", "fengyise", "jiangyise")

BIG_HAND_NAMES: dict[str, tuple[str, str]] = {
    "pengpenghu": ("碰碰胡", "all triplets"),
    "qingyise": ("清一色", "one suit"),
    "fengyise": ("风一色", "all honours"),
    "jiangyise": ("将一色", "all 2-5-8"),
    "quanqiuren": ("全求人", "asking everyone"),
    "gangshanghua": ("杠上花", "win on a kong replacement"),
    "haidilao": ("海底捞", "win on a last draw"),
    "qiangganghu": ("抢杠胡", "robbing a kong"),
}


REFUSAL_CODES = ("no_shape", "not_opened", "pair_258", "discarded_laizi", "robbed_must_kong",
                 "holds_must_kong", "tile_count", "laizi_limit", "minimum_one_loser",
                 "minimum_every_loser", "no_peng_to_rob")
"""Every reason a hand may not win, by code (``refusal.<code>`` in the client's strings)."""


class Refusal(str):
    """Why a hand may not win: the sentence (it *is* the string, in English) with a
    ``code`` and ``params`` a client translates, as the server's errors have.

    >>> r = holds_must_kong(33)
    >>> r, r.code, r.params
    ('holds 7z (红中), which must be konged before a win', 'holds_must_kong', {'tile': '7z'})
    """

    code: str
    params: dict[str, str | int | float]

    def __new__(cls, text: str, code: str, **params: str | int | float) -> Refusal:
        if code not in REFUSAL_CODES and code != "other":
            raise ValueError(f"unknown refusal code {code!r}")
        self = super().__new__(cls, text)
        self.code = code
        self.params = params
        return self

    def __getnewargs_ex__(self) -> tuple[tuple[str, str], dict[str, str | int | float]]:
        return (str(self), self.code), dict(self.params)  # pickle and copy (engine states)

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "params": dict(self.params)}


NO_SHAPE = Refusal("not a winning shape", "no_shape")
_NOT_OPENED = {
    True: Refusal("has not opened (开口): a win needs a chi, peng or 冲杠 first", "not_opened",
                  opens="chi_peng_kong"),
    False: Refusal("has not opened (开口): a win needs a chi or peng first (a 冲杠 does not open "
                   "under these rules)", "not_opened", opens="chi_peng"),
}


def not_opened(direct_kong_opens: bool) -> Refusal:
    """Why a hand with no opening (开口) cannot win, naming the melds that open it under the
    rules in force (``opens``: ``chi_peng_kong``, or ``chi_peng`` when a 冲杠 does not open:
    the option ``direct_kong_opens``).

    >>> not_opened(False).params
    {'opens': 'chi_peng'}
    """
    return _NOT_OPENED[direct_kong_opens]
PAIR_258 = Refusal("a small hand (小胡) needs a 2/5/8 pair (将)", "pair_258")
DISCARDED_LAIZI = Refusal("a discarded laizi can never be won on", "discarded_laizi")
ROBBED_MUST_KONG = Refusal("a must-kong tile cannot be robbed", "robbed_must_kong")


def holds_must_kong(tile: int) -> Refusal:
    """Why a hand holding the must-kong tile ``tile`` (红中, 发财) cannot win."""
    return Refusal(f"holds {tile_str(tile)} ({'红中' if tile == 33 else '发财'}), which must be "
                   "konged before a win", "holds_must_kong", tile=tile_str(tile))


class NotAWin(Exception):
    """The hand cannot legally win; ``str(e)`` says which rule stops it, :attr:`refusal`
    the same with a code."""

    @property
    def refusal(self) -> Refusal:
        why = self.args[0] if self.args else ""
        return why if isinstance(why, Refusal) else Refusal(str(why), "other")


@dataclass(frozen=True)
class Group:
    """One group of an arrangement: a set or the pair.  ``wild[i]`` marks laizi."""

    kind: Literal["run", "triplet", "pair", "loose"]
    tiles: tuple[int, ...]
    wild: tuple[bool, ...]

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "tiles": "".join(tile_str(t) for t in self.tiles),
                "laizi": [i for i, w in enumerate(self.wild) if w]}


@dataclass(frozen=True)
class Reading:
    """One legal way to read a winning hand."""

    hard: bool
    big_hands: tuple[str, ...]
    groups: tuple[Group, ...] = field(default=())
    laizi_as: tuple[int, ...] = field(default=())

    @property
    def is_big(self) -> bool:
        return bool(self.big_hands)


def _opened(melds: Sequence[Meld], rules: Rules) -> bool:
    return opening_count(tuple(melds), rules.direct_kong_opens) > 0


def eligibility_error(
    concealed: Sequence[int], melds: Sequence[Meld], laizi: int, rules: Rules,
    win_by: str, winning_tile: int,
) -> Refusal | None:
    """The first eligibility rule (docs/RULES.md §13) that a win breaks, or ``None``.

    Shape, big hands, the laizi limit and the minimum score are checked later.
    """
    if not _opened(melds, rules):
        return not_opened(rules.direct_kong_opens)
    held = set(concealed)
    for t in sorted(rules.must_kong_tiles):
        if t in held:
            return holds_must_kong(t)
    if win_by in ("discard", "rob_kong") and winning_tile == laizi:
        return DISCARDED_LAIZI
    if win_by == "rob_kong" and winning_tile in rules.must_kong_tiles:
        return ROBBED_MUST_KONG
    return None


def readings(
    concealed: Sequence[int], melds: Sequence[Meld], laizi: int, rules: Rules,
    win_by: str = "self_draw", winning_tile: int | None = None,
) -> list[Reading]:
    """Every legal reading of a 14-tile hand (concealed tiles include the winning tile).

    Raises :class:`NotAWin` naming the rule that stops the win when there is
    none.  The minimum score is not checked here (it needs the other seats).
    """
    if len(concealed) + 3 * len(melds) != 14:
        # only a table with more than four final draws (海底) deals such a hand: a seat
        # drawing twice there keeps both tiles, and 15 make no hand (the fast shape tests
        # below assume 14, and 乱风 / 乱将 read any count)
        raise NotAWin(Refusal(f"{len(concealed)} tiles beside {len(melds)} melds: a winning "
                              "hand has 14, three a meld", "tile_count",
                              concealed=len(concealed), melds=len(melds)))
    if winning_tile is None:
        winning_tile = concealed[-1]
    err = eligibility_error(concealed, melds, laizi, rules, win_by, winning_tile)
    if err:
        raise NotAWin(err)
    counts = counts_of(concealed)
    wilds = counts[laizi]
    out = [_read(counts, 0, melds, laizi, rules, win_by, hard=True)]
    if wilds:
        soft = list(counts)
        soft[laizi] = 0
        out.append(_read(soft, wilds, melds, laizi, rules, win_by, hard=False))
    legal = [r for r in out if isinstance(r, Reading)]
    if not legal:
        # report the most specific reason: a bare shape failure says the least
        reasons = [r for r in out if isinstance(r, Refusal)]
        raise NotAWin(next((r for r in reasons if r != NO_SHAPE), reasons[0]))
    return legal


def _read(
    counts: list[int], wilds: int, melds: Sequence[Meld], laizi: int, rules: Rules,
    win_by: str, hard: bool,
) -> Reading | Refusal:
    h = shape.pack(counts)
    need_any = shape.need(h, shape.PAIR)
    need_258 = shape.need(h, shape.PAIR258)
    all_pungs = all(m.is_pung for m in melds)
    need_pung = shape.need(h, shape.PPAIR) if all_pungs else shape.INF
    real = [t for t in range(NUM_KINDS) if counts[t]]
    meld_tiles = [t for m in melds for t in m.tiles]
    everything = real + meld_tiles
    big: list[str] = []
    std_any = need_any <= wilds
    std_258 = need_258 <= wilds
    if rules.pengpenghu and need_pung <= wilds:
        big.append("pengpenghu")
    suits = {suit_of(t) for t in everything}
    if std_any and len(suits) == 1 and next(iter(suits)) < 3:
        big.append("qingyise")
    no_kong = rules.must_kong_tiles
    if everything and all(is_honour(t) and t not in no_kong for t in everything):
        big.append("fengyise")
    if everything and all(is_258(t) for t in everything):
        big.append("jiangyise")
    structural = bool(big)
    if (
        win_by == "discard" and len(melds) == 4 and all(m.is_claimed for m in melds)
        and (std_258 or (structural and std_any))
    ):
        big.append("quanqiuren")
    if win_by in SITUATIONAL:
        shape_ok = std_258 if rules.situational_big_hands_need_258 else std_any
        if structural or shape_ok:
            big.append(SITUATIONAL[win_by])
    held_laizi = counts[laizi] + wilds  # one of the two is zero, whichever the reading
    if not big:
        if not std_258:
            if std_any:
                return PAIR_258
            return NO_SHAPE
        if held_laizi > rules.small_hand_max_laizi:
            return Refusal(f"a small hand may hold at most {rules.small_hand_max_laizi} laizi "
                           f"when it wins; this one holds {held_laizi}", "laizi_limit",
                           most=rules.small_hand_max_laizi, held=held_laizi)
    if "pengpenghu" in big:
        mode = shape.PPAIR
    elif not big:
        mode = shape.PAIR258
    elif std_any:
        mode = shape.PAIR
    else:
        mode = -1  # 乱风 / 乱将: no structure
    groups, laizi_as = _arrange(counts, wilds, mode, big)
    if hard:
        laizi_as = tuple(laizi for _ in range(counts[laizi]))
    return Reading(hard=hard, big_hands=tuple(big), groups=groups, laizi_as=laizi_as)


def _arrange(
    counts: list[int], wilds: int, mode: int, big: list[str]
) -> tuple[tuple[Group, ...], tuple[int, ...]]:
    """One arrangement for the reading, with what each wild stands for."""
    if mode < 0:
        # no structure: every wild stands for a tile of the hand's family
        family = [t for t in range(NUM_KINDS)
                  if (is_honour(t) if "fengyise" in big else is_258(t))]
        loose = tuple(t for t in range(NUM_KINDS) for _ in range(counts[t]))
        fill = tuple(min(family, key=lambda t: counts[t]) for _ in range(wilds))
        return (Group("loose", loose + fill, (False,) * len(loose) + (True,) * wilds),), fill
    groups = _search(list(counts), wilds, mode, "qingyise" in big)
    if groups is None:  # pragma: no cover - the tables said it completes
        raise AssertionError("arrangement not found for a complete hand")
    laizi_as = tuple(t for g in groups for t, w in zip(g.tiles, g.wild, strict=True) if w)
    return tuple(groups), laizi_as


def _search(c: list[int], w: int, mode: int, one_suit: bool) -> list[Group] | None:
    """Depth-first arrangement search (only run once a win is known)."""
    runs = mode != shape.PPAIR
    suit_hint = next((suit_of(t) for t in range(NUM_KINDS) if c[t]), 0)

    def go(w: int, need_pair: bool) -> list[Group] | None:
        i = next((k for k in range(NUM_KINDS) if c[k]), -1)
        if i < 0:
            return _wild_groups(w, need_pair, suit_hint if one_suit else 0)
        n = c[i]
        for k in range(min(n, 3), 0, -1):
            if 3 - k <= w:
                c[i] -= k
                rest = go(w - (3 - k), need_pair)
                c[i] += k
                if rest is not None:
                    return [Group("triplet", (i,) * 3, (False,) * k + (True,) * (3 - k)), *rest]
        if need_pair and (mode != shape.PAIR258 or is_258(i)):
            for k in range(min(n, 2), 0, -1):
                if 2 - k <= w:
                    c[i] -= k
                    rest = go(w - (2 - k), False)
                    c[i] += k
                    if rest is not None:
                        return [Group("pair", (i, i), (False,) * k + (True,) * (2 - k)), *rest]
        if runs and i < 27:
            base = i - i % 9
            for s in range(max(base, i - 2), min(i, base + 6) + 1):
                idx = [j for j in range(s, s + 3) if j >= i and c[j]]
                if 3 - len(idx) > w:
                    continue
                for j in idx:
                    c[j] -= 1
                rest = go(w - (3 - len(idx)), need_pair)
                for j in idx:
                    c[j] += 1
                if rest is not None:
                    tiles = (s, s + 1, s + 2)
                    return [Group("run", tiles, tuple(t not in idx for t in tiles)), *rest]
        return None

    return go(w, True)


def _wild_groups(w: int, need_pair: bool, suit: int) -> list[Group] | None:
    """Groups made of wilds only (a pair reads as a 5 of ``suit``, sets as its 1s)."""
    if need_pair:
        if w < 2:
            return None
        t = suit * 9 + 4  # a pair of wilds reads as a 5 (a 2/5/8 pair) of the hand's suit
        groups = [Group("pair", (t, t), (True, True))]
        w -= 2
    else:
        groups = []
    if w % 3:
        return None
    groups += [Group("triplet", (suit * 9,) * 3, (True,) * 3) for _ in range(w // 3)]
    return groups


# ---------------------------------------------------------------------------
# waits and shanten


@dataclass(frozen=True)
class Wait:
    tile: int
    readings: tuple[Reading, ...]


def winning_readings(
    concealed: Sequence[int], melds: Sequence[Meld], laizi: int, rules: Rules,
    win_by: str = "self_draw", winning_tile: int | None = None,
) -> list[Reading]:
    """Like :func:`readings` but returns ``[]`` instead of raising."""
    try:
        return readings(concealed, melds, laizi, rules, win_by, winning_tile)
    except NotAWin:
        return []


def is_winning_shape(concealed: Sequence[int], melds: Sequence[Meld], laizi: int,
                     rules: Rules) -> bool:
    """Shape-level win (used by waits and shanten): a standard hand with a 2/5/8
    pair, 清一色, 碰碰胡, 风一色 or 将一色, ignoring the opening, held 红中, the
    laizi limit and the minimum score."""
    counts = counts_of(concealed)
    wilds = counts[laizi]
    counts[laizi] = 0
    return _shape_win(counts, wilds, melds, rules)


def _shape_win(counts: list[int], wilds: int, melds: Sequence[Meld], rules: Rules) -> bool:
    h = shape.pack(counts)
    if shape.need(h, shape.PAIR258) <= wilds:
        return True
    real = [t for t in range(NUM_KINDS) if counts[t]] + [t for m in melds for t in m.tiles]
    suits = {suit_of(t) for t in real}
    if len(suits) <= 1 and not (suits & {3}) and shape.need(h, shape.PAIR) <= wilds:
        return True
    if rules.pengpenghu and all(m.is_pung for m in melds) and shape.need(h, shape.PPAIR) <= wilds:
        return True
    no_kong = rules.must_kong_tiles
    if all(is_honour(t) and t not in no_kong for t in real):
        return True
    return all(is_258(t) for t in real)


def candidate_mask(hand: Sequence[int], melds: Sequence[Meld], laizi: int, rules: Rules) -> int:
    """A superset (bit per tile kind) of the tiles that can complete ``hand`` at the
    shape level: the table-driven waits of the standard and all-triplets shapes,
    the 风一色 / 将一色 families when the hand is in one, and the laizi itself."""
    counts = counts_of(hand)
    wilds = counts[laizi]
    counts[laizi] = 0
    h = shape.pack(counts)
    mask = shape.wait_mask(h, wilds, shape.PAIR) | (1 << laizi)
    if rules.pengpenghu and all(m.is_pung for m in melds):
        mask |= shape.wait_mask(h, wilds, shape.PPAIR)
    real = [t for t in range(NUM_KINDS) if counts[t]] + [t for m in melds for t in m.tiles]
    no_kong = rules.must_kong_tiles
    if all(is_honour(t) and t not in no_kong for t in real):
        mask |= sum(1 << t for t in range(27, 34) if t not in no_kong)
    if all(is_258(t) for t in real):
        mask |= sum(1 << t for t in range(27) if is_258(t))
    return mask


def waits(
    hand: Sequence[int], melds: Sequence[Meld], laizi: int, rules: Rules,
    win_by: str = "self_draw",
) -> list[Wait]:
    """The tiles that give a legal win (eligibility included, minimum score not),
    each with the readings it would make.  ``win_by`` "discard" excludes the laizi."""
    out = []
    mask = candidate_mask(hand, melds, laizi, rules)
    for t in range(NUM_KINDS):
        if not mask >> t & 1 or hand.count(t) >= 4:
            continue
        if win_by in ("discard", "rob_kong") and t == laizi:
            continue
        rs = winning_readings([*hand, t], melds, laizi, rules, win_by, t)
        if rs:
            out.append(Wait(t, tuple(rs)))
    return out


def shape_waits(hand: Sequence[int], melds: Sequence[Meld], laizi: int, rules: Rules) -> list[int]:
    """Tiles that complete a 3n+1 hand at the shape level (:func:`is_winning_shape`)."""
    mask = candidate_mask(hand, melds, laizi, rules)
    return [t for t in range(NUM_KINDS)
            if mask >> t & 1 and hand.count(t) < 4
            and is_winning_shape([*hand, t], melds, laizi, rules)]


def is_ready(hand: Sequence[int], melds: Sequence[Meld], laizi: int, rules: Rules) -> bool:
    """Ready (听牌) for contracting: some tile would give a legal win, ignoring the
    minimum score (Project decision 16)."""
    if len(hand) + 3 * len(melds) != 13:
        return False
    return any(
        winning_readings([*hand, t], melds, laizi, rules, "self_draw", t)
        or (t != laizi and winning_readings([*hand, t], melds, laizi, rules, "discard", t))
        for t in range(NUM_KINDS)
    )


def shanten(hand: Sequence[int], melds: Sequence[Meld], laizi: int, rules: Rules) -> int:
    """Exact shanten (向听) with laizi at the shape level of :func:`is_winning_shape`.

    The number of real tiles that fit no completion, less one for a complete
    hand: 0 means ready, -1 complete.  Laizi are always useful.
    """
    counts = counts_of(hand)
    wilds = counts[laizi]
    counts[laizi] = 0
    slots = 14 - 3 * len(melds)
    kept = _max_kept(counts, melds, rules, slots - wilds)
    # tiles still to draw into the empty slots, less the one that completes the hand
    return slots - wilds - kept - 1


def _max_kept(counts: list[int], melds: Sequence[Meld], rules: Rules, room: int) -> int:
    """The most real tiles that fit together into one winning hand."""
    sets_left = 4 - len(melds)
    meld_tiles = [t for m in melds for t in m.tiles]
    best = _kept_standard(counts, sets_left, pair258=True)
    meld_suits = {suit_of(t) for t in meld_tiles}
    for s in range(3):
        if meld_suits <= {s}:
            sub = [c if suit_of(t) == s else 0 for t, c in enumerate(counts)]
            best = max(best, _kept_standard(sub, sets_left, pair258=False))
    if rules.pengpenghu and all(m.is_pung for m in melds):
        best = max(best, _kept_pungs(counts, sets_left))
    no_kong = rules.must_kong_tiles
    if all(is_honour(t) and t not in no_kong for t in meld_tiles):
        best = max(best, sum(c for t, c in enumerate(counts) if is_honour(t) and t not in no_kong))
    if all(is_258(t) for t in meld_tiles):
        best = max(best, sum(c for t, c in enumerate(counts) if is_258(t)))
    return min(best, room)


def _kept_pungs(counts: list[int], sets_left: int) -> int:
    """Max real tiles placed into ``sets_left`` (partial) pungs and one (partial) pair.

    A laizi may stand for a fifth copy (``shape`` allows it), so one kind can fill
    more than one group: ``9999m`` is a pung plus half of a second pung or of the
    pair.  Each group takes at most three real tiles (two for the pair), so a kind's
    tiles go into groups three at a time and the largest groups are kept.
    """
    kinds = [t for t in range(NUM_KINDS) if counts[t]]
    best = 0
    for p in [None, *kinds]:
        for in_pair in ([0] if p is None else range(1, min(counts[p], 2) + 1)):
            groups: list[int] = []
            for t in kinds:
                left = counts[t] - (in_pair if t == p else 0)
                groups += [3] * (left // 3) + ([left % 3] if left % 3 else [])
            groups.sort(reverse=True)
            best = max(best, in_pair + sum(groups[:sets_left]))
    return best


def _kept_standard(counts: list[int], sets_left: int, pair258: bool) -> int:
    """Max real tiles placed into ``sets_left`` (partial) sets and one (partial) pair."""
    per_suit = [_suit_kept(tuple(counts[s * 9:s * 9 + 9]), True, 1 if pair258 else 0)
                for s in range(3)]
    per_suit.append(_suit_kept(tuple(counts[27:34]), False, 2 if pair258 else 0))
    # knapsack over suits: state (sets used, pair used) -> kept
    best: dict[tuple[int, int], int] = {(0, 0): 0}
    for table in per_suit:
        nxt: dict[tuple[int, int], int] = {}
        for (s0, p0), v0 in best.items():
            for (s1, p1), v1 in table.items():
                s, p = s0 + s1, p0 + p1
                if s <= sets_left and p <= 1:
                    key = (s, p)
                    if nxt.get(key, -1) < v0 + v1:
                        nxt[key] = v0 + v1
        best = nxt
    return max(best.values())


_SUIT_KEPT_CACHE: dict[tuple[tuple[int, ...], bool, int], dict[tuple[int, int], int]] = {}


def _suit_kept(c: tuple[int, ...], runs: bool, pairs: int) -> dict[tuple[int, int], int]:
    """(sets used, pair used) -> most tiles of this suit kept in partial groups.

    ``pairs``: 0 any kind may be the pair, 1 only a 2/5/8, 2 no pair in this suit.
    """
    key = (c, runs, pairs)
    hit = _SUIT_KEPT_CACHE.get(key)
    if hit is not None:
        return hit
    res: dict[tuple[int, int], int] = {}

    def go(lst: list[int], start: int, sets: int, pair: int, kept: int) -> None:
        k = (sets, pair)
        if res.get(k, -1) < kept:
            res[k] = kept
        if sets == 4 and pair == 1:
            return
        for i in range(start, len(lst)):
            if not lst[i]:
                continue
            if sets < 4:
                for k2 in (3, 2, 1):
                    if lst[i] >= k2:
                        lst[i] -= k2
                        go(lst, i, sets + 1, pair, kept + k2)
                        lst[i] += k2
                if runs:
                    for pattern in ((0, 1, 2), (0, 1), (0, 2)):
                        idx = [i + d for d in pattern]
                        if idx[-1] < 9 and all(lst[j] for j in idx):
                            for j in idx:
                                lst[j] -= 1
                            go(lst, i, sets + 1, pair, kept + len(idx))
                            for j in idx:
                                lst[j] += 1
            if pair == 0 and (pairs == 0 or (pairs == 1 and i % 9 in (1, 4, 7))):
                for k2 in (2, 1):
                    if lst[i] >= k2:
                        lst[i] -= k2
                        go(lst, i, sets, 1, kept + k2)
                        lst[i] += k2

    go(list(c), 0, 0, 0, 0)
    if len(_SUIT_KEPT_CACHE) >= shape.MEMO_LIMIT:  # bounded (see shape.MEMO_LIMIT)
        _SUIT_KEPT_CACHE.clear()
    _SUIT_KEPT_CACHE[key] = res
    return res
