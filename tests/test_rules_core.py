"""One test per eligibility rule (docs/RULES.md §13) and per factor (§17.3-17.4)."""

from __future__ import annotations

from typing import Any

import pytest

from wuhan_mahjong.analysis import NotAWin, readings
from wuhan_mahjong.meld import parse_meld_spec
from wuhan_mahjong.rules import RulesError, get_rules
from wuhan_mahjong.scoring import Settlement, big_hand_base, settle
from wuhan_mahjong.tiles import TileError, parse_tile, parse_tiles
from wuhan_mahjong.win_record import RecordError, parse_win_record


def meld(spec: str, seat: int = 1) -> dict[str, Any]:
    m = parse_meld_spec(spec, seat)
    d: dict[str, Any] = {"type": m.type, "tiles": spec.split(":")[1]}
    if m.kind:
        d["kind"] = m.kind
    if m.from_seat is not None:
        d["from"] = m.from_seat
    return d


def record(hand: str, win: str, melds: list[str], *, profile: str = "yuanhang",
           win_by: str = "discard", frm: int | None = 2, dealer: int = 0, indicator: str = "1z",
           options: dict[str, Any] | None = None, others: dict[int, dict[str, Any]] | None = None,
           winner_extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Seat 1 wins; by default on seat 2's discard, with seat 0 the dealer."""
    # two 红中杠 for the winner, so that most small hands pass the minimum score
    seats: list[dict[str, Any]] = [{}, {"hand": hand, "melds": [meld(s) for s in melds],
                                        "kongs": {"red": 2}}, {}, {}]
    seats[1].update(winner_extra or {})
    for k, v in (others or {}).items():
        seats[k] = v
    rec: dict[str, Any] = {"profile": profile, "dealer": dealer, "indicator": indicator,
                           "winner": 1, "win_by": win_by, "winning_tile": win, "seats": seats}
    if frm is not None and win_by in ("discard", "rob_kong"):
        rec["from"] = frm
    if options:
        rec["options"] = options
    return rec


def run(rec: dict[str, Any]) -> Settlement:
    return settle(parse_win_record(rec))


# --- eligibility ------------------------------------------------------------

def test_needs_an_opening() -> None:
    rec = record("123m456m789m22p55s", "5s", [], win_by="self_draw")
    rec["seats"][1]["melds"] = [{"type": "kong", "kind": "concealed", "tiles": "9999p"}]
    rec["seats"][1]["hand"] = "123m456m789m5s"
    with pytest.raises(NotAWin, match="opened"):
        run(rec)


@pytest.mark.parametrize(("hand", "win", "melds"), [
    # the hand of a second final draw (final_draws > 4) that stopped the engine: 15 tiles
    ("5m678p4466s", "6s", ["chi:234s", "chi:678p"]),
    # 乱风 reads any number of honours: 15 of them are still no hand
    ("1z2z2z3z3z4z4z5z5z6z6z", "2z", ["peng:111z"]),
])
def test_a_hand_of_another_size_is_no_win(hand: str, win: str, melds: list[str]) -> None:
    """A winning hand has 14 tiles, three a meld.  15 of them (a table with more than four
    final draws, where a seat draws twice and keeps both) failed an assertion deep in the
    arrangement instead of being refused."""
    ms = [parse_meld_spec(m, 2) for m in melds]
    tiles = [*parse_tiles(hand), parse_tile(win)]
    assert len(tiles) + 3 * len(ms) == 15
    with pytest.raises(NotAWin, match="a winning hand has 14"):
        readings(tiles, ms, parse_tile("5m"), get_rules(), "last_tile", parse_tile(win))


def test_holding_red_dragon_blocks_a_win() -> None:
    with pytest.raises(NotAWin, match="7z"):
        run(record("456p678s7z", "5m", ["chi:234m", "peng:777s"]))


def test_green_dragon_blocks_only_where_it_is_a_must_kong_tile() -> None:
    hand, melds = "456p678s666z5m", ["chi:234m"]
    assert run(record(hand, "5m", melds, options={"opening_scoring": "per_opening"})).total > 0
    with pytest.raises(NotAWin, match="6z"):
        run(record(hand, "5m", melds, profile="laizishanzhuang"))


def test_no_win_on_a_discarded_laizi() -> None:
    # indicator 4m -> laizi 5m; a discarded 5m can never be won on
    with pytest.raises(NotAWin, match="laizi"):
        run(record("456p678s5m", "5m", ["chi:234m", "peng:777s"], indicator="4m"))


def test_small_hand_may_hold_only_one_laizi() -> None:
    # laizi 9m (indicator 8m): two of them in a small hand
    rec = record("2p9m9m4s", "5s", ["chi:123m", "chi:456p", "peng:777s"], indicator="8m",
                 others={0: {"melds": [meld("peng:111z", 0)]}, 2: {"melds": [meld("peng:222z", 2)]}})
    with pytest.raises(NotAWin, match="at most 1 laizi"):
        run(rec)


def test_big_hands_may_hold_several_laizi() -> None:
    # 清一色 of 万 with two laizi (9p, indicator 8p)
    s = run(record("23m67m9p9p5m", "8m", ["chi:123m", "peng:444m"], indicator="8p"))
    assert "qingyise" in s.hands and not s.reading.hard


def test_small_hand_needs_a_258_pair() -> None:
    with pytest.raises(NotAWin, match="2/5/8"):
        run(record("456p678s3m", "3m", ["chi:234m", "peng:777s"]))


def test_one_suit_and_all_triplets_need_no_258_pair() -> None:
    s = run(record("456m789m3m", "3m", ["chi:123m", "peng:999m"]))
    assert s.hands == ("qingyise",)
    s = run(record("111p999s3m", "3m", ["peng:444m", "peng:777s"]))
    assert s.hands == ("pengpenghu",)


def test_jiangyise_needs_no_structure() -> None:
    s = run(record("258m258p25s8s8s", "2m", ["peng:555p"]))
    assert s.hands == ("jiangyise",) and s.base == 10


@pytest.mark.parametrize(("profile", "base"), [("yuanhang", 20), ("bianfeng", 20),
                                               ("laizishanzhuang", 10)])
def test_fengyise_needs_no_structure_and_counts_per_profile(profile: str, base: int) -> None:
    s = run(record("1z2z3z4z5z1z2z", "3z", ["peng:444z", "peng:555z"], profile=profile,
                   indicator="1m"))
    assert s.hands == ("fengyise",) and s.base == base


def test_situational_big_hands_need_258_only_in_laizishanzhuang() -> None:
    rec = record("456p678s3m", "3m", ["chi:234m", "peng:777s"], win_by="kong_bloom", frm=None)
    assert run(rec).hands == ("gangshanghua",)
    with pytest.raises(NotAWin, match="2/5/8"):
        run({**rec, "profile": "laizishanzhuang"})


def test_quanqiuren_needs_258_unless_another_big_hand() -> None:
    melds = ["chi:234m", "peng:777s", "chi:456m", "peng:111z"]
    s = run(record("5p", "5p", melds))
    assert s.hands == ("quanqiuren",)
    with pytest.raises(NotAWin):
        run(record("3p", "3p", melds))
    # only on a discard: a self-drawn single wait is an ordinary small hand
    s = run(record("5p", "5p", melds, win_by="self_draw", frm=None))
    assert s.hands == ()


def test_haidilao_is_a_self_draw_big_hand() -> None:
    s = run(record("456p678s5m", "5m", ["chi:234m", "peng:777s"], win_by="last_tile", frm=None))
    assert s.hands == ("haidilao",)
    assert any(f.id == "self_draw" and float(f.value) == 1.5 for f in s.factors[1])


def test_hard_when_the_laizi_stands_for_itself() -> None:
    # laizi 6p (indicator 5p) used as its own face in 456p
    s = run(record("456p678s5m", "5m", ["chi:234m", "peng:777s"], indicator="5p"))
    assert s.reading.hard


def test_the_reading_that_favours_the_winner() -> None:
    # 2z laizi: hard small hand with 2z pair impossible; soft reads 碰碰胡
    r = get_rules()
    melds = [parse_meld_spec("peng:444m", 1), parse_meld_spec("peng:777s", 1)]
    rs = readings(parse_tiles("111p999s2z5m"), melds, parse_tile("2z"), r, "discard",
                  parse_tile("5m"))
    assert [(x.hard, x.big_hands) for x in rs] == [(False, ("pengpenghu",))]
    assert rs[0].laizi_as == (parse_tile("5m"),)


def test_minimum_every_loser_8_in_bianfeng() -> None:
    # winner ×2 opened ×2 hard = 4; the discarder (opened, deal-in, 暗杠) owes 64,
    # the dealer 8, seat 3 only 4 (< 8): the [001] new rule refuses the win
    discarder = {"melds": [meld("peng:111z", 2),
                           {"type": "kong", "kind": "concealed", "tiles": "3333z"}]}
    rec = record("456p678s5m", "5m", ["chi:234m", "peng:777s"], profile="bianfeng",
                 winner_extra={"kongs": {}}, others={2: discarder})
    with pytest.raises(NotAWin, match="every loser"):
        run(rec)
    assert run({**rec, "profile": "yuanhang", "options": {"opening_scoring": "once"}}).total == 76
    rec["seats"][3] = {"melds": [meld("peng:444z", 3)]}
    assert run(rec).total == 64 + 8 + 8


# --- factors -------------------------------------------------------------------

BASIC = ("456p678s5m", "5m", ["chi:234m", "peng:777s"])


def factor_ids(s: Settlement, seat: int) -> dict[str, tuple[float, int]]:
    return {f.id: (float(f.value), f.count) for f in s.factors[seat]}


def test_opening_once_vs_per_opening() -> None:
    s = run(record(*BASIC, profile="bianfeng", others={2: {"melds": [meld("peng:111z", 2)]}}))
    assert factor_ids(s, 1)["opening"] == (2, 1)
    s = run(record(*BASIC, others={2: {"melds": [meld("peng:111z", 2)]}}))
    assert factor_ids(s, 1)["opening"] == (2, 2)


def test_direct_kong_opens_and_doubles() -> None:
    s = run(record(*BASIC, others={3: {"melds": [meld("kong:3333z", 3)]}}))
    assert factor_ids(s, 3) == {"opening": (2, 1), "exposed_kong": (2, 1)}
    s = run(record(*BASIC, options={"direct_kong_opens": False},
                   others={3: {"melds": [meld("kong:3333z", 3)]}}))
    assert factor_ids(s, 3) == {"exposed_kong": (2, 1)}


def test_concealed_kong_is_x4_and_does_not_open() -> None:
    s = run(record(*BASIC, others={3: {"melds": [{"type": "kong", "kind": "concealed",
                                                   "tiles": "3333z"}]}}))
    assert factor_ids(s, 3) == {"concealed_kong": (4, 1)}


@pytest.mark.parametrize(("profile", "value"), [("yuanhang", 4), ("laizishanzhuang", 2)])
def test_laizi_kong_factor(profile: str, value: int) -> None:
    s = run(record(*BASIC, profile=profile, options={"opening_scoring": "per_opening"},
                   others={3: {"kongs": {"laizi": 1}, "laizi_discards": 1}}))
    assert factor_ids(s, 3) == {"laizi_kong": (value, 1), "laizi_discard": (2, 1)}


def test_red_and_green_kongs() -> None:
    s = run(record(*BASIC, profile="laizishanzhuang", options={"opening_scoring": "per_opening"},
                   others={3: {"kongs": {"red": 2, "green": 1}}}))
    assert factor_ids(s, 3) == {"red_kong": (2, 2), "green_kong": (2, 1)}
    with pytest.raises(RecordError, match="green"):
        parse_win_record(record(*BASIC, others={3: {"kongs": {"green": 1}}}))


def test_kong_bloom_needs_a_kong_by_the_winner() -> None:
    rec = record(*BASIC, win_by="kong_bloom", frm=None)
    assert "gangshanghua" in run(rec).hands  # after one of the helper's two 红中杠
    rec["seats"][1].pop("kongs")
    with pytest.raises(RecordError, match="needs a kong"):
        parse_win_record(rec)
    rec["seats"][1]["melds"][1] = {"type": "kong", "kind": "added", "tiles": "9999p", "from": 3}
    assert "gangshanghua" in run(rec).hands  # after his own 蓄杠


def test_pi_kong_only_in_bianfeng_per_opening() -> None:
    rec = record(*BASIC, profile="bianfeng", others={3: {"kongs": {"pi": 1}}})
    with pytest.raises(RecordError, match="癞子皮杠"):
        parse_win_record(rec)
    rec["options"] = {"opening_scoring": "per_opening"}
    assert factor_ids(run(rec), 3) == {"pi_kong": (2, 1)}


def test_dealer_doubles_small_hands_only() -> None:
    s = run(record(*BASIC))
    assert factor_ids(s, 0) == {"dealer": (2, 1)}
    s = run(record("456m789m3m", "3m", ["chi:123m", "peng:999m"]))
    assert factor_ids(s, 0) == {}


def test_self_draw_and_deal_in_small_vs_big() -> None:
    s = run(record(*BASIC))
    assert factor_ids(s, 2)["deal_in"] == (2, 1)
    s = run(record("456m789m3m", "3m", ["chi:123m", "peng:999m"]))
    assert factor_ids(s, 2)["deal_in"] == (1.5, 1)
    s = run(record(*BASIC, win_by="self_draw", frm=None))
    assert factor_ids(s, 1)["self_draw"] == (2, 1)


def test_big_hand_accumulation() -> None:
    multiply, add = get_rules("yuanhang"), get_rules("laizishanzhuang")
    assert [big_hand_base(h, multiply) for h in ((), ("qingyise",), ("a", "b"), ("a", "b", "c"))] \
        == [1, 10, 20, 40]
    assert [big_hand_base(h, add) for h in ((), ("qingyise",), ("a", "b"), ("a", "b", "c"))] \
        == [1, 10, 20, 30]


# --- profiles, tiles, records ---------------------------------------------------------

def test_laizi_cycles() -> None:
    y, z = get_rules("yuanhang"), get_rules("laizishanzhuang")
    pairs = {"5m": "6m", "9m": "1m", "9s": "1s", "1z": "2z", "4z": "6z", "7z": "6z", "6z": "5z",
             "5z": "1z"}
    for ind, lz in pairs.items():
        assert y.laizi_of(parse_tile(ind)) == parse_tile(lz)
    for ind, lz in {"4z": "5z", "7z": "5z", "6z": "5z", "5z": "1z"}.items():
        assert z.laizi_of(parse_tile(ind)) == parse_tile(lz)


def test_option_overrides_are_validated() -> None:
    assert get_rules("yuanhang", {"cap": 500}).cap == 500
    with pytest.raises(RulesError, match="unknown option"):
        get_rules("yuanhang", {"kap": 1})
    with pytest.raises(RulesError, match="must be one of"):
        get_rules("yuanhang", {"opening_scoring": "twice"})
    with pytest.raises(RulesError, match="unknown profile"):
        get_rules("tokyo")


def test_tile_parsing() -> None:
    assert parse_tiles("五万 三筒 七条 东风 红中 发财 白板") == [4, 11, 24, 27, 33, 32, 31]
    with pytest.raises(TileError, match="'0m'"):
        parse_tiles("120m")
    with pytest.raises(TileError, match="'8z'"):
        parse_tiles("18z")


@pytest.mark.parametrize("typed", [
    "１２３ｍ４５６ｐ７７ｚ",  # full-width digits and letters (a Chinese input method's mode)
    "123m，456p；77z",  # full-width comma and semicolon
    "123m、456p、77z",  # the ideographic comma
    "一万 二万 三万\u3000456p 中 中",  # the ideographic space
])
def test_tiles_typed_in_a_chinese_input_method(typed: str) -> None:
    """People at a real table type hands on phones: a Chinese input method in full-width
    mode gives ``１２３ｍ`` and ``，``, which were "not a tile"."""
    assert parse_tiles(typed) == parse_tiles("123m456p77z")


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda r: r.update(winner=4), "out of range"),
    (lambda r: r.update(winning_tile="5x"), "not a tile"),
    (lambda r: r["seats"][1].update(hand="456p678s"), "wrong hand size"),
    (lambda r: r["seats"][3].update(melds=[meld("peng:555m", 3)]), "more than four copies"),
    (lambda r: r.update(profile="tokyo"), "unknown profile"),
    (lambda r: r.update(options={"cap": -3}), "non-negative"),
    (lambda r: r.update(win_by="tsumo"), "win_by"),
    (lambda r: r["seats"][1]["melds"].__setitem__(0, meld("chi:234m", 3)), "chi"),
    (lambda r: r.pop("from"), "'from'"),
    # 杠上花 needs a kong by the winner (the helper gives him two 红中杠)
    (lambda r: (r.update(win_by="kong_bloom"), r.pop("from"), r["seats"][1].pop("kongs")),
     "needs a kong"),
    # the face-up indicator leaves three copies for 癞子皮杠
    (lambda r: r.update(profile="bianfeng", options={"opening_scoring": "per_opening"},
                        seats=[{"kongs": {"pi": 2}}, r["seats"][1], {"kongs": {"pi": 2}}, {}]),
     "only three copies"),
])
def test_malformed_records(mutate: Any, message: str) -> None:
    rec = record(*BASIC)
    mutate(rec)
    with pytest.raises(RecordError, match=message):
        parse_win_record(rec)


QQR = ("5p", "5p", ["chi:234m", "peng:777s", "chi:456m", "peng:111z"])


def test_quanqiuren_contract_yuanhang_on_a_jiang_discard() -> None:
    s = run(record(*QQR))
    assert s.hands == ("quanqiuren",)
    assert s.contractor == 2 and s.contract_reason == "quanqiuren_jiang"
    assert s.deltas[0] == s.deltas[3] == 0 and sum(s.deltas) == 0


def test_quanqiuren_contract_bianfeng_only_when_the_discarder_was_not_ready() -> None:
    s = run(record(*QQR, profile="bianfeng"))
    assert s.contractor == 2 and s.contract_reason == "quanqiuren_not_ready"
    s = run(record(*QQR, profile="bianfeng", others={2: {"ready": True}}))
    assert s.contractor is None
    # readiness computed from the discarder's hand after his discard: ready on 5s / 8s
    ready_hand = {"hand": "123m456m789p67s22s"}
    s = run(record(*QQR, profile="bianfeng", others={2: {**ready_hand, "melds": []}}))
    assert s.contractor == 2  # a good shape, but he has not opened, so he is not ready
    opened = {"hand": "456m789p67s22s", "melds": [meld("peng:333z", 2)]}
    s = run(record(*QQR, profile="bianfeng", others={2: opened}))
    assert s.contractor is None


def test_overrides_round_trip_and_reach_the_seat_view() -> None:
    import random

    from wuhan_mahjong.engine import new_hand, seat_view

    r = get_rules("bianfeng", {"opening_scoring": "per_opening", "cap": 500})
    assert r.overrides() == {"opening_scoring": "per_opening", "cap": 500}
    assert get_rules(r.profile, r.overrides()) == r
    assert get_rules("yuanhang").overrides() == {}
    view = seat_view(new_hand(r, dealer=0, rng=random.Random(1)), 0)
    assert view["profile"] == "bianfeng" and view["options"] == r.overrides()


def _refused_record(hand: str, winning: str, *, melds: tuple[str, ...] = ("chi:234m",),
                    win_by: str = "discard", profile: str = "yuanhang",
                    indicator: str = "9p") -> str:
    """The code of why seat 1's win on ``winning`` (from seat 2) is refused."""
    rec = {"profile": profile, "dealer": 0, "indicator": indicator, "winner": 1,
           "win_by": win_by, "winning_tile": winning,
           "seats": [{}, {"hand": hand, "melds": [meld(m) for m in melds]}, {}, {}]}
    if win_by == "discard":
        rec["from"] = 2
    with pytest.raises(NotAWin) as refused:
        settle(parse_win_record(rec))
    assert str(refused.value) == refused.value.refusal  # the sentence is the refusal
    return refused.value.refusal.code


def _direct_refusals() -> dict[str, str]:
    """The refusals a valid record cannot reach (its validation refuses first)."""
    from dataclasses import replace

    from wuhan_mahjong.analysis import eligibility_error
    from wuhan_mahjong.meld import Meld
    from wuhan_mahjong.win_record import SeatState, WinRecord

    r = get_rules("yuanhang")
    out = {}
    with pytest.raises(NotAWin) as count:
        readings(parse_tiles("456p678s55m99s"), [], parse_tile("1p"), r)
    out["tile_count"] = count.value.refusal.code
    chi = Meld("chi", tuple(parse_tiles("234m")), 0)
    robbed = eligibility_error(parse_tiles("456p678s55m99s"), [chi], parse_tile("1p"), r,
                               "rob_kong", 33)
    assert robbed is not None
    out["robbed_must_kong"] = robbed.code
    seats = [SeatState(), SeatState(tuple(parse_tiles("456p678s55m99s")), (chi,)),
             SeatState(), SeatState()]
    rec = WinRecord(r, 0, parse_tile("9p"), 1, "rob_kong", 2, parse_tile("9s"), tuple(seats))
    with pytest.raises(NotAWin) as no_peng:  # seat 2 holds no peng of 9s to add a kong to
        settle(replace(rec, rules=r))
    out["no_peng_to_rob"] = no_peng.value.refusal.code
    return out


REFUSALS = {  # code: a refused win of seat 1 (opened by a chi of 234m unless it says)
    "not_opened": lambda: _refused_record("456p678s5m123m99s9s", "5m", melds=()),
    "holds_must_kong": lambda: _refused_record("456p678s999s7z", "5m"),
    "discarded_laizi": lambda: _refused_record("456p678s55m9s9s", "1p"),
    "pair_258": lambda: _refused_record("456p678s111m9s", "9s"),
    "no_shape": lambda: _refused_record("13579p2468s1z", "5m"),
    # two laizi (1p under the 9p indicator) as wilds in a small hand; 远航 allows one
    "laizi_limit": lambda: _refused_record("456p678s5m7s1p1p", "5m"),
    # 远航: one loser must owe 20; a small hand opened once, from a discard, owes less
    "minimum_one_loser": lambda: _refused_record("456p789s55m34s", "2s", melds=("chi:123m",)),
    # 边锋: every loser must owe 8 (docs/score.md's record: seat 3 owes 4)
    "minimum_every_loser": lambda: _refused_every_loser(),
}


def _refused_every_loser() -> str:
    rec = {"profile": "bianfeng", "dealer": 0, "indicator": "9p", "winner": 1,
           "win_by": "discard", "from": 2, "winning_tile": "5m",
           "seats": [{}, {"hand": "456p678s5m",
                          "melds": [{"type": "chi", "tiles": "234m", "from": 0},
                                    {"type": "peng", "tiles": "777s", "from": 3}]},
                     {"melds": [{"type": "kong", "kind": "direct", "tiles": "8888p", "from": 0}],
                      "kongs": {"red": 1}, "laizi_discards": 1}, {"ready": False}]}
    with pytest.raises(NotAWin) as refused:
        settle(parse_win_record(rec))
    return refused.value.refusal.code


@pytest.mark.parametrize("code", sorted(REFUSALS))
def test_every_refusal_has_its_code(code: str) -> None:
    """Why a hand may not win carries a code and its parameters, which the browser's
    calculator translates: it showed the core's English sentence in the Chinese page."""
    assert REFUSALS[code]() == code


def test_the_refusal_codes_are_all_reached() -> None:
    from wuhan_mahjong.analysis import REFUSAL_CODES

    direct = _direct_refusals()
    assert {k: v for k, v in direct.items() if k != v} == {}
    assert sorted(REFUSAL_CODES) == sorted([*REFUSALS, *direct])
