"""The shared-public-part frames (server/frames.py) hold exactly the engine's seat views.

Over played hands of every profile (keen players, so concealed kongs, claims and wins
happen), at every move, for every seat, answered or not: the text of
:class:`MoveViews` is byte for byte ``encode_view(seat_view(...))``.  So a frame shows
nothing the engine's view hides (another seat's concealed tiles or concealed kong faces).
"""

from __future__ import annotations

import random

import orjson
import pytest

from wuhan_mahjong.engine import Chi, HandState, Kong, Peng, SpecialKong, Win, new_hand, seat_view
from wuhan_mahjong.engine.actions import Action
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.server.frames import MoveViews
from wuhan_mahjong.server.protocol import encode_view


def _keen(state: HandState, seat: int, rng: random.Random) -> Action:
    acts = state.legal_actions(seat)
    keen = [a for a in acts if isinstance(a, Win | Kong | SpecialKong | Peng | Chi)]
    return rng.choice(keen or list(acts))


@pytest.mark.parametrize("profile", ["yuanhang", pytest.param("bianfeng", marks=pytest.mark.slow),
                                     pytest.param("laizishanzhuang", marks=pytest.mark.slow)])
def test_move_views_are_the_seat_views(profile: str) -> None:
    concealed_kongs = 0
    for seed in range(80):
        if seed >= 8 and concealed_kongs:
            break
        rng = random.Random(seed)
        state = new_hand(get_rules(profile), seed % 4, rng=rng)
        while True:
            views = MoveViews(state)
            for seat in range(4):
                expected = seat_view(state, seat)
                assert views.text(seat) == encode_view(expected)
                assert views.text(seat, answered=True) == encode_view({**expected, "legal_actions": []})
                others = [orjson.loads(views.text(v))["seats"][seat] for v in range(4) if v != seat]
                for m in state.melds[seat]:
                    if m.kind == "concealed" and not state.ended:
                        concealed_kongs += 1
                        assert all(o["melds"][state.melds[seat].index(m)]["tiles"] is None for o in others)
            if state.ended:
                break
            seat = state.to_act()[0]
            state.apply(seat, _keen(state, seat, rng))
    assert concealed_kongs > 0  # the hidden faces were exercised
