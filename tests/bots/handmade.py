"""Hand-made seat views for decision problems: a whole view dictionary, as the engine
would send it, from a few strings (own hand, every seat's melds and discards)."""

from __future__ import annotations

import re
from typing import Any

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.tiles import format_tiles, parse_tile, parse_tiles, tile_str
from wuhan_mahjong.win_record import parse_win_record


def meld(kind: str, tiles: str, from_seat: int | None) -> dict[str, Any]:
    """``meld("peng", "555p", 2)``, ``meld("chi", "123p", 3)``, ``meld("kong", ..)``."""
    return {"type": kind, "kind": "direct" if kind == "kong" else None, "tiles": tiles,
            "from_seat": from_seat}


def make_view(hand: str, *, profile: str = "yuanhang", indicator: str = "1z", me: int = 0,
              dealer: int = 1, wall: int = 40, melds: dict[int, list[dict[str, Any]]] | None = None,
              discards: dict[int, str] | None = None, concealed: dict[int, int] | None = None,
              actions: list[dict[str, Any]] | None = None,
              extra_actions: list[dict[str, Any]] | None = None,
              red_kongs: dict[int, int] | None = None,
              claim: tuple[str, int] | None = None,
              options: dict[str, Any] | None = None) -> SeatView:
    """A turn view of seat ``me`` holding ``hand`` (its actions: a discard of every distinct
    tile but the laizi and the must-kong tiles, then ``extra_actions``, unless ``actions``
    is given).  With ``claim=(tile, seat)`` it is instead ``me``'s claim decision on ``tile``
    just discarded by ``seat`` (``actions`` then lists the claims and the pass).  Other seats
    hold ``13 - 3 * melds`` concealed tiles unless ``concealed`` says otherwise.  ``options``
    are the table's rule options (``view["options"]``, over the profile's presets): the
    laizi, the must-kong tiles and the bots' reading of the rules follow them."""
    rules = get_rules(profile, options or {})
    laizi = rules.laizi_of(parse_tile(indicator))
    melds = melds or {}
    discards = discards or {}
    concealed = concealed or {}
    tiles = parse_tiles(hand)
    if actions is None:
        actions = [{"type": "discard", "tile": tile_str(t)} for t in sorted(set(tiles))
                   if t != laizi and t not in rules.must_kong_tiles] + (extra_actions or [])
    seats = []
    for s in range(4):
        ms = melds.get(s, [])
        n = len(tiles) if s == me else concealed.get(s, 13 - 3 * len(ms))
        seats.append({
            "seat": s, "concealed": n, "melds": ms,
            "special_kongs": {"red": (red_kongs or {}).get(s, 0), "green": 0, "laizi": 0,
                              "pi": 0},
            "laizi_discards": 0,
            "discards": _river(discards.get(s, "")),
        })
    _check_copies(tiles, seats, indicator, claim)
    view: dict[str, Any] = {
        "schema": 1, "viewer": me, "hand_no": 0, "profile": profile,
        "options": dict(options or {}),
        "dealer": dealer, "phase": "claim" if claim else "turn",
        "turn": claim[1] if claim else me, "indicator": indicator,
        "laizi": tile_str(laizi), "commitment": "0" * 64, "wall": wall, "end_phase": False,
        "final_draws_left": 4,
        "on_table": {"seat": claim[1], "tile": claim[0]} if claim else None, "seats": seats,
        "hand": format_tiles(tiles), "drawn": None, "legal_actions": actions, "result": None,
    }
    return view  # type: ignore[return-value]


def _river(text: str) -> list[dict[str, Any]]:
    """A seat's discards in the tile notation, ``>N`` after a tile that seat N claimed:
    ``"1s3p>19m"`` is 1s, 3p (claimed by seat 1), 9m."""
    river: list[dict[str, Any]] = []
    for digits, suit, by in re.findall(r"(\d+)([mpsz])(?:>(\d))?", text.replace(" ", "")):
        tiles = parse_tiles(digits + suit)
        for i, t in enumerate(tiles):
            claimed = int(by) if by and i == len(tiles) - 1 else None
            river.append({"tile": tile_str(t), "laizi": False, "claimed_by": claimed})
    return river


def _check_copies(hand: list[int], seats: list[dict[str, Any]], indicator: str,
                  claim: tuple[str, int] | None) -> None:
    """A hand-made position must be one a deal can reach: no kind shows more than four
    copies (the hand, every meld and discard, the face-up indicator, the tile on the table)."""
    seen = [0] * 34
    for t in hand:
        seen[t] += 1
    for seat in seats:
        for m in seat["melds"]:
            for t in parse_tiles(m["tiles"]):
                seen[t] += 1
        for d in seat["discards"]:
            if d["claimed_by"] is not None:
                continue  # the claimer's meld shows it
            seen[parse_tile(d["tile"])] += 1
    seen[parse_tile(indicator)] += 1
    if claim:
        seen[parse_tile(claim[0])] += 1
    over = [tile_str(k) for k in range(34) if seen[k] > 4]
    if over:
        raise ValueError(f"more than four copies of {', '.join(over)} in a hand-made position")


def discard(tile: str) -> dict[str, Any]:
    """A discard as a view's legal action is written."""
    return {"type": "discard", "tile": tile}


def ask(bot: str, view: SeatView, answers: list[dict[str, Any]], seed: int = 1) -> None:
    """The bot ``bot`` (seeded) answers the position with one of ``answers``, each a legal
    action of the view."""
    expected = [action_from_json(a) for a in answers]
    legal = [action_from_json(a) for a in view["legal_actions"]]
    assert all(e in legal for e in expected)
    choice = get_bot(bot, seed).choose(view)
    assert choice in expected, (bot, choice)


def paid_by(record: dict[str, Any]) -> dict[int, int]:
    """What each losing seat pays in the settlement of ``record`` (a win record in its JSON
    form, as ``wuhan-mahjong score`` reads it): the settlement's own answer, for the tests
    that check a position's stakes (a contract, a cap) without a bot."""
    out: dict[int, int] = {}
    for p in settle(parse_win_record(record)).payments:
        out[p.payer] = out.get(p.payer, 0) + int(p.amount)
    return out
