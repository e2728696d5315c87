"""Decision problems of the thirty-first hunt (6 December 2026, late night): the
push-or-fold layer in ``bianfeng`` (边风), which of its swaps lose.  Each position has one
answer the rules and plain counting settle (the tile counts by ``analysis.shanten`` and
``analysis.waits`` and the seat's own reading of the unseen tiles, the amounts by
``scoring.settle``), not the bots.

The fault it found (the tests fail on the code before the fix, ``claim_odds`` off):

* Ready on a 条 清一色 (peng 444s, holding the laizi 5m and 123345779s with a loose 9m:
  the 9m leaves the flush ready on 7s, 8s, 9s and the laizi, eleven tiles) beside seat 1,
  the next seat, with two 万 chis (234m, 789m: a 万 flush read, contract 承包 if a third
  meld of his comes from this seat).  The 9m feeds his third meld only as a peng (he
  must hold both unseen 9m) or a chi of 789m (he must hold the last 7m and the last 8m);
  even with all seven of his concealed tiles among the nineteen unseen 万 that is at
  most 21/171 + 7/19 × 6/18, a quarter, and he must then win the flush.  The layer read
  a quarter per unseen copy plus 0.3 for the chi (0.8, times the read's 0.6), 155 points
  of contract in the twenty-ninth hunt's hand 475 of seed 391, and broke the ready hand
  for a 1s (lost 836 there).  With the last 7m and a third 9m in sight no claim is
  possible at all, and the layer still read 107 points (a quarter for the one copy,
  0.3 for a chi that needs a 7m no one can hold).  :attr:`ExpertBot.claim_odds` prices
  the claim by his concealed tiles (:meth:`OpponentModel.claim_chance`).

In ``laizishanzhuang`` the same read broke the ready hand too (``contract_swaps`` lets
the layer give up speed there for a contract).  Greedy, the baseline, reads no river (its
design) and throws the 9m: a guard.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from handmade import ask, discard, make_view, meld, paid_by

from wuhan_mahjong.analysis import shanten, waits
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tile, parse_tiles

HAND = "59m123345779s"
INDICATOR = "4m"  # the laizi is 5m
MELDS = {0: [meld("peng", "444s", 3)],
         1: [meld("chi", "234m", 0), meld("chi", "789m", 0)],
         2: [meld("peng", "555z", 3)],
         3: [meld("chi", "789p", 2), meld("chi", "678m", 2)]}
RIVERS = {0: "2z1z4m>11m1p6p7m>19p", 1: "1z4z5z3z9s1p1s2z",
          2: "1p9p>33m3z3z3m7m>31s7m", 3: "2z4z5z>29p6z6z4s>08m1z1p"}
#: the last 7m and a third 9m in sight: no chi of 789m, no peng of 9m
NO_CLAIM = {**RIVERS, 2: RIVERS[2] + "9m", 3: RIVERS[3] + "7m"}


def _view(profile: str, wall: int, rivers: dict[int, str]) -> SeatView:
    return make_view(HAND, profile=profile, indicator=INDICATOR, wall=wall, dealer=3,
                     melds=MELDS, discards=rivers, concealed={1: 7, 3: 7})


def test_the_9m_keeps_the_flush_ready_and_the_1s_does_not() -> None:
    rules = get_rules("bianfeng")
    laizi = rules.laizi_of(parse_tile(INDICATOR))
    melds = [Meld("peng", tuple(parse_tiles("444s")), 3)]  # type: ignore[arg-type]
    for thrown, steps in (("9m", 0), ("1s", 1)):
        hand = parse_tiles(HAND)
        hand.remove(parse_tile(thrown))
        assert shanten(hand, melds, laizi, rules) == steps
    hand = parse_tiles(HAND)
    hand.remove(parse_tile("9m"))
    found = {w.tile for w in waits(hand, melds, laizi, rules)}
    assert found == {parse_tile(x) for x in ("5m", "7s", "8s", "9s")}
    unseen = SeatReading(_view("bianfeng", 48, RIVERS)).unseen
    assert sum(unseen[parse_tile(x)] for x in ("5m", "7s", "8s", "9s")) == 11


def test_he_can_hardly_claim_the_9m() -> None:
    """Seat 1's claims of the 9m need both unseen 9m (a peng) or the last 7m and the last
    8m (a chi of 789m); all his seven tiles among the unseen 万 give a quarter at most."""
    t = SeatReading(_view("bianfeng", 48, RIVERS))
    assert [t.unseen[parse_tile(x)] for x in ("7m", "8m", "9m")] == [1, 1, 2]
    man = sum(t.unseen[k] for k in range(9))
    assert man == 19
    peng = math.comb(7, 2) / math.comb(man, 2)
    chi = 7 / man * 6 / (man - 1)
    assert peng + chi < 0.25
    none = SeatReading(_view("bianfeng", 24, NO_CLAIM))
    assert [none.unseen[parse_tile(x)] for x in ("7m", "9m")] == [0, 1]


def _paid(profile: str, third_from: int) -> dict[int, int]:
    """What each payer pays for seat 1's 万 清一色 self-drawn, his third meld (a peng of
    9m) claimed from ``third_from``."""
    his = [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]} for m in MELDS[1]]
    seats: list[dict[str, Any]] = [
        {"hand": "1166m" if s == 1 else "", "kongs": {},
         "melds": [*his, {"type": "peng", "tiles": "999m", "from": third_from}] if s == 1
         else []} for s in range(4)]
    rec = {"profile": profile, "dealer": 3, "indicator": INDICATOR, "winner": 1,
           "win_by": "self_draw", "winning_tile": "6m", "seats": seats}
    return paid_by(rec)


def test_the_third_feeder_pays_for_all() -> None:
    """The settlement's side: the contract is real (this seat pays 180 for his flush
    instead of 60), but only after a claim the counting above makes rare."""
    assert _paid("bianfeng", 0) == {0: 180}
    assert _paid("bianfeng", 2) == {2: 180}


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize("wall", [48, 36, 24])
@pytest.mark.parametrize("bot", ["expert", "search", "greedy"])
def test_the_ready_flush_throws_the_9m(bot: str, profile: str, wall: int) -> None:
    """The fault: the expert threw the 1s in ``bianfeng`` and ``laizishanzhuang`` (its
    ``contract_swaps`` let the layer give up speed for a contract) at walls 48 to 24 and
    in ``yuanhang`` at 24, the search bot in ``laizishanzhuang`` at 48; the other cases,
    and greedy (it reads no river), are guards."""
    ask(bot, _view(profile, wall, RIVERS), [discard("9m")])


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize("wall", [40, 24, 16])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_a_9m_nobody_can_claim_feeds_no_contract(bot: str, profile: str, wall: int) -> None:
    """The fault: the expert threw the 1s in ``bianfeng`` at wall 24 and the 9s at 16, the
    search bot the 9s at 16; the other cases are guards."""
    ask(bot, _view(profile, wall, NO_CLAIM), [discard("9m")])


def test_no_contract_is_read_on_a_tile_nobody_can_claim() -> None:
    view = _view("bianfeng", 24, NO_CLAIM)
    bot = ExpertBot(1)
    bot.choose(view)
    t = SeatReading(view)
    assert bot.model().risk(parse_tile("9m"), 0)[2] == 0.0
    assert t.unseen[parse_tile("9m")] == 1
