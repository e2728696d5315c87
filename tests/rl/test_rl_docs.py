"""docs/rl.md's action and plane tables cover the code's spaces exactly."""

from __future__ import annotations

import re
from pathlib import Path

from wuhan_mahjong.rl import spaces

DOC = (Path(__file__).resolve().parents[2] / "docs" / "rl.md").read_text(encoding="utf-8")


def _ranges(section: str, until: str) -> list[tuple[int, int]]:
    text = DOC[DOC.index(section):DOC.index(until)]
    return [(int(a), int(b)) for a, b in re.findall(r"^\| `(\d+)-(\d+)` \|", text, re.M)]


def _covers(ranges: list[tuple[int, int]], n: int) -> None:
    expect = 0
    for a, b in ranges:
        assert a == expect and b >= a, (a, b, expect)
        expect = b + 1
    assert expect == n


def test_action_table_covers_every_index_once() -> None:
    ranges = _ranges("## Actions", "## Observations")
    _covers(ranges, spaces.NUM_ACTIONS)
    starts = {a for a, _ in ranges}
    assert {spaces.CHI_LOW, spaces.PENG, spaces.KONG_DIRECT, spaces.KONG_CONCEALED, spaces.KONG_ADDED,
            spaces.SPECIAL["red"], spaces.LAIZI_DISCARD_INDEX, spaces.WIN_INDEX, spaces.PASS_INDEX} <= starts
    assert f"{spaces.NUM_ACTIONS} actions" in DOC


def test_plane_table_covers_every_plane_once() -> None:
    ranges = _ranges("## Observations", "## Rewards")
    _covers(ranges, spaces.NUM_PLANES)
    assert f"shape `{spaces.OBS_SHAPE}`".replace(" ", "") in DOC.replace(" ", "")
    # spot checks: where the table says a group starts, the code's plane name agrees
    names = spaces.PLANES
    checks = {"own hand": 0, "own drawn": 4, "laizi": 6, "seat +1: exposed": 24, "seat +3: exposed": 52,
              "seat +0: concealed tiles": 66, "phase turn": 102, "dealer is seat +0": 113,
              "own seat is 0": 117, "profile bianfeng": 121, "rule direct_kong_opens": 124,
              "replacement draw": 137}
    for prefix, i in checks.items():
        assert names[i].startswith(prefix), (i, names[i])
        assert any(a == i for a, _ in ranges), i


def test_quick_start_runs() -> None:
    block = DOC[DOC.index("## Quick start"):]
    start = block.index("```python") + len("```python")
    code = block[start:block.index("```\n", start)]
    scope: dict[str, object] = {}
    exec(compile(code, "docs/rl.md", "exec"), scope)
    assert scope["obs"].shape == (64, 138, 34)  # type: ignore[attr-defined]
