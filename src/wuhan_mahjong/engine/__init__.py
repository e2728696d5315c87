"""The game engine: a pure state machine for one hand, matches, fair dealing, views and records.

No I/O, no clocks; randomness only from an injected :class:`random.Random`
(the default is the OS CSPRNG, :class:`secrets.SystemRandom`).  See
``docs/engine.md`` for the rules decisions and ``docs/records.md`` for the record
format.

>>> import random
>>> from wuhan_mahjong.rules import get_rules
>>> state = new_hand(get_rules("bianfeng"), dealer=0, rng=random.Random(7))
>>> state.phase, state.to_act(), len(state.hand_tiles(0)), len(state.hand_tiles(1))
('turn', (0,), 14, 13)
>>> _ = play_hand(state, random_policy(random.Random(1)))
>>> state.result.outcome in ("win", "exhausted"), sum(state.result.deltas)
(True, 0)
"""

from .actions import (
    PASS,
    WIN,
    Action,
    ActionFormatError,
    Chi,
    Discard,
    IllegalAction,
    Kong,
    LaiziDiscard,
    Pass,
    Peng,
    SpecialKong,
    Win,
    action_from_json,
    parse_action,
)
from .dealing import SeededRandom, arrange_wall, commitment, new_salt, shuffled_wall
from .match import HandSummary, Match, MatchError, escape_deltas, play_hand, random_policy, simple_policy
from .records import (
    HandRecordError,
    RecordOutcome,
    SeatOutcome,
    VerifyError,
    describe,
    load_records,
    record_lines,
    record_outcome,
    replay,
    verify,
)
from .state import HandResult, HandState, SpecialCounts, new_hand, reduce, tile_census
from .views import SeatView, seat_view, spectator_view

__all__ = [
    "PASS", "WIN", "Action", "ActionFormatError", "Chi", "Discard", "HandRecordError", "HandResult",
    "HandState", "HandSummary", "IllegalAction", "Kong", "LaiziDiscard", "Match", "MatchError",
    "Pass", "Peng", "RecordOutcome", "SeatOutcome", "SeatView", "SeededRandom", "SpecialCounts",
    "SpecialKong", "VerifyError", "Win", "action_from_json",
    "arrange_wall", "commitment", "describe", "escape_deltas", "load_records", "new_hand",
    "new_salt", "parse_action", "play_hand", "random_policy", "record_lines", "record_outcome",
    "reduce", "replay", "seat_view", "shuffled_wall", "simple_policy", "spectator_view",
    "tile_census", "verify",
]
