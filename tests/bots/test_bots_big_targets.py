"""A discard that keeps several big hands open at once.

Four honour pairs, a lone 白 (5z) and five isolated suited tiles are as far from 碰碰胡
as from 风一色 (both need no runs, RULES §10.2, §11) and from a small hand.  Throwing a
suited tile keeps all three at that distance; throwing the 白 gives up 风一色 (worth two
big hands in ``yuanhang`` and ``bianfeng``, Project decision 10) and gains nothing.  The
expert once ranked each discard by the tiles of one big target, the first in name order
(风一色's honours for a suited discard, 碰碰胡's pairs for the 白's), so it threw the 白.
"""

from __future__ import annotations

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import evaluator
from wuhan_mahjong.bots.handeval import Evaluator, hand_counts
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.tiles import NUM_KINDS, is_honour, parse_tile, parse_tiles

FOUR_PAIRS = "1z1z2z2z3z3z4z4z5z9p9s1m8s2m"  # 东南西北 pairs, a lone 白, five suited tiles
WHITE = parse_tile("5z")


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_the_lone_honour_stays_beside_four_honour_pairs(profile: str, bot: str) -> None:
    view = make_view(FOUR_PAIRS, profile=profile, indicator="9s")  # laizi 1s: none held
    action = get_bot(bot, 1).choose(view)
    assert isinstance(action, Discard) and not is_honour(action.tile), action
    t = SeatReading(view)
    ev = evaluator(t.hand, t.melds, t)
    kept = ev.shanten_after(action.tile, -1)
    assert ev.shanten_after(action.tile, -1, "fys") == ev.shanten_after(action.tile, -1, "pph") == kept


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
def test_the_name_order_aim_threw_the_white(profile: str) -> None:
    """The fault itself: one target per discard, chosen by name, throws the 白."""
    view = make_view(FOUR_PAIRS, profile=profile, indicator="9s")
    assert ExpertBot(1, aim_union=False, aim_small=False).choose(view) == Discard(WHITE)
    assert ExpertBot(1).choose(view) != Discard(WHITE)


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_with_a_laizi_held_the_suited_tile_goes_too(profile: str) -> None:
    """东东 南(laizi) 西西 北北 发发 白 and four suited tiles: the same choice with a wild."""
    view = make_view("1z1z2z3z3z4z4z6z6z5z9p9s1m8s", profile=profile, indicator="1z")
    assert ExpertBot(1, aim_union=False, aim_small=False).choose(view) == Discard(WHITE)
    action = ExpertBot(1).choose(view)
    assert isinstance(action, Discard) and not is_honour(action.tile), action


HANDS = ["1z1z2z2z3z3z4z4z5z9p9s1m8s", "2m2m5p5p8s8s2s5m8p9p3s4m7m", "1112345678999m",
         "1z1z1z2z2z3z4z6z9p9p9p5s5s"]


@pytest.mark.parametrize("hand", HANDS)
def test_acceptance_any_is_the_union_of_each_targets_tiles(hand: str) -> None:
    laizi = parse_tile("1s")
    counts, wilds = hand_counts(parse_tiles(hand), laizi)
    ev = Evaluator(counts, wilds, [], [parse_tile("7z")])
    unseen = [4 - counts[k] for k in range(NUM_KINDS)]
    targets = [tg for tg in ev.allowed if tg != "small"]
    for tg in targets:
        assert ev.acceptance_any(unseen, laizi, [tg]) == ev.acceptance(unseen, laizi, target=tg)
    helped = {k for k in range(NUM_KINDS) if unseen[k] and k != parse_tile("7z") and (
        k == laizi or any(ev.shanten_after(k, 1, tg) < ev.shanten(tg) for tg in targets))}
    total, kinds = ev.acceptance_any(unseen, laizi, targets)
    assert kinds == len(helped)
    assert total == sum(unseen[k] for k in helped)
    assert total >= max(ev.acceptance(unseen, laizi, target=tg)[0] for tg in targets)


TWO_HONOUR_PENGS = {0: [meld("peng", "111z", 2), meld("peng", "333z", 1)]}


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_a_suited_single_goes_before_the_honour_single(profile: str, bot: str) -> None:
    """东 and 西 punged, 北北 白白 2m2m, single 南 and 5p: 碰碰胡 is as close whichever
    single goes, and so is the small hand, with the same tiles.  Only 风一色 tells them
    apart: throwing the suited single keeps it a step closer than throwing the 南."""
    view = make_view("4z4z5z5z2z2m2m5p", profile=profile, indicator="9s",
                     melds=TWO_HONOUR_PENGS)
    assert get_bot(bot, 1).choose(view) == Discard(parse_tile("5p"))
    assert ExpertBot(1, near_targets=False).choose(view) == Discard(parse_tile("2z"))


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_a_far_big_target_does_not_outweigh_the_small_hands_tiles(profile: str,
                                                                    bot: str) -> None:
    """Six steps from a small hand and from 碰碰胡 (one pair, 77s, and a wild): throwing
    the 9s gives 碰碰胡 one more tile (34 against 33) and the small hand three fewer
    (95 against 98).  A lone honour goes, keeping both routes' tiles (``aim_small``)."""
    view = make_view("16m269p57779s1256z", profile=profile, indicator="9s")  # laizi 1s
    action = get_bot(bot, 1).choose(view)
    assert isinstance(action, Discard) and is_honour(action.tile), action
    assert ExpertBot(1, aim_small=False).choose(view) == Discard(parse_tile("9s"))


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_the_discard_that_keeps_every_route_closest(profile: str) -> None:
    """66m 4p 8p, a wild (1s), 东东 西 北 白白 发发发: 碰碰胡 is two steps away after the
    4p, the 8p, the 西 or the 北, with the same tiles.  The 4p also keeps the small hand
    two steps away (the 8p pairs with the wild as its 2/5/8) and 风一色 three; the 8p
    costs the small hand a step, the 西 or 北 costs 风一色 one."""
    view = make_view("66m48p1s113455666z", profile=profile, indicator="9s")
    assert get_bot("expert", 1).choose(view) == Discard(parse_tile("4p"))
    assert get_bot("search", 1).choose(view) == Discard(parse_tile("4p"))
    off = ExpertBot(1, near_targets=False).choose(view)
    assert off != Discard(parse_tile("4p")), off


@pytest.mark.parametrize(("hand", "melds", "small", "big"), [
    # 333m 555m 444z beside 444p: throw 5m for a small kanchan on 6s (four), or 5s / 7s
    # for a 碰碰胡 single on 7s / 5s (three)
    ("333m555m5s7s444z", [meld("peng", "444p", 2)], "5m", ("5s", "7s")),
    # 222m 444m 55m 3p 44p beside 222p: throw 4p for 2p/5p (a small hand), or 3p for the
    # 碰碰胡 shanpon on 5m and 4p
    ("2m2m2m4m4m4m5m5m3p4p4p", [meld("peng", "222p", 2)], "4p", ("3p",)),
], ids=["pph-single", "pph-shanpon"])
def test_a_ready_big_hand_over_a_slightly_wider_small_one(
        hand: str, melds: list[dict[str, object]], small: str, big: tuple[str, ...]) -> None:
    """赖子山庄 ranks the discards without the settlement's value of waits (off there): by
    tiles, a small hand's wait on one tile more won.  ``ready_big`` (on since 5 December
    2026) counts each winning tile by the win it keeps (a big target's 1.5 typical wins),
    as a strong player would; the expert and the search bot once took the small hand."""
    view = make_view(hand, profile="laizishanzhuang", indicator="1z", melds={0: melds})
    assert ExpertBot(1, ready_big=False).choose(view) == Discard(parse_tile(small))  # off
    for bot in ("expert", "search"):
        choice = get_bot(bot, 1).choose(view)
        assert choice in [Discard(parse_tile(x)) for x in big], (bot, choice)
