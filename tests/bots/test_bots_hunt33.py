"""Decision problems of the thirty-third hunt (7 December 2026): why the expert deals in
nearly as often as greedy in ``laizishanzhuang`` (赖子山庄).  Each position has one answer
the rules and plain counting settle (the tile counts by ``analysis.shanten``, the
contract by ``scoring.settle``), not the bots.

The fault it found (the tests fail with ``cost_gate`` off, the code before the fix):

* Closed and a step from ready with 234m 456m 55s 34s 78s, a lone 4p and a lone 8m,
  beside the next seat's two pin chis (123p, 789p: a 清一色 in the making) who threw the
  8m last.  Throwing the 4p keeps 21 tiles, throwing the 8m 19 (the 8m's two unseen
  copies, which would pair as a second 2/5/8 pair).  The 4p is a live middle tile of his
  suit, and he can chi it (23p, 35p or 56p) as his **third** pin meld: if he then wins
  the flush, this seat pays every loser's share (承包, the one-suit third feeder).  The
  8m he threw himself.  A tenth of the tiles for the contract and the deal-in: the 8m.
  In ``laizishanzhuang`` the expert threw the 4p at walls 60 and 52, where the model read
  him ready at 0.21 and 0.25 (below ``threat_min``, 0.25), so its push-or-fold layer
  never weighed the discard, although it priced the 4p at about 250 points of expected
  contract and deal-in against 0.1 for the 8m.  In that profile the layer makes only
  swaps that give up (next to) no speed (``defence_speed`` 1, ``near_swaps``), and the
  model reads readiness at about half the truth there (the hunt's calibration, seed 427:
  seats with one meld at walls 30 to 49 read 0.10, ready 0.40), so the gate was seldom
  met.  ``ExpertBot.contract_gate`` lets the layer weigh, where ``defence_speed`` keeps
  it to such swaps, a core discard that carries at least ``min_saving`` points of
  expected contract whatever the threat; its own expected-value test decides.  The
  wider ``cost_gate``, for any deal-in cost, answers it too.  **Both are off by
  default**: measured against the expert on tuning deals (docs/bots-log.md, the
  thirty-third hunt), ``cost_gate`` −1.75 [−6.98, +3.48] points a hand over 1,200 deals
  and ``contract_gate`` −2.60 [−5.48, +0.28] over 600, and issue 16 counts the points
  first.  So the fault's cases ask the bots with the switch on; the default bots keep
  the old 4p there (:func:`test_without_the_switch_the_gate_skipped_the_weighing`).

Guards (right before the fix): the same position at walls 44 to 28 (read above the
gate), and in ``yuanhang`` and ``bianfeng`` at every wall (the core prices the contract
there, ``contract_weight``).  Greedy reads no river (its design) and is not asked.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld, paid_by
from test_bots_hunt26 import HAND, INDICATOR, RIVERS

from wuhan_mahjong.analysis import shanten
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.search import SearchBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tile, parse_tiles

READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)

#: seat 1 (the next seat): two pin chis, a 清一色 in the making (the twenty-sixth hunt's
#: position, its hand and rivers, with his 555p taken away)
PINS = [meld("chi", "123p", 0), meld("chi", "789p", 0)]


def _view(profile: str, wall: int) -> SeatView:
    return make_view(HAND, profile=profile, indicator=INDICATOR, wall=wall,
                     melds={1: PINS}, discards=RIVERS, dealer=2)


def _tiles_after(thrown: str, profile: str) -> int:
    """The unseen tiles that bring the 13 tiles left after ``thrown`` a step closer
    (``analysis.shanten`` on every draw)."""
    rules = get_rules(profile)
    laizi = rules.laizi_of(parse_tile(INDICATOR))
    rest = parse_tiles(HAND)
    rest.remove(parse_tile(thrown))
    assert shanten(rest, [], laizi, rules) == 1
    steps = [shanten([*rest, k], [], laizi, rules) for k in range(34)]
    unseen = SeatReading(_view(profile, 60)).unseen
    return sum(n for n, step in zip(unseen, steps, strict=True) if step < 1)


def test_the_8m_keeps_nine_tenths_of_the_tiles() -> None:
    """The counting: the 4p keeps 21 tiles, the 8m 19 (its own two unseen copies), both a
    step from ready; the 4p can be chied by the next seat (2p, 3p, 5p, 6p unseen)."""
    assert _tiles_after("4p", "laizishanzhuang") == 21
    assert _tiles_after("8m", "laizishanzhuang") == 19
    unseen = SeatReading(_view("laizishanzhuang", 60)).unseen
    assert all(unseen[parse_tile(x)] >= 3 for x in ("2p", "3p", "5p", "6p"))


def _paid(third: str, third_from: int, hand: str) -> dict[int, int]:
    """What each payer pays for seat 1's pin 清一色 self-drawn on a 6p (``hand`` the four
    tiles beside it), his third meld (``third``: "chi" 345p or "peng" 555p) claimed from
    ``third_from``."""
    his = [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]} for m in PINS]
    tiles = "345p" if third == "chi" else "555p"
    seats: list[dict[str, Any]] = [
        {"hand": hand if s == 1 else "", "kongs": {},
         "melds": [*his, {"type": third, "tiles": tiles, "from": third_from}] if s == 1
         else []} for s in range(4)]
    rec = {"profile": "laizishanzhuang", "dealer": 2, "indicator": INDICATOR, "winner": 1,
           "win_by": "self_draw", "winning_tile": "6p", "seats": seats}
    return paid_by(rec)


def test_the_third_feeder_pays_for_all() -> None:
    """The settlement's side: fed his third pin meld (the chi of the 4p), this seat pays
    every loser's share of his 清一色 (the same hard flush of three openings, fed by
    another seat, costs that seat all of it and this seat nothing)."""
    fed = _paid("chi", 0, "5566p")
    assert list(fed) == [0]
    other = _paid("peng", 3, "4466p")
    assert list(other) == [3]
    assert fed[0] == other[3] > 0


#: found and left alone: the search bot throws the 4p at wall 36 in ``laizishanzhuang``
#: with the switch on or off (its own rollouts, not the gate)
SEARCH_36 = pytest.mark.xfail(reason="the search bot's 4p at wall 36, left alone", strict=True)


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize("wall", [60, 52, 44, 36, 28])
@pytest.mark.parametrize("bot", READERS)
def test_the_third_pin_meld_is_not_fed(bot: str, profile: str, wall: int,
                                       request: pytest.FixtureRequest) -> None:
    """The fault: the expert and the search bot threw the 4p in ``laizishanzhuang`` at
    walls 60 and 52 (asked there with ``contract_gate`` on, off by default); the other
    cases are guards of the default bots (but one, :data:`SEARCH_36`)."""
    if (bot, profile, wall) == ("search", "laizishanzhuang", 36):
        request.applymarker(SEARCH_36)
    view = _view(profile, wall)
    if profile == "laizishanzhuang" and wall >= 52:
        cls = ExpertBot if bot == "expert" else SearchBot
        assert cls(1, contract_gate=True).choose(view) == Discard(parse_tile("8m"))
    else:
        ask(bot, view, [discard("8m")])


@pytest.mark.parametrize("wall", [60, 52])
def test_without_the_switch_the_gate_skipped_the_weighing(wall: int) -> None:
    """With ``contract_gate`` and ``cost_gate`` off (the default) the layer is not asked
    below ``threat_min`` (the old answer, the 4p), although the model prices the 4p far
    above the 8m, by its contract; ``cost_gate`` alone answers the 8m as well."""
    view = _view("laizishanzhuang", wall)
    assert ExpertBot(1, cost_gate=True).choose(view) == Discard(parse_tile("8m"))
    off = ExpertBot(1)
    assert off.choose(view) == Discard(parse_tile("4p"))
    assert off.model().threat() < off.threat_min
    _, deal, contract = off.model().risk(parse_tile("4p"), 1)
    eight = sum(off.model().risk(parse_tile("8m"), 1)[1:])
    assert contract >= off.min_saving
    assert deal + contract > 100 * max(eight, 1.0)
