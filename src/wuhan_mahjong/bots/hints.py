"""Help for a player's own hand (提示), computed from his seat view alone.

The browser's help panel shows it; the server attaches it to the frames of the
seat it belongs to.  Like a bot, it reads nothing but the view, so it can never
leak another seat's tiles.  Format (see ``docs/client.md``)::

    {"shanten": 0,
     "waits": [{"tile": "3m", "unseen": 3}],
     "discards": [{"tile": "3p", "shanten": 0, "acceptance": 3,
                   "accepts": [{"tile": "3m", "unseen": 3}],
                   "waits": [{"tile": "3m", "unseen": 3}]}]}

* ``waits``: with 3n+1 tiles in hand, the tiles that give a legal win now
  (opening, held 红中 and the laizi limit included; the minimum score depends on
  the other seats' future play and is not), with how many copies this seat has
  not seen.
* ``discards``: on a turn (3n+2 tiles), the discards that leave the best
  shanten, each with the waits it would leave and its tile acceptance (进张): the
  kinds that, drawn, would take the hand a step closer (``accepts``, each with its
  unseen copies; the laizi counts, a wild; 红中 and the other must-kong tiles never
  do, they only ever leave as kongs) and their total (``acceptance``).  For a
  discard that leaves the hand ready, a step closer is a win: its ``accepts`` are
  its ``waits``.  Best first, as the efficiency books and the discard puzzles
  (:mod:`wuhan_mahjong.bots.puzzles`) rank them: the shanten, then the most
  acceptance, then tile order.  None in the final draws (海底, RULES §16), where
  nobody discards: a seat holding its final draw may only win or pass.
* ``shanten``: of the hand as it is, or the best after a discard.

Shanten and acceptance are the rules core's (:func:`wuhan_mahjong.analysis.shanten`, at
the shape level, the laizi always useful), counted on what the seat has not seen: no
more help than a player who counts his tiles would have, and no hidden tile.

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
from .greedy import evaluator
from .seat_reading import SeatReading


class WaitHint(TypedDict):
    tile: str
    unseen: int


class DiscardHint(TypedDict):
    tile: str
    shanten: int
    acceptance: int
    accepts: list[WaitHint]
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
    after = {x: shanten(_without(playable, x), melds, laizi, rules) for x in set(playable)}
    best = min(after.values())
    if view["phase"] == "final":  # no discard to suggest
        return {"shanten": best, "waits": [], "discards": []}
    options: list[DiscardHint] = []
    for x in sorted(x for x, left in after.items() if left == best):
        rest = _without(playable, x)
        if best == 0:  # ready: its winning tiles are what it accepts
            ready_waits = accepts = wait_list(rest)
        else:  # a step or more from ready (the shape-level shanten) wins on no tile;
            # the bots' evaluator: the rules core's shanten (a test holds them equal), faster
            ready_waits = []
            kinds = evaluator(rest, melds, t).acceptance_kinds(t.unseen, laizi, current=best)
            accepts = [{"tile": tile_str(k), "unseen": t.unseen[k]} for k in kinds]
        options.append({"tile": tile_str(x), "shanten": best,
                        "acceptance": sum(a["unseen"] for a in accepts), "accepts": accepts,
                        "waits": ready_waits})
    options.sort(key=lambda o: -o["acceptance"])  # stable: tile order among equals
    return {"shanten": best, "waits": [], "discards": options}


def _without(tiles: list[int], tile: int) -> list[int]:
    rest = list(tiles)
    rest.remove(tile)
    return rest
