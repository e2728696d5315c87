"""The thirty-sixth hunt (7 December 2026): the push-or-fold layer's two sides measured
together in ``yuanhang`` and ``bianfeng``, and ``fold_fit`` (off), the layer alone with
both sides calibrated.

On tuning seeds 443 and 444 (docs/bots-log.md, *The thirty-sixth decision-problem hunt*)
the layer's own numbers read this seat's chance of winning the hand about twice what it
won (0.49 against 0.20, 0.47 against 0.24) and P(deal in) two to three times low (0.033
against 0.090, 0.034 against 0.068), both errors toward pushing.  ``ready_fit`` with
``win_fit`` (both sides calibrated, but readiness for every layer of the expert) lost
−11.12 [−20.58, −1.66] points a hand in ``yuanhang``; ``fold_fit`` reads the fitted
readiness in a model of the layer's own, so no other layer's reads move.

These tests check only what the switch does, on the thirty-fourth hunt's position (a
three-meld small hand of seat 2's in ``bianfeng``), and that the family guards of
``test_bots_defence.py`` hold with it on: a switch, not a settled answer.
"""

from __future__ import annotations

import pytest
from test_bots_defence import FAMILY_POSITIONS, FAMILY_SAFE, _family_view
from test_bots_hunt34 import _view

from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.tiles import parse_tile, tile_str


@pytest.mark.parametrize("wall", [48, 36, 24])
def test_fold_fit_reads_the_fit_in_the_layer_alone(wall: int) -> None:
    """With ``fold_fit`` the layer's model reads seat 2 ready at the fit's higher chance,
    while the model every other layer reads keeps the prior."""
    bot = ExpertBot(1, fold_fit=True)
    bot.choose(_view(wall))
    assert not bot.model().ready_fit
    assert bot.fold_model().ready_fit
    assert bot.fold_model().threat() > bot.model().threat() + 0.2
    plain = ExpertBot(1)
    plain.choose(_view(wall))
    assert plain.fold_model() is plain.model()


def test_fold_fit_keeps_the_tiles_at_wall_48() -> None:
    """At wall 48 the default layer swaps the core's 8s for the 3p (thirteen tiles a step
    from ready instead of seventeen; the thirty-fourth hunt's guard); with ``fold_fit`` the
    fitted chance prices those four tiles higher and the layer plays the 6s, which keeps
    all seventeen and is cheaper to the read than the 8s."""
    assert ExpertBot(1).choose(_view(48)) == Discard(parse_tile("3p"))
    assert ExpertBot(1, fold_fit=True).choose(_view(48)) == Discard(parse_tile("6s"))


@pytest.mark.parametrize("family", sorted(FAMILY_POSITIONS))
@pytest.mark.parametrize(("profile", "wall"), [("yuanhang", 20), ("bianfeng", 40)])
def test_fold_fit_keeps_the_family_guard(family: str, profile: str, wall: int) -> None:
    """``test_bots_defence.py``'s family tile stays held with ``fold_fit`` on."""
    choice = ExpertBot(1, fold_fit=True).choose(
        _family_view(profile, wall, *FAMILY_POSITIONS[family]))
    assert isinstance(choice, Discard) and tile_str(choice.tile) in FAMILY_SAFE
