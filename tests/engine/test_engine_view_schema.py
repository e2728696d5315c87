"""One schema of the seat view: the engine's TypedDict (engine/views.py), from which the
server's pydantic model is derived; the views of real hands validate strictly against
it, and a key the schema does not declare fails, wherever it is."""

from __future__ import annotations

import copy
import functools
import json
import random
from typing import Any

import pytest
from pydantic import ValidationError

from wuhan_mahjong.engine import new_hand, seat_view, spectator_view
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.server.protocol import ViewModel


@functools.cache
def views_of_a_hand(seed: int, profile: str) -> list[Any]:
    """Every seat's view and the spectator's, at every step of a random hand (JSON round trip)."""
    rng = random.Random(seed)
    state = new_hand(get_rules(profile), seed % 4, rng=rng)
    out = []
    while True:
        out += [json.loads(json.dumps(seat_view(state, s))) for s in range(4)]
        out.append(json.loads(json.dumps(spectator_view(state))))
        if state.ended:
            return out
        seat = state.to_act()[0]
        acts = state.legal_actions(seat)
        state.apply(seat, acts[0] if rng.random() < 0.3 else rng.choice(acts))


@pytest.mark.parametrize("profile", ["yuanhang", pytest.param("bianfeng", marks=pytest.mark.slow),
                                     pytest.param("laizishanzhuang", marks=pytest.mark.slow)])
def test_views_of_real_hands_match_the_schema_strictly(profile: str) -> None:
    seen_phases = set()
    for seed in range(2):
        for view in views_of_a_hand(seed, profile):
            model = ViewModel.model_validate(view)
            assert model.model_dump(by_alias=True, exclude_unset=True) == view
            seen_phases.add(view["phase"])
    assert {"turn", "claim", "ended"} <= seen_phases


@pytest.mark.parametrize("where", ["top", "seat", "meld", "action", "result", "reveal"])
def test_an_undeclared_key_fails_wherever_it_is(where: str) -> None:
    views = [v for seed in range(3) for v in views_of_a_hand(seed, "yuanhang")]
    view = copy.deepcopy(next(v for v in views if v["legal_actions"] and any(s["melds"] for s in v["seats"])))
    meld = next(s["melds"][0] for s in view["seats"] if s["melds"])
    end = copy.deepcopy(next(v for v in views if v["result"] is not None))
    ViewModel.model_validate(view)
    ViewModel.model_validate(end)
    target = {"top": view, "seat": view["seats"][1], "meld": meld,
              "action": view["legal_actions"][0], "result": end["result"],
              "reveal": end["result"]["reveal"]}[where]
    target["surprise"] = 1
    with pytest.raises(ValidationError, match="surprise"):
        ViewModel.model_validate(end if where in ("result", "reveal") else view)


def test_a_missing_or_mistyped_key_fails() -> None:
    view = copy.deepcopy(views_of_a_hand(1, "bianfeng")[0])
    for broken in ({k: v for k, v in view.items() if k != "decision"}, {**view, "wall": "84"},
                   {**view, "legal_actions": [{"type": "pass"}]}):
        with pytest.raises(ValidationError):
            ViewModel.model_validate(broken)
