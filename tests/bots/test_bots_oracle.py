"""The defence oracle of ``bench/bots_oracle.py``: it sees through the engine which discards
an opponent may win on, and swaps only those (docs/bots-log.md, the room a reading could add)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wuhan_mahjong.bots.arena import deal
from wuhan_mahjong.bots.greedy import GreedyBot
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import new_hand, seat_view
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.rules import get_rules

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from _expert_deals import deals_in
from bots_oracle import ReaderExpert, oracle_defence


@pytest.mark.parametrize("profile", ["yuanhang", "laizishanzhuang"])
def test_the_oracle_swaps_exactly_the_discards_an_opponent_wins_on(profile: str) -> None:
    rules = get_rules(profile)
    checked = swapped = 0
    for hand_no in range(12):
        wall, salt = deal(5, hand_no // 4)
        state = new_hand(rules, hand_no % 4, wall=wall, salt=salt, hand_no=hand_no,
                         auto_pass=True)
        bots = [GreedyBot(i) for i in range(4)]
        while not state.ended:
            seat = state.to_act()[0]
            action = bots[seat].choose(seat_view(state, seat))
            if isinstance(action, Discard):
                checked += 1
                chosen, swap = oracle_defence(state, seat, action)
                danger = deals_in(state, seat, action.tile)
                assert swap <= danger and (chosen == action) == (not swap)
                if swap:
                    swapped += 1
                    assert isinstance(chosen, Discard) and not deals_in(state, seat, chosen.tile)
                # played as chosen: greedy wins whenever he may, so a dangerous discard ends
                # the hand as this seat's deal-in, and a safe one is never won on
                after = state.copy()
                after.apply(seat, action)
                while not after.ended and after.phase == "claim":
                    s = after.to_act()[0]
                    after.apply(s, bots[s].choose(seat_view(after, s)))
                r = after.result
                dealt_in = r is not None and r.win_by == "discard" and r.from_seat == seat
                assert dealt_in == danger
            state.apply(seat, action)
    assert checked > 100 and swapped >= 1


def test_the_reader_reads_the_truth() -> None:
    """The perfect opponent model rates a held tile certain to deal in exactly when an
    opponent may win on it, and certain not to otherwise."""
    rules = get_rules("yuanhang")
    ready_seen = 0
    for hand_no in range(8):
        wall, salt = deal(6, hand_no // 4)
        state = new_hand(rules, hand_no % 4, wall=wall, salt=salt, hand_no=hand_no,
                         auto_pass=True)
        bots = [GreedyBot(i) for i in range(4)]
        while not state.ended:
            seat = state.to_act()[0]
            view = seat_view(state, seat)
            action = bots[seat].choose(view)
            if isinstance(action, Discard):
                reader = ReaderExpert(7)
                reader.state = state
                reader._prepare(SeatReading(view))
                model = reader.model()
                assert reader.model() is model  # read once per decision
                for a in state.legal_actions(seat):
                    if isinstance(a, Discard):
                        p = max(r.p_ready * r.waits[a.tile] for r in model.reads.values())
                        assert p == (1.0 if deals_in(state, seat, a.tile) else 0.0)
                        ready_seen += p == 1.0
            state.apply(seat, action)
    assert ready_seen >= 5
