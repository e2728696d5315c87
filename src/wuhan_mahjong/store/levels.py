"""The 24-level table of the Bianfeng platform (docs/RULES.md §18), as pure data.

Each level's ``threshold`` is the *cumulative* number of points (积分) needed to
leave that level (docs/RULES.md §22, Ambiguity 37): a player with ``points`` is on
the first level whose threshold is greater than ``points``.  Level 24 is the
top; its threshold (838,860,800) is only shown, there is no level 25.  Points
below 0 (allowed, see ``docs/store.md``) are level 1.

>>> level_for_points(0).number, level_for_points(99).number, level_for_points(100).number
(1, 1, 2)
>>> level_for_points(419_430_400).title_en
'God of Wealth'
>>> points_to_next_level(150)
50
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

__all__ = ["LEVELS", "TOP_LEVEL", "Level", "level_for_points", "points_to_next_level"]


@dataclass(frozen=True, slots=True)
class Level:
    """One row of the level table (级数, 级别名称, 段位名称, 下一级升级分)."""

    number: int
    title_zh: str
    title_en: str
    rank_zh: str
    rank_en: str
    threshold: int
    """Cumulative points needed to leave this level (for level 24: only shown)."""

    @property
    def min_points(self) -> int | None:
        """The fewest points on this level; ``None`` for level 1 (open below)."""
        if self.number == 1:
            return None
        return LEVELS[self.number - 2].threshold

    @property
    def is_top(self) -> bool:
        return self.number == TOP_LEVEL


_ROWS: tuple[tuple[str, str, str, str], ...] = (
    ("待业", "Unemployed", "麻袋", "Gunny Sack"),
    ("临时工", "Temporary Worker", "街头一段", "Street 1st Dan"),
    ("合同工", "Contract Worker", "街头二段", "Street 2nd Dan"),
    ("正式工", "Permanent Employee", "街头三段", "Street 3rd Dan"),
    ("助理主管", "Assistant Supervisor", "街头霸王", "Street Overlord"),
    ("副主管", "Deputy Supervisor", "茶室一段", "Teahouse 1st Dan"),
    ("主管", "Supervisor", "茶室二段", "Teahouse 2nd Dan"),
    ("助理经理", "Assistant Manager", "茶室三段", "Teahouse 3rd Dan"),
    ("副经理", "Deputy Manager", "茶室不败", "Teahouse Undefeated"),
    ("经理", "Manager", "酒店一段", "Hotel 1st Dan"),
    ("助理总裁", "Assistant President", "酒店二段", "Hotel 2nd Dan"),
    ("副总裁", "Vice President", "酒店三段", "Hotel 3rd Dan"),
    ("总裁", "President", "酒店至尊", "Hotel Supreme"),
    ("董事", "Board Director", "县级大师", "County-level Master"),
    ("副董事长", "Vice Chairman", "市级大师", "City-level Master"),
    ("董事长", "Chairman", "省级大师", "Provincial Master"),
    ("赌王", "King of Gamblers", "国家大师", "National Master"),
    ("赌圣", "Saint of Gamblers", "国际大师", "International Master"),
    ("赌神", "God of Gamblers", "特级大师", "Grandmaster"),
    ("边锋首富", "Richest on Bianfeng", "麻将部长", "Mahjong Minister"),
    ("中国首富", "Richest in China", "麻将总理", "Mahjong Premier"),
    ("亚洲首富", "Richest in Asia", "麻将总统", "Mahjong President"),
    ("世界首富", "Richest in the World", "麻将皇帝", "Mahjong Emperor"),
    ("财神", "God of Wealth", "麻将无敌", "Mahjong Invincible"),
)

LEVELS: tuple[Level, ...] = tuple(
    Level(
        number=i + 1,
        title_zh=title_zh,
        title_en=title_en,
        rank_zh=rank_zh,
        rank_en=rank_en,
        threshold=100 * 2**i,
    )
    for i, (title_zh, title_en, rank_zh, rank_en) in enumerate(_ROWS)
)
"""The table, ``LEVELS[n - 1]`` is level ``n``; thresholds are 100 × 2^(n−1)."""

TOP_LEVEL = len(LEVELS)

# Thresholds of the levels one can leave (1..23): bisecting gives the level index.
_LEAVE_AT: tuple[int, ...] = tuple(level.threshold for level in LEVELS[:-1])


def level_for_points(points: int) -> Level:
    """The level of a player holding ``points`` cumulative points."""
    return LEVELS[bisect_right(_LEAVE_AT, points)]


def points_to_next_level(points: int) -> int | None:
    """Points still needed to reach the next level; ``None`` on the top level."""
    level = level_for_points(points)
    if level.is_top:
        return None
    return level.threshold - points
