"""Decision problems of the twenty-sixth hunt (6 December 2026, night): defence in
``laizishanzhuang`` (赖子山庄), where no minimum score holds (every opened seat may win on
any discard), one opening is enough, and the expert's push-or-fold layer makes only free
swaps (``defence_speed`` 1: a safer tile must keep the core's chance of winning, so one
tile of acceptance less bars it).  Each position has one answer the rules and plain
expected value settle (the tile counts by ``analysis.shanten``, his waits by
``analysis.waits``, the amounts by ``scoring.settle``), not the bots.

The fault it found (the tests fail on the code before the fix):

* Closed and a step from ready with 234m 456m 55s 34s 78s, a lone 4p and a lone 8m,
  beside seat 1's three pin melds (123p, 555p, 789p: a 清一色 read as ready at about 0.9)
  who threw the 8m last.  Throwing the 4p keeps 21 tiles (the 8m pairs as a second
  2/5/8 pair); throwing the 8m keeps 19, the same tiles but the 8m's two unseen copies.
  The 4p is a live middle tile of his suit: of the pin hands he could hold that are
  ready, many win on it; none wins on the 8m.  A hand that is closed (it needs a claim
  before any win) gives up a tenth of its tiles for a large cut in its risk: the 8m
  goes.  Every bot threw the 4p at walls 32 to 16 in ``laizishanzhuang`` (the expert and
  the search bot threw the 8m in ``yuanhang`` and ``bianfeng``: guards): the layer
  skipped the 8m because its chance of winning, 19 tiles against 21, is below the
  core's.  With ``ExpertBot.near_swaps`` (0.75) an alternative at the core's shanten, a
  step from ready or ready, that keeps at least three quarters of its tiles is weighed
  as in the other profiles.  Greedy, the baseline, reads no river (its design) and is
  not asked.

The older positions the profile's setting was built on keep their answers
(``test_bots_defence.py``: the safe tile keeping 11 tiles of 17 stays barred; the far
hand's fold is ``fold_floor``'s).
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.analysis import shanten, waits
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles
from wuhan_mahjong.win_record import parse_win_record

READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)

#: seat 1: a pin 清一色 in the making, three melds shown (the defence tests' threat)
PINS = [meld("chi", "123p", 0), meld("peng", "555p", 2), meld("chi", "789p", 0)]
#: seat 1 threw the 8m last
RIVERS = {1: "1s9m4z7s2m3z8m", 2: "1z2z9s", 3: "3z4z1p"}
HAND = "234m456m55s34s78s4p8m"
INDICATOR = "1z"  # the laizi is 南 (2z)


def _view(profile: str, wall: int) -> SeatView:
    return make_view(HAND, profile=profile, indicator=INDICATOR, wall=wall,
                     melds={1: PINS}, discards=RIVERS, dealer=2)


def _lowering(thrown: str, profile: str) -> dict[str, int]:
    """The kinds that bring the 13 tiles left after ``thrown`` a step closer
    (``analysis.shanten``), each with its unseen copies in the position."""
    rules = get_rules(profile)
    laizi = rules.laizi_of(parse_tile(INDICATOR))
    hand = parse_tiles(HAND)
    hand.remove(parse_tile(thrown))
    now = shanten(hand, [], laizi, rules)
    assert now == 1
    unseen = SeatReading(_view(profile, 16)).unseen
    return {k: unseen[k] for k in range(34)
            if unseen[k] and shanten([*hand, k], [], laizi, rules) < now}


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
def test_the_8m_gives_up_its_own_two_copies(profile: str) -> None:
    """The rules' side of the speed: either discard leaves the hand a step from ready;
    the 4p keeps 2s/5s, 6s/9s, the 8s, the laizi and the 8m (a second 2/5/8 pair), 21
    tiles; the 8m keeps the same less its own two unseen copies, 19."""
    keep_8m = _lowering("4p", profile)
    keep_4p = _lowering("8m", profile)
    eight_m = parse_tile("8m")
    assert keep_8m.pop(eight_m) == 2
    assert keep_8m == keep_4p
    assert sum(keep_4p.values()) == 19


def test_his_ready_pin_hands_win_on_the_4p_and_never_on_the_8m() -> None:
    """Every four concealed pins seat 1 could hold (from the pins this seat has not seen)
    that leave him ready: more than a sixth win on the 4p (41 of 215, ``analysis.waits``),
    none on the 8m."""
    rules = get_rules("laizishanzhuang")
    laizi = rules.laizi_of(parse_tile(INDICATOR))
    unseen = SeatReading(_view("laizishanzhuang", 16)).unseen
    melds = [Meld(m["type"], tuple(parse_tiles(m["tiles"])), m["from_seat"]) for m in PINS]
    pins = [k for k in range(9, 18) if unseen[k]]
    on_4p = on_8m = ready = 0
    for hand in combinations_with_replacement(pins, 4):
        if any(hand.count(k) > unseen[k] for k in set(hand)):
            continue
        tiles = {w.tile for w in waits(list(hand), melds, laizi, rules)}
        if tiles:
            ready += 1
            on_4p += parse_tile("4p") in tiles
            on_8m += parse_tile("8m") in tiles
    assert ready > 200 and 6 * on_4p > ready and on_8m == 0  # 41 of 215 on the 4p


def _pays(win_by: str, frm: int | None) -> dict[int, int]:
    """What each loser pays for seat 1's 清一色 (23p 66p beside his melds) on the 4p."""
    seats: list[dict[str, Any]] = [
        {"hand": "23p66p" if s == 1 else "", "kongs": {},
         "melds": [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]}
                   for m in (PINS if s == 1 else [])]} for s in range(4)]
    rec: dict[str, Any] = {"profile": "laizishanzhuang", "dealer": 2, "indicator": INDICATOR,
                           "winner": 1, "win_by": win_by, "winning_tile": "4p", "seats": seats,
                           **({} if frm is None else {"from": frm})}
    return {p.loser: int(p.amount) for p in settle(parse_win_record(rec)).payments}


def test_a_deal_in_costs_this_seat_half_as_much_again() -> None:
    """The settlement's side: his plain 清一色 on this seat's 4p costs it 60 where the same
    win on another seat's discard costs it 40 (and his self-draw 60): the deal-in adds
    what a tenth of a closed hand's chance, a step from ready, could not win back."""
    assert _pays("discard", 0)[0] == 60
    assert _pays("discard", 3)[0] == 40
    assert _pays("self_draw", None)[0] == 60


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("wall", [32, 24, 16])
def test_the_safe_8m_goes_in_laizishanzhuang(bot: str, wall: int) -> None:
    """The fault: every bot threw the 4p there (``defence_speed`` 1 barred 19 tiles
    against 21)."""
    ask(bot, _view("laizishanzhuang", wall), [discard("8m")])


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("wall", [32, 24, 16])
def test_guard_the_safe_8m_goes_where_the_layer_weighs_speed(profile: str, bot: str,
                                                              wall: int) -> None:
    """Guard (right before the fix): in ``yuanhang`` and ``bianfeng`` the push-or-fold layer
    weighs every safer tile (``defence_speed`` 0), and the 8m goes."""
    ask(bot, _view(profile, wall), [discard("8m")])


@pytest.mark.parametrize("wall", [32, 24, 16])
def test_the_near_swaps_switch_plays_as_before(wall: int) -> None:
    """Off (``near_swaps=0``), the expert throws the 4p as it did."""
    view = _view("laizishanzhuang", wall)
    assert ExpertBot(1, near_swaps=0.0).choose(view) == Discard(parse_tile("4p"))
    bot = ExpertBot(1)
    assert bot.choose(view) == Discard(parse_tile("8m")) and bot.defended == 1
