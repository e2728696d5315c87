"""Help for a player's own hand (提示), computed from his seat view alone.

The browser's help panel shows it; the server attaches it to the frames of the
seat it belongs to.  Like a bot, it reads nothing but the view, so it can never
leak another seat's tiles.  Format (see ``docs/client.md``)::

    {"shanten": 0,
     "waits": [{"tile": "3m", "unseen": 3}],
     "discards": [{"tile": "3p", "shanten": 0, "waits": [{"tile": "3m", "unseen": 3}]}]}

* ``waits``: with 3n+1 tiles in hand, the tiles that give a legal win now
  (opening, held 红中 and the laizi limit included; the minimum score depends on
  the other seats' future play and is not), with how many copies this seat has
  not seen.
* ``discards``: on a turn (3n+2 tiles), the discards that leave the best
  shanten, each with the waits it would leave.  None in the final draws (海底, RULES
  §16), where nobody discards: a seat holding its final draw may only win or pass.
* ``shanten``: of the hand as it is, or the best after a discard.

>>> import random
>>> from wuhan_mahjong.engine import new_hand, seat_view
>>> from wuhan_mahjong.rules import get_rules
>>> h = hint(seat_view(new_hand(get_rules(), dealer=0, rng=random.Random(5)), 0))
>>> sorted(h), h["shanten"] >= 0
(['discards', 'shanten', 'waits'], True)
"""

from __future__ import annotations

from typing import TypedDict

from ..analysis import shanten, waits
from ..engine.views import SeatView
from ..tiles import tile_str
from .seat_reading import SeatReading


class WaitHint(TypedDict):
    tile: str
    unseen: int


class DiscardHint(TypedDict):
    tile: str
    shanten: int
    waits: list[WaitHint]


class Hint(TypedDict):
    shanten: int
    waits: list[WaitHint]
    discards: list[DiscardHint]


def hint(view: SeatView) -> Hint:
    """The help panel's data for the viewer of ``view``."""
    t = SeatReading(view)
    rules, laizi, melds = t.rules, t.laizi, t.melds
    playable = [x for x in t.hand if x not in t.must]  # 红中 / 发财 only ever leave as kongs
    held_specials = len(t.hand) - len(playable)

    def wait_list(hand: list[int]) -> list[WaitHint]:
        return [{"tile": tile_str(w.tile), "unseen": t.unseen[w.tile]}
                for w in waits(hand, melds, laizi, rules)]

    if (len(t.hand) - held_specials) % 3 == 1 or not playable:
        return {"shanten": shanten(playable, melds, laizi, rules), "waits": wait_list(playable),
                "discards": []}
    options: list[DiscardHint] = []
    for x in sorted(set(playable)):
        rest = list(playable)
        rest.remove(x)
        options.append({"tile": tile_str(x), "shanten": shanten(rest, melds, laizi, rules),
                        "waits": wait_list(rest) if view["phase"] != "final" else []})
    best = min(o["shanten"] for o in options)
    if view["phase"] == "final":  # no discard to suggest
        return {"shanten": best, "waits": [], "discards": []}
    return {"shanten": best, "waits": [], "discards": [o for o in options if o["shanten"] == best]}
