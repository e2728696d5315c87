"""Decision problems of the thirty-second hunt (6 December 2026, late night):
closed hands passing claims two steps from ready, in ``yuanhang`` and ``bianfeng``.
Both first-deviation studies (the twenty-ninth and thirtieth hunts) saw the expert's
closed passes of a chi or peng lose a little at shanten 2; reading the rule that makes
them found that it hardly applied in those profiles (docs/bots-log.md, *The
thirty-second decision-problem hunt*).

Greedy (and so the expert) makes a claim that keeps the shanten ("idle") while closed
below ``eager_below`` (the expert's 2), *or* when a small hand is short of the minimum
score and one more opening raises its factors (:meth:`GreedyBot.short_of_minimum`).
That second test asked whether the hand could pass the minimum with its factors now, no
opening counted, which a closed hand without kongs never can in ``yuanhang`` or
``bianfeng`` (a plain self-draw collects 16 a loser after its opening, where one loser
must owe 20): nearly every closed hand there made every idle claim, at any distance.
The fault, fixed behind a switch of the expert (so the search bot), on by default
(``closed_minimum``), with tests that fail on the old code:

* **A closed hand two steps from ready, the idle chi of 456p in 边锋.**  Holding 88m
  456p 79p 13s 57s 1z 4z (shanten 2, improved by 8p, 2s, 6s and the laizi 2z; the other
  5p all in sight), seat 3 throws the 6p.  Either chi (456p or 567p) leaves the hand two
  steps from ready on the same draws at best (``analysis.shanten`` on every draw), and it
  gives up this turn's draw, one of about fifteen improving tiles.  In ``bianfeng``
  (开口翻) the opening counts once: a win after two chis collects what it would after
  the one claim the hand needs anyway (``scoring.settle``: a plain self-draw refused by
  the minimum either way, 32/16/16 with a 红中 kong either way), while from the chi on,
  what this seat pays when another wins doubles (32 → 64 for a plain self-draw with a
  红中 kong).  Nothing gained, a draw and the exposure lost: pass.  The expert and the
  search bot chied at walls 80 to 12 (the idle chi "short of the minimum"); they pass
  now, as they do in ``laizishanzhuang`` (no minimum score, a guard).  Greedy chis
  (the baseline, left alone).

In ``yuanhang`` (口口翻) a second opening doubles the win too, and a plain self-draw with
two chis passes the minimum where one chi's does not (32/16/16 against a refusal): the
idle chi may be what lets the hand win at all, so no clear answer; the switch keeps the
eager claim there (the test below pins that it still chis, as before).
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, make_view

from wuhan_mahjong.analysis import NotAWin, shanten
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import PASS, Chi
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles, tile_str
from wuhan_mahjong.win_record import parse_win_record

HAND = "88m456p79p1357s14z"  # the laizi is the 2z (indicator 1z)
CHIS = [{"type": "chi", "tile": "4p"}, {"type": "chi", "tile": "5p"}, {"type": "pass"}]
RIVERS = {0: "3z 9m", 1: "3z 1p 5p 9s", 2: "4z 7z 5p 1m", 3: "6z 5p 7z"}


def _chi_view(profile: str, wall: int) -> SeatView:
    """Seat 0's claim on seat 3's 6p (seat 1 deals), nobody opened."""
    return make_view(HAND, profile=profile, indicator="1z", wall=wall, dealer=1,
                     claim=("6p", 3), actions=CHIS, discards=RIVERS)


def _improving(hand: list[int], melds: list[Meld]) -> tuple[int, set[str]]:
    """The 13-tile (or 10-tile) hand's shanten and the kinds whose draw lowers it."""
    rules = get_rules("bianfeng")
    laizi = rules.laizi_of(parse_tile("1z"))
    now = shanten(hand, melds, laizi, rules)

    def lowers(drawn: list[int]) -> bool:
        """Some discard from the hand with the draw leaves it closer."""
        return any(shanten(drawn[:i] + drawn[i + 1:], melds, laizi, rules) < now
                   for i in range(len(drawn)))

    return now, {tile_str(x) for x in range(34) if lowers([*hand, x])}


def _payments(profile: str, winner: int, hand: str, chis: dict[int, list[str]], tile: str,
              kongs: dict[str, int]) -> list[tuple[int, int]] | None:
    """Each loser's (seat, amount) when ``winner`` self-draws ``tile`` with ``hand`` beside
    its chis (every seat's chis from the seat before it), or None where the settlement
    refuses the win."""
    seats: list[dict[str, Any]] = [
        {"hand": hand if s == winner else "", "kongs": kongs if s == winner else {},
         "melds": [{"type": "chi", "tiles": m, "from": (s - 1) % 4} for m in chis.get(s, [])]}
        for s in range(4)]
    rec: dict[str, Any] = {"profile": profile, "dealer": 1, "indicator": "1z", "winner": winner,
                           "win_by": "self_draw", "winning_tile": tile, "seats": seats}
    try:
        return [(p.loser, int(p.amount)) for p in settle(parse_win_record(rec)).payments]
    except NotAWin:
        return None


# ---------------------------------------------------------------- the rules' side

def test_either_chi_keeps_two_steps_on_no_more_tiles() -> None:
    """Two steps from ready, improved by 8p, 2s, 6s and the laizi; after either chi and
    its best discard, still two steps, improved by those tiles at most (the 5p the
    456p chi adds has every copy in sight)."""
    now, before = _improving(parse_tiles(HAND), [])
    assert (now, before) == (2, {"8p", "2s", "6s", "2z"})
    for run in ("456p", "567p"):
        hand = [*parse_tiles(HAND), parse_tile("6p")]
        for t in parse_tiles(run):
            hand.remove(t)
        melds = [Meld("chi", tuple(parse_tiles(run)), 3)]
        after = []
        for d in sorted(set(hand)):
            rest = list(hand)
            rest.remove(d)
            after.append(_improving(rest, melds))
        best = min(s for s, _ in after)
        assert best == 2
        assert all(better - {"5p"} <= before for s, better in after if s == best)


def test_in_bianfeng_the_second_opening_adds_nothing() -> None:
    """开口翻: a win after two chis collects what it would after one (a plain self-draw
    fails the minimum score either way; with a 红中 kong 32/16/16 either way)."""
    one = {0: ["456p"]}
    two = {0: ["456p", "123s"]}
    assert _payments("bianfeng", 0, "88m789p123s56s", one, "7s", {}) is None
    assert _payments("bianfeng", 0, "88m789p56s", two, "7s", {}) is None
    with_red = _payments("bianfeng", 0, "88m789p123s56s", one, "7s", {"red": 1})
    assert with_red == [(1, 32), (2, 16), (3, 16)]
    assert _payments("bianfeng", 0, "88m789p56s", two, "7s", {"red": 1}) == with_red


@pytest.mark.parametrize("profile", ["bianfeng", "yuanhang"])
def test_the_opening_doubles_what_this_seat_pays(profile: str) -> None:
    """Seat 1 (the dealer) self-draws with a 红中 kong: closed, seat 0 pays 32; opened, 64."""
    closed = _payments(profile, 1, "55m789p123s56s", {1: ["234m"]}, "7s", {"red": 1})
    opened = _payments(profile, 1, "55m789p123s56s", {1: ["234m"], 0: ["456p"]}, "7s",
                       {"red": 1})
    assert closed is not None and opened is not None
    assert dict(closed)[0] == 32 and dict(opened)[0] == 64


def test_in_yuanhang_the_second_opening_passes_the_minimum() -> None:
    """口口翻: the plain self-draw one chi leaves short of 20 passes it after two chis (why
    the eager claim stays there)."""
    assert _payments("yuanhang", 0, "88m789p123s56s", {0: ["456p"]}, "7s", {}) is None
    assert _payments("yuanhang", 0, "88m789p56s", {0: ["456p", "123s"]}, "7s", {}) == [
        (1, 32), (2, 16), (3, 16)]


# ---------------------------------------------------------------- the bots

@pytest.mark.parametrize("wall", [80, 60, 40, 24, 12])
@pytest.mark.parametrize("profile", ["bianfeng", "laizishanzhuang"])
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_the_far_closed_hand_passes_the_idle_chi(bot: str, profile: str, wall: int) -> None:
    """The fault in ``bianfeng`` (fixed by ``closed_minimum``); a guard in
    ``laizishanzhuang``."""
    ask(bot, _chi_view(profile, wall), [{"type": "pass"}])


@pytest.mark.parametrize("wall", [80, 40, 12])
def test_closed_minimum_makes_that_choice(wall: int) -> None:
    """With ``closed_minimum`` off the expert chis in ``bianfeng`` (the old play)."""
    view = _chi_view("bianfeng", wall)
    assert ExpertBot(1).choose(view) == PASS
    assert isinstance(ExpertBot(1, closed_minimum=False).choose(view), Chi)


@pytest.mark.parametrize("wall", [80, 40])
def test_in_yuanhang_the_eager_chi_stays(wall: int) -> None:
    """In ``yuanhang`` the second opening raises the factors and the hand is short of the
    minimum with one: the switch leaves the claim as it was (no clear answer, not a
    guard of the answer, a pin of the switch's scope)."""
    view = _chi_view("yuanhang", wall)
    assert isinstance(ExpertBot(1).choose(view), Chi)
    assert ExpertBot(1).choose(view) == ExpertBot(1, closed_minimum=False).choose(view)
