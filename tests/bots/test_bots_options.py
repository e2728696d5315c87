"""Bots at a table with rule options: they read the rules of the table they sit at, not
the profile's defaults (``view["options"]``; RULES §20).

* ``pengpenghu=False``: 碰碰胡 is no hand, so all triplets with a pair that is not a
  2/5/8 wins nothing, and is no target.
* ``small_hand_max_laizi``: how many laizi a small hand may hold when it wins (1 in
  every profile); the wilds beyond it are konged, and with 0 the single one is too.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import make_view, meld
from test_bots_hunt13 import _counts

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.greedy import evaluator
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import Discard, SpecialKong
from wuhan_mahjong.tiles import parse_tile, tile_str

BOTS = ("greedy", "expert", "search")
LAIZI_KONG = {"type": "special_kong", "kind": "laizi"}


def _with(view: SeatView, **options: Any) -> SeatView:
    v: dict[str, Any] = dict(view)
    v["options"] = options
    return v  # type: ignore[return-value]


#: opened by a peng of 7p: 111m 333s and the pairs 99s and 44p.  Without the 5p it waits on
#: 9s or 4p as 碰碰胡 (any pair); no small hand, whose pair must be a 2/5/8.  Without
#: 碰碰胡 the 445p shape is the hand's way on: the 5p's cut leaves it two steps away, a cut
#: of 9s or 4p one (the rules core's count, :func:`_counts`)
PUNGS = "111m333s99s44p5p"


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_no_pengpenghu_target_where_the_table_has_no_pengpenghu(profile: str) -> None:
    view = make_view(PUNGS, profile=profile, melds={0: [meld("peng", "777p", 2)]})
    five_p = parse_tile("5p")
    for pph, shanten_after in ((True, 0), (False, 2)):
        v = _with(view, pengpenghu=pph)
        t = SeatReading(v)
        assert t.rules.pengpenghu is pph
        ev = evaluator(t.hand, t.melds, t)
        assert ev.shanten_after(five_p, -1) == shanten_after
        assert ("pph" in ev.allowed) is pph
        assert _counts(v)["5p"][0] == shanten_after
    # with the hand, 5p leaves the 碰碰胡 ready; without it, that hand could never win,
    # and the 5p is the one cut that goes back a step (the count: 9s or 4p keeps one)
    without = _counts(_with(view, pengpenghu=False))
    assert without["9s"][0] == without["4p"][0] == 1
    assert all(s >= 1 for s, _ in without.values())
    for bot in ("expert", "search"):
        assert get_bot(bot, 1).choose(_with(view, pengpenghu=True)) == Discard(five_p)
        choice = get_bot(bot, 1).choose(_with(view, pengpenghu=False))
        assert isinstance(choice, Discard) and without[tile_str(choice.tile)][0] == 1


@pytest.mark.parametrize("bot", BOTS)
def test_no_laizi_in_a_small_hand_konged_at_once(bot: str) -> None:
    """With ``small_hand_max_laizi=0`` a small hand may hold no laizi when it wins: the
    single one (南 under a 东 indicator) is konged, as a second one is by default.  (The
    minimum score is off here, so that only the laizi limit asks for the kong.)"""
    view = make_view("456p789s55m36s2z", indicator="1z", melds={0: [meld("chi", "123m", 3)]},
                     extra_actions=[LAIZI_KONG])
    kong = SpecialKong("laizi")
    assert get_bot(bot, 1).choose(
        _with(view, small_hand_max_laizi=0, min_score_one_loser=0)) == kong
    assert get_bot(bot, 1).choose(
        _with(view, small_hand_max_laizi=1, min_score_one_loser=0)) == Discard(parse_tile("3s"))


def test_two_laizi_kept_where_a_small_hand_may_hold_two() -> None:
    """With ``small_hand_max_laizi=2`` greedy keeps both wilds of a closed hand, where by
    default it kongs the second (no minimum score, as above)."""
    view = make_view("456p789s55m13s7p9m2z2z", indicator="1z", extra_actions=[LAIZI_KONG])
    greedy = get_bot("greedy", 1)
    assert greedy.choose(_with(view, small_hand_max_laizi=1, min_score_one_loser=0)) == (
        SpecialKong("laizi"))
    assert isinstance(
        greedy.choose(_with(view, small_hand_max_laizi=2, min_score_one_loser=0)), Discard)
