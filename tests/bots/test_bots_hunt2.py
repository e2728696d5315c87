"""Decision problems of the second hunt (5 December 2026): positions with one clearly right
answer, each asked of the shipped bots it concerns, with the answer and why beside it.

The faults it found (each test fails on the code before the fix it names):

* A ready discard whose every wait is a soft small win (the laizi standing in) that
  cannot pass the minimum score: greedy ranked the waits by tiles and kept it
  (``GreedyBot.soft_waits``, :func:`wuhan_mahjong.bots.greedy.ready_wins`).
* A safe tile that costs a step and saves next to nothing: the search bot's play-outs,
  in which a closed hand hardly opens, preferred it to the expert's equally safe discard
  (``SearchBot.slight_safety``).
* Two ready discards with as many winning tiles, one of them for more big hands (a
  清一色碰碰胡 against a 清一色, a 清一色 against a small hand): greedy let its acceptance
  (which counts a second laizi drawn to a small hand) and the shape of the tile thrown
  decide (``GreedyBot.big_ties``).
* A laizi kong that shanten calls free but that narrows a ready hand's waits for a
  factor the caps make worthless: every bot konged the wild of a 清一色 already at 金顶
  (``GreedyBot.laizi_waits``, :meth:`GreedyBot.laizi_kong_keeps_waits`); and greedy, in
  边锋, konged the wild that a 全求人 waited on, for a small hand short of the minimum
  score (:meth:`GreedyBot.wild_waits_big`).

The positions the bots already answered right are below them, marked as guards against
regressions.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.bots.greedy import GreedyBot
from wuhan_mahjong.bots.search import SearchBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json

BOTS = ("greedy", "expert", "search")
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")
PASS = {"type": "pass"}




# ---------------------------------------------------------------- faults found

def _soft_view(profile: str = "yuanhang") -> SeatView:
    # the dealer with the laizi 5p (indicator 4p); 远航: opened twice (chi 789p, peng
    # 999m); 边锋: opened once (chi 789p), 999m concealed and a 红中 kong
    if profile == "bianfeng":
        return make_view("2m5p7p7p8p9p5s5s9m9m9m", profile=profile, indicator="4p", dealer=0,
                         melds={0: [meld("chi", "789p", 3)]}, red_kongs={0: 1})
    return make_view("2m5p7p7p8p9p5s5s", profile=profile, indicator="4p", dealer=0,
                     melds={0: [meld("chi", "789p", 3), meld("peng", "999m", 2)]})


@pytest.mark.parametrize("bot", BOTS)
def test_the_wait_that_can_pass_the_minimum_score_in_bianfeng(bot: str) -> None:
    """The same in 边锋 (开口翻), the dealer opened once with a 红中 kong: a soft small win
    is 8 from each loser (16 from the discarder), short of the 20 one of them must owe;
    a hard one 16 (32).  Throwing 7p keeps only soft wins; throwing 2m keeps the hard
    6p.  Greedy threw 7p."""
    ask(bot, _soft_view("bianfeng"), [discard("2m")])


@pytest.mark.parametrize("bot", BOTS)
def test_the_wait_that_can_pass_the_minimum_score(bot: str) -> None:
    """远航, the dealer opened twice (口口翻 ×4, dealer ×2), holding the laizi 5p:
    throwing 7p leaves 789p 55s and 2m beside the wild, ready on 1m-4m and 5s, but every
    one of those wins has the laizi standing in (soft, no 硬胡 ×2): 8 × 2 (self-draw) or
    8 × 2 (the discarder's deal-in) is 16 from a loser, short of the 20 the minimum asks,
    so none of them can ever be won.  Throwing 2m leaves 5p 77p 89p 55s: the 6p makes
    567p with the laizi as itself beside 789p and the pair 55s, a hard win (16 × 2 = 32
    from a loser), four tiles that win where the 7p leaves none.  Greedy counted the tiles
    that complete the shape (the soft wait has more) and threw 7p."""
    view = _soft_view()
    ask(bot, view, [discard("2m")])


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_the_soft_wait_switch_plays_as_before(profile: str) -> None:
    """``soft_waits`` off: greedy ranks the waits by tiles, as before (the 7p)."""
    bot = GreedyBot(1)
    bot.soft_waits = False
    assert bot.choose(_soft_view(profile)) == action_from_json(discard("7p"))


def _two_big_view(profile: str) -> SeatView:
    # beside a 777s peng, 11s 2222s 44s 888s (the laizi 8p, indicator 7p)
    return make_view("1s1s2s2s2s2s4s4s8s8s8s", profile=profile, indicator="7p",
                     melds={0: [meld("peng", "777s", 2)]})


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_as_many_winning_tiles_for_two_big_hands(bot: str, profile: str) -> None:
    """Throwing 1s (or 4s) leaves a 清一色 waiting on the four 3s; throwing 2s leaves the
    shanpon 11s/44s, four tiles too, each win a 清一色 and a 碰碰胡 (two big hands: 20
    where they multiply or add, against 10, far below every cap).  As many tiles, twice
    the pay: 2s.  Greedy, with as many tiles and as much acceptance either way, let the
    shape of the tile thrown decide and threw 1s (``GreedyBot.big_ties``)."""
    ask(bot, _two_big_view(profile), [discard("2s")])


@pytest.mark.parametrize("bot", BOTS)
def test_as_many_winning_tiles_for_a_flush(bot: str) -> None:
    """赖子山庄, beside two 456m chis, the laizi 1s: throwing 9m leaves 22m 345m, the wild and
    8s, a small hand on 2m, 6s-9s (sixteen tiles); throwing 8s leaves 22m 345m 9m and the
    wild, a 清一色 on 2m, 7m-9m (sixteen too), ten times the base.  Greedy threw 9m: its
    acceptance counted the second laizi drawn to the small hand, which cannot win holding
    two."""
    view = make_view("2m2m3m4m5m9m1s8s", profile="laizishanzhuang", indicator="9s",
                     melds={0: [meld("chi", "456m", 3), meld("chi", "456m", 3)]})
    ask(bot, view, [discard("8s")])


def test_the_big_ties_switch_plays_as_before() -> None:
    bot = GreedyBot(1)
    bot.big_ties = False
    assert bot.choose(_two_big_view("yuanhang")) == action_from_json(discard("1s"))


#: seat 1 (this seat's next) shows two melds of pins and has thrown none
PINS2 = [meld("chi", "123p", 0), meld("peng", "555p", 2)]
DISCARDS = {1: "1s9m4z7s2m3z8m", 2: "1z2z9s", 3: "3z4z1p"}
#: closed, one step from ready: 234m 456m 55s 23s 78s and two loose tiles, 9p and 1m
CLOSED = "234m456m55s23s78s9p1m"


@pytest.mark.parametrize("wall", [16, 24, 32])
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize(("profile", "indicator"), [("bianfeng", "1z"),
                                                    ("laizishanzhuang", "9s")])
def test_no_step_given_up_for_a_tile_hardly_safer(profile: str, indicator: str, wall: int,
                                                  seed: int) -> None:
    """The 9p could be the third meld of his pin flush (he would contract this seat);
    the 1m goes, keeping the hand one step away (the expert's answer), and the model rates
    it about as safe as the 2m he threw himself (0.6 points against 0.05).  The search
    bot played out the 2m (the safest tile) and its play-outs, in which a closed hand
    hardly opens and its speed counts for little, preferred it: it broke its 234m and
    went two steps away (边锋, seed 1; in 赖子山庄 seed 3 at wall 24 it threw 7s)."""
    view = make_view(CLOSED, profile=profile, indicator=indicator, wall=wall,
                     melds={1: PINS2}, discards=DISCARDS, dealer=2)
    bot = SearchBot(seed)
    assert bot.choose(view) == action_from_json(discard("1m"))


def test_the_slight_safety_switch_plays_as_before() -> None:
    """``slight_safety`` off, the play-outs alone decide, as before: the 2m (seed 1)."""
    view = make_view(CLOSED, profile="bianfeng", wall=24, melds={1: PINS2},
                     discards=DISCARDS, dealer=2)
    assert SearchBot(1, slight_safety=False).choose(view) == action_from_json(discard("2m"))
    bot = SearchBot(1)
    assert bot.choose(view) == action_from_json(discard("1m"))
    assert bot.searches == 1 and len(bot.last) == 2  # played out, but not chosen


LAIZI_KONG = {"type": "special_kong", "kind": "laizi"}
#: three melds of pins: a 清一色 with the laizi 5s (indicator 4s) among 3p 4p 66p
PIN_MELDS = [meld("chi", "123p", 3), meld("peng", "999p", 2), meld("chi", "678p", 3)]


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "red", "green"), [("yuanhang", 2, 0), ("bianfeng", 4, 0),
                                                       ("laizishanzhuang", 4, 2)])
def test_the_wild_of_a_capped_flush_is_kept(bot: str, profile: str, red: int,
                                            green: int) -> None:
    """Three melds of pins, 红中 (and 发财) kongs enough that every win of the 清一色
    reaches 金顶 (远航: 10 × 8 × 4 = 320 from each loser, soft; 边锋: 10 × 2 × 16; 赖子山庄:
    10 × 2 × 64, over its 400): throwing 4p leaves 3p 66p and the wild, waiting on 1p-6p,
    sixteen tiles.  The laizi kong leaves 3p 4p 66p, ready too (so shanten called it
    free), but on the seven 2p and 5p, and its factor (and the hard win) add nothing to
    a win already at 金顶; it would only raise what this seat pays when another wins.
    Keep the wild, throw 4p.  Every bot konged."""
    view = make_view("3p4p6p6p5s", profile=profile, indicator="4s",
                     melds={0: PIN_MELDS}, red_kongs={0: red}, extra_actions=[LAIZI_KONG])
    view["seats"][0]["special_kongs"]["green"] = green
    assert view["laizi"] == "5s"
    ask(bot, view, [discard("4p")])


def test_the_laizi_waits_switch_plays_as_before() -> None:
    """``laizi_waits`` off: the wild is konged, as before."""
    view = make_view("3p4p6p6p5s", indicator="4s", melds={0: PIN_MELDS}, red_kongs={0: 2},
                     extra_actions=[LAIZI_KONG])
    bot = GreedyBot(1)
    bot.laizi_waits = False
    assert bot.choose(view) == action_from_json(LAIZI_KONG)


#: four claimed melds: one tile in hand, a 全求人 (a big hand) on a discard that pairs it
FOUR_MELDS = [meld("chi", "123m", 3), meld("peng", "777p", 2), meld("chi", "345s", 3),
              meld("peng", "999m", 1)]


def _quanqiuren_view(profile: str) -> SeatView:
    # the wild (南 under a 东 indicator; 1s under 9s in 赖子山庄) and a loose 9
    if profile == "laizishanzhuang":
        return make_view("9p1s", profile=profile, indicator="9s", melds={0: FOUR_MELDS},
                         extra_actions=[LAIZI_KONG])
    return make_view("9s2z", profile=profile, indicator="1z", melds={0: FOUR_MELDS},
                     extra_actions=[LAIZI_KONG])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_the_wild_held_alone_beside_four_melds(bot: str, profile: str) -> None:
    """Four claimed melds, the laizi and a loose 9: throwing the 9 leaves the wild alone,
    which pairs with any 2/5/8 thrown, a 全求人 (big: it passes every minimum score) on
    about thirty tiles.  The laizi kong leaves the 9 alone, no win at all (a 9 pair is no
    2/5/8), a step back.  In 边锋 greedy konged: one opening (开口翻) cannot lift a small
    hand to the minimum score, and its rule kongs the single wild then, not seeing that
    the wait is a big hand (``GreedyBot.wild_waits_big``, under ``laizi_waits``)."""
    view = _quanqiuren_view(profile)
    ask(bot, view, [discard("9p" if profile == "laizishanzhuang" else "9s")])


def test_the_quanqiuren_wild_switch_plays_as_before() -> None:
    bot = GreedyBot(1)
    bot.laizi_waits = False
    assert bot.choose(_quanqiuren_view("bianfeng")) == action_from_json(LAIZI_KONG)


# ---------------------------------------------------------------- guards
# Positions every bot asked already answered right (5 December 2026): kept against
# regressions.

#: two melds of pins by seat 1, this seat's next (he may chi from it)
PIN_READER = {1: [meld("chi", "123p", 0), meld("peng", "555p", 2)]}


@pytest.mark.parametrize("bot", ["expert", "search"])
@pytest.mark.parametrize(("profile", "indicator"), [("yuanhang", "1z"), ("bianfeng", "1z"),
                                                    ("laizishanzhuang", "9s")])
@pytest.mark.parametrize(("hand", "safe"), [(CLOSED, "1m"), ("234m456m55s23s78s9p2m", "2m")])
@pytest.mark.parametrize("wall", [24, 50])
def test_guard_no_third_meld_for_his_flush(bot: str, profile: str, indicator: str, hand: str,
                                           safe: str, wall: int) -> None:
    """Guard.  His two pin melds: a pin he can chi or peng is the third meld of a 清一色,
    and feeding it makes this seat contract (承包) for all three losers, in 赖子山庄 too
    (``one_suit_contract_hands``: qingyise everywhere).  The loose 9p goes nowhere; the
    1m (as fast) or the 2m (beside 234m, as fast) goes instead.  Greedy, which plays for
    speed alone, throws the terminal 9p (``test_bots_defence``)."""
    view = make_view(hand, profile=profile, indicator=indicator, wall=wall, melds=PIN_READER,
                     discards=DISCARDS, dealer=2)
    ask(bot, view, [discard(safe)])


@pytest.mark.parametrize("bot", ["expert", "search"])
@pytest.mark.parametrize(("melds", "lone"), [
    ([meld("peng", "111z", 1), meld("peng", "222z", 3)], "4z"),
    ([meld("peng", "222p", 1), meld("peng", "555p", 3)], "8m")])
@pytest.mark.parametrize("wall", [24, 40])
def test_guard_no_third_meld_of_a_family_in_bianfeng(bot: str, melds: list[dict[str, Any]],
                                                     lone: str, wall: int) -> None:
    """Guard.  In 边锋 the third feeder also contracts for 风一色 and 将一色
    (``one_suit_contract_hands``): against two honour pengs the lone 北 stays, against
    two 2/5/8 pengs the lone 8m; the 9m, as useless, goes."""
    view = make_view("234m456m55s23s78s9m" + lone, profile="bianfeng", indicator="9p",
                     wall=wall, melds={2: melds}, discards={1: "1s9m7s2m8m", 2: "1p9s7p3m",
                                                            3: "9p1m"}, dealer=1)
    ask(bot, view, [discard("9m")])


PI_KONG = {"type": "special_kong", "kind": "pi"}


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "options", "hand", "indicator"), [
    ("bianfeng", {"opening_scoring": "per_opening"}, "456p789p55m34s9s", "9s"),
    ("bianfeng", {"opening_scoring": "per_opening"}, "456p789p55m34s6z", "6z"),
    ("yuanhang", {"pi_kong": "on"}, "456p789p55m34s9s", "9s")])
def test_guard_the_lone_skin_tile_is_konged(bot: str, profile: str, options: dict[str, Any],
                                            hand: str, indicator: str) -> None:
    """Guard.  癞子皮杠 (边锋 口口翻, or the option on): the one tile of the indicator's kind
    (9s; 发 under the laizi 白) is loose, and the hand is ready without it (2s/5s); played
    out as the skin kong it pays ×2 and draws a replacement, thrown it pays nothing."""
    view = make_view(hand, profile=profile, indicator=indicator,
                     melds={0: [meld("chi", "123m", 3)]}, extra_actions=[PI_KONG])
    view["options"] = options
    ask(bot, view, [PI_KONG])


@pytest.mark.parametrize("bot", BOTS)
def test_guard_no_skin_kong_of_the_pair(bot: str) -> None:
    """Guard.  The indicator 5m, the pair 55m the small hand needs: the skin kong would
    break it; the loose 东 goes (ready on 2s/5s)."""
    view = make_view("456p789p55m34s1z", profile="bianfeng", indicator="5m",
                     melds={0: [meld("chi", "123m", 3)]}, extra_actions=[PI_KONG])
    view["options"] = {"opening_scoring": "per_opening"}
    ask(bot, view, [discard("1z")])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "indicator"), [("yuanhang", "1z"), ("bianfeng", "1z"),
                                                    ("laizishanzhuang", "9s")])
def test_guard_the_closed_jiangyise_opens_by_peng(bot: str, profile: str,
                                                  indicator: str) -> None:
    """Guard.  Closed, thirteen 2/5/8 tiles (将一色 needs no sets): ready in shape on any
    2/5/8 but unable to win before an opening.  The peng of 5m opens it, and after any
    discard it is ready on every 2/5/8 for a big hand."""
    view = make_view("22m55m88m22p55p2s5s8s", profile=profile, indicator=indicator,
                     claim=("5m", 2), actions=[{"type": "peng", "tile": "5m"}, PASS])
    ask(bot, view, [{"type": "peng", "tile": "5m"}])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_kong_on_a_discard_beats_the_peng(bot: str, profile: str) -> None:
    """Guard.  Opened once, ready on 3p/6p around 45p with 333p held: the fourth 3p is
    thrown.  In 远航 and 边锋 the win on it could not pass the minimum score (one opening:
    8 from the discarder at most), but the 冲杠 (×2, a second opening in 口口翻, a
    replacement draw) keeps the 6p wait and makes its wins pass; the peng would throw a
    3p after it for the same wait with less.  In 赖子山庄 (no minimum) the win is offered
    and taken."""
    acts: list[dict[str, Any]] = [{"type": "peng", "tile": "3p"},
                                  {"type": "kong", "kind": "direct", "tile": "3p"}, PASS]
    if profile == "laizishanzhuang":
        acts.insert(0, {"type": "win"})
    view = make_view("333p45p789s55m", profile=profile, indicator="1z", claim=("3p", 2),
                     melds={0: [meld("chi", "123m", 3)]}, actions=acts)
    ask(bot, view, [acts[0] if profile == "laizishanzhuang"
                     else {"type": "kong", "kind": "direct", "tile": "3p"}])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [20, 36])
def test_guard_a_ready_flush_pushes(bot: str, profile: str, wall: int) -> None:
    """Guard.  A 索 清一色 ready after the 6p goes (3s/6s/9s, a big hand at the cap in
    every profile) against seat 1's three pin melds: the 6p may deal in, but folding
    would give up a big hand three tiles from winning; push."""
    view = make_view("1s2s3s4s5s6s7s8s9s9s6p", profile=profile, indicator="1z", wall=wall,
                     melds={0: [meld("peng", "222s", 2)],
                            1: [meld("chi", "123p", 0), meld("peng", "555p", 2),
                                meld("chi", "789p", 0)]},
                     discards=DISCARDS, dealer=2)
    ask(bot, view, [discard("6p")])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "hand"), [("yuanhang", "2z2z3z3z4z4z5z5z6z6z3p"),
                                               ("bianfeng", "2z2z3z3z4z4z5z5z6z6z3p"),
                                               ("laizishanzhuang", "2z2z2z3z3z4z4z5z5z1z3p")])
def test_guard_the_suited_tile_leaves_a_fengyise(bot: str, profile: str, hand: str) -> None:
    """Guard.  Beside a 东 pung, ten honours and a 3p: without the 3p every tile is an
    honour, and 风一色 needs no sets (乱风): ready on every honour for a big hand (two in
    远航 and 边锋).  In 赖子山庄 发财 is a must-kong tile, so the hand holds none."""
    view = make_view(hand, profile=profile, indicator="9s", melds={0: [meld("peng", "111z", 2)]})
    ask(bot, view, [discard("3p")])


@pytest.mark.parametrize("bot", ["expert", "search"])
@pytest.mark.parametrize(("profile", "indicator", "hand"), [
    ("yuanhang", "1z", "1m4m7m9m2s5s8s6p2z3z4z5z6z6z"),
    ("bianfeng", "1z", "1m4m7m9m2s5s8s6p2z3z4z5z6z6z"),
    ("laizishanzhuang", "9s", "1m4m7m9m2s5s8s6p2z3z4z5z1z1z")])
@pytest.mark.parametrize("wall", [10, 16])
def test_guard_a_far_hand_late_throws_what_he_threw(bot: str, profile: str, indicator: str,
                                                    hand: str, wall: int) -> None:
    """Guard.  Closed and far from ready, late, against seat 1's three melds of pins (his
    清一色 is likely ready): the lone 6p is no faster than anything else, and the 西 and
    北 he threw himself cannot deal into him.  One of those goes."""
    view = make_view(hand, profile=profile, indicator=indicator, wall=wall,
                     melds={1: [meld("chi", "123p", 0), meld("peng", "555p", 2),
                                meld("chi", "789p", 0)]},
                     discards=DISCARDS, dealer=2)
    ask(bot, view, [discard("3z"), discard("4z")])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [20, 36])
def test_guard_the_chi_into_a_ready_hand_late(bot: str, profile: str, wall: int) -> None:
    """Guard.  Opened (a 666s peng), one step away: the 5m thrown by the seat before
    completes 567m, and after the 9m goes the hand waits on 2s/5s with the pair 55s.
    Late and against seat 1's three pin melds the search bot plays the chi against
    passing, and keeps it (seeds 1 to 6 tried)."""
    chi = {"type": "chi", "tile": "5m", "tiles": "567m"}
    view = make_view("234m67m55s34s9m", profile=profile, indicator="1z", wall=wall,
                     claim=("5m", 3), melds={0: [meld("peng", "666s", 2)],
                                            1: [meld("chi", "123p", 0), meld("peng", "555p", 2),
                                                meld("chi", "789p", 0)]},
                     discards=DISCARDS, dealer=3, actions=[chi, PASS])
    ask(bot, view, [chi])
