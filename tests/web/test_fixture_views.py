"""The fixture page's views are real engine views of this run (conftest.fixtures_dir),
strictly of the one view schema; only the help panel's ``hint`` is added, strictly of
the hint's own schema."""

from __future__ import annotations

import json

from wuhan_mahjong.bots.hints import Hint
from wuhan_mahjong.server.protocol import ViewModel, model_of

from .conftest import fixtures_dir


def test_fixture_views_match_the_view_schema_strictly() -> None:
    views = json.loads((fixtures_dir() / "views.json").read_text())
    assert {"start", "turn", "claim_chi", "late", "ready", "win", "contract", "exhausted"} <= set(views)
    hints = 0
    for name, view in views.items():
        hint = view.pop("hint", None)
        if hint is not None:
            model_of(Hint).model_validate(hint)
            hints += 1
        assert ViewModel.model_validate(view).model_dump(by_alias=True, exclude_unset=True) == view, name
    assert hints >= 3
