"""Hunt 3: hand-worked engine scenarios at the corners of the rules (docs/RULES.md).

Each test's docstring gives the scenario as the rules settle it before the engine is
driven through it on a scripted wall (``engine_helpers.scenario`` / ``dealt``).  Seats are
0-3, the dealer is seat 0 unless said; the default indicator 3z (西) makes 4z (北) the
laizi in every profile (§5).  7z is 红中, 6z 发财, 5z 白板.  Settlement:
payment(L) = base x M(W) x M(L) (§17.2).
"""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest
from engine_helpers import SALT, play, scenario, t

from wuhan_mahjong.engine import (
    PASS,
    WIN,
    Action,
    Chi,
    Discard,
    HandState,
    IllegalAction,
    Kong,
    LaiziDiscard,
    Match,
    Peng,
    SpecialKong,
    parse_action,
)
from wuhan_mahjong.engine.dealing import arrange_wall, deal_positions
from wuhan_mahjong.engine.match import random_policy
from wuhan_mahjong.engine.views import seat_view
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import NUM_KINDS, parse_tiles

LZSZ = "laizishanzhuang"


def _outcome(st: HandState) -> tuple[object, ...]:
    r = st.result
    assert r is not None and r.outcome == "win", r
    assert sum(r.deltas) == 0
    return (r.winner, r.win_by, r.from_seat, r.deltas)


def _finals(st: HandState) -> list[int]:
    return [int(e[1]) for e in st.log if e[0] == "draw" and e[3] == "final"]  # type: ignore[call-overload]


# ====================================================================== one discard, three claims
# Seat 1 pengs the dealer's 1z and drops 2z: 234p 678p 34s 5p5p waits on 2s / 5s.  Seat 2 draws
# 3z and throws 5s: seat 1 may win, the dealer (5s5s) may peng, seat 3 (4s6s, the discarder's
# next player) may chi 456s.
CLAIMS3 = {0: "1z5s5s", 1: "1z1z2z234p678p34s5p5p", 2: "5s", 3: "4s6s"}


def _claims3(profile: str = LZSZ, **options: object) -> HandState:
    st = scenario(CLAIMS3, draws="3z", profile=profile, auto_pass=False, **options)  # type: ignore[arg-type]
    play(st, "0 discard 1z", "1 peng", "2 pass", "3 pass", "1 discard 2z", "2 pass", "3 pass",
         "0 pass", "2 discard 5s")
    return st


@pytest.mark.parametrize("order", list(itertools.permutations((0, 1, 3))))
def test_a_win_a_peng_and_a_chi_on_one_discard_in_any_answer_order(order: tuple[int, ...]) -> None:
    """laizishanzhuang has no minimum: seat 1 may win on seat 2's 5s, the dealer peng it and
    seat 3 chi it.  Whatever order the three answers come in, nothing is decided until the
    last one, and the win takes it (win > peng > chi, decision 7).  Settlement: M(1) =
    opened 2 x 硬胡 2 = 4; M(2) = 放冲 2 -> 8; M(0) = dealer 2 -> 8; M(3) = 1 -> 4."""
    st = _claims3()
    assert st.legal_actions(1) == (WIN, PASS)
    assert st.legal_actions(0) == (Peng(t("5s")), PASS)
    assert st.legal_actions(3) == (Chi(t("4s")), PASS)
    answer = {0: "0 peng", 1: "1 win", 3: "3 chi 4s"}
    for k, seat in enumerate(order):
        assert st.phase == "claim" and st.result is None
        play(st, answer[seat])
        if k < 2:
            assert st.melds[0] == [] and st.melds[3] == []
    assert _outcome(st) == (1, "discard", 2, (-8, 20, -8, -4))
    assert st.rivers[2][-1] == [t("5s"), 1, 0]


def test_the_winner_passes_so_the_peng_beats_the_chi() -> None:
    """The same window, seat 1 lets the win go: the dealer's peng beats seat 3's chi, the
    dealer then plays (no draw, so no self-drawn win) and seat 3 keeps his 4s6s."""
    st = _claims3()
    play(st, "3 chi 4s", "1 pass", "0 peng")
    assert st.melds[0] == [Meld("peng", (t("5s"),) * 3, 2)] and st.melds[3] == []
    assert st.phase == "turn" and st.current == 0 and st.drawn is None
    assert WIN not in st.legal_actions(0)
    assert st.hand_size(0) == 11 and st.hand_size(3) == 13  # 14 - 1z - two 5s


def test_win_and_peng_pass_so_the_chi_stands() -> None:
    """Both seats above the chi pass: seat 3's chi of 456s stands; seat 3 discards next."""
    st = _claims3()
    play(st, "1 pass", "3 chi 4s", "0 pass")
    assert st.melds[3] == [Meld("chi", (t("4s"), t("5s"), t("6s")), 2)]
    assert st.current == 3 and st.phase == "turn" and st.rivers[2][-1] == [t("5s"), 3, 0]


def test_yuanhang_offers_no_win_under_the_minimum_and_the_peng_beats_the_chi() -> None:
    """In yuanhang (口口翻, one peng ×2) the same win is worth 8 / 8 / 4: nobody owes 20, so seat
    1 is not offered it (decision 14) and only passes; peng > chi as before."""
    st = _claims3("yuanhang")
    assert st.legal_actions(1) == (PASS,)
    with pytest.raises(IllegalAction, match="minimum"):
        st.apply(1, WIN)
    play(st, "3 chi 4s", "0 peng", "1 pass")
    assert st.melds[0] == [Meld("peng", (t("5s"),) * 3, 2)] and st.melds[3] == []


# ====================================================================== claims in the end phase
def test_an_end_phase_discard_is_won_on_as_a_plain_discard_win() -> None:
    """end_phase_wall 81: seat 2's first draw leaves 81 and starts the end phase (Amb. 21).
    His 5s may still be won on, peng'd (no 冲杠: the dealer holds two anyway) or chi'd.  The win
    is an ordinary discard win, no 海底捞 (that is a final draw's), settled as above."""
    st = _claims3(end_phase_wall=81)
    assert st.end_phase and st.live == 81
    assert st.legal_actions(1) == (WIN, PASS) and st.legal_actions(0) == (Peng(t("5s")), PASS)
    play(st, "0 peng", "3 chi 4s", "1 win")
    assert _outcome(st) == (1, "discard", 2, (-8, 20, -8, -4))
    r = st.result
    assert r is not None and r.settlement is not None and r.settlement.hands == ()


def test_an_end_phase_peng_then_the_final_draws_start_after_the_pengers_discard() -> None:
    """Same window, seat 1 passes and the dealer pengs in the end phase; the dealer discards
    9s (nobody wants it): the four final draws go to the discarder's next players 1, 2, 3, 0
    and then 荒庄 (nobody pays)."""
    st = _claims3(end_phase_wall=81)
    play(st, "1 pass", "3 pass", "0 peng")
    assert st.phase == "turn" and st.current == 0
    assert all(isinstance(a, Discard) for a in st.legal_actions(0))
    st.apply(0, Discard(st.hand_tiles(0)[-1]))
    play(st, "1 pass", "2 pass", "3 pass")
    for s in (1, 2, 3, 0):
        assert (st.phase, st.current) == ("final", s)
        play(st, f"{s} pass")
    assert _finals(st) == [1, 2, 3, 0] and st.live == 77
    r = st.result
    assert r is not None and r.outcome == "exhausted" and r.deltas == (0, 0, 0, 0)


def _final_draw_for_seat_1(last: str, **options: object) -> HandState:
    # seat 2's draw starts the end phase; his 3z is unclaimed, so the final draws go 3, 0, 1
    st = scenario(CLAIMS3, draws=f"3z6z6z{last}", profile="yuanhang", **options)  # type: ignore[arg-type]
    if st.auto_pass:
        play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 3z")
        return st
    play(st, "0 discard 1z", "1 peng", "2 pass", "3 pass", "1 discard 2z", "2 pass", "3 pass",
         "0 pass", "2 discard 3z", "3 pass", "0 pass", "1 pass")
    for s in (3, 0):
        assert st.phase == "final" and st.current == s
        play(st, f"{s} pass")
    return st


def test_a_laizi_on_the_final_draw_wins_haidilao_soft() -> None:
    """Seat 1 (one peng) waits on 2s/5s; his final draw is the laizi 4z, which stands in (one
    laizi, allowed).  海底捞 is a big hand, base 10; M(1) = 口 2 x self-draw 1.5 (soft: no 硬胡)
    = 3; nobody else has a factor (big hands ignore the dealer): 30 from each."""
    st = _final_draw_for_seat_1("4z", end_phase_wall=81)
    assert st.phase == "final" and st.current == 1 and st.drawn == t("4z")
    assert st.legal_actions(1) == (WIN, PASS)
    play(st, "1 win")
    assert _outcome(st) == (1, "last_tile", None, (-30, 90, -30, -30))


def test_a_red_dragon_on_the_final_draw_can_only_be_passed() -> None:
    """A 红中 drawn among the final draws cannot be konged (no kong in the end phase) and,
    held, it blocks the win: only a pass; the last draw is seat 2's, then 荒庄."""
    st = _final_draw_for_seat_1("7z", end_phase_wall=81, auto_pass=False)
    assert st.phase == "final" and st.current == 1 and st.legal_actions(1) == (PASS,)
    for bad in (SpecialKong("red"), Discard(t("7z")), WIN):
        with pytest.raises(IllegalAction):
            st.apply(1, bad)
    play(st, "1 pass", "2 pass")
    assert st.result is not None and st.result.outcome == "exhausted" and _finals(st) == [3, 0, 1, 2]


def test_two_final_draws_only_under_the_option() -> None:
    """final_draws 2: only seats 3 and 0 draw after the unclaimed 3z; seat 1 never gets
    his winning 5s; 荒庄 with 79 tiles left."""
    st = _final_draw_for_seat_1("5s", end_phase_wall=81, final_draws=2)
    assert _finals(st) == [3, 0] and st.live == 79
    assert st.result is not None and st.result.outcome == "exhausted"


def test_eight_final_draws_a_seat_draws_twice_and_his_second_tile_cannot_win() -> None:
    """final_draws 8: each seat draws twice and keeps both.  Seat 1 passes his first (6z,
    junk); his second is his 5s, but 12 concealed tiles (3n) make no hand: only a pass."""
    st = _final_draw_for_seat_1("5z5z5z6z5s2z", end_phase_wall=81, final_draws=8, auto_pass=False)
    seen: list[tuple[int, int | None]] = [(3, t("6z")), (0, t("6z"))]
    while st.phase == "final":
        seen.append((st.current, st.drawn))
        if st.current == 1 and st.hand_size(1) == 12:
            assert st.legal_actions(1) == (PASS,)
        play(st, f"{st.current} pass")
    assert [s for s, _ in seen] == [3, 0, 1, 2, 3, 0, 1, 2]
    assert st.hand_size(1) == 12 and st.live == 73


def test_the_draw_that_starts_the_end_phase_wins_as_a_plain_self_draw() -> None:
    """end_phase_wall 78: seat 1's own draw of 5s leaves 78 and starts the end phase.  That
    draw is no final draw: a win on it is a plain 自摸, not 海底捞.  laizishanzhuang: M(1) =
    opened 2 x 硬胡 2 x 自摸 2 = 8; the dealer 2 -> 16, seats 2 and 3 8 each."""
    st = scenario(CLAIMS3, draws="3z3z5z5s", profile=LZSZ, end_phase_wall=78)
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 3z", "3 discard 3z",
         "0 discard 5z")
    assert st.end_phase and st.phase == "turn" and st.current == 1 and st.draw_source == "wall"
    assert st.legal_actions(1)[0] is WIN
    play(st, "1 win")
    assert _outcome(st) == (1, "self_draw", None, (-16, 32, -8, -8))
    r = st.result
    assert r is not None and r.settlement is not None and r.settlement.hands == ()


def test_an_end_phase_chi_then_the_final_draws_follow_the_chi_players_discard() -> None:
    """The end phase from the deal: the dealer's 3m may be chi'd (no kong only); seat 1 chis
    234m and drops 9m, unclaimed: the final draws go 2, 3, 0, 1."""
    st = scenario({0: "3m", 1: "2m4m9m"}, end_phase_wall=82)
    assert st.end_phase
    play(st, "0 discard 3m", "1 chi 2m", "1 discard 9m")
    assert _finals(st) == [2, 3, 0, 1] and st.live == 78
    assert st.result is not None and st.result.outcome == "exhausted"


# ====================================================================== kongs and the wall's back end
def test_back_draws_shorten_the_live_wall_and_bring_the_end_phase_forward() -> None:
    """The dealer's first turn: a 暗杠 of 9p and a 红中杠 before his first discard (both his own
    turn).  Their replacements come from positions 135 and 134, so after seat 1's draw the
    live wall is 82 - 2 - 1 = 79, and with end_phase_wall 79 that draw (not the kongs) starts
    the end phase: without the back draws it would leave 81.  Seat 1's 6z is unclaimed: four
    final draws from the front (seats 2, 3, 0, 1), 75 left, 荒庄.  Every view counts the same."""
    st = scenario({0: "9p9p9p9p7z1m"}, draws="6z", repl="5z5z", end_phase_wall=79,
                  auto_pass=False)
    walls = []

    def seen() -> None:
        w = {seat_view(st, v)["wall"] for v in (0, 1, 2, 3, None)}
        assert w == {st.live}
        walls.append(st.live)

    seen()
    play(st, "0 kong concealed 9p")
    assert st.tail == 135 and st.drawn == t("5z") and st.draw_source == "replacement"
    seen()
    play(st, "0 special_kong red")
    assert st.tail == 134 and st.specials[0].red == 1 and not st.end_phase
    seen()
    play(st, "0 discard 1m", "1 pass", "2 pass", "3 pass")
    assert st.end_phase and st.live == 79 and st.current == 1 and st.drawn == t("6z")
    seen()
    play(st, "1 discard 6z", "2 pass", "3 pass", "0 pass")
    for s in (2, 3, 0, 1):
        assert st.phase == "final" and st.current == s
        assert seat_view(st, s)["final_draws_left"] == st.final_left
        play(st, f"{s} pass")
    assert walls == [82, 81, 80, 79] and st.live == 75 and _finals(st) == [2, 3, 0, 1]
    assert st.head == 59  # seat 1 drew position 54, the final draws 55-58
    assert st.result is not None and st.result.outcome == "exhausted"


# Seat 1 holds a 红中 from the deal; he pengs the dealer's 1z and plays the 红中 out at once.
RED1 = {1: "1z1z7z234p678p34s5p5p"}


def test_a_red_kong_whose_replacement_starts_the_end_phase_and_is_another_red() -> None:
    """Seat 1 pengs 1z, plays his 红中 (replacement 5z, dropped).  Later his wall draw (77
    left) is another 红中: 红中杠, whose replacement, a third 红中, leaves 76 = end_phase_wall.
    In the end phase no kong of any kind: the 红中 can neither be played out nor discarded
    (never a normal discard), and held it blocks any win; he must break his hand."""
    st = scenario({0: "1z", **RED1}, draws="3z3z5z7z", repl="5z7z", end_phase_wall=76)
    play(st, "0 discard 1z", "1 peng", "1 special_kong red", "1 discard 5z", "2 discard 3z",
         "3 discard 3z", "0 discard 5z")
    assert st.current == 1 and st.drawn == t("7z") and st.live == 77 and not st.end_phase
    assert SpecialKong("red") in st.legal_actions(1)
    play(st, "1 special_kong red")
    assert st.end_phase and st.live == 76 and st.drawn == t("7z") and st.specials[1].red == 2
    acts = st.legal_actions(1)
    assert acts and all(isinstance(a, Discard) and a.tile != t("7z") for a in acts)
    with pytest.raises(IllegalAction) as e:
        st.apply(1, SpecialKong("red"))
    assert e.value.rule == "kong.not_in_end_phase"
    with pytest.raises(IllegalAction) as e:
        st.apply(1, Discard(t("7z")))
    assert e.value.rule == "discard.not_must_kong"


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", LZSZ])
def test_a_red_kong_straight_after_a_peng_and_its_replacement_blooms(profile: str) -> None:
    """A 红中杠 may be made straight after a claim (Amb. 6); its replacement 5s completes
    234p 678p 345s 5p5p: 杠上花, base 10.  M(1) = opened 2 x 红中杠 2 x 硬胡 2 x 自摸 1.5 = 12
    in every profile (one opening); big hands ignore the dealer: 120 from each loser."""
    st = scenario({0: "1z", **RED1}, repl="5s", profile=profile)
    play(st, "0 discard 1z", "1 peng")
    assert st.drawn is None and WIN not in st.legal_actions(1)
    play(st, "1 special_kong red")
    assert st.draw_source == "replacement" and st.legal_actions(1)[0] is WIN
    play(st, "1 win")
    assert _outcome(st) == (1, "kong_bloom", None, (-120, 360, -120, -120))


@pytest.mark.parametrize(("profile", "each"), [("yuanhang", 240), ("bianfeng", 240), (LZSZ, 120)])
def test_a_laizi_kong_straight_after_a_peng_blooms(profile: str, each: int) -> None:
    """As above with the laizi 4z played out as a 癞子杠 (×4, ×2 in laizishanzhuang) and a
    2s replacement: M(1) = 2 x 4 x 硬胡 2 x 1.5 = 24 -> 240 each (under the 300 cap);
    laizishanzhuang 2 x 2 x 2 x 1.5 = 12 -> 120."""
    st = scenario({0: "1z", 1: "1z1z4z234p678p34s5p5p"}, repl="2s", profile=profile)
    play(st, "0 discard 1z", "1 peng", "1 special_kong laizi")
    assert st.specials[1].laizi == 1 and st.legal_actions(1)[0] is WIN
    play(st, "1 win")
    assert _outcome(st) == (1, "kong_bloom", None, (-each, 3 * each, -each, -each))


def test_the_dealers_first_turn_kong_cannot_win_an_unopened_hand() -> None:
    """The dealer may play his 红中 out before his first discard; the replacement 5s makes
    234m 567m 234p 678p 5s5s, a complete shape, but nobody wins without an opening (§9):
    no Win offered, and asked for it is refused; he discards."""
    st = scenario({0: "7z234m567m234p678p5s"}, repl="5s")
    play(st, "0 special_kong red")
    assert st.drawn == t("5s") and WIN not in st.legal_actions(0)
    with pytest.raises(IllegalAction, match="open"):
        st.apply(0, WIN)
    play(st, "0 discard 5s")
    assert st.current == 1


# ====================================================================== the minimum: discard or self-draw
def test_the_same_small_hand_is_refused_on_a_discard_and_taken_on_a_self_draw() -> None:
    """yuanhang.  Seat 1 pengs 5m (dealer) and 7m (seat 2): 234p 34s 5p5p waits 2s / 5s.
    Seat 3's 2s: M(1) = 2 x 2 x 硬胡 2 = 8, seat 3 (放冲) and the dealer owe 16, nobody 20:
    not offered.  His own 5s: M(1) = 16 with 自摸; the dealer owes 32 >= 20, seats 2 and 3
    owe 16: the self-draw is offered and pays 64."""
    st = scenario({0: "5m", 1: "5m5m7m7m234p34s5p5p1z2z", 2: "7m", 3: "2s"},
                  draws="3z5z5z6z5s")
    play(st, "0 discard 5m", "1 peng", "1 discard 1z", "2 discard 7m", "1 peng", "1 discard 2z",
         "2 discard 5z", "3 discard 2s")
    assert st.current == 0 and st.rivers[3][-1] == [t("2s"), -1, 0]  # passed: nobody claimed
    play(st, "0 discard 6z")
    assert st.current == 1 and st.drawn == t("5s") and st.legal_actions(1)[0] is WIN
    play(st, "1 win")
    assert _outcome(st) == (1, "self_draw", None, (-32, 64, -16, -16))


# ====================================================================== 抢杠
# Seat 1 pengs 1z and waits on 2s / 5s; seat 2 pengs the dealer's 5s and later holds the fourth;
# seat 3 never opens but his 67s 345p 234m 999p 2s2s would be complete with 5s.
ROB3 = {0: "1z5s1m1m4m7m1p1p4p7p1s7s7s5p", 1: "1z1z2z34s678p234m5p5p",
        2: "5s5s9m8m1m5m2p8p1s8s8s6m3p", 3: "67s345p234m2s2s999p"}


def _dealt(hands: dict[int, str], *, draws: str = "", repl: str = "", auto_pass: bool = True,
           profile: str = "yuanhang", **options: object) -> HandState:
    """A hand from four fully written hands (the dealer seat 0, indicator 3z), for tables too
    crowded for the filler of ``scenario``; end_phase_wall may be set beyond its option range."""
    end_phase_wall = options.pop("end_phase_wall", None)
    rules = get_rules(profile, options)
    if isinstance(end_phase_wall, int):
        rules = dataclasses.replace(rules, end_phase_wall=end_phase_wall)
    full = [parse_tiles(hands[s]) for s in range(4)]
    wall = arrange_wall(0, full, t("3z"), parse_tiles(draws), parse_tiles(repl))
    return HandState(rules, 0, wall, SALT, auto_pass=auto_pass)


def _rob3(draws: str, **options: object) -> HandState:
    st = _dealt(ROB3, draws=draws, repl="9s", **options)  # type: ignore[arg-type]
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 3z", "3 discard 3z",
         "0 discard 5s")
    # yuanhang: seat 1's small win on 5s would be 8 / 8 / 4, under 20: only the chi 345s
    assert st.legal_actions(1) == (Chi(t("3s")), PASS)
    assert st.legal_actions(2) == (Peng(t("5s")), PASS)
    play(st, "1 pass", "2 peng", "2 discard 9m", "3 discard 5z", "0 discard 6z", "1 discard 6z")
    assert st.current == 2 and st.drawn == t("5s")
    return st


def test_only_an_opened_player_may_rob_and_the_konger_pays_his_bloom() -> None:
    """Seat 2 adds his drawn 5s to the peng (蓄杠): the robbing window.  Seat 3's shape would
    be complete with 5s but he never opened (§8.2: a robber must have opened): pass only.
    Seat 1 robs.  yuanhang (杠进杠出): the konger's imagined 杠开, base 10, M(2) = 口 2 x 蓄杠 2
    x 自摸 1.5 x 硬胡 2 = 12; the dealer 1 -> 120, seat 1 (opened) 240, seat 3 120, each under
    the 400 cap: seat 2 pays all 480 to seat 1."""
    st = _rob3("3z3z5z5z6z6z5s")
    st.auto_pass = False  # from here every seat answers, also those who can only pass
    play(st, "2 kong added 5s")
    assert st.phase == "rob" and st.to_act() == (0, 1, 3)
    assert st.legal_actions(1) == (WIN, PASS) and st.legal_actions(3) == (PASS,)
    assert st.legal_actions(0) == (PASS,) and st.legal_actions(2) == ()
    with pytest.raises(IllegalAction):
        st.apply(3, WIN)
    play(st, "3 pass", "0 pass", "1 win")
    assert _outcome(st) == (1, "rob_kong", 2, (0, 480, -480, 0))
    assert st.melds[2][-1] == Meld("peng", (t("5s"),) * 3, 0)


def test_an_added_kong_of_a_tile_kept_from_an_earlier_draw_is_robbed_too() -> None:
    """Seat 2 keeps the 5s he drew (drops 8m) and adds it to his peng a turn later, on a draw
    of 2z: still a 蓄杠 (any later turn, §8.1), still robbable, with the same settlement."""
    st = _rob3("3z3z5z5z6z6z5s5z6z6z2z")
    play(st, "2 discard 8m", "3 discard 5z", "0 discard 6z", "1 discard 6z")
    assert st.current == 2 and st.drawn == t("2z") and Kong("added", t("5s")) in st.legal_actions(2)
    play(st, "2 kong added 5s")
    assert st.phase == "rob" and st.legal_actions(1) == (WIN, PASS)
    play(st, "1 win")
    assert _outcome(st) == (1, "rob_kong", 2, (0, 480, -480, 0))


def test_an_unrobbed_added_kong_at_the_edge_of_the_wall_starts_the_end_phase() -> None:
    """The same 蓄杠 with 75 tiles left, end_phase_wall 74: seat 1 lets it go; the kong
    completes and its replacement (from the back) leaves 74, starting the end phase: seat 2
    may only discard.  His 9s goes unclaimed: the final draws go 3, 0, 1, 2 (seat 1 passes
    his 5z), then 荒庄."""
    st = _rob3("3z3z5z5z6z6z5s5z2z", end_phase_wall=74)
    assert st.live == 75 and not st.end_phase
    play(st, "2 kong added 5s", "1 pass")
    assert st.melds[2][-1] == Meld("kong", (t("5s"),) * 4, 0, "added")
    assert st.end_phase and st.live == 74 and st.drawn == t("9s") and st.draw_source == "replacement"
    assert all(isinstance(a, Discard) for a in st.legal_actions(2))
    play(st, "2 discard 9s")
    assert _finals(st) == [3, 0, 1, 2] and st.live == 70
    assert st.result is not None and st.result.outcome == "exhausted"


# ====================================================================== no furiten, 乱将
def test_a_passed_win_then_a_win_on_the_very_next_discard_of_the_go_round() -> None:
    """No furiten (decision 18, [003] note 5): seat 1 lets seat 2's 5s go, the dealer pengs it
    and throws 2s, which seat 1 may win on at once (also chi it: he is the dealer's next).
    laizishanzhuang: M(1) = 4; the dealer: dealer 2 x opened 2 x 放冲 2 = 8 -> 32; seats 2
    and 3 (no factor) 4 each."""
    st = scenario({**CLAIMS3, 0: "1z5s5s2s"}, draws="3z", profile=LZSZ)
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 5s")
    assert st.legal_actions(1) == (WIN, PASS)
    play(st, "1 pass", "3 pass", "0 peng", "0 discard 2s")
    assert st.legal_actions(1) == (WIN, Chi(t("2s")), PASS)
    play(st, "1 win")
    assert _outcome(st) == (1, "discard", 0, (-32, 40, -4, -4))


JIANG = {0: "2m1m3m4m6m7m1p3p4p6p7p9p1z1z", 1: "2m2m5m8m8m2p5p5p8p2s5s8s9m",
         2: "2s1s3s4s6s7s9s1m3m4m6m7m2z", 3: "1p3p4p6p7p9p5z5z6z6z2z9s1s"}


@pytest.mark.parametrize(("profile", "deltas"), [
    ("yuanhang", (-40, 140, -60, -40)), ("bianfeng", (-40, 140, -60, -40)),
    (LZSZ, (-40, 140, -60, -40))])
def test_jiangyise_wins_on_any_258_discard_without_sets(profile: str, deltas: tuple[int, ...]) -> None:
    """乱将 ([003] note 4, decision 10): seat 1 pengs 2m and holds ten scattered 2/5/8s (no
    sets): any 2/5/8 discard wins him 将一色, here seat 2's 2s.  Base 10; M(1) = opened 2 x
    硬胡 2 = 4 (one opening in every mode); the discarder 放冲 ×1.5 -> 60; the others 40 (big
    hands ignore the dealer)."""
    st = _dealt(JIANG, draws="3z", profile=profile)
    play(st, "0 discard 2m", "1 peng", "1 discard 9m", "2 discard 2s")
    assert st.legal_actions(1) == (WIN, PASS)
    play(st, "1 win")
    assert _outcome(st) == (1, "discard", 2, deltas)
    r = st.result
    assert r is not None and r.settlement is not None and r.settlement.hands == ("jiangyise",)


# ====================================================================== laizi options, 癞子皮杠
@pytest.mark.parametrize(("max_laizi", "offered"), [(0, False), (1, True)])
def test_small_hand_max_laizi_zero_refuses_a_soft_small_win(max_laizi: int, offered: bool) -> None:
    """Seat 1 holds 5p and the laizi 4z for his pair: a soft small hand on 5s.  With the
    default one laizi allowed it wins (laizishanzhuang: M(1) = opened 2, no 硬胡; seat 2 放冲
    and the dealer 2 -> 4 each, seat 3 2); small_hand_max_laizi 0 allows none: no Win."""
    st = scenario({**CLAIMS3, 1: "1z1z2z234p678p34s5p4z"}, draws="3z", profile=LZSZ,
                  small_hand_max_laizi=max_laizi)
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 5s")
    assert (WIN in st.legal_actions(1)) is offered
    if offered:
        play(st, "0 pass", "3 pass", "1 win")
        assert _outcome(st) == (1, "discard", 2, (-4, 10, -4, -2))


@pytest.mark.parametrize("pi_kong", ["off", "on"])
def test_pi_kong_only_under_its_option_and_its_bloom(pi_kong: str) -> None:
    """Indicator 9m (laizi 1m).  Seat 1 holds a 9m, the indicator's kind.  With pi_kong on
    (yuanhang) he may play it out singly straight after his peng: 癞子皮杠 ×2, replacement 5s
    from the back, 杠上花: M(1) = 口 2 x 皮杠 2 x 硬胡 2 x 1.5 = 12, 120 from each.  Off, the 9m
    is a plain tile: no such kong, he discards it."""
    st = scenario({0: "1z", 1: "1z1z9m234p678p34s5p5p"}, indicator="9m", repl="5s",
                  pi_kong=pi_kong)
    play(st, "0 discard 1z", "1 peng")
    assert (SpecialKong("pi") in st.legal_actions(1)) is (pi_kong == "on")
    if pi_kong == "off":
        with pytest.raises(IllegalAction) as e:
            st.apply(1, SpecialKong("pi"))
        assert e.value.rule == "special_kong.pi_played"
        play(st, "1 discard 9m")
        assert st.rivers[1][-1] == [t("9m"), -1, 0] and st.current == 2
        return
    play(st, "1 special_kong pi")
    assert st.specials[1].pi == 1 and st.tail == 135 and st.legal_actions(1)[0] is WIN
    play(st, "1 win")
    assert _outcome(st) == (1, "kong_bloom", None, (-120, 360, -120, -120))


def test_a_laizi_discard_opens_no_window_and_every_view_shows_it_dead() -> None:
    """丢癞子 ends the turn with no claim window even when every seat must answer discards
    (auto_pass off): the next player draws at once.  Every view shows the laizi in the
    discarder's river as a laizi, claimed by nobody, and his one laizi discard."""
    st = scenario({0: "4z"}, draws="5z", auto_pass=False)
    play(st, "0 laizi_discard")
    assert st.phase == "turn" and st.current == 1 and st.drawn == t("5z")
    assert st.specials[0].laizi_discards == 1
    for viewer in (0, 1, 2, 3, None):
        v = seat_view(st, viewer)
        assert v["on_table"] is None and v["seats"][0]["laizi_discards"] == 1
        assert v["seats"][0]["discards"] == [{"tile": "4z", "laizi": True, "claimed_by": None}]
        assert v["drawn"] == ("5z" if viewer == 1 else None)
        assert (v["legal_actions"] != []) is (viewer == 1)


# ====================================================================== what a seat sees
def _keep_the_deal(state: HandState, seat: int) -> Action:
    """Never lets a dealt tile go: passes every claim and win, discards (or plays out) the
    tile just drawn, so the tiles dealt to this seat stay hidden in his hand to the end."""
    acts = state.legal_actions(seat)
    if state.phase != "turn":
        return PASS
    drawn = state.drawn
    for a in acts:
        if isinstance(a, Discard) and a.tile == drawn:
            return a
        if isinstance(a, LaiziDiscard) and drawn == state.laizi:
            return a
        if isinstance(a, SpecialKong) and drawn == state.rules.special_kong_tile(a.kind, state.indicator):
            return a
    raise AssertionError(f"seat {seat} cannot drop {drawn}: {acts}")


@pytest.mark.parametrize("seed", range(8))
def test_a_view_never_changes_with_another_seats_hidden_tiles(seed: int) -> None:
    """Information hiding, as an examiner would check it: a hand in which every seat answers
    every discard; two seats (not the viewer) only ever drop what they draw, the other two
    play at random.  The same acts are replayed on a wall where one tile dealt to each of the
    two is swapped: at every step the viewer's view (but the commitment and the final
    reveal) is the same in both hands, and so is the outcome."""
    profile = ("yuanhang", "bianfeng", LZSZ)[seed % 3]
    rules = get_rules(profile, {"pi_kong": "on"} if seed % 2 else {})
    dealer, viewer = seed % 4, (seed + 1) % 4
    hidden = [s for s in range(4) if s not in (viewer, dealer)][:2]
    rng = random.Random(seed)
    wall = [k for k in range(NUM_KINDS) for _ in range(4)]
    while True:
        rng.shuffle(wall)
        if rules.laizi_of(wall[53]) not in {wall[i] for s in hidden for i in deal_positions(dealer)[s]}:
            break  # a dealt laizi could be the only tile a keeper can drop: keep it simple
    a = HandState(rules, dealer, wall, SALT)
    randomly = random_policy(random.Random(seed + 100))
    acts: list[tuple[int, Action]] = []
    while not a.ended:
        s = a.to_act()[0]
        x = _keep_the_deal(a, s) if s in hidden else randomly(a, s)
        acts.append((s, x))
        a.apply(s, x)
    p, q = hidden
    pos = deal_positions(dealer)
    i, j = next((i, j) for i, j in itertools.product(pos[p], pos[q]) if wall[i] != wall[j])
    w2 = list(wall)
    w2[i], w2[j] = w2[j], w2[i]
    b, c = HandState(rules, dealer, wall, SALT), HandState(rules, dealer, w2, SALT)
    for s, x in acts:
        assert _public(b, viewer) == _public(c, viewer)
        b.apply(s, x)
        c.apply(s, x)
    assert b.result is not None and c.result is not None and b.result.deltas == c.result.deltas
    assert b.hand_tiles(p) != c.hand_tiles(p)


def _public(st: HandState, viewer: int) -> object:
    v = dict(seat_view(st, viewer))
    v.pop("commitment")
    v.pop("result")
    return v


@pytest.mark.parametrize(("pair", "profile", "deltas"), [
    ("5p5p", "yuanhang", (0, 480, -480, 0)), ("6p6p", "yuanhang", (0, 480, -480, 0)),
    ("5p5p", LZSZ, (0, 160, -160, 0)), ("6p6p", LZSZ, None)])
def test_robbing_with_and_without_a_258_pair_per_profile(pair: str, profile: str,
                                                         deltas: tuple[int, ...] | None) -> None:
    """抢杠 on an otherwise small-hand shape needs a 2/5/8 pair only in laizishanzhuang
    (decision 9).  yuanhang settles the konger's imagined 杠开 whatever the robber's pair (480,
    as above).  laizishanzhuang scores the robber's own hand, paid wholly by the robbed player
    with no deal-in factor (decision 15): base 10; M(1) = opened 2 x 硬胡 2 = 4; the dealer 1
    (ignored) -> 40, seat 2 opened 2 -> 80, seat 3 40: seat 2 pays 160.  With a 6p pair the
    rob is not offered there."""
    hands = {**ROB3, 1: f"1z1z2z34s678p234m{pair}"}
    st = _dealt(hands, draws="3z3z5z5z2z2z5s", repl="9s", profile=profile)  # 6z: a 发财杠 in lzsz
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "2 discard 3z", "3 discard 3z",
         "0 discard 5s")
    if profile == LZSZ and pair == "5p5p":  # no minimum there: the small win on 5s is offered
        assert st.legal_actions(1) == (WIN, Chi(t("3s")), PASS)
    else:
        assert st.legal_actions(1) == (Chi(t("3s")), PASS)
    play(st, "1 pass", "2 peng", "2 discard 9m", "3 discard 5z", "0 discard 2z", "1 discard 2z",
         "2 kong added 5s")
    if deltas is None:
        assert st.phase == "turn" and st.current == 2 and st.drawn == t("9s")  # the kong stood
        assert st.melds[2][-1] == Meld("kong", (t("5s"),) * 4, 0, "added")
        return
    assert st.legal_actions(1) == (WIN, PASS)
    play(st, "1 win")
    assert _outcome(st) == (1, "rob_kong", 2, deltas)


def test_two_robbers_counted_from_the_konger_under_winner_order_from_discarder() -> None:
    """Several robbers are ranked like several winners on a discard (§14), the konger in the
    discarder's place: seats 1 and 3 both rob seat 2's 蓄杠; from the dealer seat 1 is first,
    counting from the konger (winner_order from_discarder) seat 3 (3, 0, 1) is.  The konger
    pays his imagined 杠开: M(2) = 12; seats 1 and 3 opened -> 240 each, the dealer 120: 600."""
    robbers = {0: "1z5s1s1s2p2p8m8m3m7m9s9s1m5m", 1: "1z1z2z34s678p234m5p5p",
               2: "5s5s9m1m1m1p1p9p9p7s7s8s8m", 3: "2z2z5z67s345p234m2s2s"}
    for order, winner in (("from_dealer", 1), ("from_discarder", 3)):
        st = scenario(robbers, draws="3z3z3z7p5s", repl="9s", winner_order=order)
        play(st, "0 discard 1z", "1 peng", "1 discard 2z", "3 peng", "3 discard 5z", "0 discard 5s",
             "1 pass", "2 peng", "2 discard 9m", "3 discard 3z", "0 discard 3z", "1 discard 7p",
             "2 kong added 5s")
        assert st.legal_actions(1) == (WIN, PASS) and st.legal_actions(3) == (WIN, PASS)
        play(st, "3 win", "1 win")
        r = st.result
        assert r is not None and (r.winner, r.win_by, r.from_seat) == (winner, "rob_kong", 2)
        assert r.deltas[2] == -600 and r.deltas[winner] == 600


FENG = {0: "1z1m2m4m5m7m8m1p2p4p5p7p8p1s", 1: "1z1z2z2z2z5z5z6z6z6z3z3z9m",
        2: "1z1m2m4m5m1p2p4p5p7p8p1s2s", 3: "3m6m3p6p9p3s4s5s6s7s8s9s9s"}


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng"])
def test_fengyise_wins_on_a_lone_wind_and_counts_two_big_hands(profile: str) -> None:
    """乱风 (decision 10): seat 1 pengs 1z and holds only honours (发 is plain here, 中 would
    be a must-kong tile); seat 2's last 1z pairs nothing, 222z 666z 55z 33z 1z is no standard
    shape, yet it wins 风一色, two big hands in yuanhang / bianfeng: base 20.  M(1) = opened 2
    x 硬胡 2 = 4; seat 2 放冲 ×1.5 -> 120, the others 80 each."""
    st = _dealt(FENG, draws="6m", profile=profile)
    play(st, "0 discard 1z", "1 peng", "1 discard 9m", "2 discard 1z")
    assert st.legal_actions(1) == (WIN, PASS)
    play(st, "1 win")
    assert _outcome(st) == (1, "discard", 2, (-80, 280, -120, -80))
    r = st.result
    assert r is not None and r.settlement is not None and r.settlement.hands == ("fengyise",)


# ====================================================================== a match: who deals next
# worked_more's three winners, dealer 0: the dealer pengs 5z and wins seat 2's 5s
THREE = {0: "1z5z5z9s46s234p88m678m", 1: "1z1z2z34s678p234m5p5p",
         2: "5s1m1m9m9m1p1p9p9p1s1s8s7s", 3: "2z2z5z67s345p234m2s2s"}
THREE_PLAY = ("0 discard 1z", "1 peng", "1 discard 2z", "3 peng", "3 discard 5z", "0 peng",
              "0 discard 9s", "1 discard 3z", "2 discard 5s", "3 win", "1 win", "0 win")
CLAIMS3_PLAY = ("0 discard 1z", "1 peng", "1 discard 2z", "2 discard 5s", "0 pass", "3 pass",
                "1 win")


def _turned(k: int, hands: dict[int, str], lines: tuple[str, ...]) -> tuple[dict[int, str], list[str]]:
    """The same hand played k seats further round (the dealer seat k)."""
    moved = [f"{(int(line[0]) + k) % 4}{line[1:]}" for line in lines]
    return {(s + k) % 4: h for s, h in hands.items()}, moved


def test_a_match_draw_passes_the_deal_under_the_option_the_dealer_keeps_it_on_his_win() -> None:
    """laizishanzhuang with dealer_keeps_after_draw off, first dealer seat 1.  Hand 0: every
    seat drops what it draws, nobody opens: 荒庄, nobody pays, and under the option the deal
    passes to seat 2.  Hand 1 (dealer 2): the dealer wins (three winners, the dealer first):
    he keeps the deal.  Hand 2 (dealer 2): seat 3 wins: the deal passes to seat 3.  The
    totals are the hands' deltas summed."""
    rules = get_rules(LZSZ, {"dealer_keeps_after_draw": False})
    hands1, play1 = _turned(2, THREE, THREE_PLAY)
    hands2, play2 = _turned(2, CLAIMS3, CLAIMS3_PLAY)
    walls = [scenario({}, dealer=1).wall,
             scenario(hands1, draws="3z3z", dealer=2, profile=LZSZ).wall,
             scenario(hands2, draws="3z", dealer=2, profile=LZSZ).wall]
    m = Match(rules, 3, walls=walls, first_dealer=1, auto_pass=True)
    hand = m.start_hand()
    assert hand.dealer == 1
    while not hand.ended:
        s = hand.to_act()[0]
        first = hand.phase == "turn" and hand.drawn is None  # the dealer's first discard
        m.apply(s, next(a for a in hand.legal_actions(s) if isinstance(a, Discard)) if first
                else _keep_the_deal(hand, s))
    assert hand.result is not None and hand.result.outcome == "exhausted" and m.dealer == 2
    for lines, winner, dealer_after in ((play1, 2, 2), (play2, 3, 3)):
        hand = m.start_hand()
        assert hand.dealer == 2
        for line in lines:
            m.apply(int(line[0]), parse_action(line[2:], pending=hand.pending_tile))
        assert hand.result is not None and hand.result.winner == winner
        assert m.dealer == dealer_after
    assert m.finished and [h.dealer for h in m.history] == [1, 2, 2]
    assert m.totals == [sum(h.result.deltas[s] for h in m.history) for s in range(4)]
    assert m.history[1].result.deltas == (-16, -16, 48, -16)
    assert m.history[2].result.deltas == (-8, -4, -8, 20)


@pytest.mark.parametrize(("must", "laizi", "green_kong"), [
    (["7z"], "6z", False), (["7z", "6z"], "5z", True)])
def test_must_kong_option_moves_the_laizi_and_makes_the_green_kong(
        must: list[str], laizi: str, green_kong: bool) -> None:
    """yuanhang, indicator 北 (4z).  With 中 alone as the must-kong tile the laizi is 发 (北→发,
    decision 1) and 发 is no kong tile.  Adding 发 as a must-kong tile (the laizishanzhuang
    reading, as an option) skips it: the laizi is 白, and a held 发 can only be played out as
    the 发财杠 (with its replacement), never discarded."""
    st = scenario({0: "6z7z1m"}, indicator="4z", repl="9s", must_kong=must)
    assert st.laizi == t(laizi)
    acts = st.legal_actions(0)
    assert (SpecialKong("green") in acts) is green_kong
    assert (LaiziDiscard() in acts) is (not green_kong)  # 6z is the laizi under 中 alone
    assert Discard(t("6z")) not in acts and Discard(t("7z")) not in acts
    if green_kong:
        play(st, "0 special_kong green")
        assert st.specials[0].green == 1 and st.drawn == t("9s") and st.draw_source == "replacement"
    else:
        with pytest.raises(IllegalAction) as e:
            st.apply(0, SpecialKong("green"))
        assert e.value.rule == "special_kong.must_kong_tile"
