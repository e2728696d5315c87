"""Decision problems of the nineteenth hunt (6 December 2026): ``laizishanzhuang`` (赖子山庄),
where no minimum score holds (every opened seat may win on any discard, so every opened
seat is a threat), one opening is enough, 发财 is a must-kong tile beside 红中, big hands
add 10 each and the caps are 400 / 金顶 500 / 光明顶 600.  Each position has one answer the
rules and plain expected value settle (the arithmetic checked by the analysis and the
settlement, not by the bots), asked of the bots it concerns at every table where the
answer is the same.

The faults it found (the tests fail on the code before the fix each names):

* Opened by a chi of 456p, ready either way by 3456m 789s 55s 67s: the 3m and the 6m
  each leave the 5s/8s wait (the same tiles, the same amounts by the settlement).  Seat
  1, opened twice (a peng of 东, a chi of 789m) with two 红中 kongs, let the 6m go by on
  seat 2's discard after his last discard, where his win would have passed in every
  profile: the 6m cannot complete his hand, the 3m is live.  The 6m goes.  The expert
  and the search bot threw the 3m in ``laizishanzhuang`` at walls 60 to 32 (and, the
  tiles' order reversed, the 6m seat 1 did not let go by in ``yuanhang`` and
  ``bianfeng``): a ready hand's discards are ranked by their waits alone (no deal-in
  term: ``deal_in_weight`` 0), the tiles' shape breaks the tie, and the swap for a tile
  as fast and all but safe (``ExpertBot.safe_ties``) skipped a ready hand.  With
  ``ExpertBot.ready_ties`` it swaps for another ready discard whose waits are worth as
  much by the settlement.  The switch is off by default: on, it changes a discard of the
  shipped expert in the real games an older test replays
  (``test_bots_safe_swap.py::test_a_swap_is_as_fast_and_cheaper``, which then finds no
  swap of its own), so the positions are asked with it on.  Greedy, the baseline, reads
  no river and is not asked.

* Closed and two steps from ready (78m 12p 4569p 2s 8s 111z; a meld, a 2/5/8 pair and an
  opening to make) beside the fifth hunt's two seats with three melds each, at a wall of
  20 or 16, a drawn 发财 (a must-kong tile in ``laizishanzhuang``) or 红中 (there and in
  ``yuanhang``): every bot konged it.  The kong's ×2 joins this seat's multiplier whether it
  wins or pays (Project decision 6): by the settlement either seat's plain self-drawn win
  costs this seat twice as much after it.  The tile cannot be thrown, but it can be held
  and konged once the hand comes close (then it blocks the win, and it is konged: a
  guard).  The expert weighed a 暗杠, 蓄杠, 冲杠, laizi and pi kong against a read threat
  (``ExpertBot.threat_kongs``, :meth:`ExpertBot.kong_costs`), not a 红中 or 发财 kong; it
  now weighs them too at a live wall of 24 or less (``ExpertBot.threat_must_kongs``; the
  third hunt's guard, a far hand at 48 that still konges, keeps its answer).

The positions the bots already answered right are below them, marked as guards.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld
from test_bots_hunt5 import TWO_READY, TWO_READY_RIVERS

from wuhan_mahjong.analysis import waits
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import evaluator
from wuhan_mahjong.bots.search import SearchBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import NotAWin, settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles
from wuhan_mahjong.win_record import parse_win_record

READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")


def _record_seat(melds: list[dict[str, Any]], hand: str = "",
                 kongs: dict[str, int] | None = None) -> dict[str, Any]:
    """One seat of a settlement record from a view's melds (a chi's feeder is the previous
    seat in a record; who fed a meld changes no amount here)."""
    return {"hand": hand, "kongs": kongs or {},
            "melds": [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]}
                      for m in melds]}


def _settle(profile: str, indicator: str, winner: int, win_by: str, frm: int | None,
            tile: str, seats: list[dict[str, Any]]) -> dict[int, int]:
    """What each loser pays, by the settlement (``NotAWin`` if the minimum score refuses
    the win); seat 2 deals."""
    rec: dict[str, Any] = {"profile": profile, "dealer": 2, "indicator": indicator,
                           "winner": winner, "win_by": win_by, "winning_tile": tile,
                           "seats": seats, **({} if frm is None else {"from": frm})}
    return {p.loser: int(p.amount) for p in settle(parse_win_record(rec)).payments}


def _payments(profile: str, winner: int, win_by: str, frm: int | None, tile: str,
              melds: dict[int, list[dict[str, Any]]], hand: str,
              red: dict[int, int] | None = None) -> dict[int, int]:
    """What each loser pays for ``winner``'s hard win (his concealed ``hand`` beside his
    ``melds``) on ``tile``; the laizi is 1s (indicator 9s), held by nobody."""
    seats = [_record_seat(melds.get(s, []), hand if s == winner else "",
                          {"red": (red or {}).get(s, 0)}) for s in range(4)]
    return _settle(profile, "9s", winner, win_by, frm, tile, seats)


# ---------------------------------------------------------------- faults found

#: this seat: a chi of 456p (from seat 3); seat 1: a peng of 东 (from seat 3) and a chi of
#: 789m (from this seat), two 红中 kongs
READY_MELDS = {0: [meld("chi", "456p", 3)],
               1: [meld("peng", "111z", 3), meld("chi", "789m", 0)]}
READY_RED = {1: 2}
READY_HAND = "3456m789s55s67s"


def _ready_view(profile: str, wall: int, let_go: str) -> SeatView:
    """Seat 0's turn; seat 2 deals.  Seat 1's last discard is the 8s; seat 2's ``let_go``
    (3m or 6m) came after it, and seat 1 let it go by."""
    rivers = {0: "8m>1 1p5z", 1: "1p9s4z8s", 2: "2z3z9p6z" + let_go,
              3: "1z>1 1m5p>0 9m2m"}
    return make_view(READY_HAND, profile=profile, indicator="9s", wall=wall, dealer=2,
                     melds=READY_MELDS, discards=rivers, red_kongs=READY_RED)


@pytest.mark.parametrize("profile", PROFILES)
def test_the_3m_and_the_6m_leave_the_same_waits(profile: str) -> None:
    """The rules' side: after either discard the hand wins on the 5s and the 8s alone
    (``analysis.waits``), and each win collects the same from every loser, self-drawn
    and on a discard (``scoring.settle``)."""
    rules = get_rules(profile)
    laizi = rules.laizi_of(parse_tile("9s"))
    melds = [Meld("chi", tuple(parse_tiles("456p")), 3)]
    for thrown in ("3m", "6m"):
        hand = parse_tiles(READY_HAND)
        hand.remove(parse_tile(thrown))
        assert {w.tile for w in waits(hand, melds, laizi, rules)} == set(
            [*parse_tiles("5s8s"), laizi])
    for tile in ("5s", "8s"):
        for win_by, frm in (("self_draw", None), ("discard", 1), ("discard", 2), ("discard", 3)):
            paid = [_settled(profile, win_by, frm, tile, h)
                    for h in ("456m789s55s67s", "345m789s55s67s")]
            assert paid[0] == paid[1]
            if profile == "laizishanzhuang" or win_by == "self_draw":
                assert paid[0] and min(paid[0].values()) > 0


def _settled(profile: str, win_by: str, frm: int | None, tile: str,
             hand: str) -> dict[int, int] | None:
    """This seat's win, ``None`` where the minimum score refuses it (its small win on a
    closed seat's discard in ``yuanhang`` and ``bianfeng``, either hand alike)."""
    try:
        return _payments(profile, 0, win_by, frm, tile, READY_MELDS, hand, READY_RED)
    except NotAWin:
        return None


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("tile", ["3m", "6m"])
def test_his_win_on_the_let_go_tile_would_have_passed(profile: str, tile: str) -> None:
    """Seat 1's win on seat 2's 3m or 6m (any hand of his seven tiles, here 45m 22p
    678p) passes the minimum score in every profile: his pass was a win refused, not
    one the minimum forbade, so the tile he let go by cannot complete his hand."""
    paid = _payments(profile, 1, "discard", 2, tile, READY_MELDS, "45m22p678p", READY_RED)
    assert min(paid.values()) > 0


@pytest.mark.parametrize("bot", [ExpertBot, SearchBot])
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [60, 48, 32, 20])
@pytest.mark.parametrize("let_go", ["3m", "6m"])
def test_the_ready_tile_he_let_go_by_goes(bot: type[ExpertBot], profile: str, wall: int,
                                          let_go: str) -> None:
    """Ready either way on the same waits: the tile seat 1 let go by goes, not the live
    one.  The expert and the search bot threw the live 3m in ``laizishanzhuang`` at walls
    60 to 32 (the 6m let go by), and the live 6m in ``yuanhang`` and ``bianfeng`` at most
    walls (the 3m let go by); with ``ExpertBot.ready_ties`` they throw the let-go tile."""
    view = _ready_view(profile, wall, let_go)
    assert bot(1, ready_ties=True).choose(view) == action_from_json(discard(let_go))


def test_the_ready_ties_switch_is_off_by_default() -> None:
    """Off (the default), the expert throws the live tile (the tiles' shape decides)."""
    for off in (ExpertBot(1), ExpertBot(1, ready_ties=False)):
        assert (off.choose(_ready_view("laizishanzhuang", 60, "6m"))
                == action_from_json(discard("3m")))
        assert off.choose(_ready_view("yuanhang", 60, "3m")) == action_from_json(discard("6m"))


#: closed, two steps from ready (78m 12p 4569p 2s 8s 111z: a meld and a 2/5/8 pair to make,
#: and the opening it needs) with a drawn must-kong tile
FAR_HAND = "78m12p4569p2s8s111z"
MUST_KONG = {"green": ("6z", {"type": "special_kong", "kind": "green"}),
             "red": ("7z", {"type": "special_kong", "kind": "red"})}
#: where the kong doubles what this seat pays on either threat's plain win
KONG_TABLES = [("green", "laizishanzhuang"), ("red", "laizishanzhuang"), ("red", "yuanhang")]


def _must_view(kind: str, profile: str, wall: int, hand: str = FAR_HAND,
               melds: list[dict[str, Any]] | None = None) -> SeatView:
    """Seat 0's turn at the fifth hunt's table (seats 1 and 3 with three melds each, seat 2
    deals, the laizi 5m) holding ``hand`` and the drawn 发财 or 红中, its kong offered."""
    tile, kong = MUST_KONG[kind]
    return make_view(hand + tile, profile=profile, indicator="4m", wall=wall, dealer=2,
                     melds={**TWO_READY, 0: melds or []}, discards=TWO_READY_RIVERS,
                     extra_actions=[kong])


def _seat0_pays(profile: str, winner: int, kind: str, kongs: int) -> int:
    """What seat 0 (closed, ``kongs`` kongs of ``kind`` of its own) pays on ``winner``'s
    plain self-drawn win: seat 1 with 88p 34p drawing 2p, seat 3 with 55s 78s drawing 9s,
    each beside his three melds, hard, nobody else's factors; 0 where the minimum score
    refuses it."""
    hand, tile = {1: ("88p34p", "2p"), 3: ("55s78s", "9s")}[winner]
    # a chi takes the previous seat's discard in a record (the view's name another feeder)
    melds = {s: [{**m, "from_seat": (s - 1) % 4 if m["type"] == "chi" else m["from_seat"]}
                 for m in ms] for s, ms in TWO_READY.items()}
    seats = [_record_seat(melds.get(s, []), hand if s == winner else "") for s in range(4)]
    seats[0]["kongs"] = {kind: kongs}
    try:
        return _settle(profile, "4m", winner, "self_draw", None, tile, seats)[0]
    except NotAWin:
        return 0


@pytest.mark.parametrize(("kind", "profile"), KONG_TABLES)
def test_the_must_kong_doubles_what_this_seat_pays(kind: str, profile: str) -> None:
    """The rules' side: 发财 is a must-kong tile in ``laizishanzhuang`` (红中 in every
    profile), never a discard; its kong's ×2 doubles what seat 0 pays when either seat
    with three melds wins self-drawn (``scoring.settle``): 8 → 16 in ``laizishanzhuang``,
    32 → 64 in ``yuanhang``.  (In ``bianfeng``'s 开口翻 their plain win is refused by the
    minimum score either way, so the answer there rests on no plain count; not asked.)"""
    rules = get_rules(profile)
    assert parse_tile(MUST_KONG[kind][0]) in rules.must_kong_tiles
    view = _must_view(kind, profile, 20)
    assert discard(MUST_KONG[kind][0]) not in view["legal_actions"]
    for winner in (1, 3):
        before, after = (_seat0_pays(profile, winner, kind, n) for n in (0, 1))
        assert before > 0 and after == 2 * before


@pytest.mark.parametrize("wall", [20, 16])
def test_the_far_hand_can_still_win(wall: int) -> None:
    """The bots' side: two steps from ready and closed, with four or five draws left, the
    hand is not hopeless (``ExpertBot.hopeless``: that rule, ``hopeless_holds``, does not
    hold the tile back), and the kong leaves it two steps away."""
    view = _must_view("green", "laizishanzhuang", wall)
    t = SeatReading(view)
    ev = evaluator(t.hand, t.melds, t)
    assert ev.best()[0] == 2 and not ExpertBot(1).hopeless(t, 2, False)
    after = [x for x in t.hand if x != parse_tile("6z")]
    assert evaluator(after, t.melds, t).best()[0] == 2


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize(("kind", "profile"), KONG_TABLES)
@pytest.mark.parametrize("wall", [20, 16])
def test_no_must_kong_of_a_far_hand_beside_ready_seats(bot: str, kind: str, profile: str,
                                                       wall: int) -> None:
    """Two steps from ready and closed, beside two seats with three melds each: the 发财
    (or 红中) is held and a plain tile goes; its kong would double this seat's share of
    their likely win.  The expert and the search bot konged it
    (``ExpertBot.threat_must_kongs``)."""
    view = _must_view(kind, profile, wall)
    ask(bot, view, [a for a in view["legal_actions"] if a["type"] == "discard"])


def test_the_threat_must_kongs_switch_plays_as_before() -> None:
    view = _must_view("green", "laizishanzhuang", 20)
    kong = action_from_json(MUST_KONG["green"][1])
    assert ExpertBot(1, threat_must_kongs=0).choose(view) == kong
    assert ExpertBot(1).choose(view) != kong


# ---------------------------------------------------------------- guards

@pytest.mark.parametrize("bot", ("greedy", *READERS))
@pytest.mark.parametrize(("kind", "profile"), [("green", "laizishanzhuang"),
                                               *(("red", p) for p in PROFILES)])
@pytest.mark.parametrize("wall", [20, 8])
def test_guard_a_hand_a_step_away_konges_its_must_tile(bot: str, kind: str, profile: str,
                                                       wall: int) -> None:
    """Guard.  Opened (a chi of 123m) and a step from ready (456p 789s 55m 34s) beside the
    same two seats: the held 发财 (红中) would block every win, and after its kong the hand
    is ready on 2s/5s; every bot konges it, late too."""
    view = _must_view(kind, profile, wall, hand="456p789s55m34s",
                      melds=[meld("chi", "123m", 3)])
    ask(bot, view, [MUST_KONG[kind][1]])


@pytest.mark.parametrize("bot", ("greedy", *READERS))
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [48, 16])
def test_guard_the_chi_that_opens_a_closed_ready_hand(bot: str, profile: str,
                                                      wall: int) -> None:
    """Guard.  Closed and ready in shape (234m 567m 55s 78s 345p, on 6s/9s), which no win
    can use before a claim opens the hand (no concealed win, RULES §9): the chi of seat
    3's 6p by 45p, the 3p then thrown, keeps the same wait and opens it.  Every bot
    chis (in ``laizishanzhuang`` one opening is enough and every win passes)."""
    view = make_view("234m567m55s78s345p", profile=profile, indicator="1z", wall=wall,
                     dealer=1, melds={1: [meld("peng", "777s", 2)]},
                     discards={1: "9m", 2: "1p4z", 3: "9s"}, claim=("6p", 3),
                     actions=[{"type": "chi", "tile": "4p"}, {"type": "pass"}])
    ask(bot, view, [{"type": "chi", "tile": "4p"}])
