"""Decision problems of the third hunt (6 December 2026): positions with one clearly right
answer, each asked of the shipped bots it concerns, with the answer and why beside it.

The faults it found (each test fails on the code before the fix it names):

* Two discards equally useless to the hand, one of them safe: the expert's ranking let
  the tile's shape decide, and the push-or-fold layer acts only for a saving of two
  points, so it threw the pin seat 1 could win on (his own early discard, before two
  more claims) and kept the one he had let go by since his last discard
  (``ExpertBot.safe_ties``).
* A hand that can no longer be won (late, more steps from ready than its draws left):
  every bot played its 红中 out as a kong, and made the 暗杠 and the chi or peng that
  shanten calls progress, each of which only doubles what it pays when the flush beside
  it wins (``ExpertBot.hopeless_holds``).  Greedy plays for speed alone (its design) and
  is not asked.
* In 边锋, opened once and ready on a small hand that no loser would pay 20 for: the
  push-or-fold layer valued that wait as a typical win and pushed a dangerous pin late
  against a three-meld pin flush (``ExpertBot.minimum_step``).

The positions the bots already answered right are below them, marked as guards.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json

BOTS = ("greedy", "expert", "search")
READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")
PASS = {"type": "pass"}
RED = {"type": "special_kong", "kind": "red"}
LAIZI_KONG = {"type": "special_kong", "kind": "laizi"}




def _not(bot: str, view: SeatView, wrong: list[dict[str, Any]], seed: int = 1) -> None:
    choice = get_bot(bot, seed).choose(view)
    assert choice not in [action_from_json(a) for a in wrong], (bot, choice)


#: seat 1, this seat's next, shows three melds of pins: 123p and 789p chi'd from this
#: seat, 555p peng'd from seat 3.  The rivers are in the order play made them (seat 2
#: deals): 东 9m [1p to seat 1] X 南 [5p to seat 1] 9s 西 1m [7p to seat 1] 北 Y 2s, so
#: X is seat 1's first discard, thrown before two more claims, and Y is seat 2's, thrown
#: after seat 1's last discard (北) and let go by him.
PIN_FLUSH = [meld("chi", "123p", 0), meld("peng", "555p", 3), meld("chi", "789p", 0)]


def _rivers(his: str, let_go: str, last3: str = "2s") -> dict[int, str]:
    return {0: "1p>1 7p>1", 1: his + "9s4z", 2: "1z2z3z" + let_go,
            3: "9m5p>11m" + last3}


# ---------------------------------------------------------------- faults found

@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [20, 32])
def test_the_tile_he_let_go_by_goes(bot: str, profile: str, wall: int) -> None:
    """Closed, one step from ready (234m 567m 22s 45s 78s) with two lone pins, 3p and 6p,
    equally useless.  Seat 1's pin flush is likely ready.  He threw the 3p himself, but
    that was before his 555p peng and 789p chi: with no furiten (RULES §15) and a changed
    hand, he may win on it now.  The 6p came from seat 2 after seat 1's last discard, and
    he let it go: his concealed tiles are the same since, and a flush (a big hand, past
    every minimum score) would have won on it.  The 6p goes.  The expert threw the 3p: the
    model rates it 0.7 to 1.5 points dearer, below the two points the push-or-fold layer
    needs, and the core let the tiles' shape decide (``ExpertBot.safe_ties``)."""
    view = make_view("234m567m22s45s78s3p6p", profile=profile, indicator="9s", wall=wall,
                     dealer=2, melds={1: PIN_FLUSH}, discards=_rivers("3p", "6p"))
    ask(bot, view, [discard("6p")])


#: seat 3, this seat's previous, shows the three pin melds (123p and 789p chi'd from seat 2,
#: 555p peng'd from seat 1).  This seat deals: 东 9m [1p to 3] X 南 [5p to 3] 9s 西 1m
#: [7p to 3] 北 2s Y [8s to this seat, a peng]: X is seat 3's first discard, Y seat 1's,
#: thrown after seat 3's last (北); seat 3 let Y go by, and then the 8s this seat peng'd
#: (a win would have come first).  This seat discards after its peng.
PIN_FLUSH_3 = [meld("chi", "123p", 2), meld("peng", "555p", 1), meld("chi", "789p", 2)]


def _after_peng(his: str, let_go: str, profile: str, wall: int) -> SeatView:
    return make_view("234m55m45s78m3p6p", profile=profile, indicator="9s", wall=wall,
                     dealer=0, melds={0: [meld("peng", "888s", 2)], 3: PIN_FLUSH_3},
                     discards={0: "1z2z3z2s", 1: "9m5p>31m" + let_go, 2: "1p>37p>38s>0",
                               3: his + "9s4z"})


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [20, 32])
def test_the_tile_the_previous_seat_let_go_by_goes(bot: str, profile: str, wall: int) -> None:
    """The same reading for the seat before this one, after this seat's peng: one step
    from ready (234m 55m 45s 78m beside 888s), lone 3p and 6p.  The 3p is seat 3's own
    first discard, the 6p came from seat 1 after seat 3's last discard: the 6p goes.  The
    expert and the search bot threw the 3p (``ExpertBot.safe_ties``); swapped histories,
    the 3p goes (a guard, below)."""
    ask(bot, _after_peng("3p", "6p", profile, wall), [discard("6p")])


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_previous_seat_swapped(bot: str, profile: str) -> None:
    """Guard.  The position above with the 6p his and the 3p let go by: the 3p goes."""
    ask(bot, _after_peng("6p", "3p", profile, 20), [discard("3p")])


def test_the_safe_ties_switch_plays_as_before() -> None:
    view = make_view("234m567m22s45s78s3p6p", indicator="9s", wall=20, dealer=2,
                     melds={1: PIN_FLUSH}, discards=_rivers("3p", "6p"))
    assert ExpertBot(1, safe_ties=0).choose(view) == action_from_json(discard("3p"))


#: closed, six steps or more from ready: 1m 4m 7m 9m 2s 4s 5s 8s 3p 东 南 西 北 and 红中
JUNK = "1m4m7m9m2s4s5s8s3p1z2z3z4z7z"


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [16, 20])
def test_a_hopeless_hand_keeps_its_red(bot: str, profile: str, wall: int) -> None:
    """Late (four or five draws left), six steps from ready and closed: the hand will not
    be won.  The 红中 kong doubles this seat's own multiplier, so its share when seat 1's
    flush wins (远航: 10 × 8 openings × 2 hard × 1.5 self-drawn = 240, 300 after the kong's
    ×2 meets the cap; 赖子山庄: 60 becomes 120); its replacement draw buys nothing, and a
    荒庄 pays nothing (RULES §16), so the 红中 held costs nothing.  Keep it: any discard.
    Every bot konged (``ExpertBot.hopeless_holds``)."""
    view = make_view(JUNK, profile=profile, indicator="9s", wall=wall, dealer=2,
                     melds={1: PIN_FLUSH}, discards=_rivers("6s", "3p"), extra_actions=[RED])
    _not(bot, view, [RED])


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize(("profile", "kong"), [
    ("bianfeng", {"type": "kong", "kind": "concealed", "tile": "9m"}),
    ("yuanhang", {"type": "kong", "kind": "concealed", "tile": "9m"}),
    ("laizishanzhuang", {"type": "kong", "kind": "concealed", "tile": "9m"}),
    ("bianfeng", LAIZI_KONG), ("yuanhang", LAIZI_KONG)])
def test_a_hopeless_hand_makes_no_kong(bot: str, profile: str, kong: dict[str, Any]) -> None:
    """The same at wall 16 with four 9m (or the laizi 1s under a 9s indicator) instead of
    the 红中: a 暗杠 multiplies this seat's share by four, the laizi kong by four (two in
    赖子山庄), for a hand that will not win.  In 边锋 the expert and the search bot made
    the 暗杠 (greedy's rule: its ×4 would let a small hand pass the minimum score, which
    this one will never reach); elsewhere they already held (guards)."""
    if kong["type"] == "special_kong":
        hand = "1m4m7m9m2s5s8s3z4z1z4s6m1s2m"
        rivers = _rivers("6s", "3p")
    else:
        hand = "1m4m7m9m9m9m9m2s5s8s3z4z1z4s"
        rivers = _rivers("6s", "3p") | {3: "6s5p>11m2s"}
    view = make_view(hand, profile=profile, indicator="9s", wall=16, dealer=2,
                     melds={1: PIN_FLUSH}, discards=rivers, extra_actions=[kong])
    _not(bot, view, [kong])


def _late_claim(profile: str, wall: int, kind: str) -> tuple[SeatView, dict[str, Any]]:
    # seat 3 (before this seat) throws 3m; this seat holds 12m (or 33m) among junk
    claim = {"type": "chi", "tile": "1m"} if kind == "chi" else {"type": "peng", "tile": "3m"}
    hand = ("1m2m" if kind == "chi" else "3m3m") + "9m2s5s8s1z3z4z2z9p4p7p"
    view = make_view(hand, profile=profile, indicator="9s", wall=wall, dealer=2,
                     melds={1: PIN_FLUSH}, discards=_rivers("6s", "3p", "3m"),
                     claim=("3m", 3), actions=[claim, PASS])
    return view, claim


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [16, 20])
@pytest.mark.parametrize("kind", ["chi", "peng"])
def test_a_hopeless_hand_claims_nothing(bot: str, profile: str, wall: int, kind: str) -> None:
    """Late, closed and far: the chi 123m (or the peng of 3m) takes the hand a step closer,
    still four steps from ready with four or five draws left.  It will not be won, and
    the opening doubles what this seat pays when seat 1's flush wins (口口翻 and 开口翻
    alike: its first opening).  Pass.  Every bot claimed."""
    view, _ = _late_claim(profile, wall, kind)
    ask(bot, view, [PASS])


def test_the_hopeless_switch_plays_as_before() -> None:
    view, claim = _late_claim("yuanhang", 16, "chi")
    assert ExpertBot(1, hopeless_holds=False).choose(view) == action_from_json(claim)
    view = make_view(JUNK, indicator="9s", wall=16, dealer=2, melds={1: PIN_FLUSH},
                     discards=_rivers("6s", "3p"), extra_actions=[RED])
    assert ExpertBot(1, hopeless_holds=False).choose(view) == action_from_json(RED)


def _short_view(wall: int, profile: str = "bianfeng") -> SeatView:
    # opened (chi 123m), 456s 789s 55m 34s and the 6p: ready on 2s/5s once the 6p goes
    return make_view("456s789s55m34s6p", profile=profile, indicator="9p", wall=wall,
                     dealer=2, melds={0: [meld("chi", "123m", 3)], 1: PIN_FLUSH},
                     discards=_rivers("3p", "9s"))


@pytest.mark.parametrize("bot", READERS)
def test_no_push_for_a_wait_short_of_the_minimum(bot: str) -> None:
    """边锋 (开口翻), opened once, no kong, seat 2 the dealer: a small win of this hand is
    at most 2 × 2 hard × 2 self-drawn = 8 from a loser with no factor, 16 from seat 1
    (opened) or the dealer, and 16 from a discarder (4 × his 2 × 2 deal-in): no loser owes
    the 20 the minimum asks, and a second opening adds nothing in 开口翻.  So the 2s/5s wait
    kept by throwing the 6p wins nothing until a kong (a drawn 红中 or laizi) comes, and
    late the 6p is the tile seat 1's pin flush is most likely to win on.  Not the 6p (the
    9s he let go by is safe).  The expert pushed the 6p: its push-or-fold layer valued
    the wait as a typical win (``ExpertBot.minimum_step``).  Wall 16; at wall 20 the
    switch counts the wait a step further too, but the expert still pushes there."""
    _not(bot, _short_view(16), [discard("6p")])


def test_the_minimum_step_switch_plays_as_before() -> None:
    bot = ExpertBot(1, minimum_step=False)
    assert bot.choose(_short_view(16)) == action_from_json(discard("6p"))


# ---------------------------------------------------------------- guards
# Positions every bot asked already answered right (6 December 2026): kept against
# regressions.

@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_let_go_tile_goes_either_way(bot: str, profile: str) -> None:
    """Guard.  The position above with the two pins' histories swapped: he threw the 6p
    early and let the 3p go by; the 3p goes."""
    view = make_view("234m567m22s45s78s3p6p", profile=profile, indicator="9s", wall=20,
                     dealer=2, melds={1: PIN_FLUSH}, discards=_rivers("6p", "3p"))
    ask(bot, view, [discard("3p")])


#: seat 1 shows four melds of mixed suits (chis among them): a 全求人 with one tile held
FOUR_MIXED = [meld("chi", "123m", 0), meld("peng", "777p", 3), meld("chi", "345s", 0),
              meld("peng", "999m", 2)]


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [24, 40])
def test_guard_no_258_into_a_quanqiuren(bot: str, profile: str, wall: int) -> None:
    """Guard.  Closed, one step away, two lone tiles as useless: 8s and 4p.  Seat 1 holds
    one tile beside four claimed melds, two of them chis (no 碰碰胡, no 清一色), so his
    全求人 needs a 2/5/8 pair: the 4p can never win for him, the 8s does if it is his
    tile (and in 边锋 and 赖子山庄 a discarder who is not ready contracts for it).  The
    4p goes; greedy, which reads no one, throws the terminal-side 8s."""
    view = make_view("234m567m22s45s78p4p8s", profile=profile, indicator="1z", wall=wall,
                     dealer=2, melds={1: FOUR_MIXED},
                     discards={1: "1s9m4z7s", 2: "1z2z9s", 3: "3z4z1p"})
    ask(bot, view, [discard("4p")])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [16, 40])
def test_guard_a_live_hand_konges_its_red_late(bot: str, profile: str, wall: int) -> None:
    """Guard.  Opened and one step away (456p 789s 55m 34s beside 123m): the 红中 blocks
    every win while held, so it is played out as its kong, late as early; after it the
    hand waits on 2s/5s."""
    view = make_view("456p789s55m34s7z", profile=profile, indicator="9s", wall=wall,
                     dealer=2, melds={0: [meld("chi", "123m", 3)], 1: PIN_FLUSH},
                     discards=_rivers("6s", "3p"), extra_actions=[RED])
    ask(bot, view, [RED])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_a_far_hand_early_still_konges_red(bot: str, profile: str) -> None:
    """Guard.  The hopeless hand's tiles at wall 48: twelve draws left, time enough to
    build, and the 红中 must go before any win: it is konged."""
    view = make_view(JUNK, profile=profile, indicator="9s", wall=48, dealer=2,
                     melds={1: PIN_FLUSH}, discards=_rivers("6s", "3p"), extra_actions=[RED])
    ask(bot, view, [RED])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_robbing_the_kong(bot: str, profile: str) -> None:
    """Guard.  Opened, ready on 2s/5s (456p 789s 55m 34s beside 123m, two 红中 kongs so a
    small win passes every minimum): seat 2 adds a 2s to his peng, and the win on it, 抢杠,
    is offered (a big hand; in 赖子山庄 it needs the 2/5/8 pair this hand has).  Win."""
    view = make_view("456p789s55m34s", profile=profile, indicator="9p",
                     melds={0: [meld("chi", "123m", 3)], 2: [meld("peng", "222s", 1)]},
                     red_kongs={0: 2}, claim=("2s", 2), actions=[{"type": "win"}, PASS])
    view["phase"] = "rob"
    ask(bot, view, [{"type": "win"}])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_win_over_the_chi(bot: str, profile: str) -> None:
    """Guard.  The same hand, the 2s thrown by the seat before: the win is taken, not the
    chi 234s (which would leave the hand a step from ready)."""
    view = make_view("456p789s55m34s", profile=profile, indicator="9p",
                     melds={0: [meld("chi", "123m", 3)]}, red_kongs={0: 2}, claim=("2s", 3),
                     actions=[{"type": "win"}, {"type": "chi", "tile": "2s"}, PASS])
    ask(bot, view, [{"type": "win"}])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_edge_goes_before_the_gap(bot: str, profile: str) -> None:
    """Guard.  Opened, one step away: 456p 55m and three partial sets 12s, 46s, 78p.  The
    1s goes: the 2s left beside 46s takes the 3s (234s) as well as the 5s, fifteen tiles
    against eleven when the gap 46s is broken and the edge kept."""
    view = make_view("456p55m12s46s78p", profile=profile, indicator="1z",
                     melds={0: [meld("chi", "123m", 3)]})
    ask(bot, view, [discard("1s")])


#: three claimed melds of mixed suits: a small hand, or nothing, on five tiles held
THREE_MIXED = {0: [meld("chi", "123m", 3), meld("peng", "777p", 2), meld("chi", "345s", 3)]}


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", ["yuanhang", "laizishanzhuang"])
def test_guard_the_wait_with_the_258_pair(bot: str, profile: str) -> None:
    """Guard.  33m 55p 4m beside three melds: throwing 4m leaves the shanpon 3m/5p, where
    only the 3m wins (a 5p would leave 33m as the pair, no 2/5/8); throwing a 3m leaves
    34m with the 55p pair, on 2m and 5m, eight tiles against two.  (远航: three openings,
    ×8, pass the minimum; 赖子山庄 has none.)"""
    view = make_view("33m55p4m", profile=profile, indicator="9s", melds=THREE_MIXED)
    ask(bot, view, [discard("3m")])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_lone_258_stays_for_the_pair(bot: str, profile: str) -> None:
    """Guard.  Closed, no pair yet: 234m 567p 345s 78s and three lone tiles 5m, 9m, 东.  A
    small hand's pair must be 2/5/8: the 5m is the one lone tile that can become it; the
    东 goes (the 9m would do)."""
    view = make_view("234m567p345s78s5m9m1z", profile=profile, indicator="9s")
    ask(bot, view, [discard("1z"), discard("9m")])


@pytest.mark.parametrize("bot", BOTS)
def test_guard_the_needed_wild_is_kept(bot: str) -> None:
    """Guard.  赖子山庄 (no minimum score), opened, the laizi 1s beside 456p 789s 55m 3s
    and a 9m: throwing the 9m leaves 3s and the wild, ready on 1s to 5s; the laizi kong
    (×2) would leave 3s 9m, a step back.  Keep the wild, throw the 9m."""
    view = make_view("456p789s55m3s9m1s", profile="laizishanzhuang", indicator="9s",
                     melds={0: [meld("chi", "123m", 3)]}, extra_actions=[LAIZI_KONG])
    ask(bot, view, [discard("9m")])


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_same_chi_is_made_early(bot: str, profile: str) -> None:
    """Guard.  The hopeless claim's hand at wall 48: twelve draws left, the chi 123m is
    a step closer for a hand with time to build, and it opens it: made."""
    view, claim = _late_claim(profile, 48, "chi")
    ask(bot, view, [claim])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("lone", "answer"), [("3m", "3m"), ("8m", "8m")])
def test_guard_the_wild_waits_for_any_258(bot: str, lone: str, answer: str) -> None:
    """Guard.  赖子山庄, opened, 456p 789s 234s beside 123m, a lone tile and the laizi 1s.
    Thrown, the lone tile leaves the wild alone: it pairs with any 2/5/8 drawn or thrown,
    nine kinds.  The laizi kong would leave the lone tile to pair with itself: a 3m pair
    is no 2/5/8, no win at all; an 8m waits on its three copies, for the kong's ×2 and a
    hard win's ×2, against some thirty tiles.  Either way the lone tile goes."""
    view = make_view("456p789s234s1s" + lone, profile="laizishanzhuang", indicator="9s",
                     melds={0: [meld("chi", "123m", 3)]}, extra_actions=[LAIZI_KONG])
    ask(bot, view, [discard(answer)])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "indicator"), [("yuanhang", "1z"), ("bianfeng", "1z"),
                                                    ("laizishanzhuang", "9s")])
def test_guard_the_258_pair_is_the_one_kept(bot: str, profile: str, indicator: str) -> None:
    """Guard.  Two melds; 33m 88m 67s 45p: one pair must go towards a set, and a small
    hand's pair must be 2/5/8, so the 88m stays the pair and a 3m goes (the 67s and 45p
    are the sets to come)."""
    view = make_view("33m88m67s45p", profile=profile, indicator=indicator,
                     melds={0: [meld("chi", "123m", 3), meld("peng", "777p", 2)]})
    ask(bot, view, [discard("3m")])


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("wall", [16, 20])
def test_a_hopeless_hand_keeps_its_green(bot: str, wall: int) -> None:
    """The hopeless hand in 赖子山庄 with a 发 (a must-kong tile there) beside its 红中: late,
    neither is played out (``ExpertBot.hopeless_holds``)."""
    green = {"type": "special_kong", "kind": "green"}
    view = make_view("1m4m7m9m2s4s5s8s3p1z2z3z6z7z", profile="laizishanzhuang",
                     indicator="9s", wall=wall, dealer=2, melds={1: PIN_FLUSH},
                     discards=_rivers("6s", "3p"), extra_actions=[RED, green])
    _not(bot, view, [RED, green])


#: seat 1's three melds of a family: honours (风一色) or 2/5/8s (将一色), neither needing sets
FAMILY = {"honours": ([meld("peng", "111z", 0), meld("peng", "222z", 3),
                       meld("peng", "333z", 2)], "4z", "9m"),
          "258s": ([meld("peng", "222p", 0), meld("peng", "555p", 3),
                    meld("peng", "888m", 2)], "8p", "4p")}


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("family", sorted(FAMILY))
def test_guard_no_family_tile_into_three_family_melds(bot: str, profile: str,
                                                      family: str) -> None:
    """Guard.  Seat 1 shows three pengs of honours (or of 2/5/8s): his 风一色 (将一色) needs
    no sets (乱风乱将, Project decision 10), so once ready he wins on any tile of the
    family.  Closed and one step away, with two lone tiles as useless, the one outside
    the family goes: 9m, not the 北 (4p, not the 8p; greedy throws the other by shape)."""
    melds, danger, safe = FAMILY[family]
    view = make_view("234m456m55s23s78s" + danger + safe, profile=profile, indicator="9p",
                     wall=20, dealer=2, melds={1: melds},
                     discards={1: "1s9p7s", 2: "1p9s", 3: "9p1m"})
    ask(bot, view, [discard(safe)])
