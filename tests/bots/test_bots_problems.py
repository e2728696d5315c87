"""Decision problems a strong Wuhan player answers at a glance, one position each, asked of
every shipped bot (greedy, expert, search): efficiency, the 2/5/8 pair, the opening, the
must-kong tiles (红中, and 发财 in 赖子山庄), laizi, kongs and claims.

Each position is a whole seat view (``handmade.make_view``); the answer is the one move a
strong player makes, and why is written beside it. Harder problems of one kind live with
the code they test (``test_bots_defence``, ``test_bots_expert_faults``, ``test_bots_search``).
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json

BOTS = ("greedy", "expert", "search")
LZSZ = "laizishanzhuang"  # no minimum score: any legal small hand wins, so shape alone decides
LAIZI_KONG = {"type": "special_kong", "kind": "laizi"}
PASS = {"type": "pass"}
OPEN_CHI = {0: [meld("chi", "123m", 3)]}
FOUR_MIXED = {0: [meld("chi", "123m", 3), meld("peng", "777p", 2), meld("chi", "345s", 3),
                  meld("peng", "999m", 1)]}
FOUR_PUNGS = {0: [meld("peng", "111m", 3), meld("peng", "777p", 2), meld("peng", "333s", 3),
                  meld("peng", "999m", 1)]}

PROBLEMS: dict[str, tuple[SeatView, dict[str, Any]]] = {
    # efficiency: 123m 44567p 789s 55m is ready (4p/5m, or 47p around 456p); the lone 东 goes
    "lone_honour_goes": (
        make_view("123m44567p789s55m1z", profile=LZSZ, indicator="9s"),
        {"type": "discard", "tile": "1z"}),
    # the 2/5/8 pair: opened, four sets and two singles; waiting on 5p wins (pair 55p),
    # waiting on 9p never does (a small hand's pair must be 2, 5 or 8)
    "single_wait_on_a_258_tile": (
        make_view("456m789s234s5p9p", profile=LZSZ, indicator="9s", melds=OPEN_CHI),
        {"type": "discard", "tile": "9p"}),
    "single_wait_on_5p_not_on_an_honour": (
        make_view("456m789s234s5p1z", profile=LZSZ, indicator="9s", melds=OPEN_CHI),
        {"type": "discard", "tile": "1z"}),
    # 全求人 (four claimed melds, one tile held) needs a 2/5/8 pair: the lone 5p can pair
    # into a win, a lone 9s never could (RULES §10.3, Project decision 9)
    "quanqiuren_keeps_the_258_tile": (
        make_view("5p9s", melds=FOUR_MIXED),
        {"type": "discard", "tile": "9s"}),
    # both 2/5/8, but two 8s are gone: the 2p has three live copies to pair with, 8s one
    "quanqiuren_keeps_the_live_258_tile": (
        make_view("2p8s", melds=FOUR_MIXED, discards={2: "8s8s", 3: "1z"}),
        {"type": "discard", "tile": "8s"}),
    # four pungs: the win is also 碰碰胡, which takes any pair, so the 9s with three live
    # copies stays and the dead 5p (three already thrown) goes
    "all_pungs_quanqiuren_pairs_anything": (
        make_view("9s5p", melds=FOUR_PUNGS, discards={2: "5p5p", 3: "5p"}),
        {"type": "discard", "tile": "5p"}),
    # 将一色 needs no sets: without the 3p every tile is a 2/5/8 and any 2/5/8 wins a big
    # hand, where the 8p would leave a small hand waiting on 1p/4p
    "jiangyise_over_the_small_hand": (
        make_view("222m888s55p23p8p", melds={0: [meld("peng", "555m", 3)]}),
        {"type": "discard", "tile": "3p"}),
    # ready but closed (5m/3s), so no win is possible: the peng of 3s opens it and the
    # 123m-456p-789s-55m rest waits again after a discard
    "a_closed_ready_hand_opens_by_peng": (
        make_view("123m456p789s55m33s", claim=("3s", 2),
                  actions=[{"type": "peng", "tile": "3s"}, PASS]),
        {"type": "peng", "tile": "3s"}),
    # the opening: ready but closed, so no win is possible; the chi of 1m opens and keeps
    # the 2s/5s wait (1m goes after it)
    "a_closed_ready_hand_opens_by_chi": (
        make_view("123m456p789s55m34s", claim=("1m", 3), profile=LZSZ, indicator="9s",
                  actions=[{"type": "chi", "tile": "1m", "tiles": "123m"}, PASS]),
        {"type": "chi", "tile": "1m", "tiles": "123m"}),
    # an opened ready hand does not peng its own pair away
    "no_peng_that_breaks_the_pair": (
        make_view("456p789p55m34s", claim=("5m", 2), profile=LZSZ, indicator="9s",
                  melds=OPEN_CHI, actions=[{"type": "peng", "tile": "5m", "tiles": "555m"}, PASS]),
        {"type": "pass"}),
    # a 冲杠 on the ready hand's triplet keeps the wait, opens more and draws again
    "direct_kong_on_a_ready_triplet": (
        make_view("555p789s55m34s", claim=("5p", 2), profile=LZSZ, indicator="9s",
                  melds=OPEN_CHI,
                  actions=[{"type": "peng", "tile": "5p", "tiles": "555p"},
                           {"type": "kong", "kind": "direct", "tile": "5p", "tiles": "5555p"},
                           PASS]),
        {"type": "kong", "kind": "direct", "tile": "5p"}),
    # two chis of the 5m, both ready after the 9p goes: 345m waits on 5m/8m, 567m on
    # 2m/5m; three 8m are gone, so 567m (seven live tiles against four)
    "chi_that_leaves_the_live_wait": (
        make_view("34m67m123p456s88s9p", claim=("5m", 3), discards={1: "8m8m", 2: "8m"},
                  actions=[{"type": "chi", "tile": "3m"}, {"type": "chi", "tile": "5m"}, PASS]),
        {"type": "chi", "tile": "5m"}),
    # the same with three 2m gone instead: 345m
    "chi_that_leaves_the_live_wait_other_side": (
        make_view("34m67m123p456s88s9p", claim=("5m", 3), discards={1: "2m2m", 2: "2m"},
                  actions=[{"type": "chi", "tile": "3m"}, {"type": "chi", "tile": "5m"}, PASS]),
        {"type": "chi", "tile": "3m"}),
    # five pairs, closed: the peng opens and heads for 碰碰胡 (a big hand)
    "peng_towards_all_pungs": (
        make_view("11m55p88s99m33p2s7m1z", claim=("5p", 2), indicator="9s",
                  actions=[{"type": "peng", "tile": "5p", "tiles": "555p"}, PASS]),
        {"type": "peng", "tile": "5p", "tiles": "555p"}),
    # 口口翻 and the minimum score (远航: one loser owes 20): ready on 2s/5s with one
    # opening, no win can reach 20 (at most 16, from the dealer); the chi of 5p (4p6p)
    # keeps the wait and a second opening doubles every win past it.  (The search bot
    # once passed: its play-outs kept the hand unable to win after the chi.)
    "chi_that_reaches_the_minimum_score": (
        make_view("456p789s55m34s", claim=("5p", 3), melds=OPEN_CHI,
                  actions=[{"type": "chi", "tile": "4p"}, PASS]),
        {"type": "chi", "tile": "4p"}),
    # the same question where the opening counts once (边锋, 开口翻: min 20 from one loser,
    # 8 from each): opened and ready on 2s, no win can pass; an idle chi of 3p (45p) keeps
    # the wait but adds no factor, so it would only give up the draw: pass.  In 远航 (口口翻)
    # the same chi doubles every win and is made
    "no_idle_chi_where_the_opening_counts_once": (
        make_view("345p789s55m13s", profile="bianfeng", indicator="9s", claim=("3p", 3),
                  melds=OPEN_CHI, actions=[{"type": "chi", "tile": "3p"}, PASS]),
        PASS),
    "the_idle_chi_that_doubles_in_kou_kou_fan": (
        make_view("345p789s55m13s", indicator="9s", claim=("3p", 3), melds=OPEN_CHI,
                  actions=[{"type": "chi", "tile": "3p"}, PASS]),
        {"type": "chi", "tile": "3p"}),
    # 远航, opened once, not the dealer: after 7s goes the hand is ready on 3p (111p-12p),
    # but a small win reaches at most 16 from a loser (opening, hard, self-draw, ×2 from
    # the dealer), short of the 20 the minimum asks; the concealed kong of 1p (×4) makes
    # every later win pass, so it is made though it costs a step (the hand rebuilds
    # around 2p with the replacement draw)
    "concealed_kong_the_minimum_score_needs": (
        make_view("1111p2p456s55m7s", indicator="9s", melds=OPEN_CHI,
                  extra_actions=[{"type": "kong", "kind": "concealed", "tile": "1p"}]),
        {"type": "kong", "kind": "concealed", "tile": "1p"}),
    # the same with an added kong in 边锋 (开口翻: chi and peng count once): after 9m goes the
    # hand waits on 5m alone and can reach only 16 from a loser; the fourth 5p added to
    # the peng (蓄杠 ×2) takes it from 456p but makes every later win pass
    "added_kong_the_minimum_score_needs": (
        make_view("46p5p789s5m9m", profile="bianfeng", indicator="9s",
                  melds={0: [meld("chi", "123m", 3), meld("peng", "555p", 2)]},
                  extra_actions=[{"type": "kong", "kind": "added", "tile": "5p"}]),
        {"type": "kong", "kind": "added", "tile": "5p"}),
    # 红中 blocks every win while held: played out as its kong at once
    "red_dragon_is_konged": (
        make_view("123m456p789s55m34s7z", profile=LZSZ, indicator="9s",
                  extra_actions=[{"type": "special_kong", "kind": "red"}]),
        {"type": "special_kong", "kind": "red"}),
    # in 赖子山庄 发财 is a must-kong tile too
    "green_dragon_is_konged_in_laizishanzhuang": (
        make_view("123m456p789s55m34s6z", profile=LZSZ, indicator="9s",
                  extra_actions=[{"type": "special_kong", "kind": "green"}]),
        {"type": "special_kong", "kind": "green"}),
    # a small hand may not win holding two laizi (南 under a 东 indicator): ready with both
    # as wilds, one is konged (×4 in 远航), and the replacement draw may win at once
    "second_laizi_is_konged_when_ready": (
        make_view("456p789s55m6p2z2z", indicator="1z", melds=OPEN_CHI,
                  extra_actions=[LAIZI_KONG]),
        LAIZI_KONG),
    # four of a set in a ready hand: the concealed kong keeps the wait (2s/5s) and pays ×4
    "concealed_kong_of_a_ready_set": (
        make_view("5555p789s55m34s", indicator="9p", melds=OPEN_CHI,
                  extra_actions=[{"type": "kong", "kind": "concealed", "tile": "5p"}]),
        {"type": "kong", "kind": "concealed", "tile": "5p"}),
    # the fourth 4p drawn to a peng: the added kong keeps the wait
    "added_kong_on_a_peng": (
        make_view("789s55m34s4p", indicator="9p",
                  melds={0: [meld("chi", "123m", 3), meld("peng", "444p", 2)]},
                  extra_actions=[{"type": "kong", "kind": "added", "tile": "4p"}]),
        {"type": "kong", "kind": "added", "tile": "4p"}),
}


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_the_strong_players_answer(name: str, bot: str) -> None:
    view, answer = PROBLEMS[name]
    expected = action_from_json(answer)
    assert expected in [action_from_json(a) for a in view["legal_actions"]]
    assert get_bot(bot, 1).choose(view) == expected


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "red"), [("laizishanzhuang", 0), ("yuanhang", 1),
                                              ("bianfeng", 1)])
def test_no_costly_kong_where_the_minimum_score_is_passed(bot: str, profile: str,
                                                          red: int) -> None:
    """The position of ``concealed_kong_the_minimum_score_needs`` where a small win passes
    already (赖子山庄 has no minimum score; elsewhere a 红中 kong has doubled the hand): the
    kong would only cost a step, so a discard keeps the 3p wait (7s or 4s)."""
    view = make_view("1111p2p456s55m7s", profile=profile, indicator="9s", melds=OPEN_CHI,
                     red_kongs={0: red},
                     extra_actions=[{"type": "kong", "kind": "concealed", "tile": "1p"}])
    choice = get_bot(bot, 1).choose(view)
    assert choice in (action_from_json({"type": "discard", "tile": "7s"}),
                      action_from_json({"type": "discard", "tile": "4s"}))


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", ["yuanhang", "laizishanzhuang"])
def test_the_wait_whose_pair_is_a_258(profile: str, bot: str) -> None:
    """Opened, 456p 789s 22m 66s 7s: throwing 7s leaves the 2m/6s shanpon, where only 6s
    wins (a 2m would leave 66s as the pair, and a small hand's pair is 2, 5 or 8); throwing
    9s or 6s leaves 5s/8s around 678s or 789s with the 22m pair, seven tiles against two."""
    view = make_view("456p789s22m66s7s", profile=profile, indicator="9p", melds=OPEN_CHI)
    assert get_bot(bot, 1).choose(view) in (action_from_json({"type": "discard", "tile": "9s"}),
                                            action_from_json({"type": "discard", "tile": "6s"}))
