"""Decision problems of the 5 December 2026 hunt, where a shipped bot answered wrong: one
position each, with the strong player's answer and why beside it, asked of every shipped
bot (each test fails on the code before the fix it names, for the bots named).

* Ready discards where a small hand's wins cannot pass the minimum score (远航, 边锋:
  one opening, no kong): greedy ranked the waits by tiles alone and kept a small hand
  that can never be won (``GreedyBot.legal_waits``); and in its claims, in 边锋, it
  passed the peng that makes such a hand a 碰碰胡 (shanten calls it idle).  Likewise
  greedy passed the fourth claim that makes a single 2/5/8 wait a 全求人 (a big hand on
  the same tile: ``test_bots_ready_claims``, greedy now asked there too).
* Ready discards in 赖子山庄, where the expert ranks waits without the settlement's value:
  a 碰碰胡 (base 10) on three tiles against a small hand (base 1) on four; the expert
  and the search bot took the small hand (``ExpertBot.ready_big``, now on).
* A single laizi that the hand does not need: greedy kept the wild where its kong
  costs no step (``GreedyBot.free_laizi_kong``, the expert's rule since 3 December).
* Kongs that narrow a ready hand: see ``test_bots_dead_waits`` (greedy everywhere, the
  expert and the search bot in 赖子山庄, made an added kong that left one winning tile of
  seven: ``GreedyBot.kong_keeps_waits``).
"""

from __future__ import annotations

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.engine.actions import action_from_json

BOTS = ("greedy", "expert", "search")
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")




#: (hand, melds, the big hand's discards): one peng shown, a 碰碰胡 ready either way
ALL_PUNGS = {
    # 333m 555m 444z beside 444p, 5s 7s loose: throwing 5m waits on 6s (57s, pair 55m: a
    # small hand, four tiles); throwing 5s or 7s waits on a single 7s or 5s, a 碰碰胡
    # (any pair; three tiles)
    "pph-single": ("333m555m5s7s444z", [meld("peng", "444p", 2)], ["5s", "7s"]),
    # 222m 444m 55m 3p 44p beside 222p: throwing 4p waits on 2p/5p (a small hand around
    # 34p, pair 55m); throwing 3p waits on the shanpon 5m/4p, 碰碰胡 either way
    "pph-shanpon": ("2m2m2m4m4m4m5m5m3p4p4p", [meld("peng", "222p", 2)], ["3p"]),
}


@pytest.mark.parametrize(("bot", "profile"), [
    (b, p) for b in BOTS for p in PROFILES if (b, p) != ("greedy", "laizishanzhuang")])
@pytest.mark.parametrize("name", sorted(ALL_PUNGS))
def test_the_all_pungs_wait_over_the_small_hand(name: str, bot: str, profile: str) -> None:
    """In 远航 and 边锋 one peng and no kong leave a small hand short of the minimum score
    (远航: a loser owes at most 2 × 2 × 2 × 2 = 16 < 20; 边锋: 16 too, and a discard's
    other losers 4 < 8), so its waits are no wins at all and only the 碰碰胡 can be won:
    greedy, ranking the waits by tiles, threw the tile that keeps the small hand.  In
    赖子山庄 (no minimum) the small hand could win, but a 碰碰胡 pays ten times its base on
    three tiles against four: the expert and the search bot, which rank waits by tiles
    there, took the small hand.  Greedy plays for speed alone in 赖子山庄 (its design),
    so it is not asked there."""
    hand, melds, big = ALL_PUNGS[name]
    view = make_view(hand, profile=profile, indicator="1z", melds={0: melds})
    ask(bot, view, [discard(x) for x in big])


LAIZI_KONG = {"type": "special_kong", "kind": "laizi"}


@pytest.mark.parametrize(("profile", "indicator", "laizi"),
                         [("yuanhang", "1z", "2z"), ("bianfeng", "1z", "2z"),
                          ("laizishanzhuang", "9s", "1s")])
@pytest.mark.parametrize("bot", BOTS)
def test_the_wild_that_is_not_needed_is_konged(bot: str, profile: str, indicator: str,
                                               laizi: str) -> None:
    """Opened (123m), two 红中 kongs (so a soft small win passes the minimum score too),
    456p 789s 55m 23s and the laizi: kept as a wild the hand is ready after a discard;
    konged, 456p 789s 55m 23s is ready on 4s (and a drawn laizi) all the same.  The kong's
    factor (×4, ×2 in 赖子山庄), a hard win (×2) and the replacement draw come for
    nothing: a strong player kongs.  Greedy kept the wild (its laizi rule looked only at
    the minimum score; ``GreedyBot.free_laizi_kong``)."""
    view = make_view("456p789s55m23s" + laizi, profile=profile, indicator=indicator,
                     melds={0: [meld("chi", "123m", 3)]}, red_kongs={0: 2},
                     extra_actions=[LAIZI_KONG])
    assert view["laizi"] == laizi
    ask(bot, view, [LAIZI_KONG])


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
@pytest.mark.parametrize("bot", BOTS)
def test_the_peng_that_turns_a_hopeless_small_hand_into_all_pungs(bot: str,
                                                                  profile: str) -> None:
    """Beside a 东 pung: 55m 46m 222p 888s, ready on 5m as a small hand (456m, pair 55m).
    One opening and no kong: no small win passes the minimum score (远航: 16 at most from
    a loser; 边锋: a discard's other losers owe 4 < 8), so the 5m on the table is no win.
    The peng of it leaves 46m 222p 888s: throwing 4m (or 6m) waits on a 碰碰胡 single, a big
    hand, which passes; the chi 456m leaves a small hand again.  Peng.  Greedy passed in
    边锋, where the opening adds no factor and shanten calls the peng idle."""
    view = make_view("55m46m222p888s", profile=profile, indicator="9p", claim=("5m", 3),
                     melds={0: [meld("peng", "111z", 2)]},
                     actions=[{"type": "chi", "tile": "4m"}, {"type": "peng", "tile": "5m"},
                              {"type": "pass"}])
    ask(bot, view, [{"type": "peng", "tile": "5m"}])


def test_the_search_keeps_the_all_pungs_wait_late() -> None:
    """The 赖子山庄 single's position above, late (wall 20), seat 1 showing three melds:
    the search bot plays its candidates out (the expert's choice and the safest tile),
    and the 碰碰胡 single stays; the expert it starts from took the small hand before
    ``ready_big``, and so did the search."""
    from wuhan_mahjong.bots.search import SearchBot

    hand, melds, big = ALL_PUNGS["pph-single"]
    view = make_view(hand, profile="laizishanzhuang", indicator="1z", wall=20,
                     melds={0: melds, 2: [meld("chi", "123p", 1)],
                            1: [meld("chi", "678m", 0), meld("peng", "999p", 0),
                                meld("chi", "123s", 0)]},
                     discards={1: "1m9m", 2: "2z9s", 3: "3z1s"})
    bot = SearchBot(1)
    assert bot.choose(view) in [action_from_json(discard(x)) for x in big]
    assert bot.searches == 1
