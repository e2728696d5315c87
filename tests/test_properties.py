"""Property tests: the fast tables against a plain recursive reference, waits,
shanten and zero-sum settlements."""

from __future__ import annotations

import random
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from wuhan_mahjong import shape
from wuhan_mahjong.analysis import (
    shanten,
    shape_waits,
    waits,
    winning_readings,
)
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import PROFILES, Rules, get_rules
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.tiles import all_tiles, counts_of, parse_tile, parse_tiles
from wuhan_mahjong.win_record import SeatState, WinRecord

profiles = st.sampled_from(sorted(PROFILES))

# --- a plain reference: recursive search over the 34 counts, no tables ----------


@lru_cache(maxsize=200_000)
def ref_complete(counts: tuple[int, ...], wilds: int, pair_done: bool = False,
                 pair258: bool = False, runs: bool = True) -> bool:
    """Four-sets-and-a-pair with ``wilds`` jokers, by brute force.  ``pair258``:
    the pair must be a suited 2/5/8 (two jokers can always be one); ``runs``
    False: triplets only."""
    i = next((k for k in range(34) if counts[k]), -1)
    if i < 0:
        left = wilds - (0 if pair_done else 2)
        return left >= 0 and left % 3 == 0
    rec = lambda cs, w, pd: ref_complete(cs, w, pd, pair258, runs)  # noqa: E731
    c = list(counts)

    def sub(*idx: int) -> tuple[int, ...]:
        d = list(c)
        for j in idx:
            d[j] -= 1
        return tuple(d)

    # pair: two real, or one real and a wild; a pair of two wilds is left to the end
    if not pair_done and (not pair258 or (i < 27 and i % 9 in (1, 4, 7))):
        if c[i] >= 2 and rec(sub(i, i), wilds, True):
            return True
        if wilds >= 1 and rec(sub(i), wilds - 1, True):
            return True
    # triplet: 3, 2 + wild, 1 + 2 wilds
    for real in (3, 2, 1):
        if c[i] >= real and wilds >= 3 - real and rec(sub(*[i] * real), wilds - (3 - real), pair_done):
            return True
    # runs through tile i, other members real or wild
    if runs and i < 27:
        r = i % 9
        for start in (r - 2, r - 1, r):
            if 0 <= start <= 6:
                members = [i - r + start + k for k in range(3)]
                real = [m for m in members if m == i or (m > i and c[m])]
                need = 3 - len(real)
                if wilds >= need and rec(sub(*real), wilds - need, pair_done):
                    return True
    return False


def random_hand(rng: random.Random, n: int, wilds: int, winning_bias: bool) -> list[int]:
    """n tiles; with ``winning_bias`` built from sets and a pair, then some tiles swapped out."""
    if not winning_bias:
        w = all_tiles()
        rng.shuffle(w)
        return w[:n]
    counts = [0] * 34
    tiles: list[int] = []
    while len(tiles) < n - 2:
        if rng.random() < 0.5:
            s = rng.randrange(3) * 9 + rng.randrange(7)
            group = [s, s + 1, s + 2]
        else:
            t = rng.randrange(34)
            group = [t] * 3
        if all(counts[x] < 4 - group.count(x) + 1 for x in group):
            for x in group:
                counts[x] += 1
            tiles += group
    p = rng.randrange(34)
    tiles += [p, p]
    tiles = tiles[:n]
    for _ in range(rng.randrange(3)):
        tiles[rng.randrange(len(tiles))] = rng.randrange(34)
    return tiles


@settings(max_examples=600, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.booleans())
def test_fast_win_check_agrees_with_reference(seed: int, wilds: int, bias: bool) -> None:
    rng = random.Random(seed)
    tiles = random_hand(rng, 14 - wilds, wilds, bias)
    counts = counts_of(tiles)
    h = shape.pack(counts)
    assert shape.is_complete(h, wilds) == ref_complete(tuple(counts), wilds)
    assert (shape.need(h, shape.PAIR258) <= wilds) == ref_complete(tuple(counts), wilds,
                                                                  pair258=True)
    assert (shape.need(h, shape.PPAIR) <= wilds) == ref_complete(tuple(counts), wilds, runs=False)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.booleans())
def test_wait_mask_equals_brute_force(seed: int, wilds: int, bias: bool) -> None:
    rng = random.Random(seed)
    tiles = random_hand(rng, 13 - wilds, wilds, bias)
    counts = counts_of(tiles)
    h = shape.pack(counts)
    mask = shape.wait_mask(h, wilds)
    for t in range(34):
        expected = counts[t] < 4 and ref_complete(
            tuple(c + (k == t) for k, c in enumerate(counts)), wilds)
        assert bool(mask >> t & 1) == expected


# --- rules-level waits and shanten -----------------------------------------------

MELDS = [
    [],
    [Meld("peng", (27, 27, 27), 2)],
    [Meld("chi", (0, 1, 2), 0)],
    [Meld("peng", (4, 4, 4), 2), Meld("chi", (19, 20, 21), 0)],
]


def hand_case(seed: int, k: int, bias: bool, profile: str) -> tuple[list[int], list[Meld], int, Rules]:
    rng = random.Random(seed)
    melds = MELDS[k]
    rules = get_rules(profile)
    laizi = rules.laizi_of(rng.randrange(34))
    n = 13 - 3 * len(melds)
    hand = random_hand(rng, n, 0, bias)
    used = counts_of([*hand, *(t for m in melds for t in m.tiles)])
    hand = [t for t in hand if t not in rules.must_kong_tiles and used[t] <= 4]
    while len(hand) < n:
        t = rng.randrange(34)
        if used[t] < 4 and t not in rules.must_kong_tiles:
            used[t] += 1
            hand.append(t)
    if rng.random() < 0.5:
        hand[rng.randrange(n)] = laizi
    return hand, melds, laizi, rules


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.integers(0, 3), st.booleans(), profiles)
def test_waits_are_exactly_the_winning_tiles(seed: int, k: int, bias: bool, profile: str) -> None:
    hand, melds, laizi, rules = hand_case(seed, k, bias, profile)
    got = {w.tile for w in waits(hand, melds, laizi, rules)}
    expected = {t for t in range(34) if hand.count(t) < 4
                and winning_readings([*hand, t], melds, laizi, rules, "self_draw", t)}
    assert got == expected


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.integers(0, 3), st.booleans(), profiles)
@example(73832, 0, True, "bianfeng")  # 9999m222999s444z, laizi 1p: ready only on the laizi
def test_shanten_zero_exactly_when_a_wait_exists(seed: int, k: int, bias: bool, profile: str) -> None:
    hand, melds, laizi, rules = hand_case(seed, k, bias, profile)
    s = shanten(hand, melds, laizi, rules)
    has_wait = bool(shape_waits(hand, melds, laizi, rules))
    assert s >= 0
    assert (s == 0) == has_wait


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.integers(0, 3), profiles)
def test_shanten_is_one_more_than_the_best_exchange(seed: int, k: int, profile: str) -> None:
    """The defining recurrence: one tile exchange (discard, draw) lowers shanten by
    exactly one at best, down to ready."""
    hand, melds, laizi, rules = hand_case(seed, k, True, profile)
    s = shanten(hand, melds, laizi, rules)
    best = min(
        shanten([*hand[:i], *hand[i + 1:], t], melds, laizi, rules)
        for t in range(34) if hand.count(t) < 4
        for i in range(len(hand)))
    assert best == max(s - 1, 0)


# --- settlements -------------------------------------------------------------------


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), profiles, st.sampled_from(["once", "per_opening"]))
def test_settlements_are_zero_sum(seed: int, profile: str, mode: str) -> None:
    rng = random.Random(seed)
    rules = get_rules(profile, {"opening_scoring": mode})
    winner = rng.randrange(4)
    win_by = rng.choice(["self_draw", "discard", "kong_bloom", "last_tile", "discard"])
    # a winning hand for the winner: one chi from the previous player and sets
    chi = Meld("chi", (9, 10, 11), (winner - 1) % 4)
    concealed = [0, 1, 2, 18, 19, 20, 30, 30, 30, 4]
    rng.shuffle(concealed)
    winning = 4
    seats = []
    used = {9, 10, 11, 0, 1, 2, 18, 19, 20, 30, 4}
    for seat in range(4):
        if seat == winner:
            seats.append(SeatState(tuple(concealed), (chi,), red_kongs=rng.randrange(2)))
            continue
        melds: list[Meld] = []
        for _ in range(rng.randrange(3)):
            t = rng.choice([t for t in range(27) if t not in used])
            used.add(t)
            kind = rng.choice(["peng", "direct", "added", "concealed"])
            if kind == "peng":
                melds.append(Meld("peng", (t,) * 3, (seat + 1) % 4))
            else:
                melds.append(Meld("kong", (t,) * 4, None if kind == "concealed" else (seat + 1) % 4,
                                  kind))
        seats.append(SeatState((), tuple(melds), laizi_discards=rng.randrange(2)))
    frm = rng.choice([s for s in range(4) if s != winner]) if win_by == "discard" else None
    indicator = 26 if rules.laizi_of(26) not in used else 33
    rec = WinRecord(rules, rng.randrange(4), indicator, winner, win_by, frm, winning, tuple(seats))
    try:
        s = settle(rec)
    except Exception as e:  # only the minimum score may refuse these hands
        assert "minimum" in str(e)
        return
    assert sum(s.deltas) == 0
    assert s.deltas[winner] == sum(int(p.amount) for p in s.payments) > 0
    assert all(p.amount <= p.raw or p.limit in ("golden", "bright") for p in s.payments)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), profiles)
def test_arrangements_account_for_every_tile(seed: int, wilds: int, profile: str) -> None:
    """Whenever a hand wins, the reading's arrangement uses exactly its tiles, and
    what each laizi stands for is named."""
    rng = random.Random(seed)
    rules = get_rules(profile)
    laizi = 33 if rules.laizi_of(26) == 33 else rules.laizi_of(26)
    chi = Meld("chi", (18, 19, 20), 0)
    full = [t if t != laizi and t not in rules.must_kong_tiles else 4
            for t in random_hand(rng, 11, 0, True)]
    rng.shuffle(full)
    tiles = full[wilds:]  # swapping tiles for wilds keeps a complete hand complete
    concealed = tiles + [laizi] * wilds
    for r in winning_readings(concealed, [chi], laizi, rules, "self_draw", concealed[-1]):
        if r.groups and r.groups[0].kind != "loose":
            used = sorted(t for g in r.groups for t, w in zip(g.tiles, g.wild, strict=True) if not w)
            n_wild = sum(w for g in r.groups for w in g.wild)
            if r.hard:
                assert sorted(concealed) == used and n_wild == 0
            else:
                assert sorted(tiles) == used and n_wild == wilds == len(r.laizi_as)
        else:
            assert sum(len(g.tiles) for g in r.groups) == len(concealed)


@pytest.mark.parametrize("hand, indicator, profile, expected", [
    # the laizi stands for a fifth 9m: 999m + 9m-laizi pair beside three pungs (碰碰胡)
    ("9999m222999s444z", "9p", "bianfeng", 0),
    ("9999m222999s444z", "9p", "yuanhang", 0),
    # with the laizi in hand the same shape is complete
    ("9999m222999s444z1p", "9p", "bianfeng", -1),
    # two kinds held four times, three laizi (3m): 111m 1m-3m 444m 4m-3m-3m 11s, ready on 1s
    ("1111m3334444m11s", "2m", "yuanhang", 0),
    # four laizi (2p): 333p 3p-2p-2p 333s 3s-2p-2p, ready on the pair 6z
    ("22223333p3333s6z", "1p", "yuanhang", 0),
])
def test_shanten_counts_the_laizi_as_a_fifth_copy(hand: str, indicator: str, profile: str,
                                                  expected: int) -> None:
    rules = get_rules(profile)
    laizi = rules.laizi_of(parse_tile(indicator))
    tiles = parse_tiles(hand)
    assert shanten(tiles, [], laizi, rules) == expected
    if len(tiles) == 13:  # waits are a 13-tile question
        assert bool(shape_waits(tiles, [], laizi, rules)) == (expected == 0)
