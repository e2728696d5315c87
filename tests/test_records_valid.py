"""Impossible records are refused: at most four copies of a tile, the face-up indicator included.

The indicator (癞子皮) is out of play for the whole hand (docs/RULES.md §5, Project
decision 2), so it is one of the four copies of its tile.  A record that shows a
fifth copy anywhere (a hand, a meld, the winning tile, a single-tile kong) is
malformed: ``RecordError`` in the library, exit 2 from ``wuhan-mahjong score``.
"""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.engine.actions import WIN, Action, SpecialKong
from wuhan_mahjong.engine.match import Policy, play_hand, simple_policy
from wuhan_mahjong.engine.state import HandState, new_hand
from wuhan_mahjong.handinfo import HandInputError, hand_report
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.tiles import parse_tiles
from wuhan_mahjong.win_record import RecordError, dump_win_record, parse_win_record

ROOT = Path(__file__).resolve().parents[1]

# Seat 1 wins 5m on seat 2's discard; indicator 9p, so the laizi is 1p.  Seat 2 shows
# a 8888p kong, one 红中杠 and one laizi discard.  Seat 3's hand is the parameter.
BASE: dict[str, Any] = {
    "dealer": 0, "indicator": "9p", "winner": 1, "win_by": "discard", "from": 2,
    "winning_tile": "5m",
    "seats": [
        {},
        {"hand": "456p678s5m", "melds": [{"type": "chi", "tiles": "234m", "from": 0},
                                         {"type": "peng", "tiles": "777s", "from": 3}]},
        {"melds": [{"type": "kong", "kind": "direct", "tiles": "8888p", "from": 0}],
         "kongs": {"red": 1}, "laizi_discards": 1},
        {},
    ],
}


def with_seat3(hand: str, indicator: str = "9p", **top: Any) -> dict[str, Any]:
    rec = copy.deepcopy(BASE)
    rec["seats"][3] = {"hand": hand}
    rec["indicator"] = indicator
    rec.update(top)
    return rec


@pytest.mark.parametrize(("indicator", "hand", "fifth"), [
    # the indicator plus three held copies is four: legal
    ("9p", "999p1122334455z", None),
    # the indicator plus four held copies is five
    ("9p", "9999p112233445z", "9p"),
    # honours: indicator 3z (the laizi is 4z)
    ("3z", "333z999p1122556z", None),
    ("3z", "3333z999p112255z", "3z"),
    # the red dragon: seat 2's 红中杠 set one aside
    ("9p", "777z999p1122334z", None),
    ("9p", "7777z999p112233z", "7z"),
    # the laizi (1p): seat 2's laizi discard is one copy
    ("9p", "111p999p1122334z", None),
    ("9p", "1111p999p112233z", "1p"),
    # the winning tile: the winner holds one 5m and wins on another
    ("9p", "55m999p11223344z", None),
    ("9p", "555m999p1122334z", "5m"),
    # the 8888p kong already shows all four 8p
    ("9p", "8p999p112233445z", "8p"),
])
def test_copies_in_a_record(indicator: str, hand: str, fifth: str | None) -> None:
    assert len(parse_tiles(hand)) == 13
    rec = with_seat3(hand, indicator)
    if fifth is None:
        assert settle(parse_win_record(rec)).total > 0
    else:
        with pytest.raises(RecordError, match=f"more than four copies of {fifth} "):
            parse_win_record(rec)


@pytest.mark.parametrize(("kong_tiles", "ok"), [("8888p", True), ("9999p", False)])
def test_indicator_9p_beside_a_9999p_kong(kong_tiles: str, ok: bool) -> None:
    """The combination of an earlier sample record: five 9p, whatever else the record says."""
    rec = copy.deepcopy(BASE)
    rec["seats"][2]["melds"][0]["tiles"] = kong_tiles
    if ok:
        assert settle(parse_win_record(rec)).deltas == (-16, 280, -256, -8)
        return
    with pytest.raises(RecordError, match=r"copies of 9p \(5, the face-up indicator included\)"):
        parse_win_record(rec)
    # the same kong is legal once the indicator is another tile (laizi 1s)
    rec["indicator"] = "9s"
    parse_win_record(rec)


def test_green_dragon_kongs_count_where_green_is_special() -> None:
    rec = with_seat3("", "6z", profile="laizishanzhuang")
    rec["seats"][3] = {"kongs": {"green": 3}}
    parse_win_record(rec)  # the indicator and three 发财杠: four 6z
    rec["seats"][0] = {"kongs": {"green": 1}}
    with pytest.raises(RecordError, match="copies of 6z"):
        parse_win_record(rec)


def test_pi_kongs_and_the_indicator() -> None:
    rec = with_seat3("", "9p", profile="bianfeng", options={"opening_scoring": "per_opening"})
    rec["seats"][3] = {"kongs": {"pi": 3}}
    parse_win_record(rec)  # the face-up 9p and three 癞子皮杠 of 9p
    rec["seats"][3] = {"hand": "9p999s112233445z", "kongs": {"pi": 3}}
    with pytest.raises(RecordError, match="only three copies of it are in play"):
        parse_win_record(rec)


def test_laizi_kongs_and_discards_are_copies_of_the_laizi() -> None:
    rec = copy.deepcopy(BASE)
    rec["seats"][0] = {"kongs": {"laizi": 3}}  # with seat 2's laizi discard: four 1p
    parse_win_record(rec)
    rec["seats"][3] = {"laizi_discards": 1}
    with pytest.raises(RecordError, match="copies of 1p"):
        parse_win_record(rec)


@pytest.mark.parametrize(("hand", "indicator", "melds", "fifth"), [
    ("456p678s5m", "9p", ["chi:234m", "kong:8888p"], None),
    ("456p678s5m", "9p", ["chi:234m", "kong:9999p"], "9p"),
    ("999p678s5m", "9p", ["chi:234m", "peng:777s"], None),
    ("999p678s5m9p", "9p", ["chi:234m", "peng:777s"], "9p"),
    ("1234567m777z", "7z", ["peng:777s"], None),
    ("123456789m7777z", "7z", [], "7z"),
])
def test_hand_queries_count_the_indicator_too(hand: str, indicator: str, melds: list[str],
                                              fifth: str | None) -> None:
    """``wuhan-mahjong hand`` and ``POST /api/hand`` refuse a fifth copy the same way."""
    rules = get_rules()
    if fifth is None:
        hand_report(hand, indicator, melds, rules)
    else:
        with pytest.raises(HandInputError, match=f"more than four copies of {fifth} "):
            hand_report(hand, indicator, melds, rules)


def kong_happy(rng: random.Random) -> Policy:
    """Wins when it can and plays most special kongs (癞子杠, 癞子皮杠, 红中杠) it may."""

    def play(state: HandState, seat: int) -> Action:
        acts = state.legal_actions(seat)
        if WIN in acts:
            return WIN
        kongs = [a for a in acts if isinstance(a, SpecialKong)]
        if kongs and rng.random() < 0.7:
            return rng.choice(kongs)
        return simple_policy(state, seat)

    return play


@pytest.mark.parametrize(("profile", "options"), [
    ("yuanhang", {}), pytest.param("bianfeng", {"opening_scoring": "per_opening"}, marks=pytest.mark.slow),
    pytest.param("laizishanzhuang", {}, marks=pytest.mark.slow)])
def test_every_record_the_engine_settles_is_legal(profile: str, options: dict[str, Any]) -> None:
    """Real hands, with laizi kongs and 癞子皮杠: the copies check never refuses one, and the
    record settles to the engine's own amounts."""
    rng = random.Random(f"records-{profile}")
    rules = get_rules(profile, options)
    seen = 0
    special = 0
    for i in range(12):
        state = play_hand(new_hand(rules, i % 4, rng=rng), kong_happy(rng))
        if state.result is None or state.result.settlement is None:
            continue
        rec = state.result.settlement.record
        again = parse_win_record(json.loads(json.dumps(dump_win_record(rec))))
        assert again == rec
        assert settle(again).deltas == state.result.deltas
        seen += 1
        special += sum(st.laizi_kongs + st.pi_kongs for st in rec.seats)
    assert seen >= 6 and special >= 6


# --- the documented examples are legal records -------------------------------------------

def _readme_record() -> dict[str, Any]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"echo '(\{.*?\})' \| wuhan-mahjong score", text, re.S)
    assert m, "README's 'Settle a hand' example is missing"
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def _score_doc_record() -> dict[str, Any]:
    text = (ROOT / "docs" / "score.md").read_text(encoding="utf-8")
    m = re.search(r"## Record\s+```json\n(.*?)```", text, re.S)
    assert m, "docs/score.md's record example is missing"
    data: dict[str, Any] = json.loads(m.group(1))
    return data


@pytest.mark.parametrize("load", [_readme_record, _score_doc_record])
def test_documented_records_settle_as_the_docs_say(load: Any) -> None:
    rec = load()
    s = settle(parse_win_record(rec))
    assert list(s.deltas) == [-16, 280, -256, -8]
    for name in ("README.md", "docs/score.md"):
        assert "[-16, 280, -256, -8]" in (ROOT / name).read_text(encoding="utf-8")


def test_cli_refuses_the_five_copies_record_with_exit_2() -> None:
    rec = copy.deepcopy(BASE)
    rec["seats"][2]["melds"][0]["tiles"] = "9999p"
    p = subprocess.run([sys.executable, "-m", "wuhan_mahjong", "score"], input=json.dumps(rec),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "more than four copies of 9p" in lines[0]
