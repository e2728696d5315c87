"""Scripted walls and short scripts for the engine's scenario tests."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from wuhan_mahjong.engine import WIN, Action, Discard, HandState, Pass, SpecialKong, parse_action
from wuhan_mahjong.engine.dealing import arrange_wall
from wuhan_mahjong.engine.match import Policy
from wuhan_mahjong.engine.state import tile_census
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import NUM_KINDS, format_tiles, parse_tiles

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
    # an end phase from the first draw (end_phase_wall above the option's range) needs a
    # Rules the option parser would refuse: the engine takes any value
    end_phase_wall = options.pop("end_phase_wall", None)
    rules = get_rules(profile, options)
    if end_phase_wall is not None:
        rules = dataclasses.replace(rules, end_phase_wall=end_phase_wall)
    laizi = rules.laizi_of(t(indicator))
    given = {s: parse_tiles(h) for s, h in hands.items()}
    extra = [*parse_tiles(draws), *parse_tiles(repl), t(indicator)]
    mentioned = {x for h in given.values() for x in h} | set(extra) | {laizi}
    mentioned |= set(rules.must_kong_tiles)
    left = [4] * NUM_KINDS
    for x in [*extra, *(x for h in given.values() for x in h)]:
        left[x] -= 1
    full = [list(given.get(s, [])) for s in range(4)]
    sizes = [14 if s == dealer else 13 for s in range(4)]
    progress = True
    while progress:  # round robin, so every seat gets its share of the safe kinds
        progress = False
        for s in range(4):
            h = full[s]
            if len(h) < sizes[s]:
                k = next((k for k in range(NUM_KINDS)
                          if k not in mentioned and left[k] and _fits(h, k, mentioned)), None)
                if k is not None:
                    left[k] -= 1
                    h.append(k)
                    progress = True
    for s in range(4):
        assert len(full[s]) == sizes[s], f"not enough filler for seat {s}: {format_tiles(full[s])}"
    wall = arrange_wall(dealer, full, t(indicator), parse_tiles(draws), parse_tiles(repl))
    return HandState(rules, dealer, wall, SALT, auto_pass=auto_pass)


def _far(a: int, b: int) -> bool:
    return a >= 27 or b >= 27 or a // 9 != b // 9 or abs(a - b) >= 3


def _fits(hand: list[int], k: int, mentioned: set[int]) -> bool:
    """Fillers make no claim, kong or win.  Only mentioned kinds are ever discarded or
    drawn in a script, so a filler kind is never pengd or konged: a pair is safe,
    unless it could make a run with a mentioned tile.  A suited filler near a
    mentioned tile is therefore single and three ranks away from the hand's suited tiles."""
    if k >= 27 or all(_far(k, m) for m in mentioned):
        return hand.count(k) < 2
    return k not in hand and all(_far(k, x) for x in hand)


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
        [[list(e) for e in r] for r in state.rivers], [s.copy() for s in state.specials],
        state.phase, state.current, state.head, state.tail, state.drawn, state.draw_source,
        state.end_phase, state.final_left, state.pending_tile, state.pending_from,
        list(state.answers), list(state.waiting), len(state.log),
        state.result.deltas if state.result else None,
        [state.legal_actions(s) for s in range(4)],
    )


def keen_policy(rng: random.Random) -> Policy:
    """A cheap random player that wins far more often than a uniform one: always wins,
    plays 红中 / 发财 out, claims most pengs and chis, keeps the laizi and discards
    isolated tiles first."""

    def play(state: HandState, seat: int) -> Action:
        acts = state.legal_actions(seat)
        if acts[0] is WIN:
            return WIN
        if state.phase != "turn":
            claims = [a for a in acts if not isinstance(a, Pass)]
            return rng.choice(claims) if claims and rng.random() < 0.8 else acts[-1]
        for a in acts:
            if isinstance(a, SpecialKong) and a.kind in ("red", "green"):
                return a
        c = state.counts[seat]
        discards = [a for a in acts if isinstance(a, Discard)]
        if not discards:
            return rng.choice(acts)

        def lonely(x: int) -> bool:
            if c[x] > 1:
                return False
            if x >= 27:
                return True
            return not any(0 <= y < 27 and y // 9 == x // 9 and c[y]
                           for y in (x - 2, x - 1, x + 1, x + 2))

        pool = [a for a in discards if lonely(a.tile)] or discards
        return rng.choice(pool)

    return play
