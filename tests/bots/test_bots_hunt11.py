"""Decision problems of the eleventh hunt (6 December 2026): defence (the deal-in) and
claims, in ``yuanhang`` and ``bianfeng``.  Each position has one answer the rules and
plain expected value settle (the arithmetic checked by the rules module and the
settlement, not by the bots), asked of the bots it concerns at every table where the
answer is the same.

The faults it found (each test fails on the code before the fix it names):

* Opened once (a chi), three steps from ready (or two), at a wall of 16 or 12 (four or
  three draws left), beside two seats with three melds each: on seat 2's 7p every bot
  pengs, for a step that still leaves the hand short of ready.  In 口口翻 (``yuanhang``,
  or ``bianfeng`` with the option) the second opening doubles this seat's multiplier
  (Project decision 6), so also what it pays on the likeliest end of the hand, another
  seat's win (the settlement below: 128 → 256 of seat 1's plain self-draw as dealer),
  for a win it will hardly make (the far hand needs three more useful tiles).  The
  expert and the search bot now weigh such a claim as they weigh a kong beside a read
  threat (``ExpertBot.threat_claims``); the search bot passed already on one of the
  sixteen (the nearer hand, wall 12, ``bianfeng`` in 口口翻), by its own search.  In 开口翻
  (``bianfeng``) the second opening adds no factor: the step is free, and the bots still
  peng.  Greedy, the baseline, makes every claim that brings the hand closer.
* The same beside a closed hand three steps away: the peng's opening doubles what it pays
  in every profile (开口翻 counts the first opening; there it even lets seat 1's small
  win pass the minimum score), for a step that leaves it two short.  Every bot pengs.
  ``ExpertBot.threat_openings`` weighs it alike and passes, but it is off by default:
  at a wall of 48 it also passes the chi that the third hunt's guard makes for a far,
  closed hand with time to build (``test_bots_hunt3.py``), so its positions are asked
  of the switch here.

The positions the bots already answered right are below it, marked as guards.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld
from test_bots_hunt5 import TWO_READY, TWO_READY_RIVERS

from wuhan_mahjong.analysis import is_ready, shanten
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.search import SearchBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import NotAWin, settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles
from wuhan_mahjong.win_record import parse_win_record

READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)
BOTS = ("greedy", "expert", "search")
PASS = {"type": "pass"}
PENG_7P = {"type": "peng", "tile": "7p"}
#: the tables where every opening doubles (口口翻), and the one where only the first does
PER_OPENING = [("yuanhang", {}), ("bianfeng", {"opening_scoring": "per_opening"})]
ONCE = ("bianfeng", {})

# ---------------------------------------------------------------- faults found

#: opened by a chi of 345m; 77p beside 24m 8m 12s 6s 9s 北: three steps from ready, and
#: after the peng of 7p (and any discard) still two
FAR = "77p24m8m12s6s9s4z"
#: 77p beside 24m 68m 123s 6s: two steps from ready, one after the peng
NEARER = "77p24m68m123s6s"
CHI_345M = meld("chi", "345m", 3)


def _peng_view(hand: str, profile: str, options: dict[str, Any], wall: int) -> SeatView:
    """Seat 2 (the dealer) throws 7p; seats 1 and 3 show three mixed melds each (the fifth
    hunt's two likely ready seats, no family read); the laizi is 1p (indicator 9p)."""
    return make_view(hand, profile=profile, options=options, indicator="9p", wall=wall,
                     dealer=2, melds={**TWO_READY, 0: [CHI_345M]},
                     discards=TWO_READY_RIVERS, claim=("7p", 2), actions=[PASS, PENG_7P])


def _my_share(profile: str, options: dict[str, Any], melds: list[dict[str, Any]]) -> int:
    """What seat 0, holding ``melds``, pays for seat 1's plain hard self-draw (his three
    melds, 23p 55p, on 4p), by the settlement; seat 1 deals here, so that the small win
    passes the minimum score in 开口翻 too."""
    seats: list[dict[str, Any]] = [{"hand": "", "melds": []} for _ in range(4)]
    seats[0] = {"hand": "", "melds": melds}
    seats[1] = {"hand": "2355p", "melds": [  # his three openings (a record's chi is fed
        {"type": "chi", "tiles": "345s", "from": 0},  # by the previous seat)
        {"type": "chi", "tiles": "789m", "from": 0},
        {"type": "peng", "tiles": "111m", "from": 3}]}
    rec: dict[str, Any] = {"profile": profile, "options": options, "dealer": 1,
                           "indicator": "9p", "winner": 1, "win_by": "self_draw",
                           "winning_tile": "4p", "seats": seats}
    paid = {p.loser: p.amount for p in settle(parse_win_record(rec)).payments}
    return int(paid[0])


def test_the_second_opening_doubles_what_this_seat_pays() -> None:
    """The rules' side: in 口口翻 the peng's opening doubles this seat's share of another
    seat's win (Project decision 6); in 开口翻 only the first opening counts."""
    chi = [{"type": "chi", "tiles": "345m", "from": 3}]
    both = [*chi, {"type": "peng", "tiles": "777p", "from": 2}]
    for profile, options in PER_OPENING:
        assert _my_share(profile, options, both) == 2 * _my_share(profile, options, chi)
    assert _my_share(*ONCE, both) == _my_share(*ONCE, chi)


@pytest.mark.parametrize(("hand", "before", "after"), [(FAR, 3, 2), (NEARER, 2, 1)])
def test_the_peng_leaves_the_hand_short_of_ready(hand: str, before: int, after: int) -> None:
    """The peng brings the hand one step closer and no further: after it (and its best
    discard) the far hand still needs three useful tiles to win, at a wall of 16 or 12,
    where this seat has four or three draws left."""
    rules = get_rules("yuanhang")
    laizi = rules.laizi_of(parse_tile("9p"))
    chi = [Meld("chi", tuple(parse_tiles("345m")), 3)]
    tiles = parse_tiles(hand)
    assert shanten(tiles, chi, laizi, rules) == before
    rest = list(tiles)
    rest.remove(parse_tile("7p"))
    rest.remove(parse_tile("7p"))
    pung = [*chi, Meld("peng", (parse_tile("7p"),) * 3, 2)]
    best = min(shanten([x for j, x in enumerate(rest) if j != i], pung, laizi, rules)
               for i in range(len(rest)))
    assert best == after
    assert not is_ready(rest[1:], pung, laizi, rules)


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize(("profile", "options"), PER_OPENING)
@pytest.mark.parametrize("wall", [16, 12])
@pytest.mark.parametrize("hand", [FAR, NEARER])
def test_no_second_opening_for_a_hand_short_of_ready_beside_ready_seats(
        bot: str, profile: str, options: dict[str, Any], wall: int, hand: str) -> None:
    """In 口口翻, late, beside two seats with three melds each, the peng doubles what this
    seat pays them for a step that leaves it short of ready with three or four draws to
    go: the hand passes.  Every bot pengged (``ExpertBot.threat_claims``)."""
    ask(bot, _peng_view(hand, profile, options, wall), [PASS])


def test_the_threat_claims_switch_plays_as_before() -> None:
    view = _peng_view(FAR, "yuanhang", {}, 12)
    assert ExpertBot(1, threat_claims=False).choose(view) == action_from_json(PENG_7P)


# ---------------------------------------------------------------- guards


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("wall", [16, 12])
@pytest.mark.parametrize("hand", [FAR, NEARER])
def test_guard_the_second_opening_is_free_where_only_the_first_counts(bot: str, wall: int,
                                                                     hand: str) -> None:
    """Guard.  The same positions in 开口翻 (``bianfeng``): the second opening adds no
    factor (the settlement above), so the peng's step costs nothing and is made."""
    ask(bot, _peng_view(hand, *ONCE, wall), [PENG_7P])


#: seat 1: three 筒 melds and no 筒 thrown (a pin flush, likely ready)
PINS = [meld("chi", "123p", 0), meld("peng", "555p", 3), meld("chi", "789p", 0)]
#: this seat: three 索 melds
SOU = [meld("peng", "111s", 2), meld("chi", "345s", 3), meld("peng", "999s", 2)]
PIN_RIVERS = {0: "1z3z9m", 1: "9m1s3z9s4m2m", 2: "7z1m2m", 3: "7z7z6m1m"}


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
@pytest.mark.parametrize("wall", [24, 16])
def test_guard_a_ready_flush_pushes_its_useless_pin(bot: str, profile: str, wall: int) -> None:
    """Guard.  Ready on a 索 清一色 (three melds, 22s 67s: 5s or 8s) with a drawn 4p, beside
    seat 1's pin flush: the 4p may deal in, but every other discard breaks a big hand that
    is ready now for one that is a step away.  A strong player pushes the 4p."""
    rules = get_rules(profile)
    laizi = rules.laizi_of(parse_tile("1z"))
    mine = [Meld(m["type"], tuple(parse_tiles(m["tiles"])), m["from_seat"]) for m in SOU]
    assert is_ready(parse_tiles("22s67s"), mine, laizi, rules)
    view = make_view("22s67s4p", profile=profile, wall=wall, dealer=2, indicator="1z",
                     melds={0: SOU, 1: PINS}, discards=PIN_RIVERS)
    ask(bot, view, [discard("4p")])


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("wall", [40, 24])
def test_guard_no_third_honour_meld_where_fengyise_is_contracted(bot: str, wall: int) -> None:
    """Guard.  In ``bianfeng`` a 风一色 is one of the hands whose third opening's feeder
    pays for all three losers (承包).  Seat 1 shows pungs of 东 and 西: a lone 发 may be his
    third meld; the loose 9m and 1p are as useless.  Greedy throws the 发 (a lone honour
    goes first); a reader keeps it."""
    assert "fengyise" in get_rules("bianfeng").one_suit_contract_hands
    honours = [meld("peng", "111z", 0), meld("peng", "333z", 2)]
    view = make_view("234m678m77s345s6z9m1p", profile="bianfeng", wall=wall, dealer=2,
                     indicator="6p", melds={1: honours},
                     discards={1: "1s9m7s2p", 2: "9s2m1p", 3: "3z4z1p"})
    ask(bot, view, [discard("9m"), discard("1p")])


#: closed: 77p beside 24m 5m 7m 8m 9m 12s 6s 9s 北: three steps from ready and an opening
#: to make; after the peng of 7p (and its best discard), opened and two steps away
CLOSED_FAR = "77p24m8m12s6s9s4z5m7m9m"


def test_the_first_opening_doubles_what_a_closed_seat_pays() -> None:
    """The rules' side: the peng's opening joins this seat's multiplier in every profile
    (开口翻 counts the first opening), so it doubles its share of seat 1's win; in 开口翻
    it is even what lets that small win pass the minimum score (every loser 8: a closed
    seat would owe less)."""
    peng = [{"type": "peng", "tiles": "777p", "from": 2}]
    for profile, options in PER_OPENING:
        assert _my_share(profile, options, peng) == 2 * _my_share(profile, options, [])
    with pytest.raises(NotAWin):
        _my_share(*ONCE, [])
    assert _my_share(*ONCE, peng) > 0


def test_the_peng_leaves_the_closed_hand_two_steps_short() -> None:
    rules = get_rules("yuanhang")
    laizi = rules.laizi_of(parse_tile("9p"))
    tiles = parse_tiles(CLOSED_FAR)
    assert shanten(tiles, [], laizi, rules) == 3
    rest = list(tiles)
    rest.remove(parse_tile("7p"))
    rest.remove(parse_tile("7p"))
    pung = [Meld("peng", (parse_tile("7p"),) * 3, 2)]
    assert min(shanten([x for j, x in enumerate(rest) if j != i], pung, laizi, rules)
               for i in range(len(rest))) == 2


def _closed_view(profile: str, options: dict[str, Any], wall: int) -> SeatView:
    return make_view(CLOSED_FAR, profile=profile, options=options, indicator="9p",
                     wall=wall, dealer=2, melds=TWO_READY, discards=TWO_READY_RIVERS,
                     claim=("7p", 2), actions=[PASS, PENG_7P])


@pytest.mark.parametrize("bot", [ExpertBot, SearchBot])
@pytest.mark.parametrize(("profile", "options"), [*PER_OPENING, ONCE])
@pytest.mark.parametrize("wall", [16, 12])
def test_no_first_opening_for_a_far_closed_hand_with_the_switch(
        bot: type[ExpertBot], profile: str, options: dict[str, Any], wall: int) -> None:
    """Closed and three steps away, late, beside two seats with three melds each: the peng
    opens the hand (×2 on what it pays them, in every profile) for a step that leaves it
    two short with three or four draws to go.  With ``threat_openings`` the readers
    pass."""
    view = _closed_view(profile, options, wall)
    assert bot(1, threat_openings=True).choose(view) == action_from_json(PASS)


def test_the_threat_openings_switch_is_off_by_default() -> None:
    view = _closed_view("yuanhang", {}, 12)
    assert ExpertBot(1).choose(view) == action_from_json(PENG_7P)
