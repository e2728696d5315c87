"""Decision problems of the sixth hunt (6 December 2026): defence by the river, the choice
between chis, a peng that would spend the only 2/5/8 pair, and a tile no hand can win on.
Each position has one answer the rules and plain expected value settle, asked of the bots
it concerns in every profile where the answer is the same.

The fault it found (the test fails on the code before the fix it names):

* Late (wall 16), closed and far from ready, beside seat 3 showing three melds while the
  two other seats are closed (no win without an opening, RULES §9): seat 3 has just
  thrown 5s after his draw.  His hand has not changed since, so a win on 5s would have
  been his self-draw, which players take (there is no furiten, RULES §15, but there is no
  need of one): 5s is the one tile that cannot deal in.  The expert and the search bot
  threw a live 3s, reading 5s as merely less likely (``own_discard``, which takes such a
  discard out of his waits beside the kinds he let go by; not a 全求人 seat's, whose
  self-drawn pair may fall short of the minimum score where the discard win passes).

The positions the bots already answered right are below it, marked as guards.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from handmade import ask, discard, make_view, meld
from test_bots_let_go import _played

from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.opponents import OpponentModel
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView, seat_view
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.tiles import parse_tile

READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)
BOTS = ("greedy", "expert", "search")
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")
PASS = {"type": "pass"}

#: seat 3 shows three mixed melds (no family read); seats 1 and 2 are closed
THREE_MELDS = {3: [meld("chi", "345m", 2), meld("peng", "777p", 2), meld("peng", "888s", 1)]}
#: dealer 0 (this seat): seat 3 chis 4m, pengs 7p and 8s, then draws and throws 2p; at the
#: last go-round he draws and throws 5s, and this seat has drawn
RIVERS = {0: "1z9p1p8m", 1: "9m2z8s>3 3z", 2: "4m>3 7p>3 1m", 3: "1s9s2p5s"}
FAR = "2m4m6m7m3p5p7p4p6p3s5s6s7s4m"  # closed, no pair, three steps from ready


def _river_view(profile: str, wall: int, rivers: dict[int, str] | None = None) -> SeatView:
    return make_view(FAR, profile=profile, indicator="9s", wall=wall, dealer=0,
                     melds=THREE_MELDS, discards=rivers or RIVERS)


# ---------------------------------------------------------------- faults found

@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", ["yuanhang", "laizishanzhuang"])
@pytest.mark.parametrize("wall", [16, 10])
def test_his_discard_after_his_draw_goes(bot: str, profile: str, wall: int) -> None:
    """Closed, 2467m 357p 46p 3s 567s, late, against seat 3's three melds: the 5s he threw
    after his draw cannot deal into him (he would have won on it by self-draw), and the
    closed seats cannot win at all.  The hand will hardly win: the 5s goes.  At wall 16
    the expert and the search bot threw the live 3s (``own_discard``); at 10 they found
    the 5s already.  In ``bianfeng`` his small hand could not pass the minimum on this
    seat's discard, the danger of 3s is small, and the answer is left to the profile."""
    ask(bot, _river_view(profile, wall), [discard("5s")])


def test_the_own_discard_switch_plays_as_before() -> None:
    view = _river_view("yuanhang", 16)
    assert ExpertBot(1, own_discard=False).choose(view) == action_from_json(discard("3s"))


def test_a_discard_after_a_claim_tells_nothing() -> None:
    """After his peng of 8s seat 3 threw 2p without a draw: no win was open to him, so
    the 2p may be his wait; after a draw his discard is out of his waits."""
    after_claim = {0: "1z9p1p", 1: "9m2z8s>3", 2: "4m>3 7p>3", 3: "1s9s2p"}
    assert SeatReading(_river_view("yuanhang", 16, after_claim)).discard_after_draw(3) is None
    reading = SeatReading(_river_view("yuanhang", 16))
    assert reading.discard_after_draw(3) == parse_tile("5s")
    assert reading.discard_after_draw(1) == parse_tile("3z")


def test_a_quanqiuren_discard_after_a_draw_stays_a_wait() -> None:
    """Seat 2 holds one tile beside four claimed melds and threw 5p after his draw: he may
    have drawn the pair of his lone 5p, whose self-drawn small hand may fall short of the
    minimum score in ``bianfeng``, where the 全求人 on a discard (a big hand) passes it.
    His own discard stays in his waits."""
    melds = [meld("chi", "123m", 1), meld("peng", "777s", 3), meld("peng", "999p", 0),
             meld("chi", "456m", 1)]
    view = make_view("234p678p345s66s11m8m", profile="bianfeng", indicator="9s", wall=30,
                     dealer=0, melds={2: melds},
                     discards={0: "1z9p>2 2z5z", 1: "2m>2 5m>2 9m", 2: "9s1s4z8s5p",
                               3: "7s>2 3z1p3s2s"})
    t = SeatReading(view)
    assert t.discard_after_draw(2) == parse_tile("5p")
    read = OpponentModel(t, random.Random(1), waits="shapes").reads[2]
    assert read.waits[parse_tile("5p")] > 0


@pytest.mark.parametrize("profile", PROFILES)
def test_no_discard_after_a_draw_wins_for_him(profile: str) -> None:
    """Against the engine: at every decision of greedy self-play, the last discard an
    opened opponent made after a draw is never a kind he may win on from this seat
    (greedy takes every win it is offered, as the reading assumes)."""
    checked = 0
    for state, seat in _played(profile, 5, 8):
        t = SeatReading(seat_view(state, seat))
        for o in range(4):
            own = t.discard_after_draw(o)
            if o == seat or own is None or not t.seats[o].openings:
                continue
            checked += 1
            assert not state.copy()._discard_win(o, own, seat, rob=False), (o, own)
    assert checked > 100


# ---------------------------------------------------------------- guards

def _chi_view(profile: str, dead: str) -> SeatView:
    """Closed, 234m 678s 55m 34p 67p 東; the previous seat throws 5p, and three copies of
    ``dead`` are in the rivers."""
    return make_view("234m678s55m3p4p6p7p1z", profile=profile, indicator="9s", wall=40,
                     dealer=0, claim=("5p", 3),
                     discards={1: f"{dead}9s", 2: f"{dead}1m", 3: dead},
                     actions=[PASS, {"type": "chi", "tile": "3p"}, {"type": "chi", "tile": "4p"},
                              {"type": "chi", "tile": "5p"}])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", ["yuanhang", "laizishanzhuang"])
@pytest.mark.parametrize(("dead", "chi"), [("2p", "3p"), ("8p", "5p")])
def test_guard_the_chi_that_keeps_the_live_wait(bot: str, profile: str, dead: str,
                                                chi: str) -> None:
    """Guard.  The 5p makes 345p (67p left, waiting on 5p/8p), 456p (3p and 7p left, not
    ready) or 567p (34p left, waiting on 2p/5p), the 東 thrown either way.  With three 2p
    in sight the 345p leaves two 5p and four 8p to win on against two 5p and one 2p; with
    three 8p in sight, the 567p.  (In ``bianfeng`` the wait's small win may not pass the
    minimum score, which weighs the pass: left out.)"""
    ask(bot, _chi_view(profile, dead), [{"type": "chi", "tile": chi}])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_no_peng_of_the_only_258_pair(bot: str, profile: str) -> None:
    """Guard.  Opened (123m), 456s 789s 55m 34p: ready on 2p/5p with 55m, the only 2/5/8
    pair.  The peng of seat 2's 5m would leave 456s 789s and 3p or 4p, a lone tile that
    can pair only as a 3p or 4p (no 将, RULES §10.3): no wait at all.  It passes."""
    view = make_view("456s789s55m3p4p", profile=profile, indicator="9s", wall=40, dealer=0,
                     melds={0: [meld("chi", "123m", 3)]}, claim=("5m", 2),
                     actions=[PASS, {"type": "peng", "tile": "5m"}])
    ask(bot, view, [PASS])


#: seat 1 shows three pin melds (a 清一色 read); seat 3 pengs 2p
PIN_MELDS: dict[int, list[dict[str, Any]]] = {
    1: [meld("chi", "456p", 0), meld("peng", "777p", 2), meld("chi", "789p", 0)],
    3: [meld("peng", "222p", 1)]}


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [30, 16])
def test_guard_the_pin_no_hand_can_win_on(bot: str, profile: str, wall: int) -> None:
    """Guard.  Against seat 1's pin flush, this seat holds the last 1p: the other three
    and every 2p and 3p are in sight, so no pair, pung or run can wait on it (only a
    wild, which would wait on any tile).  It is the safest tile and, with nothing left to
    join it, the least useful: it goes."""
    view = make_view("1p1m3m5m7m9m2s4s6s8s1s9s5m9m", profile=profile, indicator="1z",
                     wall=wall, dealer=2, melds=PIN_MELDS,
                     discards={0: "3p1p4p>1 9p>1", 1: "1z2p>3 3z1s", 2: "3p1p 7p>1 2z",
                               3: "3p1p3p4z"})
    ask(bot, view, [discard("1p")])
