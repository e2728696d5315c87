"""Decision problems of the twenty-ninth hunt (6 December 2026, late night): ``bianfeng``
(边风), the expert's biggest losses to greedy on the same deals.  The hunt played tuning
seeds 390 to 392 with the expert at seat 0 and, on the same walls, greedy there (the
first-deviation study of ``bench/bots_first_deviation.py``, wrapped to keep each
deviation's view) and sorted the decisions where the expert first parted from greedy
into kinds (docs/bots-log.md, *The twenty-ninth decision-problem hunt*).  No kind lost
with an interval clear of 0 but the push-or-fold layer's swaps (plain defence, mined by
the twenty-fourth hunt) and eleven keeps of ``near_targets``, whose paired run is in the
log; no fault was found by position.

The position below is a guard (every bot it concerns answers it already), one of the
study's ready discards valued by their waits (the kind credited +86 points a deviation),
its answer settled by the analysis and the settlement, not by the bots:

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
  baseline, left alone).
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.analysis import waits
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import NotAWin, settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles
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
