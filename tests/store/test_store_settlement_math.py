"""The pure settlement arithmetic (no database): many cases, fast."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wuhan_mahjong.store import InvalidSettlement, compute_escape, compute_game


def test_full_payment() -> None:
    out = compute_game({1: 1000, 2: 1000, 3: 1000, 4: 1000}, 10, {1: -20, 2: -20, 3: -20, 4: 60}, 0)
    assert [out[a].silver for a in (1, 2, 3, 4)] == [-200, -200, -200, 600]


def test_loser_pays_at_most_his_balance() -> None:
    out = compute_game({1: 50, 2: 1000, 3: 1000, 4: 0}, 10, {1: -20, 2: -20, 3: 60, 4: -20}, 0)
    assert out[1].silver == -50
    assert out[4].silver == 0
    assert out[2].silver == -200
    assert out[3].silver == 250  # only what was collected


def test_several_winners_proportional_with_remainder_to_largest() -> None:
    # 7 silver collected for wins of 2 and 1 points at stake 5: 7*2/3=4.67 -> 4, 7*1/3 -> 2,
    # the 1 left goes to the largest winner.
    out = compute_game({1: 7, 2: 0, 3: 0}, 5, {1: -3, 2: 2, 3: 1}, 0)
    assert (out[2].silver, out[3].silver) == (5, 2)


def test_remainder_never_exceeds_what_a_winner_is_owed() -> None:
    # 3 equal winners owed 1 each, 2 collected: the largest (lowest id on a tie) can
    # take only 1, the next unit goes to the next winner.
    out = compute_game({9: 2, 1: 0, 2: 0, 3: 0}, 1, {9: -3, 1: 1, 2: 1, 3: 1}, 0)
    assert [out[a].silver for a in (1, 2, 3)] == [1, 1, 0]


def test_fee_floored_at_zero_after_the_game() -> None:
    out = compute_game({1: 30, 2: 3, 3: 0}, 1, {1: -30, 2: 30, 3: 0}, 10)
    assert (out[1].silver, out[1].fee) == (-30, 0)
    assert (out[2].silver, out[2].fee) == (30, 10)
    assert out[3].fee == 0


@pytest.mark.parametrize(
    ("stake", "deltas", "fee"),
    [
        (-1, {1: 0}, 0),
        (1, {1: 0}, -1),
        (1, {}, 0),
        (1, {1: 5, 2: -4}, 0),  # not zero-sum
    ],
)
def test_game_rejects_bad_input(stake: int, deltas: dict[int, int], fee: int) -> None:
    with pytest.raises(InvalidSettlement):
        compute_game({1: 10, 2: 10}, stake, deltas, fee)


def test_escape_split_and_fee() -> None:
    out = compute_escape({1: 1000, 2: 0, 3: 0, 4: 0}, 1, [3, 4, 2], 400, 7, penalty_points=40)
    assert out[1].silver == -400 and out[1].fee == 7 and out[1].points == -40
    assert [out[a].silver for a in (3, 4, 2)] == [134, 133, 133]  # remainder: first listed
    assert [out[a].points for a in (3, 4, 2)] == [14, 13, 13]
    assert all(out[a].fee == 0 for a in (2, 3, 4))


def test_escape_capped_by_balance_then_fee_floored() -> None:
    out = compute_escape({1: 100, 2: 0, 3: 0, 4: 0}, 1, [2, 3, 4], 400, 10)
    assert out[1].silver == -100 and out[1].fee == 0
    assert sum(out[a].silver for a in (2, 3, 4)) == 100


@pytest.mark.parametrize(("escaper", "others"), [(1, []), (1, [1, 2]), (1, [2, 2])])
def test_escape_rejects_bad_players(escaper: int, others: list[int]) -> None:
    with pytest.raises(InvalidSettlement):
        compute_escape({1: 1, 2: 1}, escaper, others, 1, 0)


@st.composite
def games(draw: st.DrawFn) -> tuple[dict[int, int], int, dict[int, int], int]:
    players = draw(st.integers(min_value=2, max_value=4))
    ids = list(range(1, players + 1))
    balances = {a: draw(st.integers(min_value=0, max_value=5000)) for a in ids}
    raw = [draw(st.integers(min_value=-300, max_value=300)) for _ in ids[:-1]]
    deltas = dict(zip(ids, [*raw, -sum(raw)], strict=True))
    stake = draw(st.integers(min_value=0, max_value=50))
    fee = draw(st.integers(min_value=0, max_value=200))
    return balances, stake, deltas, fee


@given(games())
def test_game_properties(game: tuple[dict[int, int], int, dict[int, int], int]) -> None:
    balances, stake, deltas, fee = game
    out = compute_game(balances, stake, deltas, fee)
    assert set(out) == set(deltas)
    # Silver is only moved between players: winners get exactly what losers paid.
    assert sum(o.silver for o in out.values()) == 0
    for account, o in out.items():
        owed = deltas[account] * stake
        assert o.points == deltas[account]
        after = balances[account] + o.silver - o.fee
        assert after >= 0
        assert 0 <= o.fee <= fee
        if deltas[account] < 0:
            assert o.silver == -min(-owed, balances[account])
        else:
            assert 0 <= o.silver <= owed
        # The fee is taken in full whenever the balance allows it.
        assert o.fee == min(fee, balances[account] + o.silver)
    winners = [a for a in deltas if deltas[a] > 0]
    collected = -sum(out[a].silver for a in deltas if deltas[a] < 0)
    if len(winners) == 1:
        assert out[winners[0]].silver == collected


@given(
    st.integers(min_value=0, max_value=2000),
    st.integers(min_value=1, max_value=3),
    st.integers(min_value=0, max_value=2000),
    st.integers(min_value=0, max_value=100),
    st.integers(min_value=0, max_value=1000),
)
def test_escape_properties(
    balance: int, n_others: int, penalty: int, fee: int, penalty_points: int
) -> None:
    others = list(range(2, 2 + n_others))
    balances = {1: balance} | dict.fromkeys(others, 0)
    out = compute_escape(balances, 1, others, penalty, fee, penalty_points)
    paid = min(penalty, balance)
    assert out[1].silver == -paid
    assert sum(out[a].silver for a in others) == paid
    assert max(out[a].silver for a in others) - min(out[a].silver for a in others) <= 1
    assert out[1].fee == min(fee, balance - paid)
    assert balance - paid - out[1].fee >= 0
    assert sum(o.points for o in out.values()) == 0
