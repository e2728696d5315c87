"""Decision problems of the fifteenth hunt (6 December 2026): the 2/5/8 pair (将).  A
small hand's pair must be a suited 2, 5 or 8; 清一色, 碰碰胡 and 将一色 free it, and
全求人 (four claimed melds, one tile held, a win on a discard) needs it unless the hand is
also one of those (Project decision 9).  Each position has one answer the rules settle,
checked by the analysis (:func:`wuhan_mahjong.analysis.waits`) and the settlement
(:func:`wuhan_mahjong.scoring.settle`, a win that fails the minimum score counted as
nothing, Project decision 14), not by the bots, and is asked of the bots it concerns in
every profile where the answer is the same.

The fault it found (the test fails on the code before the fix it names):

* In ``bianfeng``, opened by three melds and ready on 5m/8m with 5678m, no small win of
  the hand passes the minimum score (开口翻: one opening's factor, no kong; 0 from every
  loser by the settlement), when seat 3 throws the 9m (or the 4m): the chi of 789m (456m)
  leaves 5m 6m (7m 8m), and the 6m (7m) thrown waits on the 5m (8m) single as 全求人, a
  big hand that collects 140 on any discard.  The expert chis; the search bot, which
  plays an opened hand's claims out, passed on some seeds: its rollouts never let this
  seat win a 全求人 (the opponents' lone tiles had their pairing kinds from the model,
  its own none), so both moves played out as hands that never win and the noise chose.
  Its rollouts now win this seat's 全求人 and price it as a big hand
  (``SearchBot.own_quanqiuren``).  The same held for the peng of the other pair: ready
  on 55m 77p beside the same melds (only the 7p wins, and not past the minimum), the
  peng of seat 2's 7p keeps the 5m for a 全求人; the search bot passed on one seed of
  eight.

The bots answered every other position right; they are kept as guards, each marked so:
全求人's lone tile (the 2/5/8 beside mixed melds, the live single beside four pengs, the
pin beside a pin flush, the laizi as half of any 2/5/8 pair; in ``bianfeng``, of two
chis to a 全求人, the one whose 2/5/8 single has more copies left), the kanchan on a 2/5/8 pair
over a shanpon whose only winning tile is dead, no peng of the only 2/5/8 pair of a ready
hand, and the 将一色 that keeps its pungs for 碰碰胡.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.analysis import waits
from wuhan_mahjong.bots.search import SearchBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import NotAWin, settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles, tile_str
from wuhan_mahjong.win_record import parse_win_record

BOTS = ("greedy", "expert", "search")
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")
PASS = {"type": "pass"}
RIVERS = {1: "1z", 2: "3z", 3: "4z"}
#: who pays, in the order :func:`_collects` lists them
WAYS = (("self_draw", None), ("discard", 1), ("discard", 2), ("discard", 3))


def _collects(profile: str, hand: str, tile: str, melds: list[dict[str, Any]],
              indicator: str = "1z") -> list[int]:
    """What seat 0's win of ``hand`` (its concealed tiles before ``tile``) beside ``melds``
    collects by the settlement, self-drawn and on seat 1's, 2's and 3's discard (seat 1
    deals); 0 where the win fails the minimum score or is no win."""
    mine = [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]} for m in melds]
    seats: list[dict[str, Any]] = [{"hand": hand, "melds": mine},
                                   *({"hand": "", "melds": []} for _ in range(3))]
    base = {"profile": profile, "dealer": 1, "indicator": indicator, "winner": 0,
            "winning_tile": tile, "seats": seats}
    return [_total({**base, "win_by": win_by, **({} if frm is None else {"from": frm})})
            for win_by, frm in WAYS]


def _total(record: dict[str, Any]) -> int:
    """What the record's winner collects; 0 for no win (or one short of the minimum)."""
    try:
        return settle(parse_win_record(record)).total
    except NotAWin:
        return 0


def _waits(profile: str, hand: str, melds: list[dict[str, Any]],
           indicator: str = "1z") -> list[str]:
    """The tiles that give ``hand`` beside ``melds`` a legal win on a discard."""
    rules = get_rules(profile)
    ms = [Meld(m["type"], tuple(parse_tiles(m["tiles"])), m["from_seat"], None)
          for m in melds]
    laizi = rules.laizi_of(parse_tile(indicator))
    return [tile_str(w.tile) for w in waits(parse_tiles(hand), ms, laizi, rules, "discard")]


# ---------------------------------------------------------------- the fault found

#: three mixed melds (a chi of 123p and of 456s from seat 3, a peng of 999s from seat 2)
THREE = [meld("chi", "123p", 3), meld("peng", "999s", 2), meld("chi", "456s", 3)]
CHI_789M = {"type": "chi", "tile": "7m"}
CHI_456M = {"type": "chi", "tile": "4m"}
#: (the tile seat 3 throws, the chi, its run, the tile thrown after it, the 全求人 single)
CHIS = [("9m", CHI_789M, "789m", "6m", "5m"), ("4m", CHI_456M, "456m", "7m", "8m")]
#: two 5m in the rivers: one left to draw
FIVES_SEEN = {1: "5m1z", 2: "5m3z", 3: "4z"}


def _five_to_eight(tile: str, chi: dict[str, Any]) -> SeatView:
    return make_view("5678m", profile="bianfeng", melds={0: THREE}, claim=(tile, 3),
                     actions=[PASS, chi], discards=RIVERS, wall=30)


@pytest.mark.parametrize(("tile", "chi", "run", "thrown", "single"), CHIS)
def test_the_chi_turns_a_hand_that_cannot_pass_into_a_quanqiuren(
        tile: str, chi: dict[str, Any], run: str, thrown: str, single: str) -> None:
    """The rules' side (``bianfeng``): ready on 5m/8m, every win fails the minimum score
    (one opening's factor in 开口翻, no kong); after the chi and the ``thrown`` tile, the
    ``single`` waits alone, a 2/5/8, and its win on any seat's discard is 全求人, 140."""
    for win in ("5m", "8m"):
        assert _collects("bianfeng", "5678m", win, THREE) == [0, 0, 0, 0]
    held = parse_tiles("5678m")
    for x in parse_tiles(run):
        if x != parse_tile(tile):
            held.remove(x)
    assert sorted(held) == sorted(parse_tiles(thrown + single))
    after = [*THREE, meld("chi", run, 3)]
    assert _waits("bianfeng", single, after) == [single]
    assert _collects("bianfeng", single, single, after) == [0, 140, 140, 140]


@pytest.mark.parametrize("seed", range(1, 9))
@pytest.mark.parametrize(("tile", "chi", "run", "thrown", "single"), CHIS)
def test_the_search_bot_chis_for_the_quanqiuren(seed: int, tile: str, chi: dict[str, Any],
                                                run: str, thrown: str, single: str) -> None:
    """The search bot chis on every seed (it passed on four of these sixteen)."""
    ask("search", _five_to_eight(tile, chi), [chi], seed=seed)


@pytest.mark.parametrize(("tile", "chi", "seed"), [("9m", CHI_789M, 5), ("4m", CHI_456M, 1)])
def test_the_own_quanqiuren_switch_plays_as_before(tile: str, chi: dict[str, Any],
                                                   seed: int) -> None:
    """Off, the search bot passes on these seeds, as before: its rollouts priced the claim
    and the pass alike, a hand that never wins."""
    bot = SearchBot(seed, own_quanqiuren=False)
    assert bot.choose(_five_to_eight(tile, chi)) == action_from_json(PASS)


PENG_7P = {"type": "peng", "tile": "7p"}


def _shanpon(profile: str = "bianfeng") -> SeatView:
    """Ready on 55m 77p beside the three melds (only the 7p wins: a 5m would leave the
    77p pair), seat 2 throws a 7p."""
    return make_view("55m77p", profile=profile, melds={0: THREE}, claim=("7p", 2),
                     actions=[PASS, PENG_7P], discards=RIVERS, wall=30)


def test_the_peng_of_the_other_pair_keeps_the_258_for_a_quanqiuren() -> None:
    """The rules' side (``bianfeng``): the 7p is the only winning tile (a 5m would leave
    the 77p pair) and its win fails the minimum from every loser, so the engine offers
    no win on seat 2's 7p; after the peng and a 5m thrown, the other 5m waits as 全求人,
    140 on any discard."""
    assert _waits("bianfeng", "55m77p", THREE) == ["7p"]
    assert _collects("bianfeng", "55m77p", "7p", THREE) == [0, 0, 0, 0]
    after = [*THREE, meld("peng", "777p", 2)]
    assert _collects("bianfeng", "5m", "5m", after) == [0, 140, 140, 140]


@pytest.mark.parametrize("seed", range(1, 9))
def test_the_search_bot_pengs_for_the_quanqiuren(seed: int) -> None:
    """The search bot pengs on every seed (off, it passed on seed 3)."""
    ask("search", _shanpon(), [PENG_7P], seed=seed)


def test_the_own_quanqiuren_switch_passes_the_peng_as_before() -> None:
    """Off, the search bot passes on seed 3, as before."""
    assert SearchBot(3, own_quanqiuren=False).choose(_shanpon()) == action_from_json(PASS)


@pytest.mark.parametrize("bot", ["greedy", "expert"])
def test_guard_greedy_and_the_expert_peng_for_the_quanqiuren(bot: str) -> None:
    """Guard: greedy and the expert peng already."""
    ask(bot, _shanpon(), [PENG_7P])


CHI_567M = {"type": "chi", "tile": "5m"}
CHI_678M = {"type": "chi", "tile": "6m"}


def _two_chis() -> SeatView:
    """Ready on 5m/8m with 5678m beside the three melds (``bianfeng``), two 5m in the
    rivers, seat 3 throws a 6m: the chi of 567m leaves the 8m single, that of 678m the 5m."""
    return make_view("5678m", profile="bianfeng", melds={0: THREE}, claim=("6m", 3),
                     actions=[PASS, CHI_567M, CHI_678M], discards=FIVES_SEEN, wall=30)


def test_the_two_chis_leave_singles_of_one_value() -> None:
    """The rules' side: either chi leaves a 2/5/8 single whose 全求人 collects 140 on any
    discard; three 8m are left to draw and one 5m."""
    for run, single in (("567m", "8m"), ("678m", "5m")):
        after = [*THREE, meld("chi", run, 3)]
        assert _waits("bianfeng", single, after) == [single]
        assert _collects("bianfeng", single, single, after) == [0, 140, 140, 140]


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("seed", [1, 2])
def test_guard_the_chi_that_keeps_the_live_258(bot: str, seed: int) -> None:
    """Guard: every bot chis 567m and waits on the 8m (three left), not on the 5m."""
    ask(bot, _two_chis(), [CHI_567M], seed=seed)


@pytest.mark.parametrize("bot", ["greedy", "expert"])
@pytest.mark.parametrize(("tile", "chi", "run", "thrown", "single"), CHIS)
def test_guard_greedy_and_the_expert_chi_for_the_quanqiuren(
        bot: str, tile: str, chi: dict[str, Any], run: str, thrown: str, single: str) -> None:
    """Guard: greedy (a claim whose waits pass the minimum, ``big_wins``) and the expert
    (``ready_claim``) chi already."""
    ask(bot, _five_to_eight(tile, chi), [chi])


# ---------------------------------------------------------------- guards: 全求人's lone tile

#: four mixed melds (two chis, two pengs): no big hand, so the lone tile's pair is a 2/5/8
MIXED = [meld("chi", "123m", 3), meld("chi", "456p", 3), meld("peng", "777s", 1),
         meld("peng", "999s", 2)]
#: four pengs: 碰碰胡, so the lone tile pairs whatever it is
PENGS = [meld("peng", "111m", 3), meld("peng", "999p", 3), meld("peng", "777s", 1),
         meld("peng", "333s", 2)]
#: four pin melds: 清一色, so a pin pairs whatever its rank
PINS = [meld("chi", "123p", 3), meld("chi", "456p", 3), meld("peng", "888p", 1),
        meld("chi", "234p", 3)]


@pytest.mark.parametrize("profile", PROFILES)
def test_the_mixed_quanqiuren_waits_only_on_a_258(profile: str) -> None:
    """The rules' side: beside two chis and two pengs the 7m single wins nothing (77m is
    no 将 and the hand no big hand); the 5m single wins as 全求人 (one 5m left)."""
    assert _waits(profile, "7m", MIXED) == []
    assert _waits(profile, "5m", MIXED) == ["5m"]
    assert min(_collects(profile, "5m", "5m", MIXED)[1:]) > 0


@pytest.mark.parametrize("profile", PROFILES)
def test_four_pengs_free_the_pair(profile: str) -> None:
    """The rules' side: beside four pengs either single wins (碰碰胡 and 全求人, any
    pair), each win collecting as much on every discard; the 7m has three copies left,
    the 5m one."""
    assert _waits(profile, "7m", PENGS) == ["7m"]
    assert _waits(profile, "5m", PENGS) == ["5m"]
    assert _collects(profile, "7m", "7m", PENGS) == _collects(profile, "5m", "5m", PENGS)


@pytest.mark.parametrize("profile", PROFILES)
def test_the_flush_single_outworths_the_258(profile: str) -> None:
    """The rules' side: beside four pin melds the 7p single wins 清一色 and 全求人 (the
    77p pair free beside 清一色), the 5m single 全求人 alone (self-drawn, a small hand),
    three copies left of each: the 7p's wins collect at least as much every way and more
    self-drawn (``bianfeng``: 180 and 280 a discard against 0 and 140; in ``yuanhang``
    the four openings hold both at the cap on a discard, 1,200, and the 7p's self-draw
    collects 1,200 against 256)."""
    assert _waits(profile, "7p", PINS) == ["7p"]
    flush = _collects(profile, "7p", "7p", PINS)
    plain = _collects(profile, "5m", "5m", PINS)
    assert all(f >= p for f, p in zip(flush, plain, strict=True)) and flush[0] > plain[0]


#: the laizi 1p (indicator 9p) beside the 7m: kept, it pairs any 2/5/8 (soft)
LAIZI_KONG = {"type": "special_kong", "kind": "laizi"}
LAIZI_DISCARD = {"type": "laizi_discard"}


@pytest.mark.parametrize("profile", PROFILES)
def test_the_laizi_is_half_of_any_258_pair(profile: str) -> None:
    """The rules' side: the laizi alone beside the mixed melds wins on every 2/5/8 (it
    stands in as the other half of the pair); the 7m alone wins on nothing."""
    w = _waits(profile, "1p", MIXED, indicator="9p")
    assert w and all(int(x[0]) in (2, 5, 8) for x in w)
    assert _waits(profile, "7m", MIXED, indicator="9p") == []


# ------------------------------------------- guards: waits whose pair is no 2/5/8

CHI_234M = meld("chi", "234m", 3)
#: 678m 456p 55s 77s 9s beside the chi of 234m (and one 红中 kong, for the minimum score):
#: the 9s leaves the 55s/77s shanpon, whose 5s would leave the 77s pair; both other 7s
#: are in the rivers.  The 7s leaves 55s 79s on the 8s (two left)
SHANPON = "678m456p55s77s9s"
SHANPON_RIVERS = {1: "7s1z", 2: "8s3z7s", 3: "4z8s"}


def test_the_shanpon_wins_only_on_its_dead_7s() -> None:
    """The rules' side: after the 9s only the 7s wins (none left); after the 7s the 8s
    wins (two left); after the 5s nothing (79s beside the 77s pair)."""
    after = {}
    for d in ("9s", "7s", "5s"):
        rest = parse_tiles(SHANPON)
        rest.remove(parse_tile(d))
        after[d] = _waits("yuanhang", "".join(tile_str(x) for x in rest), [CHI_234M])
    assert after == {"9s": ["7s"], "7s": ["8s"], "5s": []}


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_258_pair_kanchan_over_the_dead_shanpon(bot: str, profile: str) -> None:
    """Guard: every bot throws the 7s."""
    view = make_view(SHANPON, profile=profile, melds={0: [CHI_234M]}, discards=SHANPON_RIVERS,
                     wall=30, red_kongs={0: 1})
    ask(bot, view, [discard("7s")])


PENG_5M = {"type": "peng", "tile": "5m"}


@pytest.mark.parametrize("profile", ["yuanhang", "laizishanzhuang"])
def test_the_peng_of_the_258_pair_leaves_no_win(profile: str) -> None:
    """The rules' side: ready on the 7p (55m 77p), a win there collects from every loser
    (no minimum in ``laizishanzhuang``, three openings' factors in ``yuanhang``); after the
    peng of seat 2's 5m the 77p left beside four mixed melds can pair only as 全求人, which
    needs a 2/5/8: the hand waits on nothing."""
    assert min(_collects(profile, "55m77p", "7p", THREE)) > 0
    after = [*THREE, meld("peng", "555m", 2)]
    assert _waits(profile, "7p", after) == []


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", ["yuanhang", "laizishanzhuang"])
def test_guard_no_peng_of_the_258_pair(bot: str, profile: str) -> None:
    """Guard: every bot passes on the 5m."""
    view = make_view("55m77p", profile=profile, melds={0: THREE}, claim=("5m", 2),
                     actions=[PASS, PENG_5M], discards=RIVERS, wall=30)
    ask(bot, view, [PASS])


# ---------------------------------------------------------------- guard: 将一色

#: 555p 888s 22s 55m 8m beside a peng of 222m: every tile a 2/5/8 (将一色, no sets needed)
JIANG = "555p888s22s55m8m"


@pytest.mark.parametrize("profile", PROFILES)
def test_the_jiangyise_keeps_its_pungs(profile: str) -> None:
    """The rules' side: after the 8m the hand waits on every 2/5/8 as 将一色, and its 2s
    and 5m also complete 碰碰胡 (two big hands: more on every way of winning); after the
    2s (or a 5p) it waits on the same 2/5/8 kinds as 将一色 alone."""
    peng = [meld("peng", "222m", 2)]
    kept = _waits(profile, "555p888s22s55m", peng)
    assert all(int(x[0]) in (2, 5, 8) for x in kept) and len(kept) >= 8
    two = _collects(profile, "555p888s22s55m", "5m", peng)
    one = _collects(profile, "555p888s2s55m8m", "5m", peng)
    assert all(a >= b for a, b in zip(two, one, strict=True)) and sum(two) > sum(one)


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_jiangyise_throws_the_lone_8m(bot: str, profile: str) -> None:
    """Guard: every bot throws the 8m."""
    view = make_view(JIANG, profile=profile, melds={0: [meld("peng", "222m", 2)]},
                     discards={1: "1z9m", 2: "3z1p", 3: "4z9s"}, wall=40)
    ask(bot, view, [discard("8m")])


#: (the melds, the rivers, the two tiles held, the indicator, the tile thrown)
SINGLES = [
    (MIXED, FIVES_SEEN, "5m7m", "1z", "7m"),  # the 5m, one left, pairs as the 将
    (PENGS, FIVES_SEEN, "5m7m", "1z", "5m"),  # 碰碰胡: the 7m, three left
    (PINS, RIVERS, "5m7p", "1z", "5m"),  # 清一色 and 全求人 on the 7p
    (MIXED, RIVERS, "1p7m", "9p", "7m"),  # the laizi pairs any 2/5/8 (not thrown, not konged)
]


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("melds", "rivers", "hand", "indicator", "thrown"), SINGLES)
def test_guard_the_lone_tile_of_a_quanqiuren(bot: str, profile: str,
                                             melds: list[dict[str, Any]],
                                             rivers: dict[int, str], hand: str,
                                             indicator: str, thrown: str) -> None:
    """Guard: beside four claimed melds every bot keeps the single the positions above
    settle (the 5m with one left beside mixed melds; the 7m with three left beside four
    pengs; the 7p beside a pin flush; the laizi beside mixed melds, offered its kong and
    its discard too)."""
    view = make_view(hand, profile=profile, indicator=indicator, melds={0: melds},
                     discards=rivers, wall=30, extra_actions=(
                         [LAIZI_KONG, LAIZI_DISCARD] if indicator == "9p" else None))
    ask(bot, view, [discard(thrown)])
