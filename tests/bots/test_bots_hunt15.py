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
  (``SearchBot.own_quanqiuren``).

The bots answered every other position right; they are kept as guards, each marked so.
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
    out = []
    for win_by, frm in WAYS:
        seats: list[dict[str, Any]] = [{"hand": "", "melds": []} for _ in range(4)]
        seats[0] = {"hand": hand, "melds": mine}
        rec: dict[str, Any] = {"profile": profile, "dealer": 1, "indicator": indicator,
                               "winner": 0, "win_by": win_by, "winning_tile": tile,
                               "seats": seats}
        if frm is not None:
            rec["from"] = frm
        try:
            out.append(settle(parse_win_record(rec)).total)
        except NotAWin:
            out.append(0)
    return out


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
#: two 5m in the rivers: one left to draw
FIVES_SEEN = {1: "5m1z", 2: "5m3z", 3: "4z"}


def _single(melds: list[dict[str, Any]], profile: str, rivers: dict[int, str],
            hand: str = "5m7m", indicator: str = "1z", **kw: Any) -> SeatView:
    return make_view(hand, profile=profile, indicator=indicator, melds={0: melds},
                     discards=rivers, wall=30, **kw)


@pytest.mark.parametrize("profile", PROFILES)
def test_the_mixed_quanqiuren_waits_only_on_a_258(profile: str) -> None:
    """The rules' side: beside two chis and two pengs the 7m single wins nothing (77m is
    no 将 and the hand no big hand); the 5m single wins as 全求人 (one 5m left)."""
    assert _waits(profile, "7m", MIXED) == []
    assert _waits(profile, "5m", MIXED) == ["5m"]
    assert min(_collects(profile, "5m", "5m", MIXED)[1:]) > 0


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_mixed_quanqiuren_keeps_the_258(bot: str, profile: str) -> None:
    """Guard: every bot throws the 7m, keeping the 5m with one copy left."""
    ask(bot, _single(MIXED, profile, FIVES_SEEN), [discard("7m")])


@pytest.mark.parametrize("profile", PROFILES)
def test_four_pengs_free_the_pair(profile: str) -> None:
    """The rules' side: beside four pengs either single wins (碰碰胡 and 全求人, any
    pair), each win collecting as much on every discard; the 7m has three copies left,
    the 5m one."""
    assert _waits(profile, "7m", PENGS) == ["7m"]
    assert _waits(profile, "5m", PENGS) == ["5m"]
    assert _collects(profile, "7m", "7m", PENGS) == _collects(profile, "5m", "5m", PENGS)


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_four_pengs_keep_the_live_single(bot: str, profile: str) -> None:
    """Guard: every bot throws the 5m (one left) and waits on the 7m (three left)."""
    ask(bot, _single(PENGS, profile, FIVES_SEEN), [discard("5m")])


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


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_flush_single_is_kept(bot: str, profile: str) -> None:
    """Guard: every bot throws the 5m."""
    ask(bot, _single(PINS, profile, RIVERS, hand="5m7p"), [discard("5m")])


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


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_laizi_is_kept_as_half_the_pair(bot: str, profile: str) -> None:
    """Guard: every bot throws the 7m (not the laizi, thrown or konged, which would leave
    the 7m that can never win, or a replacement that pairs only if it is a 2/5/8)."""
    ask(bot, _single(MIXED, profile, RIVERS, hand="1p7m", indicator="9p",
                     extra_actions=[LAIZI_KONG, LAIZI_DISCARD]), [discard("7m")])
