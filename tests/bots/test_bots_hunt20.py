"""Decision problems of the twentieth hunt (6 December 2026): the seat's own big hands
(清一色, 碰碰胡, 将一色, 风一色, 全求人) in the middle of the hand, walls of about 30 to
70.  Each position has one answer the rules settle, checked by the analysis
(:func:`wuhan_mahjong.analysis.waits`) and the settlement
(:func:`wuhan_mahjong.scoring.settle`, a win that fails the minimum score counted as
nothing, Project decision 14), not by the bots, and is asked of the bots it concerns in
every profile where the answer is the same.

The fault it found (the test fails on the code before the fix it names):

* Opened once by a chi of 123p, holding 3456789p 22p 67m at a wall of 50 or 30 in
  ``yuanhang`` or ``bianfeng``: the 9p (or the 3p) leaves a small hand ready on 5m/8m
  whose every win the minimum score refuses (one opening, no kong: 0 from every loser by
  the settlement), the 6m or the 7m a 清一色 a step away on every pin (24 unseen), whose
  win collects 180 self-drawn and 140 on any discard.  The expert and the search bot
  threw the 9p: a ready discard went first whatever its waits were worth.  A ready hand
  that wins nothing now counts a step away where a big target is a step away on live
  tiles (``ExpertBot.refused_ready``).
* Opened by a peng of 222m, holding 555p 888s 22s 567m with two 4m in sight (same
  profiles and walls): every discard leaves a small hand ready whose wins are all refused;
  the expert ranked them by the tiles that complete the shape and threw the 5m (5m/8m,
  seven tiles), putting the 将一色 two steps away, where the 6m or the 7m keeps it a step
  from ready on any 2/5/8 (180 self-drawn, 140 on a discard).  Of such discards, the one
  whose big targets a step away take the most tiles now goes (the same switch).
* In ``laizishanzhuang`` (no minimum score; big hands add 10), opened by a peng of 999p,
  holding 222m 555s 88p 33s 4s with one 3s in sight: the 4s leaves 碰碰胡 on 8p/3s (three
  tiles, 180 self-drawn, 140 on any discard), the 3s a small hand on 8p/2s/5s (seven
  tiles, 32, 24 and 20).  The expert and the search bot threw the 3s: where the waits'
  value is off (that profile), a big hand's win counted 1.5 typical wins.  It now counts
  at least what a big hand collects with the factors that bring the small win to the
  typical one (``ExpertBot.big_at_typical``, about four there).  In ``yuanhang`` and
  ``bianfeng`` the small hand wins nothing and every bot threw the 4s (a guard): the
  answer is the same in every profile, for a reason that differs.

The bots answered the other positions right; they are kept as guards, each marked so:
the same 将一色 hand with the 4m live (the 7m, every profile), and the peng of a 5m that
keeps 碰碰胡 a step away over the chi of 456m that breaks it (every profile).
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
from wuhan_mahjong.tiles import parse_tile, parse_tiles, tile_str
from wuhan_mahjong.win_record import parse_win_record

PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")
#: who pays, in the order :func:`_collects` lists them
WAYS = (("self_draw", None), ("discard", 1), ("discard", 2), ("discard", 3))
#: rivers without a pin, a 5m or an 8m
RIVERS = {1: "1s9s", 2: "3z1s", 3: "4z9m"}


def _collects(profile: str, hand: str, tile: str, melds: list[dict[str, Any]]) -> list[int]:
    """What seat 0's win of ``hand`` (its concealed tiles before ``tile``) beside ``melds``
    collects by the settlement, self-drawn and on seat 1's, 2's and 3's discard (seat 1
    deals, the indicator 东); 0 where the win fails the minimum score or is no win."""
    mine = [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]} for m in melds]
    seats: list[dict[str, Any]] = [{"hand": hand, "melds": mine},
                                   *({"hand": "", "melds": []} for _ in range(3))]
    base = {"profile": profile, "dealer": 1, "indicator": "1z", "winner": 0,
            "winning_tile": tile, "seats": seats}
    out = []
    for win_by, frm in WAYS:
        record = {**base, "win_by": win_by, **({} if frm is None else {"from": frm})}
        try:
            out.append(settle(parse_win_record(record)).total)
        except NotAWin:
            out.append(0)
    return out


def _waits(profile: str, hand: str, melds: list[dict[str, Any]]) -> list[str]:
    """The tiles that give ``hand`` beside ``melds`` a legal win on a discard."""
    rules = get_rules(profile)
    ms = [Meld(m["type"], tuple(parse_tiles(m["tiles"])), m["from_seat"], None)
          for m in melds]
    laizi = rules.laizi_of(parse_tile("1z"))
    return [tile_str(w.tile) for w in waits(parse_tiles(hand), ms, laizi, rules, "discard")]


# ---------------------------------------------------------------- the fault found

CHI_123P = [meld("chi", "123p", 3)]
FLUSH_STEP = [discard("6m"), discard("7m")]


def _flush_or_refused(profile: str, wall: int) -> SeatView:
    """Opened by a chi of 123p, 3456789p 22p 67m in hand (seat 1 deals)."""
    return make_view("3456789p22p67m", profile=profile, melds={0: CHI_123P}, wall=wall,
                     discards=RIVERS)


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_the_small_ready_hand_wins_nothing_and_the_flush_is_a_step_away(profile: str) -> None:
    """The rules' side: the 9p or the 3p leaves 5m/8m, whose wins fail the minimum score
    from every loser (one opening, no kong); after the 6m or the 7m (the other one next),
    every pin makes the 清一色 ready, each of its wins 180 self-drawn, 140 on a discard."""
    for small in ("345678p22p67m", "456789p22p67m"):
        assert _waits(profile, small, CHI_123P) == ["5m", "8m"]
        for win in ("5m", "8m"):
            assert _collects(profile, small, win, CHI_123P) == [0, 0, 0, 0]
    for pin in "123456789":
        hand = f"3456789p22p{pin}p"
        winning = _waits(profile, hand, CHI_123P)
        assert winning
        for win in winning:
            assert _collects(profile, hand, win, CHI_123P) == [180, 140, 140, 140]


def test_in_laizishanzhuang_the_small_hand_passes() -> None:
    """Where no minimum score refuses it (``laizishanzhuang``), the small hand's win
    collects 32 self-drawn, 24 from the dealer, 20 from the others: no position there (a
    small hand ready on eight tiles against a 清一色 a step away is a judgement)."""
    for win in ("5m", "8m"):
        assert _collects("laizishanzhuang", "345678p22p67m", win, CHI_123P) == [32, 24, 20, 20]


@pytest.mark.parametrize("wall", [50, 30])
@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_the_flush_is_kept_over_a_ready_hand_that_wins_nothing(bot: str, profile: str,
                                                               wall: int) -> None:
    """The expert and the search bot throw the 6m or the 7m (they threw the 9p)."""
    ask(bot, _flush_or_refused(profile, wall), FLUSH_STEP)


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_the_refused_ready_switch_plays_as_before(profile: str) -> None:
    """Off, the expert throws the 9p, as before."""
    bot = ExpertBot(1, refused_ready=False)
    assert bot.choose(_flush_or_refused(profile, 50)) == action_from_json(discard("9p"))


PENG_222M = [meld("peng", "222m", 2)]
#: two 4m in the rivers
FOURS_SEEN = {1: "1s4m9s", 2: "3z1s", 3: "4z4m9m"}
JIANG_STEP = [discard("6m"), discard("7m")]


def _jiang_or_refused(profile: str, wall: int, rivers: dict[int, str]) -> SeatView:
    """Opened by a peng of 222m, 555p 888s 22s 567m in hand (seat 1 deals)."""
    return make_view("555p888s22s5m6m7m", profile=profile, melds={0: PENG_222M}, wall=wall,
                     discards=rivers)


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_every_ready_discard_wins_nothing_and_the_jiang_is_a_step_away(profile: str) -> None:
    """The rules' side: each of the 5m, 6m and 7m leaves a small hand ready (67m on 5m/8m,
    57m on 6m, 56m on 4m/7m) whose wins fail the minimum score from every loser (one
    opening, no kong).  After the 6m or the 7m the other one is the only tile that is no
    2/5/8: any 2/5/8 drawn in its place makes the 将一色 ready on every 2/5/8 kind it has
    left, each win collecting 180 self-drawn, 140 on a discard (twice that where it is
    碰碰胡 too).  After the 5m, both the 6m and the 7m must go: 将一色 is two steps away."""
    for small, winning in (("555p888s22s67m", ["5m", "8m"]), ("555p888s22s57m", ["6m"]),
                           ("555p888s22s56m", ["4m", "7m"])):
        assert _waits(profile, small, PENG_222M) == winning
        for win in winning:
            assert _collects(profile, small, win, PENG_222M) == [0, 0, 0, 0]
    for drawn in ("2p", "5p", "8p", "5s", "8s", "5m", "8m", "2s"):
        hand = f"555p888s22s5m{drawn}"
        winning = _waits(profile, hand, PENG_222M)
        assert len(winning) >= 8
        for win in winning:
            assert _collects(profile, hand, win, PENG_222M) in ([180, 140, 140, 140],
                                                                [360, 280, 280, 280])


@pytest.mark.parametrize("wall", [50, 30])
@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_the_refused_ready_hand_keeps_the_jiang_step(bot: str, profile: str, wall: int) -> None:
    """With two 4m in sight, the 5m's wait (5m/8m, seven tiles) is the widest of the small
    hand's, which wins nothing: the expert and the search bot threw it and put the 将一色
    two steps away; they now throw the 6m or the 7m."""
    ask(bot, _jiang_or_refused(profile, wall, FOURS_SEEN), JIANG_STEP)


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_the_refused_ready_switch_throws_the_widest_wait_as_before(profile: str) -> None:
    """Off, the expert throws the 5m, as before."""
    bot = ExpertBot(1, refused_ready=False)
    view = _jiang_or_refused(profile, 50, FOURS_SEEN)
    assert bot.choose(view) == action_from_json(discard("5m"))


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_guard_with_the_4m_live_the_jiang_step_is_kept(bot: str, profile: str) -> None:
    """Guard (right before the fix): with no 4m in sight the 7m's wait (4m/7m) is as wide
    as the 5m's, and the tie went to the 7m; in ``laizishanzhuang``, where the small hand
    passes (32 self-drawn, 24 from the dealer, 20 from the others), the 7m keeps it as
    wide and the 将一色 a step away besides."""
    ask(bot, _jiang_or_refused(profile, 50, RIVERS), [discard("7m")])


PASS = {"type": "pass"}
PENG_5M = {"type": "peng", "tile": "5m"}
CHI_456M = {"type": "chi", "tile": "4m"}
PENG_222S = [meld("peng", "222s", 2)]


def _peng_or_chi(profile: str) -> SeatView:
    """Opened by a peng of 222s, 55m 46m 88p 33s 55z (白) in hand; seat 3 throws a 5m."""
    return make_view("5m5m4m6m8p8p3s3s5z5z", profile=profile, melds={0: PENG_222S},
                     claim=("5m", 3), actions=[PASS, PENG_5M, CHI_456M], wall=50,
                     discards=RIVERS)


def test_the_peng_keeps_the_pengpenghu_the_chi_breaks_it() -> None:
    """The rules' side: after the peng of 555m (the 4m or 6m thrown) 88p 33s 55z and a
    single make 碰碰胡 a step away, its wins 360 self-drawn and 280 on any discard in
    ``yuanhang``, 180 and 140 in ``bianfeng`` and ``laizishanzhuang``; the chi's run of
    456m leaves no all-pung hand."""
    after = [*PENG_222S, meld("peng", "555m", 3)]
    values = {"yuanhang": [360, 280, 280, 280], "bianfeng": [180, 140, 140, 140],
              "laizishanzhuang": [180, 140, 140, 140]}
    for profile in PROFILES:
        assert _collects(profile, "888p333s5z", "5z", after) == values[profile]
        assert _collects(profile, "88p333s55z", "8p", after) == values[profile]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_guard_the_peng_that_commits_to_pengpenghu(bot: str, profile: str) -> None:
    """Guard (right before the fix): the expert and the search bot peng, not chi (greedy,
    the baseline, pengs in ``yuanhang`` and passes in 开口翻, where the claim keeps its
    small hand's shanten and adds no factor)."""
    ask(bot, _peng_or_chi(profile), [PENG_5M])


PENG_999P = [meld("peng", "999p", 2)]
#: one 3s in sight: 碰碰胡 on 8p/3s has three tiles left, the small hand on 8p/2s/5s seven
THREE_S_SEEN = {1: "1s9s3s", 2: "3z1s", 3: "4z9m"}


def _pengpenghu_or_small(profile: str) -> SeatView:
    """Opened by a peng of 999p, 222m 555s 88p 33s 4s in hand, one 3s in sight."""
    return make_view("222m555s88p33s4s", profile=profile, melds={0: PENG_999P}, wall=50,
                     discards=THREE_S_SEEN)


def test_the_pengpenghu_on_three_tiles_against_the_small_hand_on_seven() -> None:
    """The rules' side: the 4s leaves 88p 33s beside 222m 555s, 碰碰胡 on 8p (two left) or
    3s (one left), each win 180 self-drawn and 140 on any discard in every profile; the
    3s leaves 34s beside 555s, a small hand on 8p, 2s or 5s (two, four and one left),
    each win 32 self-drawn, 24 from the dealer and 20 from the others in
    ``laizishanzhuang``, nothing in ``yuanhang`` and ``bianfeng`` (one opening, no kong).
    Per tile drawn, 3 × 140 or more against 7 × 32 at most."""
    for profile in PROFILES:
        assert _waits(profile, "222m555s88p33s", PENG_999P) == ["8p", "3s"]
        for win in ("8p", "3s"):
            assert _collects(profile, "222m555s88p33s", win, PENG_999P) == [180, 140, 140, 140]
        assert _waits(profile, "222m555s88p34s", PENG_999P) == ["8p", "2s", "5s"]
        small = [32, 24, 20, 20] if profile == "laizishanzhuang" else [0, 0, 0, 0]
        for win in ("8p", "2s", "5s"):
            assert _collects(profile, "222m555s88p34s", win, PENG_999P) == small


@pytest.mark.parametrize("bot", ["expert", "search"])
def test_in_laizishanzhuang_the_pengpenghu_goes_before_the_wider_small_hand(bot: str) -> None:
    """The expert and the search bot throw the 4s (they threw the 3s: a big hand's win
    counted 1.5 typical wins there, and 3 × 1.5 < 7)."""
    ask(bot, _pengpenghu_or_small("laizishanzhuang"), [discard("4s")])


def test_the_big_at_typical_switch_plays_as_before() -> None:
    """Off, the expert throws the 3s, as before."""
    bot = ExpertBot(1, big_at_typical=False)
    view = _pengpenghu_or_small("laizishanzhuang")
    assert bot.choose(view) == action_from_json(discard("3s"))


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
@pytest.mark.parametrize("bot", ["greedy", "expert", "search"])
def test_guard_where_the_small_hand_is_refused_the_pengpenghu_goes(bot: str,
                                                                   profile: str) -> None:
    """Guard (every bot right before the fix): where the small hand wins nothing, the 4s."""
    ask(bot, _pengpenghu_or_small(profile), [discard("4s")])
