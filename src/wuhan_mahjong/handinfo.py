"""A person's view of one hand: waits, shanten and what each wait would score.

Used by ``wuhan-mahjong hand``.  The player is seat 0; the other seats are
assumed to have nothing special (no openings, no kongs), so the figures are
the least a win would pay.  A discard win is assumed to come from seat 2.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .analysis import BIG_HAND_NAMES, NotAWin, Refusal, shanten, shape_waits, waits
from .meld import Meld, MeldError, check_meld, parse_meld_spec
from .problems import InputProblem
from .rules import Rules
from .scoring import settle
from .tiles import format_tiles, parse_tile, parse_tiles, tile_name, tile_str
from .win_record import SeatState, WinRecord


class HandInputError(InputProblem):
    """The tiles and melds given do not make a hand to report on (e.g. the wrong tile count);
    the code and parameters say what, for a translation."""


@dataclass
class WaitInfo:
    tile: int
    left: int
    values: dict[str, int | Refusal] = field(default_factory=dict)
    """By way of winning: what the win pays, or why it may not be made."""
    hands: list[str] = field(default_factory=list)
    hard: bool = False


@dataclass
class HandReport:
    hand: list[int]
    melds: list[Meld]
    indicator: int
    laizi: int
    shanten: int
    waits: list[WaitInfo]
    shape_waits: list[int]
    discards: list[tuple[int, int, int]]  # (tile, shanten after, number of waits)
    complete: dict[str, int | str | Refusal] | None
    rules: Rules

    def move(self, tile: int) -> str:
        """How ``tile`` leaves the hand: a plain discard, or the move the rules make of it
        (红中 / 发财 only ever leave as their special kong, the laizi as a kong or 丢癞子)."""
        if tile in self.rules.must_kong_tiles:
            return "special_kong"
        return "laizi" if tile == self.laizi else "discard"

    def to_json(self) -> dict[str, object]:
        return {
            "hand": format_tiles(self.hand),
            "melds": [str(m) for m in self.melds],
            "indicator": tile_str(self.indicator),
            "laizi": tile_str(self.laizi),
            "shanten": self.shanten,
            "waits": [{"tile": tile_str(w.tile), "left": w.left, "hands": w.hands,
                       "hard": w.hard, "values": w.values,
                       # why each refused value is refused, as a code a client translates
                       "refusals": {how: v.to_json() for how, v in w.values.items()
                                    if isinstance(v, Refusal)}} for w in self.waits],
            "shape_waits": [tile_str(t) for t in self.shape_waits],
            "discards": [{"tile": tile_str(t), "shanten": s, "waits": n, "move": self.move(t)}
                         for t, s, n in self.discards],
            "complete": self._complete_json(),
        }

    def _complete_json(self) -> dict[str, object] | None:
        if self.complete is None:
            return None
        out: dict[str, object] = dict(self.complete)
        why = self.complete.get("self_draw")
        if isinstance(why, Refusal):
            out["refusal"] = why.to_json()
        return out

    def text(self) -> str:
        lines = [f"hand {format_tiles(self.hand)}"
                 + (" | " + " | ".join(str(m) for m in self.melds) if self.melds else ""),
                 f"indicator {tile_str(self.indicator)} ({tile_name(self.indicator)}), "
                 f"laizi {tile_str(self.laizi)} ({tile_name(self.laizi)})"]
        if self.complete is not None:
            lines.append(f"complete: {self.complete}")
        lines.append(f"shanten {self.shanten}" + (" (ready, 听牌)" if self.shanten == 0 else ""))
        if self.waits:
            lines.append("wins on:")
            for w in self.waits:
                names = "+".join(BIG_HAND_NAMES[h][0] for h in w.hands) or "小胡"
                vals = ", ".join(f"{k} {v}" for k, v in w.values.items())
                lines.append(f"  {tile_str(w.tile)} {tile_name(w.tile)} ({w.left} left): "
                             f"{names}{' 硬胡' if w.hard else ''}; {vals}")
        elif self.shape_waits:
            lines.append("waits by shape (no legal win yet): "
                         + " ".join(tile_str(t) for t in self.shape_waits))
        if self.discards:
            lines.append("discards:")
            for t, s, n in self.discards[:6]:
                how = {"special_kong": f" ({tile_name(t)}杠, the only way it leaves)",
                       "laizi": " (癞子杠 or 丢癞子)", "discard": ""}[self.move(t)]
                lines.append(f"  {tile_str(t)}{how}: shanten {s}, {n} waits")
        return "\n".join(lines)


def _value(hand: list[int], melds: list[Meld], tile: int, indicator: int, rules: Rules,
           dealer: bool, win_by: str) -> tuple[int | Refusal, list[str], bool]:
    seats = [SeatState(tuple(hand), tuple(melds)), SeatState(), SeatState(), SeatState()]
    rec = WinRecord(rules, 0 if dealer else 1, indicator, 0, win_by,
                    2 if win_by == "discard" else None, tile, tuple(seats))
    try:
        s = settle(rec)
    except NotAWin as e:
        return e.refusal, [], _hard_below_minimum(rec)
    return s.total, list(s.hands), s.reading.hard


def _hard_below_minimum(rec: WinRecord) -> bool:
    """Whether a win the minimum score refuses would be 硬胡: hardness is the hand's, not the
    amount's, and the player should see it (it already counts in the amounts shown)."""
    rules = rec.rules
    if not (rules.min_score_one_loser or rules.min_score_every_loser):
        return False
    free = dataclasses.replace(rules, min_score_one_loser=0, min_score_every_loser=0)
    try:
        return settle(dataclasses.replace(rec, rules=free)).reading.hard
    except NotAWin:  # no legal win at all
        return False


def hand_report(hand_text: str, indicator_text: str, meld_specs: list[str], rules: Rules,
                dealer: bool = False) -> HandReport:
    hand = parse_tiles(hand_text)
    indicator = parse_tile(indicator_text)
    melds = [parse_meld_spec(s) for s in meld_specs]
    laizi = rules.laizi_of(indicator)
    for j, meld in enumerate(melds):  # what the settlement record refuses, refused here too
        try:
            check_meld(meld, laizi, rules.must_kong_tiles)
        except MeldError as e:
            raise HandInputError(f"melds[{j}]: {e}", e.code, meld=j, **e.params) from None
    size = len(hand) + 3 * len(melds)
    if size not in (13, 14):
        raise HandInputError(f"wrong hand size: {len(hand)} tiles and {len(melds)} melds "
                             "(need 13 or 14 with melds counted as 3)", "hand_size",
                             tiles=len(hand), melds=len(melds))
    visible = [*hand, indicator, *(t for m in melds for t in m.tiles)]
    for t in sorted(set(visible)):
        if visible.count(t) > 4:  # the face-up indicator is one of the four (docs/RULES.md §5)
            raise HandInputError(f"more than four copies of {tile_str(t)} (the face-up indicator "
                                 f"{tile_str(indicator)} counts as one)", "too_many_copies",
                                 tile=tile_str(t), count=visible.count(t))
    current = shanten(hand, melds, laizi, rules)
    if size == 14:
        # What the 14 tiles pay self-drawn, only when they make a winning shape (shanten -1):
        # the value, or why the shape may not win (not opened, the minimum score...)
        complete: dict[str, int | str | Refusal] | None = None
        if current < 0:
            v, hands, hard = _value(hand[:-1], melds, hand[-1], indicator, rules, dealer,
                                    "self_draw")
            won = isinstance(v, int)  # else v is why it may not win, and no hand is named
            complete = {"self_draw": v, "hands": "+".join(hands) or ("small" if won else ""),
                        "hard": int(hard)}
        discards = []
        for t in sorted(set(hand)):
            rest = list(hand)
            rest.remove(t)
            discards.append((t, shanten(rest, melds, laizi, rules),
                             len(shape_waits(rest, melds, laizi, rules))))
        discards.sort(key=lambda x: (x[1], -x[2]))
        return HandReport(hand, melds, indicator, laizi, current, [], [], discards, complete,
                          rules)
    infos = []
    for w in waits(hand, melds, laizi, rules, "self_draw"):
        info = WaitInfo(w.tile, max(0, 4 - visible.count(w.tile)))
        for how in ("self_draw", "discard"):
            if how == "discard" and w.tile == laizi:
                continue
            v, hands, hard = _value(hand, melds, w.tile, indicator, rules, dealer, how)
            info.values[how] = v
            if hands and not info.hands:
                info.hands, info.hard = hands, hard
            elif not info.hands:
                info.hard = info.hard or hard
        infos.append(info)
    return HandReport(hand, melds, indicator, laizi, current, infos,
                      shape_waits(hand, melds, laizi, rules), [], None, rules)
