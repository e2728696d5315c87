"""Bots play whole hands in every profile and only ever return legal actions.

Every call of ``choose`` goes through a guard that checks the argument is
exactly the seat view of the seat to act (a plain dict, nothing else), and
that the answer is one of that seat's legal actions.
"""

from __future__ import annotations

import random

import pytest

from wuhan_mahjong.bots import Bot, get_bot
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine import HandState, new_hand, seat_view
from wuhan_mahjong.rules import PROFILES, get_rules

PROFILE_NAMES = sorted(PROFILES)


def play(state: HandState, bots: list[Bot]) -> int:
    """Play the hand to its end through the guard; returns the number of decisions."""
    n = 0
    while not state.ended:
        for seat in state.to_act():
            view = seat_view(state, seat)
            snapshot = repr(view)
            action = bots[seat].choose(view)
            assert type(view) is dict
            assert repr(view) == snapshot, "a bot must not modify its view"
            assert action in state.legal_actions(seat), (bots[seat].name, action, view)
            state.apply(seat, action)
            n += 1
            break
    return n


@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_greedy_and_random_are_legal_over_many_hands(profile: str) -> None:
    rules = get_rules(profile)
    outcomes = {"win": 0, "exhausted": 0}
    decisions = 0
    for h in range(300):
        names = ["greedy", "random", "greedy", "random"] if h % 2 else ["random", "greedy"] * 2
        bots = [get_bot(names[s], seed=h * 4 + s) for s in range(4)]
        # half of the hands without auto_pass: the bots also answer pass-only windows
        state = new_hand(rules, h % 4, rng=random.Random(f"{profile}{h}"), auto_pass=h % 2 == 0)
        decisions += play(state, bots)
        assert state.result is not None and sum(state.result.deltas) == 0
        outcomes[state.result.outcome] += 1
    assert outcomes["win"] > 100
    assert decisions > 300 * 40


@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_four_greedy_bots_are_legal(profile: str) -> None:
    rules = get_rules(profile)
    for h in range(120):
        bots = [get_bot("greedy", seed=s) for s in range(4)]
        state = new_hand(rules, h % 4, rng=random.Random(f"g{profile}{h}"), auto_pass=True)
        play(state, bots)


@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_expert_is_legal_with_a_tiny_budget(profile: str) -> None:
    rules = get_rules(profile)
    for h in range(40):
        bots: list[Bot] = [ExpertBot(seed=h, samples=12, lookahead_work=40), get_bot("greedy", 1),
                           ExpertBot(seed=h + 1, samples=12, lookahead_work=40), get_bot("random", h)]
        state = new_hand(rules, h % 4, rng=random.Random(f"e{profile}{h}"), auto_pass=h % 2 == 0)
        play(state, bots)


@pytest.mark.slow
def test_greedy_wins_against_random() -> None:
    rules = get_rules("yuanhang")
    total = [0, 0, 0, 0]
    for h in range(40):
        bots = [get_bot("greedy", 0), get_bot("random", h), get_bot("random", h + 1),
                get_bot("random", h + 2)]
        state = new_hand(rules, h % 4, rng=random.Random(h), auto_pass=True)
        play(state, bots)
        assert state.result is not None
        for s in range(4):
            total[s] += state.result.deltas[s]
    assert total[0] > 0 and total[0] > max(total[1:])


@pytest.mark.slow
def test_bots_take_a_win_when_offered() -> None:
    """Whenever WIN is legal, greedy and expert take it (every win offered is legal)."""
    rules = get_rules("laizishanzhuang")
    seen = 0
    for h in range(60):
        bots = [get_bot("greedy", 0), ExpertBot(0, samples=8, lookahead_work=20), get_bot("greedy", 0),
                ExpertBot(1, samples=8, lookahead_work=20)]
        state = new_hand(rules, 0, rng=random.Random(h), auto_pass=True)
        while not state.ended:
            seat = state.to_act()[0]
            view = seat_view(state, seat)
            action = bots[seat].choose(view)
            if any(a["type"] == "win" for a in view["legal_actions"]):
                assert action.to_json() == {"type": "win"}
                seen += 1
            state.apply(seat, action)
    assert seen > 0
