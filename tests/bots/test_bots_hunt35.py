"""Decision problems of the thirty-fifth hunt (7 December 2026): ``laizishanzhuang``
(赖子山庄), the laizi, 红中 and 发财 decisions.  There 红中 and 发财 are both must-kong
tiles (each kong ×2 on this seat's multiplier, both sides), the laizi kong ×2 (丢癞子 ×2
too), big hands add 10 each instead of doubling, and a loser pays at most 400 (金顶 500,
光明顶 600).  The hunt's study (tuning seeds 437 and 438, docs/bots-log.md) found the
expert and greedy making the same choice at every such decision of the expert's seat but
the 杠上花 kongs (``ExpertBot.bloom_first``).  Each answer below is settled by the analysis
(``analysis.shanten``, ``analysis.waits``) and the settlement (``scoring.settle``), not by
a bot.

The fault it found (the test fails on the code before the fix):

* Opened (a peng of 111p) with two 红中 and two 发财 kongs (×32 with the opening),
  holding 2p 3p 5p 7p 9p 66p 4s 8s and two laizi (南) beside three opened seats: every
  清一色 this hand can make collects 500 from each loser (金顶) with a third laizi kong or
  without it, self-drawn or on anyone's discard, and a small win needs one laizi konged
  (or thrown) first anyway, with the same ×2.  Throwing the 4s keeps both wilds a step
  from 清一色 (a big hand may win holding both); the laizi kong leaves the hand two steps
  away until its replacement draw, which cannot win, and doubles what this seat pays
  meanwhile (256 → 400 on seat 1's cheap small win dealt in by seat 2).  Every bot konged
  (greedy's rule: a second laizi is konged at once).  With ``ExpertBot.idle_wild_kongs``
  the expert (and the search bot) hold such a kong back; greedy is the baseline (not
  asked).

The guards, the clear cases of the two decisions that arise most (every bot asked
already answers them right):

* Opened once (a chi of 123m), holding 789s 55p 34567p and the laizi just drawn (the 南,
  indicator 东): the hand wins now, the laizi standing in, a soft self-drawn small hand of
  16 points in all.  The laizi kong leaves 789s 55p 34567p waiting on the 2p, 5p and 8p
  (and a drawn laizi), and a replacement draw on any of them wins 杠上花 (a big hand, the
  kong's ×2 and, on a plain tile, 硬胡): 360 points (180 on a laizi, soft), nine plain
  tiles and three laizi unseen; so the kong's first draw alone is worth about three times the win in hand, and
  a miss leaves the hand ready, hard, its self-draws 64.  The expert and the search bot
  kong (greedy takes every win, by design: not asked).

* The same hand with a 发财 drawn instead of the laizi (no laizi held): a held 发财 blocks
  every win (RULES §12, Amb. 6: it is never discarded), so no tile wins the hand until it
  is konged; the kong draws a replacement at once, and the hand it leaves waits on the 2p,
  5p, 8p and the laizi.  Every bot kongs, early and late in the wall.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.analysis import shanten, waits
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles, tile_str
from wuhan_mahjong.win_record import parse_win_record

PROFILE = "laizishanzhuang"
INDICATOR = "1z"  # the laizi is the 南 (2z)
READY = "789s55p34567p"
MY_MELDS = [meld("chi", "123m", 3)]
LAIZI_KONG = {"type": "special_kong", "kind": "laizi", "tiles": "2z"}
GREEN_KONG = {"type": "special_kong", "kind": "green", "tiles": "6z"}
WIN_ACTION = {"type": "win"}
DISCARDS = [discard(t) for t in ("7s", "8s", "9s", "3p", "4p", "5p", "6p", "7p")]


def _total(hand: str, tile: str, win_by: str, kongs: dict[str, int] | None = None) -> int:
    """What seat 0 (not the dealer) collects in all, winning ``win_by`` on ``tile`` with
    ``hand`` beside its chi of 123m and ``kongs``."""
    seats: list[dict[str, Any]] = [{"hand": "", "kongs": {}, "melds": []} for _ in range(4)]
    seats[0] = {"hand": hand, "kongs": kongs or {},
                "melds": [{"type": "chi", "tiles": "123m", "from": 3}]}
    rec = {"profile": PROFILE, "dealer": 1, "indicator": INDICATOR, "winner": 0,
           "win_by": win_by, "winning_tile": tile, "seats": seats}
    return int(sum(p.amount for p in settle(parse_win_record(rec)).payments))


def _waits(hand: str, win_by: str) -> list[str]:
    rules = get_rules(PROFILE)
    laizi = rules.laizi_of(parse_tile(INDICATOR))
    melds = [Meld("chi", tuple(parse_tiles("123m")), 3)]
    return [tile_str(w.tile) for w in waits(parse_tiles(hand), melds, laizi, rules, win_by)]


def _view(drawn: str, wall: int, actions: list[dict[str, Any]]) -> SeatView:
    view = make_view(READY + drawn, profile=PROFILE, indicator=INDICATOR, wall=wall, dealer=1,
                     melds={0: MY_MELDS}, actions=actions)
    view["drawn"] = drawn  # type: ignore[typeddict-unknown-key]
    return view


# ---------------------------------------------------------------- the rules' side

def test_the_win_in_hand_is_small_and_the_bloom_large() -> None:
    """The soft self-drawn win now collects 16; after the laizi kong the 13 tiles win on
    the 2p, 5p, 8p and a drawn laizi, 杠上花 collecting 360 on each plain tile (hard) and
    180 on the laizi (soft); a later hard self-draw collects 64."""
    assert _total(READY, "2z", "self_draw") == 16
    assert _waits(READY, "kong_bloom") == ["2p", "5p", "8p", "2z"]
    for tile in ("2p", "5p", "8p"):
        assert _total(READY, tile, "kong_bloom", {"laizi": 1}) == 360
        assert _total(READY, tile, "self_draw", {"laizi": 1}) == 64
    assert _total(READY, "2z", "kong_bloom", {"laizi": 1}) == 180  # soft


def test_a_held_green_dragon_blocks_every_win() -> None:
    """Holding the 发财, no tile wins; konged, the hand waits on 2p, 5p, 8p (and the laizi
    self-drawn)."""
    for win_by in ("self_draw", "discard", "kong_bloom"):
        assert _waits(READY + "6z", win_by) == []
    assert _waits(READY, "discard") == ["2p", "5p", "8p"]


# ---------------------------------------------------------------- the bots (guards)

@pytest.mark.parametrize("wall", [70, 50, 30, 12])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_the_laizi_is_konged_for_the_bloom_over_a_small_soft_win(bot: str, wall: int) -> None:
    """A guard: with nine unseen plain tiles winning 杠上花 at 360 against a soft win
    of 16 in hand, the laizi is konged (``ExpertBot.bloom_first``)."""
    ask(bot, _view("2z", wall, [WIN_ACTION, LAIZI_KONG, *DISCARDS]), [LAIZI_KONG])


@pytest.mark.parametrize("wall", [60, 20, 8])
@pytest.mark.parametrize("bot", ["greedy", "expert", "search"])
def test_a_drawn_green_dragon_of_a_ready_hand_is_konged(bot: str, wall: int) -> None:
    """A guard: the 发财 is konged at once, early or late (holding it wins nothing)."""
    ask(bot, _view("6z", wall, [GREEN_KONG, *DISCARDS]), [GREEN_KONG])


# ---------------------------------------------------------------- the idle extra wild (the fault)

IDLE_HAND = "2z2z2p3p5p7p9p6p6p4s8s"
IDLE_MELDS = {0: [meld("peng", "111p", 2)], 1: [meld("chi", "345s", 0)],
              2: [meld("peng", "999m", 1)], 3: [meld("peng", "777s", 1)]}
IDLE_RECORD_MELDS = {s: [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]}
                         for m in ms] for s, ms in IDLE_MELDS.items()}
MY_DRAGONS = {"red": 2, "green": 2}


def _idle_view(wall: int) -> SeatView:
    view = make_view(IDLE_HAND, profile=PROFILE, indicator=INDICATOR, wall=wall, dealer=1,
                     melds=IDLE_MELDS, discards={1: "1m9s", 2: "4m1z", 3: "3z"},
                     extra_actions=[LAIZI_KONG])
    view["seats"][0]["special_kongs"].update(MY_DRAGONS)
    return view


def _idle_payments(winner: int, hand: str, tile: str, win_by: str, laizi_kongs: int,
                   frm: int | None = None) -> dict[int, int]:
    seats = [{"hand": hand if s == winner else "",
              "kongs": {**MY_DRAGONS, "laizi": laizi_kongs} if s == 0 else {},
              "melds": IDLE_RECORD_MELDS[s]} for s in range(4)]
    rec: dict[str, Any] = {"profile": PROFILE, "dealer": 1, "indicator": INDICATOR,
                           "winner": winner, "win_by": win_by, "winning_tile": tile,
                           "seats": seats, **({} if frm is None else {"from": frm})}
    return {p.loser: int(p.amount) for p in settle(parse_win_record(rec)).payments}


def test_the_extra_wild_kong_costs_a_step() -> None:
    """Throwing the 4s (or 8s) leaves the hand a step from ready with both wilds; after the
    laizi kong the tiles left are two steps away (the replacement draw to come)."""
    rules = get_rules(PROFILE)
    laizi = rules.laizi_of(parse_tile(INDICATOR))
    melds = [Meld("peng", tuple(parse_tiles("111p")), 2)]
    hand = parse_tiles(IDLE_HAND)
    for thrown in ("4s", "8s"):
        rest = list(hand)
        rest.remove(parse_tile(thrown))
        assert shanten(rest, melds, laizi, rules) == 1
    rest = list(hand)
    rest.remove(laizi)
    assert shanten(rest, melds, laizi, rules) == 2


def test_the_extra_wild_kong_adds_nothing_to_a_win_and_doubles_a_loss() -> None:
    """Its 清一色 (two wilds standing in) collects 500 a loser with the third laizi kong or
    without, self-drawn or on any seat's discard; seat 1's small win dealt in by seat 2
    costs this seat 256 without the kong and 400 with it."""
    qys = "2z2z35p79p22p66p"  # on a 6p: 111p 3(5)5p 7(8)9p 22p 666p
    for kongs in (0, 1):
        assert _idle_payments(0, qys, "6p", "self_draw", kongs) == {1: 500, 2: 500, 3: 500}
        for frm in (1, 2, 3):
            assert _idle_payments(0, qys, "6p", "discard", kongs, frm) == {
                1: 500, 2: 500, 3: 500}
    small = "22m456m789m23p"
    assert _idle_payments(1, small, "4p", "discard", 0, 2)[0] == 256
    assert _idle_payments(1, small, "4p", "discard", 1, 2)[0] == 400


@pytest.mark.parametrize("wall", [60, 40, 20])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_the_extra_wild_is_held_where_its_kong_adds_nothing(bot: str, wall: int) -> None:
    """The fault: the laizi kong was made; a plain tile is thrown and both wilds kept."""
    view = _idle_view(wall)
    ask(bot, view, [a for a in view["legal_actions"] if a["type"] == "discard"])


def test_without_the_switch_the_extra_wild_was_konged() -> None:
    """``idle_wild_kongs`` off: the expert konged, as greedy does."""
    choice = ExpertBot(1, idle_wild_kongs=False).choose(_idle_view(40))
    assert choice == action_from_json(LAIZI_KONG)


def test_below_the_cap_the_rule_says_nothing() -> None:
    """Without the four dragon kongs the 清一色 stays under the caps (the kong doubles it):
    the rule leaves the kong to the older rules."""
    view = _idle_view(40)
    view["seats"][0]["special_kongs"].update({"red": 0, "green": 0})
    assert not ExpertBot(1).idle_wild_kong(SeatReading(view))
    assert ExpertBot(1).idle_wild_kong(SeatReading(_idle_view(40)))
