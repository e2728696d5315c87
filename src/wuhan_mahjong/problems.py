"""Bad input that says what is wrong in a form any language can use.

A malformed settlement record, hand query or meld raises an error whose message is an
English sentence (what the command line prints) and which also carries a ``code`` naming
the problem and the ``params`` the sentence is built from (a seat, a tile, a count).  The
HTTP API sends both; the browser client says the problem in the player's language from the
code and falls back on the sentence for a code it does not know.

>>> e = InputProblem("more than four copies of 5m (5) in the record", "too_many_copies",
...                  tile="5m", count=5)
>>> str(e), e.code, e.params
('more than four copies of 5m (5) in the record', 'too_many_copies', {'tile': '5m', 'count': 5})
"""

from __future__ import annotations

__all__ = ["MALFORMED_CODE", "PROBLEM_PARAMS", "InputProblem"]

MALFORMED_CODE = "malformed"
"""The code of a problem no client translates (the structure of the JSON, an unknown field):
the sentence says it."""

_MELD = frozenset({"seat", "meld"})
PROBLEM_PARAMS: dict[str, frozenset[str]] = {
    MALFORMED_CODE: frozenset(),
    "winner_size": frozenset({"seat", "tiles", "melds"}),
    "seat_size": frozenset({"seat", "tiles", "melds"}),
    "hand_size": frozenset({"tiles", "melds"}),
    "too_many_copies": frozenset({"tile", "count"}),
    "too_many_copies_indicator": frozenset({"tile", "count"}),
    "too_many_melds": frozenset({"seat"}),
    "chi_not_run": _MELD,
    "not_identical": _MELD | {"type", "count"},
    "chi_not_previous": _MELD,
    "own_feed": _MELD | {"type"},
    "concealed_fed": _MELD,
    "laizi_in_meld": _MELD | {"tile"},
    "kong_alone": _MELD | {"tile"},
    "green_kong_not_played": frozenset({"seat", "profile"}),
    "pi_kong_not_played": frozenset({"seat"}),
    "kong_count": frozenset({"seat", "kind", "count", "most"}),
    "bloom_without_kong": frozenset({"seat"}),
    "robbed_without_peng": frozenset({"seat", "tile"}),
    "from_missing": frozenset({"win_by"}),
    "from_winner": frozenset(),
    "option_range": frozenset({"option", "value", "low", "high"}),
}
"""Every problem code and the parameters it may carry (docs/protocol.md "Problems"; a hand
query's meld problems have no ``seat``).  ``seat`` is a seat number, ``meld`` a meld's place
in its list from 0, ``tile`` a tile's notation; ``option`` a rule option's name, ``value``
the value given (as text: it may be of any kind), ``low`` and ``high`` its range."""


class InputProblem(ValueError):
    """Bad input: the English sentence, and the problem's ``code`` and ``params``."""

    code: str
    params: dict[str, int | float | str]

    def __init__(self, message: str, code: str = MALFORMED_CODE,
                 **params: int | float | str) -> None:
        known = PROBLEM_PARAMS.get(code)
        if known is None or not set(params) <= known:
            raise ValueError(f"problem {code!r} with parameters {sorted(params)}: "
                             "not in PROBLEM_PARAMS")
        super().__init__(message)
        self.code = code
        self.params = params
