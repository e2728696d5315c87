"""The settlement calculator as a table uses it: hands worked on paper, entered as records,
answered alike by ``settle()``'s front ends (the library, ``wuhan-mahjong score`` and
``POST /api/score``), and the bad input a person at a table types.

The paper arithmetic of each hand is beside it (docs/RULES.md §17: M(p) is the product of
p's own factors, Project decision 6; a raw payment is base x M(W) x M(L)).  The browser's
side of the same hands is ``tests/web/test_calculator_hunt.py``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import re
import subprocess
import sys
from typing import Any
from unittest import mock

import pytest

from test_worked_settlements_more import akong, chi, ckong, peng, rec, seat  # the record builders
from wuhan_mahjong.calculator import hand_query, score_record
from wuhan_mahjong.cli import main as cli_main
from wuhan_mahjong.engine import WIN, Discard, HandState, Peng
from wuhan_mahjong.engine.dealing import arrange_wall
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tiles
from wuhan_mahjong.win_record import RecordError, dump_win_record

# --- record helpers ------------------------------------------------------------------


def as_profile(r: dict[str, Any], profile: str, **options: Any) -> dict[str, Any]:
    out = dict(r, profile=profile)
    out.pop("options", None)
    if options:
        out["options"] = options
    return out


def cli_score(record: dict[str, Any] | str) -> tuple[int, str, str]:
    """``wuhan-mahjong score --compact`` in a process of its own: (exit status, stdout, stderr)."""
    text = record if isinstance(record, str) else json.dumps(record, ensure_ascii=False)
    p = subprocess.run([sys.executable, "-m", "wuhan_mahjong", "score", "--compact"],
                       input=text, capture_output=True, text=True, timeout=120, check=False)
    return p.returncode, p.stdout, p.stderr


def cli_in_process(text: str) -> tuple[int, str, str]:
    """The same command through ``wuhan_mahjong.cli.main`` in this process (fast)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            mock.patch.object(sys, "stdin", io.StringIO(text)):
        try:
            code = cli_main(["score", "--compact"])
        except SystemExit as e:
            code = int(e.code or 0)
    return code, out.getvalue(), err.getvalue()


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


# --- hands from a real table, worked on paper ------------------------------------------
#
# Each is (name, record, the deltas, or the refusal code of a hand that is no legal win).
# tests/web/test_calculator_hunt.py enters every one on the calculator page.

TABLE_HANDS: list[tuple[str, dict[str, Any], list[int] | str]] = []


def hand(name: str, record: dict[str, Any], answer: list[int] | str) -> None:
    TABLE_HANDS.append((name, record, answer))


# The laizi as itself.  Indicator 4m: the laizi is 5m, here in 456m as a 5m, so the win is
# hard (decision 12).  The dealer (seat 0, chi 123p from 3) self-draws 2s: 234m 456m 789s 22s.
# M(W) = 开口 x2 x 硬胡 x2 x 自摸 x2 x 庄 x2 = 16; losers M 1: 16 each.
ITSELF = rec("yuanhang", 0, 0, "self_draw", "2s", [
    seat("234m456m789s2s", chi("123p", 3)), seat(), seat(), seat()], indicator="4m")
hand("yh-laizi-as-itself-under-minimum", ITSELF, "minimum_one_loser")  # 16 < 20
hand("lz-laizi-as-itself-dealer-selfdraw", as_profile(ITSELF, "laizishanzhuang"),
     [48, -16, -16, -16])  # no minimum there

# A small self-draw with the dealer among the losers.  W = seat 1: chi 123p (0), peng 777s
# (2); 234m 456m 5s + 5s.  口口翻: M(W) = 2 x 2 x 硬胡 2 x 自摸 2 = 16; dealer seat 0: 2 -> 32;
# seats 2, 3: 16.  开口翻: M(W) = 8 -> 16 / 8 / 8: under 20 in bianfeng.
DEALER_LOSES = rec("yuanhang", 0, 1, "self_draw", "5s", [
    seat(), seat("234m456m5s", chi("123p", 0), peng("777s", 2)), seat(), seat()], indicator="3z")
hand("yh-small-selfdraw-dealer-loser", DEALER_LOSES, [-32, 64, -16, -16])
hand("bf-small-selfdraw-under-minimum", as_profile(DEALER_LOSES, "bianfeng"), "minimum_one_loser")
hand("lz-small-selfdraw", as_profile(DEALER_LOSES, "laizishanzhuang"), [-16, 32, -8, -8])

# A soft small hand on a discard.  Indicator 9p: laizi 1p.  W = seat 2: peng 999m (0),
# chi 345s (1); 234p 67m + 1p (a 5m or 8m) and the pair 5s on seat 1's 5s.
# 口口翻: M(W) = 2 x 2 = 4 (soft).  Seat 0: 丢癞子 x2 -> 2: 8.  Seat 1: 暗杠 x4 x 放冲 x2 -> 8:
# 32.  Seat 3 deals and made a 红中杠: 2 x 2 = 4: 16.  W 56.  开口翻 M(W) = 2: 4 / 16 / 8.
SOFT = rec("yuanhang", 3, 2, "discard", "5s", [
    seat(discards=1), seat("", akong("3333z")),
    seat("234p67m1p5s", peng("999m", 0), chi("345s", 1)), seat(red=1)], frm=1, indicator="9p")
hand("yh-soft-discard-losers-factors", SOFT, [-8, -32, 56, -16])
hand("bf-soft-discard-under-minimum", as_profile(SOFT, "bianfeng"), "minimum_one_loser")
hand("lz-soft-discard", as_profile(SOFT, "laizishanzhuang"), [-4, -16, 28, -8])

# 清一色 self-drawn by the dealer (ignored in a big hand).  W = seat 0: peng 111s (2),
# chi 234s (3); 566778s 9s + 9s.  Base 10.  口口翻: M(W) = 4 x 硬胡 2 x 自摸 1.5 = 12: 120
# each.  开口翻: 2 x 2 x 1.5 = 6: 60 each.
QING_SELF = rec("yuanhang", 0, 0, "self_draw", "9s", [
    seat("566778s9s", peng("111s", 2), chi("234s", 3)), seat(), seat(), seat()])
hand("yh-qingyise-selfdraw-dealer", QING_SELF, [360, -120, -120, -120])
hand("lz-qingyise-selfdraw-dealer", as_profile(QING_SELF, "laizishanzhuang"), [180, -60, -60, -60])

# 清一色 whose third opening seat 3 fed: he contracts (§17.10).  W = seat 2: peng 111p (0),
# chi 234p (1), peng 999p (3); 55p 67p + 8p from seat 1.  口口翻: M(W) = 8 x 硬胡 2 = 16,
# base 10: seat 1 (放冲 x1.5) 240, seats 0 and 3 160; seat 3 pays 560.  开口翻: M(W) = 4:
# 60 + 40 + 40 = 140.
QING_FEEDER = rec("yuanhang", 0, 2, "discard", "8p", [
    seat(), seat(), seat("55p67p", peng("111p", 0), chi("234p", 1), peng("999p", 3)), seat()],
    frm=1)
hand("yh-qingyise-third-feeder", QING_FEEDER, [0, 0, 560, -560])
hand("bf-qingyise-third-feeder", as_profile(QING_FEEDER, "bianfeng"), [0, 0, 140, -140])
hand("lz-qingyise-third-feeder", as_profile(QING_FEEDER, "laizishanzhuang"), [0, 0, 140, -140])

# 清一色 + 碰碰胡 self-drawn: base 20 both ways (10 x 2 = 10 + 10).  W = seat 3: peng 222m (0),
# peng 555m (1); 777m 999m 3m + 3m.  口口翻: M(W) = 4 x 2 x 1.5 = 12: 240 each; 开口翻 6: 120.
QING_PENG = rec("yuanhang", 0, 3, "self_draw", "3m", [
    seat(), seat(), seat(), seat("777m999m3m", peng("222m", 0), peng("555m", 1))])
hand("yh-qingyise-pengpeng", QING_PENG, [-240, -240, -240, 720])
hand("lz-qingyise-pengpeng", as_profile(QING_PENG, "laizishanzhuang"), [-120, -120, -120, 360])

# 将一色 + 碰碰胡 + 全求人 on seat 2's 5s.  W = seat 1: peng 222m (0), peng 555p (2), peng 888s
# (3, his third opening), peng 222s (0); holds 5s.  Three big hands: yuanhang 10 x 4 = 40,
# laizishanzhuang 10 x 3 = 30.  开口翻: M(W) = 2 x 硬胡 2 = 4.
# yuanhang 开口翻: 160 / 240 (放冲 1.5) / 160; the 5s is a 将: seat 2 pays 560.
# laizishanzhuang: 120 / 180 / 120; seat 2 not ready: he pays 420; ready: each his own.
# bianfeng: 将一色 is a one-suit hand there: the third feeder (seat 3) pays 560.
JIANG = rec("yuanhang", 0, 1, "discard", "5s", [
    seat(), seat("5s", peng("222m", 0), peng("555p", 2), peng("888s", 3), peng("222s", 0)),
    seat(), seat()], frm=2)
hand("yh-once-jiang-peng-qqr-jiang-contract",
     as_profile(JIANG, "yuanhang", opening_scoring="once"), [0, 560, -560, 0])
hand("lz-jiang-peng-qqr-not-ready-contract", as_profile(JIANG, "laizishanzhuang"),
     [0, 420, -420, 0])
JIANG_READY = dict(JIANG, seats=[seat(), JIANG["seats"][1], seat(ready=True), seat()])
hand("lz-jiang-peng-qqr-ready", as_profile(JIANG_READY, "laizishanzhuang"),
     [-120, 420, -180, -120])
hand("bf-jiang-peng-qqr-third-feeder", as_profile(JIANG, "bianfeng"), [0, 560, 0, -560])

# 风一色 (乱风, no sets) on seat 3's 5z.  Indicator 9p.  W = seat 0: peng 111z (2), peng 333z
# (1); 2z 44z 5z 666z + 5z.  yuanhang: two big hands, base 20, M(W) = 4 x 2 = 8: seat 3
# (x1.5) 240, seats 1 (dealer, ignored) and 2 160.  bianfeng 开口翻: M(W) = 4: 120 / 80 / 80.
# laizishanzhuang: 发 (6z) must be konged: no win while it is held.
FENG = rec("yuanhang", 1, 0, "discard", "5z", [
    seat("2z4z4z5z6z6z6z", peng("111z", 2), peng("333z", 1)), seat(), seat(), seat()], frm=3,
    indicator="9p")
hand("yh-fengyise-two-big-hands", FENG, [560, -160, -160, -240])
hand("bf-fengyise", as_profile(FENG, "bianfeng"), [280, -80, -80, -120])
hand("lz-fengyise-holds-green", as_profile(FENG, "laizishanzhuang"), "holds_must_kong")

# 杠上花 on the replacement of a 红中杠.  W = seat 2 (dealer, ignored): chi 123m (1), peng 444p
# (3), one 红中杠; 678s 345m 8p + 8p.  Base 10.  口口翻: M(W) = 4 x 红中杠 2 x 硬胡 2 x 1.5 = 24:
# 240 each.  开口翻: 2 x 2 x 2 x 1.5 = 12: 120 each (8p is a 将, as laizishanzhuang asks).
BLOOM = rec("yuanhang", 2, 2, "kong_bloom", "8p", [
    seat(), seat(), seat("678s345m8p", chi("123m", 1), peng("444p", 3), red=1), seat()])
hand("yh-bloom-after-red-kong", BLOOM, [-240, -240, 720, -240])
hand("bf-bloom-after-red-kong", as_profile(BLOOM, "bianfeng"), [-120, -120, 360, -120])
hand("lz-bloom-after-red-kong", as_profile(BLOOM, "laizishanzhuang"), [-120, -120, 360, -120])

# 杠上花 after a 癞子杠 with 清一色 (indicator 1z, laizi 2z).  W = seat 0: peng 111s (2), chi
# 456s (3), one 癞子杠; 789s 33s 67s + 8s.  Two big hands: base 20 both ways.
# laizishanzhuang: M(W) = 开口 2 x 癞子杠 2 x 硬胡 2 x 1.5 = 12: 240 each (under 400).
# yuanhang: 4 x 癞子杠 4 x 2 x 1.5 = 48: 960 each, all reach 300: 金顶 400.
# With the pair 33m instead (no 清一色), the small-shape 杠上花 needs a 将 only in
# laizishanzhuang (decision 9): refused there; yuanhang base 10: 480 each, 金顶 400.
BLOOM_LAIZI = rec("laizishanzhuang", 1, 0, "kong_bloom", "8s", [
    seat("789s33s67s", peng("111s", 2), chi("456s", 3), laizi=1), seat(), seat(), seat()])
hand("lz-bloom-laizi-kong-qingyise", BLOOM_LAIZI, [720, -240, -240, -240])
hand("yh-bloom-laizi-kong-qingyise-golden", as_profile(BLOOM_LAIZI, "yuanhang"),
     [1200, -400, -400, -400])
BLOOM_NO_258 = dict(BLOOM_LAIZI, seats=[
    seat("789s33m67s", peng("111s", 2), chi("456s", 3), laizi=1), seat(), seat(), seat()])
hand("lz-bloom-small-shape-needs-258", BLOOM_NO_258, "pair_258")
hand("yh-bloom-small-shape-any-pair", as_profile(BLOOM_NO_258, "yuanhang"),
     [1200, -400, -400, -400])

# 海底捞 with seat 0 holding his final draw (above).
hand("yh-last-tile-loser-kept-final-draw", LAST_TILE, [-120, 360, -120, -120])

# 抢杠: seat 3 (peng 666m from 1, chi 234s from 2; 789p 99s 4z 5z) adds his drawn 6m, seat 0
# (chi 123p from 3; 57m 456s 345p 88s) robs it.  Seat 1 deals (ignored).
# 杠进杠出 (yuanhang, bianfeng): K's imagined 杠开 (he is not ready: base 10, hard).
#   口口翻: M(K) = 2 openings x4 x 蓄杠 x2 x 硬胡 x2 x 自摸 x1.5 = 24.  Seat 0 (opened x2):
#   480 -> contract cap 400; seats 1, 2: 240.  K pays 880.  开口翻: M(K) = 12: 240 + 120 + 120.
# laizishanzhuang: the robber's own 抢杠 (88s is a 将): M(R) = 2 x 硬胡 2 = 4; K 开口 2 (no
#   kong, no deal-in): 80; seats 1, 2: 40.  K pays 160.
ROB = rec("yuanhang", 1, 0, "rob_kong", "6m", [
    seat("57m456s88s345p", chi("123p", 3)), seat(), seat(),
    seat("789p99s4z5z", peng("666m", 1), chi("234s", 2))], frm=3)
hand("yh-rob-kong-konger-bloom", ROB, [880, 0, 0, -880])
hand("bf-rob-kong-konger-bloom", as_profile(ROB, "bianfeng"), [480, 0, 0, -480])
hand("lz-rob-kong-robber-hand", as_profile(ROB, "laizishanzhuang"), [160, 0, 0, -160])

# A robbed konger who was ready on a 清一色: his imagined 杠开 is 清一色 + 杠上花 (Amb. 33).
# K = seat 2: peng 555p (0), chi 123p (1); 678p 99p 44p, adds 5p; R = seat 3 (chi 789s from 2;
# 46p 123m 456m 22s) robs it.  Base 20; 口口翻: M(K) = 4 x 蓄杠 2 x 硬胡 2 x 1.5 = 24: seats 0, 1
# 480, seat 3 (opened x2) 960: all reach 300, 金顶 400 each: K pays 1200.  开口翻: M(K) = 12:
# 240, 240, 480 -> contract cap 400: 880.  laizishanzhuang: R's own small-shape 抢杠 (22s a 将),
# base 10, M(R) = 2 x 2 = 4: K (开口 2) 80, seats 0, 1 40: K pays 160.
ROB_READY = rec("yuanhang", 1, 3, "rob_kong", "5p", [
    seat(), seat(), seat("678p99p44p", peng("555p", 0), chi("123p", 1)),
    seat("46p123m456m22s", chi("789s", 2))], frm=2)
hand("yh-rob-kong-konger-ready-qingyise-golden", ROB_READY, [0, 0, -1200, 1200])
hand("bf-rob-kong-konger-ready-qingyise", as_profile(ROB_READY, "bianfeng"), [0, 0, -880, 880])
hand("lz-rob-kong-robber-small-shape", as_profile(ROB_READY, "laizishanzhuang"), [0, 0, -160, 160])

# A 癞子杠 (indicator 9p, laizi 1p).  W = seat 1: peng 777s (3), chi 456m (0), one 癞子杠;
# 234p 55s 89m + 7m.  Seat 3 deals.  口口翻: M(W) = 4 x 癞子杠 4 x 硬胡 2 x 自摸 2 = 64: dealer
# 128, others 64.  bianfeng 开口翻: 2 x 4 x 2 x 2 = 32.  laizishanzhuang (癞子杠 x2): 16.
LAIZI_KONG = rec("yuanhang", 3, 1, "self_draw", "7m", [
    seat(), seat("234p55s89m", peng("777s", 3), chi("456m", 0), laizi=1), seat(), seat()],
    indicator="9p")
hand("yh-laizi-kong-x4", LAIZI_KONG, [-64, 256, -64, -128])
hand("bf-laizi-kong-x4", as_profile(LAIZI_KONG, "bianfeng"), [-32, 128, -32, -64])
hand("lz-laizi-kong-x2", as_profile(LAIZI_KONG, "laizishanzhuang"), [-16, 64, -16, -32])

# A 癞子皮杠 in bianfeng's 口口翻 (indicator 5s, laizi 6s).  The dealer (seat 0: chi 123m
# from 3, peng 999p from 1, one 皮杠; 234s 78m 22p) wins seat 2's 9m.  M(W) = 4 x 皮杠 2 x
# 硬胡 2 x 庄 2 = 32: seat 2 (放冲 x2) 64, seats 1 and 3 32.
PI = rec("bianfeng", 0, 0, "discard", "9m", [
    seat("234s78m22p", chi("123m", 3), peng("999p", 1), pi=1), seat(), seat(), seat()], frm=2,
    indicator="5s", options={"opening_scoring": "per_opening"})
hand("bf-pi-kong-per-opening", PI, [128, -32, -64, -32])

# Caps.  The dealer (seat 3) self-draws with four openings: chi 234m (2), peng 555p (0),
# peng 888s (1), chi 678p (2); 2s + 2s.  M(W) = 16 x 硬胡 2 x 自摸 2 x 庄 2 = 128.
# Seat 0 (暗杠 x4) 512 -> 300; seat 1 (two 红中杠, x4) 512 -> 300; seat 2 (chi, x2) 256.
# Not all three reach 300: no 金顶, W 856.  With seat 2's 冲杠 (开口 x2, 明杠 x2) instead:
# 512 too, all three reach the cap: 金顶, 400 each.
CAPS = rec("yuanhang", 3, 3, "self_draw", "2s", [
    seat("", akong("4444z")), seat(red=2), seat("", chi("789s", 1)),
    seat("2s", chi("234m", 2), peng("555p", 0), peng("888s", 1), chi("678p", 2))])
hand("yh-caps-no-golden", CAPS, [-300, -300, -256, 856])
GOLDEN = dict(CAPS, seats=[CAPS["seats"][0], CAPS["seats"][1], seat("", ckong("3333z", 0)),
                           CAPS["seats"][3]])
hand("yh-golden", GOLDEN, [-400, -400, -400, 1200])

# 金顶 and 光明顶 in laizishanzhuang (开口翻: cap 400, 金顶 500, 光明顶 600, "exceed").
# W = seat 2: peng 111m (1), chi 234m (1); 555m 678m 9m + 9m self-drawn: 清一色, base 10,
# M(W) = 2 x 2 x 1.5 = 6 -> 60 x M(L).  Seat 0 never opened (暗杠 x4, 红中杠 x2 = 8): 480;
# seat 1 (开口 2, 明杠 2, 丢癞子 2 = 8): 480; seat 3 (dealer ignored; 开口 2, 暗杠 4): 480.
# All three exceed 400: 金顶 500, and seat 0 pays the 光明顶 600.
BRIGHT = rec("laizishanzhuang", 3, 2, "self_draw", "9m", [
    seat("", akong("4444z"), red=1), seat("", peng("777p", 3), ckong("3333z", 0), discards=1),
    seat("555m678m9m", peng("111m", 1), chi("234m", 1)), seat("", chi("123s", 2), akong("4444p"))])
hand("lz-golden-and-bright", BRIGHT, [-600, -500, 1600, -500])
# In 口口翻 (cap 500, 金顶 600, 光明顶 700): M(W) = 2 openings x4 x 2 x 1.5 = 12 -> 120 x M(L);
# seat 0 960, seat 1 (two openings x4, 明杠 2, 丢癞子 2 = 16) 1920, seat 3 960: all exceed 500.
hand("lz-per-opening-golden-and-bright",
     as_profile(BRIGHT, "laizishanzhuang", opening_scoring="per_opening"), [-700, -600, 1900, -600])

# Opened or not (门清 has no win, §9): a 暗杠 does not open, a 冲杠 does.
# W = seat 1: 234m 567m 345s 2p + 2p self-drawn.  With 暗杠 9999p: not opened.  With 冲杠
# 8888p from seat 2: M(W) = 开口 2 x 明杠 2 x 硬胡 2 x 自摸 2 = 16; dealer seat 2: 32.
CLOSED = rec("yuanhang", 0, 1, "self_draw", "2p", [
    seat(), seat("234m567m345s2p", akong("9999p")), seat(), seat()])
hand("yh-concealed-kong-does-not-open", CLOSED, "not_opened")
DIRECT = dict(CLOSED, dealer=2, seats=[seat(), seat("234m567m345s2p", ckong("8888p", 2)),
                                       seat(), seat()])
hand("yh-direct-kong-opens", DIRECT, [-16, 64, -32, -16])
hand("yh-direct-kong-does-not-open-by-option",
     as_profile(DIRECT, "yuanhang", direct_kong_opens=False), "not_opened")

# The laizi self-drawn as the winning tile (indicator 4p, laizi 5p), standing for 5s: soft.
# W = seat 2: chi 123s (1), peng 999m (0); 678p 22m 4s 6s.  口口翻: M(W) = 4 x 自摸 2 = 8;
# dealer seat 0: 16 < 20.  开口翻 (laizishanzhuang): M(W) = 4: 8 / 4 / 4.
DRAWN_LAIZI = rec("yuanhang", 0, 2, "self_draw", "5p", [
    seat(), seat(), seat("678p22m4s6s", chi("123s", 1), peng("999m", 0)), seat()], indicator="4p")
hand("yh-laizi-drawn-soft-under-minimum", DRAWN_LAIZI, "minimum_one_loser")
hand("lz-laizi-drawn-soft", as_profile(DRAWN_LAIZI, "laizishanzhuang"), [-8, -4, 16, -4])

# Two laizi (indicator 9p, laizi 1p): a big hand may hold them, a small hand not (decision 12).
# W = seat 1: peng 222m (0), peng 777s (3); 444p 1p 1p 9s 3s + 3s: 碰碰胡 (999s of 9s and two
# laizi, pair 33s), soft.  口口翻: M(W) = 4 x 自摸 1.5 = 6: 60 each; 开口翻 3: 30 each.
# With a chi 123m (from 0) instead of the 222m peng and the pair 55s, it is a small hand with
# two laizi: refused.
TWO_LAIZI = rec("yuanhang", 0, 1, "self_draw", "3s", [
    seat(), seat("444p1p1p9s3s", peng("222m", 0), peng("777s", 3)), seat(), seat()],
    indicator="9p")
hand("yh-two-laizi-pengpeng", TWO_LAIZI, [-60, 180, -60, -60])
hand("lz-two-laizi-pengpeng", as_profile(TWO_LAIZI, "laizishanzhuang"), [-30, 90, -30, -30])
hand("yh-two-laizi-small-refused", dict(TWO_LAIZI, winning_tile="5s", seats=[
    seat(), seat("444p1p1p9s5s", chi("123m", 0), peng("777s", 3)), seat(), seat()]),
    "laizi_limit")


def answer_of(text: str) -> list[int] | str:
    answer = score_record(text)
    return answer.body["deltas"] if answer.settled else answer.body["refusal"]["code"]  # type: ignore[index,return-value]


def test_enough_table_hands() -> None:
    assert len(TABLE_HANDS) >= 30
    profiles = {r.get("profile") for _, r, _ in TABLE_HANDS}
    assert profiles == {"yuanhang", "bianfeng", "laizishanzhuang"}


@pytest.mark.parametrize(("record", "expected"), [pytest.param(r, a, id=n) for n, r, a in TABLE_HANDS])
def test_table_hand_as_worked_on_paper_library_and_cli(record: dict[str, Any],
                                                       expected: list[int] | str) -> None:
    text = json.dumps(record, ensure_ascii=False)
    assert answer_of(text) == expected
    code, out, err = cli_in_process(text)
    assert err == "" and code == (0 if isinstance(expected, list) else 1)
    assert json.loads(out) == score_record(text).body


# --- a 癞子皮杠 that cannot be -------------------------------------------------------------

def test_no_pi_kong_when_the_indicator_is_a_must_kong_tile() -> None:
    """With 红中 turned up (or 发财 where it must be konged) a 红中 played out is its 红中杠
    (Project decision 4): the engine offers no 癞子皮杠 then.  The calculator took a record's
    ``pi`` kong of it and scored it as a 癞子皮杠 (its own factor, pi_kong_factor) instead of
    refusing a kong the game never makes."""
    per_opening = {"opening_scoring": "per_opening"}
    ok = rec("bianfeng", 0, 0, "self_draw", "9s", [
        seat("566778s9s", peng("111s", 2), chi("234s", 3)), seat(pi=1), seat(), seat()],
        indicator="5z", options=per_opening)
    assert score_record(json.dumps(ok)).settled
    for indicator, profile, options in (("7z", "bianfeng", per_opening),
                                        ("6z", "laizishanzhuang", {"pi_kong": "on"})):
        bad = dict(ok, indicator=indicator, profile=profile, options=options)
        with pytest.raises(RecordError, match="no 癞子皮杠") as e:
            score_record(json.dumps(bad))
        assert (e.value.code, e.value.params) == ("pi_kong_not_played", {"seat": 1})
        code, out, err = cli_in_process(json.dumps(bad))
        assert (code, out) == (2, "") and "no 癞子皮杠" in err


# --- an object field of the wrong kind ----------------------------------------------------

@pytest.mark.parametrize(("where", "value"), [("options", ""), ("options", []), ("options", 0),
                                               ("options", False), ("kongs", 0), ("kongs", ""),
                                               ("kongs", [])])
def test_an_empty_value_of_the_wrong_kind_is_refused_not_read_as_nothing(where: str,
                                                                          value: Any) -> None:
    """``"options": ""`` or ``"kongs": 0`` was read as no options / no kongs (any false value
    was), while ``"melds": null`` or ``"kongs": "red"`` are refused: each says it must be an
    object now, as the CLI and POST /api/score (400) report it."""
    record = json.loads(json.dumps(QING_SELF))
    if where == "options":
        record["options"] = value
        message = "options must be a JSON object"
    else:
        record["seats"][1]["kongs"] = value
        message = "seats[1].kongs must be a JSON object"
    with pytest.raises(RecordError, match=re.escape(message)):
        score_record(json.dumps(record))
    code, out, err = cli_in_process(json.dumps(record))
    assert (code, out) == (2, "") and message in err
    # left out, or null, is nothing
    record.pop("options", None)
    record["seats"][1]["kongs"] = None
    assert score_record(json.dumps(record)).body["deltas"] == [360, -120, -120, -120]


def test_a_hand_query_refuses_options_of_the_wrong_kind() -> None:
    query = {"hand": "456p678s5m", "indicator": "9p", "melds": ["chi:234m", "peng:777s"]}
    assert hand_query({**query, "options": None})["laizi"] == "1p"
    for value in ("", [], 0):
        with pytest.raises(RecordError, match="options must be a JSON object"):
            hand_query({**query, "options": value})
