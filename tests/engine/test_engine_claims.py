"""Scenario tests: the deal, discards, claims and their priority, one winner, no furiten."""

from __future__ import annotations

import pytest
from engine_helpers import fingerprint, play, scenario, t

from wuhan_mahjong.engine import PASS, WIN, Chi, Discard, IllegalAction, Kong, Peng
from wuhan_mahjong.engine.dealing import INDICATOR_POS
from wuhan_mahjong.meld import Meld

NO_MIN = {"min_score_one_loser": 0}
# Seat 1 pengs the dealer's 5m, drops 1z and waits on 5s (pair) with 234p 678p 234s.
READY_1 = "5m5m234p678p234s5s1z"


def test_deal_dealer_has_14_and_discards_first_without_drawing() -> None:
    st = scenario({0: "5m", 1: "1m"}, indicator="9p", dealer=2)
    assert [st.hand_size(s) for s in range(4)] == [13, 13, 14, 13]
    assert st.indicator == st.wall[INDICATOR_POS] == t("9p") and st.laizi == t("1p")
    assert st.live == 136 - 53 - 1
    assert st.phase == "turn" and st.to_act() == (2,) and st.drawn is None
    assert WIN not in st.legal_actions(2)  # no win on the dealt 14: nobody has opened
    assert all(isinstance(a, Discard) for a in st.legal_actions(2)[:5])
    assert st.legal_actions(0) == () and st.legal_actions(1) == ()
    with pytest.raises(IllegalAction, match="not seat 0's turn: seat 2"):
        st.apply(0, Discard(t("5m")))


def test_unclaimed_discard_passes_to_the_next_player_who_draws() -> None:
    st = scenario({0: "9m"}, draws="1z")
    play(st, "0 discard 9m")
    assert st.phase == "turn" and st.current == 1 and st.drawn == t("1z")
    assert st.hand_size(1) == 14 and st.live == 81
    assert st.log[-1] == ("draw", 1, t("1z"), "wall", 81)


def test_every_seat_answers_a_discard_without_auto_pass() -> None:
    st = scenario({0: "9m"}, draws="1z", auto_pass=False)
    play(st, "0 discard 9m")
    assert st.phase == "claim" and st.to_act() == (1, 2, 3)
    assert st.legal_actions(1) == (PASS,)
    with pytest.raises(IllegalAction, match="cannot claim his own discard"):
        st.apply(0, PASS)
    play(st, "2 pass", "1 pass")
    with pytest.raises(IllegalAction, match="already answered"):
        st.apply(1, PASS)
    play(st, "3 pass")
    assert st.current == 1 and st.drawn == t("1z")


def test_chi_only_by_the_discarders_next_player() -> None:
    st = scenario({0: "3m", 1: "2m4m", 2: "2m4m"}, auto_pass=False)
    play(st, "0 discard 3m")
    assert Chi(t("2m")) in st.legal_actions(1)
    assert st.legal_actions(2) == (PASS,)
    with pytest.raises(IllegalAction, match=r"only the discarder's next player \(seat 1\) may chi"):
        st.apply(2, Chi(t("2m")))
    play(st, "1 chi 2m", "2 pass", "3 pass")
    assert st.melds[1] == [Meld("chi", (t("2m"), t("3m"), t("4m")), 0)]
    assert st.phase == "turn" and st.current == 1 and st.drawn is None
    assert WIN not in st.legal_actions(1)
    assert st.rivers[0][-1] == [t("3m"), 1, 0]


def test_chi_offers_every_run_the_hand_allows() -> None:
    st = scenario({0: "5p", 1: "3p4p6p7p"})
    play(st, "0 discard 5p")
    assert [a for a in st.legal_actions(1) if isinstance(a, Chi)] == [
        Chi(t("3p")), Chi(t("4p")), Chi(t("5p"))]


def test_laizi_never_takes_part_in_a_chi() -> None:
    # indicator 5m -> laizi 6m: 4m + 6m cannot chi a 5m
    st = scenario({0: "5m", 1: "4m6m"}, indicator="5m", auto_pass=False)
    play(st, "0 discard 5m")
    assert st.legal_actions(1) == (PASS,)
    with pytest.raises(IllegalAction, match="laizi 6m never takes part in a chi"):
        st.apply(1, Chi(t("4m")))


def test_peng_beats_chi() -> None:
    st = scenario({0: "3m", 1: "2m4m", 2: "3m3m"})
    play(st, "0 discard 3m")
    assert Peng(t("3m")) in st.legal_actions(2)
    play(st, "1 chi 2m")
    assert st.phase == "claim"  # seat 2 still to answer
    play(st, "2 peng")
    assert st.melds[2] == [Meld("peng", (t("3m"),) * 3, 0)] and st.melds[1] == []
    assert st.current == 2 and st.hand_size(2) == 11 and st.hand_size(1) == 13
    assert st.log[-1] == ("claim", 2, Peng(t("3m")), 0)


def test_direct_kong_takes_a_replacement_from_the_far_end() -> None:
    st = scenario({0: "3m", 3: "3m3m3m"}, repl="9s")
    play(st, "0 discard 3m")
    assert st.legal_actions(3) == (Peng(t("3m")), Kong("direct", t("3m")), PASS)
    play(st, "3 kong direct")
    assert st.melds[3] == [Meld("kong", (t("3m"),) * 4, 0, "direct")]
    assert st.drawn == t("9s") and st.draw_source == "replacement" and st.tail == 135
    assert st.current == 3 and st.hand_size(3) == 11
    assert st.log[-1] == ("draw", 3, t("9s"), "replacement", 135 - 54)


def test_a_discard_win_is_settled() -> None:
    st = scenario({0: "5m", 1: READY_1, 2: "5s"}, draws="9m", **NO_MIN)
    play(st, "0 discard 5m", "1 peng", "1 discard 1z", "2 discard 5s")
    assert st.legal_actions(1) == (WIN, PASS)
    play(st, "1 win")
    r = st.result
    assert r is not None and r.outcome == "win" and st.phase == "ended"
    assert (r.winner, r.win_by, r.from_seat, r.tile) == (1, "discard", 2, t("5s"))
    # winner: opened x2, hard x2 = 4; discarder x2 deal-in; dealer x2 (small hand)
    assert r.deltas == (-8, 20, -8, -4) and sum(r.deltas) == 0
    assert r.settlement is not None and r.settlement.hands == ()
    assert st.rivers[2][-1] == [t("5s"), 1, 0] and st.hand_size(1) == 11


def test_minimum_score_withholds_the_win() -> None:
    st = scenario({0: "5m", 1: READY_1, 2: "5s"}, draws="9m", auto_pass=False)
    play(st, "0 discard 5m", "1 peng", "2 pass", "3 pass", "1 discard 1z", "2 pass", "3 pass",
         "0 pass", "2 discard 5s")
    assert st.legal_actions(1) == (PASS,)
    before = fingerprint(st)
    with pytest.raises(IllegalAction, match="minimum score not reached"):
        st.apply(1, WIN)
    assert fingerprint(st) == before


def test_no_win_before_opening() -> None:
    # seat 1 holds a complete concealed shape waiting on 5s but never opened
    st = scenario({0: "5s", 1: "234p678p234s123m5s"}, auto_pass=False, **NO_MIN)
    play(st, "0 discard 5s")
    assert WIN not in st.legal_actions(1)
    with pytest.raises(IllegalAction, match="has not opened"):
        st.apply(1, WIN)


def test_holding_red_dragon_blocks_the_win() -> None:
    # ready on 5s with 777z as a "set": the shape is complete, but 红中 must be konged first
    st = scenario({0: "5m", 1: "5m5m234p7z7z7z234s5s1z", 2: "5s"}, draws="9m", auto_pass=False,
                  **NO_MIN)
    play(st, "0 discard 5m", "1 peng", "2 pass", "3 pass", "1 discard 1z", "2 pass", "3 pass",
         "0 pass", "2 discard 5s")
    assert st.legal_actions(1) == (PASS,)
    with pytest.raises(IllegalAction, match="must be konged before a win"):
        st.apply(1, WIN)


def test_win_beats_peng() -> None:
    st = scenario({0: "5m5s5s", 1: READY_1, 2: "5s"}, draws="9m", **NO_MIN)
    play(st, "0 discard 5m", "1 peng", "1 discard 1z", "2 discard 5s")
    assert Peng(t("5s")) in st.legal_actions(0)
    play(st, "0 peng", "1 win")
    assert st.result is not None and st.result.winner == 1 and st.melds[0] == []


# Seat 1 pengs 1z (dealer's), drops 2z; seat 3 pengs that 2z, drops 5z; both then wait on 5s.
TWO_READY = {0: "1z", 1: "1z1z234p678p234s5s2z", 3: "2z2z234p678p234s5s5z"}


def _two_ready(**opts: object) -> object:
    st = scenario(TWO_READY, indicator="9s", draws="6z6z5s", **NO_MIN, **opts)  # type: ignore[arg-type]
    play(st, "0 discard 1z", "1 peng", "1 discard 2z", "3 peng", "3 discard 5z",
         "0 discard 6z", "1 discard 6z", "2 discard 5s")
    assert st.legal_actions(1) == (WIN, PASS)
    assert st.legal_actions(3) == (WIN, Chi(t("3s")), PASS)  # seat 3 may also chi 345s
    return st


def test_one_winner_first_counting_from_the_dealer() -> None:
    st = _two_ready()
    play(st, "3 win")
    assert st.phase == "claim"  # seat 1 has not answered yet
    play(st, "1 win")
    assert st.result is not None and st.result.winner == 1  # order from dealer 0: 1 before 3
    assert st.hand_size(3) == 10  # seat 3 keeps his tiles: one winner only


def test_one_winner_counting_from_the_discarder_option() -> None:
    st = _two_ready(winner_order="from_discarder")
    play(st, "1 win", "3 win")
    assert st.result is not None and st.result.winner == 3  # order from discarder 2: 3, 0, 1


def test_winner_order_counts_from_the_dealer_not_the_discarder() -> None:
    # the same hand turned one seat: dealer 3, discarder 1, winners 0 and 2
    hands = {(s + 3) % 4: h for s, h in TWO_READY.items()}
    st = scenario(hands, dealer=3, indicator="9s", draws="6z6z5s", **NO_MIN)
    play(st, "3 discard 1z", "0 peng", "0 discard 2z", "2 peng", "2 discard 5z",
         "3 discard 6z", "0 discard 6z", "1 discard 5s")
    assert st.legal_actions(0)[0] == WIN and st.legal_actions(2)[0] == WIN
    play(st, "0 win", "2 win")
    assert st.result is not None and st.result.winner == 0  # from dealer 3: 3, 0, 2 (1 discarded)


def test_no_furiten_a_passed_win_does_not_lock() -> None:
    st = scenario({0: "5m", 1: READY_1, 2: "5s", 3: "5s"}, draws="9m9m", **NO_MIN)
    play(st, "0 discard 5m", "1 peng", "1 discard 1z", "2 discard 5s")
    assert st.legal_actions(1) == (WIN, PASS)
    play(st, "1 pass")
    assert st.current == 3 and st.drawn == t("9m")
    play(st, "3 discard 5s")
    assert st.legal_actions(1) == (WIN, PASS)  # the earlier pass does not lock him
    play(st, "1 win")
    assert st.result is not None and (st.result.winner, st.result.from_seat) == (1, 3)
