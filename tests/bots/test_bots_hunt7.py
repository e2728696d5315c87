"""Decision problems of the seventh hunt (6 December 2026): winning and the end of the
hand (a win at 金顶 already, a kong before the win, the sure win over the kong that might
make it bigger).  Each position has one answer the rules and plain expected value settle,
asked of the bots it concerns in every profile where the answer is the same; the values
are checked against the settlement (:func:`wuhan_mahjong.scoring.settle`), not the bots.

The fault it found (the test fails on the code before the fix it names):

* A pin flush beside 123p and a 冲杠 of 9999p, with three 红中 kongs: every win it can
  make (on a discard or self-drawn, hard or with the laizi 1s standing in) is at 金顶 for
  every loser, in every profile.  Holding 4444p 567p 7p it may make the 暗杠 of 4444p,
  which leaves 567p 7p waiting on six tiles (two 7p, four laizi), or throw the 6p, which
  leaves 4444p 57p 7p waiting on ten (three 3p, three 6p, four laizi) at the same 金顶.
  The kong's ×4 adds nothing to those wins and joins what this seat pays when another
  seat wins (Project decision 6); its replacement draw is one draw more on six tiles
  against every later draw on ten.  Greedy (every profile) and the expert and the
  search bot in ``laizishanzhuang`` (where greedy's count of winning tiles weighs a
  kong, ``use_value`` off) made the kong: that count multiplied the winning tiles by
  the kong's whole factor, past the caps (``capped_kongs``: only what the factor adds
  within the caps, :meth:`GreedyBot.capped_gain`, as the laizi kong already counted it).

The positions the bots already answered right are below it, marked as guards.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.analysis import waits
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.scoring import loser_caps, settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles, tile_str
from wuhan_mahjong.win_record import parse_win_record

BOTS = ("greedy", "expert", "search")
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")
PASS = {"type": "pass"}

#: this seat's pin flush: a chi of 123p from seat 3, a 冲杠 of 9999p on seat 2's 9p
FLUSH = [meld("chi", "123p", 3), {"type": "kong", "kind": "direct", "tiles": "9999p",
                                   "from_seat": 2}]
CONCEALED_KONG = {"type": "kong", "tile": "4p", "kind": "concealed"}


def _capped_view(profile: str, red: int = 3) -> SeatView:
    """The flush holding 4444p 567p 7p (the laizi 1s under a 9s indicator), ``red`` 红中
    kongs, at a wall of 30; the others closed."""
    return make_view("4444p567p7p", profile=profile, indicator="9s", wall=30,
                     melds={0: FLUSH}, red_kongs={0: red}, extra_actions=[CONCEALED_KONG])


def _record(profile: str, hand: str, melds: list[dict[str, Any]], tile: str,
            win_by: str, frm: int | None) -> dict[str, Any]:
    """The settlement record of this seat's win on ``tile`` (seat 1 deals)."""
    seats: list[dict[str, Any]] = [{"hand": "", "melds": []} for _ in range(4)]
    seats[0] = {"hand": hand, "melds": melds, "kongs": {"red": 3}}
    rec: dict[str, Any] = {"profile": profile, "dealer": 1, "indicator": "9s", "winner": 0,
                           "win_by": win_by, "winning_tile": tile, "seats": seats}
    if frm is not None:
        rec["from"] = frm
    return rec


def _every_win(profile: str, hand: str, melds: list[dict[str, Any]]) -> dict[str, set[int]]:
    """What every win of ``hand`` beside ``melds`` collects, by winning tile: self-drawn
    and on each other seat's discard (the laizi only self-drawn), by the settlement."""
    t = SeatReading(_capped_view(profile))
    record_melds = [{"type": m["type"], "kind": m.get("kind"), "tiles": m["tiles"],
                     "from": m.get("from_seat")} for m in melds]
    as_melds = [Meld(m["type"], tuple(parse_tiles(m["tiles"])), m.get("from_seat"),
                     m.get("kind")) for m in melds]
    out: dict[str, set[int]] = {}
    for w in waits(parse_tiles(hand), as_melds, parse_tile("1s"), t.rules):
        if not t.unseen[w.tile]:
            continue  # all four in sight (the 4p of the kong's line)
        tile = tile_str(w.tile)
        ways = [("self_draw", None)] + ([] if tile == "1s" else
                                        [("discard", s) for s in (1, 2, 3)])
        out[tile] = {settle(parse_win_record(_record(profile, hand, record_melds, tile,
                                                     by, frm))).total
                     for by, frm in ways}
    return out


# ---------------------------------------------------------------- faults found

@pytest.mark.parametrize("profile", PROFILES)
def test_every_win_of_the_flush_is_at_the_golden_cap(profile: str) -> None:
    """The position's arithmetic, by the settlement: the kong's line (567p 7p beside the
    暗杠) wins on 7p and the laizi, the 6p's line (4444p 57p 7p) on 3p, 6p and the laizi,
    and every one of those wins collects 金顶 from each loser (光明顶 from a loser who
    never opened, in ``laizishanzhuang``): three times 400, or three times 600."""
    kong = [*FLUSH, {"type": "kong", "kind": "concealed", "tiles": "4444p", "from_seat": None}]
    kong_wins = _every_win(profile, "567p7p", kong)
    six_wins = _every_win(profile, "4444p57p7p", FLUSH)
    assert set(kong_wins) == {"7p", "1s"}
    assert set(six_wins) == {"3p", "6p", "1s"}
    rules = SeatReading(_capped_view(profile)).rules
    _, _, golden, bright = loser_caps(rules, 10)
    top = 3 * (bright or golden)  # the others never opened
    assert {v for vs in (*kong_wins.values(), *six_wins.values()) for v in vs} == {top}
    unseen = SeatReading(_capped_view(profile)).unseen
    assert sum(unseen[parse_tile(x)] for x in kong_wins) == 6
    assert sum(unseen[parse_tile(x)] for x in six_wins) == 10


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_no_kong_for_a_factor_past_the_golden_cap(bot: str, profile: str) -> None:
    """The flush at 金顶 whatever it wins: the 6p goes (ten winning tiles) rather than
    the 暗杠 (six, and ×4 on what this seat pays).  Greedy made the kong in every
    profile, the expert and the search bot in ``laizishanzhuang``."""
    ask(bot, _capped_view(profile), [discard("6p")])


def test_the_capped_kongs_switch_plays_as_before() -> None:
    """``capped_kongs`` off: the kong's whole factor counts, and the kong is made (greedy
    in ``yuanhang``, the expert in ``laizishanzhuang``)."""
    kong = action_from_json(CONCEALED_KONG)
    greedy = GreedyBot(1)
    greedy.capped_kongs = False
    assert greedy.choose(_capped_view("yuanhang")) == kong
    assert ExpertBot(1, capped_kongs=False).choose(_capped_view("laizishanzhuang")) == kong


@pytest.mark.parametrize("profile", PROFILES)
def test_the_capped_gain_of_the_concealed_kong(profile: str) -> None:
    """What the 暗杠 adds to a self-drawn win of the flush: nothing at 金顶 (three 红中
    kongs); without them, the win short of 金顶, the kong lifts it there."""
    gains = []
    for red in (3, 0):
        t = SeatReading(_capped_view(profile, red))
        melds = [*t.melds, Meld("kong", tuple(parse_tiles("4444p")), None, "concealed")]
        gains.append(GreedyBot.capped_gain(t, 10, 0, melds=melds))
    assert gains[0] == pytest.approx(1.0)
    assert gains[1] > 1.5


# ---------------------------------------------------------------- guards

@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("red", [0, 3])
def test_guard_the_sure_win_over_the_kong(bot: str, profile: str, red: int) -> None:
    """Guard.  The flush holding 444p 567p 7p, seat 2 throws the 4p: it wins (444p 456p
    77p).  The 冲杠 would add ×2 and a replacement draw that might win 杠上花, but it
    gives up a win in hand for a draw on two 7p and four laizi; at 金顶 (three 红中
    kongs) it would add nothing at all."""
    view = make_view("444p567p7p", profile=profile, indicator="9s", wall=30,
                     melds={0: FLUSH}, red_kongs={0: red}, claim=("4p", 2),
                     actions=[{"type": "win"}, {"type": "kong", "tile": "4p", "kind": "direct"},
                              {"type": "peng", "tile": "4p"}, PASS])
    ask(bot, view, [{"type": "win"}])
