"""The level table of docs/RULES.md §18 (pure data, no database)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wuhan_mahjong.store.levels import (
    LEVELS,
    TOP_LEVEL,
    level_for_points,
    points_to_next_level,
)


def test_table_shape() -> None:
    assert len(LEVELS) == TOP_LEVEL == 24
    assert [level.number for level in LEVELS] == list(range(1, 25))
    assert [level.threshold for level in LEVELS] == [100 * 2 ** (n - 1) for n in range(1, 25)]
    assert LEVELS[-1].threshold == 838_860_800


@pytest.mark.parametrize(
    ("number", "title_zh", "title_en", "rank_zh", "rank_en", "threshold"),
    [
        (1, "待业", "Unemployed", "麻袋", "Gunny Sack", 100),
        (5, "助理主管", "Assistant Supervisor", "街头霸王", "Street Overlord", 1_600),
        (9, "副经理", "Deputy Manager", "茶室不败", "Teahouse Undefeated", 25_600),
        (13, "总裁", "President", "酒店至尊", "Hotel Supreme", 409_600),
        (17, "赌王", "King of Gamblers", "国家大师", "National Master", 6_553_600),
        (20, "边锋首富", "Richest on Bianfeng", "麻将部长", "Mahjong Minister", 52_428_800),
        (24, "财神", "God of Wealth", "麻将无敌", "Mahjong Invincible", 838_860_800),
    ],
)
def test_rows_match_rules(
    number: int, title_zh: str, title_en: str, rank_zh: str, rank_en: str, threshold: int
) -> None:
    level = LEVELS[number - 1]
    assert (level.number, level.title_zh, level.title_en) == (number, title_zh, title_en)
    assert (level.rank_zh, level.rank_en, level.threshold) == (rank_zh, rank_en, threshold)


@pytest.mark.parametrize(
    ("points", "number"),
    [
        (-1_000_000, 1),
        (-1, 1),
        (0, 1),
        (99, 1),
        (100, 2),
        (199, 2),
        (200, 3),
        (399, 3),
        (400, 4),
        (25_599, 9),
        (25_600, 10),
        (51_199, 10),
        (51_200, 11),
        (419_430_399, 23),
        (419_430_400, 24),
        (838_860_799, 24),
        (838_860_800, 24),  # the top level's number is only shown
        (10**15, 24),
    ],
)
def test_level_boundaries(points: int, number: int) -> None:
    assert level_for_points(points).number == number


def test_min_points_and_top() -> None:
    assert LEVELS[0].min_points is None
    assert LEVELS[1].min_points == 100
    assert LEVELS[23].min_points == 419_430_400
    assert LEVELS[23].is_top and not LEVELS[22].is_top


def test_points_to_next_level() -> None:
    assert points_to_next_level(0) == 100
    assert points_to_next_level(-50) == 150
    assert points_to_next_level(150) == 50
    assert points_to_next_level(419_430_399) == 1
    assert points_to_next_level(419_430_400) is None


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_level_contains_points(points: int) -> None:
    level = level_for_points(points)
    assert level.min_points is None or level.min_points <= points
    if not level.is_top:
        assert points < level.threshold
        assert level_for_points(level.threshold).number == level.number + 1
