"""Decision problems of the thirty-fifth hunt (7 December 2026): ``laizishanzhuang``
(赖子山庄), the laizi, 红中 and 发财 decisions.  There 红中 and 发财 are both must-kong
tiles (each kong ×2 on this seat's multiplier, both sides), the laizi kong ×2 (丢癞子 ×2
too), big hands add 10 each instead of doubling, and a loser pays at most 400 (金顶 500,
光明顶 600).  The hunt's study (tuning seeds 437 and 438, docs/bots-log.md) found the
expert and greedy making the same choice at every such decision of the expert's seat but
the 杠上花 kongs (``ExpertBot.bloom_first``); the positions below are the clear cases
of the two decisions that arise most, kept as guards (every bot asked already answers
them right; no fault was found).  Each answer is settled by the analysis
(``analysis.waits``) and the settlement (``scoring.settle``), not by a bot.

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

from wuhan_mahjong.analysis import waits
from wuhan_mahjong.engine import SeatView
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
