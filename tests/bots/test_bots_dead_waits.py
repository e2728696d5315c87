"""A ready hand whose every winning tile is in sight is no ready hand.

Shanten counts shapes, not tiles: 456p 789s 55m 13s beside a chi is ready on 2s, and with
all four 2s discarded it can win only on a drawn laizi (a soft win, which in 远航 fails the
minimum score here).  The bots used to keep such a hand (throwing the 9p that makes it)
and to kong into one (a concealed 6p kong leaving 345p and a single 7p whose other copies
are melded and discarded).  :func:`~wuhan_mahjong.bots.greedy.live_shanten` counts it a
step away, and :func:`~wuhan_mahjong.bots.greedy.revive_acceptance` ranks it among the
hands a step away by the tiles that make it ready on live ones.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.greedy import evaluator, has_live_win, live_shanten, revive_acceptance
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine.actions import PASS, Discard
from wuhan_mahjong.tiles import parse_tile

BOTS = ["greedy", "expert", "search"]
OPENED = {0: [meld("chi", "123m", 3)]}
ALL_2S_GONE = {1: "2s2s", 2: "2s", 3: "2s"}


def _dead_kanchan(profile: str = "yuanhang") -> Any:
    return make_view("456p789s55m13s9p", profile=profile, indicator="9p", melds=OPENED,
                     discards=ALL_2S_GONE)


def test_live_shanten_counts_a_dead_ready_hand_a_step_away() -> None:
    t = SeatReading(_dead_kanchan())
    ev = evaluator(t.hand, t.melds, t)
    nine_p, one_s = parse_tile("9p"), parse_tile("1s")
    assert t.unseen[parse_tile("2s")] == 0
    assert ev.shanten_after(nine_p, -1) == 0  # ready in shape, on 2s
    assert not has_live_win(ev.with_tile(nine_p, -1), t)
    assert live_shanten(ev, t, nine_p) == 1 == live_shanten(ev, t, one_s)
    # its acceptance counts the tiles that make it ready on live ones: 1s/3s (a pair: 5m
    # 1s shanpon), 4s and 5s (3s-4s, 3s-5s), and the unseen laizi; never every tile
    revived = revive_acceptance(ev.with_tile(nine_p, -1), t)
    plain, _ = ev.with_tile(nine_p, -1).acceptance(t.unseen, t.laizi, current=1)
    assert 0 < revived < plain
    # a live wait is left alone
    live = SeatReading(make_view("456p789s55m13s9p", indicator="9p", melds=OPENED))
    ev_live = evaluator(live.hand, live.melds, live)
    assert live_shanten(ev_live, live, nine_p) == 0


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
@pytest.mark.parametrize("bot", BOTS)
def test_the_dead_kanchan_is_broken(profile: str, bot: str) -> None:
    """Throw 1s or 3s (keep 9p and 55m, a step from a live ready hand), not the 9p that
    leaves the dead 13s kanchan."""
    choice = get_bot(bot, 1).choose(_dead_kanchan(profile))
    assert choice in (Discard(parse_tile("1s")), Discard(parse_tile("3s")))


#: every loser's payments near the cap in 远航 (as in tests/bots/test_bots_caps.py)
OPP = {1: [meld("chi", "789m", 0), meld("peng", "444s", 3)],
       2: [meld("chi", "234m", 1), meld("peng", "666s", 1)],
       3: [meld("peng", "111z", 2), meld("peng", "333z", 1)]}
RIVERS = {0: "8m>1 1m2m9m", 1: "9p>0 3m>2 6s>2 3z>3 9m 2z 5z 1m", 2: "7p>0 1z>3 5z 2s 3s 7z",
          3: "2p>0 4s>1 4z 5z 7s 8s"}
PIN_MELDS = [meld("chi", "123p", 3), meld("peng", "777p", 2)]
CONCEALED_6P = {"type": "kong", "kind": "concealed", "tile": "6p"}


@pytest.mark.parametrize("crowded", [True, False], ids=["capped", "uncapped"])
@pytest.mark.parametrize("bot", BOTS)
def test_no_concealed_kong_into_a_dead_wait(crowded: bool, bot: str) -> None:
    """34566667p beside 123p and 777p (清一色): the 6p kong leaves 345p and a single 7p,
    the last 7p being the discarded one, so the kong kills the hand's wait; throwing 3p
    (456p 666p 67p: 5p/8p) or 6p keeps it ready on live tiles."""
    view = make_view("34566667p", indicator="9s", wall=40,
                     melds={**(OPP if crowded else {}), 0: PIN_MELDS},
                     discards=RIVERS if crowded else {3: "2p>0", 2: "7p>0"},
                     extra_actions=[CONCEALED_6P])
    assert SeatReading(view).unseen[parse_tile("7p")] == 0
    assert get_bot(bot, 1).choose(view) in (Discard(parse_tile("3p")), Discard(parse_tile("6p")))


@pytest.mark.parametrize("bot", BOTS)
def test_no_direct_kong_into_a_dead_wait(bot: str) -> None:
    """The same with the fourth 6p discarded: the kong (冲杠) would leave the dead 7p
    single; the peng a hand no closer.  Pass."""
    view = make_view("3456667p", indicator="9s", wall=40, melds={**OPP, 0: PIN_MELDS},
                     discards=RIVERS, claim=("6p", 2),
                     actions=[{"type": "peng", "tile": "6p"},
                              {"type": "kong", "kind": "direct", "tile": "6p"}, {"type": "pass"}])
    assert get_bot(bot, 1).choose(view) == PASS


def test_the_option_off_plays_as_before() -> None:
    """``live_waits`` off (greedy's class attribute, the expert's option): the plain shanten,
    and the 9p that leaves the dead kanchan goes, as it did (the ablation of docs/bots-log.md)."""
    from wuhan_mahjong.bots.expert import ExpertBot
    from wuhan_mahjong.bots.greedy import GreedyBot

    greedy = GreedyBot(1)
    greedy.live_waits = False
    assert greedy.choose(_dead_kanchan()) == Discard(parse_tile("9p"))
    assert ExpertBot(1, live_waits=False).choose(_dead_kanchan()) == Discard(parse_tile("9p"))


#: 23345666p beside 123p and 555p, the fourth 5p in hand: the added kong of 5p leaves
#: 2334666p, waiting on the one unseen 3p; throwing 3p leaves 2345666p on 4p and 7p
NARROWING_KONG = {"hand": "23345666p",
                  "melds": {0: [meld("chi", "123p", 3), meld("peng", "555p", 2)]},
                  "discards": {3: "2p>0 1z", 2: "5p>0 2z", 1: "9m"},
                  "extra_actions": [{"type": "kong", "kind": "added", "tile": "5p"}]}


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize("bot", ["greedy", "expert", "search"])
def test_no_kong_that_narrows_a_ready_hand_to_one_tile(profile: str, bot: str) -> None:
    """The expert weighs a ready hand's waits (the kong's factor in the value of each win,
    the replacement draw as one more draw), and greedy, and the expert where the waits'
    value is off (赖子山庄), count the winning tiles times the kong's factor
    (``GreedyBot.kong_keeps_waits``): one 3p (×2) against seven 4p and 7p of the same
    清一色 is not worth the kong.  Greedy once made every kong that costs no step, and
    so did the expert in 赖子山庄."""
    from wuhan_mahjong.bots.expert import ExpertBot
    from wuhan_mahjong.bots.greedy import GreedyBot
    from wuhan_mahjong.engine.actions import Kong

    view = make_view(NARROWING_KONG["hand"], profile=profile, indicator="9s",
                     melds=NARROWING_KONG["melds"], discards=NARROWING_KONG["discards"],
                     extra_actions=NARROWING_KONG["extra_actions"])
    t = SeatReading(view)
    assert t.unseen[parse_tile("3p")] == 1 and t.unseen[parse_tile("7p")] == 4
    kong = Kong("added", parse_tile("5p"))
    old = GreedyBot(1)
    old.kong_waits = False  # the ablation: every kong that costs no step
    assert old.choose(view) == kong
    assert ExpertBot(1, kong_value=False).choose(view) == kong  # the option off
    assert get_bot(bot, 1).choose(view) == Discard(parse_tile("3p"))


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_a_kong_that_keeps_the_waits_is_made(profile: str) -> None:
    """456p 9999s 55m 78s beside 123m: the concealed 9s kong keeps the 6s wait (the 9s side
    is dead either way, this seat holding all four) and adds its ×4: made."""
    from wuhan_mahjong.engine.actions import Kong

    view = make_view("456p9999s55m78s", profile=profile, indicator="1z", melds=OPENED,
                     extra_actions=[{"type": "kong", "kind": "concealed", "tile": "9s"}])
    for bot in ("greedy", "expert"):
        assert get_bot(bot, 1).choose(view) == Kong("concealed", parse_tile("9s"))
