"""Decision problems of the nineteenth hunt (6 December 2026): ``laizishanzhuang`` (赖子山庄),
where no minimum score holds (every opened seat may win on any discard, so every opened
seat is a threat), one opening is enough, 发财 is a must-kong tile beside 红中, big hands
add 10 each and the caps are 400 / 金顶 500 / 光明顶 600.  Each position has one answer the
rules and plain expected value settle (the arithmetic checked by the analysis and the
settlement, not by the bots), asked of the bots it concerns at every table where the
answer is the same.

The fault it found (the tests fail on the code before the fix it names):

* Opened by a chi of 456p, ready either way by 3456m 789s 55s 67s: the 3m and the 6m
  each leave the 5s/8s wait (the same tiles, the same amounts by the settlement).  Seat
  1, opened twice (a peng of 东, a chi of 789m) with two 红中 kongs, let the 6m go by on
  seat 2's discard after his last discard, where his win would have passed in every
  profile: the 6m cannot complete his hand, the 3m is live.  The 6m goes.  The expert
  and the search bot threw the 3m in ``laizishanzhuang`` at walls 60 to 32 (and, the
  tiles' order reversed, the 6m seat 1 did not let go by in ``yuanhang`` and
  ``bianfeng``): a ready hand's discards are ranked by their waits alone (no deal-in
  term: ``deal_in_weight`` 0), the tiles' shape breaks the tie, and the swap for a tile
  as fast and all but safe (``ExpertBot.safe_ties``) skipped a ready hand.  It now swaps
  for another ready discard whose waits are worth as much by the settlement
  (``ExpertBot.ready_ties``).  Greedy, the baseline, reads no river and is not asked.

The positions the bots already answered right are below it, marked as guards.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.analysis import waits
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import NotAWin, settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles
from wuhan_mahjong.win_record import parse_win_record

READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")


def _payments(profile: str, winner: int, win_by: str, frm: int | None, tile: str,
              melds: dict[int, list[dict[str, Any]]], hand: str,
              red: dict[int, int] | None = None) -> dict[int, int]:
    """What each loser pays for ``winner``'s hard win (his concealed ``hand`` beside his
    ``melds``) on ``tile``, by the settlement (``NotAWin`` if the minimum score refuses
    it); seat 2 deals, the laizi is 1s (indicator 9s), held by nobody."""
    seats: list[dict[str, Any]] = []
    for s in range(4):
        ms = [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]}
              for m in melds.get(s, [])]
        seats.append({"hand": hand if s == winner else "", "melds": ms,
                      "kongs": {"red": (red or {}).get(s, 0)}})
    rec: dict[str, Any] = {"profile": profile, "dealer": 2, "indicator": "9s",
                           "winner": winner, "win_by": win_by, "winning_tile": tile,
                           "seats": seats}
    if frm is not None:
        rec["from"] = frm
    return {p.loser: int(p.amount) for p in settle(parse_win_record(rec)).payments}


# ---------------------------------------------------------------- faults found

#: this seat: a chi of 456p (from seat 3); seat 1: a peng of 东 (from seat 3) and a chi of
#: 789m (from this seat), two 红中 kongs
READY_MELDS = {0: [meld("chi", "456p", 3)],
               1: [meld("peng", "111z", 3), meld("chi", "789m", 0)]}
READY_RED = {1: 2}
READY_HAND = "3456m789s55s67s"


def _ready_view(profile: str, wall: int, let_go: str) -> SeatView:
    """Seat 0's turn; seat 2 deals.  Seat 1's last discard is the 8s; seat 2's ``let_go``
    (3m or 6m) came after it, and seat 1 let it go by."""
    rivers = {0: "8m>1 1p5z", 1: "1p9s4z8s", 2: "2z3z9p6z" + let_go,
              3: "1z>1 1m5p>0 9m2m"}
    return make_view(READY_HAND, profile=profile, indicator="9s", wall=wall, dealer=2,
                     melds=READY_MELDS, discards=rivers, red_kongs=READY_RED)


@pytest.mark.parametrize("profile", PROFILES)
def test_the_3m_and_the_6m_leave_the_same_waits(profile: str) -> None:
    """The rules' side: after either discard the hand wins on the 5s and the 8s alone
    (``analysis.waits``), and each win collects the same from every loser, self-drawn
    and on a discard (``scoring.settle``)."""
    rules = get_rules(profile)
    laizi = rules.laizi_of(parse_tile("9s"))
    melds = [Meld("chi", tuple(parse_tiles("456p")), 3)]
    for thrown in ("3m", "6m"):
        hand = parse_tiles(READY_HAND)
        hand.remove(parse_tile(thrown))
        assert {w.tile for w in waits(hand, melds, laizi, rules)} == set(
            [*parse_tiles("5s8s"), laizi])
    for tile in ("5s", "8s"):
        for win_by, frm in (("self_draw", None), ("discard", 1), ("discard", 2), ("discard", 3)):
            paid = [_settled(profile, win_by, frm, tile, h)
                    for h in ("456m789s55s67s", "345m789s55s67s")]
            assert paid[0] == paid[1]
            if profile == "laizishanzhuang" or win_by == "self_draw":
                assert paid[0] and min(paid[0].values()) > 0


def _settled(profile: str, win_by: str, frm: int | None, tile: str,
             hand: str) -> dict[int, int] | None:
    """This seat's win, ``None`` where the minimum score refuses it (its small win on a
    closed seat's discard in ``yuanhang`` and ``bianfeng``, either hand alike)."""
    try:
        return _payments(profile, 0, win_by, frm, tile, READY_MELDS, hand, READY_RED)
    except NotAWin:
        return None


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("tile", ["3m", "6m"])
def test_his_win_on_the_let_go_tile_would_have_passed(profile: str, tile: str) -> None:
    """Seat 1's win on seat 2's 3m or 6m (any hand of his seven tiles, here 45m 22p
    678p) passes the minimum score in every profile: his pass was a win refused, not
    one the minimum forbade, so the tile he let go by cannot complete his hand."""
    paid = _payments(profile, 1, "discard", 2, tile, READY_MELDS, "45m22p678p", READY_RED)
    assert min(paid.values()) > 0


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [60, 48, 32, 20])
@pytest.mark.parametrize("let_go", ["3m", "6m"])
def test_the_ready_tile_he_let_go_by_goes(bot: str, profile: str, wall: int,
                                          let_go: str) -> None:
    """Ready either way on the same waits: the tile seat 1 let go by goes, not the live
    one.  The expert and the search bot threw the live 3m in ``laizishanzhuang`` at walls
    60 to 32 (the 6m let go by), and the live 6m in ``yuanhang`` and ``bianfeng`` at most
    walls (the 3m let go by) (``ExpertBot.ready_ties``)."""
    ask(bot, _ready_view(profile, wall, let_go), [discard(let_go)])


def test_the_ready_ties_switch_plays_as_before() -> None:
    """Off, the expert throws the live tile (the tiles' shape decides)."""
    off = ExpertBot(1, ready_ties=False)
    assert off.choose(_ready_view("laizishanzhuang", 60, "6m")) == action_from_json(discard("3m"))
    assert off.choose(_ready_view("yuanhang", 60, "3m")) == action_from_json(discard("6m"))
