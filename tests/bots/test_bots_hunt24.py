"""Decision problems of the twenty-fourth hunt (6 December 2026): the expert's deal-ins in
``yuanhang`` and ``bianfeng``, mined from the arena (tuning seeds 360 to 363; the
study is in docs/bots-log.md).  Half of the deal-ins found there were a ready hand's
discard at a wall of 24 or more, into a seat with one or two melds that the opponent
model did not read as ready; the only discard keeping the hand ready was pushed.  That
push is right, and a fix for the deal-in rate must not fold it: these positions are
guards (every bot answered them right before and after the hunt; no fault was fixed).

Each answer is settled by the rules, checked by :mod:`wuhan_mahjong.analysis` and
:func:`wuhan_mahjong.scoring.settle`, not by the bots: this seat, opened twice, is
ready only by throwing a live 5p (seat 1 chis pins), on eight unseen tiles whose win
passes the minimum score; every other discard leaves it a step away.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.analysis import shanten
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles
from wuhan_mahjong.win_record import parse_win_record

BOTS = ("greedy", "expert", "search")
PROFILES = ("yuanhang", "bianfeng")

#: this seat (0) opened by a peng of 888s and a chi of 789m; seat 1 (the dealer) by a chi
#: of 123p from this seat and a peng of 666m: two suits, no big hand in sight
MELDS = {0: [meld("peng", "888s", 2), meld("chi", "789m", 3)],
         1: [meld("chi", "123p", 0), meld("peng", "666m", 3)]}
RIVERS = {0: "4z3p>1 1s", 1: "1z9s2z1m", 2: "3z8s>0 1p", 3: "4z9m>0 6m>1"}
#: ready on 3s/6s by throwing the 5p (the 22m the 2/5/8 pair); any other tile breaks it
HAND = "234m22m45s5p"


def _view(profile: str, wall: int) -> SeatView:
    return make_view(HAND, profile=profile, wall=wall, dealer=1, melds=MELDS,
                     discards=RIVERS, red_kongs={0: 1})


def _my_win(profile: str, tile: str, win_by: str) -> dict[int, int]:
    """What each loser pays this seat's win on ``tile`` (``win_by`` a discard of seat 1,
    or a self-draw) with 234m 22m 45s and its two melds, by the settlement."""
    seats: list[dict[str, Any]] = [{"hand": "", "melds": []} for _ in range(4)]
    seats[0] = {"hand": "234m22m45s", "kongs": {"red": 1}, "melds": [
        {"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]} for m in MELDS[0]]}
    seats[1] = {"hand": "", "melds": [
        {"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]} for m in MELDS[1]]}
    rec: dict[str, Any] = {"profile": profile, "dealer": 1, "indicator": "1z", "winner": 0,
                           "win_by": win_by, "winning_tile": tile, "seats": seats}
    if win_by == "discard":
        rec["from"] = 1
    return {p.loser: int(p.amount) for p in settle(parse_win_record(rec)).payments}


@pytest.mark.parametrize("profile", PROFILES)
def test_only_the_5p_keeps_the_hand_ready(profile: str) -> None:
    """The rules' side: throwing the 5p leaves the hand ready (shanten 0), every other
    discard a step away (shanten 1); the waits, 3s and 6s, have eight copies unseen by
    this seat (none in sight), and its win on either passes the minimum score by
    self-draw and on seat 1's discard."""
    rules = get_rules(profile)
    laizi = rules.laizi_of(parse_tile("1z"))
    melds = [Meld(m["type"], tuple(parse_tiles(m["tiles"])), m["from_seat"], m["kind"])
             for m in MELDS[0]]
    hand = parse_tiles(HAND)
    for d in sorted(set(hand)):
        rest = list(hand)
        rest.remove(d)
        want = 0 if d == parse_tile("5p") else 1
        assert shanten(rest, melds, laizi, rules) == want, d
    for tile in ("3s", "6s"):
        assert sum(_my_win(profile, tile, "self_draw").values()) > 0
        assert _my_win(profile, tile, "discard")[1] > 0


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [48, 36, 24])
@pytest.mark.parametrize("bot", BOTS)
def test_guard_the_ready_hand_pushes_its_live_tile(bot: str, profile: str, wall: int) -> None:
    """Guard.  Ready on eight tiles for a win that passes, beside one seat opened twice in
    two suits (read as ready with a chance of 0.23 to 0.30; the 5p about 3 to 6 points
    of expected deal-in by the model), the 5p goes at walls of 48, 36 and 24: folding
    gives up the hand's readiness for a tile a step back, which no such threat pays."""
    ask(bot, _view(profile, wall), [discard("5p")])
