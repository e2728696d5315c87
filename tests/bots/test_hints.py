"""The help panel's data: computed from the seat view alone, and right."""

from __future__ import annotations

import random

import pytest

from wuhan_mahjong.analysis import shanten, waits
from wuhan_mahjong.bots.hints import hint
from wuhan_mahjong.engine import HandState, new_hand, seat_view, simple_policy
from wuhan_mahjong.engine.actions import PASS, WIN, Action
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import tile_str


@pytest.mark.slow
def test_hints_match_the_true_hand_and_count_unseen_copies() -> None:
    checked = waits_checked = 0
    for seed in range(12):
        rules = get_rules(["yuanhang", "bianfeng", "laizishanzhuang"][seed % 3])
        rng = random.Random(seed)
        state = new_hand(rules, dealer=seed % 4, rng=rng, auto_pass=True)
        while not state.ended:
            s = state.to_act()[0]
            if state.phase in ("turn", "claim"):
                h = hint(seat_view(state, s))
                hand = [t for t in state.hand_tiles(s) if t not in rules.must_kong_tiles]
                melds = state.melds[s]
                if len(hand) % 3 == 1:
                    assert h["shanten"] == shanten(hand, melds, state.laizi, rules)
                    assert [w["tile"] for w in h["waits"]] == [
                        tile_str(w.tile) for w in waits(hand, melds, state.laizi, rules)]
                    hidden = [*state.wall[state.head:state.tail]]
                    for o in range(4):
                        if o != s:
                            hidden += state.hand_tiles(o)
                            hidden += [t for m in state.melds[o] if m.kind == "concealed"
                                       for t in m.tiles]
                    for w in h["waits"]:
                        t = next(k for k in range(34) if tile_str(k) == w["tile"])
                        assert w["unseen"] == hidden.count(t)
                        waits_checked += 1
                else:
                    best = min(shanten([*hand[:i], *hand[i + 1:]], melds, state.laizi, rules)
                               for i in range(len(hand)))
                    assert h["shanten"] == best
                    assert all(d["shanten"] == best for d in h["discards"])
                checked += 1
            state.apply(s, simple_policy(state, s))
    assert checked > 200 and waits_checked > 10


def test_bots_and_hints_read_the_rooms_overrides_from_the_view() -> None:
    from wuhan_mahjong.bots.seat_reading import SeatReading

    rules = get_rules("bianfeng", {"opening_scoring": "per_opening", "must_kong": ["7z", "6z"]})
    view = seat_view(new_hand(rules, dealer=0, rng=random.Random(2)), 0)
    assert SeatReading(view).rules == rules


def test_no_discard_is_suggested_in_the_final_draws() -> None:
    """In the final draws (海底) nobody discards: a seat holding its final draw may only win
    or pass.  The panel used to list "discard X, wait on ..." there, at every hand that
    reached the end of the wall; it gives the shanten alone."""
    rules = get_rules()
    finals = 0
    for seed in range(6):
        state = new_hand(rules, dealer=seed % 4, rng=random.Random(seed))
        while not state.ended:
            s = state.to_act()[0]
            if state.phase == "final":
                for viewer in range(4):
                    view = seat_view(state, viewer)
                    h = hint(view)
                    assert h["discards"] == [], (seed, viewer, h)
                    if viewer == s:
                        assert not any(a["type"] == "discard" for a in view["legal_actions"])
                        assert h["waits"] == []
                        finals += 1
            state.apply(s, _never_wins(state, s))
    assert finals >= 20


def _never_wins(state: HandState, seat: int) -> Action:
    """Pass whenever passing is legal (claims, wins), else the first legal move that is
    no win: the hand runs to the end of the wall."""
    legal = state.legal_actions(seat)
    if PASS in legal:
        return PASS
    return next(a for a in legal if a != WIN)
