"""Decision problems of the thirtieth hunt (6 December 2026, late night): ``yuanhang``
(the default profile), the expert's biggest losses to greedy on the same deals.  The hunt
played tuning seeds 396 to 398 with the expert at seat 0 and, on the same walls, greedy
there (the first-deviation study of ``bench/bots_first_deviation.py``) and sorted the
decisions where the expert first parted from greedy by kind (docs/bots-log.md, *The
thirtieth decision-problem hunt*).  No kind lost with an interval excluding 0; the
ready chis it read one by one gave one fault, found in the form whose answer the rules
settle, and one guard.

The fault (the test fails on the code before the fix it names):

* **A 清一色 ready on two tiles, and the chi that makes it seven.**  Pengs of 777s and
  111s, holding 2234588s: ready on 2s/8s, one copy of each unseen (a 2s and an 8s in
  the rivers).  Seat 3 throws the 4s: the chi of 234s, throwing the 2s, waits on 3s/6s,
  seven copies unseen, and by the settlement every win is worth what it was (a 清一色
  either way: in ``bianfeng`` and ``laizishanzhuang`` 360 self-drawn, 280 on a
  discard; in ``yuanhang`` 720 and 560 before, 金顶 1,200 after, the fourth opening's
  ×2).  Where the opening adds no factor (开口翻, the hand opened already) the chi
  changes nothing of what this seat pays; it gives up this turn's draw (two tiles of 94
  win on it) for seven winning tiles instead of two on every later one.  The chi is the
  answer at every wall.  The expert passed in ``bianfeng`` and ``laizishanzhuang``: its
  ready claims (:meth:`ExpertBot.ready_claim`) weigh a claim that keeps the value of a
  winning tile only when it doubles the tiles that win (``wider_ready_claims``), and
  counted the laizi's four unseen copies, which win this hand self-drawn before the chi
  and after it, on both sides: 6 to 11, short of twice.  With
  ``ExpertBot.wider_plain_waits`` the plain tiles are counted, 2 to 7.  Greedy (its
  wider claims) chied already, and the expert in ``yuanhang`` (where the chi doubles the
  value): guards.  The search bot follows the expert.

The guard, from the study's hand 2279 of seed 396 (a ready chi that makes a 全求人 on
the same wait, passed beside a four-meld seat whose wins cost this seat the cap already;
no clean answer there), in the quiet form whose answer the rules settle:

* **The fourth chi that makes a 全求人 on the same 2/5/8.**  Opened three times (chis of
  123s, 123m and 789p from seat 3), ready on the 2p alone beside 567m, every opponent
  opened once and holding no kong.  Seat 3 throws the 6m: the chi of 567m, throwing the
  6m, leaves the same winning tiles (the 2p; the laizi self-drawn, ``analysis.waits``),
  and by the settlement makes every discard win a 全求人: in ``yuanhang`` 金顶, 1,200
  where the small hand collects 160 to 192, its self-draw 512 where it collects 256 (口口翻:
  the fourth opening doubles); in ``bianfeng`` and ``laizishanzhuang`` 280 where the
  small hand collects 0 to 48 (in ``bianfeng`` two of the three discard wins fall short
  of the minimum score), its self-draw the same 64.  The chi costs this turn's draw, and
  in ``yuanhang`` doubles what this seat pays when another wins (one opening and no kong
  each: 32 to 64 for a plain self-draw); a discard win gains 1,000 points or more.  The
  chi is the answer at every wall.  Greedy (its big-hand claim), the expert (its ready
  claims, :meth:`ExpertBot.ready_claim`) and the search bot chi: guards.  The search bot's
  play-outs pass at a wall of 28 in ``bianfeng`` with seed 3 (one seed of five; seed 1,
  the one asked, chis): left alone.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, make_view, meld

from wuhan_mahjong.analysis import NotAWin, waits
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles
from wuhan_mahjong.win_record import parse_win_record

PROFILES = ["yuanhang", "bianfeng", "laizishanzhuang"]
INDICATOR = "4s"  # the laizi is the 5s: none in sight of seat 0
MY_MELDS = [meld("chi", "123s", 3), meld("chi", "123m", 3), meld("chi", "789p", 3)]
OTHERS = {1: [meld("peng", "777s", 0)], 2: [meld("chi", "789m", 1)], 3: [meld("chi", "345p", 2)]}
RIVERS = {0: "1z3z4z9m1s>3 8s1m>3 7p>3", 1: "1z2z9s8m 6s>2 4z", 2: "3z7z9m4m1p 5p>3",
          3: "2z6z8m9s 6m"}
CHI = {"type": "chi", "tile": "5m", "tiles": "567m"}
PASS = {"type": "pass"}


def _view(profile: str, wall: int) -> SeatView:
    """Seat 0's claim on seat 3's 6m (seat 1 deals), holding 567m 2p."""
    return make_view("567m2p", profile=profile, indicator=INDICATOR, wall=wall, dealer=1,
                     melds={0: MY_MELDS, **OTHERS}, discards=RIVERS, claim=("6m", 3),
                     actions=[CHI, PASS])


def _melds(records: list[dict[str, Any]]) -> list[Meld]:
    return [Meld(m["type"], tuple(parse_tiles(m["tiles"])), m["from_seat"]) for m in records]


def _collected(profile: str, indicator: str, melds: list[dict[str, Any]],
               others: dict[int, list[dict[str, Any]]], hand: str, tile: str, win_by: str,
               frm: int | None) -> int:
    """What seat 0 (``hand`` beside ``melds``) collects for its win on ``tile`` (seat 1
    deals); 0 where the win falls short of the minimum score."""
    seats = [{"hand": hand if s == 0 else "", "kongs": {},
              "melds": [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]}
                        for m in (melds if s == 0 else others[s])]}
             for s in range(4)]
    rec: dict[str, Any] = {"profile": profile, "dealer": 1, "indicator": indicator,
                           "winner": 0, "win_by": win_by, "winning_tile": tile,
                           "seats": seats, **({} if frm is None else {"from": frm})}
    try:
        return int(sum(p.amount for p in settle(parse_win_record(rec)).payments))
    except NotAWin:
        return 0


def _collects(profile: str, chi: bool, win_by: str, frm: int | None) -> int:
    """What seat 0 collects for its win on the 2p, passing (567m 2p held) or after the chi
    (the 2p alone beside four chis)."""
    mine = [*MY_MELDS, meld("chi", "567m", 3)] if chi else MY_MELDS
    return _collected(profile, INDICATOR, mine, OTHERS, "2p" if chi else "567m2p", "2p",
                      win_by, frm)


def _winning(profile: str, indicator: str, hand: str, melds: list[Meld],
             win_by: str) -> set[int]:
    """The tiles that win ``hand`` beside ``melds`` (``analysis.waits``)."""
    rules = get_rules(profile)
    laizi = rules.laizi_of(parse_tile(indicator))
    return {w.tile for w in waits(parse_tiles(hand), melds, laizi, rules, win_by)}


# ---------------------------------------------------------------- the rules' side

@pytest.mark.parametrize("profile", PROFILES)
def test_the_chi_keeps_the_winning_tiles(profile: str) -> None:
    """Passing or after the chi (the 6m thrown), the hand wins on the 2p (and the laizi
    self-drawn) alone."""
    before = _melds(MY_MELDS)
    after = [*before, Meld("chi", tuple(parse_tiles("567m")), 3)]
    for win_by in ("self_draw", "discard"):
        chi_waits = _winning(profile, INDICATOR, "2p", after, win_by)
        assert _winning(profile, INDICATOR, "567m2p", before, win_by) == chi_waits
        assert parse_tile("2p") in chi_waits


@pytest.mark.parametrize(("profile", "self_drawn", "passing", "chi"), [
    ("yuanhang", (256, 512), (160, 192), 1200),
    ("bianfeng", (64, 64), (0, 48), 280),
    ("laizishanzhuang", (64, 64), (40, 48), 280),
])
def test_the_chi_raises_every_discard_win(profile: str, self_drawn: tuple[int, int],
                                          passing: tuple[int, int], chi: int) -> None:
    """The self-drawn 2p collects as much or more after the chi; every discard win becomes
    a 全求人 worth 1,000 points more in ``yuanhang`` (金顶) and 232 or more elsewhere."""
    assert (_collects(profile, False, "self_draw", None),
            _collects(profile, True, "self_draw", None)) == self_drawn
    low, high = passing
    for frm in (1, 2, 3):
        assert low <= _collects(profile, False, "discard", frm) <= high
        assert _collects(profile, True, "discard", frm) == chi


# ---------------------------------------------------------------- the guards

@pytest.mark.parametrize("wall", [60, 44, 28])
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("bot", ["greedy", "expert", "search"])
def test_the_fourth_chi_makes_a_quanqiuren(bot: str, profile: str, wall: int) -> None:
    """The chi (greedy, the expert and the search bot make it: guards)."""
    ask(bot, _view(profile, wall), [CHI])


# ---------------------------------------------------------------- the 清一色 chi (the fault)

FLUSH_MELDS = [meld("peng", "777s", 1), meld("peng", "111s", 2)]
FLUSH_OTHERS = {1: [meld("chi", "789m", 0)], 2: [meld("peng", "555p", 1)],
                3: [meld("chi", "234p", 2)]}
FLUSH_RIVERS = {0: "1z9m4z2m7p9p>1", 1: "2z 7s>0 1p8m5p>2 3z", 2: "4z 1s>0 6z9p2s",
                3: "3z7m6p8s1m 9p"}
FLUSH_INDICATOR = "6z"  # the laizi is the 5z: four copies unseen
FLUSH_CHI = {"type": "chi", "tile": "2s", "tiles": "234s"}


def _flush_view(profile: str, wall: int) -> SeatView:
    """Seat 0's claim on seat 3's 4s (seat 1 deals), holding 2234588s beside two pengs."""
    return make_view("2234588s", profile=profile, indicator=FLUSH_INDICATOR, wall=wall,
                     dealer=1, melds={0: FLUSH_MELDS, **FLUSH_OTHERS}, discards=FLUSH_RIVERS,
                     claim=("4s", 3), actions=[FLUSH_CHI, PASS])


def _flush_collects(profile: str, chi: bool, tile: str, win_by: str, frm: int | None) -> int:
    """What seat 0 collects for its win on ``tile``, passing or after the chi (2s thrown)."""
    mine = [*FLUSH_MELDS, meld("chi", "234s", 3)] if chi else FLUSH_MELDS
    return _collected(profile, FLUSH_INDICATOR, mine, FLUSH_OTHERS,
                      "4588s" if chi else "2234588s", tile, win_by, frm)


@pytest.mark.parametrize("profile", PROFILES)
def test_the_chi_widens_two_plain_winning_tiles_to_seven(profile: str) -> None:
    """Passing, the hand wins on 2s/8s (and the laizi self-drawn); after the chi, throwing
    the 2s, on 3s/6s (and the laizi).  Unseen: one 2s, one 8s; three 3s, four 6s."""
    laizi = get_rules(profile).laizi_of(parse_tile(FLUSH_INDICATOR))
    before = _melds(FLUSH_MELDS)
    after = [*before, Meld("chi", tuple(parse_tiles("234s")), 3)]
    for win_by, wild in (("self_draw", {laizi}), ("discard", set())):
        assert _winning(profile, FLUSH_INDICATOR, "2234588s", before, win_by) \
            == {parse_tile("2s"), parse_tile("8s")} | wild
        assert _winning(profile, FLUSH_INDICATOR, "4588s", after, win_by) \
            == {parse_tile("3s"), parse_tile("6s")} | wild


@pytest.mark.parametrize(("profile", "before", "after"), [
    ("yuanhang", (720, 560), (1200, 1200)),
    ("bianfeng", (360, 280), (360, 280)),
    ("laizishanzhuang", (360, 280), (360, 280)),
])
def test_every_win_is_worth_as_much_after_the_chi(profile: str, before: tuple[int, int],
                                                  after: tuple[int, int]) -> None:
    """A 清一色 either way: self-drawn and on any seat's discard, each winning tile
    collects as much after the chi (in ``yuanhang`` more: the fourth opening's ×2)."""
    for chi, tiles, (self_drawn, discard) in ((False, ("2s", "8s"), before),
                                              (True, ("3s", "6s"), after)):
        for tile in tiles:
            assert _flush_collects(profile, chi, tile, "self_draw", None) == self_drawn
            for frm in (1, 2, 3):
                assert _flush_collects(profile, chi, tile, "discard", frm) == discard


@pytest.mark.parametrize("profile", ["bianfeng", "laizishanzhuang"])
def test_the_chi_adds_no_factor_where_the_opening_counts_once(profile: str) -> None:
    """开口翻: the hand opened already, so the chi changes nothing of what it pays."""
    assert get_rules(profile).opening_scoring == "once"


@pytest.mark.parametrize("wall", [60, 48, 36, 24])
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("bot", ["greedy", "expert", "search"])
def test_the_chi_that_widens_the_flush_wait_is_made(bot: str, profile: str, wall: int) -> None:
    """The chi (the expert's and the search bot's fault in ``bianfeng`` and
    ``laizishanzhuang`` before ``wider_plain_waits``; greedy, and both in ``yuanhang``,
    chied already)."""
    ask(bot, _flush_view(profile, wall), [FLUSH_CHI])


@pytest.mark.parametrize("wall", [60, 24])
@pytest.mark.parametrize("profile", ["bianfeng", "laizishanzhuang"])
def test_the_plain_waits_switch_off_plays_as_before(profile: str, wall: int) -> None:
    """Off, the expert passes as it did before the fix (what the test above catches)."""
    view = _flush_view(profile, wall)
    assert ExpertBot(1, wider_plain_waits=False).choose(view) == action_from_json(PASS)
