"""The expert's ``win_fit`` option: P(win) from a logistic fit to the arena instead of the
gamma model, wherever the expert weighs a chance of winning (push or fold, ``laizi_ev``)."""

from __future__ import annotations

import itertools

import pytest

from wuhan_mahjong.bots.expert import ExpertBot


def test_off_by_default_the_gamma_model_is_weighed() -> None:
    bot = ExpertBot(1)
    assert not bot.win_fit
    assert bot._win_chance(1, 12, 80, 8) == ExpertBot.win_chance(1, 12, 80, 8)
    fitted = ExpertBot(1, win_fit=True)
    assert fitted._win_chance(1, 12, 80, 8) == ExpertBot.win_chance_fit(1, 12, 80, 8)


@pytest.mark.parametrize("turns", [0.5, 2, 5, 10, 15, 21])
@pytest.mark.parametrize("acceptance", [1, 4, 12, 30, 60])
def test_the_fit_is_a_chance_falling_with_shanten_and_rising_with_acceptance(
        turns: float, acceptance: int) -> None:
    chances = [ExpertBot.win_chance_fit(sh, acceptance, 80, turns) for sh in range(6)]
    assert all(0.0 < p < 1.0 for p in chances)
    assert all(a > b for a, b in itertools.pairwise(chances[:5]))  # 4 and more: alike
    assert ExpertBot.win_chance_fit(1, acceptance + 4, 80, turns) > chances[1]


def test_the_fit_tells_a_ready_hand_from_one_a_step_away_mid_hand() -> None:
    # Mid-hand (about 45 tiles of live wall: 11 own turns), the expert won 0.44 of its
    # ready hands and 0.18 of those one step away on the fitting seeds; the gamma model
    # said 0.55 and 0.46, which made a step of shanten look almost free to give up.
    ready, step = ExpertBot.win_chance_fit(0, 8, 60, 11), ExpertBot.win_chance_fit(1, 20, 60, 11)
    assert 0.35 < ready < 0.55 and 0.12 < step < 0.28 and ready > 1.8 * step
    g_ready, g_step = ExpertBot.win_chance(0, 8, 60, 11), ExpertBot.win_chance(1, 20, 60, 11)
    assert g_ready < 1.4 * g_step
