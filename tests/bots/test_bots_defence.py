"""Defence: the opponent model and push or fold by expected value.

The decision problem of issue 16: late in the hand (wall 15-16), seat 1 shows
three melds of 筒 (pins) and has thrown none; the bot holds two equally good
loose tiles, 9p and 1m (same shanten, same acceptance after either).  Greedy
throws 9p (a terminal goes first); the expert throws the safe 1m.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import evaluator
from wuhan_mahjong.bots.opponents import OpponentModel
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.tiles import is_258, parse_tile, parse_tiles, tile_str

PINS = [meld("chi", "123p", 0), meld("peng", "555p", 2), meld("chi", "789p", 0)]
MIXED = [meld("chi", "123p", 0), meld("peng", "666s", 2), meld("chi", "789m", 0)]
HAND = "234m456m55s23s78s9p1m"
DISCARDS = {1: "1s9m4z7s2m3z8m", 2: "1z2z9s", 3: "3z4z1p"}


def _view(wall: int, melds: list[dict[str, object]] | None = None):  # type: ignore[no-untyped-def]
    return make_view(HAND, wall=wall, melds={1: melds} if melds else {}, discards=DISCARDS,
                     dealer=2)


@pytest.mark.parametrize("wall", [15, 16])
def test_late_against_three_melds_of_one_suit_the_safe_tile_goes(wall: int) -> None:
    view = _view(wall, PINS)
    t = SeatReading(view)
    ev = evaluator(t.hand, t.melds, t)
    nine_p, one_m = parse_tile("9p"), parse_tile("1m")
    # equally good: same shanten and the same acceptance after either discard
    assert ev.shanten_after(nine_p, -1) == ev.shanten_after(one_m, -1)
    assert (ev.with_tile(nine_p, -1).acceptance(t.unseen, t.laizi)
            == ev.with_tile(one_m, -1).acceptance(t.unseen, t.laizi))
    assert get_bot("greedy", 1).choose(view) == Discard(nine_p)
    bot = ExpertBot(1)
    assert bot.choose(view) == Discard(one_m)
    assert bot.defended == 1


@pytest.mark.parametrize("melds", [None, MIXED])
def test_without_a_threat_the_expert_plays_its_core_choice(
        melds: list[dict[str, object]] | None) -> None:
    """Nobody opened, or melds of mixed suits: no reason to deviate from 9p."""
    view = _view(15, melds)
    bot = ExpertBot(1)
    assert bot.choose(view) == Discard(parse_tile("9p")) and bot.defended == 0


def test_the_model_reads_the_suit_and_puts_the_waits_there() -> None:
    t = SeatReading(_view(15, PINS))
    model = OpponentModel(t, random.Random(3), samples=200)
    read = model.reads[1]
    assert read.can_win and read.focus == "qys1" and read.strength > 0.7
    assert read.p_ready > 0.5  # three melds, late
    pins = sum(read.waits[9:18])
    assert pins > 0.7 * sum(read.waits)
    # closed opponents cannot win on a discard: no risk from them
    assert not model.reads[2].can_win and not model.reads[3].can_win
    p_pin, cost_pin, _ = model.risk(parse_tile("9p"), 1)
    p_man, cost_man, _ = model.risk(parse_tile("1m"), 1)
    assert p_pin > 2 * p_man and cost_pin > 5 * cost_man


def test_determinisations_agree_with_what_the_opponent_showed() -> None:
    """His sampled concealed tiles are mostly pins (the unseen pool is not), and the
    kinds he discarded are drawn less often than their share of the pool."""
    t = SeatReading(_view(15, PINS))
    model = OpponentModel(t, random.Random(5), samples=10)
    focus, strength = model.focus(1)
    weights = model._weights(1, focus, strength)
    pool = [x for x in range(34) for _ in range(t.unseen[x])]
    drawn = [x for _ in range(400) for x in model._sample(pool, weights, 4)]
    share_pool = sum(1 for x in pool if 9 <= x < 18) / len(pool)
    share_drawn = sum(1 for x in drawn if 9 <= x < 18) / len(drawn)
    assert share_pool < 0.3 and share_drawn > 0.7
    nine_m = parse_tile("9m")  # he threw 9m
    assert drawn.count(nine_m) / len(drawn) < pool.count(nine_m) / len(pool)


def test_a_deal_in_costs_more_against_a_big_hand_read() -> None:
    t = SeatReading(_view(15, PINS))
    model = OpponentModel(t, random.Random(1), samples=50)
    assert model.deal_in_cost(1, parse_tile("9p")) > model.deal_in_cost(1, parse_tile("1m"))


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_no_third_meld_for_a_one_suit_hand(profile: str) -> None:
    """Two melds of pins shown: a pin he can claim as his third meld would make this
    seat contract (承包) for his 清一色; the equally good 1m goes instead."""
    two = PINS[:2]
    view = make_view(HAND, profile=profile, wall=40, melds={1: two}, discards=DISCARDS, dealer=2)
    assert get_bot("greedy", 1).choose(view) == Discard(parse_tile("9p"))
    bot = ExpertBot(1)
    assert bot.choose(view) == Discard(parse_tile("1m"))
    read = bot.model().reads[1]
    assert read.contract_suit_feed and read.fits(parse_tile("9p"))


#: a 索 (bamboo) flush one step from ready, with two loose tiles: 6p (the pin reader's
#: suit) and 5m; either keeps the flush
FLUSH = "1s2s4s5s5s6s7s7s8s8s9s9s5m6p"


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
@pytest.mark.parametrize("wall", [15, 30])
def test_defence_keeps_the_flush_it_is_building(profile: str, wall: int) -> None:
    """Against three melds of pins, the core (and greedy) throw 6p.  The safe tile is
    5m, which keeps the 索 flush; a 索 tile is as safe but breaks it.  The push-or-fold
    layer once valued every alternative with the win of the core's target (the flush),
    so breaking the flush looked free and it threw 5s; each discard now keeps the value
    of the hand it leaves."""
    view = make_view(FLUSH, wall=wall, melds={1: PINS}, discards=DISCARDS, dealer=2,
                     profile=profile)
    assert get_bot("greedy", 1).choose(view) == Discard(parse_tile("6p"))
    assert ExpertBot(1, defence=False).choose(view) == Discard(parse_tile("6p"))
    bot = ExpertBot(1)
    assert bot.choose(view) == Discard(parse_tile("5m"))
    assert bot.defended == 1


#: one step from ready; against the pin reader 4p keeps 17 tiles of acceptance, the
#: safe 2s only 11
KANCHAN = "234m456m55s23s78s46p"


@pytest.mark.parametrize("wall", [15, 16])
def test_in_laizishanzhuang_the_layer_only_makes_free_swaps(wall: int) -> None:
    """In ``laizishanzhuang`` every opened seat may win on any discard and a deal-in
    costs what the winner's self-draw would; swaps that gave up acceptance lost points
    on the tuning seeds.  So there the safe tile goes only when it is as fast: 1m over
    9p (same shanten and acceptance), but not 7s or 2s for 4p or 6p (11 tiles against 17).
    In ``yuanhang`` the layer still gives up that acceptance."""
    free = make_view(HAND, wall=wall, melds={1: PINS}, discards=DISCARDS, dealer=2,
                     profile="laizishanzhuang")
    bot = ExpertBot(1)
    assert bot.choose(free) == Discard(parse_tile("1m")) and bot.defended == 1
    costly = make_view(KANCHAN, wall=wall, melds={1: PINS}, discards=DISCARDS, dealer=2,
                       profile="laizishanzhuang")
    fast = {Discard(parse_tile("4p")), Discard(parse_tile("6p"))}  # 17 tiles either way
    assert ExpertBot(1).choose(costly) in fast
    # the layer gives up 4p's acceptance for a tile off the pin suit: 7s, which seat 1
    # threw himself (2s, as fast, is a 2/5/8 he could wait on as a single)
    safe = Discard(parse_tile("7s"))
    assert ExpertBot(1, defence_speed=0.0).choose(costly) == safe
    yuanhang = make_view(KANCHAN, wall=wall, melds={1: PINS}, discards=DISCARDS, dealer=2)
    assert ExpertBot(1).choose(yuanhang) == safe
    # the sampled reading rates every tile off the pin suit alike, and throws 2s
    assert ExpertBot(1, waits="sampled").choose(yuanhang) == Discard(parse_tile("2s"))


#: ready but closed (4p leaves the 6-8p kanchan): no win is possible before a claim opens it
CLOSED_READY = "234m567m789s22s468p"


@pytest.mark.parametrize("wall", [12, 20])
def test_a_closed_ready_hand_folds_where_an_opened_one_pushes(wall: int) -> None:
    """Against three melds of pins, late: the ready discard 4p is a live pin.  An opened
    hand pushes (its wait can win at once); a closed one must first open by a claim (no
    concealed win), so its chance is a step further and the safe tile goes.  The layer
    once rated both hands' chances alike and pushed with the closed one too."""
    closed = make_view(CLOSED_READY, wall=wall, melds={1: PINS}, discards=DISCARDS, dealer=2)
    four_p = Discard(parse_tile("4p"))
    assert get_bot("greedy", 1).choose(closed) == four_p
    assert ExpertBot(1, closed_step=0).choose(closed) == four_p
    bot = ExpertBot(1)
    choice = bot.choose(closed)
    assert isinstance(choice, Discard) and not 9 <= choice.tile < 18  # not a pin
    assert bot.defended == 1
    opened = make_view(CLOSED_READY[4:], wall=wall, melds={0: [meld("chi", "123m", 3)], 1: PINS},
                       discards=DISCARDS, dealer=2)
    assert ExpertBot(1).choose(opened) == four_p


#: three loose tiles beside two sets, a run and a pair: 6z (发), 1m and 9p
LOOSE = "234m678m77s345s6z1m9p"


@pytest.mark.parametrize("wall", [16, 24])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_honours_are_held_against_three_honour_pungs(wall: int, bot: str) -> None:
    """Seat 1 shows pungs of 东, 西 and 北 (a 风一色 read; 南 is the laizi): greedy throws the
    lone 发 first, as a lone honour goes; a reader keeps it and throws a suit tile."""
    honours = [meld("peng", "111z", 0), meld("peng", "333z", 2), meld("peng", "444z", 0)]
    view = make_view(LOOSE, wall=wall, melds={1: honours},
                     discards={1: "1s9m7s3m9p1p", 2: "9s2m", 3: "3z4z1p"}, dealer=2)
    assert get_bot("greedy", 1).choose(view) == Discard(parse_tile("6z"))
    choice = get_bot(bot, 1).choose(view)
    assert isinstance(choice, Discard) and choice.tile < 27  # a suit tile, not an honour


@pytest.mark.parametrize("wall", [16, 24])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_the_dead_tile_goes_against_three_pungs(wall: int, bot: str) -> None:
    """Seat 1 shows three pungs (a 碰碰胡 read), one of them 999p: with 4p, 8p and 9p loose,
    9p is dead (all four seen), so nothing can win on it; greedy throws 4p."""
    pungs = [meld("peng", "333m", 0), meld("peng", "666s", 2), meld("peng", "999p", 0)]
    view = make_view("234m678m77s345s4p8p9p", wall=wall, melds={1: pungs},
                     discards={1: "1s9m4z7s3z", 2: "1z9s", 3: "3z4z1p"}, dealer=2)
    assert get_bot("greedy", 1).choose(view) == Discard(parse_tile("4p"))
    assert get_bot(bot, 1).choose(view) == Discard(parse_tile("9p"))


#: seat 2 holds one tile beside four claimed melds (two chis: no 碰碰胡; mixed suits: no
#: one-suit hand): he wins on a discard only as 全求人, a big hand, whose pair must be 2/5/8
QUANQIUREN = [meld("chi", "123m", 1), meld("peng", "777s", 3), meld("chi", "456m", 1),
              meld("peng", "999p", 0)]


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
def test_a_lone_tile_beside_four_melds_waits_for_a_258_pair(profile: str) -> None:
    """全求人 is a big hand, so it passes any minimum score: he is ready whatever his factors
    (in 边锋 a small hand of his could not pass "every loser owes 8", and the model used to
    read him as hardly ready, on any tile), and only a 2/5/8 pairs his lone tile."""
    t = SeatReading(make_view("456999m27p235578s", profile=profile, indicator="9s", wall=30,
                              melds={2: QUANQIUREN}))
    model = OpponentModel(t, random.Random(1), waits="shapes")
    read = model.reads[2]
    assert read.p_ready >= 0.9
    assert read.waits[parse_tile("7p")] == 0.0 and read.waits[parse_tile("1z")] == 0.0
    assert read.waits[parse_tile("2p")] > 0.05
    assert sum(read.waits) == pytest.approx(1.0)  # exactly one kind pairs his tile
    assert model.risk(parse_tile("7p"), 1) == (0.0, 0.0, 0.0)
    p, deal, contract = model.risk(parse_tile("2p"), 1)
    assert p > 0.05 and deal > 0 and contract > 0  # not ready after it: he pays for all


def test_a_lone_tile_beside_four_pungs_pairs_with_anything() -> None:
    pungs = [meld("peng", "111m", 1), meld("peng", "777s", 3), meld("peng", "444m", 1),
             meld("peng", "999p", 0)]
    t = SeatReading(make_view("4567m23p235578s1z2z", profile="bianfeng", indicator="9s", wall=30,
                              melds={2: pungs}))
    read = OpponentModel(t, random.Random(1), waits="shapes").reads[2]
    assert read.waits[parse_tile("7p")] > 0.0 and read.waits[parse_tile("1z")] > 0.0


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize(("hand", "safe"), [("456999m27p235578s", "7p"),
                                            ("235678m234556p24s", "6p")])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_no_258_tile_into_a_quanqiuren(profile: str, hand: str, safe: str, bot: str) -> None:
    """Against a 全求人, a 2/5/8 deals in (and, not ready, this seat pays all three shares);
    any other tile is safe.  Greedy throws the 2/5/8 (2p, 8m: its best acceptance); the
    readers throw the equally fast safe tile.  In 边锋 they used to throw a 2/5/8."""
    view = make_view(hand, profile=profile, indicator="9s", wall=30, melds={2: QUANQIUREN})
    greedy = get_bot("greedy", 1).choose(view)
    assert isinstance(greedy, Discard) and is_258(greedy.tile)
    assert get_bot(bot, 1).choose(view) == Discard(parse_tile(safe))


#: closed, and ready in shape once 5p goes (234m 678m 345s 22s, 79s waiting on 8s)
CLOSED_SHAPE_READY = "234m678m22s345s79s5p"


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize("bot", ["expert", "search"])
@pytest.mark.parametrize("wall", [16, 50])
def test_a_closed_hand_ready_in_shape_pays_for_a_quanqiuren(profile: str, bot: str,
                                                             wall: int) -> None:
    """Throwing 5p makes the hand ready in shape, but a closed hand has no legal win, so it
    is not ready as contracting reads it (Project decision 16): dealing into the 全求人
    makes this seat pay all three shares in every profile (a 2/5/8 in 远航, not ready in
    边锋 and 赖子山庄).  The bots once read "ready" as a shape and threw 5p in
    赖子山庄; elsewhere they held it but broke the hand at 3m, the first of the
    equally safe tiles, where 9s keeps the most tiles (the fold now keeps the fastest)."""
    view = make_view(CLOSED_SHAPE_READY, profile=profile, indicator="9s", wall=wall,
                     melds={2: QUANQIUREN})
    t = SeatReading(view)
    five_p = parse_tile("5p")
    assert evaluator(t.hand, t.melds, t).shanten_after(five_p, -1) == 0
    assert not t.ready_after(five_p)
    assert get_bot("greedy", 1).choose(view) == Discard(five_p)
    assert get_bot(bot, 1).choose(view) == Discard(parse_tile("9s"))


def test_an_opened_ready_hand_is_not_liable_for_a_quanqiuren() -> None:
    """The same hand opened (678m claimed) and ready on 8s with its 2/5/8 pair: ready as
    contracting reads it, so in 赖子山庄 5p costs only this seat's share, and its
    push-or-fold layer (free swaps only there) keeps the ready discard."""
    view = make_view("234m22s345s79s5p", profile="laizishanzhuang", indicator="9s", wall=30,
                     melds={2: QUANQIUREN, 0: [meld("chi", "678m", 3)]})
    t = SeatReading(view)
    five_p = parse_tile("5p")
    assert t.ready_after(five_p)
    assert OpponentModel(t, random.Random(1), waits="shapes").risk(five_p, 0)[2] == 0.0
    assert ExpertBot(1).choose(view) == Discard(five_p)


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize("wall", [16, 50])
def test_no_third_meld_for_a_one_suit_hand_even_at_a_step(profile: str, wall: int) -> None:
    """Two melds of pins shown by the next seat, who may chi or peng a pin as his third
    meld, making this seat contract for his 清一色 in every profile.  The loose 5p makes
    the hand ready in shape (closed); the bots hold it and throw 9s, a step slower.  In
    赖子山庄 the push-or-fold layer made only free swaps (a deal-in there costs what a
    self-draw would), and so fed the pin; a contract costs all three shares, so a swap
    that avoids one may give up speed there too (``contract_swaps``)."""
    view = make_view("234m678m11s345s79s5p", profile=profile, indicator="9s", wall=wall,
                     melds={1: PINS[:2]}, discards=DISCARDS, dealer=2)
    assert get_bot("greedy", 1).choose(view) == Discard(parse_tile("5p"))
    assert ExpertBot(1).choose(view) == Discard(parse_tile("9s"))
    assert get_bot("search", 1).choose(view) == Discard(parse_tile("9s"))
    if profile == "laizishanzhuang":
        assert ExpertBot(1, contract_swaps=False).choose(view) == Discard(parse_tile("5p"))


@pytest.mark.parametrize("wall", [20, 24])
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_search_also_folds_the_closed_ready_hand(wall: int, seed: int) -> None:
    """The search bot once overrode the expert's fold here on most seeds: its play-outs
    dealt in at random on later turns, which made keeping the hand look cheap.  With the
    fast policy's safe tie-break it folds on every seed."""
    closed = make_view(CLOSED_READY, wall=wall, melds={1: PINS}, discards=DISCARDS, dealer=2)
    choice = get_bot("search", seed).choose(closed)
    assert isinstance(choice, Discard) and not 9 <= choice.tile < 18  # not a pin


#: far (two steps after 6p, closed, so a claim is needed before any win) and late
FAR_CLOSED = "13m57m2s4s6s8s8s4z4z3z3z6p"


@pytest.mark.parametrize("wall", [8, 14])
def test_a_hand_that_will_hardly_win_folds_in_laizishanzhuang_too(wall: int) -> None:
    """赖子山庄 keeps the layer to free swaps (above), but a hand with no real chance of
    winning has no speed to keep: against three melds of 筒 it holds the isolated 6p and
    throws a tile off the suit (``fold_floor``: its chance after 6p is 0.1% at wall 8 and
    0.8% at wall 14, under the 2% floor; the one-step kanchan hand above, at 3%, still
    makes only free swaps), where greedy throws the 6p."""
    view = make_view(FAR_CLOSED, wall=wall, melds={1: PINS}, dealer=2, indicator="9m",
                     profile="laizishanzhuang",
                     discards={1: "1s9m1z7s2m3z8m", 2: "2z9s", 3: "1p"})
    assert get_bot("greedy", 1).choose(view) == Discard(parse_tile("6p"))
    bot = ExpertBot(1)
    choice = bot.choose(view)
    assert isinstance(choice, Discard) and choice.tile // 9 != 1 and bot.defended == 1
    assert ExpertBot(1, fold_floor=0.0).choose(view) == Discard(parse_tile("6p"))


JIANG_PENGS = [meld("peng", "222m", 2), meld("peng", "555p", 3), meld("peng", "888s", 2)]


@pytest.mark.parametrize("wall", [12, 30])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_no_258_tile_against_three_258_pungs(wall: int, bot: str) -> None:
    """Seat 1 shows pungs of 2m, 5p and 8s: 将一色 wins on any 2/5/8 he pairs or sets.  The
    bot holds two loose man tiles, 8m and 3m, beside 123p (claimed), 456p, 78p, 55s and 68s,
    a step from ready either way: with no threat the expert keeps the 3m (8m goes); against
    the 将一色 read it keeps the 8m and throws the 3m, which no 将一色 hand can use."""
    def view(melds: dict[int, list[dict[str, Any]]]) -> SeatView:
        return make_view("456p78p55s68s3m8m", wall=wall, dealer=2,
                         melds={0: [meld("chi", "123p", 3)], **melds},
                         discards={1: "1z9p4z3m", 2: "1z2z9s", 3: "3z4z1p"})

    assert get_bot("expert", 1).choose(view({})) == Discard(parse_tile("8m"))
    assert get_bot(bot, 1).choose(view({1: JIANG_PENGS})) == Discard(parse_tile("3m"))


HONOUR_PENGS = [meld("peng", "111z", 1), meld("peng", "333z", 3), meld("peng", "444z", 1)]


def _family_view(profile: str, wall: int, pengs: list[dict[str, Any]], hand: str,
                 discards: str) -> SeatView:
    """Seat 2 shows three pungs of one family (风一色 or 将一色) and has thrown only other
    tiles; this seat, opened, holds a lone family tile whose discard makes it ready."""
    return make_view(hand, profile=profile, indicator="9s", wall=wall,
                     melds={0: [meld("chi", "123m", 3)], 2: pengs},
                     discards={2: discards, 1: "7m8m", 3: "1p2s"})


#: :func:`_family_view`'s two positions by family read: (seat 2's pungs, this seat's hand,
#: seat 2's river); the hand's lone family tile makes it ready, and a tile of
#: :data:`FAMILY_SAFE` keeps it a step away
FAMILY_POSITIONS: dict[str, tuple[list[dict[str, Any]], str, str]] = {
    "fengyise": (HONOUR_PENGS, "456p789s55m67s2z", "1m5p9s2p"),
    "jiangyise": (JIANG_PENGS, "456p789s55m67s8p", "1m4p9s3p6m")}
FAMILY_SAFE = ("6s", "7s", "9s")


def test_a_family_read_waits_on_every_kind_of_the_family() -> None:
    """风一色 and 将一色 need no sets (乱风, 乱将; RULES §10): a ready 风一色 hand is nothing
    but honours, so any honour completes it, not the two kinds or so a shape waits on.  So
    every unseen honour carries at least the read's strength, and the suit tiles stay low."""
    for pengs, hand, thrown, family in (
            (HONOUR_PENGS, "456p789s55m67s2z", "1m5p9s2p", "2z5z6z"),
            (JIANG_PENGS, "456p789s55m67s8p", "1m4p9s3p6m", "8p5m2p")):
        t = SeatReading(_family_view("yuanhang", 20, pengs, hand, thrown))
        read = OpponentModel(t, random.Random(1), waits="shapes").reads[2]
        assert read.focus in ("fys", "jys") and read.strength >= 0.8
        for kind in parse_tiles(family):
            assert read.waits[kind] >= read.strength
        assert read.waits[parse_tile("7s")] < 0.1 and read.waits[parse_tile("1m")] < 0.1


def test_one_honour_pung_is_no_family_read() -> None:
    """Beside one 东 pung his ready hand would need ten concealed honours: the honours keep
    their shape reading (a pair or a single of each), far below a 风一色 read's."""
    t = SeatReading(_family_view("yuanhang", 20, HONOUR_PENGS[:1], "456p789s55m67s2z",
                                 "1m5p9s2p"))
    read = OpponentModel(t, random.Random(1), waits="shapes").reads[2]
    assert read.focus == "fys" and read.strength < 0.5
    assert all(read.waits[kind] < 0.2 for kind in parse_tiles("2z5z6z"))


@pytest.mark.parametrize(("profile", "wall"), [("yuanhang", 20), ("bianfeng", 40)])
@pytest.mark.parametrize("bot", ["expert", "search"])
@pytest.mark.parametrize(("family", "lone"), [("fengyise", "2z"), ("jiangyise", "8p")],
                         ids=["fengyise", "jiangyise"])
def test_the_family_tile_is_held_even_when_it_would_make_the_hand_ready(
        profile: str, wall: int, bot: str, family: str, lone: str) -> None:
    """Throwing the lone 南 (or 8p) would leave 456p-789s-55m-67s waiting on 5s/8s, and
    greedy throws it; but against three pungs of the family a strong player knows that
    tile completes the family hand whatever else he holds, and breaks his own hand with
    a tile of 789s or 67s, which no 风一色 or 将一色 can use.  (Before the family reading,
    the expert pushed 南 and 8p here: the shapes gave each honour kind about a third.)"""
    view = _family_view(profile, wall, *FAMILY_POSITIONS[family])
    assert get_bot("greedy", 1).choose(view) == Discard(parse_tile(lone))
    choice = get_bot(bot, 1).choose(view)
    assert isinstance(choice, Discard) and tile_str(choice.tile) in FAMILY_SAFE


#: three honour pungs (东, 西, 北) and three 2/5/8 pungs: the family reads of seat 1
THREE_HONOUR_PENGS = [meld("peng", "111z", 3), meld("peng", "333z", 2), meld("peng", "444z", 3)]
THREE_JIANG_PENGS = [meld("peng", "222m", 3), meld("peng", "888s", 2), meld("peng", "555s", 3)]


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_a_dead_honour_still_completes_a_fengyise(profile: str, bot: str) -> None:
    """Every other copy of this seat's lone 发 (中 in 赖子山庄, where 发 must be konged) is
    in the discards, so no shape can wait on it: but a ready 风一色 needs no shape (乱风,
    RULES §10) and wins on any honour, the last copy included.  The reader used to count
    only kinds with an unseen copy as family waits, and threw the dead honour; the safe
    tiles are the lone 1m and 9p, which no 风一色 can use."""
    honour = "5z" if profile == "laizishanzhuang" else "6z"
    view = make_view(f"234m678m77s345s{honour}1m9p", profile=profile, indicator="9s", wall=16,
                     dealer=2, melds={1: THREE_HONOUR_PENGS},
                     discards={0: "9m1s7m3p", 1: "1s9m7s3m9p1p7p2s",
                               2: f"9s2m{honour}{honour}1m7s", 3: f"{honour}4z1p3m9s"})
    t = SeatReading(view)
    assert t.unseen[parse_tile(honour)] == 0
    read = OpponentModel(t, random.Random(1), waits="shapes").reads[1]
    assert read.focus == "fys" and read.waits[parse_tile(honour)] >= read.strength >= 0.8
    assert get_bot("greedy", 1).choose(view) == Discard(parse_tile(honour))
    assert get_bot(bot, 1).choose(view) in (Discard(parse_tile("1m")), Discard(parse_tile("9p")))


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_a_dead_258_still_completes_a_jiangyise(profile: str, bot: str) -> None:
    """As above with three 2/5/8 pungs and this seat's 8p the last copy: a ready 将一色
    (乱将) wins on it.  (In 赖子山庄 the core's speed is kept: tests above.)"""
    view = make_view("456s789s55m1m9m8p", profile=profile, indicator="9s", wall=16, dealer=2,
                     melds={0: [meld("chi", "123p", 3)], 1: THREE_JIANG_PENGS},
                     discards={0: "1z4z3s", 1: "1z9p4z3p6p7m3m", 2: "1z8p9s8p6p9p7p",
                               3: "8p4z7p7p9p6p"})
    assert SeatReading(view).unseen[parse_tile("8p")] == 0
    assert get_bot("greedy", 1).choose(view) == Discard(parse_tile("8p"))
    assert get_bot(bot, 1).choose(view) in (Discard(parse_tile("1m")), Discard(parse_tile("9m")))


#: seat 2 holds one tile beside four pungs of one family
FOUR_HONOUR_PENGS = [meld("peng", "111z", 1), meld("peng", "222z", 3), meld("peng", "333z", 1),
                     meld("peng", "444z", 0)]
FOUR_JIANG_PENGS = [meld("peng", "222m", 1), meld("peng", "555p", 3), meld("peng", "888s", 1),
                    meld("peng", "555m", 0)]


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize("bot", ["expert", "search"])
@pytest.mark.parametrize(("pengs", "hand", "discards", "family_tile"), [
    (FOUR_HONOUR_PENGS, "678m55s79s34p5z9m", {0: "1m9m", 1: "5z9m", 2: "7m3m", 3: "5z9m5z"}, "5z"),
    (FOUR_JIANG_PENGS, "789s23m34p55s8p9m", {0: "1m9m", 1: "8p9m", 2: "7m3m", 3: "8p9m8p"}, "8p"),
], ids=["fengyise", "jiangyise"])
def test_a_quanqiuren_of_one_family_wins_on_any_tile_of_it(
        profile: str, bot: str, pengs: list[dict[str, Any]], hand: str,
        discards: dict[int, str], family_tile: str) -> None:
    """Beside four honour pungs (or four 2/5/8 pungs) a lone honour (2/5/8) is ready for
    风一色 (将一色) on any tile of the family, no pair needed, so this seat's last 白 (8p) is
    the most dangerous tile it holds although nobody can pair it; the 9m is as dead, and
    only a lone 9m could pair it.  The model used to give each kind only
    its chance of pairing the lone tile, and the readers threw the dead family tile."""
    view = make_view(hand, profile=profile, indicator="9s", wall=30, dealer=1,
                     melds={0: [meld("chi", "234p", 3)], 2: pengs}, discards=discards)
    t = SeatReading(view)
    kind = parse_tile(family_tile)
    assert t.unseen[kind] == 0 and t.unseen[parse_tile("9m")] == 0
    read = OpponentModel(t, random.Random(1), waits="shapes").reads[2]
    family = [x for x in range(34) if (x >= 27 if family_tile == "5z" else is_258(x))
              and x != t.laizi and x not in t.must]
    assert len({read.waits[x] for x in family}) == 1  # every family kind alike
    # the family tile is the likeliest win of all (his lone tile is likelier kept of it)
    assert read.waits[kind] > max(w for x, w in enumerate(read.waits) if x not in family)
    assert get_bot(bot, 1).choose(view) == Discard(parse_tile("9m"))
