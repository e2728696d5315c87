"""More hand-worked engine scenarios, each worked out from docs/RULES.md before it was run.

Every scenario scripts a wall (``engine_helpers.scenario``) and plays a hand; the comments
give the hand-worked reasoning: who may do what at each point, and the settlement
(payment(L) = base x M(W) x M(L), docs/RULES.md §17.2).  Seats 0-3, the default indicator 3z
makes the laizi 4z in every profile (§5: 西 -> 北); 7z is 红中, 6z 发财, 5z 白板.
"""

from __future__ import annotations

import dataclasses

import pytest
from engine_helpers import SALT, play, scenario, t

from wuhan_mahjong.engine import (
    PASS,
    WIN,
    Chi,
    Discard,
    HandState,
    IllegalAction,
    Kong,
    LaiziDiscard,
    Match,
    Peng,
    SpecialKong,
)
from wuhan_mahjong.engine.dealing import arrange_wall
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tiles


def dealt(hands: dict[int, str], *, indicator: str = "3z", draws: str = "", repl: str = "",
          dealer: int = 0, profile: str = "yuanhang", **options: object) -> HandState:
    """A hand from four fully written hands (no filler), for tables too crowded for it."""
    end_phase_wall = options.pop("end_phase_wall", None)  # beyond the option's range: as scenario()
    rules = get_rules(profile, options)
    if end_phase_wall is not None:
        rules = dataclasses.replace(rules, end_phase_wall=end_phase_wall)
    full = [parse_tiles(hands[s]) for s in range(4)]
    assert [len(h) for h in full] == [14 if s == dealer else 13 for s in range(4)]
    wall = arrange_wall(dealer, full, t(indicator), parse_tiles(draws), parse_tiles(repl))
    return HandState(rules, dealer, wall, SALT, auto_pass=True)


def _result(st: HandState) -> tuple[object, ...]:
    r = st.result
    assert r is not None and r.outcome == "win", st.result
    assert sum(r.deltas) == 0
    return (r.winner, r.win_by, r.from_seat, r.deltas)


def _hands(st: HandState) -> tuple[str, ...]:
    r = st.result
    assert r is not None and r.settlement is not None
    return tuple(r.settlement.hands)


# ====================================================================== claim priority
# Seat 1 pengs the dealer's 5m (drops 1z) and seat 2's 7m (drops 9s): concealed 34s 678p 22p,
# waiting on 2s / 5s.  Seat 3 holds 5s5s5s.  The dealer draws 6z and discards 5s.
PRIO = {0: "5m5s1m1m3p3p1s1s2s2s8m8m4p9p", 1: "5m5m7m7m34s678p2p2p1z9s",
        2: "7m3m3m4p4p6s6s1p1p9p9p4m8m", 3: "5s5s5s1m2m2m3p5p5p7s7s8s6m"}


def _prio(profile: str = "yuanhang") -> HandState:
    st = scenario(PRIO, draws="2z5z5z6z", repl="9m", profile=profile)
    play(st, "0 discard 5m")
    assert st.legal_actions(1) == (Peng(t("5m")), PASS)
    play(st, "1 peng", "1 discard 1z", "2 discard 7m")
    assert st.legal_actions(1) == (Peng(t("7m")), PASS)  # seat 3 is next: no chi there
    play(st, "1 peng", "1 discard 9s", "2 discard 5z", "3 discard 5z", "0 discard 5s")
    # seat 1: the win, or the chi 345s (he is the dealer's next player); seat 3: peng or 冲杠
    assert st.legal_actions(1) == (WIN, Chi(t("3s")), PASS)
    assert st.legal_actions(3) == (Peng(t("5s")), Kong("direct", t("5s")), PASS)
    return st


def test_win_beats_a_direct_kong_on_the_same_discard() -> None:
    # 口口翻: M(1) = 2 x 2 (two pengs) x 2 (硬胡) = 8; the dealer's M = dealer 2 x 放冲 2 = 4:
    # 8 x 4 = 32 >= 20, so the win stands; seats 2 and 3 pay 8 each.
    st = _prio()
    play(st, "3 kong direct", "1 win")
    assert _result(st) == (1, "discard", 0, (-32, 48, -8, -8))
    assert st.melds[3] == [] and st.rivers[0][-1] == [t("5s"), 1, 0]


def test_direct_kong_beats_the_next_players_chi() -> None:
    # win > peng = 冲杠 > chi (decision 7): seat 1 asks for the chi, seat 3's 冲杠 takes it
    st = _prio()
    play(st, "1 chi 3s", "3 kong direct")
    assert st.result is None and st.melds[3] == [Meld("kong", (t("5s"),) * 4, 0, "direct")]
    assert len(st.melds[1]) == 2  # the chi never happened
    assert st.current == 3 and st.drawn == t("9m") and st.draw_source == "replacement"


def test_bianfeng_refuses_the_same_win_and_the_chi_goes_through() -> None:
    # 开口翻: M(1) = opened 2 x 硬胡 2 = 4; the dealer owes 4 x 4 = 16 < 20 and seats 2, 3 owe
    # 4 < 8: no win offered.  Seat 3 passes, so seat 1's chi stands (chi after pass).
    st = scenario(PRIO, draws="2z5z5z6z", repl="9m", profile="bianfeng")
    play(st, "0 discard 5m", "1 peng", "1 discard 1z", "2 discard 7m", "1 peng", "1 discard 9s",
         "2 discard 5z", "3 discard 5z", "0 discard 5s")
    assert st.legal_actions(1) == (Chi(t("3s")), PASS)
    with pytest.raises(IllegalAction, match="minimum score"):
        st.apply(1, WIN)
    play(st, "1 chi 3s", "3 pass")
    assert st.melds[1][-1] == Meld("chi", (t("3s"), t("4s"), t("5s")), 0)
    assert st.current == 1 and st.phase == "turn" and st.drawn is None


# ---------------------------------------------------------------------- 一炮单响, three winners
# laizishanzhuang (no minimum).  The dealer 0 pengs 5z (waits 4s6s), seat 1 pengs 1z (34s),
# seat 3 pengs 2z (67s); seat 2 then discards 5s, which all three win on.
THREE = {0: "1z5z5z9s46s234p88m678m", 1: "1z1z2z34s678p234m5p5p", 2: "5s1m1m9m9m1p1p9p9p1s1s8s7s",
         3: "2z2z5z67s345p234m2s2s"}


def _three(**opts: object) -> HandState:
    st = scenario(THREE, draws="3z3z", profile="laizishanzhuang", **opts)  # type: ignore[arg-type]
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "3 peng", "3 discard 5z", "0 peng",
         "0 discard 9s", "1 discard 3z", "2 discard 5s")
    assert st.legal_actions(0) == (WIN, PASS)
    assert st.legal_actions(1) == (WIN, PASS)
    assert st.legal_actions(3) == (WIN, Chi(t("5s")), PASS)
    return st


def test_three_winners_the_dealer_first() -> None:
    # from the dealer: 0, 1, 3.  M(0) = opened 2 x 硬胡 2 x dealer 2 = 8; every loser has M 2
    # (seats 1, 3 opened, seat 2 放冲): 16 each.
    st = _three()
    play(st, "3 win", "1 win")
    assert st.phase == "claim"  # the dealer has not answered: nothing is decided yet
    play(st, "0 win")
    assert _result(st) == (0, "discard", 2, (48, -16, -16, -16))
    assert st.hand_size(1) == 10 and st.hand_size(3) == 10


def test_three_winners_the_dealer_passes() -> None:
    # seat 1 is next in order: M(1) = 4; dealer 2 x opened 2 = 4 -> 16, seats 2, 3: 8
    st = _three()
    play(st, "0 pass", "3 win", "1 win")
    assert _result(st) == (1, "discard", 2, (-16, 32, -8, -8))


def test_three_winners_counting_from_the_discarder() -> None:
    # winner_order from_discarder: 3, 0, 1 -> seat 3; M(3) = 4; dealer 4 -> 16, seats 1, 2: 8
    st = _three(winner_order="from_discarder")
    play(st, "0 win", "1 win", "3 win")
    assert _result(st) == (3, "discard", 2, (-16, -8, -8, 32))


# ====================================================================== 抢杠: several robbers
# Seat 1 pengs the dealer's 1z (waits 2s/5s on 34s, pair 5p); seat 3 pengs seat 1's 2z (waits
# 5s/8s on 67s, pair 2s); seat 2 pengs the dealer's 5s and later draws the fourth 5s.  Neither
# seat 1 nor seat 3 may win on the dealer's 5s itself: a small hand, the dealer owes 4 x 4 = 16
# and the others less (yuanhang), so seat 1 is offered only the chi.
ROBBERS = {0: "1z5s1s1s2p2p8m8m3m7m9s9s1m5m", 1: "1z1z2z34s678p234m5p5p",
           2: "5s5s9m1m1m1p1p9p9p7s7s8s8m", 3: "2z2z5z67s345p234m2s2s"}


def _robbers(profile: str = "yuanhang") -> HandState:
    st = scenario(ROBBERS, draws="3z3z3z7p5s", repl="9s", profile=profile)
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "3 peng", "3 discard 5z", "0 discard 5s")
    assert st.legal_actions(2) == (Peng(t("5s")), PASS)
    if profile == "yuanhang":
        assert st.legal_actions(1) == (Chi(t("3s")), PASS)
        play(st, "1 pass", "2 peng")
    else:  # no minimum in laizishanzhuang: both small hands may win on it; they let it go
        assert st.legal_actions(1) == (WIN, Chi(t("3s")), PASS)
        assert st.legal_actions(3) == (WIN, PASS)
        play(st, "1 pass", "3 pass", "2 peng")
    play(st, "2 discard 9m", "3 discard 3z", "0 discard 3z", "1 discard 7p")
    assert st.current == 2 and st.drawn == t("5s")
    assert Kong("added", t("5s")) in st.legal_actions(2)
    play(st, "2 kong added 5s")
    assert st.phase == "rob"
    assert st.legal_actions(1) == (WIN, PASS) and st.legal_actions(3) == (WIN, PASS)
    return st


def test_two_robbers_the_first_from_the_dealer_takes_the_konger_bloom() -> None:
    # yuanhang (杠进杠出): the konger's imagined 杠开, base 10, M(2) = opening 2 x 蓄杠 2 x
    # self-draw 1.5 x 硬胡 2 = 12; seat 0 (M 1, dealer ignored) 120, seats 1, 3 (opened) 240
    # each: 600, under the 400 cap per share; the konger pays it all to seat 1 (first from 0).
    st = _robbers()
    play(st, "3 win", "1 win")
    assert _result(st) == (1, "rob_kong", 2, (0, 600, -600, 0))
    assert _hands(st) == ("qiangganghu",)
    assert st.melds[2][-1] == Meld("peng", (t("5s"),) * 3, 0)


def test_two_robbers_the_first_passes_the_second_robs() -> None:
    st = _robbers()
    play(st, "1 pass", "3 win")
    assert _result(st) == (3, "rob_kong", 2, (0, 0, -600, 600))


def test_both_robbers_pass_the_kong_completes_and_a_robber_may_win_later() -> None:
    # no lock after passing a 抢杠 (Amb. 38): the konger's replacement 6z, discarded, is no win
    # for anyone; seat 3 then draws 8s himself and wins on it (small hand, self-draw):
    # M(3) = opened 2 x 硬胡 2 x 自摸 2 = 8; seat 0 dealer 2 -> 16, seat 1 opened 2 -> 16,
    # seat 2 opened 2 x 蓄杠 2 = 4 -> 32 >= 20.
    st = scenario(ROBBERS, draws="3z3z3z7p5s8s", repl="6z")
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "3 peng", "3 discard 5z", "0 discard 5s",
         "1 pass", "2 peng", "2 discard 9m", "3 discard 3z", "0 discard 3z", "1 discard 7p",
         "2 kong added 5s", "1 pass", "3 pass")
    assert st.melds[2][-1] == Meld("kong", (t("5s"),) * 4, 0, "added")
    assert st.current == 2 and st.drawn == t("6z")
    play(st, "2 discard 6z")
    assert st.current == 3 and st.drawn == t("8s") and st.legal_actions(3)[0] == WIN
    play(st, "3 win")
    assert _result(st) == (3, "self_draw", None, (-16, -16, -32, 64))


def test_laizishanzhuang_robber_settles_his_own_hand() -> None:
    # robber_hand: 抢杠 is seat 1's big hand (base 10, pair 5p is a 将 as laizishanzhuang asks);
    # M(1) = opened 2 x 硬胡 2 = 4; seat 0: 1 -> 40, seat 2 (peng, the kong never formed) 2
    # -> 80, seat 3 opened 2 -> 80: 200, all paid by the robbed seat 2, no deal-in factor.
    st = _robbers("laizishanzhuang")
    play(st, "1 win", "3 pass")
    assert _result(st) == (1, "rob_kong", 2, (0, 200, -200, 0))
    assert _hands(st) == ("qiangganghu",)


# ====================================================================== what may not be claimed
# Seat 1 pengs the dealer's 1z and waits 碰碰胡 on 9m or 8m (999m? 88m, 222p 555s).
PPH = "1z1z2z9m9m2p2p2p5s5s5s8m8m"


def test_a_pi_kong_is_never_robbed_though_the_discard_would_win() -> None:
    # bianfeng in 口口翻 (癞子皮杠 on); indicator 9m, laizi 1m.  The dealer holds the pi tile 9m.
    st = scenario({0: "1z9m", 1: PPH}, indicator="9m", draws="6z6z6z", repl="5z",
                  profile="bianfeng", opening_scoring="per_opening")
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 6z", "3 discard 6z")
    assert st.current == 0 and SpecialKong("pi") in st.legal_actions(0)
    discard = st.copy()
    # discarded normally the 9m is a win for seat 1 (碰碰胡 beats both minimums: base 10,
    # M(1) = 2 x 2 = 4, the dealer 放冲 1.5 -> 60, seats 2, 3: 40) or a peng
    play(discard, "0 discard 9m")
    assert discard.legal_actions(1) == (WIN, Peng(t("9m")), PASS)
    play(discard, "1 win")
    assert _result(discard) == (1, "discard", 0, (-60, 140, -40, -40))
    assert _hands(discard) == ("pengpenghu",)
    # played out as the 癞子皮杠 it is a kong nobody may claim or rob: no window
    play(st, "0 pi")
    assert st.phase == "turn" and st.current == 0 and st.drawn == t("5z")
    assert st.specials[0].pi == 1 and st.legal_actions(1) == ()
    assert st.rivers[0] == [[t("1z"), 1, 0]]


def test_laizi_kong_and_laizi_discard_open_no_window_for_a_ready_player() -> None:
    # yuanhang, laizi 4z.  The dealer konges one laizi and throws the other away; seat 1
    # (ready on 9m / 8m) is offered nothing, draws 9m himself and wins 碰碰胡 by self-draw:
    # M(1) = 2 x 硬胡 2 x 自摸 1.5 = 6, base 10: seats 2, 3 pay 60; the dealer's own factors
    # (癞子杠 x4, 丢癞子 x2: M 8) make 480, capped at 300.
    st = scenario({0: "1z4z4z", 1: PPH}, draws="6z6z6z9m", repl="5z")
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 6z", "3 discard 6z", "0 laizi")
    assert st.phase == "turn" and st.current == 0 and st.legal_actions(1) == ()
    assert LaiziDiscard() in st.legal_actions(0) and Discard(t("4z")) not in st.legal_actions(0)
    play(st, "0 laizi-discard")
    assert st.phase == "turn" and st.current == 1 and st.drawn == t("9m")
    assert st.rivers[0][-1] == [t("4z"), -1, 1]
    play(st, "1 win")
    assert _result(st) == (1, "self_draw", None, (-300, 420, -60, -60))


# ====================================================================== 杠上开花, the replacement draw
# Seat 1 pengs the dealer's 1z and drops 2z; his 222p 34p 678s 88m waits on 2p, 5p or 8m.
KONG_WAITS = {0: "1z", 1: "1z1z2z2p2p2p3p4p6s7s8s8m8m"}


def _kong_waits(repl: str) -> HandState:
    st = scenario(KONG_WAITS, draws="5z5z5z2p", repl=repl, profile="laizishanzhuang")
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 5z", "3 discard 5z",
         "0 discard 5z")
    assert st.current == 1 and st.drawn == t("2p")
    acts = st.legal_actions(1)
    # 222p 234p 678s 88m is a win (no minimum in laizishanzhuang), and the 暗杠 of 2p is legal
    assert acts[0] == WIN and Kong("concealed", t("2p")) in acts
    return st


def test_self_draw_small_hand_instead_of_the_kong() -> None:
    # M(1) = opened 2 x 硬胡 2 x 自摸 2 = 8: seats 2, 3 pay 8, the dealer (x2) 16
    st = _kong_waits("5p")
    play(st, "1 win")
    assert _result(st) == (1, "self_draw", None, (-16, 32, -8, -8))


def test_concealed_kong_changes_the_waits_then_kong_bloom() -> None:
    # after 2222p the hand 34p 678s 88m waits on 2p/5p only (no 2p is left): the replacement
    # 5p wins 杠上花 (pair 8m, the 将 laizishanzhuang asks); M(1) = opened 2 x 暗杠 4 x 硬胡 2
    # x 自摸 1.5 = 24, base 10, every loser M 1 (dealer ignored): 240 each.
    st = _kong_waits("5p")
    play(st, "1 kong concealed 2p")
    assert st.drawn == t("5p") and st.draw_source == "replacement"
    assert st.legal_actions(1)[0] == WIN
    play(st, "1 win")
    assert _result(st) == (1, "kong_bloom", None, (-240, 720, -240, -240))
    assert _hands(st) == ("gangshanghua",)


def test_concealed_kong_loses_the_8m_wait() -> None:
    # before the kong 8m completed 22p 234p 678s 888m; after it, 34p 678s 88m 8m does not
    st = _kong_waits("8m")
    play(st, "1 kong concealed 2p")
    assert st.drawn == t("8m") and WIN not in st.legal_actions(1)


# Seat 1 pengs 1z, drops 2z and waits on 1s alone (234p 678s 456m 1s); he then draws 红中.
SINGLE_1S = {0: "1z2m2m8p8p9s9s3m3m9m9m1p1p5p", 1: "1z1z2z234p678s456m1s",
             2: "1m1m7m7m2p9p9p3s3s4s7p7p6p", 3: "8m8m2s5s5s4p5p9p6m4m1m1p9s"}


def test_red_kong_bloom_without_a_258_pair_yuanhang() -> None:
    # 杠上花 needs no 将 in yuanhang (decision 9): pair 1s wins; M(1) = opening 2 x 红中杠 2 x
    # 硬胡 2 x 自摸 1.5 = 12, base 10: 120 from each loser
    st = dealt(SINGLE_1S, draws="5z5z5z7z", repl="1s")
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 5z", "3 discard 5z",
         "0 discard 5z")
    assert st.drawn == t("7z") and SpecialKong("red") in st.legal_actions(1)
    assert Discard(t("7z")) not in st.legal_actions(1)
    play(st, "1 red")
    assert st.legal_actions(1)[0] == WIN
    play(st, "1 win")
    assert _result(st) == (1, "kong_bloom", None, (-120, 360, -120, -120))


def test_red_kong_bloom_without_a_258_pair_refused_in_laizishanzhuang() -> None:
    st = dealt(SINGLE_1S, draws="5z5z5z7z", repl="1s", profile="laizishanzhuang")
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 5z", "3 discard 5z",
         "0 discard 5z", "1 red")
    assert st.drawn == t("1s") and WIN not in st.legal_actions(1)
    with pytest.raises(IllegalAction):
        st.apply(1, WIN)
    play(st, "1 discard 1s")  # the hand goes on
    assert st.current == 2


def test_a_wall_draw_of_the_same_1s_is_no_win_anywhere() -> None:
    # without the kong it is a small hand, whose pair must be 2/5/8 in every profile
    for profile in ("yuanhang", "bianfeng", "laizishanzhuang"):
        st = dealt(SINGLE_1S, draws="5z5z5z1s", profile=profile)
        play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 5z", "3 discard 5z",
             "0 discard 5z")
        assert st.drawn == t("1s") and WIN not in st.legal_actions(1), profile


def test_two_laizi_no_small_win_then_laizi_kong_bloom() -> None:
    # yuanhang, laizi 4z.  Seat 1: 234p 678p 23s 4z4z after his peng; the drawn 5m completes
    # only with both laizi (23s+L, 5m+L): a small hand holds one laizi at most (decision 12),
    # so no win.  He konges a laizi (癞子杠 x4) and the replacement 5m wins 杠上花 with one
    # laizi standing in (soft): M(1) = opening 2 x 4 x 自摸 1.5 = 12, 120 from each loser.
    st = scenario({0: "1z1m1m9m9m1p1p9p9p", 1: "1z1z2z234p678p2s3s4z4z"}, draws="5z5z5z5m", repl="5m")
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 5z", "3 discard 5z",
         "0 discard 5z")
    acts = st.legal_actions(1)
    assert st.drawn == t("5m") and WIN not in acts
    assert SpecialKong("laizi") in acts and LaiziDiscard() in acts
    with pytest.raises(IllegalAction, match="laizi"):
        st.apply(1, WIN)
    play(st, "1 laizi")
    assert st.drawn == t("5m") and st.legal_actions(1)[0] == WIN
    play(st, "1 win")
    assert _result(st) == (1, "kong_bloom", None, (-120, 360, -120, -120))
    r = st.result
    assert r is not None and r.settlement is not None


# ====================================================================== the minimum score, per profile
# Seat 1 pengs the dealer's 1z and waits on 2s/5s (234p 678s 55m 34s).  With RED he plays his
# 红中 out straight after the peng (replacement 9p, discarded); without it he drops 9m.  Later
# he draws 5s: a hard small hand by self-draw.
_OTHERS = {0: "1z1m1m9s9s2z2z3m3m1p1p5p6m8m", 2: "2m2m4m4m7m2s2s6p6p3z9s1s5p",
           3: "8s8s1s7p7p8p3z2z6m8m9m5m1p"}
RED = {**_OTHERS, 1: "1z1z234p678s5m5m3s4s7z"}
NO_RED = {**_OTHERS, 1: "1z1z234p678s5m5m3s4s9m"}


@pytest.mark.parametrize(("profile", "red", "deltas"), [
    # M(1) = opened 2 x 红中杠 2 x 硬胡 2 x 自摸 2 = 16: the dealer (x2) owes 32 >= 20, the
    # others 16 >= 8: a win in every profile
    ("yuanhang", True, (-32, 64, -16, -16)),
    ("bianfeng", True, (-32, 64, -16, -16)),
    ("laizishanzhuang", True, (-32, 64, -16, -16)),
    # M(1) = 8: the dealer owes 16 < 20: refused in yuanhang and bianfeng, not in laizishanzhuang
    ("yuanhang", False, None),
    ("bianfeng", False, None),
    ("laizishanzhuang", False, (-16, 32, -8, -8)),
])
def test_minimum_score_with_and_without_a_red_kong(
        profile: str, red: bool, deltas: tuple[int, ...] | None) -> None:
    st = dealt(RED if red else NO_RED, draws="5z5z5z5s", repl="9p", profile=profile)
    play(st, "0 discard 1z", "1 peng")
    if red:
        assert SpecialKong("red") in st.legal_actions(1)
        play(st, "1 red", "1 discard 9p")
    else:
        play(st, "1 discard 9m")
    play(st, "2 discard 5z", "3 discard 5z", "0 discard 5z")
    assert st.current == 1 and st.drawn == t("5s")
    if deltas is None:
        assert WIN not in st.legal_actions(1)
        with pytest.raises(IllegalAction, match="minimum score"):
            st.apply(1, WIN)
    else:
        assert st.legal_actions(1)[0] == WIN
        play(st, "1 win")
        assert _result(st) == (1, "self_draw", None, deltas)


def test_258_pair_decides_which_of_two_waits_wins() -> None:
    # laizishanzhuang (no minimum): seat 1 holds 234p 678s 33s 55m after pengging 1z.  On 5m
    # the pair would be 3s (no 将): only the peng is offered.  On 3s the pair is 5m: a win,
    # M(1) = opened 2 x 硬胡 2 = 4; seat 2 放冲 2 -> 8, the dealer 2 -> 8, seat 3 -> 4.
    st = dealt({0: "1z1m1m9m9m1p1p9p9p9s9s8m8p5p", 1: "1z1z2z234p678s3s3s5m5m",
                2: "5m3s2m2m7m7m4p4p6p6p1s8s7p", 3: "3m8m2p3p5s5s9s7s2s5p8p1p9p"},
               draws="5z5z5z3z3z",
                  profile="laizishanzhuang")
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 5m")
    assert st.legal_actions(1) == (Peng(t("5m")), PASS)
    play(st, "1 pass", "3 discard 5z", "0 discard 5z", "1 discard 3z", "2 discard 3s")
    assert st.legal_actions(1) == (WIN, Peng(t("3s")), PASS)
    play(st, "1 win")
    assert _result(st) == (1, "discard", 2, (-8, 20, -8, -4))


# ====================================================================== kongs: timing and the end
def test_added_kong_straight_after_another_peng() -> None:
    # seat 1 pengs 5z, later draws the fourth 5z and keeps it; after pengging 1z he may add
    # the 5z to its peng in that same turn (kongs in any own turn, also after a claim).  The
    # added kong opens nothing: still two openings.
    st = scenario({0: "5z", 1: "5z5z1z1z9m9p", 2: "1z"}, draws="6z6z6z5z3z", repl="6z")
    play(st, "0 discard 5z", "1 peng", "1 discard 9m", "2 discard 6z", "3 discard 6z",
         "0 discard 6z")
    assert st.drawn == t("5z") and Kong("added", t("5z")) in st.legal_actions(1)
    play(st, "1 discard 9p", "2 discard 1z", "1 peng")
    assert st.current == 1 and st.drawn is None
    assert Kong("added", t("5z")) in st.legal_actions(1)
    play(st, "1 kong added 5z")  # nobody can rob: the window closes at once
    assert st.melds[1] == [Meld("kong", (t("5z"),) * 4, 0, "added"), Meld("peng", (t("1z"),) * 3, 2)]
    assert st.openings[1] == 2 and st.drawn == t("6z") and st.draw_source == "replacement"


def _kong_at_the_edge(end_phase_wall: int) -> HandState:
    # the dealer's 1z goes unclaimed; seat 1 draws and drops 5z (live 81); seat 2 draws his
    # fourth 9p (live 80)
    st = scenario({0: "1z", 2: "9p9p9p"}, draws="5z9p5z5z2z2z", repl="6z",
                  end_phase_wall=end_phase_wall)
    play(st, "0 discard 1z", "1 discard 5z")
    assert st.current == 2 and st.drawn == t("9p") and st.live == 80
    return st


def test_a_kong_just_before_the_end_phase_its_replacement_starts_it() -> None:
    st = _kong_at_the_edge(79)
    assert not st.end_phase and Kong("concealed", t("9p")) in st.legal_actions(2)
    play(st, "2 kong concealed 9p")
    assert st.live == 79 and st.end_phase and ("end_phase", 79) in st.log
    assert st.current == 2 and st.drawn == t("6z")
    assert all(isinstance(a, Discard) for a in st.legal_actions(2))  # no kong any more
    play(st, "2 discard 6z")  # unclaimed: four final draws from seat 3, then 荒庄
    finals = [e[1] for e in st.log if e[0] == "draw" and e[3] == "final"]
    assert finals == [3, 0, 1, 2] and st.live == 75
    r = st.result
    assert r is not None and r.outcome == "exhausted" and r.deltas == (0, 0, 0, 0)


def test_no_kong_on_the_draw_that_starts_the_end_phase() -> None:
    st = _kong_at_the_edge(80)
    assert st.end_phase and Kong("concealed", t("9p")) not in st.legal_actions(2)
    with pytest.raises(IllegalAction, match="end phase"):
        st.apply(2, Kong("concealed", t("9p")))


# ====================================================================== 海底
@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
def test_last_tile_win_and_the_258_pair(profile: str) -> None:
    # the end phase from the deal: seat 1 pengs the dealer's 1z and drops 2z; unclaimed, the
    # four final draws go 2, 3, 0, 1, and seat 1's is his 1s (pair 1s, no 将).  海底捞 needs no
    # 将 in yuanhang / bianfeng: M(1) = opened 2 x 硬胡 2 x 自摸 1.5 = 6, base 10, 60 each.
    # laizishanzhuang asks a 将 (decision 9): only a pass, and the hand is a 荒庄.
    st = dealt(SINGLE_1S, draws="5z5z5z1s", profile=profile, end_phase_wall=82)
    assert st.end_phase
    play(st, "0 discard 1z", "1 peng", "1 discard 2z")
    finals = [e[1] for e in st.log if e[0] == "draw" and e[3] == "final"]
    assert finals[:3] == [2, 3, 0]
    if profile == "laizishanzhuang":
        r = st.result
        assert r is not None and r.outcome == "exhausted" and finals == [2, 3, 0, 1]
        return
    assert st.phase == "final" and st.current == 1 and st.drawn == t("1s")
    assert st.legal_actions(1) == (WIN, PASS)
    play(st, "1 win")
    assert _result(st) == (1, "last_tile", None, (-60, 180, -60, -60))
    assert _hands(st) == ("haidilao",)


# ====================================================================== 发财 in laizishanzhuang
def test_green_kong_bloom_in_laizishanzhuang() -> None:
    # 发财 is a must-kong tile there: drawn, it cannot be discarded, only played out as the
    # 发财杠 (x2); the replacement 5s completes 234p 678s 456m 55s, a 杠上花 with a 将:
    # M(1) = opened 2 x 发财杠 2 x 硬胡 2 x 自摸 1.5 = 12, base 10: 120 from each loser.
    hands = {**SINGLE_1S, 1: "1z1z2z234p678s456m5s"}
    st = dealt(hands, draws="5z5z5z6z", repl="5s", profile="laizishanzhuang")
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 5z", "3 discard 5z",
         "0 discard 5z")
    acts = st.legal_actions(1)
    assert st.drawn == t("6z") and SpecialKong("green") in acts and Discard(t("6z")) not in acts
    assert WIN not in acts
    play(st, "1 green")
    assert st.specials[1].green == 1 and st.drawn == t("5s") and st.legal_actions(1)[0] == WIN
    play(st, "1 win")
    assert _result(st) == (1, "kong_bloom", None, (-120, 360, -120, -120))


# ====================================================================== Match: deal rotation, escapes
def test_match_draw_then_a_non_dealer_win_then_a_dealer_win() -> None:
    # yuanhang with the end phase from the deal, first dealer 1.
    # hand 0: the dealer's 1z goes unclaimed, four final draws, 荒庄: seat 1 keeps the deal.
    # hand 1: seat 2 pengs the dealer's 1z, drops 2z, and wins 海底捞 on 5s (234p 678s 456m 55s):
    #   M(2) = opening 2 x 硬胡 2 x 自摸 1.5 = 6, base 10: 60 from each; the deal goes to seat 2.
    # hand 2: dealer 2 drops 2z, seat 3 pengs it and drops 1z, the dealer pengs that, drops 9m
    #   and wins 海底捞 on 5s: 60 from seats 0 and 1, 120 from seat 3 (opened): he keeps the deal.
    rules = dataclasses.replace(get_rules("yuanhang"), end_phase_wall=82)
    walls = [
        scenario({1: "1z"}, dealer=1, draws="5z5z5z5z").wall,
        scenario({1: "1z", 2: "1z1z2z234p678s456m5s"}, dealer=1, draws="5z5z5z5s").wall,
        scenario({2: "2z1z1z234p678s456m5s9m", 3: "2z2z1z"}, dealer=2, draws="5z5z5z5s").wall,
    ]
    m = Match(rules, 3, walls=walls, first_dealer=1, auto_pass=True)
    hand = m.start_hand()
    m.apply(1, Discard(t("1z")))
    assert hand.result is not None and hand.result.outcome == "exhausted" and m.dealer == 1
    hand = m.start_hand()
    assert hand.dealer == 1
    m.apply(1, Discard(t("1z")))
    m.apply(2, Peng(t("1z")))
    m.apply(2, Discard(t("2z")))
    assert hand.phase == "final" and hand.current == 2 and hand.legal_actions(2) == (WIN, PASS)
    m.apply(2, WIN)
    assert _result(hand) == (2, "last_tile", None, (-60, -60, 180, -60)) and m.dealer == 2
    hand = m.start_hand()
    m.apply(2, Discard(t("2z")))
    m.apply(3, Peng(t("2z")))
    m.apply(3, Discard(t("1z")))
    m.apply(2, Peng(t("1z")))
    m.apply(2, Discard(t("9m")))
    assert hand.current == 2 and hand.drawn == t("5s")
    m.apply(2, WIN)
    assert _result(hand) == (2, "last_tile", None, (-60, -60, 240, -120))
    assert m.finished and m.dealer == 2
    assert [h.dealer for h in m.history] == [1, 1, 2]
    assert m.totals == [-120, -120, 420, -180]


def test_match_draw_passes_the_deal_when_the_option_says_so() -> None:
    rules = dataclasses.replace(
        get_rules("laizishanzhuang", {"dealer_keeps_after_draw": False}), end_phase_wall=82)
    m = Match(rules, 1, walls=[scenario({3: "1z"}, dealer=3, draws="5z5z5z5z").wall],
              first_dealer=3, auto_pass=True)
    hand = m.start_hand()
    m.apply(3, Discard(t("1z")))
    assert hand.result is not None and hand.result.outcome == "exhausted"
    assert m.dealer == 0 and m.totals == [0, 0, 0, 0]


@pytest.mark.parametrize(("profile", "options", "seat", "deltas"), [
    # laizishanzhuang 口口翻: 500, 166 each and the two left-over points to the escaper's next
    # players (seats 2 and 3)
    ("laizishanzhuang", {"opening_scoring": "per_opening"}, 1, (166, -500, 167, 167)),
    # 开口翻: 400 = 133 x 3 + 1, the extra point to seat 3's next player, seat 0
    ("laizishanzhuang", {}, 3, (134, 133, 133, -400)),
    # no escape penalty in yuanhang or bianfeng (bianfeng's fee is the store's business)
    ("yuanhang", {}, 0, (0, 0, 0, 0)),
    ("bianfeng", {}, 2, (0, 0, 0, 0)),
])
def test_escape_penalty_per_profile(profile: str, options: dict[str, object], seat: int,
                                    deltas: tuple[int, ...]) -> None:
    wall = scenario({0: "1z"}, draws="5z5z5z5z").wall
    m = Match(get_rules(profile, options), 1, walls=[wall], first_dealer=0, auto_pass=True)
    m.start_hand()
    assert m.escape(seat) == deltas and tuple(m.totals) == deltas


# ====================================================================== more laizi, openings, 全求人
@pytest.mark.parametrize(("profile", "deltas"), [
    # two laizi are fine in a big hand (decision 12).  The pair 4z4z stands for itself: hard,
    # and 海底捞 needs no 将 here: M(1) = opened 2 x 硬胡 2 x 自摸 1.5 = 6, 60 each
    ("yuanhang", (-60, 180, -60, -60)),
    ("bianfeng", (-60, 180, -60, -60)),
    # laizishanzhuang asks a 将: the two laizi must stand in for one (55m, say): soft,
    # M(1) = 2 x 1.5 = 3, 30 each
    ("laizishanzhuang", (-30, 90, -30, -30)),
])
def test_last_tile_laizi_makes_two_laizi_in_a_big_hand(profile: str, deltas: tuple[int, ...]) -> None:
    hands = {**SINGLE_1S, 1: "1z1z2z234p678s456m4z"}
    st = dealt(hands, draws="5z5z5z4z", profile=profile, end_phase_wall=82)
    play(st, "0 discard 1z", "1 peng", "1 discard 2z")
    assert st.phase == "final" and st.current == 1 and st.drawn == t("4z")
    assert st.legal_actions(1) == (WIN, PASS)
    play(st, "1 win")
    assert _result(st) == (1, "last_tile", None, deltas)


@pytest.mark.parametrize(("opens", "deltas"), [
    # a 冲杠 opens (decision 5): M(3) = opening 2 x 明杠 2 x 硬胡 2 x 自摸 1.5 = 12, base 10,
    # 120 from each (the dealer's 5s was no deal-in: the win is on the replacement)
    (True, (-120, -120, -120, 360)),
    (False, None),
])
def test_direct_kong_is_the_only_opening_then_kong_bloom(
        opens: bool, deltas: tuple[int, ...] | None) -> None:
    st = scenario({0: "5s", 3: "5s5s5s234p678p345m8m"}, repl="8m",
                  direct_kong_opens=opens)
    play(st, "0 discard 5s")
    assert st.legal_actions(3) == (Peng(t("5s")), Kong("direct", t("5s")), PASS)
    play(st, "3 kong direct")
    assert st.current == 3 and st.drawn == t("8m")
    if deltas is None:
        assert WIN not in st.legal_actions(3)
        with pytest.raises(IllegalAction, match="not opened"):
            st.apply(3, WIN)
        return
    play(st, "3 win")
    assert _result(st) == (3, "kong_bloom", None, deltas)


@pytest.mark.parametrize(("profile", "deltas"), [
    # 碰碰胡 + 全求人 (pair 5m).  yuanhang 口口翻: base 20, M(1) = 2^4 x 硬胡 2 = 32: raw
    # 960 (seat 2, 放冲 1.5) / 640 / 640, all at the cap: 金顶 400 each; 5m is a 将, so the
    # discarder contracts (jiang_discard) and pays 1200.
    ("yuanhang", (0, 1200, -1200, 0)),
    # 开口翻: M(1) = 2 x 2 = 4: 120 / 80 / 80; seat 2 never opened, so was not ready, and
    # pays the 280 (not_ready); laizishanzhuang adds 10 + 10 = 20, the same base.
    ("bianfeng", (0, 280, -280, 0)),
    ("laizishanzhuang", (0, 280, -280, 0)),
])
def test_quanqiuren_four_pengs_from_claims_and_the_contract(
        profile: str, deltas: tuple[int, ...]) -> None:
    st = scenario({0: "1z", 1: "1z1z2p2p6s6s9m9m5m2z3z5z9p", 2: "2p6s9m5m"},
                  draws="1m1m1m1m", profile=profile)
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 2p", "1 peng", "1 discard 3z",
         "2 discard 6s", "1 peng", "1 discard 5z", "2 discard 9m", "1 peng", "1 discard 9p")
    assert st.hand_tiles(1) == (t("5m"),) and st.openings[1] == 4
    play(st, "2 discard 5m")
    assert st.legal_actions(1) == (WIN, PASS)
    play(st, "1 win")
    assert _result(st) == (1, "discard", 2, deltas)
    assert set(_hands(st)) == {"pengpenghu", "quanqiuren"}
    r = st.result
    assert r is not None and r.settlement is not None and r.settlement.contractor == 2


def test_a_player_holding_red_dragons_cannot_rob() -> None:
    # as ROBBERS, but seat 3's pair is 7z7z (kept, never played out): his shape would take the
    # 5s, but a held 红中 rules out any win (§6.1, §8.2), so only seat 1 may rob
    hands = {**ROBBERS, 3: "2z2z5z67s345p234m7z7z"}
    st = scenario(hands, draws="3z3z3z7p5s", repl="9p")
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "3 peng", "3 discard 5z", "0 discard 5s",
         "1 pass", "2 peng", "2 discard 9m", "3 discard 3z", "0 discard 3z", "1 discard 7p",
         "2 kong added 5s")
    assert st.phase == "rob" and st.to_act() == (1,)
    assert st.legal_actions(1) == (WIN, PASS) and st.win_now(3) is None
    play(st, "1 pass")  # the kong completes: the replacement 9p
    assert st.melds[2][-1] == Meld("kong", (t("5s"),) * 4, 0, "added") and st.drawn == t("9p")


@pytest.mark.parametrize(("profile", "options", "deltas"), [
    # M(1) = opened 2 x 硬胡 2 = 4; the dealer opened, deals and deals in: 8 -> 32 >= 20; the
    # unopened seats 2 and 3 owe 4, under bianfeng's every-loser 8: refused there
    ("bianfeng", {}, None),
    ("bianfeng", {"min_score_every_loser": 0}, (-32, 40, -4, -4)),
    ("yuanhang", {}, (-32, 40, -4, -4)),
])
def test_every_loser_minimum_of_bianfeng(profile: str, options: dict[str, object],
                                         deltas: tuple[int, ...] | None) -> None:
    st = scenario({0: "2z1z1z5s", 1: "2z2z9p34s678p234m5p5p", 3: "1z"}, draws="5z5z",
                  profile=profile, **options)
    play(st, "0 discard 2z", "1 peng", "1 discard 9p", "2 discard 5z", "3 discard 1z", "0 peng",
         "0 discard 5s")
    if deltas is None:
        assert st.legal_actions(1) == (Chi(t("3s")), PASS)
        with pytest.raises(IllegalAction, match="minimum score"):
            st.apply(1, WIN)
        return
    assert st.legal_actions(1) == (WIN, Chi(t("3s")), PASS)
    play(st, "1 win")
    assert _result(st) == (1, "discard", 0, deltas)


def test_end_phase_laizi_discard_but_no_laizi_kong_then_the_final_draws() -> None:
    # the end phase from the deal: no kong of any kind, the 癞子杠 included, but the dealer may
    # throw a laizi away (丢癞子); nobody claims it, so the four final draws follow from seat 1
    st = scenario({0: "4z4z"}, draws="5z5z5z5z", end_phase_wall=82)
    acts = st.legal_actions(0)
    assert LaiziDiscard() in acts and SpecialKong("laizi") not in acts
    with pytest.raises(IllegalAction, match="end phase"):
        st.apply(0, SpecialKong("laizi"))
    play(st, "0 laizi-discard")
    finals = [e[1] for e in st.log if e[0] == "draw" and e[3] == "final"]
    assert finals == [1, 2, 3, 0] and st.specials[0].laizi_discards == 1
    r = st.result
    assert r is not None and r.outcome == "exhausted" and r.deltas == (0, 0, 0, 0)
