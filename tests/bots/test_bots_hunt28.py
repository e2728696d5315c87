"""Decision problems of the twenty-eighth hunt (6 December 2026, late night):
``laizishanzhuang`` (赖子山庄), the equal-speed swaps that lost points in the
twenty-third hunt's first-deviation study (65 discards at greedy's shanten and tiles
credited −48.2 [−92.8, −3.6] points each, 40 of them from ``contract_ties`` and 11 from
``near_targets``).  The hunt tagged each first deviation of the expert from greedy on
tuning seed 387 (400 deals) by the switch that made it (the expert with the switch off
plays greedy's discard) and read every one: 21 ``contract_ties`` swaps and 6
``near_targets`` keeps.  Each swap threw a tile as fast (the same shanten and target, as
many improving tiles) that fed no 清一色 its third meld, where greedy's tile could; the
credits (−45 [−181, +91] and +292 [−23, +607] each) are the later play's, not the swap's.
No fault was found; the two kinds of position are kept here as guards, each asked of the
bots that read the other seats in every profile (the answer is the same in all three:
the one-suit contract is the third feeder's everywhere, ``one_suit_contract_hands``).
Each answer is settled by counting (``analysis.shanten``) and by the settlement
(``scoring.settle``), not by the bots.  Greedy, which reads no seat, answers both wrong
(it is the baseline, left alone).
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.analysis import shanten
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles
from wuhan_mahjong.win_record import parse_win_record

READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")

# ---------------------------------------------------------------- the fourth 4s

#: seat 2 (across: he may peng this seat's discards, never chi them) shows two 索
#: melds, both chied from seat 1; seat 3 threw a 4s.
SOUZI = [meld("chi", "234s", 1), meld("chi", "456s", 1)]
SOUZI_RIVERS = {1: "3s>2 1z 5s>2 9m", 2: "2z9p", 3: "4s1z3z"}
FEED_HAND = "234m567m22p45p78p1s4s"
FEED_INDICATOR = "8m"  # the laizi is the 9m


def _feed_view(profile: str, wall: int) -> SeatView:
    return make_view(FEED_HAND, profile=profile, indicator=FEED_INDICATOR, wall=wall,
                     dealer=1, melds={2: SOUZI}, discards=SOUZI_RIVERS)


def _lowering(hand_text: str, thrown: str, profile: str, view: SeatView,
              indicator: str) -> tuple[int, dict[int, int]]:
    """The shanten of the tiles left after ``thrown`` (beside this seat's melds in
    ``view``), and the kinds that bring them a step closer (``analysis.shanten``), each
    with its unseen copies in ``view``."""
    rules = get_rules(profile)
    laizi = rules.laizi_of(parse_tile(indicator))
    hand = parse_tiles(hand_text)
    hand.remove(parse_tile(thrown))
    ms = [Meld(m["type"], tuple(parse_tiles(m["tiles"])), m["from_seat"])
          for m in view["seats"][0]["melds"]]
    now = shanten(hand, ms, laizi, rules)
    unseen = SeatReading(view).unseen
    return now, {k: unseen[k] for k in range(34)
                 if unseen[k] and shanten([*hand, k], ms, laizi, rules) < now}


@pytest.mark.parametrize("profile", PROFILES)
def test_the_1s_and_the_4s_are_equally_useless(profile: str) -> None:
    """Either lone 索 leaves the hand a step from ready with the same improving tiles
    (the 3p/6p, 6p/9p and the 2p: neither lone tile is one of them).  The 4s has no copy
    left unseen (two in seat 2's chis, one in seat 3's river, this one), so nobody can
    peng it; the 1s has three."""
    view = _feed_view(profile, 52)
    keep_4s = _lowering(FEED_HAND, "1s", profile, view, FEED_INDICATOR)
    keep_1s = _lowering(FEED_HAND, "4s", profile, view, FEED_INDICATOR)
    assert keep_4s == keep_1s and keep_4s[0] == 1
    unseen = SeatReading(view).unseen
    assert unseen[parse_tile("4s")] == 0 and unseen[parse_tile("1s")] == 3


def _souzi_win(profile: str, feeder: int) -> dict[int, tuple[int, int]]:
    """Seat 2's self-drawn 清一色 (5578s, the 6s) beside 234s 456s and a third meld, 111s
    peng'd from ``feeder``: loser -> (who pays his share, the amount)."""
    seats: list[dict[str, Any]] = [{"hand": "", "kongs": {}, "melds": []} for _ in range(4)]
    seats[2] = {"hand": "5578s", "kongs": {},
                "melds": [{"type": "chi", "tiles": "234s", "from": 1},
                          {"type": "chi", "tiles": "456s", "from": 1},
                          {"type": "peng", "tiles": "111s", "from": feeder}]}
    rec = {"profile": profile, "dealer": 1, "indicator": FEED_INDICATOR, "winner": 2,
           "win_by": "self_draw", "winning_tile": "6s", "seats": seats}
    return {p.loser: (p.payer, int(p.amount)) for p in settle(parse_win_record(rec)).payments}


@pytest.mark.parametrize("profile", PROFILES)
def test_a_peng_of_the_1s_as_his_third_meld_makes_this_seat_pay_all(profile: str) -> None:
    """The settlement: fed the third 索 meld by this seat (a peng of the 1s), his 清一色
    makes this seat pay all three shares (承包, RULES §17.10; in ``laizishanzhuang`` the
    contractor pays the sum of the three losses): three times what it pays when another
    seat fed it."""
    mine = _souzi_win(profile, 0)
    other = _souzi_win(profile, 3)
    assert all(payer == 0 for payer, _ in mine.values())
    assert sum(a for _, a in mine.values()) == 3 * other[0][1]
    assert other[0][0] == 3


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [64, 52, 40])
def test_guard_the_fourth_copy_goes_before_a_peng_of_his_third_meld(
        bot: str, profile: str, wall: int) -> None:
    """Guard.  The 1s and the 4s are equally useless to this hand; the 1s may be peng'd as
    seat 2's third 索 meld, which makes this seat contract for his 清一色, while the 4s is
    the last copy (no peng, and he sits across: no chi).  The 4s goes.  Greedy throws the
    1s; in ``laizishanzhuang`` the expert's core prices no contract (``contract_weight``
    0), and ``contract_ties`` makes the swap (the tests below)."""
    ask(bot, _feed_view(profile, wall), [discard("4s")])


@pytest.mark.parametrize("wall", [64, 52])
def test_the_contract_ties_switch_plays_as_before_on_the_fourth_copy(wall: int) -> None:
    view = _feed_view("laizishanzhuang", wall)
    assert ExpertBot(1, contract_ties=False).choose(view) == action_from_json(discard("1s"))


# ---------------------------------------------------------------- the 万 flush kept

#: this seat peng'd 111m and 999m from seat 2: a 万 清一色 is open to it.
MANZU = [meld("peng", "111m", 2), meld("peng", "999m", 2)]
MANZU_RIVERS = {1: "1z3z", 2: "1m>0 9m>0 7s", 3: "4z"}
FLUSH_HAND = "23458m5p24s"
FLUSH_INDICATOR = "1z"  # the laizi is 南 (2z)


def _flush_view(profile: str, wall: int) -> SeatView:
    return make_view(FLUSH_HAND, profile=profile, indicator=FLUSH_INDICATOR, wall=wall,
                     dealer=2, melds={0: MANZU}, discards=MANZU_RIVERS)


@pytest.mark.parametrize("profile", PROFILES)
def test_the_8m_and_the_5p_leave_the_small_hand_alike(profile: str) -> None:
    """Either discard leaves the small hand a step from ready with as many improving
    tiles (``analysis.shanten``): the 2m, 5m, 3s and the laizi (南), 14, and the kept
    lone tile's own three copies (a second pair, both 2/5/8): 17 each.  The 8m and the
    5p are equally useful to it."""
    view = _flush_view(profile, 52)
    sh_8m, keep_8m = _lowering(FLUSH_HAND, "5p", profile, view, FLUSH_INDICATOR)
    sh_5p, keep_5p = _lowering(FLUSH_HAND, "8m", profile, view, FLUSH_INDICATOR)
    assert sh_8m == sh_5p == 1
    assert keep_8m.pop(parse_tile("8m")) == keep_5p.pop(parse_tile("5p")) == 3
    assert keep_8m == keep_5p and sum(keep_8m.values()) == 14
    # and the tiles a 万 清一色 must still replace: 2 (the 2s, 4s) against 3 (the 5p too)
    hand = parse_tiles(FLUSH_HAND)
    for thrown, left in (("5p", 2), ("8m", 3)):
        rest = list(hand)
        rest.remove(parse_tile(thrown))
        assert sum(1 for x in rest if x >= 9) == left


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [64, 52, 40])
def test_guard_the_5p_goes_and_the_flush_stays_two_steps_away(
        bot: str, profile: str, wall: int) -> None:
    """Guard.  Beside pengs of 111m and 999m, the 5p and the 8m are equally useless to the
    small hand (the test above); the 8m is a 万, so throwing the 5p keeps the 清一色 two
    steps away where the 8m would leave it three.  The 5p goes.  Greedy throws the 8m;
    the expert keeps it by ``near_targets`` (off, it throws the 8m too)."""
    ask(bot, _flush_view(profile, wall), [discard("5p")])


def test_the_near_targets_switch_plays_as_before() -> None:
    view = _flush_view("laizishanzhuang", 52)
    assert ExpertBot(1, near_targets=False).choose(view) == action_from_json(discard("8m"))
