"""The decisions of an expert against three greedy seats on the arena's duplicate deals, for
the analysis tools of docs/bots-log.md (``bots_defence_check.py``, ``bots_dealin_study.py``).

Each deal is played four times with the seats rotated, as the arena does: in rotation
``r`` the expert sits at seat ``(4 - r) % 4`` (seat ``i`` plays ``seats[(i + r) % 4]``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from wuhan_mahjong.bots.arena import _seed_for, deal
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot
from wuhan_mahjong.engine import Action, new_hand, seat_view
from wuhan_mahjong.engine.actions import WIN, Discard
from wuhan_mahjong.engine.state import HandState
from wuhan_mahjong.engine.views import SeatView
from wuhan_mahjong.rules import Rules


@dataclass
class Decision:
    """One decision of the hand being played: the real state (which no player sees), the
    seat deciding, its view, its bot and the action it chose; ``me`` is the expert's seat."""

    group: int
    state: HandState
    seat: int
    view: SeatView
    bot: ExpertBot | GreedyBot
    action: Action
    me: int


def expert_decisions(rules: Rules, seed: int, deals: int) -> Iterator[Decision]:
    """Every decision of ``deals`` duplicate deals of ``seed``, each yielded before its
    action is applied (the caller may try other actions on copies of ``state``); the hand
    goes on with the chosen action once the caller asks for the next one."""
    for g in range(deals):
        wall, salt = deal(seed, g)
        for r in range(4):
            me = (4 - r) % 4
            bots: list[ExpertBot | GreedyBot] = []
            for i in range(4):
                sd = _seed_for(seed, g, r, i)
                bots.append(ExpertBot(sd) if i == me else GreedyBot(sd))
            state = new_hand(rules, 0, wall=wall, salt=salt, hand_no=g * 4 + r, auto_pass=True)
            while not state.ended:
                s = state.to_act()[0]
                view = seat_view(state, s)
                action = bots[s].choose(view)
                yield Decision(g, state, s, view, bots[s], action, me)
                state.apply(s, action)


def deals_in(state: HandState, seat: int, tile: int) -> bool:
    """Whether discarding ``tile`` from ``seat`` now gets some opponent a win offer (tried on
    a copy of the real state)."""
    s2 = state.copy()
    s2.apply(seat, Discard(tile))
    if s2.ended or s2.phase != "claim":
        # no claim window: nobody may win on it (the next seat's own draw is no deal-in;
        # until 2 December 2026 a self-draw win offer there was counted as one)
        return False
    return any(o != seat and WIN in s2.legal_actions(o) for o in range(4))
