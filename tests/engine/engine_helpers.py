"""Scripted walls and short scripts for the engine's scenario tests."""

from __future__ import annotations

from typing import Any

from wuhan_mahjong.engine import HandState, parse_action
from wuhan_mahjong.engine.dealing import arrange_wall
from wuhan_mahjong.engine.state import tile_census
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import NUM_KINDS, parse_tiles

SALT = bytes(range(32))


def t(text: str) -> int:
    """One tile."""
    (x,) = parse_tiles(text)
    return x


def scenario(
    hands: dict[int, str], *, indicator: str = "3z", draws: str = "", repl: str = "",
    dealer: int = 0, profile: str = "yuanhang", auto_pass: bool = True, **options: Any,
) -> HandState:
    """A hand dealt from a scripted wall.

    ``hands`` gives each seat's key tiles; the rest of each hand is filler (see
    :func:`_fits`) of kinds the scenario never mentions, so fillers never make a
    claim, a kong or a win.
    """
    rules = get_rules(profile, options)
    laizi = rules.laizi_of(t(indicator))
    given = {s: parse_tiles(h) for s, h in hands.items()}
    extra = [*parse_tiles(draws), *parse_tiles(repl), t(indicator)]
    mentioned = {x for h in given.values() for x in h} | set(extra) | {laizi}
    mentioned |= set(rules.must_kong_tiles)
    left = [4] * NUM_KINDS
    for x in [*extra, *(x for h in given.values() for x in h)]:
        left[x] -= 1
    full: list[list[int]] = []
    for s in range(4):
        h = list(given.get(s, []))
        size = 14 if s == dealer else 13
        for k in range(NUM_KINDS):
            while len(h) < size and k not in mentioned and left[k] and _fits(h, k, mentioned):
                left[k] -= 1
                h.append(k)
        assert len(h) == size, f"not enough filler for seat {s}"
        full.append(h)
    wall = arrange_wall(dealer, full, t(indicator), parse_tiles(draws), parse_tiles(repl))
    return HandState(rules, dealer, wall, SALT, auto_pass=auto_pass)


def _far(a: int, b: int) -> bool:
    return a >= 27 or b >= 27 or a // 9 != b // 9 or abs(a - b) >= 3


def _fits(hand: list[int], k: int, mentioned: set[int]) -> bool:
    """Fillers make no claim, kong or win.  Only mentioned kinds are ever discarded, so
    a filler is safe if it is no part of a run with a mentioned tile: either three
    ranks away from every mentioned tile, or three ranks away from every suited tile
    of its hand.  At most a pair of an honour, one of a suited kind."""
    if k >= 27:
        return hand.count(k) < 2
    if k in hand:
        return False
    return all(_far(k, m) for m in mentioned) or all(_far(k, x) for x in hand)


def play(state: HandState, *lines: str) -> HandState:
    """Apply ``"SEAT ACTION"`` lines (``"1 peng"``, ``"0 discard 5m"``)."""
    for line in lines:
        seat, _, rest = line.partition(" ")
        state.apply(int(seat), parse_action(rest, pending=state.pending_tile))
        assert tile_census(state) == [4] * NUM_KINDS
    return state


def fingerprint(state: HandState) -> Any:
    """Everything that defines the state (for 'unchanged' and replay comparisons)."""
    return (
        [list(c) for c in state.counts], [list(m) for m in state.melds],
        [[list(e) for e in r] for r in state.rivers], [list(s) for s in state.specials],
        state.phase, state.current, state.head, state.tail, state.drawn, state.draw_source,
        state.end_phase, state.final_left, state.pending_tile, state.pending_from,
        list(state.answers), list(state.waiting), len(state.log),
        state.result.deltas if state.result else None,
        [state.legal_actions(s) for s in range(4)],
    )
