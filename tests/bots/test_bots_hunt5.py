"""Decision problems of the fifth hunt (6 December 2026): kongs beside ready seats, the choice
between claims, the laizi's two ways out, and other situations the earlier hunts left out.
Each position has one answer the rules and plain expected value settle, asked of the bots
it concerns in every profile where the answer is the same.

The faults it found (each test fails on the code before the fix it names):

* A concealed kong (暗杠 ×4) of a closed hand three steps from ready, at a wall of 20 to
  32, beside two seats showing three melds each: the expert and the search bot made it for
  its replacement draw, though its factor joins this seat's multiplier whether it wins or
  pays (Project decision 6), and another seat is far likelier to win than this hand
  (``ExpertBot.threat_kongs``).  The same hand holding 777p made the 冲杠 on another
  seat's 7p, which opens it and doubles again (the same switch weighs it against the
  pass).

The positions the bots already answered right are below them, marked as guards.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json

READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)
BOTS = ("greedy", "expert", "search")
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")
PASS = {"type": "pass"}
KONG_7P = {"type": "kong", "kind": "concealed", "tile": "7p"}

#: two opened seats with three mixed melds each (no family read), likely ready late:
#: seat 1 345s 789m 111m, seat 3 678s 西 123p
TWO_READY: dict[int, list[dict[str, Any]]] = {
    1: [meld("chi", "345s", 0), meld("chi", "789m", 3), meld("peng", "111m", 3)],
    3: [meld("chi", "678s", 2), meld("peng", "333z", 1), meld("chi", "123p", 2)]}
TWO_READY_RIVERS = {0: "1s9m>1", 1: "9m2z3z>3", 2: "3s>1 7m6s>3 1p>3", 3: "1m>1 3z"}


def _kong_view(hand: str, profile: str, wall: int,
               melds: list[dict[str, Any]] | None = None) -> SeatView:
    return make_view(hand, profile=profile, indicator="9p", wall=wall, dealer=2,
                     melds={**TWO_READY, 0: melds or []}, extra_actions=[KONG_7P],
                     discards=TWO_READY_RIVERS)


# ---------------------------------------------------------------- faults found

@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [32, 20])
def test_no_concealed_kong_of_a_far_hand_beside_ready_seats(bot: str, profile: str,
                                                            wall: int) -> None:
    """Closed, 7777p 234m 56s 89s and three lone honours: three steps from ready and an
    opening to make, with five to eight draws left, beside two seats that show three melds
    each.  The 暗杠 quadruples this seat's multiplier, so also its share of their win, by
    far the likelier end of the hand; its replacement draw hardly brings this hand's own
    win closer.  The 7p is kept (a dead tile to throw later) and a lone honour goes.  The
    expert and the search bot made the kong (``ExpertBot.threat_kongs``; in ``bianfeng``,
    where the seats' small hands could not yet pass the minimum score, the kong's factor is
    what would let them pass: the readiness is read whatever the minimum says)."""
    ask(bot, _kong_view("7777p234m56s8s9s1z2z4z", profile, wall),
        [discard("1z"), discard("2z"), discard("4z")])


def test_the_threat_kongs_switch_plays_as_before() -> None:
    view = _kong_view("7777p234m56s8s9s1z2z4z", "yuanhang", 20)
    assert ExpertBot(1, threat_kongs=False).choose(view) == action_from_json(KONG_7P)


DIRECT_7P = {"type": "kong", "kind": "direct", "tile": "7p"}
CLAIMS_7P = [PASS, {"type": "peng", "tile": "7p"}, DIRECT_7P]


def _direct_view(hand: str, profile: str, wall: int,
                 melds: list[dict[str, Any]] | None = None) -> SeatView:
    return make_view(hand, profile=profile, indicator="9p", wall=wall, dealer=2,
                     melds={**TWO_READY, 0: melds or []}, discards=TWO_READY_RIVERS,
                     claim=("7p", 2), actions=CLAIMS_7P)


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", ["yuanhang", "laizishanzhuang"])
@pytest.mark.parametrize("wall", [32, 20])
def test_no_direct_kong_of_a_far_hand_beside_ready_seats(bot: str, profile: str,
                                                         wall: int) -> None:
    """The same far, closed hand holding 777p, on seat 2's 7p: the 冲杠 opens it (×2) and
    doubles again (×2), so this seat pays four times its share of the ready seats' win,
    for an opening and a draw that leave it three steps away.  The peng (×2, a dead 7p
    left) changes no step either: the hand passes.  The expert and the search bot made
    the 冲杠 (``ExpertBot.threat_kongs``, which now weighs the 冲杠 against the pass).  In
    ``bianfeng`` they peng instead: greedy's claim rule makes the first opening of a hand
    whose small wins cannot pass the minimum score without it (its exposure measured
    even, *Claims worth their exposure*), a judgement left as it is."""
    ask(bot, _direct_view("777p234m56s8s9s1z2z4z", profile, wall), [PASS])


def test_the_threat_kongs_switch_makes_the_direct_kong_as_before() -> None:
    view = _direct_view("777p234m56s8s9s1z2z4z", "yuanhang", 20)
    assert ExpertBot(1, threat_kongs=False).choose(view) == action_from_json(DIRECT_7P)


# ---------------------------------------------------------------- guards

@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [32, 20])
def test_guard_a_ready_hand_kongs_beside_ready_seats(bot: str, profile: str,
                                                     wall: int) -> None:
    """Guard.  Opened (678m), 7777p 234m 55s 34s: ready on 2s/5s with the 7p thrown or
    konged alike.  The kong keeps the wait, adds a draw that may win as 杠上花, and its ×4
    raises a win this hand is as likely as either ready seat to make: it is made."""
    ask(bot, _kong_view("7777p234m55s34s", profile, wall, [meld("chi", "678m", 3)]),
        [KONG_7P])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [32, 20])
def test_guard_an_added_kong_no_run_can_rob_is_made(bot: str, profile: str, wall: int) -> None:
    """Guard.  Peng'd 555p, holding the fourth, ready on 3s/6s (234m 678m 22s 45s) beside
    the two ready seats.  Every 4p and 6p is in sight, and this seat holds the last 5p: no
    run and no pair can wait on it, and neither seat's melds allow a 将一色, so the added kong
    cannot be robbed (抢杠).  It keeps the wait, adds a draw that may win as 杠上花 and
    doubles a win this hand is as likely as either seat to make."""
    view = make_view("5p234m678m22s45s", profile=profile, indicator="9p", wall=wall, dealer=2,
                     melds={**TWO_READY, 0: [meld("peng", "555p", 2)]},
                     extra_actions=[{"type": "kong", "kind": "added", "tile": "5p"}],
                     discards={0: "5p>0 1s9m>1", 1: "9m2z4p6p3z>3",
                               2: "4p6p3s>1 7m6s>3 1p>3 4p6p", 3: "1m>1 3z"})
    ask(bot, view, [{"type": "kong", "kind": "added", "tile": "5p"}])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_laizi_kong_over_the_laizi_discard(bot: str, profile: str) -> None:
    """Guard.  Opened (123m), 456m 678s 55p 3p and two laizi (1s): a small hand may win
    holding one wild only (Project decision 12), so one goes.  Konged (癞子杠) it draws a
    replacement and doubles (×4 in ``yuanhang``/``bianfeng``, ×2 in ``laizishanzhuang``);
    thrown (丢癞子) it doubles (×2) and draws nothing.  Ready with nobody opened, the hand
    wants the larger factor, and in ``laizishanzhuang`` the kong is the discard and a draw."""
    view = make_view("456m678s11s55p3p", profile=profile, indicator="9s", wall=40,
                     melds={0: [meld("chi", "123m", 3)]},
                     extra_actions=[{"type": "special_kong", "kind": "laizi"},
                                    {"type": "laizi_discard"}])
    ask(bot, view, [{"type": "special_kong", "kind": "laizi"}])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_the_peng_over_the_chi_that_loses_the_258_pair(bot: str, profile: str) -> None:
    """Guard.  Closed, 33p 45p 234m 678m 55s 9s; the previous seat throws 3p.  The peng
    (9s thrown) waits on 3p/6p with the 55s pair (five tiles); the chi 345p leaves the
    33p/55s shanpon whose 5s win has a 3p pair, no 将 (a small hand needs a 2/5/8 pair,
    RULES §10.3): one 3p left to win on.  Passing leaves the hand closed and a step away."""
    view = make_view("33p45p234m678m55s9s", profile=profile, indicator="9m", wall=40, dealer=0,
                     claim=("3p", 3),
                     actions=[PASS, {"type": "chi", "tile": "3p"}, {"type": "peng", "tile": "3p"}])
    ask(bot, view, [{"type": "peng", "tile": "3p"}])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [32, 20])
def test_guard_a_ready_hand_makes_the_direct_kong_beside_ready_seats(bot: str, profile: str,
                                                                     wall: int) -> None:
    """Guard.  Opened (678m), 777p 234m 55s 34s, ready on 2s/5s: seat 2's 7p makes the 冲杠,
    which keeps the wait and draws a replacement that may win as 杠上花 (it cannot be
    robbed); its factor raises a win this hand is as likely as either ready seat to make."""
    ask(bot, _direct_view("777p234m55s34s", profile, wall, [meld("chi", "678m", 3)]),
        [DIRECT_7P])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_guard_a_concealed_kong_is_no_opening(bot: str, profile: str) -> None:
    """Guard.  Closed but for a 暗杠 of 7s, ready in shape on 2p/5p (234m 678m 55p 34p): a
    concealed kong is no opening (RULES §9), so no tile wins yet; the chi of 678m with the
    previous seat's 7m (the 7m thrown back) opens the hand and keeps the wait."""
    view = make_view("234m678m55p34p", profile=profile, indicator="9p", wall=40, dealer=0,
                     melds={0: [{"type": "kong", "kind": "concealed", "tiles": "7777s",
                                 "from_seat": None}]},
                     claim=("7m", 3), actions=[PASS, {"type": "chi", "tile": "6m"}])
    ask(bot, view, [{"type": "chi", "tile": "6m"}])
