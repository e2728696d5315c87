"""The thirty-ninth hunt (7 December 2026): the expert's two-step lookahead against the
books' tile acceptance (牌效, 进张), in ``yuanhang`` and ``bianfeng``.

The efficiency books, the discard puzzles (:mod:`wuhan_mahjong.bots.puzzles`) and the help
panel answer a cut by the shanten it leaves, then by the unseen tiles that take the hand a
step closer.  The expert's two-step acceptance (``lookahead``, on in ``yuanhang`` and
``bianfeng``) chose among the best few cuts within ``ExpertBot.step_margin`` (4) tiles of
the best's acceptance by their two-step paths, and so gave one to three tiles of the first
step up: it missed 7 of puzzles 1–150 in ``yuanhang`` and 11 in ``bianfeng``.  With
``step_margin=0.5`` the two-step count breaks only ties of acceptance.  The paired runs
(docs/bots-log.md, *The thirty-ninth decision-problem hunt*) measured it +1.20 [−2.92,
+5.32] points a hand against 4 in ``bianfeng`` (within the rule's 3), where it is the
setting since (:data:`wuhan_mahjong.bots.expert.PROFILE_SETTINGS`; the older guard
``test_no_pengpenghu_target_where_the_table_has_no_pengpenghu`` that first held it back
asked for a cut the count ranks below the 5p's, and now asks the count), and +0.05
[−4.95, +5.06] in ``yuanhang`` (reaching below −3, so 4 stays there).  The cases of
``yuanhang`` are expected failures (strict: they fail the day the expert answers them);
``bianfeng`` and ``laizishanzhuang`` (without the two-step search) answer them, and the old
margin's cut is pinned below.

Each position below is settled by counting, not by a bot: every cut's shanten and the
unseen tiles that lower it (:func:`test_bots_hunt13._counts`, the rules core's
:func:`wuhan_mahjong.analysis.shanten` over the tiles the seat has not seen); the puzzles
carry the rules core's own count of every choice.
"""

from __future__ import annotations

import pytest
from handmade import make_view, meld
from test_bots_hunt13 import _counts

from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.puzzles import make_puzzle
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.tiles import format_tiles, parse_tile, tile_str

#: ``step_margin`` stays 4 in ``yuanhang``: it still gives these tiles up
_KEPT = pytest.mark.xfail(strict=True, reason="step_margin stays 4 in yuanhang (the "
                          "thirty-ninth hunt's rule)")
LOOKAHEAD = (pytest.param("yuanhang", marks=_KEPT), "bianfeng")
PROFILES = (*LOOKAHEAD, "laizishanzhuang")

#: (hand, indicator, wall, rivers, the count's best cut and its tiles, the cut the old
#: margin made and its tiles); closed hands, seat 1 deals, from puzzles 143 (``yuanhang``),
#: 80 and 100 (``bianfeng``) with rivers added
Case = tuple[str, str, int, dict[int, str], tuple[str, int], tuple[str, int]]
POSITIONS: list[Case] = [
    # shanten 2, laizi 北: the 7p keeps 67p and 23457889s whole (28 tiles); the lone 5m
    # keeps the 77p pair beside the 55z one (27)
    ("5m677p23457889s55z", "3z", 56, {1: "1z9m2z", 2: "9p1m", 3: "4z1s"}, ("7p", 28), ("5m", 27)),
    # shanten 1, laizi 8p: 3p leaves 123345678m 4566p, 34 tiles; 6p leaves 34p 56p, 32
    ("123345678m34566p", "7p", 50, {1: "1z9s2z", 2: "9p1s3z", 3: "4z1p"}, ("3p", 34), ("6p", 32)),
    # shanten 2, laizi 东 (the indicator 白): 7p takes 69 tiles, 3p 68
    ("568m3345788p3457s", "5z", 66, {1: "1z9s2z", 2: "9m1s", 3: "4z1p2z"}, ("7p", 69), ("3p", 68)),
]


def _view(profile: str, case: Case) -> SeatView:
    hand, indicator, wall, rivers, _, _ = case
    return make_view(hand, profile=profile, indicator=indicator, wall=wall, discards=rivers)


def _best(counts: dict[str, tuple[int, int]]) -> tuple[int, int]:
    """The lowest shanten of any cut, and the most tiles a cut at it takes."""
    sh = min(s for s, _ in counts.values())
    return sh, max(a for s, a in counts.values() if s == sh)


@pytest.mark.parametrize("case", POSITIONS, ids=lambda c: c[0])
@pytest.mark.parametrize("profile", PROFILES)
def test_the_expert_cuts_a_tile_of_the_most_acceptance(profile: str, case: Case) -> None:
    """The count gives the case's figures; the expert cuts a tile taking the most."""
    view = _view(profile, case)
    counts = _counts(view)
    (best, best_tiles), (old, old_tiles) = case[4], case[5]
    sh, most = _best(counts)
    assert counts[best] == (sh, most) == (sh, best_tiles)
    assert counts[old] == (sh, old_tiles) and old_tiles < most
    choice = ExpertBot(1).choose(view)
    assert isinstance(choice, Discard) and counts[tile_str(choice.tile)] == (sh, most)


@pytest.mark.parametrize("case", POSITIONS, ids=lambda c: c[0])
@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_with_the_old_margin_the_two_step_count_gives_tiles_up(profile: str, case: Case) -> None:
    """``step_margin=4`` (the setting before this hunt): the cut with fewer tiles goes."""
    choice = ExpertBot(1, step_margin=4.0).choose(_view(profile, case))
    assert choice == Discard(parse_tile(case[5][0]))


def _puzzle_view(profile: str, number: int) -> tuple[SeatView, dict[str, tuple[int, int]]]:
    """Puzzle ``number`` as seat 0's turn, and its choices' (shanten, acceptance)."""
    p = make_puzzle(profile, number)
    melds = [meld(m.type, format_tiles(m.tiles), 3) for m in p.melds]
    view = make_view(format_tiles(p.hand), profile=profile, indicator=tile_str(p.indicator),
                     melds={0: melds} if melds else None, wall=p.wall_left,
                     dealer=0 if p.dealer else 1)
    return view, {tile_str(c.tile): (c.shanten, c.acceptance) for c in p.choices}


#: puzzles whose best cut breaks a pair that keeps 碰碰胡 as close as the best shanten:
#: the expert keeps the big target there (``big_target``), a value choice, not a count
#: (``yuanhang`` 2, 133688m 144466p 27s: the 6m, 70 tiles, for the 3m's 72)
BIG_TARGET_KEPT = {("yuanhang", 2)}


@pytest.mark.parametrize("profile", LOOKAHEAD)
def test_the_expert_answers_the_first_puzzles_as_the_books_do(profile: str) -> None:
    """Puzzles 1–40: the expert's cut is at the best shanten with the most acceptance
    (``laizishanzhuang``, where the two-step search is off, answers them already)."""
    missed = []
    for number in range(1, 41):
        view, choices = _puzzle_view(profile, number)
        sh, most = _best(choices)
        choice = ExpertBot(1).choose(view)
        assert isinstance(choice, Discard)
        cut = tile_str(choice.tile)
        if (profile, number) in BIG_TARGET_KEPT:
            assert choices[cut][0] == sh
        elif choices[cut] != (sh, most):
            missed.append((number, cut, choices[cut], most))
    assert not missed
