"""Decision problems of the eighteenth hunt (6 December 2026): which claim, when several
are legal (a peng against a 冲杠 of the same discard, a win against a kong of it, one chi
against another).  Each position has one answer the rules and plain expected value
settle, checked by :func:`wuhan_mahjong.analysis.waits` and
:func:`wuhan_mahjong.scoring.settle` (a win that fails the minimum score counted as
nothing, Project decision 14), not by the bots, and asked of the bots it concerns in every
profile where the answer is the same.  The claims offered are the engine's
(:func:`wuhan_mahjong.engine.legality.claim_actions`: a win, a peng with two of the tile
held, a 冲杠 with three, a chi only from the discarder's next seat).

Every position shares one table: the indicator 东 (the laizi 南), seat 1 deals, seat 0 has
opened with a peng of 777s from seat 2 and a chi of 123p from seat 3; the other seats are
closed.

The faults it found (each test fails on the code before the fix it names):

* Ready on the 4m alone (555m 44m 88p: a 55m pair would leave 544m, and the 44m pair is no
  2/5/8), one 4m in the rivers, on a discarded 5m: the 冲杠 keeps the 4m single (one left,
  and the four laizi by self-draw), the peng and the 4m leave 45m 88p on 3m/6m, eight
  tiles, the wins worth half as much (the kong's 明杠 ×2 on the win and on what this seat
  pays alike).  Every bot konged: greedy's claim rule ranks a kong first at the same
  shanten and weighed the kong's waits only against passing.  A ready hand's 冲杠 is now
  weighed against the peng's best ready discard too (``GreedyBot.peng_over_kong``, the
  expert's option ``peng_over_kong``).  In ``bianfeng`` the peng's wins all fail the
  minimum score and the kong's pass self-drawn and on the dealer's discard: the kong stays
  (a guard).

* Ready on the 3m alone (24m beside 567m and the 55s pair), three 3m in the rivers, on
  the previous seat's 6m: the chi of 456m and the 2m wait on 5m/8m, seven tiles, each win
  collecting what the 3m's does where the opening counts once (开口翻: ``laizishanzhuang``,
  and ``bianfeng`` with two 红中 kongs, where every win passes the minimum score).  Greedy
  chis; the expert and the search bot passed: the expert's rule for a ready hand's claims
  (``ready_claim``) weighs only a claim that doubles the mean value of a winning tile
  and leaves the others to acceptance, which its claim rule never acts on at equal
  shanten.  A claim that keeps that value and at least doubles the legally winning
  tiles is now weighed by its outlook too (``ExpertBot.wider_ready_claims``).  In
  ``yuanhang`` the chi's third opening doubles what the hand pays too, and the outlook
  calls it even: no position there.

The positions the bots already answered right are below them, marked as guards.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, make_view, meld

from wuhan_mahjong.analysis import waits
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import PASS as PASS_ACTION
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import NotAWin, settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles, tile_str
from wuhan_mahjong.win_record import parse_win_record

BOTS = ("greedy", "expert", "search")
PASS = {"type": "pass"}
WIN = {"type": "win"}
MELDS = [meld("peng", "777s", 2), meld("chi", "123p", 3)]
#: who pays, in the order :func:`_collects` lists them
WAYS = (("self_draw", None), ("discard", 1), ("discard", 2), ("discard", 3))


def _record_melds(more: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"],
             **({"kind": m["kind"]} if m["kind"] else {})} for m in [*MELDS, *more]]


def _collects(profile: str, hand: str, tile: str,
              more: list[dict[str, Any]] | None = None,
              kongs: dict[str, int] | None = None) -> list[int]:
    """What seat 0's win of ``hand`` (its concealed tiles before ``tile``, beside the
    shared melds and ``more``, ``kongs`` its special kongs) collects by the settlement,
    self-drawn and on seat 1's, 2's and 3's discard; 0 where the win fails the minimum
    score or is no win (a laizi cannot be won on a discard)."""
    seats: list[dict[str, Any]] = [{"hand": "", "melds": []} for _ in range(4)]
    seats[0] = {"hand": hand, "melds": _record_melds(more or []), "kongs": kongs or {}}
    table = {"profile": profile, "dealer": 1, "indicator": "1z", "winner": 0,
             "winning_tile": tile, "seats": seats}
    return [_total({**table, "win_by": win_by, **({} if frm is None else {"from": frm})})
            for win_by, frm in WAYS]


def _total(rec: dict[str, Any]) -> int:
    try:
        return settle(parse_win_record(rec)).total
    except NotAWin:
        return 0


def _waits(profile: str, hand: str, more: list[dict[str, Any]]) -> set[str]:
    """The tiles that complete ``hand`` beside the shared melds and ``more``."""
    rules = get_rules(profile)
    melds = [Meld(m["type"], tuple(parse_tiles(m["tiles"])), m["from_seat"], m["kind"])
             for m in [*MELDS, *more]]
    return {tile_str(w.tile) for w in waits(parse_tiles(hand), melds,
                                             rules.laizi_of(parse_tile("1z")), rules)}


def _view(hand: str, profile: str, wall: int, tile: str, frm: int,
          actions: list[dict[str, Any]], rivers: dict[int, str]) -> SeatView:
    return make_view(hand, profile=profile, dealer=1, wall=wall, melds={0: list(MELDS)},
                     discards=rivers, claim=(tile, frm), actions=actions)


# ---------------------------------------------------------------- the fault found

PENG_5M = {"type": "peng", "tile": "5m"}
KONG_5M = {"type": "kong", "kind": "direct", "tile": "5m"}
#: ready on the 4m alone: 555m + 444m + 88p (44m is no 2/5/8 pair, 55m leaves 544m)
SINGLE = "555m44m88p"
#: one 4m in seat 1's river: the kong's wait has one left
FOUR_M_SEEN = {1: "1z9m4m", 2: "9s1s", 3: "9p2s"}
PENG = [meld("peng", "555m", 2)]
KONG = [meld("kong", "5555m", 2)]


def test_the_peng_widens_what_the_kong_keeps() -> None:
    """The rules' side: as it stands the hand waits on the 4m (and a drawn laizi); after
    the 冲杠 on the same; after the peng and the 4m on 3m/6m (and a laizi).  Each win
    after the kong collects twice what the peng's does (the 明杠's ×2; in ``yuanhang`` both
    add an opening), in ``yuanhang`` and ``laizishanzhuang``.  With one 4m seen and the
    5m gone, the kong waits on one unseen 4m where the peng waits on eight, so a tile's
    worth times the tiles is 2 × 1 against 1 × 8 (the four laizi win either by self-draw,
    soft, the kong's at twice the peng's: 2 × 4 + 2 against 8 + 4 with them), before the
    kong's ×2 on what this seat pays when another wins, the likelier end of a hand."""
    assert _waits("yuanhang", SINGLE, []) == {"4m", "2z"}
    assert _waits("yuanhang", "44m88p", KONG) == {"4m", "2z"}
    assert _waits("yuanhang", "45m88p", PENG) == {"3m", "6m", "2z"}
    assert _collects("yuanhang", "45m88p", "3m", PENG) == [128, 96, 80, 80]
    assert _collects("yuanhang", "44m88p", "4m", KONG) == [256, 192, 160, 160]
    assert _collects("yuanhang", "45m88p", "2z", PENG) == [64, 0, 0, 0]
    assert _collects("yuanhang", "44m88p", "2z", KONG) == [128, 0, 0, 0]
    assert _collects("laizishanzhuang", "45m88p", "6m", PENG) == [32, 24, 20, 20]
    assert _collects("laizishanzhuang", "44m88p", "4m", KONG) == [64, 48, 40, 40]
    view = _view(SINGLE, "yuanhang", 40, "5m", 2, [PENG_5M, KONG_5M, PASS], FOUR_M_SEEN)
    unseen = {k: 4 for k in ("3m", "4m", "6m")}
    for seat in view["seats"]:
        for d in seat["discards"]:
            unseen[d["tile"]] = unseen.get(d["tile"], 4) - 1
    unseen["4m"] -= 2  # the pair in hand
    assert (unseen["3m"] + unseen["6m"], unseen["4m"]) == (8, 1)


def _single_view(profile: str, wall: int, frm: int) -> SeatView:
    return _view(SINGLE, profile, wall, "5m", frm, [PENG_5M, KONG_5M, PASS], FOUR_M_SEEN)


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", ["yuanhang", "laizishanzhuang"])
@pytest.mark.parametrize(("wall", "frm"), [(40, 2), (24, 1), (40, 3)])
def test_the_peng_over_the_kong_that_keeps_a_single(bot: str, profile: str, wall: int,
                                                    frm: int) -> None:
    """Every bot pengs the 5m (and throws the 4m for 3m/6m), whoever threw it."""
    ask(bot, _single_view(profile, wall, frm), [PENG_5M])


def test_the_peng_over_kong_switch_plays_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Off, greedy and the expert make the kong, as before."""
    view = _single_view("yuanhang", 40, 2)
    assert str(ExpertBot(1, peng_over_kong=False).choose(view)) == "kong direct 5m"
    assert str(ExpertBot(1).choose(view)) == "peng 5m"
    view = _single_view("laizishanzhuang", 40, 2)
    assert str(ExpertBot(1, peng_over_kong=False).choose(view)) == "kong direct 5m"
    monkeypatch.setattr(GreedyBot, "peng_over_kong", False)
    assert str(GreedyBot(1).choose(view)) == "kong direct 5m"


def test_in_bianfeng_only_the_kong_passes_the_minimum() -> None:
    """``bianfeng`` (one loser owes 20, every loser 8; the second opening adds nothing in
    开口翻): every win after the peng is refused, as is the 4m as the hand stands; after
    the kong the 4m passes self-drawn and on the dealer's discard."""
    assert _collects("bianfeng", "45m88p", "3m", PENG) == [0, 0, 0, 0]
    assert _collects("bianfeng", SINGLE, "4m", []) == [0, 0, 0, 0]
    assert _collects("bianfeng", "44m88p", "4m", KONG) == [64, 48, 0, 0]


@pytest.mark.parametrize("bot", BOTS)
def test_guard_in_bianfeng_the_kong_the_minimum_needs(bot: str) -> None:
    """Every bot makes the 冲杠 in ``bianfeng`` (with the switch on: the peng's waits,
    counted by the wins that pass the minimum, are none)."""
    ask(bot, _single_view("bianfeng", 40, 2), [KONG_5M])


#: ready on the 3m alone: 24m beside 567m and the 55s pair
KANCHAN = "24567m55s"
#: three 3m in the rivers: one left
THREE_M_SEEN = {1: "1z3m", 2: "3m1s", 3: "9p3m"}
CHI_456 = {"type": "chi", "tile": "4m"}
KANCHAN_CHIS = [CHI_456, {"type": "chi", "tile": "5m"}, PASS]
#: where the chi adds no factor and every win passes the minimum: (profile, 红中 kongs)
FREE_CHI = [("laizishanzhuang", 0), ("laizishanzhuang", 1), ("bianfeng", 2)]


def _kanchan_view(profile: str, red: int, wall: int) -> SeatView:
    view = _view(KANCHAN, profile, wall, "6m", 3, KANCHAN_CHIS, THREE_M_SEEN)
    view["seats"][0]["special_kongs"]["red"] = red
    return view


def test_the_chi_that_widens_at_the_same_value_by_the_rules() -> None:
    """As it stands the hand waits on the 3m (and a drawn laizi); after the chi of 456m and
    the 2m on 5m/8m; after 567m at best on the 3m and 6m.  In 开口翻 a third opening adds
    nothing, so each win collects the same before and after (``laizishanzhuang``;
    ``bianfeng`` with two 红中 kongs, every loser's share over the minimum).  One 3m is left
    against seven 5m and 8m (the 5m in the chi, none seen)."""
    chi456 = [meld("chi", "456m", 3)]
    assert _waits("laizishanzhuang", KANCHAN, []) == {"3m", "2z"}
    assert _waits("laizishanzhuang", "67m55s", chi456) == {"5m", "8m", "2z"}
    for profile, red, amounts in (("laizishanzhuang", 0, [32, 24, 20, 20]),
                                  ("bianfeng", 2, [128, 96, 80, 80])):
        kongs = {"red": red}
        assert _collects(profile, KANCHAN, "3m", kongs=kongs) == amounts
        assert _collects(profile, "67m55s", "5m", chi456, kongs) == amounts
        assert _collects(profile, "67m55s", "8m", chi456, kongs) == amounts


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "red"), FREE_CHI)
@pytest.mark.parametrize("wall", [48, 32, 16])
def test_the_chi_that_widens_the_single_wait(bot: str, profile: str, red: int,
                                             wall: int) -> None:
    """Every bot chis 456m."""
    ask(bot, _kanchan_view(profile, red, wall), [CHI_456])


def test_the_wider_ready_claims_switch_plays_as_before() -> None:
    """Off, the expert passes, as before."""
    for profile, red in FREE_CHI:
        view = _kanchan_view(profile, red, 32)
        assert ExpertBot(1, wider_ready_claims=False).choose(view) == PASS_ACTION


# ---------------------------------------------------------------- guards

#: ready on 5m/8m (555m beside 67m and the 88p pair) and 8p (55m 567m 888p)
PUNG_AND_RUN = "555m67m88p"
RIVERS = {1: "1z9m", 2: "9s1s", 3: "9p2s"}


def test_the_win_against_the_kong_by_the_rules() -> None:
    """The 5m wins now (555m 567m 88p), 48 on the dealer's discard in ``yuanhang`` (the
    closed seats' discards fail the minimum, so the engine offers it there only), 24 in
    ``laizishanzhuang``; the 冲杠 instead leaves 67m 88p on 5m/8m, every 5m in the kong: the 8m alone."""
    assert _collects("yuanhang", PUNG_AND_RUN, "5m") == [64, 48, 0, 0]
    assert _collects("laizishanzhuang", PUNG_AND_RUN, "5m") == [32, 24, 20, 20]
    assert _waits("yuanhang", "67m88p", KONG) == {"5m", "8m", "2z"}  # every 5m in the kong


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "frm"), [("yuanhang", 1), ("laizishanzhuang", 2),
                                              ("laizishanzhuang", 1)])
@pytest.mark.parametrize("wall", [40, 20])
def test_guard_the_win_over_the_kong_of_the_same_tile(bot: str, profile: str, frm: int,
                                                      wall: int) -> None:
    """Offered the win, the peng and the 冲杠 of the 5m, every bot wins (a sure win
    against a kong whose hand waits on one kind)."""
    actions = [WIN, PENG_5M, KONG_5M, PASS]
    ask(bot, _view(PUNG_AND_RUN, profile, wall, "5m", frm, actions, RIVERS), [WIN])


#: one step from ready, 34m 67m beside the 55s pair: seat 3's 5m chis three ways
TWO_CHIS = "34m67m55s9p"
#: three 2m in the rivers: the 2m/5m wait has four tiles left, the 5m/8m seven
TWO_M_SEEN = {1: "1z2m", 2: "2m1s", 3: "9p2m"}
CHI_345 = {"type": "chi", "tile": "3m"}
CHIS = [CHI_345, {"type": "chi", "tile": "4m"}, {"type": "chi", "tile": "5m"}, PASS]


def test_the_chi_that_keeps_the_live_side_by_the_rules() -> None:
    """After the chi of 345m and the 9p: 67m 55s on 5m/8m; after 567m: 34m 55s on 2m/5m;
    after 456m the hand is short of ready (3m 7m 55s).  Each win collects the same (the
    third opening adds the same factor either way); with three 2m and the 5m on the table
    seen, seven tiles against four."""
    chi345, chi567 = [meld("chi", "345m", 3)], [meld("chi", "567m", 3)]
    assert _waits("yuanhang", "67m55s", chi345) == {"5m", "8m", "2z"}
    assert _waits("yuanhang", "34m55s", chi567) == {"2m", "5m", "2z"}
    for profile, amounts in (("yuanhang", [128, 96, 80, 80]),
                             ("laizishanzhuang", [32, 24, 20, 20])):
        assert _collects(profile, "67m55s", "8m", chi345) == amounts
        assert _collects(profile, "34m55s", "2m", chi567) == amounts


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", ["yuanhang", "laizishanzhuang"])
@pytest.mark.parametrize("wall", [40, 20])
def test_guard_the_chi_that_keeps_the_live_side(bot: str, profile: str, wall: int) -> None:
    """Every bot chis 345m (in ``bianfeng`` no win of either passes the minimum)."""
    ask(bot, _view(TWO_CHIS, profile, wall, "5m", 3, CHIS, TWO_M_SEEN), [CHI_345])
