"""Decision problems of the seventeenth hunt (6 December 2026): defence early and in the
middle of the hand (walls of 40 or more, and 24 to 40), and defence in ``bianfeng``, where
a seat whose small win on this seat's discard cannot pass the minimum score (every loser
8, one loser 20, RULES §17.8) cannot win on it.  Each position has one answer the rules
and plain expected value settle (the arithmetic checked by the settlement, not by the
bots), asked of the bots it concerns at every table where the answer is the same.

The fault it found (the test fails on the code before the fix it names):

* Early in the hand (a wall of 60 or 48), closed, 234m 567m 22s 45s 78s with two lone
  pins, 3p and 6p, equally useless (the same shanten, thirteen tiles each), beside seat 1
  opened twice (a peng of 东, a chi of 789m) with two 红中 kongs, the only seat that has
  opened.  Seat 1 let the 6p go by: seat 2 (the dealer) threw it after seat 1's last
  discard, and a small win of his on it would have passed the minimum score there as on
  this seat's discard (the settlement below), so it does not complete his hand.  The 3p
  is live.  The 6p goes: it costs nothing.  The expert and the search bot threw the 3p
  (1.4 to 2.4 points of expected deal-in by the model): the swap for a tile as fast and
  all but safe (``ExpertBot.safe_ties``) waited for a threat of ``threat_min`` (0.25),
  and so early a seat opened twice reads as ready with a chance of 0.20 to 0.23.  The
  swap gives up nothing, so it is now made whatever the threat
  (``ExpertBot.early_ties``).  Greedy, the baseline, reads no river and is not asked.
* In the middle of the hand (walls 40 to 24), in ``yuanhang``, closed with the same two
  lone pins beside seat 1 opened twice (a chi of 345s, a peng of 111m; no kong): seat 3,
  the dealer, has just pengged this seat's 2m and thrown a 6p.  Seat 1 let both pins go
  by since his last discard, the 3p on seat 2's discard before the dealer's peng, the 6p
  after it.  By the settlement his hard small win was refused on that 3p (the dealer
  closed: 16 at most from a loser, short of 20) and passes now on this seat's 3p (the
  opened dealer owes 32), so that pass tells nothing; the 6p pass was a win refused.
  The 6p goes.  The expert and the search bot threw the 3p: the opponent model judged
  every pass by the factors now (and a pass on this seat's own discard as always
  telling), so it read the 3p as let go by too (``ExpertBot.passes_then``).

The positions the bots already answered right are below it, marked as guards.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.analysis import is_ready
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import NotAWin, settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles
from wuhan_mahjong.win_record import parse_win_record

READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)
BOTS = ("greedy", "expert", "search")
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")


def _discard_win(profile: str, dealer: int, winner: int, frm: int, tile: str,
                 melds: dict[int, list[dict[str, Any]]], hand: str,
                 red: dict[int, int] | None = None) -> dict[int, int]:
    """What each loser pays for ``winner``'s hard win on ``frm``'s ``tile`` (his concealed
    ``hand`` beside his ``melds``), by the settlement (``NotAWin`` if it fails the minimum
    score); the laizi is 1s (indicator 9s), held by nobody."""
    seats: list[dict[str, Any]] = []
    for s in range(4):
        ms = [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]}
              for m in melds.get(s, [])]
        seats.append({"hand": hand if s == winner else "", "melds": ms,
                      "kongs": {"red": (red or {}).get(s, 0)}})
    rec: dict[str, Any] = {"profile": profile, "dealer": dealer, "indicator": "9s",
                           "winner": winner, "win_by": "discard", "from": frm,
                           "winning_tile": tile, "seats": seats}
    return {p.loser: int(p.amount) for p in settle(parse_win_record(rec)).payments}


# ---------------------------------------------------------------- faults found

#: seat 1: a peng of 东 (from seat 3) and a chi of 789m (from this seat), two 红中 kongs
EARLY_MELDS = {1: [meld("peng", "111z", 3), meld("chi", "789m", 0)]}
EARLY_RED = {1: 2}
#: seat 2 deals: 东 from seat 3 to seat 1's peng, 8m from this seat to his chi; his last
#: discard is 8s (after a draw), and seat 2's 6p came after it, let go by
EARLY_RIVERS = {0: "8m>1 1s7z", 1: "1p9s4z8s", 2: "2z3z9p6z6p", 3: "1z>1 1m2s9m2m"}
EARLY_HAND = "234m567m22s45s78s3p6p"


def _early_view(profile: str, wall: int) -> SeatView:
    return make_view(EARLY_HAND, profile=profile, indicator="9s", wall=wall, dealer=2,
                     melds=EARLY_MELDS, discards=EARLY_RIVERS, red_kongs=EARLY_RED)


@pytest.mark.parametrize("profile", PROFILES)
def test_his_small_win_passes_on_the_let_go_tile_as_on_mine(profile: str) -> None:
    """The rules' side: a small win of seat 1 (any hand of his seven tiles, here 45p 55s
    678s, on a 3p or a 6p) passes the minimum score on this seat's discard and on seat
    2's, the dealer's: his pass on seat 2's 6p was a win refused, not one the minimum
    forbade.  Each pays at least 8 and the discarder at least 20 in every profile."""
    for frm, tile in ((0, "3p"), (2, "6p")):
        paid = _discard_win(profile, 2, 1, frm, tile, EARLY_MELDS, "45p55s678s",
                            EARLY_RED)
        assert min(paid.values()) >= 8 and paid[frm] >= 20


def test_the_two_pins_are_equally_useless() -> None:
    """Either pin leaves the hand a step from ready with as many tiles that bring it
    closer (13 each, by the evaluator the bots share)."""
    from wuhan_mahjong.bots.greedy import evaluator
    from wuhan_mahjong.bots.seat_reading import SeatReading

    t = SeatReading(_early_view("yuanhang", 60))
    ev = evaluator(t.hand, t.melds, t)
    three, six = parse_tile("3p"), parse_tile("6p")
    assert ev.shanten_after(three, -1) == ev.shanten_after(six, -1) == 1
    acc = [ev.with_tile(d, -1).acceptance(t.unseen, t.laizi)[0] for d in (three, six)]
    assert acc[0] == acc[1] == 13


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [60, 48])
def test_early_the_tile_he_let_go_by_goes(bot: str, profile: str, wall: int) -> None:
    """Early, beside the only seat opened (twice, two 红中 kongs, read as ready with a
    chance of 0.20 to 0.23): the 6p he let go by goes, not the live 3p, which is as
    useless.  The expert and the search bot threw the 3p (``ExpertBot.early_ties``)."""
    ask(bot, _early_view(profile, wall), [discard("6p")])


def test_the_early_ties_switch_plays_as_before() -> None:
    view = _early_view("yuanhang", 60)
    assert ExpertBot(1, early_ties=False).choose(view) == action_from_json(discard("3p"))


#: seat 1: a chi of 345s (from this seat), a peng of 111m (from seat 3), no kong; seat 3,
#: the dealer, has pengged this seat's 2m
THEN_MELDS = {1: [meld("chi", "345s", 0), meld("peng", "111m", 3)],
              3: [meld("peng", "222m", 0)]}
#: seat 3 deals; seat 1's last discard is 7p, then seat 2's 3p, seat 3's 8s, this seat's
#: 2m (to seat 3's peng) and seat 3's 6p: each let go by seat 1
THEN_RIVERS = {0: "9m1s3s>1 2m>3", 1: "1p9s9p7p", 2: "2z3z4z3p", 3: "1z7z6z1m>1 8s6p"}
THEN_HAND = "345m567m22s45s78s3p6p"


def _then_view(profile: str, wall: int, red: dict[int, int] | None = None) -> SeatView:
    return make_view(THEN_HAND, profile=profile, indicator="9s", wall=wall, dealer=3,
                     melds=THEN_MELDS, discards=THEN_RIVERS, red_kongs=red)


def test_the_dealers_peng_lifts_his_refused_win_over_the_minimum() -> None:
    """The rules' side, in ``yuanhang``: seat 1's hard small win (two openings ×4 in 口口翻,
    硬胡 ×2) on seat 2's 3p was refused while the dealer was closed (no loser owes 20);
    on this seat's 3p now, beside the dealer's peng, it passes; on seat 3's 6p after the
    peng it would have passed (so his pass there was a win refused, and no 6p wins for
    him)."""
    before = {1: THEN_MELDS[1]}
    with pytest.raises(NotAWin, match="minimum score"):
        _discard_win("yuanhang", 3, 1, 2, "3p", before, "12p55s678s")
    now = _discard_win("yuanhang", 3, 1, 0, "3p", THEN_MELDS, "12p55s678s")
    assert max(now.values()) >= 20
    six = _discard_win("yuanhang", 3, 1, 3, "6p", THEN_MELDS, "45p55s678s")
    assert max(six.values()) >= 20


def test_the_order_tells_which_passes_came_before_the_peng() -> None:
    """The view's side: the rivers rebuild the order, and the dealer's peng of this seat's
    2m came after seat 1 let the 3p go by, before the 6p."""
    from wuhan_mahjong.bots.seat_reading import SeatReading

    t = SeatReading(_then_view("yuanhang", 32))
    offered = {(s, k): after for s, k, after in t.offered_since_discard_claims(1)}
    assert offered == {(2, parse_tile("3p")): (0, 0, 0, 1), (3, parse_tile("8s")): (0, 0, 0, 1),
                       (0, parse_tile("2m")): (0, 0, 0, 1), (3, parse_tile("6p")): (0, 0, 0, 0)}


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("wall", [40, 32, 24])
def test_a_pass_refused_by_the_minimum_tells_nothing_after_a_claim(bot: str, wall: int) -> None:
    """In ``yuanhang``, the 3p seat 1 let go by before the dealer's peng is live now; the
    6p he let go by after it is not: the 6p goes.  The expert and the search bot threw the
    3p (``ExpertBot.passes_then``)."""
    ask(bot, _then_view("yuanhang", wall), [discard("6p")])


def test_the_passes_then_switch_plays_as_before() -> None:
    view = _then_view("yuanhang", 32)
    assert ExpertBot(1, passes_then=False).choose(view) == action_from_json(discard("3p"))


# ---------------------------------------------------------------- guards


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_later_the_tile_he_let_go_by_goes(bot: str, profile: str) -> None:
    """Guard.  The same position at a wall of 32, where he reads as ready with a chance
    of 0.28: the 6p goes, without the switch too."""
    ask(bot, _early_view(profile, 32), [discard("6p")])
    assert ExpertBot(1, early_ties=False).choose(_early_view(profile, 32)) == \
        action_from_json(discard("6p"))


#: seat 1 (no kong, not the dealer): chis of 345s and 789m from this seat, a peng of 111m
#: from seat 3; seats 2 (the dealer) and 3 are closed
SMALL_ONLY = {1: [meld("chi", "345s", 0), meld("chi", "789m", 0), meld("peng", "111m", 3)]}
#: this seat: a chi of 234p from seat 3, two 红中 kongs; 567p 88s 45m 123s and a 6s drawn
PUSH_MELDS = {**SMALL_ONLY, 0: [meld("chi", "234p", 3)]}
PUSH_RIVERS = {0: "3s>1 9m>1 1z7z", 1: "2z9p1p4z", 2: "3z9s2m1s6z", 3: "1m>1 4p>0 9s"}


def test_in_bianfeng_his_small_win_cannot_pass_on_any_discard() -> None:
    """The rules' side.  In ``bianfeng`` every loser must owe 8: seat 1's small win (opened,
    ×2 once in 开口翻, 硬胡 ×2, no kong) leaves closed seat 3 owing 4, on this seat's
    discard and on every other; so he cannot win on the 6s, which his 45s would take.
    In ``yuanhang`` (口口翻, three openings) the same win passes."""
    with pytest.raises(NotAWin, match="minimum score"):
        _discard_win("bianfeng", 2, 1, 0, "6s", PUSH_MELDS, "45s88m", {0: 2})
    paid = _discard_win("yuanhang", 2, 1, 0, "6s", PUSH_MELDS, "45s88m", {0: 2})
    assert paid[0] >= 20


def test_the_6s_makes_the_hand_ready() -> None:
    """The 6s leaves 567p 123s 88s 45m beside the chi: ready on 3m/6m with the 2/5/8 pair;
    every other discard leaves it a step short."""
    rules = get_rules("bianfeng")
    laizi = rules.laizi_of(parse_tile("9s"))
    chi = [Meld("chi", tuple(parse_tiles("234p")), 3)]
    assert is_ready(parse_tiles("567p88s45m123s"), chi, laizi, rules)


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("wall", [40, 24])
def test_guard_in_bianfeng_the_ready_discard_goes_beside_a_win_that_cannot_pass(
        bot: str, wall: int) -> None:
    """Guard.  In ``bianfeng``, opened with two 红中 kongs (a small win that passes), a 6s
    drawn that makes the hand ready, beside seat 1's three melds (likely ready, the only
    other seat opened): his small win cannot pass on it, and no big hand fits his mixed
    melds.  A strong player pushes the 6s; every bot does."""
    view = make_view("567p88s45m123s6s", profile="bianfeng", indicator="9s", wall=wall,
                     dealer=2, melds=PUSH_MELDS, discards=PUSH_RIVERS, red_kongs={0: 2})
    ask(bot, view, [discard("6s")])


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("wall", [40, 24])
def test_guard_in_bianfeng_the_pass_after_the_peng_goes(bot: str, wall: int) -> None:
    """Guard.  The same position in ``bianfeng``, seat 1 with a 红中 kong (×2: 开口翻
    counts his two openings once): his hard small win on seat 2's 3p was refused then
    (16 at most from a loser) and passes on this seat's now (the opened dealer owes 32).
    The 6p goes, without the switch too (the 3p's risk beside the dealer, opened, was
    enough there)."""
    view = _then_view("bianfeng", wall, {1: 1})
    ask(bot, view, [discard("6p")])
    with pytest.raises(NotAWin, match="minimum score"):
        _discard_win("bianfeng", 3, 1, 2, "3p", {1: THEN_MELDS[1]}, "12p55s678s", {1: 1})
    now = _discard_win("bianfeng", 3, 1, 0, "3p", THEN_MELDS, "12p55s678s", {1: 1})
    assert min(now.values()) >= 8 and max(now.values()) >= 20


#: this seat: a chi of 123s from seat 3; seat 1: a chi of 345m and a peng of 777p
FLUSH_MELDS = {0: [meld("chi", "123s", 3)],
               1: [meld("chi", "345m", 0), meld("peng", "777p", 3)]}
FLUSH_RIVERS = {0: "1z9m3m>1 2z", 1: "9s1p4z", 2: "3z9p1m6z", 3: "7p>1 2s>0 1z"}


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [48, 32])
def test_guard_a_ready_flush_pushes_early(bot: str, profile: str, wall: int) -> None:
    """Guard.  Opened by a chi of 123s, 456s 789s 22s 67s and a drawn 5p: the 5p leaves a
    索 清一色 ready on 5s/8s (a big hand, 10 a loser before any factor); every other
    discard breaks it.  Seat 1, opened twice in two suits (no big hand in sight), may be
    near ready and the 5p may be his; a strong player pushes it all the same, early or in
    the middle of the hand.  Every bot does."""
    rules = get_rules(profile)
    laizi = rules.laizi_of(parse_tile("9p"))
    chi = [Meld("chi", tuple(parse_tiles("123s")), 3)]
    assert is_ready(parse_tiles("456s789s22s67s"), chi, laizi, rules)
    view = make_view("456s789s22s67s5p", profile=profile, indicator="9p", wall=wall,
                     dealer=2, melds=FLUSH_MELDS, discards=FLUSH_RIVERS)
    ask(bot, view, [discard("5p")])
