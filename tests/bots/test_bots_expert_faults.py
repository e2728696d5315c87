"""The two expert faults of issue 16, each on a concrete hand.

* A closed hand's waits were all worth 0 (the settlement says "not opened"), so
  the expert dropped tile acceptance: ready on a 3p/5m shanpon where only 3p wins
  (5m would leave 33p as the pair, not 2/5/8), it kept 2 winning tiles instead of
  cutting to the 8-tile 2p/5p wait.
* It kept a lone laizi when only the laizi kong could reach the minimum score,
  so none of its waits could ever be won.
"""

from __future__ import annotations

from handmade import make_view, meld

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine.actions import Discard, SpecialKong
from wuhan_mahjong.tiles import parse_tile, parse_tiles

SHANPON = "123m456m789s33p55m4p"  # closed; 4p out: 33p/55m shanpon, 3p out: 34p + 55m


def test_closed_ready_hand_cuts_to_the_wide_wait() -> None:
    view = make_view(SHANPON)  # non-dealer, nothing discarded: 3p 2 unseen, 2p/5p 8
    assert ExpertBot(1).choose(view) == Discard(parse_tile("3p"))
    assert get_bot("greedy", 1).choose(view) == Discard(parse_tile("3p"))


def test_closed_waits_are_valued_as_if_opened_later() -> None:
    """With two 红中 kongs (×4) a small hand passes the minimum once it opens: the
    closed shanpon's 3p wait is worth something, its 5m wait (pair 33p) nothing."""
    view = make_view(SHANPON, red_kongs={0: 2})
    bot = ExpertBot(1)
    bot.choose(view)
    hand13 = parse_tiles(SHANPON)
    hand13.remove(parse_tile("4p"))
    assert bot.win_value(hand13, parse_tile("3p"), []) > 0
    assert bot.win_value(hand13, parse_tile("5m"), []) == 0
    assert bot.choose(view) == Discard(parse_tile("3p"))


LAIZI_ACTIONS = ([{"type": "discard", "tile": x} for x in ("4m", "5m", "6m", "7s", "8s", "9s",
                                                            "6p", "1z")]
                 + [{"type": "special_kong", "kind": "laizi"}])


def test_lone_laizi_is_konged_when_only_its_kong_reaches_the_minimum() -> None:
    # yuanhang, non-dealer, one chi: ready with the laizi (2z) as a wild after 1z goes,
    # but a soft small hand owes at most 2 x 2 x 2 (dealer) = 8 < 20; the laizi kong
    # (x4) and a hard win would pass
    view = make_view("456m789s55m6p1z2z", melds={0: [meld("chi", "123p", 3)]},
                     actions=LAIZI_ACTIONS)
    assert view["laizi"] == "2z"
    bot = ExpertBot(1)
    assert bot.lone_laizi_blocks(SeatReading(view))
    assert bot.choose(view) == SpecialKong("laizi")


def test_lone_laizi_is_kept_when_its_waits_can_be_won() -> None:
    # the same hand with two 红中 kongs (x4): its soft wins pass the minimum, so the
    # laizi stays a wild (the arena measured the wild's speed worth more than x4)
    view = make_view("456m789s55m6p1z2z", melds={0: [meld("chi", "123p", 3)]},
                     actions=LAIZI_ACTIONS, red_kongs={0: 2})
    bot = ExpertBot(1)
    assert not bot.lone_laizi_blocks(SeatReading(view))
    assert bot.choose(view) == Discard(parse_tile("1z"))
