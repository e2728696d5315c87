"""Every worked example of docs/RULES.md §21, in each profile it shows."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from wuhan_mahjong.analysis import NotAWin
from wuhan_mahjong.scoring import Settlement, settle
from wuhan_mahjong.win_record import parse_win_record


def run(record: dict[str, Any]) -> Settlement:
    return settle(parse_win_record(record))


def by_loser(s: Settlement) -> dict[int, int]:
    return {p.loser: int(p.amount) for p in s.payments}


def raw_by_loser(s: Settlement) -> dict[int, float]:
    return {p.loser: float(p.raw) for p in s.payments}


# Example 1: [003]'s own example. Seats A=0, B=1, C=2 (dealer), D=3 (winner); A deals in.
EXAMPLE_1: dict[str, Any] = {
    "dealer": 2, "indicator": "1z", "winner": 3, "win_by": "discard", "from": 0,
    "winning_tile": "5s",
    "seats": [
        {"melds": [{"type": "kong", "kind": "direct", "tiles": "4444z", "from": 2}]},
        {"melds": [{"type": "chi", "tiles": "789m", "from": 0}], "kongs": {"red": 1}},
        {"melds": [{"type": "kong", "kind": "added", "tiles": "6666s", "from": 1}]},
        {"hand": "345p678p5s", "melds": [{"type": "chi", "tiles": "234m", "from": 2},
                                         {"type": "kong", "kind": "concealed", "tiles": "9999s"}]},
    ],
}


@pytest.mark.parametrize("profile", ["laizishanzhuang", "yuanhang", "bianfeng"])
def test_example_1_fan_exponents(profile: str) -> None:
    s = run({**EXAMPLE_1, "profile": profile})
    assert s.hands == () and s.reading.hard
    assert [float(m) for m in s.multipliers] == [8, 4, 8, 16]
    assert by_loser(s) == {0: 128, 1: 64, 2: 128}
    assert s.deltas == (-128, -64, -128, 320)
    assert s.contractor is None and not s.golden_cap


# Example 2: [000]'s 口口翻 "×8×2".  Z=0 (dealer), W=1 (winner), X=2 (discarder), Y=3.
EXAMPLE_2: dict[str, Any] = {
    "profile": "yuanhang", "dealer": 0, "indicator": "8m", "winner": 1, "win_by": "discard",
    "from": 2, "winning_tile": "4s",
    "seats": [
        {},
        {"hand": "22p3s9m", "melds": [{"type": "chi", "tiles": "123m", "from": 0},
                                      {"type": "chi", "tiles": "456p", "from": 0},
                                      {"type": "peng", "tiles": "777s", "from": 3}]},
        {"melds": [{"type": "peng", "tiles": "111z", "from": 3}]},
        {"melds": [{"type": "chi", "tiles": "789p", "from": 2}]},
    ],
}


def test_example_2_per_opening() -> None:
    s = run(EXAMPLE_2)
    assert not s.reading.hard  # the laizi 9m stands in as a wild
    assert [float(m) for m in s.multipliers] == [2, 8, 4, 2]
    assert by_loser(s) == {0: 16, 2: 32, 3: 16}
    assert s.total == 64


def test_example_2_unopened_discarder_fails_minimum() -> None:
    rec = copy.deepcopy(EXAMPLE_2)
    rec["seats"][2] = {}
    rec["seats"][3] = {"melds": [{"type": "chi", "tiles": "789p", "from": 2}]}
    for profile in ("yuanhang", "bianfeng"):
        with pytest.raises(NotAWin, match="minimum"):
            run({**rec, "profile": profile, "options": {"opening_scoring": "per_opening"}})
    # [003] has no minimum: the win stands (each loser owes 16)
    s = run({**rec, "profile": "laizishanzhuang", "options": {"opening_scoring": "per_opening"}})
    assert by_loser(s) == {0: 16, 2: 16, 3: 16}


def test_example_2_self_draw() -> None:
    rec = {**EXAMPLE_2, "win_by": "self_draw"}
    del rec["from"]
    s = run(rec)
    assert float(s.multipliers[1]) == 16
    assert by_loser(s) == {0: 32, 2: 32, 3: 32}
    assert s.total == 96


def test_example_2_standard_mode_fails_both_minimums() -> None:
    rec = {**EXAMPLE_2, "options": {"opening_scoring": "once"}}
    with pytest.raises(NotAWin, match="minimum"):
        run(rec)
    with pytest.raises(NotAWin, match="minimum"):
        run({**rec, "profile": "bianfeng"})
    s = run({**rec, "profile": "laizishanzhuang"})
    assert by_loser(s) == {0: 4, 2: 8, 3: 4}


# Example 3: [001] standard mode.  E=0 dealer and winner by self-draw.
EXAMPLE_3: dict[str, Any] = {
    "profile": "bianfeng", "dealer": 0, "indicator": "1z", "winner": 0, "win_by": "self_draw",
    "winning_tile": "5s",
    "seats": [
        {"hand": "234m567m789s5s", "melds": [{"type": "peng", "tiles": "222p", "from": 2}],
         "kongs": {"red": 1}},
        {"melds": [{"type": "chi", "tiles": "123p", "from": 0}]},
        {},
        {"melds": [{"type": "peng", "tiles": "333z", "from": 1},
                   {"type": "kong", "kind": "concealed", "tiles": "9999m"},
                   {"type": "kong", "kind": "direct", "tiles": "8888p", "from": 0}]},
    ],
}


def test_example_3_cap() -> None:
    s = run(EXAMPLE_3)
    assert [float(m) for m in s.multipliers] == [32, 2, 1, 16]
    assert raw_by_loser(s) == {1: 64, 2: 32, 3: 512}
    assert by_loser(s) == {1: 64, 2: 32, 3: 300}
    assert s.total == 396 and not s.golden_cap
    assert [p.limit for p in s.payments] == ["none", "none", "cap"]


# Example 4: W=1 four pungs of characters, X=0 deals in 3m, Y=3 fed the third, Z=2 dealer.
EXAMPLE_4: dict[str, Any] = {
    "dealer": 2, "indicator": "9p", "winner": 1, "win_by": "discard", "from": 0,
    "winning_tile": "3m",
    "seats": [
        {"melds": [{"type": "peng", "tiles": "111z", "from": 2}], "ready": True},
        {"hand": "3m", "melds": [{"type": "peng", "tiles": "111m", "from": 0},
                                 {"type": "peng", "tiles": "444m", "from": 2},
                                 {"type": "peng", "tiles": "777m", "from": 3},
                                 {"type": "peng", "tiles": "999m", "from": 0}]},
        {"melds": [{"type": "kong", "kind": "direct", "tiles": "5555p", "from": 0}]},
        {},
    ],
}


def test_example_4_yuanhang_standard_mode() -> None:
    s = run({**EXAMPLE_4, "profile": "yuanhang", "options": {"opening_scoring": "once"}})
    assert set(s.hands) == {"qingyise", "pengpenghu", "quanqiuren"}
    assert s.base == 40 and s.reading.hard
    assert [float(m) for m in s.multipliers] == [3, 4, 4, 1]
    assert raw_by_loser(s) == {0: 480, 2: 640, 3: 160}
    assert by_loser(s) == {0: 400, 2: 400, 3: 160}
    assert s.contractor == 3 and s.contract_reason == "third_feeder"
    assert s.to_json()["contract_reason_zh"].startswith("清一色")
    assert all(p.payer == 3 for p in s.payments)
    assert s.deltas == (0, 960, 0, -960)


def test_example_4_laizishanzhuang() -> None:
    s = run({**EXAMPLE_4, "profile": "laizishanzhuang"})
    assert s.base == 30
    assert raw_by_loser(s) == {0: 360, 2: 480, 3: 120}
    assert s.contractor == 3
    assert s.deltas == (0, 880, 0, -880)


def test_example_4_per_opening_golden_cap() -> None:
    s = run({**EXAMPLE_4, "profile": "yuanhang"})
    assert float(s.multipliers[1]) == 32
    assert raw_by_loser(s) == {0: 3840, 2: 5120, 3: 1280}
    assert s.golden_cap
    assert s.deltas == (0, 1200, 0, -1200)


def test_example_4_hand_base_cap_reading() -> None:
    s = run({**EXAMPLE_4, "profile": "yuanhang",
             "options": {"opening_scoring": "once", "cap_unit": "hand_base"}})
    assert s.deltas == (0, 1280, 0, -1280)


def test_example_4_quanqiuren_contract_when_discarder_not_ready() -> None:
    rec = copy.deepcopy(EXAMPLE_4)
    rec["seats"][0]["ready"] = False
    # both contracts apply: the one-suit third feeder pays (docs/RULES.md Amb. 34c)
    s = run({**rec, "profile": "laizishanzhuang"})
    assert s.contractor == 3


# Example 5: K=0 (konger), R=1 (robber), P=2, D=3 (dealer).  Laizi 2z (indicator 1z).
EXAMPLE_5: dict[str, Any] = {
    "dealer": 3, "indicator": "1z", "winner": 1, "win_by": "rob_kong", "from": 0,
    "winning_tile": "5m",
    "seats": [
        {"hand": "234s67s5p2z", "melds": [{"type": "chi", "tiles": "123p", "from": 3},
                                          {"type": "peng", "tiles": "555m", "from": 2}]},
        {"hand": "46m123p456p88s", "melds": [{"type": "chi", "tiles": "789m", "from": 0}]},
        {},
        {"melds": [{"type": "peng", "tiles": "111z", "from": 2}]},
    ],
}


def test_example_5_konger_bloom_bianfeng() -> None:
    s = run({**EXAMPLE_5, "profile": "bianfeng"})
    assert s.hands == ("qiangganghu",)
    assert float(s.multipliers[0]) == 6
    assert raw_by_loser(s) == {1: 120, 2: 60, 3: 120}
    assert s.contractor == 0 and s.contract_reason == "robbed_kong"
    assert s.deltas == (-300, 300, 0, 0)
    assert s.hypothetical is not None and s.hypothetical["hard"] is False


def test_example_5_robber_hand_laizishanzhuang() -> None:
    s = run({**EXAMPLE_5, "profile": "laizishanzhuang"})
    assert s.hands == ("qiangganghu",) and s.base == 10
    assert [float(m) for m in s.multipliers] == [2, 4, 1, 2]
    assert raw_by_loser(s) == {0: 80, 2: 40, 3: 80}
    assert s.contractor == 0
    assert s.deltas == (-200, 200, 0, 0)


def test_example_5_yuanhang_per_opening() -> None:
    s = run({**EXAMPLE_5, "profile": "yuanhang"})
    assert float(s.multipliers[0]) == 12  # two openings ×4, the kong ×2, self-draw ×1.5
    assert s.deltas == (-600, 600, 0, 0)


# Example 6: W=1 self-draws; X=0, Y=2 (dealer, never opened), Z=3.
EXAMPLE_6: dict[str, Any] = {
    "dealer": 2, "indicator": "1z", "winner": 1, "win_by": "self_draw", "winning_tile": "5s",
    "seats": [
        {"melds": [{"type": "kong", "kind": "direct", "tiles": "3333z", "from": 2}]},
        {"hand": "678m5s", "melds": [{"type": "chi", "tiles": "234s", "from": 0},
                                     {"type": "kong", "kind": "concealed", "tiles": "6666p"},
                                     {"type": "kong", "kind": "concealed", "tiles": "9999m"}]},
        {"kongs": {"red": 1}},
        {"melds": [{"type": "peng", "tiles": "333p", "from": 0},
                   {"type": "kong", "kind": "concealed", "tiles": "1111s"}]},
    ],
}


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_example_6_golden_cap(profile: str) -> None:
    s = run({**EXAMPLE_6, "profile": profile})
    assert float(s.multipliers[1]) == 128
    assert raw_by_loser(s) == {0: 512, 2: 512, 3: 1024}
    assert s.golden_cap
    assert s.deltas == (-400, 1200, -400, -400)


def test_example_6_bright_cap_laizishanzhuang() -> None:
    s = run({**EXAMPLE_6, "profile": "laizishanzhuang"})
    assert s.golden_cap
    assert by_loser(s) == {0: 500, 2: 600, 3: 500}
    assert [p.limit for p in s.payments] == ["golden", "bright", "golden"]
    assert s.total == 1600


def test_konger_cannot_draw_a_fifth_copy_of_his_kong_tile() -> None:
    """K (one suit, 46m waiting on 5m) adds the fourth 5m and is robbed: a fifth 5m
    does not exist, so his best 杠开 is drawing the laizi (2z): a soft 清一色."""
    rec = copy.deepcopy(EXAMPLE_5)
    rec["seats"][0]["hand"] = "46m789m11m"
    rec["seats"][0]["melds"][0]["tiles"] = "123m"
    s = run({**rec, "profile": "bianfeng"})
    assert s.hypothetical is not None
    assert s.hypothetical["hands"] == ["qingyise", "gangshanghua"]
    assert s.hypothetical["hard"] is False and float(s.multipliers[0]) == 6
    assert s.deltas == (-600, 600, 0, 0)  # 240 + 120 + 240; a hard 5m would pay 1040
