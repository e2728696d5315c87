"""Decision problems of the fourth hunt (6 December 2026), aimed at 赖子山庄
(``laizishanzhuang``: 红中 and 发财 both must-kong tiles, laizi kong ×2, no minimum score,
opening scoring once), where the expert's edge over greedy is smallest.  Each position has
one answer the rules settle, asked of the bots it concerns in every profile where the
answer is the same.

The faults it found (each test fails on the code before the fix it names):

* Two lone tiles equally useless, one of them a pin the next seat, who shows two pin melds,
  may chi or peng as the third meld of his 清一色, which makes this seat pay for all three
  losers (承包).  In ``laizishanzhuang`` the expert's core leaves the contract out of its
  discard ranking (``contract_weight`` 0 there, as measured), and its safety layers act
  only once some seat reads as ready, so early it fed the pin (``ExpertBot.contract_ties``).
* Found by comparing the profiles (a 边锋 fault, not a 赖子山庄 one): the chance that a seat
  robs an added kong counted a third of his readiness where his small hand could not pass
  the minimum score, but 抢杠 is a big hand, which passes any minimum; beside two likely
  ready seats the expert made in 边锋 the added kong it skips in the other two profiles
  (``ExpertBot.rob_ready``).

The positions the bots already answered right are below them, marked as guards.
"""

from __future__ import annotations

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json

READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")
PASS = {"type": "pass"}
GREEN = {"type": "special_kong", "kind": "green"}
LAIZI_KONG = {"type": "special_kong", "kind": "laizi"}

#: seat 1, this seat's next, shows two melds of pins: 123p chi'd from this seat, 555p
#: peng'd from seat 3.  A third pin meld fed to him makes the feeder contract (承包) for
#: his 清一色 in every profile (``one_suit_contract_hands``).
TWO_PINS = [meld("chi", "123p", 0), meld("peng", "555p", 3)]
TWO_PIN_RIVERS = {0: "1p>1", 1: "1z9s", 2: "2z3z", 3: "5p>1 4z"}


def _feed(lone: str, wall: int, profile: str) -> SeatView:
    """Closed, one step from ready (234m 567m 22s 45s 78s) with two lone tiles: a pin
    (``lone``'s first) and a character, equally useless."""
    return make_view("234m567m22s45s78s" + lone, profile=profile, indicator="9s", wall=wall,
                     dealer=2, melds={1: TWO_PINS}, discards=TWO_PIN_RIVERS)


# ---------------------------------------------------------------- faults found

@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [64, 56, 40])
@pytest.mark.parametrize(("lone", "answer"), [("9p1m", "1m"), ("8p9m", "9m")])
def test_no_third_pin_meld_for_a_contract(bot: str, profile: str, wall: int, lone: str,
                                          answer: str) -> None:
    """The next seat shows 123p and 555p: a 9p (or 8p) from this seat is the chi or peng of
    his third pin meld, and if he then wins his 清一色 this seat pays all three shares
    (承包, RULES §17).  The 1m (9m) is as useless to this hand and feeds nothing: it goes.
    In ``laizishanzhuang`` the expert and the search bot threw the pin while nobody read as
    ready yet (wall 64, 56): the core's ranking there prices no contract
    (``contract_weight`` 0) and the push-or-fold layer waits for a threat
    (``ExpertBot.contract_ties``)."""
    ask(bot, _feed(lone, wall, profile), [discard(answer)])


def test_the_contract_ties_switch_plays_as_before() -> None:
    view = _feed("9p1m", 64, "laizishanzhuang")
    assert ExpertBot(1, contract_ties=False).choose(view) == action_from_json(discard("9p"))


#: two opened seats, each with three mixed melds (no family read) and likely ready:
#: seat 1 345s 789m 111m, seat 3 678s 中 123p.  This seat pengs 555p and holds the fourth.
TWO_READY = {0: [meld("peng", "555p", 2)],
             1: [meld("chi", "345s", 0), meld("chi", "789m", 3), meld("peng", "111m", 3)],
             3: [meld("chi", "678s", 2), meld("peng", "333z", 1), meld("chi", "123p", 2)]}
ADDED_5P = {"type": "kong", "kind": "added", "tile": "5p"}


def _rob_view(profile: str, wall: int) -> SeatView:
    return make_view("5p234m678m22s4s9s", profile=profile, indicator="9p", wall=wall, dealer=2,
                     melds=TWO_READY, extra_actions=[ADDED_5P],
                     discards={0: "5p>0 1s9m>1", 1: "9m2z3z>3", 2: "3s>1 7m6s>3 1p>3",
                               3: "1m>1 3z"})


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [32, 20])
def test_no_added_kong_into_two_ready_seats(bot: str, profile: str, wall: int) -> None:
    """Two seats show three melds each and are likely ready; either may rob the added 5p
    kong with a run through it (the konger holds all four, so no pair waits on it), and a
    robbed kong is a big hand (抢杠) that passes any minimum score, for which the konger
    pays all three shares (RULES §17.10-17.11).  The expert skips such a kong when its
    expected cost is over ``rob_max`` (30 points), and did so in ``yuanhang`` and
    ``laizishanzhuang`` (about 85-97 points); in ``bianfeng``, where neither seat's small
    hand could pass the minimum score on this seat's discard, the model counted a third
    of their readiness for the rob too (12-14 points) and konged
    (``ExpertBot.rob_ready``).  The 9s goes (the 5p, a dead tile, is kept)."""
    ask(bot, _rob_view(profile, wall), [discard("9s")])


def test_the_rob_ready_switch_plays_as_before() -> None:
    view = _rob_view("bianfeng", 20)
    assert ExpertBot(1, rob_ready=False).choose(view) == action_from_json(ADDED_5P)


# ---------------------------------------------------------------- guards

BOTS = ("greedy", "expert", "search")


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "answer"), [("yuanhang", "5m"), ("bianfeng", "5m"),
                                                 ("laizishanzhuang", "9p")])
def test_guard_the_haidi_pair_by_profile(bot: str, profile: str, answer: str) -> None:
    """Guard.  The end-phase discard (海底, RULES §16), opened with 456p, 789s, 123s and a
    东 pung, the singles 9p and 5m, two 5m and one 9p in the rivers.  Only a 海底捞 can win
    now; in ``yuanhang`` and ``bianfeng`` it takes any pair, so the 5m goes and the hand
    waits on the two 9p left; in ``laizishanzhuang`` it needs a 2/5/8 pair (Project
    decision 9), so the 9p goes and the hand waits on the last 5m (and a drawn laizi)."""
    view = make_view("111z9p5m", profile=profile, indicator="9s", wall=4, dealer=2,
                     melds={0: [meld("chi", "456p", 3), meld("chi", "789s", 3),
                                meld("chi", "123s", 3)]},
                     discards={1: "5m", 2: "5m", 3: "9p"})
    view["end_phase"] = True
    ask(bot, view, [discard(answer)])


@pytest.mark.parametrize("bot", READERS)
def test_guard_a_hopeless_hand_keeps_its_green(bot: str) -> None:
    """Guard.  In ``laizishanzhuang`` 发财 is a must-kong tile as 红中 is: late (wall 16),
    closed and far from ready beside seat 1's pin flush, the hand cannot be won, and the 发
    kong would only double its share of his win (``ExpertBot.hopeless_holds``)."""
    pins = [meld("chi", "123p", 0), meld("peng", "555p", 3), meld("chi", "789p", 0)]
    view = make_view("1m4m7m2s5s8s1z2z3z4z9m9s6z3m", profile="laizishanzhuang", indicator="9s",
                     wall=16, dealer=2, melds={1: pins},
                     discards={0: "1p>1 7p>1", 1: "5z", 3: "5p>1"}, extra_actions=[GREEN])
    ask(bot, view, [discard(x) for x in ("1m", "4m", "7m", "2s", "5s", "8s", "1z", "2z", "3z",
                                        "4z", "9m", "9s", "3m")])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_a_closed_ready_hand_opens(bot: str, profile: str) -> None:
    """Guard.  Closed and ready on 2p/5p (234m 678m 456s 55p 34p): no concealed win in any
    profile, so the chi of 678m with the previous seat's 7m (the 7m thrown back) opens the
    hand and keeps the same wait."""
    view = make_view("234m678m456s55p34p", profile=profile, indicator="9p", wall=40, dealer=0,
                     claim=("7m", 3), actions=[PASS, {"type": "chi", "tile": "6m"}])
    ask(bot, view, [{"type": "chi", "tile": "6m"}])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_a_closed_ready_hand_konges_the_fourth(bot: str, profile: str) -> None:
    """Guard.  Closed and ready on 3s/6s with a concealed 555p: seat 2's 5p makes the 冲杠,
    which opens the hand (Project decision 5), keeps the wait and draws a replacement."""
    view = make_view("555p234m678m22s45s", profile=profile, indicator="9p", wall=40,
                     claim=("5p", 2), actions=[PASS, {"type": "peng", "tile": "5p"},
                                               {"type": "kong", "kind": "direct", "tile": "5p"}])
    ask(bot, view, [{"type": "kong", "kind": "direct", "tile": "5p"}])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_two_wilds_in_a_small_hand_kong_one(bot: str, profile: str) -> None:
    """Guard.  Opened (123m), 456m 678s 55p 3p and two laizi (1s): complete with both wilds
    standing in, but a small hand may not win holding two (Project decision 12), and no
    big hand is near; the laizi kong leaves it ready on one wild and draws a replacement."""
    view = make_view("456m678s11s55p3p", profile=profile, indicator="9s", wall=40,
                     melds={0: [meld("chi", "123m", 3)]}, extra_actions=[LAIZI_KONG])
    ask(bot, view, [LAIZI_KONG])
