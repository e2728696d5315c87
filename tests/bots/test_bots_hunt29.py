"""Decision problems of the twenty-ninth hunt (6 December 2026, late night): ``bianfeng``
(边风), the expert's biggest losses to greedy on the same deals.  The hunt played tuning
seeds 390 to 392 with the expert at seat 0 and, on the same walls, greedy there (the
first-deviation study of ``bench/bots_first_deviation.py``, wrapped to keep each
deviation's view) and sorted the decisions where the expert first parted from greedy
into kinds (docs/bots-log.md, *The twenty-ninth decision-problem hunt*).  One kind lost
with an interval clear of 0, eleven keeps of ``near_targets`` (each the strong player's
play, read one by one; its paired run is in the log), and the push-or-fold layer's swaps
came next (plain defence, mined by the twenty-fourth hunt); no fault was found by
position.

The positions below are guards (every bot they concern answers them already), each
settled by the analysis and the settlement, not by the bots:

* Opened three times by pengs (111s, 444m, 999s), holding 66p 7p 88s.  Throwing the 7p
  leaves 66p 88s, a 碰碰胡 on the 6p or the 8s (three tiles unseen: a 6p sits in seat 3's
  567p chi); throwing a 6p leaves 67p 88s, a small hand on the 5p or the 8p (seven
  unseen).  In ``bianfeng`` no small win of that hand reaches the minimum score (16 a
  loser self-drawn, 8 on a discard, where one loser must owe 20: ``scoring.settle``
  refuses it), and the 碰碰胡 collects 180 self-drawn, 140 on a discard; in ``yuanhang``
  720 and 560 against 128 and 80, in ``laizishanzhuang`` 180 and 140 against 32 and 20,
  so three tiles of the big hand outweigh seven of the small one in every profile.  The
  7p goes.  The expert and the search bot throw it in every profile; greedy in
  ``bianfeng`` (its legal waits), while elsewhere it counts tiles and throws the 6p (the
  baseline, left alone).  One of the study's ready discards valued by their waits (the
  kind credited +88 points a deviation).

* A 碰碰胡 at the same distance either way, the small hand kept a step closer (the
  ``near_targets`` keeps the study credited −297 points each, eleven of them, nine a
  small hand a step closer at the 碰碰胡's distance: the credit of what came after).
  Opened by a peng of 444p, holding 44m 6m 8m 99m 33p 333s early (walls 72 to 40,
  nobody else opened): throwing the 6m or the 8m leaves the 碰碰胡 a step from ready on
  the same draws (4m, 9m, 3p and the laizi, ``analysis.shanten`` on every draw), the
  lone 万 being dead weight to it either way; the 8m is a 2/5/8 tile beside 99m, and
  keeping it leaves the small hand two steps away where the 6m leaves three (the
  shanten with 碰碰胡 taken out of the rules).  The 6m goes.  The expert and the search
  bot throw it in every profile; with ``near_targets`` off the expert throws the 8m, as
  greedy does (greedy's tie order, the baseline, left alone).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.analysis import NotAWin, shanten, waits
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles, tile_str
from wuhan_mahjong.win_record import parse_win_record

PROFILES = ["bianfeng", "yuanhang", "laizishanzhuang"]
PENGS = [meld("peng", "111s", 2), meld("peng", "444m", 1), meld("peng", "999s", 3)]
OTHERS = {1: [meld("chi", "567m", 0)], 2: [meld("chi", "456s", 1)], 3: [meld("chi", "567p", 2)]}
RIVERS = {0: "1z 4z 7m 1z 9p 9m 4z 2z 5s 2s", 1: "3z 4z 3m 4m 4s 9m 6z",
          2: "1s 6z 7m 7p 8m 2s", 3: "4z 3z 6s 1z 2p 6m"}


def _pengs_view(profile: str, wall: int) -> SeatView:
    """Seat 0's turn (seat 1 deals, the laizi is the 4p) holding 667p 88s beside three
    seats opened once each."""
    return make_view("667p88s", profile=profile, indicator="3p", wall=wall, dealer=1,
                     melds={0: PENGS, **OTHERS}, discards=RIVERS)


def _win(profile: str, hand: str, tile: str, win_by: str) -> int | None:
    """What seat 0 collects winning on ``tile`` with ``hand`` beside its three pengs (seat
    2 feeding a discard win), or None where the settlement refuses the win."""
    seats: list[dict[str, Any]] = [
        {"hand": hand, "kongs": {}, "melds": [{"type": m["type"], "tiles": m["tiles"],
                                               "from": m["from_seat"]} for m in PENGS]}]
    seats += [{"hand": "", "kongs": {}, "melds": []} for _ in range(3)]
    rec: dict[str, Any] = {"profile": profile, "dealer": 1, "indicator": "3p", "winner": 0,
                           "win_by": win_by, "winning_tile": tile, "seats": seats,
                           **({"from": 2} if win_by == "discard" else {})}
    try:
        return int(sum(p.amount for p in settle(parse_win_record(rec)).payments))
    except NotAWin:
        return None


# ---------------------------------------------------------------- the rules' side

@pytest.mark.parametrize(("thrown", "wins"), [("7p", {"6p", "8s"}), ("6p", {"5p", "8p"})])
def test_the_two_ready_discards_wait_on(thrown: str, wins: set[str]) -> None:
    """The 7p leaves the 碰碰胡 waiting on 6p and 8s; a 6p the small hand on 5p and 8p (the
    plain tiles; the laizi self-drawn aside)."""
    rules = get_rules("bianfeng")
    laizi = rules.laizi_of(parse_tile("3p"))
    hand = parse_tiles("667p88s")
    hand.remove(parse_tile(thrown))
    melds = [Meld("peng", tuple(parse_tiles(m["tiles"])), m["from_seat"]) for m in PENGS]
    found = {w.tile for w in waits(hand, melds, laizi, rules, "discard")}
    assert found == {parse_tile(x) for x in wins}


@pytest.mark.parametrize("win_by", ["self_draw", "discard"])
def test_in_bianfeng_the_small_waits_win_nothing(win_by: str) -> None:
    """Every small win of 67p 88s fails ``bianfeng``'s minimum score; the 碰碰胡 does not."""
    assert _win("bianfeng", "67p88s", "5p", win_by) is None
    assert _win("bianfeng", "67p88s", "8p", win_by) is None
    assert _win("bianfeng", "66p88s", "6p", win_by) == (180 if win_by == "self_draw" else 140)
    assert _win("bianfeng", "66p88s", "8s", win_by) == (180 if win_by == "self_draw" else 140)


@pytest.mark.parametrize(("profile", "big", "small"), [
    ("yuanhang", (720, 560), (128, 80)), ("laizishanzhuang", (180, 140), (32, 20))])
def test_elsewhere_three_big_tiles_outweigh_seven_small_ones(
        profile: str, big: tuple[int, int], small: tuple[int, int]) -> None:
    """Where the small hand wins, three tiles of the 碰碰胡 (the 6p: one unseen, the 8s:
    two) still collect more than seven of the small hand (5p: three, 8p: four), whichever
    way each is won."""
    assert (_win(profile, "66p88s", "6p", "self_draw"), _win(profile, "66p88s", "6p", "discard")) == big
    assert (_win(profile, "67p88s", "5p", "self_draw"), _win(profile, "67p88s", "5p", "discard")) == small
    assert 3 * min(big) > 7 * max(small)


# ---------------------------------------------------------------- the bots

@pytest.mark.parametrize("wall", [64, 52, 40, 28])
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_the_pengs_keep_the_big_wait(bot: str, profile: str, wall: int) -> None:
    """Guard: the 7p, keeping the 碰碰胡 on 6p and 8s, in every profile."""
    ask(bot, _pengs_view(profile, wall), [discard("7p")])


@pytest.mark.parametrize("wall", [64, 40])
def test_greedy_keeps_the_big_wait_where_the_small_one_wins_nothing(wall: int) -> None:
    """Guard: greedy's legal waits see that no small win passes ``bianfeng``'s minimum."""
    ask("greedy", _pengs_view("bianfeng", wall), [discard("7p")])


# ------------------------------------------------- 碰碰胡 at the same distance (near_targets)

PAIRS_HAND = "446899m33p333s"  # beside a peng of 444p; the laizi is the 6z (indicator 4z)
PAIRS_RIVERS = {0: "2z 1s 7p", 1: "3z 9s 1m", 2: "2z 5z 8s", 3: "1z 1p 7s"}


def _pairs_view(profile: str, wall: int) -> SeatView:
    """Seat 0's turn (seat 1 deals), opened by a peng of seat 3's 4p, nobody else opened."""
    return make_view(PAIRS_HAND, profile=profile, indicator="4z", wall=wall, dealer=1,
                     melds={0: [meld("peng", "444p", 3)]}, discards=PAIRS_RIVERS)


def _after(thrown: str) -> tuple[list[int], list[Meld], int]:
    hand = parse_tiles(PAIRS_HAND)
    hand.remove(parse_tile(thrown))
    rules = get_rules("bianfeng")
    return hand, [Meld("peng", tuple(parse_tiles("444p")), 3)], rules.laizi_of(parse_tile("4z"))


@pytest.mark.parametrize(("thrown", "small"), [("6m", 2), ("8m", 3)])
def test_the_pengpenghu_is_as_close_either_way(thrown: str, small: int) -> None:
    """Either lone 万 leaves the 碰碰胡 a step from ready, improved by the same draws (4m,
    9m, 3p and the laizi); without 碰碰胡 in the rules (the small hand alone, the flushes
    out of reach) the 6m leaves two steps and the 8m three."""
    rules = get_rules("bianfeng")
    hand, melds, laizi = _after(thrown)
    now = shanten(hand, melds, laizi, rules)
    assert now == 1
    better = set()
    for x in range(34):
        drawn = [*hand, x]
        if min(shanten(drawn[:i] + drawn[i + 1:], melds, laizi, rules)
               for i in range(len(drawn))) < now:
            better.add(tile_str(x))
    assert better == {"4m", "9m", "3p", tile_str(laizi)}
    assert shanten(hand, melds, laizi, replace(rules, pengpenghu=False)) == small


@pytest.mark.parametrize("wall", [72, 64, 52, 40])
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_the_small_hand_stays_a_step_closer(bot: str, profile: str, wall: int) -> None:
    """Guard: the 6m, keeping the 8m beside 99m."""
    ask(bot, _pairs_view(profile, wall), [discard("6m")])


@pytest.mark.parametrize("profile", PROFILES)
def test_near_targets_makes_that_choice(profile: str) -> None:
    """With ``near_targets`` off the expert throws the 8m (greedy's tile): the switch is
    what answers it."""
    assert str(ExpertBot(1, near_targets=False).choose(_pairs_view(profile, 52))) == "discard 8m"
