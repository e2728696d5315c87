"""Decision problems of the thirty-fourth hunt (7 December 2026): the push-or-fold layer's
swaps a step from ready against a small hand shown in three melds, in ``bianfeng`` (边风).

The thirty-first hunt credited those swaps with −62.8 points each (80 swaps, by the
hands' outcomes) and named a speed floor a step from ready as the lead.  This hunt counted
them instead, on copies of the real positions of tuning seeds 431 and 432 (the study in
docs/bots-log.md): of the 45 swaps a step from ready against a small-hand read that gave
up tiles, the core's tile would have dealt in 12 times and the tile played once; the
opponent model had read 4.2 deal-ins on the core's tiles (it reads a two- or three-meld
seat's danger at about half the truth there).  So the layer's swaps there are not where
its losses come from, and the floor (:attr:`ExpertBot.step_floor`) stays off: the paired
runs measured it at +0.30 [−0.79, +1.38] points a hand over 1,200 deals (docs/bots-log.md).

The position below is one such swap, made by hand: opened by 123m with a 红中 kong,
holding 22s 456m 34p 68s 78p beside seat 2's 678p chi, 999m peng, 234s chi and 红中 kong
(his small win passes ``bianfeng``'s minimum on this seat's discard).  The core throws the
8s (keeping 34p and 78p: seventeen tiles a step from ready); the layer plays the 3p he
threw himself (thirteen tiles, the same shanten).  That is a judgement of the read, not a
position settled by counting, so the default's answer is kept as a guard and the test of
the floor only checks what the switch does.
"""

from __future__ import annotations

import pytest
from handmade import make_view, meld
from test_bots_defence import FAMILY_POSITIONS, FAMILY_SAFE, _family_view

from wuhan_mahjong.analysis import shanten
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tile, parse_tiles, tile_str

HAND = "22s456m34p68s78p"
MELDS = {0: [meld("chi", "123m", 3)],
         2: [meld("chi", "678p", 1), meld("peng", "999m", 3), meld("chi", "234s", 1)]}
RIVERS = {0: "1z2z9s1p", 1: "4z3z1z5z2m1s", 2: "2z4z3p1s4p9s7z1m", 3: "1z7z5z3z1p9s"}


def _view(wall: int) -> SeatView:
    return make_view(HAND, profile="bianfeng", wall=wall, melds=MELDS, discards=RIVERS,
                     dealer=1, red_kongs={0: 1, 2: 1})


def _improving(view: SeatView, thrown: str) -> tuple[int, int]:
    """(shanten after throwing ``thrown``, the unseen tiles that lower it), by
    ``analysis.shanten`` over this seat's reading of the unseen tiles."""
    rules = get_rules("bianfeng")
    t = SeatReading(view)
    hand = parse_tiles(HAND)
    hand.remove(parse_tile(thrown))
    melds = [Meld("chi", tuple(parse_tiles("123m")), 3)]  # type: ignore[arg-type]
    now = shanten(hand, melds, t.laizi, rules)
    better = sum(t.unseen[k] for k in range(34)
                 if t.unseen[k] and shanten([*hand, k], melds, t.laizi, rules) < now)
    return now, better


def test_the_3p_gives_up_four_tiles_a_step_from_ready() -> None:
    view = _view(36)
    assert _improving(view, "8s") == (1, 17)
    assert _improving(view, "6s") == (1, 17)
    assert _improving(view, "3p") == (1, 13)


@pytest.mark.parametrize("wall", [48, 36, 24])
def test_the_layer_plays_the_3p_by_default(wall: int) -> None:
    """A guard of the default (``step_floor`` off): the layer swaps the core's 8s for the
    3p seat 2 threw, at the same shanten with four tiles fewer."""
    assert ExpertBot(1).choose(_view(wall)) == Discard(parse_tile("3p"))


@pytest.mark.parametrize("wall", [48, 36, 24])
def test_the_step_floor_keeps_every_tile(wall: int) -> None:
    """With ``step_floor`` 1 no swap a step from ready against the three-meld small hand
    gives up a tile: the 6s keeps the seventeen (cheaper to the read than the 8s)."""
    assert ExpertBot(1, step_floor=1.0).choose(_view(wall)) == Discard(parse_tile("6s"))


@pytest.mark.parametrize(("profile", "wall"), [("yuanhang", 20), ("bianfeng", 40)])
@pytest.mark.parametrize("family", sorted(FAMILY_POSITIONS))
def test_the_floor_keeps_the_family_guard(profile: str, wall: int, family: str) -> None:
    """``test_bots_defence.py``'s family tile, held at a step's cost against three pungs of
    a family, stays held with the floor on: a family read is no small hand, and the core's
    discard there leaves the hand ready, not a step away."""
    choice = ExpertBot(1, step_floor=1.0).choose(
        _family_view(profile, wall, *FAMILY_POSITIONS[family]))
    assert isinstance(choice, Discard) and tile_str(choice.tile) in FAMILY_SAFE
