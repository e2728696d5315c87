"""The typed in-process view holds exactly what the JSON seat view shows, and a bot
decides the same on either form."""

from __future__ import annotations

import random

import pytest

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading, parse_view
from wuhan_mahjong.bots.view import int_view
from wuhan_mahjong.engine import new_hand, seat_view
from wuhan_mahjong.rules import PROFILES, get_rules


@pytest.mark.parametrize("profile", [p if p == "yuanhang" else pytest.param(p, marks=pytest.mark.slow)
                                     for p in sorted(PROFILES)])
def test_int_view_equals_the_parsed_json_view_at_every_decision(profile: str) -> None:
    rules = get_rules(profile)
    checked = 0
    for h in range(6):
        state = new_hand(rules, h % 4, rng=random.Random(f"v{profile}{h}"), auto_pass=h % 2 == 0)
        bots = [get_bot("greedy", s) for s in range(4)]
        while not state.ended:
            for s in range(4):  # every seat's view, not only the one to act
                assert int_view(state, s) == parse_view(seat_view(state, s))
            seat = state.to_act()[0]
            state.apply(seat, bots[seat].choose(seat_view(state, seat)))
            checked += 1
        for s in range(4):  # at the end, concealed kongs are shown to all
            assert int_view(state, s) == parse_view(seat_view(state, s))
    assert checked > 100


@pytest.mark.slow
def test_another_seats_concealed_kong_stays_hidden() -> None:
    """Play until some seat makes a concealed kong: the others' int views hide its tiles."""
    rules = get_rules("yuanhang")
    for h in range(200):
        state = new_hand(rules, 0, rng=random.Random(h), auto_pass=True)
        bots = [get_bot("greedy", s) for s in range(4)]
        while not state.ended:
            for s in range(4):
                for m in state.melds[s]:
                    if m.kind == "concealed":
                        other = (s + 1) % 4
                        v = int_view(state, other)
                        assert v.seats[s].hidden_kongs >= 1
                        assert all(x.kind != "concealed" for x in v.seats[s].melds)
                        assert any(x.kind == "concealed" for x in int_view(state, s).seats[s].melds)
                        return
            seat = state.to_act()[0]
            state.apply(seat, bots[seat].choose(seat_view(state, seat)))
    pytest.fail("no concealed kong in 200 hands")


def test_bots_decide_the_same_on_either_form() -> None:
    rules = get_rules("bianfeng")
    n = 0
    for h in range(3):
        state = new_hand(rules, 0, rng=random.Random(h), auto_pass=True)
        bots = [ExpertBot(1, samples=16, lookahead_work=60), get_bot("greedy", 2),
                get_bot("random", 3), ExpertBot(4, samples=16, lookahead_work=60)]
        twins = [ExpertBot(1, samples=16, lookahead_work=60), get_bot("greedy", 2),
                 get_bot("random", 3), ExpertBot(4, samples=16, lookahead_work=60)]
        while not state.ended:
            seat = state.to_act()[0]
            a = bots[seat].choose(seat_view(state, seat))
            b = twins[seat].choose(int_view(state, seat))
            assert a == b
            assert SeatReading(int_view(state, seat)).public_key() == SeatReading(
                seat_view(state, seat)).public_key()
            state.apply(seat, a)
            n += 1
    assert n > 80
