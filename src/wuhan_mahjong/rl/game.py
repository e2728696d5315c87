"""The game every environment of :mod:`wuhan_mahjong.rl` wraps (:class:`IndexedGame`): one
hand or a match, stepped by action indices, with seeding, rewards and the handling of illegal indices.

Illegal indices (what a learner without a mask samples) never end the hand and never
raise: the seat plays its *default action* instead — pass when it may pass,
otherwise discard the tile just drawn, otherwise the first legal discard,
otherwise the first legal action — and the step reports ``illegal`` (the
environments put it in ``info`` and add the optional ``illegal_penalty``).  An index is
an integer (``int``, a NumPy integer or a 0-d integer array, as ``Discrete`` samples):
anything else — ``3.7``, ``"3"``, ``True``, ``None`` — is illegal too, never rounded.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine.actions import PASS, Action, Discard
from ..engine.match import Match
from ..engine.state import HandState, new_hand
from ..engine.views import seat_view
from ..rules import PROFILES, Rules, get_rules
from .spaces import OBS_SHAPE, action_mask, action_number, encode, index_action


def make_rules(profile: str, options: Mapping[str, Any]) -> Rules:
    """The rules of an environment: a profile's name and rule options, where a NumPy
    scalar (a value from a sweep's array) counts as the Python number it holds (the rules
    said ``cap`` "must be a non-negative integer, got np.int64(5)")."""
    if not isinstance(profile, str) or profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r} (choose from {', '.join(sorted(PROFILES))})")
    return get_rules(profile, {k: v.item() if isinstance(v, np.generic) else v
                               for k, v in options.items()})


def whole_number(name: str, value: Any, low: int) -> int:
    """``value`` if it is an integer (not a bool) of at least ``low``, else a ValueError
    naming ``name``: an environment's sizes and counts."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise ValueError(f"{name} must be a whole number of at least {low}, got {value!r}")
    return int(value)


def finite_number(name: str, value: Any) -> float:
    """``value`` as a float if it is a finite number (not a bool), else a ValueError naming
    ``name``: a reward scale or penalty that is NaN or infinite poisons every return."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating) \
            or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def seed_value(seed: Any) -> Any:
    """A reset's ``seed`` for :class:`random.Random`: a NumPy integer as the ``int`` it is
    (``Random`` refused it); None, a whole number of at least 0, a ``str`` or ``bytes`` as
    given; anything else a ValueError naming it.  A negative number is refused, as
    Gymnasium refuses it: ``Random(-n)`` is ``Random(n)``, so seeds -1 and 1 dealt the
    same episodes, and a sweep over both counted them twice."""
    if isinstance(seed, np.integer):
        seed = int(seed)
    if isinstance(seed, int) and not isinstance(seed, bool) and seed < 0:
        raise ValueError(f"seed must be at least 0 (Random(-n) is Random(n)), got {seed}")
    if seed is None or isinstance(seed, int | float | str | bytes | bytearray):
        return seed
    raise ValueError(f"seed must be an integer or None, got {seed!r}")


def default_action(state: HandState, seat: int) -> Action:
    """What a seat plays for an illegal index (see the module docstring)."""
    acts = state.legal_actions(seat)
    if PASS in acts:
        return PASS
    drawn = state.drawn
    discards = [a for a in acts if isinstance(a, Discard)]
    for a in discards:
        if a.tile == drawn:
            return a
    return discards[0] if discards else acts[0]


class IndexedGame:
    """A hand (``match=False``) or a match of ``hands`` hands, driven by action indices."""

    def __init__(self, profile: str = "yuanhang", *, match: bool = False, hands: int = 4,
                 auto_pass: bool = False, reward_scale: float = 1.0,
                 options: Mapping[str, Any] | None = None) -> None:
        hands = whole_number("hands", hands, 1)  # a match needs at least one hand
        self.rules = make_rules(profile, options or {})
        self.profile = profile
        self.match_mode = match
        self.hands = hands
        self.auto_pass = auto_pass
        self.reward_scale = finite_number("reward_scale", reward_scale)
        self.rng: random.Random = random.Random()
        self.match: Match | None = None
        self.state: HandState = new_hand(self.rules, 0, rng=self.rng, auto_pass=auto_pass)

    def reset(self, seed: int | None = None) -> None:
        """A new hand (or match).  ``seed`` reseeds the walls; without it the stream goes on."""
        if seed is not None:
            self.rng = random.Random(seed_value(seed))
        if self.match_mode:
            self.match = Match(self.rules, self.hands, rng=self.rng, auto_pass=self.auto_pass)
            self.state = self.match.start_hand()
        else:
            self.state = new_hand(self.rules, self.rng.randrange(4), rng=self.rng,
                                  auto_pass=self.auto_pass)

    def progress(self) -> dict[str, Any] | None:
        """Where the match stands, public to every seat (``None`` in single-hand mode):
        ``hand_no`` (0-based: the hand being played, or ``hands`` once the match is over),
        ``hands`` and ``totals`` (each seat's points so far, unscaled)."""
        if self.match is None:
            return None
        return {"hand_no": self.match.hand_no, "hands": self.match.hands,
                "totals": list(self.match.totals)}

    @property
    def over(self) -> bool:
        """The hand (single-hand mode) or the whole match is over."""
        if self.match is not None:
            return self.match.finished
        return self.state.ended

    def deciding(self, seat: int) -> bool:
        return bool(self.state.legal_actions(seat)) and not self.over

    def actor(self) -> int | None:
        acts = self.state.to_act()
        return acts[0] if acts else None

    def on_table(self) -> int | None:
        return self.state.pending_tile

    def mask(self, seat: int) -> npt.NDArray[np.int8]:
        return action_mask(self.state.legal_actions(seat), self.state.pending_tile)

    def observe(self, seat: int, out: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
        return encode(seat_view(self.state, seat), out)

    def empty_obs(self) -> npt.NDArray[np.float32]:
        return np.zeros(OBS_SHAPE, dtype=np.float32)

    def to_action(self, seat: int, index: Any) -> tuple[Action, bool]:
        """The engine action for ``index`` by ``seat``, or the default action and True if illegal."""
        state = self.state
        number = action_number(index)
        if number is None:
            return default_action(state, seat), True
        try:
            action = index_action(number, state.pending_tile)
        except ValueError:
            return default_action(state, seat), True
        if action in state.legal_actions(seat):
            return action, False
        return default_action(state, seat), True

    def play(self, seat: int, action: Action) -> tuple[float, float, float, float] | None:
        """Apply a legal action; the scaled deltas of a hand that just ended, else None."""
        state = self.state
        if self.match is not None:
            self.match.apply(seat, action)
        else:
            state.apply(seat, action)
        if not state.ended:
            return None
        assert state.result is not None
        k = self.reward_scale
        d = state.result.deltas
        if self.match is not None and not self.match.finished:
            self.state = self.match.start_hand()
        return (d[0] * k, d[1] * k, d[2] * k, d[3] * k)
