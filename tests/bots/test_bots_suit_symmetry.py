"""Which suit is which, and which seat is which, does not matter.

The expert's discard in a position whose suits are renamed (万→筒→索→万, or 万↔索) is the
renamed discard, or one exactly as good (the same shanten and the same number of
improving tiles); its every decision in a position whose seats are renumbered (each seat
number turned by one, two or three) is the same decision.

The rules treat the three suits alike, so a choice that moves with their names is a tie
broken by the tile order where something better should decide.  Positions from greedy
self-play (the deals below are the ones where the expert used to differ): among discards
equally good for a big-hand target, the tile order decided, not the small hand's
acceptance (赖子山庄 deals 3, 26 and 28: 8m kept 17 improving tiles, 8s 14); and which
of the discards tied with the fourth best entered the two-step search did (远航 deal 39).
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.arena import deal
from wuhan_mahjong.bots.greedy import evaluator
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import new_hand, seat_view
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tile

_TILES = re.compile(r"^([1-9]+[mpsz])+$")
ROTATE = {"m": "p", "p": "s", "s": "m"}
SWAP = {"m": "s", "s": "m", "p": "p"}


def rename(obj: Any, suits: dict[str, str]) -> Any:
    """``obj`` (a view, an action) with every tile string's suit renamed."""
    if isinstance(obj, dict):
        return {k: rename(v, suits) for k, v in obj.items()}
    if isinstance(obj, list):
        return [rename(v, suits) for v in obj]
    if isinstance(obj, str) and _TILES.match(obj):
        return re.sub(r"[mps]", lambda m: suits[m.group(0)], obj)
    return obj


def test_rename_moves_every_tile_and_nothing_else() -> None:
    view = {"hand": "123m456p789s11z", "type": "discard", "laizi": "5p",
            "seats": [{"discards": [{"tile": "9s"}]}]}
    assert rename(view, ROTATE) == {"hand": "123p456s789m11z", "type": "discard", "laizi": "5s",
                                    "seats": [{"discards": [{"tile": "9m"}]}]}


@pytest.mark.parametrize(("profile", "hand_no"), [("laizishanzhuang", 3), ("laizishanzhuang", 26),
                                                  ("laizishanzhuang", 28), ("yuanhang", 39),
                                                  ("bianfeng", 1)])
def test_the_expert_s_discard_does_not_depend_on_the_suits_names(profile: str,
                                                                 hand_no: int) -> None:
    rules = get_rules(profile)
    greedy = get_bot("greedy", 1)
    wall, salt = deal(777, hand_no)
    state = new_hand(rules, 0, wall=wall, salt=salt, hand_no=hand_no, auto_pass=True)
    checked = 0
    while not state.ended:
        seat = state.to_act()[0]
        view = seat_view(state, seat)
        if view["phase"] == "turn":
            mine = get_bot("expert", 5).choose(view).to_json()
            for suits in (ROTATE, SWAP):
                back = {v: k for k, v in suits.items()}
                renamed = get_bot("expert", 5).choose(rename(copy.deepcopy(view), suits))
                theirs = rename(renamed.to_json(), back)
                assert _worth(view, theirs) == _worth(view, mine), (view["hand"], mine, theirs)
            checked += 1
        state.apply(seat, greedy.choose(view))
    assert checked >= 5


def _worth(view: Any, action: dict[str, Any]) -> tuple[Any, ...]:
    """(shanten, improving tiles) after a discard; any other action as itself."""
    if action["type"] != "discard":
        return (action["type"], action.get("kind"), action.get("tile"))
    t = SeatReading(view)
    ev = evaluator(t.hand, t.melds, t)
    tile = parse_tile(action["tile"])
    shanten = ev.shanten_after(tile, -1)
    return (shanten, ev.with_tile(tile, -1).acceptance(t.unseen, t.laizi, current=shanten)[0])


#: the fields of a seat view that hold a seat number
_SEAT_FIELDS = frozenset({"viewer", "dealer", "turn", "seat", "from_seat", "claimed_by"})


def renumber(obj: Any, k: int) -> Any:
    """``obj`` (a view, an action) with every seat number turned by ``k``."""
    if isinstance(obj, dict):
        out = {key: (v + k) % 4 if key in _SEAT_FIELDS and type(v) is int else renumber(v, k)
               for key, v in obj.items()}
        if isinstance(out.get("seats"), list):
            out["seats"] = sorted(out["seats"], key=lambda s: s["seat"])
        return out
    if isinstance(obj, list):
        return [renumber(v, k) for v in obj]
    return obj


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
def test_the_expert_s_decisions_do_not_depend_on_the_seats_numbers(profile: str) -> None:
    rules = get_rules(profile)
    greedy = get_bot("greedy", 1)
    wall, salt = deal(778, 2)
    state = new_hand(rules, 0, wall=wall, salt=salt, hand_no=2, auto_pass=True)
    checked = 0
    while not state.ended:
        seat = state.to_act()[0]
        view = seat_view(state, seat)
        mine = get_bot("expert", 5).choose(view).to_json()
        for k in (1, 2, 3):
            turned = get_bot("expert", 5).choose(renumber(copy.deepcopy(view), k))
            assert renumber(turned.to_json(), 4 - k) == mine, (view["hand"], k)
        checked += 1
        state.apply(seat, greedy.choose(view))
    assert checked >= 20
