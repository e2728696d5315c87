"""The settlement calculator as a table uses it: hands worked on paper, entered as records,
answered alike by ``settle()``'s front ends (the library, ``wuhan-mahjong score`` and
``POST /api/score``), and the bad input a person at a table types.

The paper arithmetic of each hand is beside it (docs/RULES.md §17: M(p) is the product of
p's own factors, Project decision 6; a raw payment is base x M(W) x M(L)).  The browser's
side of the same hands is ``tests/web/test_calculator_hunt.py``.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from typing import Any

import pytest

from wuhan_mahjong.calculator import score_record
from wuhan_mahjong.engine import WIN, Discard, HandState, Peng
from wuhan_mahjong.engine.dealing import arrange_wall
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tiles
from wuhan_mahjong.win_record import RecordError, dump_win_record

# --- record helpers ------------------------------------------------------------------


def chi(tiles: str, frm: int) -> dict[str, Any]:
    return {"type": "chi", "tiles": tiles, "from": frm}


def peng(tiles: str, frm: int) -> dict[str, Any]:
    return {"type": "peng", "tiles": tiles, "from": frm}


def ckong(tiles: str, frm: int) -> dict[str, Any]:
    """冲杠: a kong on a discard (an opening and a 明杠)."""
    return {"type": "kong", "kind": "direct", "tiles": tiles, "from": frm}


def akong(tiles: str) -> dict[str, Any]:
    """暗杠."""
    return {"type": "kong", "kind": "concealed", "tiles": tiles}


def seat(hand: str = "", *melds: dict[str, Any], red: int = 0, laizi: int = 0, pi: int = 0,
         discards: int = 0, ready: bool | None = None) -> dict[str, Any]:
    s: dict[str, Any] = {"hand": hand, "melds": list(melds)}
    kongs = {k: v for k, v in (("red", red), ("laizi", laizi), ("pi", pi)) if v}
    if kongs:
        s["kongs"] = kongs
    if discards:
        s["laizi_discards"] = discards
    if ready is not None:
        s["ready"] = ready
    return s


def rec(profile: str, dealer: int, winner: int, win_by: str, tile: str,
        seats: list[dict[str, Any]], *, frm: int | None = None, indicator: str = "1z",
        options: dict[str, Any] | None = None) -> dict[str, Any]:
    r: dict[str, Any] = {"profile": profile, "dealer": dealer, "indicator": indicator,
                         "winner": winner, "win_by": win_by, "winning_tile": tile, "seats": seats}
    if frm is not None:
        r["from"] = frm
    if options:
        r["options"] = options
    return r


def as_profile(r: dict[str, Any], profile: str, **options: Any) -> dict[str, Any]:
    out = dict(r, profile=profile)
    out.pop("options", None)
    if options:
        out["options"] = options
    return out


def cli_score(record: dict[str, Any]) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "wuhan_mahjong", "score", "--compact"],
                       input=json.dumps(record, ensure_ascii=False), capture_output=True,
                       text=True, timeout=120, check=False)
    return p.returncode, p.stdout, p.stderr


# --- 海底捞: the losers who drew a final tile keep it ------------------------------------

# W = seat 1 wins 海底捞 on his final draw 2s: chi 123m (0), peng 555s (3), 789p 34s 22m + 2s.
# Seat 0 drew a final tile before him and passed: he holds 14 tiles (docs/RULES.md §16: the
# final draws come without a discard).  Base 10, M(W) = 口口翻 x2 x2 x 硬胡 x2 x 自摸 x1.5 = 12;
# every loser M 1 (the dealer is ignored in a big hand): 120 each.
LAST_TILE = rec("yuanhang", 2, 1, "last_tile", "2s", [
    seat("456m456p789s11z66z3z"), seat("789p34s22m", chi("123m", 0), peng("555s", 3)),
    seat(), seat()])


def test_last_tile_loser_holding_his_final_draw_is_settled() -> None:
    """A 海底捞 record with a loser's 14 tiles (the tile he drew in the final draws) was
    refused as malformed ("wrong hand size ... expected 13"): the table's hand as it lies
    could not be settled."""
    answer = score_record(json.dumps(LAST_TILE))
    assert answer.settled, answer.body
    assert answer.body["deltas"] == [-120, 360, -120, -120]
    assert answer.body["hands"] == ["haidilao"]
    code, out, err = cli_score(LAST_TILE)
    assert (code, err) == (0, "") and json.loads(out) == answer.body


def test_a_loser_holds_14_only_in_a_last_tile_win() -> None:
    """Any other win leaves each loser 13 tiles, and 15 is never a loser's hand."""
    self_drawn = dict(LAST_TILE, win_by="self_draw")
    with pytest.raises(RecordError, match="seats\\[0\\] has 14 concealed tiles"):
        score_record(json.dumps(self_drawn))
    fifteen = json.loads(json.dumps(LAST_TILE))
    fifteen["seats"][0]["hand"] += "7z"
    with pytest.raises(RecordError, match="or 14 - 3 x melds with a final draw kept"):
        score_record(json.dumps(fifteen))


# Seat 1 pengs the dealer's 1z and drops 2z with the end phase from the deal
# (tests/engine/test_engine_worked_more.py's 海底 scenario): the final draws go 2, 3, 0 (each
# keeps his tile) and seat 1 wins on his 1s.
FINAL_DRAWS_HANDS = {0: "1z2m2m8p8p9s9s3m3m9m9m1p1p5p", 1: "1z1z2z234p678s456m1s",
                     2: "1m1m7m7m2p9p9p3s3s4s7p7p6p", 3: "8m8m2s5s5s4p5p9p6m4m1m1p9s"}


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_a_played_last_tile_hand_is_scored_again_as_the_engine_settled_it(profile: str) -> None:
    """docs/score.md: a played hand's record (dump_win_record) can be re-scored; for a 海底捞
    it was refused, since three losers hold the tile of their final draw."""
    rules = dataclasses.replace(get_rules(profile), end_phase_wall=82)
    full = [parse_tiles(FINAL_DRAWS_HANDS[s]) for s in range(4)]
    (indicator,) = parse_tiles("3z")
    wall = arrange_wall(0, full, indicator, parse_tiles("5z5z5z1s"), [])
    st = HandState(rules, 0, wall, bytes(range(32)), auto_pass=True)
    (one_z,), (two_z,) = parse_tiles("1z"), parse_tiles("2z")
    st.apply(0, Discard(one_z))
    st.apply(1, Peng(one_z))
    st.apply(1, Discard(two_z))
    st.apply(1, WIN)
    result = st.result
    assert result is not None and result.win_by == "last_tile" and result.settlement is not None
    record = dump_win_record(result.settlement.record)
    del record["options"]["end_phase_wall"]  # the scripted end phase, out of the option's range
    assert sorted(len(parse_tiles(s["hand"])) + 3 * len(s["melds"]) for s in record["seats"]) \
        == [13, 14, 14, 14]  # the winner's 13 without his 1s
    answer = score_record(json.dumps(record))
    assert answer.settled and answer.body["deltas"] == list(result.deltas)
