"""The settlement calculator's answers, one function each, shared by every front end.

``wuhan-mahjong score`` and ``POST /api/score`` both call :func:`score_record`;
``wuhan-mahjong hand --json`` and ``POST /api/hand`` both end in
:func:`~wuhan_mahjong.handinfo.hand_report` (the HTTP query is read by
:func:`hand_query_text`).  So the terminal and the HTTP API always say exactly the
same thing, and a front end only maps the outcome to its own status:

============================  ==========  ===========
outcome                       CLI exit    HTTP status
============================  ==========  ===========
settled                       0           200
not a legal win               1           422
malformed (:data:`MALFORMED`) 2           400
============================  ==========  ===========
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .analysis import NotAWin
from .handinfo import HandInputError, hand_report
from .rules import DEFAULT_PROFILE, RulesError, get_rules
from .scoring import settle
from .tiles import TileError
from .win_record import RecordError, WinRecord, load_win_record, parse_json

__all__ = ["HAND_QUERY_FIELDS", "MALFORMED", "ScoreAnswer", "answer_record", "hand_query",
           "hand_query_text", "score_record"]

MALFORMED: tuple[type[ValueError], ...] = (RecordError, RulesError, TileError, HandInputError)
"""The errors that mean "malformed input" (CLI exit 2, HTTP 400); each has a one-line message."""

HAND_QUERY_FIELDS = ("hand", "indicator", "melds", "dealer", "profile", "options")


@dataclass(frozen=True)
class ScoreAnswer:
    """What a settlement record comes to: ``settled`` and the settlement JSON, or not a
    legal win and ``{"valid": false, "reason": ..., "refusal": {"code": ..., "params": ...}}``
    naming the rule that stops it (in English, and as a code a client translates)."""

    settled: bool
    body: dict[str, object]


def score_record(text: str) -> ScoreAnswer:
    """Settle the JSON text of one settlement record (``docs/score.md``).

    Raises :class:`~wuhan_mahjong.win_record.RecordError` when the record is
    malformed; a well-formed record that is not a legal win is an answer, not an error.

    >>> score_record('{"dealer": 0}')
    Traceback (most recent call last):
    ...
    wuhan_mahjong.win_record.RecordError: missing field 'indicator'
    """
    return answer_record(load_win_record(text))


def answer_record(rec: WinRecord) -> ScoreAnswer:
    """What the parsed record ``rec`` comes to (:func:`score_record` after the parsing): a
    record built in code (a win question, ``bots/win_puzzles.py``) gets the very answer its
    JSON text would."""
    try:
        result = settle(rec)
    except NotAWin as e:
        return ScoreAnswer(False, {"valid": False, "reason": str(e),
                                   "refusal": e.refusal.to_json()})
    return ScoreAnswer(True, result.to_json())


def hand_query(data: Any) -> dict[str, object]:
    """The JSON of ``wuhan-mahjong hand --json`` for a decoded JSON query.

    The query holds what the command's arguments hold: ``hand`` and
    ``indicator`` (tile strings), ``melds`` (specs such as ``"chi:234m"``, as
    ``--meld``), ``dealer`` (as ``--dealer``), ``profile`` and ``options`` (as
    ``--profile`` and ``--option NAME=VALUE``).  Raises :class:`RecordError` for
    a malformed query, or another of :data:`MALFORMED` for bad tiles, options or sizes.
    """
    if not isinstance(data, Mapping):
        raise RecordError("the query must be a JSON object")
    unknown = sorted(set(data) - set(HAND_QUERY_FIELDS))
    if unknown:
        raise RecordError(f"unknown field '{unknown[0]}' in the query")
    for key in ("hand", "indicator"):
        if key not in data:
            raise RecordError(f"missing field '{key}'")
        if not isinstance(data[key], str):
            raise RecordError(f"{key} must be a tile string")
    melds = data.get("melds", [])
    if not isinstance(melds, list) or not all(isinstance(m, str) for m in melds):
        raise RecordError('melds must be a list of meld specs such as "chi:234m"')
    dealer = data.get("dealer", False)
    if not isinstance(dealer, bool):
        raise RecordError("dealer must be true or false")
    profile = data.get("profile", DEFAULT_PROFILE)
    if not isinstance(profile, str):
        raise RecordError("profile must be a string")
    options = data.get("options")
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise RecordError("options must be a JSON object")
    rules = get_rules(profile, options)
    return hand_report(data["hand"], data["indicator"], list(melds), rules, dealer=dealer).to_json()


def hand_query_text(text: str) -> dict[str, object]:
    """:func:`hand_query` of JSON text (bad JSON raises :class:`RecordError`)."""
    return hand_query(parse_json(text))
