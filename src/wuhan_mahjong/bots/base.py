"""The bot interface: a bot sees exactly what a human client sees, its seat view.

A bot is any object with a ``name`` and a ``choose(view)`` method that returns
one of the view's legal actions.  The view is the JSON-ready dictionary of
:func:`wuhan_mahjong.engine.views.seat_view` (the same frames the server sends
to a browser); the bot never receives the engine state.

>>> import random
>>> from wuhan_mahjong.engine import new_hand, seat_view
>>> from wuhan_mahjong.rules import get_rules
>>> state = new_hand(get_rules(), dealer=0, rng=random.Random(3))
>>> bot = RandomBot(seed=1)
>>> action = bot.choose(seat_view(state, 0))
>>> action in state.legal_actions(0)
True
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from ..engine.actions import PASS, WIN, Action, action_from_json
from ..engine.views import SeatView
from .view import IntView


@runtime_checkable
class Bot(Protocol):
    """What every policy implements."""

    name: str

    def choose(self, view: SeatView) -> Action:
        """One of ``view["legal_actions"]``, as an engine action."""
        ...


class NoLegalAction(ValueError):
    """The view offers this seat nothing to do (it is not its decision)."""


def legal_actions(view: SeatView | IntView) -> list[Action]:
    """The view's legal actions as engine action objects."""
    if isinstance(view, IntView):
        acts = list(view.legal_actions)
        viewer: int | None = view.viewer
    else:
        acts = [action_from_json(a) for a in view["legal_actions"]]
        viewer = view["viewer"]
    if not acts:
        raise NoLegalAction(f"seat {viewer} has no decision to make")
    return acts


class RandomBot:
    """Uniformly random legal actions, except that a win is always taken and a
    claim is passed on half the time (so that hands do not end in a pile of
    melds)."""

    name = "random"
    #: the arena may hand it the in-process view (:mod:`wuhan_mahjong.bots.view`)
    accepts_int_view = True

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: SeatView | IntView) -> Action:
        acts = legal_actions(view)
        if WIN in acts:
            return WIN
        if PASS in acts and self.rng.random() < 0.5:
            return PASS
        return acts[int(self.rng.random() * len(acts))]
