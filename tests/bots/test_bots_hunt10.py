"""Decision problems of the tenth hunt (6 December 2026): openings, claims and kongs as
multipliers, and the table's rule options.  Each position has one answer the rules and
plain expected value settle (the arithmetic checked by the rules module and the
settlement, not by the bots), asked of the bots it concerns in every profile, and under
every table option, where the answer is the same.  The bots read the options from the
view (``view["options"]``, :func:`handmade.make_view`'s ``options``), not the profile's
presets: a position whose answer turns on an option is asked under both.

The faults it found (each test fails on the code before the fix it names):

* At a table where a 冲杠 is no opening (the option ``direct_kong_opens`` off), a closed
  hand ready on 2s/5s beside 555p, on seat 2's 5p: the 冲杠 leaves it closed, so it can
  win nothing (no win without an opening, RULES §9), while the peng opens it and, the
  spare 5p thrown, keeps the same wait.  Every bot made the 冲杠: greedy's claim rule
  ranks a kong before a peng at the same shanten, and the shanten is the shape's
  (``GreedyBot.direct_opens``: such a 冲杠 of a closed hand ranks a step further).  At
  the profiles' own tables the 冲杠 opens, and is made (its ×2 and its draw are free).
* A 癞子皮杠 (``pi_kong``: 边锋 with 口口翻, or the option on) of a loose 北 under a 北
  indicator, by a closed hand three steps from ready, at a wall of 32 or 20, beside two
  seats with three melds each: every bot made it.  Its ×2 joins this seat's multiplier
  whether it wins or pays (Project decision 6), so it doubles its share of their likely
  win, for a replacement draw; the 北 may as well be thrown.  The expert and the search
  bot weigh a 暗杠 so since the fifth hunt (``threat_kongs``), now a 癞子皮杠 too
  (``ExpertBot.threat_pi_kongs``).  Greedy, the baseline, makes every kong that costs no
  step.

The positions the bots already answered right are below them, marked as guards.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld
from test_bots_hunt5 import TWO_READY, TWO_READY_RIVERS

from wuhan_mahjong.analysis import is_ready
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.scoring import NotAWin, settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles
from wuhan_mahjong.win_record import parse_win_record

READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)
BOTS = ("greedy", "expert", "search")
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")
PASS = {"type": "pass"}
PENG_5P = {"type": "peng", "tile": "5p"}
DIRECT_5P = {"type": "kong", "kind": "direct", "tile": "5p"}
PI_KONG = {"type": "special_kong", "kind": "pi"}

# ---------------------------------------------------------------- faults found

#: closed, 555p beside 456s 789m 55m 34s: ready on 2s/5s (the 55m 将)
CLOSED_READY = "555p456s789m55m34s"


def _direct_view(profile: str, options: dict[str, Any]) -> SeatView:
    """Seat 2 has just thrown the fourth 5p; the others are closed (laizi 南)."""
    return make_view(CLOSED_READY, profile=profile, options=options, indicator="1z",
                     wall=40, dealer=1, claim=("5p", 2), actions=[PASS, PENG_5P, DIRECT_5P],
                     discards={1: "9p1s", 2: "1m9s", 3: "2z"})


def test_a_kong_that_opens_nothing_leaves_the_hand_unready() -> None:
    """The rules' side: after the 冲杠 the hand is ready only where the 冲杠 opens it; after
    the peng (the spare 5p thrown) it is ready either way."""
    rest = parse_tiles("456s789m55m34s")
    five = parse_tile("5p")
    kong = [Meld("kong", (five,) * 4, 2, "direct")]
    peng = [Meld("peng", (five,) * 3, 2)]
    for profile in PROFILES:
        for opens in (True, False):
            rules = SeatReading(_direct_view(profile, {"direct_kong_opens": opens})).rules
            assert rules.direct_kong_opens is opens
            laizi = rules.laizi_of(parse_tile("1z"))
            assert is_ready(rest, kong, laizi, rules) is opens
            assert is_ready(rest, peng, laizi, rules)


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_no_direct_kong_that_opens_nothing(bot: str, profile: str) -> None:
    """With ``direct_kong_opens`` off, the 冲杠 leaves the ready hand closed and unable to
    win; the peng opens it on the same 2s/5s wait.  Every bot made the 冲杠
    (``GreedyBot.direct_opens``)."""
    ask(bot, _direct_view(profile, {"direct_kong_opens": False}), [PENG_5P])


def test_the_direct_opens_switch_plays_as_before() -> None:
    view = _direct_view("yuanhang", {"direct_kong_opens": False})
    bot = GreedyBot(1)
    bot.direct_opens = False
    assert bot.choose(view) == action_from_json(DIRECT_5P)
    assert ExpertBot(1, direct_opens=False).choose(view) == action_from_json(DIRECT_5P)


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_direct_kong_that_opens_the_ready_hand(bot: str, profile: str) -> None:
    """Guard, the same position at the profile's own table: the 冲杠 opens the hand (Project
    decision 5) on the same wait as the peng, with a kong's ×2 and a replacement draw
    besides (it cannot be robbed: only an added kong can)."""
    ask(bot, _direct_view(profile, {}), [DIRECT_5P])


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", ["yuanhang", "laizishanzhuang"])
@pytest.mark.parametrize("wall", [32, 20])
def test_guard_no_direct_kong_of_a_far_hand_that_opens_nothing(bot: str, profile: str,
                                                               wall: int) -> None:
    """Guard.  The fifth hunt's far, closed hand holding 777p, beside two seats with three
    melds each, on seat 2's 7p, at a table where a 冲杠 is no opening: the 冲杠 doubles this
    seat's share of their likely win and leaves the hand closed and three steps away; the
    peng opens it for no step.  The hand passes, as at the profiles' own tables
    (``kong_costs`` counts no opening's factor for such a 冲杠, and the closed hand's step
    still to make)."""
    view = make_view("777p234m56s8s9s1z2z4z", profile=profile,
                     options={"direct_kong_opens": False}, indicator="9p", wall=wall,
                     dealer=2, melds=dict(TWO_READY), discards=TWO_READY_RIVERS,
                     claim=("7p", 2), actions=[PASS, {"type": "peng", "tile": "7p"},
                                               {"type": "kong", "kind": "direct",
                                                "tile": "7p"}])
    ask(bot, view, [PASS])


#: closed, 777p 234m 56s 89s and the lone 9p, 东, 南, 北: three steps from ready
FAR_WITH_SKIN = "777p234m56s89s9p1z2z4z"
#: the tables with 癞子皮杠, the indicator 北 (the laizi 发, or 白 where 发 is a must-kong
#: tile: neither in the hand)
SKIN_TABLES = [("yuanhang", {"pi_kong": "on"}),
               ("bianfeng", {"opening_scoring": "per_opening"}),
               ("laizishanzhuang", {"pi_kong": "on"})]


def _skin_view(profile: str, options: dict[str, Any], wall: int) -> SeatView:
    return make_view(FAR_WITH_SKIN, profile=profile, options=options, indicator="4z",
                     wall=wall, dealer=2, melds=dict(TWO_READY), discards=TWO_READY_RIVERS,
                     extra_actions=[PI_KONG])


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize(("profile", "options"), SKIN_TABLES)
@pytest.mark.parametrize("wall", [32, 20])
def test_no_skin_kong_of_a_far_hand_beside_ready_seats(bot: str, profile: str,
                                                       options: dict[str, Any],
                                                       wall: int) -> None:
    """Three steps from ready and closed, beside two seats showing three melds each: the
    skin kong's ×2 doubles this seat's share of their likely win for a replacement draw
    that hardly brings its own closer.  A loose tile goes (the 北 as well as any:
    thrown, it pays nothing).  The expert and the search bot made the kong
    (``ExpertBot.threat_pi_kongs``)."""
    ask(bot, _skin_view(profile, options, wall),
        [discard("9p"), discard("1z"), discard("2z"), discard("4z")])


def test_the_threat_pi_kongs_switch_plays_as_before() -> None:
    view = _skin_view("yuanhang", {"pi_kong": "on"}, 20)
    assert ExpertBot(1, threat_pi_kongs=False).choose(view) == action_from_json(PI_KONG)


def test_the_skin_kong_exists_only_at_the_tables_that_have_it() -> None:
    """The option's side: 癞子皮杠 is a rule only with 口口翻 in 边锋, or the option on."""
    assert SeatReading(_skin_view("bianfeng", {"opening_scoring": "per_opening"}, 20)
                       ).rules.pi_kong_active
    assert not SeatReading(_skin_view("bianfeng", {}, 20)).rules.pi_kong_active
    assert not SeatReading(_skin_view("yuanhang", {}, 20)).rules.pi_kong_active


# ---------------------------------------------------------------- guards

@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "options"), SKIN_TABLES)
@pytest.mark.parametrize("wall", [32, 20])
def test_guard_a_ready_hand_makes_the_skin_kong_beside_ready_seats(
        bot: str, profile: str, options: dict[str, Any], wall: int) -> None:
    """Guard, the other side of ``threat_pi_kongs``.  Opened (678m), 456p 789p 55m 34s
    and the 北: ready on 2s/5s with the 北 thrown or konged alike.  The skin kong keeps the
    wait, adds a draw that may win as 杠上花, and its ×2 raises a win this hand is as
    likely as either ready seat to make: it is made."""
    view = make_view("456p789p55m34s4z", profile=profile, options=options, indicator="4z",
                     wall=wall, dealer=2, melds={**TWO_READY, 0: [meld("chi", "678m", 3)]},
                     discards=TWO_READY_RIVERS, extra_actions=[PI_KONG])
    ask(bot, view, [PI_KONG])


CHI_2M = {"type": "chi", "tile": "2m"}
#: opened by a peng of 777p, 234m 678s 55m 34p: ready on 2p/5p, hard, not the dealer
ONE_PENG = [meld("peng", "777p", 2)]


def _chi_view(profile: str, options: dict[str, Any], wall: int) -> SeatView:
    """Seat 3 (the previous seat) throws 4m; the others closed; seat 1 deals."""
    return make_view("234m678s55m34p", profile=profile, options=options, indicator="1z",
                     wall=wall, dealer=1, melds={0: ONE_PENG}, claim=("4m", 3),
                     actions=[CHI_2M, PASS], discards={1: "9p1s", 2: "1m9s7p>0", 3: "2z"})


def _win_totals(profile: str, options: dict[str, Any], hand: str,
                melds: list[dict[str, Any]]) -> dict[str, int | None]:
    """What each win of ``hand`` beside ``melds`` collects (None: refused, below the
    minimum score), self-drawn and on each seat's discard, on 2p, by the settlement."""
    out: dict[str, int | None] = {}
    for win_by, frm in (("self_draw", None), ("discard", 1), ("discard", 2), ("discard", 3)):
        seats: list[dict[str, Any]] = [{"hand": "", "melds": []} for _ in range(4)]
        seats[0] = {"hand": hand, "melds": melds}
        rec: dict[str, Any] = {"profile": profile, "options": options, "dealer": 1,
                               "indicator": "1z", "winner": 0, "win_by": win_by,
                               "winning_tile": "2p", "seats": seats}
        if frm is not None:
            rec["from"] = frm
        try:
            out[f"{win_by} {frm}"] = settle(parse_win_record(rec)).total
        except NotAWin:
            out[f"{win_by} {frm}"] = None
    return out


PER_OPENING_TABLES = [("yuanhang", {}), ("bianfeng", {"opening_scoring": "per_opening"})]


@pytest.mark.parametrize(("profile", "options"), PER_OPENING_TABLES)
def test_the_second_opening_makes_the_wins_by_the_settlement(profile: str,
                                                             options: dict[str, Any]) -> None:
    """The arithmetic: opened once, no win of the hand passes the minimum score (one loser
    20, and in 边锋 every loser 8); with the chi's second opening (口口翻: ×2) the
    self-draw does, and the win on the dealer's discard."""
    peng = [{"type": "peng", "tiles": "777p", "from": 2}]
    chi = [*peng, {"type": "chi", "tiles": "234m", "from": 3}]
    assert set(_win_totals(profile, options, "234m678s55m34p", peng).values()) == {None}
    after = _win_totals(profile, options, "678s55m34p", chi)
    assert after["self_draw None"] is not None and after["discard 1"] is not None


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "options"), PER_OPENING_TABLES)
@pytest.mark.parametrize("wall", [40, 24])
def test_guard_the_second_opening_that_makes_the_wins_legal(bot: str, profile: str,
                                                            options: dict[str, Any],
                                                            wall: int) -> None:
    """Guard.  In 口口翻 (远航, or 边锋 with the option) the chi of 4m with 23m (the spare 4m
    thrown back) keeps the 2p/5p wait and doubles the hand's multiplier, which is what its
    wins need to pass the minimum score.  (In 开口翻 it adds nothing, and the bots pass:
    the same waits either way, so it is not asked.)"""
    ask(bot, _chi_view(profile, options, wall), [CHI_2M])
