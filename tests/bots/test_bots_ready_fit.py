"""The opponent model's readiness fitted to self-play (``ready_fit``)."""

from __future__ import annotations

import random

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots.opponents import OpponentModel, ready_chance
from wuhan_mahjong.bots.seat_reading import SeatReading

PINS = [meld("chi", "123p", 0), meld("peng", "555p", 2), meld("chi", "789p", 0)]
MIXED = [meld("chi", "123p", 0), meld("peng", "666s", 2), meld("chi", "789m", 0)]


def test_more_melds_and_a_later_stage_mean_ready_more_often() -> None:
    for stage in (0.1, 0.4, 0.8):
        chances = [ready_chance(m, stage, 0.0, True) for m in (1, 2, 3)]
        assert chances == sorted(chances) and chances[0] < chances[2]
    for melds in (1, 2, 3):
        assert ready_chance(melds, 0.2, 0.0, True) < ready_chance(melds, 0.8, 0.0, True)
    # a small hand that cannot pass the minimum, and no big hand read: hardly ever
    assert ready_chance(3, 0.8, 0.0, False) < 0.05
    assert all(0.0 < ready_chance(m, s, 1.0, True) <= 0.95 for m in (1, 2, 3, 4)
               for s in (0.0, 0.5, 1.0))


@pytest.mark.parametrize("wall", [15, 50])
@pytest.mark.parametrize("melds", [PINS, MIXED])
def test_the_model_reads_readiness_from_the_fit_when_asked(wall: int, melds: list) -> None:  # type: ignore[type-arg]
    view = make_view("234m456m55s23s78s9p1m", profile="laizishanzhuang", wall=wall,
                     melds={1: melds})
    t = SeatReading(view)
    prior = OpponentModel(t, random.Random(1), waits="shapes").reads[1]
    fitted = OpponentModel(t, random.Random(1), waits="shapes", ready_fit=True).reads[1]
    stage = 1.0 - wall / 84.0
    assert fitted.p_ready == pytest.approx(ready_chance(3, stage, fitted.strength, True))
    assert fitted.waits == prior.waits
    if melds is MIXED:  # three melds, no read: the prior said about half the true chance
        assert fitted.p_ready > 1.4 * prior.p_ready
