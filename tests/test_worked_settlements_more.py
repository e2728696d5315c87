"""More hand-worked settlements, each worked on paper from docs/RULES.md before the
calculator was run (the Project decisions bind; §17 is the scoring, §17.13 its order).

Every case is a settlement record (docs/score.md) and what a careful player expects:
each seat's points (``deltas``), and where it matters the base, the big hands and the
contractor; or the refusal code when the record is no legal win.  The comment beside
each case is the paper arithmetic: M(p) is the product of p's own factors (Project
decision 6) and a raw payment is base x M(W) x M(L) (§17.2).

Tiles: 1z-7z are 东南西北白发中.  Indicator 1z makes 南 (2z) the laizi in every profile
(Project decision 1), so most cases hold no laizi at all.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from wuhan_mahjong.analysis import NotAWin
from wuhan_mahjong.calculator import score_record
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.win_record import RecordError, parse_win_record

# --- record helpers ------------------------------------------------------------------


def chi(tiles: str, frm: int) -> dict[str, Any]:
    return {"type": "chi", "tiles": tiles, "from": frm}


def peng(tiles: str, frm: int) -> dict[str, Any]:
    return {"type": "peng", "tiles": tiles, "from": frm}


def ckong(tiles: str, frm: int) -> dict[str, Any]:
    """冲杠 (a kong on a discard): an opening and a 明杠."""
    return {"type": "kong", "kind": "direct", "tiles": tiles, "from": frm}


def xkong(tiles: str, frm: int) -> dict[str, Any]:
    """蓄杠 on a peng fed by ``frm``."""
    return {"type": "kong", "kind": "added", "tiles": tiles, "from": frm}


def akong(tiles: str) -> dict[str, Any]:
    """暗杠."""
    return {"type": "kong", "kind": "concealed", "tiles": tiles}


def seat(hand: str = "", *melds: dict[str, Any], red: int = 0, green: int = 0, laizi: int = 0,
         pi: int = 0, discards: int = 0, ready: bool | None = None) -> dict[str, Any]:
    s: dict[str, Any] = {"hand": hand, "melds": list(melds)}
    kongs = {k: v for k, v in (("red", red), ("green", green), ("laizi", laizi), ("pi", pi)) if v}
    if kongs:
        s["kongs"] = kongs
    if discards:
        s["laizi_discards"] = discards
    if ready is not None:
        s["ready"] = ready
    return s


def rec(profile: str, dealer: int, winner: int, win_by: str, tile: str, seats: list[dict[str, Any]],
        *, frm: int | None = None, indicator: str = "1z",
        options: dict[str, Any] | None = None) -> dict[str, Any]:
    r: dict[str, Any] = {"profile": profile, "dealer": dealer, "indicator": indicator,
                         "winner": winner, "win_by": win_by, "winning_tile": tile, "seats": seats}
    if frm is not None:
        r["from"] = frm
    if options:
        r["options"] = options
    return r


def with_profile(r: dict[str, Any], profile: str, **options: Any) -> dict[str, Any]:
    out = dict(r, profile=profile)
    if options:
        out["options"] = {**r.get("options", {}), **options}
    return out


def with_seat(r: dict[str, Any], i: int, s: dict[str, Any]) -> dict[str, Any]:
    seats = list(r["seats"])
    seats[i] = s
    return dict(r, seats=seats)


# --- the cases -----------------------------------------------------------------------

CASES: list[Any] = []


def case(name: str, record: dict[str, Any], deltas: list[int] | None = None, *,
         refused: str | None = None, base: int | None = None, hands: set[str] | None = None,
         contractor: int | str | None = "none", golden: bool | None = None) -> None:
    CASES.append(pytest.param(record, deltas, refused, base, hands, contractor, golden, id=name))


# ============ yuanhang (口口翻, min one loser >= 20, caps 300/400/400) ===============

# A small hand on a discard: W = seat 2 (chi 345m from 1, peng 777p from 0), 234s 678s 55p.
# 口口翻: M(W) = 2 openings (x2 x2) x 硬胡 x2 = 8.  Dealer seat 0: x2 -> 2.  Discarder 3:
# 放冲 x2 -> 2.  Seat 1: 1.  Raw: seat 0 1x8x2 = 16, seat 1 8, seat 3 16.  Nobody owes 20
# (§17.8): no win.
SMALL_2 = rec("yuanhang", 0, 2, "discard", "5p", [
    seat(), seat(), seat("234s678s5p", chi("345m", 1), peng("777p", 0)), seat()], frm=3)
case("yh-small-discard-under-minimum", SMALL_2, refused="minimum_one_loser")

# The same with the discarder (seat 3) showing a peng of 西 from seat 1: M(3) = 开口 x2 x
# 放冲 x2 = 4 -> 8 x 4 = 32 >= 20.  Seat 0 (dealer) 16, seat 1 8.  W: 32 + 16 + 8 = 56.
SMALL_2B = with_seat(SMALL_2, 3, seat("", peng("333z", 1)))
case("yh-small-discard-discarder-opened", SMALL_2B, [-16, -8, 56, -32], base=1, hands=set())
# laizishanzhuang (开口翻, no minimum): M(W) = 开口 x2 x 硬胡 x2 = 4; seat 3 = 2 x 2 = 4
# -> 16; dealer 2 -> 8; seat 1 -> 4.  W 28.
case("lz-small-discard-no-minimum", with_profile(SMALL_2B, "laizishanzhuang"),
     [-8, -4, 28, -16])
# bianfeng (开口翻): the same 16 / 8 / 4: nobody owes 20 (and seat 1 is under 8).
case("bf-small-discard-under-both-minimums", with_profile(SMALL_2B, "bianfeng"),
     refused="minimum_one_loser")

# 清一色 on a discard, the winner is the dealer (ignored in a big hand, §17.4).
# W = seat 0: chi 123s from 3, peng 999s from 2; 345s 678s + 2s on seat 1's 2s.
# base 10; M(W) = 2 openings x4 x 硬胡 x2 = 8 -> unit 80.
# seat 1: chi 456p from 0 (x2), 放冲 x1.5 -> 3: 240.  seat 2: 1: 80.
# seat 3: 暗杠 4444z (北) x4: 320 -> cap 300.  No 金顶 (80 < 300).  Two openings: no contract.
# W: 240 + 80 + 300 = 620.
case("yh-qingyise-dealer-winner-cap", rec("yuanhang", 0, 0, "discard", "2s", [
    seat("345s678s2s", chi("123s", 3), peng("999s", 2)),
    seat("", chi("456p", 0)), seat(), seat("", akong("4444z"))], frm=1),
    [620, -240, -80, -300], base=10, hands={"qingyise"}, contractor=None, golden=False)

# 清一色 with three openings: the third feeder (seat 3, peng 999m) contracts (§17.10).
# W = seat 2: peng 111m (0), chi 234m (1), peng 999m (3); 567m + 8m, on seat 1's 8m.
# M(W) = 3 openings x8 x 硬胡 x2 = 16; base 10 -> 160.  Seat 1 deals (ignored), 放冲 x1.5
# -> 240; seat 0 160; seat 3 160.  Contract cap 400 per share: none reached; no 金顶.
# Seat 3 pays 240 + 160 + 160 = 560.
case("yh-qingyise-third-feeder", rec("yuanhang", 1, 2, "discard", "8m", [
    seat(), seat(), seat("567m8m", peng("111m", 0), chi("234m", 1), peng("999m", 3)), seat()],
    frm=1), [0, 0, 560, -560], base=10, hands={"qingyise"}, contractor=3)

# 清一色 + 碰碰胡 by self-draw: W = seat 3: peng 111p (1), peng 333p (0), 暗杠 7777p;
# 555p + 9p, draws 9p.  base 10 x 2 = 20.  M(W) = 2 openings x4 x 暗杠 x4 x 硬胡 x2 x
# 自摸 x1.5 = 48 -> 960 from each of the three (all M 1, dealer 2 ignored).  All >= 300:
# 金顶, 400 each.  W 1200.
PPH_SELF = rec("yuanhang", 2, 3, "self_draw", "9p", [
    seat(), seat(), seat(), seat("555p9p", peng("111p", 1), peng("333p", 0), akong("7777p"))])
case("yh-qingyise-pengpeng-selfdraw-golden", PPH_SELF, [-400, -400, -400, 1200], base=20,
     hands={"qingyise", "pengpenghu"}, golden=True)
# laizishanzhuang: base 10 + 10 = 20 (add); M(W) = 开口 x2 x 暗杠 x4 x 硬胡 x2 x 1.5 = 24
# -> 480 each; all three > 400: 金顶 500, but none of them ever opened: 光明顶 600 each.
case("lz-qingyise-pengpeng-selfdraw-bright", with_profile(PPH_SELF, "laizishanzhuang"),
     [-600, -600, -600, 1800], base=20, golden=True)
# bianfeng (开口翻): base 20, M(W) = 2 x 4 x 2 x 1.5 = 24 -> 480 each >= 300: 金顶 400.
case("bf-qingyise-pengpeng-selfdraw-golden", with_profile(PPH_SELF, "bianfeng"),
     [-400, -400, -400, 1200])

# 金顶's trigger: W = seat 0 deals and self-draws a small hand: peng 888s (2), 暗杠 1111m,
# 暗杠 9999p; 234p + 5s, draws 5s.  M(W) = 开口 x2 x 暗杠 x4 x4 x 庄 x2 x 硬胡 x2 x 自摸 x2
# = 256 (one opening, so both modes agree); losers M 1: 256 each.
TRIGGER = rec("yuanhang", 0, 0, "self_draw", "5s", [
    seat("234p5s", peng("888s", 2), akong("1111m"), akong("9999p")), seat(), seat(), seat()])
# cap 300 (口口翻's cap_per_opening): 256 < 300, W 768.
case("yh-256-under-cap", TRIGGER, [768, -256, -256, -256], golden=False)
# cap_per_opening 256: all three reach it (>=, golden_trigger reach) -> 金顶 400 each.
case("yh-256-golden-at-reach", with_profile(TRIGGER, "yuanhang", cap_per_opening=256),
     [1200, -400, -400, -400], golden=True)
# laizishanzhuang, cap 256: 256 does not exceed 256 (golden_trigger exceed): no 金顶, no cap.
case("lz-256-no-golden-at-equal", with_profile(TRIGGER, "laizishanzhuang", cap=256),
     [768, -256, -256, -256], golden=False)
# laizishanzhuang, cap 255: all exceed -> 金顶; none of the three ever opened -> 光明顶 600.
case("lz-256-bright-over-cap", with_profile(TRIGGER, "laizishanzhuang", cap=255),
     [1800, -600, -600, -600], golden=True)

# 全求人 on a 将 (yuanhang: jiang_discard contract).  W = seat 1: chi 123m (0), peng 444p (3),
# peng 777s (2), chi 678m (0); holds 5p, wins on seat 2's 5p (pair 55p, 2/5/8).
# 口口翻: M(W) = 4 openings x16 x 硬胡 x2 = 32; base 10 -> 320.  Seat 2 放冲 x1.5 -> 480;
# seat 0 320; seat 3 320.  All >= 300: 金顶, 400 each; seat 2 threw a 将 and pays 1200.
QQR = rec("yuanhang", 0, 1, "discard", "5p", [
    seat(), seat("5p", chi("123m", 0), peng("444p", 3), peng("777s", 2), chi("678m", 0)),
    seat(), seat()], frm=2)
case("yh-quanqiuren-jiang-golden-contract", QQR, [0, 1200, -1200, 0], base=10,
     hands={"quanqiuren"}, contractor=2, golden=True)
# 开口翻 (opening_scoring once): M(W) = 2 x 2 = 4 -> 40; seat 2 60, seat 0 40, seat 3 40.
# Contract: seat 2 pays 140.
case("yh-quanqiuren-jiang-once", with_profile(QQR, "yuanhang", opening_scoring="once"),
     [0, 140, -140, 0], contractor=2, golden=False)
# The same shape on a 3p: the pair 33p is no 2/5/8 and 全求人 is alone, and a small hand
# needs the 2/5/8 pair too (§10.3): no win.
case("yh-quanqiuren-no-258-no-win", dict(with_seat(QQR, 1, seat(
    "3p", chi("123m", 0), peng("444p", 3), peng("777s", 2), chi("678m", 0))), winning_tile="3p"),
    refused="pair_258")

# 全求人 + 碰碰胡 (any pair), bianfeng.  W = seat 3: peng 111s (0), peng 999m (1), peng 西 (2),
# 冲杠 4444p (0); holds 7m, wins on seat 1's 7m.  base 10 x 2 = 20.
# 开口翻: M(W) = 开口 x2 x 明杠 x2 x 硬胡 x2 = 8 -> 160.  Seat 1 放冲 x1.5 -> 240; seat 0
# 160; seat 2 (dealer, ignored) 160.  Seat 1 was ready: no contract.  W 560.
QQR_PPH = rec("bianfeng", 2, 3, "discard", "7m", [
    seat(), seat(ready=True), seat(),
    seat("7m", peng("111s", 0), peng("999m", 1), peng("333z", 2), ckong("4444p", 0))], frm=1)
case("bf-quanqiuren-pengpeng-ready-discarder", QQR_PPH, [-160, -240, -160, 560], base=20,
     hands={"quanqiuren", "pengpenghu"}, contractor=None)
# Seat 1 was not ready: he pays all (quanqiuren_contract not_ready): 560.
case("bf-quanqiuren-pengpeng-not-ready-contract",
     with_seat(QQR_PPH, 1, seat(ready=False)), [0, -560, 0, 560], contractor=1)
# yuanhang, not ready, the 7m is no 将: no contract.  口口翻: M(W) = 4 openings x16 x 明杠 x2
# x 硬胡 x2 = 64 -> 1280 (x1.5 1920): all >= 300: 金顶 400 each.
case("yh-quanqiuren-pengpeng-not-jiang-no-contract",
     with_profile(with_seat(QQR_PPH, 1, seat(ready=False)), "yuanhang"),
     [-400, -400, -400, 1200], contractor=None, golden=True)
# laizishanzhuang, not ready: base 10 + 10 = 20; M(W) = 2 x 2 x 2 = 8 -> 160; seat 1 240;
# 160; 160; seat 1 contracts (not ready): 560.
case("lz-quanqiuren-pengpeng-not-ready-contract",
     with_profile(with_seat(QQR_PPH, 1, seat(ready=False)), "laizishanzhuang"),
     [0, -560, 0, 560], base=20, contractor=1)

# ============ robbed kongs (§17.11, Project decision 15) =============================
# K = seat 2 peng'd 5p (from 0) and chi'd 123p (from 1), holds 789p 44p 66p and adds the
# drawn 5p; R = seat 0 (chi 123s from 3; 789m 34p 22s 456s) robs it.  Seat 1 deals.
ROB = rec("bianfeng", 1, 0, "rob_kong", "5p", [
    seat("789m34p22s456s", chi("123s", 3)), seat(),
    seat("789p4466p", peng("555p", 0), chi("123p", 1)), seat()], frm=2)
# bianfeng 杠进杠出: K's 杠开 would be on 4p or 6p: 清一色 + 杠上花 = 20, hard.
# M(K) = 开口 x2 x 蓄杠 x2 x 硬胡 x2 x 自摸 x1.5 = 12 -> 240.  The others: R opened x2 ->
# 480 -> contract cap 400; seat 1 (dealer ignored) 240; seat 3 240.  No 金顶 (240 < 300).
# K pays R 400 + 240 + 240 = 880.
case("bf-robbed-konger-bloom-qingyise", ROB, [880, 0, -880, 0], base=20, contractor=2)
# yuanhang 口口翻: M(K) = 2 openings x4 x 2 x 2 x 1.5 = 24 -> 480; R 2 -> 960; 480; 480:
# all >= 300: 金顶 400 each; K pays 1200.
case("yh-robbed-konger-bloom-golden", with_profile(ROB, "yuanhang"), [1200, 0, -1200, 0],
     contractor=2, golden=True)
# laizishanzhuang: R's own 抢杠 (pair 22s is 2/5/8), base 10; M(R) = 开口 x2 x 硬胡 x2 = 4
# (no 自摸, no 放冲).  K opened: 2 -> 80; seat 1 40; seat 3 40.  K pays 160.
case("lz-robbed-robber-hand", with_profile(ROB, "laizishanzhuang"), [160, 0, -160, 0],
     base=10, hands={"qiangganghu"}, contractor=2)

# A konger who is not ready, holding a laizi (南): plain 杠上花, soft (rules.md: hard unless
# he holds a laizi).  bianfeng: K = seat 3 peng 666s (from 1), ten loose tiles; R = seat 1
# (peng 999m from 3; 456p 57s 234m 88m) robs the 6s.  M(K) = 开口 x2 x 蓄杠 x2 x 1.5 = 6
# -> 60; R opened: 120; seat 0 (dealer) 60; seat 2 60.  K pays 240.
case("bf-robbed-konger-not-ready-soft", rec("bianfeng", 0, 1, "rob_kong", "6s", [
    seat(), seat("456p57s234m88m", peng("999m", 3)), seat(),
    seat("2z1m4m7m1p4p7p9s3z4z", peng("666s", 1))], frm=3),
    [0, 240, 0, -240], base=10, contractor=3)

# ============ 杠上花 and 海底捞 ======================================================
# 杠上花 after a 癞子杠 on a small-hand shape: W = seat 3 deals (ignored: big hand), chi 456m
# (2), one 癞子杠 (南); 123p 789p 55s 67s + 8s.  Seat 1 threw a laizi once; seat 2 peng 东.
BLOOM = rec("laizishanzhuang", 3, 3, "kong_bloom", "8s", [
    seat(), seat(discards=1), seat("", peng("111z", 0)),
    seat("123p789p55s67s", chi("456m", 2), laizi=1)])
# laizishanzhuang: base 10 (55s is 2/5/8); M(W) = 开口 x2 x 癞子杠 x2 x 硬胡 x2 x 1.5 = 12
# -> 120; seat 1 丢癞子 x2 240; seat 2 开口 x2 240.  W 600.
case("lz-bloom-after-laizi-kong", BLOOM, [-120, -240, -240, 600], base=10,
     hands={"gangshanghua"})
# yuanhang: 癞子杠 x4: M(W) = 2 x 4 x 2 x 1.5 = 24 -> 240; 480 -> 300; 480 -> 300
# (no 金顶: 240 < 300).  W 840.
case("yh-bloom-after-laizi-kong-capped", with_profile(BLOOM, "yuanhang"),
     [-240, -300, -300, 840], golden=False)
# With the pair 33s: laizishanzhuang's 杠上花 needs 2/5/8 (Project decision 9), and so
# does a small hand: no win.
BLOOM_33 = with_seat(BLOOM, 3, seat("123p789p33s67s", chi("456m", 2), laizi=1))
case("lz-bloom-pair-33-no-win", BLOOM_33, refused="pair_258")
# yuanhang takes the 33s pair: the same 840.
case("yh-bloom-pair-33", with_profile(BLOOM_33, "yuanhang"), [-240, -300, -300, 840],
     hands={"gangshanghua"})

# 海底捞 with a non-2/5/8 pair (bianfeng): W = seat 1, peng 666m (3); 234p 567p 99s 11s,
# draws the last 1s: 111s + 99s.  base 10; M(W) = 开口 x2 x 硬胡 x2 x 自摸 x1.5 = 6 ->
# 60 from each (dealer 2 ignored).  Minimums: 60 >= 20, every >= 8.  W 180.
HAIDI = rec("bianfeng", 2, 1, "last_tile", "1s", [
    seat(), seat("234p567p99s11s", peng("666m", 3)), seat(), seat()])
case("bf-haidilao-any-pair", HAIDI, [-60, 180, -60, -60], base=10, hands={"haidilao"})
# laizishanzhuang: 海底捞 needs the 2/5/8 pair: no win.
case("lz-haidilao-needs-258", with_profile(HAIDI, "laizishanzhuang"), refused="pair_258")

# 清一色 + 杠上花 after a 红中杠 (yuanhang, 开口翻 option): W = seat 2, chi 234s (1),
# peng 999s (0), one 红中杠; 567s 78s 55s + 9s.  base 20; M(W) = 开口 x2 x 红中杠 x2 x
# 硬胡 x2 x 1.5 = 12 -> 240; seat 3 丢癞子 x2 -> 480 -> cap 300.  W 780.
BLOOM_QYS = rec("yuanhang", 0, 2, "kong_bloom", "9s", [
    seat(), seat(), seat("567s78s55s", chi("234s", 1), peng("999s", 0), red=1),
    seat(discards=1)], options={"opening_scoring": "once"})
case("yh-bloom-qingyise-once-capped", BLOOM_QYS, [-240, -240, 780, -300], base=20,
     hands={"qingyise", "gangshanghua"})
# The caps counted in the hand's base (cap_unit hand_base): 300 x 20 = 6000, nothing capped.
case("yh-bloom-qingyise-cap-in-hand-base",
     with_profile(BLOOM_QYS, "yuanhang", cap_unit="hand_base"), [-240, -240, 960, -480])

# 清一色 + 碰碰胡 + 杠上花 on a 蓄杠, with a third feeder.  W = seat 3: peng 111p (1),
# peng 444p (0), 蓄杠 7777p on a peng from 2 (his third opening); 999p + 2p, draws 2p.
THREE = rec("laizishanzhuang", 0, 3, "kong_bloom", "2p", [
    seat(), seat(), seat(discards=1),
    seat("999p2p", peng("111p", 1), peng("444p", 0), xkong("7777p", 2))])
# laizishanzhuang: base 10 x 3 = 30 (add); M(W) = 开口 x2 x 明杠 x2 x 硬胡 x2 x 1.5 = 12 ->
# 360; seat 2 丢癞子 -> 720 -> contract cap 400 (a contractor); no 金顶 (360 < 400).
# Seat 2 fed the third opening: pays 360 + 360 + 400 = 1120.
case("lz-three-big-hands-third-feeder", THREE, [0, 0, -1120, 1120], base=30, contractor=2)
# yuanhang: base 10 x 2 x 2 = 40; M(W) = 3 openings x8 x 2 x 2 x 1.5 = 48 -> 1920+:
# 金顶 400 each, seat 2 pays 1200.
case("yh-three-big-hands-third-feeder-golden", with_profile(THREE, "yuanhang"),
     [0, 0, -1200, 1200], base=40, contractor=2, golden=True)

# ============ 将一色 / 风一色 =========================================================
# 将一色 with the laizi standing in (indicator 3m -> laizi 4m): W = seat 2, peng 222m (0),
# peng 888p (3); 22s 55s 8m 5p + the laizi 4m, wins on seat 1's 2p.  Soft.
# yuanhang 口口翻: M(W) = 2 openings x4 = 4 -> 40; seat 1 放冲 1.5 -> 60; seat 0 (dealer,
# ignored) 40; seat 3 peng 西 -> 80.  W 180.
case("yh-jiangyise-soft", rec("yuanhang", 0, 2, "discard", "2p", [
    seat(), seat(), seat("22s55s8m5p4m", peng("222m", 0), peng("888p", 3)),
    seat("", peng("333z", 1))], frm=1, indicator="3m"),
    [-40, -60, 180, -80], base=10, hands={"jiangyise"})

# 将一色 with three openings: W = seat 2, peng 222m (0), peng 888p (3), peng 555s (1);
# 2s 8m 5p 2p, wins on seat 3's 8s.  Hard.
JYS = rec("bianfeng", 0, 2, "discard", "8s", [
    seat(), seat(), seat("2s8m5p2p", peng("222m", 0), peng("888p", 3), peng("555s", 1)), seat()],
    frm=3)
# bianfeng: M(W) = 开口 x2 x 硬胡 x2 = 4 -> 40; seat 3 60, seat 0 40, seat 1 40; 将一色
# is one of bianfeng's one-suit contract hands: seat 1 fed the third opening, pays 140.
case("bf-jiangyise-third-feeder", JYS, [0, -140, 140, 0], contractor=1)
# yuanhang: no 将一色 contract.  M(W) = 3 openings x8 x 2 = 16 -> 160; seat 3 240.
case("yh-jiangyise-no-contract", with_profile(JYS, "yuanhang"), [-160, -160, 560, -240],
     contractor=None)
# laizishanzhuang: no 将一色 contract; M(W) = 4 -> 40 / 40 / 60.
case("lz-jiangyise-no-contract", with_profile(JYS, "laizishanzhuang"), [-40, -40, 140, -60],
     contractor=None)

# 风一色 乱风 (yuanhang: two big hands, base 20; 发 is an ordinary honour there).
# Indicator 9m -> laizi 1m.  W = seat 0 deals, peng 东 (2), peng 西 (1); 44z 55z 66z 2z,
# draws 南.  M(W) = 2 openings x4 x 硬胡 x2 x 1.5 = 12 -> 240; seat 1 丢癞子 -> 480 -> 300.
case("yh-fengyise-luanfeng", rec("yuanhang", 0, 0, "self_draw", "2z", [
    seat("44z55z66z2z", peng("111z", 2), peng("333z", 1)), seat(discards=1), seat(), seat()],
    indicator="9m"), [780, -300, -240, -240], base=20, hands={"fengyise"})
# 风一色 + 碰碰胡: W = seat 0, peng 东 (2), peng 西 (1); 444z 55z 22z, draws 白.
FYS_PPH = rec("laizishanzhuang", 0, 0, "self_draw", "5z", [
    seat("4z4z4z5z5z2z2z", peng("111z", 2), peng("333z", 1)), seat(discards=1), seat(), seat()],
    indicator="9m")
# laizishanzhuang: 1 + 1 = base 20; M(W) = 开口 x2 x 硬胡 x2 x 1.5 = 6 -> 120; seat 1 240.
case("lz-fengyise-pengpeng", FYS_PPH, [480, -240, -120, -120], base=20,
     hands={"fengyise", "pengpenghu"})
# yuanhang: 2 + 1 = three big hands, base 40; M(W) = 4 x 2 x 1.5 = 12 -> 480+: 金顶 400.
case("yh-fengyise-pengpeng-golden", with_profile(FYS_PPH, "yuanhang"), [1200, -400, -400, -400],
     base=40, golden=True)

# ============ small hands: factors ====================================================
# bianfeng's every-loser minimum: W = seat 1, chi 123m (0); 456p 789s 34m 55s + 2m on
# seat 2's discard.  M(W) = 开口 x2 x 硬胡 x2 = 4.  Seat 2: peng 999m (3) x2, 放冲 x2,
# 红中杠 x2 = 8 -> 32.  Seat 0 deals: x2 -> 8.  Seat 3: 1 -> 4 < 8: no win in bianfeng.
EVERY = rec("bianfeng", 0, 1, "discard", "2m", [
    seat(), seat("456p789s34m55s", chi("123m", 0)), seat("", peng("999m", 3), red=1), seat()],
    frm=2)
case("bf-every-loser-8-fails", EVERY, refused="minimum_every_loser")
# Seat 3 discarded a laizi once: x2 -> 8: the win stands; W 8 + 32 + 8 = 48.
case("bf-every-loser-8-met", with_seat(EVERY, 3, seat(discards=1)), [-8, 48, -32, -8])
# yuanhang has no every-loser minimum: one opening each, so 口口翻 changes nothing:
# 8 / 32 / 4, W 44.
case("yh-every-loser-not-needed", with_profile(EVERY, "yuanhang"), [-8, 44, -32, -4])

# bianfeng with 口口翻 switches the 癞子皮杠 on (Project decision 3).  Indicator 5m ->
# laizi 6m; W = seat 1 deals: peng 222p (3), chi 789s (0), one 癞子皮杠 (5m); 234m 456p +
# 8m, draws 8m.  M(W) = 2 openings x4 x 皮杠 x2 x 庄 x2 x 硬胡 x2 x 自摸 x2 = 64.
# Seat 0 peng 999m (2): x2 -> 128; seat 2: 64; seat 3 丢癞子 x2 -> 128.  Min 20 and 8 hold,
# nothing reaches 300.  W 320.
case("bf-per-opening-pi-kong", rec("bianfeng", 1, 1, "self_draw", "8m", [
    seat("", peng("999m", 2)), seat("234m456p8m", peng("222p", 3), chi("789s", 0), pi=1),
    seat(), seat(discards=1)], indicator="5m", options={"opening_scoring": "per_opening"}),
    [-128, 320, -64, -128], base=1)

# The dealer wins a small hand in laizishanzhuang with a 发财杠 and a 红中杠.  Indicator
# 5m -> laizi 6m.  W = seat 2 deals: chi 345s (1), peng 777m (0), one 发财杠, one 红中杠;
# 678p 345m 2p, draws 2p.  M(W) = 开口 x2 x 发财杠 x2 x 红中杠 x2 x 庄 x2 x 硬胡 x2 x 自摸 x2
# = 64.  Seat 0 癞子杠 (x2 here) -> 128; seat 1 -> 64; seat 3 peng 东 (0) x2, 暗杠 9999s x4
# = 8 -> 512 -> cap 400 (金顶 needs all three over 400).  W 592.
GREEN = rec("laizishanzhuang", 2, 2, "self_draw", "2p", [
    seat(laizi=1), seat(), seat("678p345m2p", chi("345s", 1), peng("777m", 0), green=1, red=1),
    seat("", peng("111z", 0), akong("9999s"))], indicator="5m")
case("lz-dealer-green-red-kongs", GREEN, [-128, -64, 592, -400], base=1, golden=False)
# laizishanzhuang with 口口翻: caps 500 / 500 / 600 / 700 (Amb. 31).  M(W) = 2 openings x4
# ... = 128.  Seat 0 256; seat 1 128; seat 3 (one opening x2, 暗杠 x4) 1024 -> 500.  W 884.
case("lz-per-opening-cap-500",
     with_profile(GREEN, "laizishanzhuang", opening_scoring="per_opening"),
     [-256, -128, 884, -500], golden=False)
# 口口翻 with every loser over 500: seat 0 暗杠 1111p (x4, never opened) 512; seat 1 two
# laizi discards (x4, never opened) 512; seat 3 1024.  金顶 600, the two who never
# opened pay the 光明顶 700.  W 700 + 700 + 600 = 2000.
case("lz-per-opening-bright-700", with_profile(
    with_seat(with_seat(GREEN, 0, seat("", akong("1111p"))), 1, seat(discards=2)),
    "laizishanzhuang", opening_scoring="per_opening"), [-700, -700, 2000, -600], golden=True)

# 冲杠 opens and is a 明杠 (Project decision 5, Amb. 10).  W = seat 3: 冲杠 8888m (1),
# chi 234p (2); 567s 345p 5m, wins on seat 0's 5m.  Seat 1 deals.
# 口口翻: M(W) = 2 openings x4 x 明杠 x2 x 硬胡 x2 = 16.  Seat 0 放冲 x2 -> 32; seat 1
# dealer x2 -> 32; seat 2 -> 16.  W 80.
CK = rec("yuanhang", 1, 3, "discard", "5m", [
    seat(), seat(), seat(), seat("567s345p5m", ckong("8888m", 1), chi("234p", 2))], frm=0)
case("yh-direct-kong-opens", CK, [-32, -32, -16, 80])
# 开口翻: M(W) = 2 x 2 x 2 = 8 -> 16 / 16 / 8: nobody owes 20: no win.
case("yh-direct-kong-once-under-minimum", with_profile(CK, "yuanhang", opening_scoring="once"),
     refused="minimum_one_loser")
# direct_kong_opens off, 口口翻: one opening (the chi): M(W) = 2 x 2 x 2 = 8: no win.
case("yh-direct-kong-not-opening", with_profile(CK, "yuanhang", direct_kong_opens=False),
     refused="minimum_one_loser")
# laizishanzhuang has no minimum: M(W) 8 -> 16, 16, 8; W 40.
case("lz-direct-kong", with_profile(CK, "laizishanzhuang"), [-16, -16, -8, 40])

# 蓄杠 keeps its peng's one opening and adds a 明杠: W = seat 0: 蓄杠 5555s (peng from 2),
# chi 678m (3); 234p 789p 2s, draws 2s.  Seat 1 deals.  口口翻: M(W) = 2 openings x4 x
# 明杠 x2 x 硬胡 x2 x 自摸 x2 = 32.  Seat 1 dealer 64; seat 2 32; seat 3 32.  W 128.
case("yh-added-kong-one-opening", rec("yuanhang", 1, 0, "self_draw", "2s", [
    seat("234p789p2s", xkong("5555s", 2), chi("678m", 3)), seat(), seat(), seat()]),
    [128, -64, -32, -32])

# A laizi standing in on a small hand (soft, x1): indicator 4p -> laizi 5p.  W = seat 1,
# peng 333m (3); 12m 456s 789s 5p 8p; wins on seat 2's 3m: 123m 456s 789s + 8p 8p(5p).
# laizishanzhuang: M(W) = 开口 x2 = 2.  Seat 2 放冲 x2 -> 4; seat 0 dealer x2 -> 4;
# seat 3 -> 2.  W 10 (no minimum).
SOFT = rec("laizishanzhuang", 0, 1, "discard", "3m", [
    seat(), seat("12m456s789s5p8p", peng("333m", 3)), seat(), seat()], frm=2, indicator="4p")
case("lz-small-soft", SOFT, [-4, 10, -4, -2], base=1)
# yuanhang: the same 4 / 4 / 2: under 20, no win.
case("yh-small-soft-under-minimum", with_profile(SOFT, "yuanhang"), refused="minimum_one_loser")

# The laizi used as itself is hard: indicator 4s -> laizi 5s.  W = seat 2, chi 123m (1),
# peng 777p (0); 345p 567s 8s, wins on seat 3's 8s (the 5s is a 5s in 567s).
# 口口翻: M(W) = 4 x 硬胡 2 = 8.  Seat 3 peng 西 (1) x2, 放冲 x2 -> 32; seat 0 dealer 16;
# seat 1 8.  W 56.
case("yh-laizi-as-itself-hard", rec("yuanhang", 0, 2, "discard", "8s", [
    seat(), seat(), seat("345p567s8s", chi("123m", 1), peng("777p", 0)),
    seat("", peng("333z", 1))], frm=3, indicator="4s"), [-16, -8, 56, -32])

# Two laizi: a small hand may not hold them (§12), a big hand may.  Indicator 4p ->
# laizi 5p.  W = seat 1: chi 123p (0), peng 999p (3); 3p 4p 5p 5p 6p 7p 8p, wins on seat
# 2's 2p: 234p 55p 678p, 清一色, hard (the laizi are 5p).  口口翻: M(W) = 4 x 2 = 8 ->
# 80; seat 2 x1.5 -> 120; seat 0 80; seat 3 80.  W 280.
case("yh-qingyise-two-laizi", rec("yuanhang", 0, 1, "discard", "2p", [
    seat(), seat("3p4p5p5p6p7p8p", chi("123p", 0), peng("999p", 3)), seat(), seat()],
    frm=2, indicator="4p"), [-80, 280, -120, -80], base=10, hands={"qingyise"})
# The same with chi 123m: a small hand holding two laizi: no win.
case("yh-small-two-laizi-no-win", rec("yuanhang", 0, 1, "discard", "2p", [
    seat(), seat("3p4p5p5p6p7p8p", chi("123m", 0), peng("999p", 3)), seat(), seat()],
    frm=2, indicator="4p"), refused="laizi_limit")

# 碰碰胡 soft with a laizi (indicator 8s -> laizi 9s): W = seat 3, peng 222m (1),
# peng 444p (0); 777s 1z 3z 3z + 9s, wins on seat 2's 东: 111z(9s) or 333z(9s) - soft.
PPH_SOFT = rec("laizishanzhuang", 0, 3, "discard", "1z", [
    seat(), seat(), seat(), seat("777s1z9s3z3z", peng("222m", 1), peng("444p", 0))],
    frm=2, indicator="8s")
# laizishanzhuang: base 10, M(W) = 开口 x2 = 2 -> 20; seat 2 30; 20; 20.  W 70.
case("lz-pengpeng-soft", PPH_SOFT, [-20, -20, -30, 70], base=10, hands={"pengpenghu"})
# yuanhang: M(W) = 2 openings x4 = 4 -> 40 / 40 / 60.  W 140.
case("yh-pengpeng-soft", with_profile(PPH_SOFT, "yuanhang"), [-40, -40, -60, 140])

# 清一色 + 全求人 where both contracts could apply (bianfeng; Amb. 34): W = seat 0: chi
# 123m (3), peng 555m (1), chi 789m (3) - his third opening - and peng 444m (2); holds 6m,
# wins on seat 2's 6m (seat 2 not ready).  base 20; M(W) = 开口 x2 x 硬胡 x2 = 4 -> 80;
# seat 2 x1.5 -> 120; seat 1 80; seat 3 80.  The third feeder, seat 3, pays 280.
case("bf-third-feeder-beats-quanqiuren", rec("bianfeng", 1, 0, "discard", "6m", [
    seat("6m", chi("123m", 3), peng("555m", 1), chi("789m", 3), peng("444m", 2)),
    seat(), seat(ready=False), seat()], frm=2),
    [280, 0, 0, -280], base=20, hands={"qingyise", "quanqiuren"}, contractor=3)

# The contract cap per share (yuanhang 开口翻): W = seat 1: peng 111m (2), peng 444m (3),
# chi 789m (0) - third opening from seat 0; 2m 3m 5m 5m + 4m on seat 2's discard: 清一色.
# M(W) = 开口 x2 x 硬胡 x2 = 4 -> 40.  Seat 0: 40.  Seat 2: 暗杠 9999p x4, 放冲 x1.5 -> 240.
# Seat 3: two 暗杠 x16 -> 640 -> contract cap 400.  No 金顶 (40).  Seat 0 pays 680.
case("yh-contract-cap-per-share", rec("yuanhang", 3, 1, "discard", "4m", [
    seat(), seat("2m3m5m5m", peng("111m", 2), peng("444m", 3), chi("789m", 0)),
    seat("", akong("9999p")), seat("", akong("1111p"), akong("2222p"))],
    frm=2, options={"opening_scoring": "once"}),
    [-680, 680, 0, 0], contractor=0, golden=False)


# ============ second round: finer points ================================================
# 全求人 whose held tile is the laizi (Amb. 19: soft, still 全求人).  Indicator 4p ->
# laizi 5p.  W = seat 1: chi 123m (0), peng 444s (3), peng 777s (2), chi 678m (0); holds
# the 5p, wins on seat 2's 8p (the laizi makes the pair 88p).  Seat 3 deals (ignored).
# 口口翻: M(W) = 4 openings x16 (soft) = 16 -> 160; seat 2 x1.5 -> 240; 160; 160.  No
# 金顶.  The 8p is a 将: seat 2 contracts (yuanhang) and pays 560 (contract cap 400 unmet).
case("yh-quanqiuren-laizi-held-soft", rec("yuanhang", 3, 1, "discard", "8p", [
    seat(), seat("5p", chi("123m", 0), peng("444s", 3), peng("777s", 2), chi("678m", 0)),
    seat(), seat()], frm=2, indicator="4p"),
    [0, 560, -560, 0], base=10, hands={"quanqiuren"}, contractor=2)

# 全求人 from a 蓄杠 on a claimed peng and a 冲杠 (Amb. 19), laizishanzhuang.  W = seat 2:
# 蓄杠 5555m (peng from 0), 冲杠 9999p (3), chi 123s (1), peng 777p (0); holds 2s, wins on
# seat 3's 2s.  base 10; M(W) = 开口 x2 x 明杠 x2 x 明杠 x2 x 硬胡 x2 = 16 -> 160.
# Seat 3 x1.5 -> 240 (ready: no contract); seat 0 160; seat 1 (dealer, ignored) 160.
QQR_KONGS = rec("laizishanzhuang", 1, 2, "discard", "2s", [
    seat(), seat(),
    seat("2s", xkong("5555m", 0), ckong("9999p", 3), chi("123s", 1), peng("777p", 0)),
    seat(ready=True)], frm=3)
case("lz-quanqiuren-with-kongs", QQR_KONGS, [-160, -160, 560, -240], base=10,
     hands={"quanqiuren"}, contractor=None)
# Seat 3 not ready: he pays the 560.
case("lz-quanqiuren-with-kongs-not-ready", with_seat(QQR_KONGS, 3, seat(ready=False)),
     [0, 0, 560, -560], contractor=3)

# The third opening is a 冲杠 (Amb. 34e), laizishanzhuang 清一色: W = seat 0: chi 123s (3),
# peng 555s (2), 冲杠 9999s (1); 678s 4s, wins on seat 2's 4s.  M(W) = 开口 x2 x 明杠 x2 x
# 硬胡 x2 = 8 -> 80; seat 2 120; seat 1 (dealer) 80; seat 3 80.  Seat 1 fed the 冲杠: 280.
case("lz-third-feeder-direct-kong", rec("laizishanzhuang", 1, 0, "discard", "4s", [
    seat("678s4s", chi("123s", 3), peng("555s", 2), ckong("9999s", 1)), seat(), seat(), seat()],
    frm=2), [280, -280, 0, 0], base=10, contractor=1)

# The third feeder deals in too: W = seat 3: peng 111p (1), chi 234p (2), peng 666p (1);
# 789p 9p, wins on seat 1's 9p.  口口翻: M(W) = 3 openings x8 x 硬胡 x2 = 16 -> 160; seat 1
# x1.5 240; 160; 160; seat 1 pays all 560.
case("yh-third-feeder-deals-in", rec("yuanhang", 0, 3, "discard", "9p", [
    seat(), seat(), seat(), seat("789p9p", peng("111p", 1), chi("234p", 2), peng("666p", 1))],
    frm=1), [0, -560, 0, 560], contractor=1)

# 光明顶 goes only to losers who never opened (Amb. 32): laizishanzhuang, W = seat 0 self-
# draws 清一色 + 碰碰胡: peng 111m (2), peng 333m (1); 555m 777m 9m + 9m.  base 20;
# M(W) = 开口 x2 x 硬胡 x2 x 1.5 = 6 -> 120.  Seat 1 冲杠 4444p (0): 开口 x2 x 明杠 x2 = 4
# -> 480; seat 2 暗杠 1111p x4 -> 480; seat 3 two laizi discards x4 -> 480.  All > 400:
# 金顶 500 for seat 1 (opened), 光明顶 600 for seats 2 and 3.  W 1700.
case("lz-bright-only-for-never-opened", rec("laizishanzhuang", 3, 0, "self_draw", "9m", [
    seat("555m777m9m", peng("111m", 2), peng("333m", 1)), seat("", ckong("4444p", 0)),
    seat("", akong("1111p")), seat(discards=2)]), [1700, -500, -600, -600], golden=True)

# 清一色 + 抢杠 with a 9-9 pair in laizishanzhuang: 清一色 takes any pair, so 抢杠 stands
# on it (§10.3; the 2/5/8 rule is for an otherwise small-hand shape).  R = seat 1: peng
# 111s (3), chi 234s (0); 567s 99s 6s 7s, robs seat 3's 8s (K peng'd 888s from seat 2).
ROB_QYS = rec("laizishanzhuang", 2, 1, "rob_kong", "8s", [
    seat("", akong("2222m")), seat("567s99s6s7s", peng("111s", 3), chi("234s", 0)), seat(),
    seat("", peng("888s", 2))], frm=3)
# base 10 + 10 = 20; M(R) = 开口 x2 x 硬胡 x2 = 4 -> 80.  K opened -> 160; seat 0 暗杠 -> 320;
# seat 2 (dealer, ignored) 80.  K pays 560.
case("lz-robbed-qingyise-any-pair", ROB_QYS, [0, 560, 0, -560], base=20,
     hands={"qingyise", "qiangganghu"}, contractor=3)
# yuanhang: K (empty hand) is not ready: a plain 杠上花, hard.  M(K) = 开口 x2 x 蓄杠 x2 x
# 硬胡 x2 x 1.5 = 12 -> 120.  R: 2 openings x4 -> 480 -> 400; seat 0 x4 -> 480 -> 400;
# seat 2 120.  No 金顶.  K pays 920.
case("yh-robbed-konger-not-ready", with_profile(ROB_QYS, "yuanhang"), [0, 920, 0, -920],
     base=10, contractor=3)

# The robber's own pair does not matter in 杠进杠出 but does in laizishanzhuang: ROB with
# R's pair 11s instead of 22s.
ROB_11 = with_seat(ROB, 0, seat("789m34p11s456s", chi("123s", 3)))
case("bf-robbed-robber-pair-irrelevant", ROB_11, [880, 0, -880, 0], contractor=2)
case("lz-robbed-robber-needs-258", with_profile(ROB_11, "laizishanzhuang"), refused="pair_258")

# The konger's imagined 杠开 can only be soft (bianfeng): K = seat 2, peng 555p (0), chi
# 123p (1); 789p 44p 6p + the laizi 南.  Every completion uses the laizi as a 筒: 清一色 +
# 杠上花, soft: base 20, M(K) = 开口 x2 x 蓄杠 x2 x 1.5 = 6 -> 120.  R opened: 240; seat 1
# (dealer) 120; seat 3 120.  K pays 480.
case("bf-robbed-konger-soft-qingyise", with_seat(ROB, 2, seat(
    "789p44p6p2z", peng("555p", 0), chi("123p", 1))), [480, 0, -480, 0], base=20, contractor=2)

# 风一色 whose laizi is an honour itself (laizishanzhuang, indicator 北 -> 白): the 白 stands
# for itself, so hard.  W = seat 1: peng 东 (3), peng 西 (0); 南南 北北 白 东 西, wins on seat
# 2's 南.  base 10; M(W) = 开口 x2 x 硬胡 x2 = 4 -> 40; seat 2 60; 40; 40.  W 140.
FYS_LZ = rec("laizishanzhuang", 0, 1, "discard", "2z", [
    seat(), seat("2z2z4z4z5z1z3z", peng("111z", 3), peng("333z", 0)), seat(), seat()],
    frm=2, indicator="4z")
case("lz-fengyise-laizi-is-honour", FYS_LZ, [-40, 140, -60, -40], base=10, hands={"fengyise"})
# yuanhang: indicator 北 -> 发 (not held), hard; base 20; M(W) = 2 openings x4 x 2 = 8 ->
# 160; seat 2 240.  W 560.
case("yh-fengyise-two-big-hands", with_profile(FYS_LZ, "yuanhang"), [-160, 560, -240, -160],
     base=20)
# 风一色 with a suited laizi standing for an honour (yuanhang, indicator 4m -> 5m): soft.
# W holds 南南 北北 白 发 5m, wins on seat 2's 南.  M(W) = 4 -> 80; seat 2 120.  W 280.
case("yh-fengyise-soft", rec("yuanhang", 0, 1, "discard", "2z", [
    seat(), seat("2z2z4z4z5z6z5m", peng("111z", 3), peng("333z", 0)), seat(), seat()],
    frm=2, indicator="4m"), [-80, 280, -120, -80], base=20, hands={"fengyise"})

# 清一色 + 海底捞, the dealer wins (ignored): W = seat 0: peng 111m (2), chi 234m (3);
# 567m 88m 99m, draws the last 9m.  base 20; M(W) = 2 openings x4 x 硬胡 x2 x 1.5 = 12 ->
# 240.  Seat 2 癞子杠 x4 -> 960 -> 300.  No 金顶.  W 780.
case("yh-haidilao-qingyise-dealer", rec("yuanhang", 0, 0, "last_tile", "9m", [
    seat("567m88m99m", peng("111m", 2), chi("234m", 3)), seat(), seat(laizi=1), seat()]),
    [780, -240, -300, -240], base=20, hands={"qingyise", "haidilao"})

# 碰碰胡 switched off (bianfeng, pengpenghu false): W = seat 1: peng 111m (3), peng 999p
# (0), peng 东 (2), two 红中杠; 777s 5p, wins on seat 2's 5p.  A small hand: M(W) = 开口 x2
# x 红中杠 x4 x 硬胡 x2 = 16.  Seat 2 放冲 x2 -> 32; seat 0 dealer x2 -> 32; seat 3 16.
PPH_OFF = rec("bianfeng", 0, 1, "discard", "5p", [
    seat(), seat("777s5p", peng("111m", 3), peng("999p", 0), peng("111z", 2), red=2),
    seat(), seat()], frm=2, options={"pengpenghu": False})
case("bf-pengpenghu-off-small", PPH_OFF, [-32, 80, -32, -16], base=1, hands=set())
# With 碰碰胡 on: base 10, M(W) 16 -> 160; seat 2 240; seat 0 160 (dealer ignored); 160.
case("bf-pengpenghu-on", with_profile(PPH_OFF, "bianfeng", pengpenghu=True),
     [-160, 560, -240, -160], base=10, hands={"pengpenghu"})

# A loser's three openings and a 冲杠 in 口口翻: W = seat 0 self-draws, chi 234m (3), peng
# 666p (2); 345s 789s 8p + 8p.  M(W) = 2 openings x4 x 硬胡 x2 x 自摸 x2 = 16.  Seat 1:
# chi 123p (0), peng 999m (3), 冲杠 北 (2): 3 openings x8 x 明杠 x2 = 16 -> 256.  Seat 2
# deals: 32.  Seat 3: 16.  W 304.
case("yh-loser-three-openings", rec("yuanhang", 2, 0, "self_draw", "8p", [
    seat("345s789s8p", chi("234m", 3), peng("666p", 2)),
    seat("", chi("123p", 0), peng("999m", 3), ckong("4444z", 2)), seat(), seat()]),
    [304, -256, -32, -16])

# 杠上花 holding two laizi, used as themselves (a big hand may hold any number): indicator
# 4p -> 5p.  W = seat 1: chi 123m (0), 暗杠 9999s; 55p 345m 67s, draws 8s.  Hard.
# base 10; M(W) = 开口 x2 x 暗杠 x4 x 硬胡 x2 x 1.5 = 24 -> 240 from each (dealer
# ignored).  W 720.
case("yh-bloom-two-laizi-hard", rec("yuanhang", 0, 1, "kong_bloom", "8s", [
    seat(), seat("5p5p345m67s", chi("123m", 0), akong("9999s")), seat(), seat()],
    indicator="4p"), [-240, 720, -240, -240], base=10, hands={"gangshanghua"})

# Indicator 中 (yuanhang: 中 -> 发): W = seat 3: chi 234p (2), peng 777m (1), one 红中杠;
# 456s 678s + 发 (wild), wins on seat 0's 8s: pair 8s 8s(发), soft.  M(W) = 2 openings x4 x
# 红中杠 x2 = 8.  Seat 0 peng 东 (x2), 放冲 x2 -> 32; seat 1 dealer -> 16; seat 2 8.
RED_IND = rec("yuanhang", 1, 3, "discard", "8s", [
    seat("", peng("111z", 1)), seat(), seat(), seat("456s678s6z", chi("234p", 2), peng("777m", 1),
                                                     red=1)], frm=0, indicator="7z")
case("yh-indicator-red-laizi-green", RED_IND, [-32, -16, -8, 56], base=1)
# laizishanzhuang: 中 -> 白, and the held 发 is a must-kong tile: no win.
case("lz-indicator-red-green-held", with_profile(RED_IND, "laizishanzhuang"),
     refused="holds_must_kong")

# Contract, 金顶 and 光明顶 together (Amb. 30): THREE with every loser over 400 -
# seat 0 暗杠 1111s x4 -> 1440, seat 1 丢癞子 x2 -> 720, seat 2 (the feeder) 720.  All
# > 400: 金顶; none of them opened: 光明顶 600 each; seat 2 pays 1800.
case("lz-contract-bright", with_seat(with_seat(THREE, 0, seat("", akong("1111s"))), 1,
                                     seat(discards=1)), [0, 0, -1800, 1800], contractor=2,
     golden=True)


# ============ third round: readiness, 全求人 and more contracts ===========================
# 金顶 under a contract (Amb. 30, rules.md: checked against the normal cap): the 清一色
# third feeder case with every loser opened once.  口口翻: M(W) = 3 openings x8 x 硬胡 x2 =
# 16 -> 160; seat 0 (peng 东) x2 -> 320; seat 1 (peng 西) x2 x 放冲 1.5 -> 480; seat 3
# (chi 123p) x2 -> 320.  All >= 300: 金顶, 400 each (not 320 + 400 + 320); seat 3 pays 1200.
case("yh-third-feeder-golden", rec("yuanhang", 1, 2, "discard", "8m", [
    seat("", peng("111z", 3)), seat("", peng("333z", 0)),
    seat("567m8m", peng("111m", 0), chi("234m", 1), peng("999m", 3)),
    seat("", chi("123p", 2))], frm=1), [0, 0, 1200, -1200], contractor=3, golden=True)

# 将一色 + 碰碰胡 + 全求人: W = seat 1: peng 222m (2), peng 555p (3), peng 888s (0) - third
# opening - and peng 222s (2); holds 5m, wins on seat 3's 5m (seat 3 not ready).
JYS3 = rec("bianfeng", 2, 1, "discard", "5m", [
    seat(), seat("5m", peng("222m", 2), peng("555p", 3), peng("888s", 0), peng("222s", 2)),
    seat(), seat(ready=False)], frm=3)
# bianfeng: base 10 x 2 x 2 = 40; M(W) = 开口 x2 x 硬胡 x2 = 4 -> 160; seat 3 x1.5 -> 240;
# seat 0 160; seat 2 (dealer) 160.  将一色's third feeder (seat 0) before the 全求人
# contract (Amb. 34): seat 0 pays 560.
case("bf-jiangyise-pengpeng-quanqiuren", JYS3, [-560, 560, 0, 0], base=40,
     hands={"jiangyise", "pengpenghu", "quanqiuren"}, contractor=0)
# yuanhang in 开口翻: the same 560, but 将一色 has no contract there and the 5m is a 将:
# seat 3 pays.
case("yh-jiangyise-pengpeng-quanqiuren-once",
     with_profile(JYS3, "yuanhang", opening_scoring="once"), [0, 560, 0, -560], contractor=3)
# laizishanzhuang: base 30; M(W) 4 -> 120; seat 3 180; 120; 120; seat 3 not ready pays 420.
case("lz-jiangyise-pengpeng-quanqiuren", with_profile(JYS3, "laizishanzhuang"),
     [0, 420, 0, -420], base=30, contractor=3)

# Four openings and one held tile, but a self-draw: no 全求人 (a discard win only), a small
# hand.  W = seat 1: chi 123m (0), peng 444p (3), peng 777s (2), chi 678m (0); draws 5p.
# 口口翻: M(W) = 4 openings x16 x 硬胡 x2 x 自摸 x2 = 64; seat 0 deals: 128; 64; 64.
FOUR_SELF = rec("yuanhang", 0, 1, "self_draw", "5p", [
    seat(), seat("5p", chi("123m", 0), peng("444p", 3), peng("777s", 2), chi("678m", 0)),
    seat(), seat()])
case("yh-four-openings-self-draw-small", FOUR_SELF, [-128, 256, -64, -64], base=1, hands=set())
# laizishanzhuang: M(W) = 2 x 2 x 2 = 8: dealer 16, 8, 8.
case("lz-four-openings-self-draw-small", with_profile(FOUR_SELF, "laizishanzhuang"),
     [-16, 32, -8, -8], base=1)

# Readiness from the discarder's own tiles (bianfeng 全求人, Project decision 16).  The QQR
# hand in bianfeng: base 10; M(W) = 开口 x2 x 硬胡 x2 = 4 -> 40; seat 2 x1.5 -> 60; 40; 40.
QQR_BF = with_profile(QQR, "bianfeng")
# Seat 2 shows peng 999s (3) and holds 234m 567m 789p 8s: ready on 8s: no contract.  His
# peng is an opening: M(2) = 开口 x2 x 放冲 x1.5 = 3 -> 120.  W 40 + 120 + 40 = 200.
case("bf-quanqiuren-discarder-ready-by-hand",
     with_seat(QQR_BF, 2, seat("234m567m789p8s", peng("999s", 3))), [-40, 200, -120, -40],
     contractor=None)
# ... the same with a 红中 for the 9p: holding 红中, he can win on nothing (Amb. 34): pays 200.
case("bf-quanqiuren-discarder-holds-red",
     with_seat(QQR_BF, 2, seat("234m567m78p7z8s", peng("999s", 3))), [0, 200, -200, 0],
     contractor=2)
# ... a closed 13-tile hand one tile from the shape: without an opening no tile gives him a
# legal win (§9, §13), so he is not ready: pays 40 + 60 + 40 = 140 (M(2) = 1.5, no opening).
case("bf-quanqiuren-discarder-closed-not-ready",
     with_seat(QQR_BF, 2, seat("234m567m789p456s8s")), [0, 140, -140, 0], contractor=2)
# laizishanzhuang, the ready hand: no contract; base 10, M(W) 4: the same 40 / 120 / 40.
case("lz-quanqiuren-discarder-ready-by-hand",
     with_profile(with_seat(QQR_BF, 2, seat("234m567m789p8s", peng("999s", 3))),
                  "laizishanzhuang"), [-40, 200, -120, -40], contractor=None)

# The konger's best 杠开 (rules.md: every tile tried, the best kept): K = seat 2, peng 555p
# (0), peng 西 (1); holds 666m 7m 888m: a 7m makes 碰碰胡 (666m 888m + 77m),
# a 6m or 9m a run.  Best: 碰碰胡 + 杠上花 = 20, hard.  bianfeng: M(K) = 开口 x2 x 蓄杠 x2 x
# 硬胡 x2 x 1.5 = 12 -> 240; R (seat 0, opened) 480 -> 400; seat 1 (dealer) 240; seat 3
# 240.  K pays 880.
case("bf-robbed-konger-best-pengpeng", with_seat(ROB, 2, seat(
    "6m6m6m7m8m8m8m", peng("555p", 0), peng("333z", 1))), [880, 0, -880, 0], base=20,
    contractor=2)

# The winner's own laizi discards and kongs join his M (Project decision 6), bianfeng:
# W = seat 3: chi 456m (2); 123p 789p 55s 67s + 8s on seat 0's discard; he threw a laizi
# once (x2) and made one 癞子杠 (x4).  M(W) = 开口 x2 x 丢癞子 x2 x 癞子杠 x4 x 硬胡 x2 =
# 32.  Seat 0 放冲 x2 -> 64; seat 1 dealer -> 64; seat 2 -> 32.  Every >= 8.  W 160.
OWN = rec("bianfeng", 1, 3, "discard", "8s", [
    seat(), seat(), seat(), seat("123p789p55s67s", chi("456m", 2), laizi=1, discards=1)], frm=0)
case("bf-winner-laizi-kong-and-discard", OWN, [-64, -64, -32, 160], base=1)
# laizishanzhuang: 癞子杠 x2: M(W) = 2 x 2 x 2 x 2 = 16 -> 32 / 32 / 16.  W 80.
case("lz-winner-laizi-kong-and-discard", with_profile(OWN, "laizishanzhuang"),
     [-32, -32, -16, 80], base=1)
# yuanhang with laizi_kong_factor 2 and 口口翻 (one opening): as laizishanzhuang, 80.
case("yh-laizi-kong-factor-2", with_profile(OWN, "yuanhang", laizi_kong_factor=2),
     [-32, -32, -16, 80])

# The dealer deals in on a small hand: x2 dealer and x2 放冲.  W = seat 1: chi 123m (0);
# 456p 789s 34m 55s + 2m on seat 0's discard; two 红中杠.  yuanhang: M(W) = 开口 x2 x
# 红中杠 x4 x 硬胡 x2 = 16.  Seat 0: 庄 x2 x 放冲 x2 = 4 -> 64; seat 2 16; seat 3 16.
case("yh-dealer-deals-in", rec("yuanhang", 0, 1, "discard", "2m", [
    seat(), seat("456p789s34m55s", chi("123m", 0), red=2), seat(), seat()], frm=0),
    [-64, 96, -16, -16], base=1)

# A self-drawn laizi as the second held laizi: a small hand may not (§12).  Indicator 4s ->
# laizi 5s.  W = seat 2: chi 123m (1), peng 777p (0); 345p 678s 5s, draws a 5s.
case("yh-self-drawn-second-laizi-small", rec("yuanhang", 0, 2, "self_draw", "5s", [
    seat(), seat(), seat("345p678s5s", chi("123m", 1), peng("777p", 0)), seat()],
    indicator="4s"), refused="laizi_limit")


# ============ fourth round ============================================================
# 风一色 乱风 with no pair (rules.md: 风一色 but not 全求人).  Indicator 9m -> laizi 1m.
# W = seat 1: peng 东 (3), peng 西 (0), peng 北 (2) - third opening - and peng 白 (3); holds
# the fourth 东, wins on seat 2's 南.
LUANFENG = rec("yuanhang", 0, 1, "discard", "2z", [
    seat(), seat("1z", peng("111z", 3), peng("333z", 0), peng("444z", 2), peng("555z", 3)),
    seat(), seat()], frm=2, indicator="9m", options={"opening_scoring": "once"})
# yuanhang 开口翻: base 20 (风一色 alone); M(W) = 开口 x2 x 硬胡 x2 = 4 -> 80; seat 2 120;
# 80; 80; 风一色 is no one-suit contract hand here: W 280.
case("yh-luanfeng-no-pair", LUANFENG, [-80, 280, -120, -80], base=20, hands={"fengyise"},
     contractor=None)
# bianfeng: the same 280, but 风一色's third feeder (seat 2, who also dealt in) pays it.
case("bf-luanfeng-third-feeder", with_profile(LUANFENG, "bianfeng"), [0, 280, -280, 0],
     contractor=2)
# laizishanzhuang: 风一色 is one big hand: base 10 -> 40 / 60 / 40: W 140.
case("lz-luanfeng-no-pair", with_profile(LUANFENG, "laizishanzhuang"), [-40, 140, -60, -40],
     base=10, contractor=None)

# 111m 222m 333m reads as three triplets (碰碰胡) or three runs: the winner gets the better.
# yuanhang: W = seat 1: peng 777s (3); 111m 222m 333m 5p, wins on seat 2's 5p.  碰碰胡:
# base 10, M(W) = 开口 x2 x 硬胡 x2 = 4 -> 40; seat 2 60; seat 0 (dealer) 40; seat 3 40.
case("yh-triplets-read-as-pengpeng", rec("yuanhang", 0, 1, "discard", "5p", [
    seat(), seat("111m222m333m5p", peng("777s", 3)), seat(), seat()], frm=2),
    [-40, 140, -60, -40], base=10, hands={"pengpenghu"})

# 清一色 + 全求人 on a 将 (yuanhang, 开口翻): both contracts apply, the third feeder pays
# (Amb. 34).  W = seat 0: chi 123m (3), peng 555m (1), chi 789m (3), peng 444m (2); holds
# 8m, wins on seat 2's 8m.  base 20; M(W) = 4 -> 80; seat 2 120; 80; 80: seat 3 pays 280.
case("yh-qingyise-quanqiuren-jiang-third-feeder", rec("yuanhang", 1, 0, "discard", "8m", [
    seat("8m", chi("123m", 3), peng("555m", 1), chi("789m", 3), peng("444m", 2)),
    seat(), seat(), seat()], frm=2, options={"opening_scoring": "once"}),
    [280, 0, 0, -280], base=20, hands={"qingyise", "quanqiuren"}, contractor=3)

# A 暗杠 between the openings is no opening: W = seat 2: peng 111s (0), 暗杠 9999s, chi
# 234s (1), peng 666s (3) - the third opening is the fourth meld; holds 8s, wins on seat
# 1's 8s.  Not 全求人 (the 暗杠 was not claimed).  yuanhang 开口翻: 清一色, base 10;
# M(W) = 开口 x2 x 暗杠 x4 x 硬胡 x2 = 16 -> 160; seat 1 240; 160; 160: seat 3 pays 560.
case("yh-third-feeder-skips-concealed-kong", rec("yuanhang", 0, 2, "discard", "8s", [
    seat(), seat(), seat("8s", peng("111s", 0), akong("9999s"), chi("234s", 1), peng("666s", 3)),
    seat()], frm=1, options={"opening_scoring": "once"}),
    [0, 0, 560, -560], base=10, hands={"qingyise"}, contractor=3)

# No robbing without an opening (§8.2): ROB with R holding a closed 13-tile hand ready on
# the 5p.
ROB_CLOSED = with_seat(ROB, 0, seat("789m34p22s456s123s"))
case("bf-robber-not-opened", ROB_CLOSED, refused="not_opened")
case("lz-robber-not-opened", with_profile(ROB_CLOSED, "laizishanzhuang"), refused="not_opened")

# 杠上花 after a 发财杠 (laizishanzhuang): W = seat 0: chi 345s (3), peng 999m (2), one
# 发财杠; 678p 22p 67s, draws 8s.  base 10; M(W) = 开口 x2 x 发财杠 x2 x 硬胡 x2 x 1.5 = 12
# -> 120; seat 1 (dealer, ignored) 120; seat 2 120; seat 3 暗杠 5555m x4 -> 480 -> 400.
case("lz-bloom-after-green-kong", rec("laizishanzhuang", 1, 0, "kong_bloom", "8s", [
    seat("678p22p67s", chi("345s", 3), peng("999m", 2), green=1), seat(), seat(),
    seat("", akong("5555m"))]), [640, -120, -120, -400], base=10, hands={"gangshanghua"})

# 杠上花 after a 癞子皮杠 where yuanhang switches it on (pi_kong on): indicator 5m -> laizi
# 6m, the 皮 is 5m.  W = seat 2: chi 123p (1), peng 888s (0), one 皮杠; 456m 789m 2s,
# draws 2s.  口口翻: M(W) = 2 openings x4 x 皮杠 x2 x 硬胡 x2 x 1.5 = 24 -> 240 each.
case("yh-bloom-after-pi-kong", rec("yuanhang", 0, 2, "kong_bloom", "2s", [
    seat(), seat(), seat("456m789m2s", chi("123p", 1), peng("888s", 0), pi=1), seat()],
    indicator="5m", options={"pi_kong": "on"}), [-240, -240, 720, -240], base=10)


# ============ fifth round: cap options and the dealer in a robbed kong ===================
# bianfeng in 口口翻 with its 口口翻 cap lowered to 200 (cap_per_opening): TRIGGER's 256
# from each loser reaches it, so 金顶 (golden_cap_per_opening 400) for all three: W 1200.
case("bf-per-opening-cap-200-golden",
     with_profile(TRIGGER, "bianfeng", opening_scoring="per_opening", cap_per_opening=200),
     [1200, -400, -400, -400], golden=True)

# laizishanzhuang in 口口翻, robbed: ROB_QYS.  base 20; M(R) = 2 openings x4 x 硬胡 x2 = 8
# -> 160.  K (one opening) x2 -> 320; seat 0 暗杠 x4 -> 640 -> the 口口翻 contract cap 500;
# seat 2 (dealer) 160.  No 金顶 (160).  K pays 320 + 500 + 160 = 980.
case("lz-per-opening-robbed-contract-cap-500",
     with_profile(ROB_QYS, "laizishanzhuang", opening_scoring="per_opening"),
     [0, 980, 0, -980], contractor=3, golden=False)

# 杠进杠出 with the konger as the dealer: a big hand, so no dealer factor: still 880.
case("bf-robbed-konger-is-dealer", dict(ROB, dealer=2), [880, 0, -880, 0])

# A cap of 0 is no cap (§20), so no 金顶 either: FYS_PPH in yuanhang with cap_per_opening
# 0: base 40, M(W) 12 -> 480; seat 1 (丢癞子) 960; seat 2 480; seat 3 480.  W 1920.
case("yh-no-cap", with_profile(FYS_PPH, "yuanhang", cap_per_opening=0),
     [1920, -960, -480, -480], golden=False)
# contract_cap 0 with a contractor: the contract-cap case pays 40 + 240 + 640 = 920.
case("yh-no-contract-cap", rec("yuanhang", 3, 1, "discard", "4m", [
    seat(), seat("2m3m5m5m", peng("111m", 2), peng("444m", 3), chi("789m", 0)),
    seat("", akong("9999p")), seat("", akong("1111p"), akong("2222p"))],
    frm=2, options={"opening_scoring": "once", "contract_cap": 0}),
    [-920, 920, 0, 0], contractor=0)


@pytest.mark.parametrize(("record", "deltas", "refused", "base", "hands", "contractor",
                          "golden"), CASES)
def test_worked_settlement(record: dict[str, Any], deltas: list[int] | None,
                           refused: str | None, base: int | None, hands: set[str] | None,
                           contractor: int | str | None, golden: bool | None) -> None:
    rec_ = parse_win_record(record)
    if refused is not None:
        with pytest.raises(NotAWin) as e:
            settle(rec_)
        assert e.value.refusal.code == refused
        return
    s = settle(rec_)
    assert list(s.deltas) == deltas
    assert sum(s.deltas) == 0
    if base is not None:
        assert s.base == base
    if hands is not None:
        assert set(s.hands) == hands
    if contractor != "none":
        assert s.contractor == contractor
    if golden is not None:
        assert s.golden_cap is golden


@pytest.mark.parametrize(("record", "deltas", "refused", "base", "hands", "contractor",
                          "golden"), CASES)
def test_the_calculator_answers_the_same(record: dict[str, Any], deltas: list[int] | None,
                                         refused: str | None, base: int | None,
                                         hands: set[str] | None, contractor: int | str | None,
                                         golden: bool | None) -> None:
    """``wuhan-mahjong score`` and ``/api/score`` (both call score_record) on the JSON text."""
    answer = score_record(json.dumps(record, ensure_ascii=False))
    if refused is not None:
        assert not answer.settled
        assert answer.body["refusal"]["code"] == refused  # type: ignore[index]
        return
    assert answer.settled
    assert answer.body["deltas"] == deltas


def test_pi_kong_needs_per_opening_in_bianfeng() -> None:
    # bianfeng has the 癞子皮杠 only with 口口翻 (Project decision 3, Amb. 4): a record with
    # one in 开口翻 is malformed.
    r = rec("bianfeng", 0, 2, "kong_bloom", "2s", [
        seat(), seat(), seat("456m789m2s", chi("123p", 1), peng("888s", 0), pi=1), seat()],
        indicator="5m")
    with pytest.raises(RecordError):
        parse_win_record(r)
    # with 口口翻 it settles: M(W) = 2 openings x4 x 皮杠 x2 x 硬胡 x2 x 1.5 = 24 -> 240 each.
    assert settle(parse_win_record(with_profile(r, "bianfeng", opening_scoring="per_opening"))
                  ).deltas == (-240, -240, 720, -240)


def test_enough_cases() -> None:
    assert len(CASES) >= 40
