"""Scenario tests: kongs of every kind, robbing, special kongs, laizi plays, the end phase."""

from __future__ import annotations

import pytest
from engine_helpers import play, scenario, t

from wuhan_mahjong.engine import (
    PASS,
    WIN,
    Discard,
    HandState,
    IllegalAction,
    Kong,
    LaiziDiscard,
    Peng,
    SpecialCounts,
    SpecialKong,
    seat_view,
)
from wuhan_mahjong.meld import Meld


# --------------------------------------------------------------------------- 红中 / 发财 / laizi
def test_red_dragon_kong_replacement_draw_and_kong_bloom() -> None:
    st = scenario({0: "5m", 1: "5m5m234p678p234s5s7z"}, repl="5s")
    play(st, "0 discard 5m", "1 peng")
    acts = st.legal_actions(1)
    assert SpecialKong("red") in acts and Discard(t("7z")) not in acts
    with pytest.raises(IllegalAction, match=r"can never be discarded normally.*红中杠"):
        st.apply(1, Discard(t("7z")))
    play(st, "1 red")
    assert st.specials[1].red == 1 and st.counts[1][t("7z")] == 0
    assert st.drawn == t("5s") and st.draw_source == "replacement" and st.tail == 135
    assert st.legal_actions(1)[0] == WIN and st.win_by_now(1) == "kong_bloom"
    play(st, "1 win")
    r = st.result
    assert r is not None and r.win_by == "kong_bloom" and r.winner == 1 and r.from_seat is None
    assert r.settlement is not None and "gangshanghua" in r.settlement.hands
    assert sum(r.deltas) == 0 and r.deltas[1] > 0


def test_red_dragon_cannot_be_claimed_or_pengd() -> None:
    st = scenario({0: "7z5m", 1: "7z7z"})
    assert Peng(t("7z")) not in st.legal_actions(1)
    play(st, "0 red")  # the dealer plays it out: a kong, nothing for others to claim
    assert st.phase == "turn" and st.current == 0 and st.specials[0].red == 1
    assert st.rivers[0] == []


def test_laizi_kong_and_laizi_discard() -> None:
    # indicator 3z -> laizi 4z
    st = scenario({0: "4z4z", 1: "4z4z"}, repl="9s", auto_pass=False)
    acts = st.legal_actions(0)
    assert SpecialKong("laizi") in acts and LaiziDiscard() in acts
    with pytest.raises(IllegalAction, match="laizi 4z is not discarded normally"):
        st.apply(0, Discard(t("4z")))
    with pytest.raises(IllegalAction, match="never takes part in a kong"):
        st.apply(0, Kong("concealed", t("4z")))
    play(st, "0 laizi")
    assert st.specials[0].laizi == 1 and st.drawn == t("9s") and st.current == 0
    play(st, "0 laizi-discard")
    # never claimable: no claim window (not even without auto-pass); the next player draws
    assert st.phase == "turn" and st.current == 1 and st.drawn is not None
    assert st.rivers[0] == [[t("4z"), -1, 1]] and st.specials[0] == SpecialCounts(laizi=1, laizi_discards=1)
    assert Peng(t("4z")) not in st.legal_actions(1)
    view = seat_view(st, 2)
    assert view["seats"][0]["discards"] == [{"tile": "4z", "laizi": True, "claimed_by": None}]
    assert view["seats"][0]["special_kongs"]["laizi"] == 1 and view["seats"][0]["laizi_discards"] == 1


def test_green_dragon_kong_in_laizishanzhuang_only() -> None:
    st = scenario({0: "6z"}, profile="laizishanzhuang", repl="9s")
    assert SpecialKong("green") in st.legal_actions(0)
    assert Discard(t("6z")) not in st.legal_actions(0)
    play(st, "0 green")
    assert st.specials[0].green == 1 and st.drawn == t("9s")
    plain = scenario({0: "6z"})
    assert SpecialKong("green") not in plain.legal_actions(0)
    assert Discard(t("6z")) in plain.legal_actions(0)
    with pytest.raises(IllegalAction, match="发财杠 is only played"):
        plain.apply(0, SpecialKong("green"))


def test_indicator_kong_only_when_active() -> None:
    # indicator 9m -> laizi 1m; bianfeng plays 癞子皮杠 only with 口口翻
    st = scenario({0: "9m"}, indicator="9m", profile="bianfeng", opening_scoring="per_opening",
                  repl="9s")
    assert SpecialKong("pi") in st.legal_actions(0) and Discard(t("9m")) in st.legal_actions(0)
    play(st, "0 pi")
    assert st.specials[0].pi == 1 and st.drawn == t("9s")
    off = scenario({0: "9m"}, indicator="9m", profile="bianfeng")
    assert SpecialKong("pi") not in off.legal_actions(0)
    with pytest.raises(IllegalAction, match="癞子皮杠 is not played"):
        off.apply(0, SpecialKong("pi"))


# --------------------------------------------------------------------------- robbing
# Seat 2 pengs the dealer's 1z and waits on 2s/5s (34s, pair 5m5m); seat 3 pengs 5s later.
ROB = {0: "1z5s", 2: "1z1z234p678p34s5m5m2z", 3: "5s5s6z"}
ROB_DRAWS = "5z5z5z5z6z5s"


def _added_kong_declared() -> HandState:
    st = scenario(ROB, indicator="9p", draws=ROB_DRAWS, repl="9s")
    play(st, "0 discard 1z", "2 peng", "2 discard 2z", "3 discard 5z", "0 discard 5s")
    # seat 2 could win on this 5s only below the minimum score: withheld, so seat 3 pengs
    play(st, "3 peng", "3 discard 6z", "0 discard 5z", "1 discard 5z", "2 discard 6z")
    assert st.current == 3 and st.drawn == t("5s")
    assert Kong("added", t("5s")) in st.legal_actions(3)
    play(st, "3 kong added 5s")
    assert st.phase == "rob" and st.pending_tile == t("5s")
    assert st.legal_actions(2) == (WIN, PASS)
    return st


def test_robbing_an_added_kong() -> None:
    st = _added_kong_declared()
    view = seat_view(st, 1)
    assert view["on_table"] == {"seat": 3, "tile": "5s"} and view["phase"] == "rob"
    play(st, "2 win")
    r = st.result
    assert r is not None and (r.winner, r.win_by, r.from_seat, r.tile) == (2, "rob_kong", 3, t("5s"))
    assert st.melds[3][-1] == Meld("peng", (t("5s"),) * 3, 0)  # the kong never formed
    assert r.settlement is not None and r.settlement.contractor == 3
    assert r.deltas[0] == r.deltas[1] == 0 and r.deltas[2] == -r.deltas[3] > 0


def test_an_unrobbed_added_kong_completes_with_a_replacement() -> None:
    st = _added_kong_declared()
    play(st, "2 pass")
    assert st.melds[3][-1] == Meld("kong", (t("5s"),) * 4, 0, "added")
    assert st.phase == "turn" and st.current == 3 and st.drawn == t("9s")
    assert st.log[-2] == ("kong", 3, t("5s"))


def test_a_direct_kong_is_never_robbed() -> None:
    st = scenario({0: "1z5s", 2: ROB[2], 3: "5s5s5s6z"}, indicator="9p", draws="5z5z", repl="9s")
    play(st, "0 discard 1z", "2 peng", "2 discard 2z", "3 discard 5z", "0 discard 5s")
    play(st, "3 kong direct")
    assert st.phase == "turn" and st.current == 3 and st.drawn == t("9s")
    assert st.melds[3] == [Meld("kong", (t("5s"),) * 4, 0, "direct")]


def test_a_concealed_kong_is_never_robbed_and_its_face_is_hidden() -> None:
    st = scenario({0: "1z", 2: ROB[2], 3: "5s5s5s6z"}, indicator="9p", draws="5s", repl="9s")
    play(st, "0 discard 1z", "2 peng", "2 discard 2z")
    assert st.current == 3 and st.drawn == t("5s")
    play(st, "3 kong concealed 5s")
    assert st.phase == "turn" and st.current == 3 and st.drawn == t("9s")
    assert st.melds[3] == [Meld("kong", (t("5s"),) * 4, None, "concealed")]
    other = seat_view(st, 2)["seats"][3]["melds"][0]
    assert other == {"type": "kong", "kind": "concealed", "tiles": None, "from_seat": None}
    assert seat_view(st, 3)["seats"][3]["melds"][0]["tiles"] == "5555s"
    assert seat_view(st, None)["seats"][3]["melds"][0]["tiles"] is None


# --------------------------------------------------------------------------- end phase
END = {"end_phase_wall": 80, "min_score_one_loser": 0}
READY_1 = "5m5m234p678p234s5s1z"


def _end_phase(auto_pass: bool, last: str) -> HandState:
    st = scenario({0: "5m", 1: READY_1, 3: "9p9p9p"}, draws=f"5z9p6z{last}", auto_pass=auto_pass,
                  **END)
    if auto_pass:
        play(st, "0 discard 5m", "1 peng", "1 discard 1z")
    else:
        play(st, "0 discard 5m", "1 peng", "2 pass", "3 pass", "1 discard 1z", "2 pass", "3 pass",
             "0 pass")
    play(st, "2 discard 5z")
    if not auto_pass:
        play(st, "3 pass", "0 pass", "1 pass")
    assert st.current == 3 and st.drawn == t("9p") and st.live == 80 and st.end_phase
    assert Kong("concealed", t("9p")) not in st.legal_actions(3)  # no kong in the end phase
    with pytest.raises(IllegalAction, match="no kong of any kind in the end phase"):
        st.apply(3, Kong("concealed", t("9p")))
    play(st, "3 discard 9p")
    if not auto_pass:
        play(st, "0 pass", "1 pass", "2 pass")
    return st


def test_end_phase_final_draws_and_a_last_tile_win() -> None:
    st = _end_phase(False, "5s")
    assert st.phase == "final" and st.current == 0 and st.drawn == t("6z")
    assert st.legal_actions(0) == (PASS,)
    with pytest.raises(IllegalAction, match="only win or pass"):
        st.apply(0, Discard(t("6z")))
    play(st, "0 pass")
    assert st.phase == "final" and st.current == 1 and st.drawn == t("5s")
    assert st.legal_actions(1) == (WIN, PASS)
    play(st, "1 win")
    r = st.result
    assert r is not None and r.win_by == "last_tile" and r.winner == 1
    assert r.settlement is not None and "haidilao" in r.settlement.hands
    assert st.hand_size(0) == 14  # the final draw is kept: no discard


def test_exhaustive_draw_pays_nothing() -> None:
    st = _end_phase(True, "6z")
    assert st.result is not None and st.result.outcome == "exhausted"
    assert st.result.deltas == (0, 0, 0, 0)
    finals = [e for e in st.log if e[0] == "draw" and e[3] == "final"]
    assert [e[1] for e in finals] == [0, 1, 2, 3] and st.live == 76
    assert st.log[-1] == ("exhausted",)


def test_end_phase_discard_may_be_pengd_but_not_konged() -> None:
    st = scenario({0: "9m5z5z1p", 3: "6z6z6z5z"}, draws="6z", end_phase_wall=81)
    play(st, "0 discard 9m")
    assert st.end_phase and st.current == 1 and st.live == 81
    play(st, "1 discard 6z")
    assert st.legal_actions(3) == (Peng(t("6z")), PASS)  # three in hand, but no 冲杠 now
    play(st, "3 peng", "3 discard 5z", "0 peng", "0 discard 1p")
    # unclaimed: the final draws start with the discarder's next player, nobody can win
    finals = [e[1] for e in st.log if e[0] == "draw" and e[3] == "final"]
    assert finals == [1, 2, 3, 0] and st.result is not None and st.result.outcome == "exhausted"
    assert [e[0] for e in st.log].count("end_phase") == 1


def test_end_phase_hand_of_only_red_dragons_may_still_play_them_out() -> None:
    st = scenario({0: "7z7z5m"}, end_phase_wall=82)
    assert st.end_phase
    # the dealer may discard 5m, so no kong of any kind is offered
    assert SpecialKong("red") not in st.legal_actions(0)
    # a hand of nothing but 红中 (forced here) has no discard: the special kong stays legal
    only_red = st.copy()
    only_red.counts[0] = [0] * 34
    only_red.counts[0][33] = 4
    only_red.packed[0] = 4 << (3 * 33)  # the packed form of the counts (the laizi left out)
    only_red._legal = [None] * 4
    assert only_red.legal_actions(0) == (SpecialKong("red"),)
