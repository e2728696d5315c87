"""Decision problems of the twenty-third hunt (6 December 2026, night): ``laizishanzhuang``
(赖子山庄), the expert's biggest losses to greedy on the same deals.  The hunt played
tuning seeds 354 to 359 with the expert at seat 0 and, on the same walls, greedy there
(the first-deviation study of ``bench/bots_first_deviation.py``) and read the decisions
where the expert first parted from greedy in the hands it lost most.  Each position
below has one answer the rules and plain expected value settle (the arithmetic checked
by the analysis and the settlement, not by the bots), asked of the bots it concerns.

The faults it found (each test fails on the code before the fix it names):

* Opened once (a chi of 678m), with two 红中, two 发财 and two laizi kongs made (every
  loss of this seat is at the cap, 400, with a third laizi kong or without: the
  settlement), holding 344m 3344s 88s and two laizi (9p, indicator 8p) beside two seats
  with three melds each (the fifth hunt's), read as ready.  Throwing the 4m (or the 3m)
  keeps both wilds: the hand is "ready" in shape, but a small hand may hold one laizi
  when it wins (RULES §12, ``small_hand_max_laizi``) and no big hand is open to it (a
  chi, three suits), so no tile wins it (``analysis.waits``) until a laizi is konged or
  thrown.  The kong now costs nothing (the loss side is capped), draws a replacement at
  once, and leaves a hand that can win: it is the answer at every wall.  The expert
  threw the 4m: its threat weighing of a laizi kong (``threat_laizi_kongs``,
  :meth:`ExpertBot.kong_costs`) read the keep line's shanten (0, the wilds counted as
  jokers) as a ready hand's and held the kong back.  With
  ``ExpertBot.excess_wild_kongs`` a hand holding more laizi than a small hand may win
  with, playing for a small hand, is not weighed there (greedy's kong of the extra wild
  decides).

* Opened three times (pengs of 111s and 南, a chi of 789p) with a 红中 kong and two 发财
  kongs, ready on the 2m alone (2m beside a 678s run); seat 1 has a 发财 and a laizi kong.
  Seat 3 throws a 6s: the chi of 678s, throwing the 6s, leaves the same 2m (the same
  winning tiles, ``analysis.waits``), its self-drawn wins the same (656 by the
  settlement), and makes every discard win a 全求人 at 金顶: 1,500 where the small hand
  collects 528 to 592.  The chi costs this turn's draw, one of about fourteen at a wall
  of 55 (and one of six at 24); the discard wins gain 900 points or more each.  The chi
  is the answer.  The expert passed: its ready claims (:meth:`ExpertBot.ready_claim`)
  ask a claim to double the mean value of a winning tile (``ready_value_ratio``, which
  was to keep 全求人), and beside the caps and the unchanged self-draws it rose 1.65
  times.  With ``ExpertBot.capped_quanqiuren`` the fourth claim that leaves one tile,
  winning on as many tiles at a higher value, is weighed by its outlook.  Greedy (its
  big-hand claim) chied already: a guard in the same test.  The search bot chis at a
  wall of 55 and passes at 40 and 24 (its play-outs; not asked).

Greedy and the search bot konged already in the first (guards in the same test).
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, make_view, meld
from test_bots_hunt5 import TWO_READY, TWO_READY_RIVERS

from wuhan_mahjong.analysis import waits
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles
from wuhan_mahjong.win_record import parse_win_record

PROFILE = "laizishanzhuang"
LAIZI_KONG = {"type": "special_kong", "kind": "laizi", "tiles": "9p"}
LAIZI_DISCARD = {"type": "laizi_discard", "tiles": "9p"}
HAND = "344m99p334488s"  # the laizi is the 9p (indicator 8p)
MY_MELDS = [meld("chi", "678m", 3)]
MY_KONGS = {"red": 2, "green": 2, "laizi": 2}


def _two_wilds_view(wall: int) -> SeatView:
    """Seat 0's turn (seat 2 deals) beside the fifth hunt's two three-meld seats; seat 0
    chied seat 3's 6m and has made two kongs each of 红中, 发财 and the laizi."""
    rivers = {**TWO_READY_RIVERS, 3: TWO_READY_RIVERS[3] + " 6m>0"}
    view = make_view(HAND, profile=PROFILE, indicator="8p", wall=wall, dealer=2,
                     melds={**TWO_READY, 0: MY_MELDS}, discards=rivers,
                     extra_actions=[LAIZI_DISCARD, LAIZI_KONG])
    view["seats"][0]["special_kongs"].update(MY_KONGS)
    return view


def _record_seat(melds: list[dict[str, Any]], seat: int, hand: str = "",
                 kongs: dict[str, int] | None = None) -> dict[str, Any]:
    """One seat of a settlement record (a record's chi is fed by the previous seat; who
    fed a meld changes no amount here)."""
    return {"hand": hand, "kongs": kongs or {},
            "melds": [{"type": m["type"], "tiles": m["tiles"],
                       "from": (seat - 1) % 4 if m["type"] == "chi" else m["from_seat"]}
                      for m in melds]}


def _my_payment(laizi_kongs: int, win_by: str, frm: int | None) -> int:
    """What seat 0 pays for seat 1's cheapest hard win (22p 45p beside his three melds, on
    the 3p), with ``laizi_kongs`` laizi kongs of its own."""
    melds = {**TWO_READY, 0: MY_MELDS}
    seats = [_record_seat(melds.get(s, []), s, "22p45p" if s == 1 else "",
                          {**MY_KONGS, "laizi": laizi_kongs} if s == 0 else None)
             for s in range(4)]
    rec: dict[str, Any] = {"profile": PROFILE, "dealer": 2, "indicator": "8p", "winner": 1,
                           "win_by": win_by, "winning_tile": "3p", "seats": seats,
                           **({} if frm is None else {"from": frm})}
    return {p.loser: int(p.amount) for p in settle(parse_win_record(rec)).payments}[0]


# ---------------------------------------------------------------- the rules' side

@pytest.mark.parametrize("thrown", ["3m", "4m", "3s", "4s", "8s"])
def test_keeping_both_laizi_wins_nothing(thrown: str) -> None:
    """Whatever plain tile goes, the 13 tiles holding both laizi win on no tile, self-drawn
    or on a discard (a small hand wins with one laizi at most; the chi bars 碰碰胡 and
    清一色 / 将一色 / 风一色 are out of reach)."""
    rules = get_rules(PROFILE)
    laizi = rules.laizi_of(parse_tile("8p"))
    hand = parse_tiles(HAND)
    hand.remove(parse_tile(thrown))
    melds = [Meld("chi", tuple(parse_tiles("678m")), 3)]
    for win_by in ("self_draw", "discard"):
        assert not waits(hand, melds, laizi, rules, win_by)


@pytest.mark.parametrize(("win_by", "frm"), [("self_draw", None), ("discard", 2),
                                             ("discard", 0)])
def test_the_laizi_kong_raises_no_payment_of_this_seat(win_by: str, frm: int | None) -> None:
    """Seat 1's cheapest win already costs this seat the cap (400), and a third laizi kong
    leaves it there: the kong costs nothing on the losing side."""
    assert _my_payment(2, win_by, frm) == _my_payment(3, win_by, frm) == 400


# ---------------------------------------------------------------- the fault found

@pytest.mark.parametrize("wall", [48, 32, 20, 12])
@pytest.mark.parametrize("bot", ["greedy", "expert", "search"])
def test_two_laizi_held_for_a_small_hand_are_konged(bot: str, wall: int) -> None:
    """The laizi kong, not a plain discard that keeps both wilds (the expert's fault before
    ``excess_wild_kongs``; greedy and the search bot konged already: guards)."""
    ask(bot, _two_wilds_view(wall), [LAIZI_KONG])


@pytest.mark.parametrize("wall", [48, 20])
def test_the_kong_switch_off_plays_as_before(wall: int) -> None:
    """Off, the expert throws the 4m as it did before the fix (what the test above catches)."""
    view = _two_wilds_view(wall)
    assert ExpertBot(1, excess_wild_kongs=False).choose(view) == action_from_json(
        {"type": "discard", "tile": "4m"})


# ---------------------------------------------------------------- the 全求人 chi

QQR_MELDS = [meld("peng", "111s", 1), meld("peng", "222z", 3), meld("chi", "789p", 3)]
QQR_OTHERS = {1: [meld("peng", "666m", 0)],
              2: [meld("peng", "555z", 0), meld("chi", "789s", 1), meld("chi", "345s", 1)],
              3: [meld("peng", "999m", 1)]}
QQR_KONGS: dict[int, dict[str, int]] = {0: {"red": 1, "green": 2}, 1: {"green": 1, "laizi": 1}}
QQR_CHI = {"type": "chi", "tile": "6s", "tiles": "678s"}
QQR_PASS = {"type": "pass"}
QQR_RIVERS = {0: "3s4m6m>1 1p5z>2 1p3s4m", 1: "1s>0 9s4z9m>3 5s7s>2 4s>2 2z",
              2: "9p4z3z4p2m8m7s", 3: "2z>0 1p7p4z1m1m9p>0"}


def _qqr_view(wall: int) -> SeatView:
    """Seat 0's claim on seat 3's 6s (seat 1 deals; the laizi is the 7m, indicator 6m)."""
    view = make_view("2m678s", profile=PROFILE, indicator="6m", wall=wall, dealer=1,
                     melds={0: QQR_MELDS, **QQR_OTHERS}, discards=QQR_RIVERS,
                     claim=("6s", 3), actions=[QQR_CHI, QQR_PASS])
    for seat, kongs in QQR_KONGS.items():
        view["seats"][seat]["special_kongs"].update(kongs)
    return view


def _qqr_collects(chi: bool, win_by: str, frm: int | None) -> int:
    """What seat 0 collects for its hard win on the 2m, passing (2m 678s held) or after
    the chi (the 2m alone beside four melds)."""
    mine = [*QQR_MELDS, meld("chi", "678s", 3)] if chi else QQR_MELDS
    seats = [_record_seat(mine if s == 0 else QQR_OTHERS.get(s, []), s,
                          ("2m" if chi else "2m678s") if s == 0 else "", QQR_KONGS.get(s))
             for s in range(4)]
    rec: dict[str, Any] = {"profile": PROFILE, "dealer": 1, "indicator": "6m", "winner": 0,
                           "win_by": win_by, "winning_tile": "2m", "seats": seats,
                           **({} if frm is None else {"from": frm})}
    return int(sum(p.amount for p in settle(parse_win_record(rec)).payments))


def test_the_chi_keeps_the_winning_tiles() -> None:
    """Passing or after the chi (the 6s thrown), the hand wins on the 2m and the laizi
    (self-drawn), nothing else."""
    rules = get_rules(PROFILE)
    laizi = rules.laizi_of(parse_tile("6m"))
    before = [Meld(m["type"], tuple(parse_tiles(m["tiles"])), m["from_seat"]) for m in QQR_MELDS]
    after = [*before, Meld("chi", tuple(parse_tiles("678s")), 3)]
    for win_by in ("self_draw", "discard"):
        pass_waits = {w.tile for w in waits(parse_tiles("2m678s"), before, laizi, rules, win_by)}
        chi_waits = {w.tile for w in waits(parse_tiles("2m"), after, laizi, rules, win_by)}
        assert pass_waits == chi_waits
        assert parse_tile("2m") in chi_waits


def test_the_chi_raises_every_discard_win() -> None:
    """Self-drawn the 2m collects 656 either way; on any seat's discard 528 to 592 passing,
    1,500 after the chi (全求人, 金顶 500 from each loser)."""
    assert _qqr_collects(False, "self_draw", None) == _qqr_collects(True, "self_draw", None) == 656
    for frm in (1, 2, 3):
        assert _qqr_collects(False, "discard", frm) <= 592
        assert _qqr_collects(True, "discard", frm) == 1500


@pytest.mark.parametrize("wall", [55, 40, 24])
@pytest.mark.parametrize("bot", ["greedy", "expert"])
def test_the_fourth_claim_makes_a_capped_quanqiuren(bot: str, wall: int) -> None:
    """The chi (the expert's fault before ``capped_quanqiuren``; greedy chied already)."""
    ask(bot, _qqr_view(wall), [QQR_CHI])


def test_the_quanqiuren_switch_off_plays_as_before() -> None:
    """Off, the expert passes as it did before the fix."""
    assert ExpertBot(1, capped_quanqiuren=False).choose(_qqr_view(40)) == action_from_json(QQR_PASS)
