"""Decision problems of the sixteenth hunt (6 December 2026): the laizi (癞子) and 红中 in
``yuanhang`` and ``bianfeng`` (and ``bianfeng`` with 口口翻).  Each position has one answer
the rules and plain expected value settle (the amounts asked of
:func:`wuhan_mahjong.scoring.settle`, the waits of :mod:`wuhan_mahjong.analysis`), asked of
the bots it concerns in every profile where the answer is the same.

The table of the threat positions is the fifth hunt's (``TWO_READY``): seats 1 and 3 show
three melds each, seat 2 deals; the indicator is 4m, so the laizi is 5m (no meld or river
of the table holds one).

The faults it found (each test fails on the code before the fix it names):

* Closed and two steps from ready (78m 12p 456p 2s 777z 11z and the wild), beside the two
  seats with three melds each, at a wall of 32 or 20: the expert and the search bot konged
  the laizi, a kong their shanten calls free (the thirteen tiles left are as close as the
  best discard keeping the wild, ``free_laizi_kong``).  Its ×4 joins this seat's
  multiplier whether it wins or pays (Project decision 6): by the settlement seat 1's or
  seat 3's plain self-drawn win costs this seat 32 before the kong and 128 after it in
  口口翻; in ``bianfeng``'s 开口翻 their win is refused by the minimum score before it and
  costs 32 after it.  All for a replacement draw that hardly brings a hand two steps away
  and still to open closer.  The wild may be held (it is never thrown as a plain tile) and
  konged once the hand is ready.  The bots weigh a 暗杠 and a 癞子皮杠 so since the fifth
  and tenth hunts (``threat_kongs``); now a laizi kong too, before any rule makes it
  (``ExpertBot.threat_laizi_kongs``).
* The same hand with two laizi (78m 12p 456p 55m 777z 11z) at a wall of 20: the expert
  keeps a second wild only above a wall of 22 (``keep_two_laizi``), and then konged one.
  The same weighing holds it (a small hand may not win holding two, but the kong can wait
  until the hand is ready).

* The dealer, opened three times in 口口翻 (``yuanhang``; ``bianfeng`` with the option),
  holding 55m 3s and the laizi, draws a 4s: the soft self-drawn win collects 96.  After the
  laizi kong the 2s, 5s and a laizi win 杠上花 at 金顶 (1,200; 11 of 121 unseen tiles, 109
  points on that draw), and a miss leaves the hand ready and hard, its later self-drawn
  wins collecting 768 (384 on a laizi).  The expert and the search bot took the 96: their
  rule (``bloom_first``, the seventh hunt) counted the draw alone against 1.5 times the
  win in hand.  The kong's line now counts the hand after a miss as well
  (``ExpertBot.bloom_later``; off in ``laizishanzhuang``, where it would lose the seventh
  hunt's kong for the bloom over a soft win of 16).

Greedy, the baseline, reads no opponent and makes both kongs (its free kong, and its laizi
rule for the minimum score), and takes every win it is offered: the baseline's design,
noted and left alone.  The guards (the bots already right) are at the end of each part.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, make_view, meld
from test_bots_hunt5 import TWO_READY, TWO_READY_RIVERS

from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.scoring import NotAWin, settle
from wuhan_mahjong.tiles import parse_tile
from wuhan_mahjong.win_record import parse_win_record

BOTS = ("greedy", "expert", "search")
READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)
LAIZI_KONG = {"type": "special_kong", "kind": "laizi"}
LAIZI_DISCARD = {"type": "laizi_discard"}
#: the tables of the theme: 远航, 边锋 (开口翻), and 边锋 with 口口翻 (where 癞子皮杠 exists)
TABLES = [("yuanhang", {}), ("bianfeng", {}), ("bianfeng", {"opening_scoring": "per_opening"})]
#: the same and ``laizishanzhuang`` (its laizi kong ×2), where a threat's answer is the same
ALL_TABLES = [*TABLES, ("laizishanzhuang", {})]


def _threat_view(hand: str, profile: str, options: dict[str, Any], wall: int,
                 melds: list[dict[str, Any]] | None = None) -> SeatView:
    """Seat 0's turn at the fifth hunt's table (seats 1 and 3 with three melds each, seat 2
    the dealer), the laizi 5m; its laizi kong and 丢癞子 offered beside its discards."""
    return make_view(hand, profile=profile, options=options, indicator="4m", wall=wall,
                     dealer=2, melds={**TWO_READY, 0: melds or []},
                     discards=TWO_READY_RIVERS, extra_actions=[LAIZI_KONG, LAIZI_DISCARD])


def _plain_discards(view: SeatView) -> list[dict[str, Any]]:
    return [a for a in view["legal_actions"] if a["type"] == "discard"]


def _pays(profile: str, options: dict[str, Any], winner: int, kongs: int,
          laizi_discards: int = 0) -> int:
    """What seat 0 (closed, ``kongs`` laizi kongs and ``laizi_discards`` 丢癞子 of its own)
    pays on ``winner``'s plain self-drawn win: seat 1 with 88p 34p drawing 2p, seat 3 with
    55s 78s drawing 9s, each beside his three melds, hard, nobody else's factors; 0 where
    the minimum score refuses the win (Project decision 14)."""
    hands = {1: ("88p34p", "2p"), 3: ("55s78s", "9s")}
    seats: list[dict[str, Any]] = [{"hand": "", "melds": []} for _ in range(4)]
    for s, ms in TWO_READY.items():
        # the view's chis name a feeder the record refuses (a chi takes the previous
        # seat's discard); who fed a chi changes no amount here
        seats[s] = {"hand": "", "melds": [
            {"type": m["type"], "tiles": m["tiles"],
             "from": (s - 1) % 4 if m["type"] == "chi" else m["from_seat"]} for m in ms]}
    seats[winner]["hand"] = hands[winner][0]
    seats[0] = {"hand": "78m12p456p2s777z11z", "melds": [], "kongs": {"laizi": kongs},
                "laizi_discards": laizi_discards}
    rec = {"profile": profile, "options": options, "dealer": 2, "indicator": "4m",
           "winner": winner, "win_by": "self_draw", "winning_tile": hands[winner][1],
           "seats": seats}
    if not options:
        del rec["options"]
    try:
        return -settle(parse_win_record(rec)).deltas[0]
    except NotAWin:
        return 0


# ---------------------------------------------------------------- faults found

#: closed, 78m 12p 456p 2s 777z 11z and the wild 5m: two steps from ready (a 2/5/8 pair
#: and a meld to make, and an opening); the laizi kong costs no step by the shanten
FAR_ONE = "78m12p456p2s5m777z11z"
#: the same with two wilds (55m) for the 2s
FAR_TWO = "78m12p456p55m777z11z"


#: what seat 0 pays on either threat's plain self-drawn win: as it is, after the laizi
#: kong, after 丢癞子 (0: the win is refused by the minimum score)
PAYS = {("yuanhang", ""): (32, 128, 64), ("bianfeng", ""): (0, 32, 0),
        ("bianfeng", "per_opening"): (32, 128, 64)}


@pytest.mark.parametrize(("profile", "options"), TABLES)
def test_the_laizi_kong_quadruples_what_this_seat_pays(profile: str,
                                                       options: dict[str, Any]) -> None:
    """The rules' side: the laizi kong's ×4 (丢癞子's ×2) joins what seat 0 pays when
    either seat with three melds wins self-drawn: 32 → 128 (64) in 口口翻 (``yuanhang``,
    ``bianfeng`` with the option).  In ``bianfeng``'s 开口翻 their plain win is refused by
    the minimum score while seat 0 holds no factor (no loser owes 20); the kong's ×4 is
    what lets it pass, and seat 0 pays 32 where it paid nothing (丢癞子's ×2 does not)."""
    key = (profile, options.get("opening_scoring", ""))
    for winner in (1, 3):
        assert (_pays(profile, options, winner, 0), _pays(profile, options, winner, 1),
                _pays(profile, options, winner, 0, laizi_discards=1)) == PAYS[key]


def test_the_kong_is_free_by_the_shanten() -> None:
    """The bots' side: the kong costs no step by the shanten (``free_laizi_kong`` would
    make it), so only the threat says no."""
    t = SeatReading(_threat_view(FAR_ONE, "yuanhang", {}, 20))
    assert GreedyBot().laizi_kong_is_free(t)


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize(("profile", "options"), ALL_TABLES)
@pytest.mark.parametrize("wall", [32, 20])
def test_no_free_laizi_kong_of_a_far_hand_beside_ready_seats(
        bot: str, profile: str, options: dict[str, Any], wall: int) -> None:
    """Two steps from ready and closed, beside two seats with three melds each: the laizi
    kong's ×4 quadruples this seat's share of their likely win for a replacement draw; the
    wild is held and a plain tile goes (丢癞子 would double the share and lose the wild).
    The expert and the search bot made the kong (``ExpertBot.threat_laizi_kongs``), in
    ``laizishanzhuang`` too (its kong ×2)."""
    view = _threat_view(FAR_ONE, profile, options, wall)
    ask(bot, view, _plain_discards(view))


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize(("profile", "options"), ALL_TABLES)
def test_no_kong_of_one_of_two_wilds_of_a_far_hand_beside_ready_seats(
        bot: str, profile: str, options: dict[str, Any]) -> None:
    """The same with two wilds at a wall of 20 (below ``keep_two_laizi``'s 22): neither is
    konged nor thrown.  The expert and the search bot konged one."""
    view = _threat_view(FAR_TWO, profile, options, 20)
    ask(bot, view, _plain_discards(view))


@pytest.mark.parametrize("hand", [FAR_ONE, FAR_TWO])
def test_the_threat_laizi_kongs_switch_plays_as_before(hand: str) -> None:
    view = _threat_view(hand, "yuanhang", {}, 20)
    assert ExpertBot(1, threat_laizi_kongs=False).choose(view) == action_from_json(LAIZI_KONG)
    assert ExpertBot(1, threat_kongs=False).choose(view) == action_from_json(LAIZI_KONG)


# ---------------------------------------------------------------- guards

@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "options"), TABLES)
def test_guard_the_free_laizi_kong_with_nobody_opened(bot: str, profile: str,
                                                      options: dict[str, Any]) -> None:
    """Guard, the other side: the same hand at a wall of 48 with nobody opened (no seat can
    win yet) makes the free kong, its factor, a hard hand and the draw for nothing."""
    view = make_view(FAR_ONE, profile=profile, options=options, indicator="4m", wall=48,
                     dealer=2, extra_actions=[LAIZI_KONG, LAIZI_DISCARD])
    ask(bot, view, [LAIZI_KONG])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "options"), TABLES)
@pytest.mark.parametrize("wall", [32, 20])
def test_guard_a_ready_hand_kongs_its_laizi_beside_ready_seats(
        bot: str, profile: str, options: dict[str, Any], wall: int) -> None:
    """Guard.  Opened (678m from seat 3), 456p 789p 22s 34s and the wild: the kong leaves
    it ready on 2s/5s hard (×4, and ×2 for 硬胡 against the soft waits the wild keeps), its
    replacement draw a chance of 杠上花; its win is as likely as theirs.  It is made."""
    view = _threat_view("456p789p22s34s5m", profile, options, wall,
                        melds=[meld("chi", "678m", 3)])
    ask(bot, view, [LAIZI_KONG])


# ------------------------------------------ the soft win in hand against the laizi kong

#: the dealer, opened three times (口口翻: ×8), holding 55m 3s and the laizi 1s (indicator
#: 9s), has drawn a 4s: a soft small win (the wild for 2s or 5s)
THREE_OPEN = [meld("chi", "123m", 3), meld("peng", "777p", 2), meld("peng", "999p", 1)]
WIN = {"type": "win"}
#: the 口口翻 tables (in ``bianfeng``'s 开口翻 the soft win fails the minimum score)
PER_OPENING = [("yuanhang", {}), ("bianfeng", {"opening_scoring": "per_opening"})]


def _soft_win_view(profile: str, options: dict[str, Any], wall: int,
                   melds: dict[int, list[dict[str, Any]]] | None = None,
                   drawn: str = "4s") -> SeatView:
    """The dealer's turn after drawing ``drawn``: the 4s beside the wild, or the laizi
    itself beside 34s (the same 14 tiles, the same soft win)."""
    view: dict[str, Any] = dict(make_view(
        "55m3s4s1s", profile=profile, options=options, indicator="9s", wall=wall, dealer=0,
        melds={0: THREE_OPEN, **(melds or {})},
        actions=[WIN, LAIZI_KONG, LAIZI_DISCARD, *[{"type": "discard", "tile": x}
                                                   for x in ("5m", "3s", "4s")]]))
    view["drawn"] = drawn
    return view  # type: ignore[return-value]


def _collects(profile: str, options: dict[str, Any], hand: str, tile: str, win_by: str,
              laizi_kongs: int) -> int:
    seats: list[dict[str, Any]] = [{"hand": "", "melds": []} for _ in range(4)]
    seats[0] = {"hand": hand, "kongs": {"laizi": laizi_kongs},
                "melds": [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]}
                          for m in THREE_OPEN]}
    rec: dict[str, Any] = {"profile": profile, "dealer": 0, "indicator": "9s", "winner": 0,
                           "win_by": win_by, "winning_tile": tile, "seats": seats}
    if options:
        rec["options"] = options
    return settle(parse_win_record(rec)).total


@pytest.mark.parametrize(("profile", "options"), PER_OPENING)
def test_the_kong_line_by_the_settlement(profile: str, options: dict[str, Any]) -> None:
    """The rules' side: the soft self-drawn win in hand collects 96 (the dealer's ×2, three
    openings, soft).  After the laizi kong the 13 tiles left (55m 34s) are ready, hard, on
    2s/5s and a drawn laizi: the replacement wins 杠上花 at 金顶 (1,200) on 11 of the 121
    unseen tiles, 109 points on that draw alone; a later self-drawn 2s or 5s collects 768
    (a laizi 384, soft), eight times the win in hand.  With the chance of a later win
    (about a half at a wall of 40, a third at 20, by the chance model) against what this
    seat then pays if another wins (its ×32 at the cap, 300), the kong's line is worth
    about 109 + 0.91 × 249 at a wall of 40 and 109 + 0.91 × 146 at 20, against 96."""
    assert _collects(profile, options, "55m3s1s", "4s", "self_draw", 0) == 96
    for tile in ("2s", "5s", "1s"):
        assert _collects(profile, options, "55m34s", tile, "kong_bloom", 1) == 1200
    assert [_collects(profile, options, "55m34s", x, "self_draw", 1)
            for x in ("2s", "5s", "1s")] == [768, 768, 384]
    assert _collects(profile, options, "55m34s", "1s", "self_draw", 0) == 96  # a drawn laizi
    t = SeatReading(_soft_win_view(profile, options, 40))
    assert t.unseen_total == 121
    assert sum(t.unseen[x] for x in (t.laizi, *(parse_tile(x) for x in ("2s", "5s")))) == 11


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize(("profile", "options"), PER_OPENING)
@pytest.mark.parametrize("wall", [40, 20])
@pytest.mark.parametrize("drawn", ["4s", "1s"])
def test_the_laizi_kong_over_a_soft_win_worth_an_eighth(bot: str, profile: str,
                                                        options: dict[str, Any],
                                                        wall: int, drawn: str) -> None:
    """The soft win of 96 is passed for the laizi kong: the 杠上花 draw alone is worth 109,
    and a miss leaves the hand ready, hard, its wins eight times as large; whether the 4s
    or the laizi itself was drawn (ready on 2s/5s with 34s, the drawn laizi wins soft).
    The expert and the search bot took the win (``bloom_first`` counted the draw alone
    against 1.5 times the win in hand; ``ExpertBot.bloom_later`` counts the hand after a
    miss)."""
    ask(bot, _soft_win_view(profile, options, wall, drawn=drawn), [LAIZI_KONG])


@pytest.mark.parametrize("drawn", ["4s", "1s"])
def test_the_bloom_later_switch_plays_as_before(drawn: str) -> None:
    view = _soft_win_view("yuanhang", {}, 40, drawn=drawn)
    assert ExpertBot(1, bloom_later=False).choose(view) == action_from_json(WIN)


@pytest.mark.parametrize(("profile", "options"), PER_OPENING)
def test_guard_the_win_is_taken_beside_a_ready_seat(profile: str,
                                                    options: dict[str, Any]) -> None:
    """Guard, the other side: beside seat 2 showing three melds (read as ready, able to
    win on this seat's next discards, which now cost ×32 at the cap) the win in hand is
    taken, as ``bloom_first``'s gate asks."""
    view = _soft_win_view(profile, options, 40, melds={2: [
        meld("peng", "777m", 1), meld("chi", "678p", 1), meld("peng", "333p", 3)]})
    ask("expert", view, [WIN])
    ask("search", view, [WIN])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("profile", "options"), TABLES)
@pytest.mark.parametrize("wall", [40, 20])
def test_guard_three_wilds_of_a_ready_hand_one_is_konged(bot: str, profile: str,
                                                         options: dict[str, Any],
                                                         wall: int) -> None:
    """Guard.  Opened (123m), 456p 55m 34s 9p and three laizi (1s, indicator 9s), nobody
    else opened: a small hand may win holding one wild only (Project decision 12), so two
    must go before any win.  The kong (×4, a replacement draw) goes first: the 9p thrown
    keeps three wilds that cannot win, 丢癞子 doubles where the kong quadruples and draws
    nothing."""
    view = make_view("456p55m34s111s9p", profile=profile, options=options, indicator="9s",
                     wall=wall, melds={0: [meld("chi", "123m", 3)]},
                     extra_actions=[LAIZI_KONG, LAIZI_DISCARD])
    ask(bot, view, [LAIZI_KONG])
