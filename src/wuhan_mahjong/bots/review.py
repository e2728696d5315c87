"""A hand reviewed by a bot (复盘, "AI 复盘" as the mahjong apps call it): each decision one
seat took in a finished hand, beside what the bot would have done in its place.

:func:`review_hand` replays the hand's record with the engine and, before each of the
seat's actions that had an alternative, asks the bot (``expert`` by default) for its move on
the seat's own view, the very view the player had: the bot sees nothing more.  Besides
agreeing or not, two plain facts are marked, which need no bot to be believed:

``slower``
    a discard that leaves the hand further from ready (shanten, with 红中 / 发财 set aside:
    they only ever leave as kongs) than another legal discard would have;
``missed_win``
    a win that was on offer and not taken (passing a legal win on purpose, for a bigger
    hand, is rare; the mark lets the player look).

And for a discard, played or suggested, its tile acceptance (进张): how many of the tiles
the seat has not seen would bring the hand a step closer after it, the why of most
efficiency choices.

Decisions without an alternative (a lone legal action) are left out.  The review is a pure
function of (record, seat, policy, seed): every shipped bot is bounded by work, so the same
review is given every time and on every machine.

>>> import random
>>> from wuhan_mahjong.engine import Match, simple_policy
>>> from wuhan_mahjong.engine.records import load_records
>>> from wuhan_mahjong.rules import get_rules
>>> match = Match(get_rules(), 1, rng=random.Random(4))
>>> totals = match.run(simple_policy)
>>> events = load_records("\\n".join(match.history[0].records))[0]
>>> review = review_hand(events, 0)
>>> review["summary"]["decisions"] == len(review["decisions"]) > 0
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from ..analysis import shanten
from ..engine import seat_view
from ..engine.actions import Discard, LaiziDiscard, Win, action_from_json
from ..engine.records import VerifyError, replay
from ..engine.state import HandState
from ..engine.views import SeatView
from ..tiles import parse_tile
from . import get_bot
from .greedy import evaluator, step_acceptance
from .seat_reading import SeatReading

__all__ = ["REVIEW_POLICY", "HandReview", "ReviewSummary", "ReviewedDecision", "review_hand"]

REVIEW_POLICY = "expert"
"""The policy that reviews by default: the strongest whose decisions are cheap enough for a
whole hand (``bots.STRENGTH``)."""


class ReviewedDecision(TypedDict):
    step: int
    """How many of the hand's actions (and escapes) came before it: 0 is the deal."""
    wall: int
    """Live wall tiles left when it was taken."""
    phase: str
    """The view's phase: a turn (``discard``), a claim on a discard (``claim``) ..."""
    played: dict[str, Any]
    suggested: dict[str, Any]
    agree: bool
    slower: bool
    missed_win: bool
    shanten_played: int | None
    """A discard's shanten after it (``None`` for other actions)."""
    shanten_best: int | None
    """The best shanten a discard could have left (``None`` for other actions)."""
    accept_played: int | None
    """The played discard's acceptance (进张: unseen tiles that bring the hand a step
    closer after it; ``None`` for other actions)."""
    accept_suggested: int | None
    """The same of the bot's discard (``None`` when it suggests no discard)."""


class ReviewSummary(TypedDict):
    decisions: int
    agreed: int
    slower: int
    missed_wins: int


class HandReview(TypedDict):
    seat: int
    policy: str
    decisions: list[ReviewedDecision]
    summary: ReviewSummary


def _discarded(view: SeatView, played: Any) -> int | None:
    """The tile a discard (丢癞子 included) lets go of; ``None`` for any other action."""
    if isinstance(played, Discard):
        return played.tile
    if isinstance(played, LaiziDiscard):
        return parse_tile(view["laizi"])
    return None


def _rest(reading: SeatReading, tile: int) -> list[int]:
    """The seat's hand without ``tile``, the tiles that may only leave as kongs (红中 /
    发财) set aside."""
    rest = [x for x in reading.hand if x not in reading.must]
    rest.remove(tile)
    return rest


def _shanten_without(reading: SeatReading, tile: int) -> int:
    return shanten(_rest(reading, tile), reading.melds, reading.laizi, reading.rules)


def _acceptance_without(reading: SeatReading, tile: int) -> int:
    """进张 after discarding ``tile``: the unseen copies of the kinds that, drawn, lower the
    shanten of what is left (a kong-only tile never: it cannot stay in the hand), by the
    bots' hand evaluator (a hundred times faster than asking the shanten of each draw)."""
    rest = list(reading.hand)
    rest.remove(tile)
    return step_acceptance(evaluator(rest, reading.melds, reading), reading, live=False)


def review_hand(events: Sequence[dict[str, Any]], seat: int, *, policy: str = REVIEW_POLICY,
                seed: int = 0) -> HandReview:
    """Review seat ``seat``'s decisions in one finished hand (its record's events, as
    :func:`~wuhan_mahjong.engine.records.load_records` gives them).  Raises the engine's
    errors for a record that does not replay to its end."""
    if not 0 <= seat < 4:
        raise ValueError(f"seat {seat} is not one of 0-3")
    bot = get_bot(policy, seed)
    steps = [ev for ev in events[1:] if ev.get("e") in ("act", "escape")]
    decisions: list[ReviewedDecision] = []
    done = 0

    def before_next(state: HandState) -> None:  # the state as dealt, then after each step
        nonlocal done
        step, done = done, done + 1
        if step >= len(steps):
            return
        nxt = steps[step]
        if nxt.get("e") != "act" or nxt.get("seat") != seat:
            return
        view = seat_view(state, seat)
        legal = view["legal_actions"]
        if len(legal) < 2:
            return
        played = action_from_json(nxt.get("action"))
        suggested = bot.choose(view)
        tile = _discarded(view, played)
        reading = SeatReading(view)
        best = worse = None
        if tile is not None:
            options = {t for t in (_discarded(view, action_from_json(a)) for a in legal)
                       if t is not None}
            worse = _shanten_without(reading, tile)
            best = min(_shanten_without(reading, t) for t in options)
        bot_tile = _discarded(view, suggested)
        decisions.append({
            "step": step, "wall": view["wall"], "phase": view["phase"],
            "played": played.to_json(), "suggested": suggested.to_json(),
            "agree": suggested == played,
            "slower": best is not None and worse is not None and worse > best,
            "missed_win": not isinstance(played, Win) and any(
                isinstance(action_from_json(a), Win) for a in legal),
            "shanten_played": worse, "shanten_best": best,
            "accept_played": None if tile is None else _acceptance_without(reading, tile),
            "accept_suggested": None if bot_tile is None else _acceptance_without(reading,
                                                                                  bot_tile)})

    final = replay(events, before_next)
    if not final.ended:
        raise VerifyError("the replayed hand did not finish: the record misses actions")
    return {"seat": seat, "policy": policy, "decisions": decisions, "summary": {
        "decisions": len(decisions), "agreed": sum(d["agree"] for d in decisions),
        "slower": sum(d["slower"] for d in decisions),
        "missed_wins": sum(d["missed_win"] for d in decisions)}}
