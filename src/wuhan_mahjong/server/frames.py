"""The seat views of one move, their public part encoded once and shared (issue 11, item 5).

A table sends every human seat its view after every move.  Built seat by seat
(:func:`~wuhan_mahjong.engine.views.seat_view` and one JSON encoding each), the
four public seat entries, the header and the result were made and encoded four
times although they are the same for every viewer.  :class:`MoveViews` encodes
the spectator view (everything public, nothing concealed) once per move and
splices in what only the viewer sees: his ``viewer`` number, his own seat entry
when it differs (the faces of his own concealed kongs, :func:`shows_own_kongs`),
his concealed tiles, his drawn tile and his legal actions.

The text is exactly ``encode_view(seat_view(hand, viewer))``, byte for byte
(``tests/server/test_frames.py`` checks it over played hands of every profile),
so nothing hidden can enter a frame that the engine's view would not show.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..engine.state import HandState
from ..engine.views import VIEW_VERSION, own_part, public_seat, seat_view, shows_own_kongs

__all__ = ["MoveViews"]


def _dumps(obj: Any) -> str:
    return orjson.dumps(obj).decode()


class MoveViews:
    """The JSON texts of the seat views of ``hand`` as it stands now (one move)."""

    def __init__(self, hand: HandState) -> None:
        self.hand = hand
        public: dict[str, Any] = dict(seat_view(hand, None))
        seats = public.pop("seats")
        result = public.pop("result")
        for key in ("schema", "viewer", "hand", "drawn", "legal_actions"):
            public.pop(key)
        # '{"schema":2,"viewer":' V ',"decision":...,"on_table":...,"seats":[' S ']' OWN ',"result":' R '}'
        self._head = f'{{"schema":{VIEW_VERSION},"viewer":'
        self._middle = "," + _dumps(public)[1:-1] + ',"seats":['
        self._seats = [_dumps(s) for s in seats]
        self._end = ',"result":' + _dumps(result) + "}"

    def text(self, viewer: int, answered: bool = False) -> str:
        """The view of seat ``viewer``; ``answered``: he has answered the open window, so
        his legal actions are empty."""
        hand = self.hand
        seats = self._seats
        if shows_own_kongs(hand, viewer):
            seats = list(seats)
            seats[viewer] = _dumps(public_seat(hand, viewer, viewer))
        tiles, drawn, legal = own_part(hand, viewer)
        own = _dumps({"hand": tiles, "drawn": drawn, "legal_actions": [] if answered else legal})
        return f"{self._head}{viewer}{self._middle}{','.join(seats)}],{own[1:-1]}{self._end}"
