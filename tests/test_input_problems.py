"""Malformed input says what is wrong as a code and parameters (``wuhan_mahjong.problems``),
and the settlement record and the hand query refuse the same melds.

Every problem code has a case here that raises it, with the parameters it must carry, so a
code the client translates is never left unraised or raised without what its sentence
needs.  The melds the rules never allow (the laizi in a meld; 红中, and 发财 where it is a
special kong, in a chi, peng or kong of four) were refused by the record but valued by the
hand query (`wuhan-mahjong hand`, `POST /api/hand`) as if they could be on the table.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from wuhan_mahjong.calculator import hand_query_text
from wuhan_mahjong.handinfo import HandInputError
from wuhan_mahjong.meld import MeldError, check_meld, parse_meld_spec
from wuhan_mahjong.problems import MALFORMED_CODE, PROBLEM_PARAMS, InputProblem
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tile
from wuhan_mahjong.win_record import RecordError, load_win_record

# Seat 1 wins 5m on seat 2's discard; indicator 9p, so the laizi is 1p.
BASE: dict[str, Any] = {
    "dealer": 0, "indicator": "9p", "winner": 1, "win_by": "discard", "from": 2,
    "winning_tile": "5m",
    "seats": [
        {},
        {"hand": "456p678s5m", "melds": [{"type": "chi", "tiles": "234m", "from": 0},
                                         {"type": "peng", "tiles": "777s", "from": 3}]},
        {},
        {},
    ],
}


def record(change: Callable[[dict[str, Any]], None]) -> Callable[[], object]:
    def load() -> object:
        rec = copy.deepcopy(BASE)
        change(rec)
        return load_win_record(json.dumps(rec))
    return load


def query(**fields: Any) -> Callable[[], object]:
    return lambda: hand_query_text(json.dumps({"indicator": "9p", **fields}))


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change of the record at ``path`` (``seats.1.melds.0.from``)."""
    def change(rec: dict[str, Any]) -> None:
        *head, last = path.split(".")
        node: Any = rec
        for key in head:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return change


CASES: dict[str, tuple[Callable[[], object], dict[str, int | float | str]]] = {
    "winner_size": (record(_set("seats.1.hand", "456p678s")),
                    {"seat": 1, "tiles": 6, "melds": 2}),
    "seat_size": (record(_set("seats.3.hand", "123m")), {"seat": 3, "tiles": 3, "melds": 0}),
    "hand_size": (query(hand="123m45p"), {"tiles": 5, "melds": 0}),
    "too_many_copies": (record(_set("seats.3.hand", "5555m123456789s")),
                        {"tile": "5m", "count": 6}),  # and the winning 5m
    "too_many_copies_indicator": (record(_set("seats.3.hand", "9999p123456789s")),
                                  {"tile": "9p", "count": 5}),
    "too_many_melds": (record(_set("seats.3", {"melds": [
        {"type": "peng", "tiles": t, "from": 0} for t in ("111m", "222m", "333m", "444m", "666m")]})),
        {"seat": 3}),
    "chi_not_run": (record(_set("seats.1.melds.0.tiles", "235m")), {"seat": 1, "meld": 0}),
    "not_identical": (record(_set("seats.1.melds.1.tiles", "778s")),
                      {"seat": 1, "meld": 1, "type": "peng", "count": 3}),
    "chi_not_previous": (record(_set("seats.1.melds.0.from", 2)), {"seat": 1, "meld": 0}),
    "own_feed": (record(_set("seats.1.melds.1.from", 1)), {"seat": 1, "meld": 1, "type": "peng"}),
    "concealed_fed": (record(_set("seats.1.melds.1", {"type": "kong", "kind": "concealed",
                                                      "tiles": "7777s", "from": 3})),
                      {"seat": 1, "meld": 1}),
    "laizi_in_meld": (record(_set("seats.1.melds.1.tiles", "111p")),
                      {"seat": 1, "meld": 1, "tile": "1p"}),
    "kong_alone": (record(_set("seats.1.melds.1.tiles", "777z")),
                   {"seat": 1, "meld": 1, "tile": "7z"}),
    "green_kong_not_played": (record(_set("seats.2.kongs", {"green": 1})),
                              {"seat": 2, "profile": "yuanhang"}),
    "pi_kong_not_played": (record(lambda rec: (rec.update(profile="bianfeng"),
                                               rec["seats"][2].update(kongs={"pi": 1}))),
                           {"seat": 2}),
    "kong_count": (record(_set("seats.2.kongs", {"red": 5})),
                   {"seat": 2, "kind": "red", "count": 5, "most": 4}),
    "bloom_without_kong": (record(lambda rec: (rec.update(win_by="kong_bloom"), rec.pop("from"))),
                           {"seat": 1}),
    "robbed_without_peng": (record(_set("win_by", "rob_kong")), {"seat": 2, "tile": "5m"}),
    "from_missing": (record(lambda rec: rec.pop("from")), {"win_by": "discard"}),
    "from_winner": (record(_set("from", 1)), {}),
    "option_range": (record(_set("options", {"cap": 20000})),
                     {"option": "cap", "value": "20000", "low": 0, "high": 10000}),
}


def test_every_problem_code_has_a_case() -> None:
    assert set(CASES) == set(PROBLEM_PARAMS) - {MALFORMED_CODE}


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_problem_carries_its_code_and_parameters(code: str) -> None:
    make, params = CASES[code]
    with pytest.raises(InputProblem) as raised:
        make()
    assert raised.value.code == code, raised.value
    assert raised.value.params == params, raised.value
    assert set(params) <= PROBLEM_PARAMS[code]


def test_an_unknown_code_or_parameter_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="not in PROBLEM_PARAMS"):
        RecordError("x", "no_such_problem")
    with pytest.raises(ValueError, match="not in PROBLEM_PARAMS"):
        RecordError("x", "from_winner", seat=1)


def test_structural_problems_are_malformed_with_their_sentence() -> None:
    with pytest.raises(RecordError) as raised:
        load_win_record('{"dealer": 0}')
    assert raised.value.code == MALFORMED_CODE and raised.value.params == {}
    assert str(raised.value) == "missing field 'indicator'"


# The record's seat 1 and the hand query hold the same tiles; the meld changes.
@pytest.mark.parametrize(("profile", "indicator", "meld", "spec", "problem"), [
    # the laizi (the tile after the indicator) in a peng or a concealed kong
    ("yuanhang", "9p", {"type": "peng", "tiles": "111p", "from": 3}, "peng:111p",
     ("laizi_in_meld", "1p")),
    ("yuanhang", "9p", {"type": "kong", "kind": "concealed", "tiles": "1111p"}, "ankong:1111p",
     ("laizi_in_meld", "1p")),
    # 红中 leaves the hand only as 红中杠
    ("yuanhang", "9p", {"type": "peng", "tiles": "777z", "from": 3}, "peng:777z",
     ("kong_alone", "7z")),
    ("bianfeng", "9p", {"type": "kong", "kind": "direct", "tiles": "7777z", "from": 3},
     "kong:7777z", ("kong_alone", "7z")),
    # 发财 too in laizishanzhuang, where it is a special kong; elsewhere a plain tile
    ("laizishanzhuang", "9p", {"type": "peng", "tiles": "666z", "from": 3}, "peng:666z",
     ("kong_alone", "6z")),
    ("yuanhang", "9p", {"type": "peng", "tiles": "666z", "from": 3}, "peng:666z", None),
    ("yuanhang", "9p", {"type": "peng", "tiles": "777s", "from": 3}, "peng:777s", None),
])
def test_the_record_and_the_hand_query_refuse_the_same_melds(
        profile: str, indicator: str, meld: dict[str, Any], spec: str,
        problem: tuple[str, str] | None) -> None:
    rec = copy.deepcopy(BASE)
    rec.update(profile=profile, indicator=indicator)
    rec["seats"][1]["melds"][1] = meld
    hand = {"hand": "456p678s5m", "indicator": indicator, "melds": ["chi:234m", spec],
            "profile": profile}
    rules = get_rules(profile)
    check = (parse_meld_spec(spec), rules.laizi_of(parse_tile(indicator)), rules.must_kong_tiles)
    if problem is None:
        load_win_record(json.dumps(rec))
        report = hand_query_text(json.dumps(hand))
        assert report["melds"][1] == str(parse_meld_spec(spec))
        check_meld(*check)
        return
    code, tile = problem
    for attempt, error in ((lambda: load_win_record(json.dumps(rec)), RecordError),
                           (lambda: hand_query_text(json.dumps(hand)), HandInputError)):
        with pytest.raises(error) as raised:
            attempt()
        assert raised.value.code == code and raised.value.params["tile"] == tile
        assert raised.value.params["meld"] == 1
    with pytest.raises(MeldError):  # the one check both ask
        check_meld(*check)
