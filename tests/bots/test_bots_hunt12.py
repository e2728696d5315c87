"""Decision problems of the twelfth hunt (6 December 2026): ``laizishanzhuang`` (赖子山庄),
the profile where big hands add (10 each, RULES §17.5, Project decision 11), 发财 is a
must-kong tile beside 红中, the laizi kong pays ×2, no minimum score holds and the caps
are 400 / 金顶 500 (exceeded, not reached) / 光明顶 600.  Each position has one answer the
rules and plain expected value settle (the arithmetic checked by the analysis and the
settlement, not by the bots), asked of the bots it concerns in every profile where the
answer is the same.

The fault it found (the tests fail on the code before the fix it names):

* Opened by three pin pengs (111p 888p 999p) with 22p 55p 3p in hand: throwing the 3p
  waits on the 2p/5p shanpon, four tiles, each a 清一色碰碰胡 (two big hands: 20 in
  ``laizishanzhuang``, where they add, as in the profiles where they double); throwing
  the 2p waits on 1p/4p, five tiles, each a 清一色 alone (10).  Far from the caps the
  shanpon's wins collect twice as much, 4 × 2 against 5 × 1.  The expert and the search
  bot threw the 3p in ``yuanhang`` and ``bianfeng`` (the waits' value, by the
  settlement) and the 2p in ``laizishanzhuang``, where the waits' value is off and a
  ready discard is ranked by its tiles times the win it keeps
  (``ExpertBot.ready_big``), every big hand counted as one.  A winning tile is now
  counted by what its big-hand base collects within the caps
  (``ExpertBot.ready_bases``, :meth:`ExpertBot._big_bases`); where the caps hold both
  wins at 金顶, the five tiles still go first (a guard below).

The positions the bots already answered right are below it, marked as guards.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.analysis import waits
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.scoring import big_hand_base, settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles
from wuhan_mahjong.win_record import parse_win_record

READERS = ("expert", "search")  # the bots that value their waits (greedy counts tiles)
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")

# ---------------------------------------------------------------- faults found

#: three pin pengs, one from each other seat: the hand is opened and a 清一色 in the making
PIN_PENGS = [meld("peng", "111p", 1), meld("peng", "999p", 2), meld("peng", "888p", 3)]
PIN_HAND = "22p55p3p"
RIVERS = {1: "1s9m3z", 2: "7m4z1m", 3: "9s6z2s"}


def _pin_view(profile: str, wall: int, kongs: dict[str, int] | None = None) -> SeatView:
    """Seat 0's turn (laizi 南, seat 1 deals), with ``kongs`` its special kongs."""
    view = make_view(PIN_HAND, profile=profile, indicator="1z", wall=wall, dealer=1,
                     melds={0: PIN_PENGS}, discards=RIVERS)
    for kind, n in (kongs or {}).items():
        view["seats"][0]["special_kongs"][kind] = n
    return view


def _melds() -> list[Meld]:
    return [Meld("peng", tuple(parse_tiles(m["tiles"])), m["from_seat"]) for m in PIN_PENGS]


def _collects(profile: str, hand: str, tile: str, kongs: dict[str, int]) -> dict[str, int]:
    """What the win of ``hand`` (the 4 tiles beside the pengs) on ``tile`` collects, self-drawn
    and on each other seat's discard, by the settlement (the other seats show nothing)."""
    out = {}
    for win_by, frm in (("self_draw", None), ("discard", 1), ("discard", 2), ("discard", 3)):
        seats: list[dict[str, Any]] = [{"hand": "", "melds": []} for _ in range(4)]
        seats[0] = {"hand": hand, "kongs": kongs,
                    "melds": [{"type": "peng", "tiles": m["tiles"], "from": m["from_seat"]}
                              for m in PIN_PENGS]}
        rec: dict[str, Any] = {"profile": profile, "dealer": 1, "indicator": "1z", "winner": 0,
                               "win_by": win_by, "winning_tile": tile, "seats": seats}
        if frm is not None:
            rec["from"] = frm
        out[f"{win_by} {frm}"] = settle(parse_win_record(rec)).total
    return out


@pytest.mark.parametrize("profile", PROFILES)
def test_the_shanpon_wins_two_big_hands_on_fewer_tiles(profile: str) -> None:
    """The rules' side: after the 3p the hand wins on 2p and 5p, each a 清一色碰碰胡 (base
    20: added in ``laizishanzhuang``, doubled elsewhere); after the 2p on 1p and 4p, a
    清一色 alone (10).  In ``laizishanzhuang``, far from the caps, each shanpon win
    collects twice what a 1p/4p win does, self-drawn or on any seat's discard (in
    ``yuanhang``, 口口翻, the self-drawn one is held at 金顶): four tiles (eight with the
    laizi) at that value beat five (nine)."""
    view = _pin_view(profile, 40)
    t = SeatReading(view)
    rules = t.rules
    melds = _melds()
    assert list(melds) == list(t.melds)

    def bases(hand13: str) -> dict[int, int]:
        return {w.tile: max(big_hand_base(r.big_hands, rules) for r in w.readings)
                for w in waits(parse_tiles(hand13), melds, t.laizi, rules)}

    laizi = t.laizi  # a drawn laizi wins either hand too, as the same big hands
    assert bases("22p55p") == {parse_tile("2p"): 20, parse_tile("5p"): 20, laizi: 20}
    assert bases("23p55p") == {parse_tile("1p"): 10, parse_tile("4p"): 10, laizi: 10}
    assert t.unseen[parse_tile("2p")] + t.unseen[parse_tile("5p")] == 4
    assert t.unseen[parse_tile("1p")] + t.unseen[parse_tile("4p")] == 5
    shanpon = _collects(profile, "22p55p", "5p", {})
    flush = _collects(profile, "23p55p", "4p", {})
    for way in shanpon:
        if profile == "laizishanzhuang":  # opened once (开口翻): far from the caps
            assert shanpon[way] == 2 * flush[way], way
        assert 4 * shanpon[way] > 5 * flush[way], way  # the laizi aside
        assert 8 * shanpon[way] > 9 * flush[way], way  # with the laizi's four copies


@pytest.mark.parametrize("wall", [40, 20])
@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
def test_a_wait_of_two_big_hands_counts_twice(profile: str, bot: str, wall: int) -> None:
    """The 3p goes, for the 清一色碰碰胡 shanpon: the expert and the search bot threw the
    2p in ``laizishanzhuang``, counting every big hand as one (``ready_bases``)."""
    ask(bot, _pin_view(profile, wall), [discard("3p")])


def test_the_ready_bases_switch_plays_as_before() -> None:
    """Off, the expert throws the 2p in ``laizishanzhuang`` as before."""
    view = _pin_view("laizishanzhuang", 40)
    legal = [action_from_json(a) for a in view["legal_actions"]]
    choice = ExpertBot(1, ready_bases=False).choose(view)
    assert choice in legal and choice == action_from_json(discard("2p"))


# ---------------------------------------------------------------- guards

#: four 红中 kongs and a laizi kong beside the opening: ×64, every win at 金顶
GOLDEN = {"red": 4, "laizi": 1}


def test_at_the_golden_cap_both_waits_collect_the_same() -> None:
    """The rules' side of the guard below: in ``laizishanzhuang`` with ×64 (the opening,
    four 红中 kongs, a laizi kong at ×2) a 清一色 alone exceeds 400 from every loser, self-
    drawn or on a discard, so every win of either wait is settled at 金顶 (500, 光明顶
    600 for a loser who never opened): the base 20 adds nothing."""
    shanpon = _collects("laizishanzhuang", "22p55p", "5p", GOLDEN)
    flush = _collects("laizishanzhuang", "23p55p", "4p", GOLDEN)
    assert shanpon == flush
    assert set(shanpon.values()) == {3 * 600}  # the three others never opened


@pytest.mark.parametrize("wall", [40, 20])
@pytest.mark.parametrize("bot", READERS)
def test_at_the_golden_cap_the_wider_wait_goes_first(bot: str, wall: int) -> None:
    """Guard: where every win is at 金顶 either way, the 2p goes for five winning tiles
    (the two big hands are counted within the caps, not as twice the win)."""
    ask(bot, _pin_view("laizishanzhuang", wall, GOLDEN), [discard("2p")])
