"""Decision problems of the fourteenth hunt (6 December 2026): the minimum score (起胡分,
RULES §17.8) and the choices it decides, in ``yuanhang`` (one loser owes 20) and
``bianfeng`` (one loser owes 20 and every loser 8).  Each position has one answer the
settlement settles (the amounts asked of :func:`wuhan_mahjong.scoring.settle`, a win that
fails the minimum counted as nothing, Project decision 14), asked of the bots it concerns.

Every position shares one table: the laizi is 5s (indicator 4s), seat 1 deals, seat 0 has
opened with a chi of 234m from seat 3 and seat 2 with a peng of 999s from seat 1; seat 3
is closed.  So a small win on seat 3's discard is the hardest to lift over the minimum (no
dealer, no opening of his), and the factors of seat 0 (its 红中 kongs, 硬胡, a kong) decide
which waits are worth anything.

The fault it found (the test fails on the code before the fix it names):

* Ready on the 7p alone (55p 77p beside 678s 456p, one 红中 kong, ``bianfeng``: a 5p
  win would leave the 77p pair, no 2/5/8), whose win passes the minimum score on some
  losers' payments (not on seat 3's discard), when seat 3 throws a 7p: passing leaves
  one live 7p; the peng and the 6p leave 3p/6p, seven tiles, each win collecting
  exactly what the 7p's does (the second opening adds no factor in 开口翻).  Greedy
  passed: at equal shanten it claims for a ready hand only when none of its winning
  tiles passes the minimum.  It now also claims when the claim keeps the hand ready with
  at least twice as many tiles whose win passes (``GreedyBot.wider_claims``).

The bots that value their waits (the expert and the search bot) answered every other
position right; they are kept as guards.  They pass on the peng (the expert's
``ready_claim`` wants a claim to double the mean value of a winning tile, and its count of
a wait's value does not see which loser's discard the minimum refuses); noted and left
alone.  Greedy, the baseline, counts winning tiles between ready discards whose waits all
pass somewhere (it drops only a wait that can never pass), so in the second position it
keeps the wider soft wait; the baseline's design (the twelfth hunt left its count alone
too), noted and left alone.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.bots.greedy import GreedyBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.scoring import NotAWin, settle
from wuhan_mahjong.win_record import parse_win_record

BOTS = ("greedy", "expert", "search")
READERS = ("expert", "search")  # the bots that value their waits by the settlement
CHI = meld("chi", "234m", 3)
PASS = {"type": "pass"}
PENG_9S = meld("peng", "999s", 1)
RIVERS = {1: "1z2z", 2: "3z4z", 3: "6z7z"}
#: who pays, in the order :func:`_collects` lists them
WAYS = (("self_draw", None), ("discard", 1), ("discard", 2), ("discard", 3))


def _view(hand: str, profile: str, wall: int, red: int, **kw: Any) -> SeatView:
    """Seat 0's decision at the shared table, with ``red`` 红中 kongs of its own."""
    view = make_view(hand, profile=profile, indicator="4s", dealer=1, wall=wall,
                     melds={0: [CHI, *kw.pop("more", [])], 2: [PENG_9S]}, discards=RIVERS,
                     **kw)
    view["seats"][0]["special_kongs"]["red"] = red
    return view


def _collects(profile: str, hand: str, tile: str, red: int,
              more: list[dict[str, Any]] | None = None) -> list[int]:
    """What seat 0's win of ``hand`` (its concealed tiles before ``tile``) collects by the
    settlement, self-drawn and on seat 1's, 2's and 3's discard; 0 where the win fails the
    minimum score (the engine does not offer it)."""
    mine = [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"],
             **({"kind": m["kind"]} if m["kind"] else {})} for m in [CHI, *(more or [])]]
    out = []
    for win_by, frm in WAYS:
        seats: list[dict[str, Any]] = [{"hand": "", "melds": []} for _ in range(4)]
        seats[0] = {"hand": hand, "kongs": {"red": red}, "melds": mine}
        seats[2] = {"hand": "", "melds": [{"type": "peng", "tiles": "999s", "from": 1}]}
        rec: dict[str, Any] = {"profile": profile, "dealer": 1, "indicator": "4s",
                               "winner": 0, "win_by": win_by, "winning_tile": tile,
                               "seats": seats}
        if frm is not None:
            rec["from"] = frm
        try:
            out.append(settle(parse_win_record(rec)).total)
        except NotAWin:
            out.append(0)
    return out


# ---------------------------------------------------------------- the fault found

PENG_7P = {"type": "peng", "tile": "7p"}
#: ready on 7p alone (55p 77p: a win on 5p would leave the 77p pair, no 2/5/8)
NARROW = "678s456p55p77p"


def test_the_peng_widens_the_wait_at_the_same_value() -> None:
    """The rules' side (``bianfeng``, one 红中 kong): the 7p win passes the minimum
    self-drawn and on seats 1's and 2's discards, not on seat 3's (no loser owes 20); after
    the peng of seat 3's 7p and the 6p, each 3p/6p win collects exactly as much (the second
    opening adds no factor in 开口翻), on seven unseen tiles where the 7p has one left."""
    assert _collects("bianfeng", "678s456p55p77p", "7p", 1) == [80, 56, 56, 0]
    peng = [meld("peng", "777p", 3)]
    for tile in ("3p", "6p"):
        assert _collects("bianfeng", "678s45p55p", tile, 1, peng) == [80, 56, 56, 0]


def _narrow_view(wall: int) -> SeatView:
    return _view(NARROW, "bianfeng", wall, 1, claim=("7p", 3), actions=[PASS, PENG_7P])


@pytest.mark.parametrize("wall", [40, 16])
def test_greedy_pengs_for_the_wider_wait(wall: int) -> None:
    """Greedy pengs the 7p (one live winning tile before, seven after)."""
    ask("greedy", _narrow_view(wall), [PENG_7P])


def test_the_wider_claims_switch_plays_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Off, greedy passes, as before."""
    monkeypatch.setattr(GreedyBot, "wider_claims", False)
    ask("greedy", _narrow_view(40), [PASS])


# --------------------------------------- the wider wait that can never pass the minimum

#: 123m 7m 789p 22s 56s (and one 红中 kong): throwing the 7m keeps 56s on 4s/7s, the laizi
#: 5s as itself (硬胡); throwing the 6s keeps the 7m beside the laizi, every win (5m to 9m)
#: using it as a wild (软胡)
WIDE = "1237m789p2256s"


def test_the_wide_soft_wait_never_passes_the_minimum() -> None:
    """The rules' side (``yuanhang``, one 红中 kong): after the 7m the hard wins on 4s and
    7s pass the minimum self-drawn and on the dealer's or the opened seat's discard; after
    the 6s every wait (5m to 9m, nineteen tiles) is soft and fails it from every loser."""
    assert _collects("yuanhang", "123m789p2256s", "4s", 1) == [80, 56, 56, 0]
    assert _collects("yuanhang", "123m789p2256s", "7s", 1) == [80, 56, 56, 0]
    for tile in ("5m", "6m", "7m", "8m", "9m"):
        assert _collects("yuanhang", "1237m789p225s", tile, 1) == [0, 0, 0, 0]


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("wall", [40, 16])
def test_guard_the_hard_wait_goes_first(bot: str, wall: int) -> None:
    """Guard: every bot throws the 7m (the winnable hard wait), not the 6s."""
    ask(bot, _view(WIDE, "yuanhang", wall, 1), [discard("7m")])


# ------------------------------------ the hard wait that the closed seat pays too

#: 23467m 55p 4566s with two 红中 kongs: the 6s leaves 67m on 5m/8m beside 456s, the laizi
#: as itself (硬胡); the 4s leaves 5s66s (the laizi as a wild, 软胡) and adds the 6s
EVERY = "23467m55p4566s"


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_only_the_hard_wait_is_paid_by_the_closed_seat(profile: str) -> None:
    """The rules' side: after the 6s the hard 5m/8m wins pass from every loser, seat 3's
    discard too, and collect twice as much elsewhere; after the 4s the same tiles (and the
    added 6s) are soft and seat 3's discard fails the minimum (no loser owes 20).  Counted
    over the unseen tiles (four 5m, four 8m; two more 6s) the hard wait collects 960
    against 480."""
    for tile in ("5m", "8m"):
        assert _collects(profile, "23467m55p456s", tile, 2) == [160, 112, 112, 96]
        assert _collects(profile, "23467m55p566s", tile, 2) == [80, 56, 56, 0]
    assert _collects(profile, "23467m55p566s", "6s", 2) == [80, 56, 56, 0]


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
@pytest.mark.parametrize("wall", [40, 16])
def test_guard_the_wait_every_loser_pays_goes_first(bot: str, profile: str,
                                                    wall: int) -> None:
    """Guard: the expert and the search bot throw the 6s (greedy, counting tiles, throws
    the 4s: the baseline's design, left alone)."""
    ask(bot, _view(EVERY, profile, wall, 2), [discard("6s")])


# ------------------------------------ the kong the closed seat's discard needs

PENG_4P = {"type": "peng", "tile": "4p"}
KONG_4P = {"type": "kong", "tile": "4p", "kind": "direct"}
#: ready on 6m/9m (78m) with 444p 678s 55p, every win hard
READY = "444p678s55p78m"


@pytest.mark.parametrize(("profile", "red"), [("yuanhang", 0), ("bianfeng", 1)])
def test_the_kong_lifts_the_closed_seats_discard_over_the_minimum(profile: str,
                                                                  red: int) -> None:
    """The rules' side: the hard 6m/9m wins fail the minimum on seat 3's discard (in
    ``yuanhang`` with no 红中 kong they fail everywhere: [0, 0, 0, 0]); after the 冲杠 of 4p
    (a kong factor, and in ``yuanhang``, 口口翻, a second opening) they pass from every seat
    (160, 112, 112, 96 there), and collect more where they passed before."""
    before = _collects(profile, "444p678s55p78m", "6m", red)
    kong = [meld("kong", "4444p", 3)]
    after = _collects(profile, "678s55p78m", "6m", red, kong)
    assert before[3] == 0 < after[3]
    assert all(a > b for a, b in zip(after, before, strict=True))


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
@pytest.mark.parametrize(("frm", "red"), [(3, 0), (1, 1), (2, 2)])
def test_guard_the_ready_hand_kongs_the_fourth_tile(bot: str, profile: str, frm: int,
                                                     red: int) -> None:
    """Guard: every bot kongs the 4p (neither the peng, which breaks nothing but pays less,
    nor the pass)."""
    ask(bot, _view(READY, profile, 40, red, claim=("4p", frm),
                   actions=[PASS, PENG_4P, KONG_4P]), [KONG_4P])


# ------------------------------------ the laizi kong that makes the waits pass

LAIZI_KONG = {"type": "special_kong", "kind": "laizi"}


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
@pytest.mark.parametrize("hand", ["678s456p78m55p5s", "678s456p78m22p5s"])
def test_guard_the_spare_laizi_is_konged(bot: str, profile: str, hand: str) -> None:
    """Guard: ready on 6m/9m with the laizi spare, every bot plays the laizi kong (×4 in
    ``yuanhang``, ×2 in ``bianfeng``, and the waits turn hard), not a discard that keeps
    it as a wild nor the 丢癞子."""
    view = _view(hand, profile, 40, 0,
                 extra_actions=[LAIZI_KONG, {"type": "laizi_discard"}])
    ask(bot, view, [LAIZI_KONG])


def test_the_laizi_kong_is_what_passes_the_minimum() -> None:
    """The rules' side: kept as a wild the laizi's soft wins fail everywhere in ``yuanhang``
    (one opening, no kong); after the laizi kong the hard 6m wins pass."""
    assert _collects("yuanhang", "678s456p78m5p5s", "5p", 0) == [0, 0, 0, 0]
    seats: list[dict[str, Any]] = [{"hand": "", "melds": []} for _ in range(4)]
    seats[0] = {"hand": "678s456p78m55p", "kongs": {"laizi": 1},
                "melds": [{"type": "chi", "tiles": "234m", "from": 3}]}
    rec: dict[str, Any] = {"profile": "yuanhang", "dealer": 1, "indicator": "4s",
                           "winner": 0, "win_by": "discard", "from": 3,
                           "winning_tile": "6m", "seats": seats}
    assert settle(parse_win_record(rec)).total > 0
