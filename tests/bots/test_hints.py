"""The help panel's data: computed from the seat view alone, and right."""

from __future__ import annotations

import random

import pytest
from handmade import make_view

from wuhan_mahjong.analysis import shanten, waits
from wuhan_mahjong.bots.hints import hint
from wuhan_mahjong.engine import HandState, new_hand, seat_view, simple_policy
from wuhan_mahjong.engine.actions import PASS, WIN, Action
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tile, tile_str


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
                    hidden = _hidden_from(state, s)
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


def _hidden_from(state: HandState, seat: int) -> list[int]:
    """The tiles ``seat`` has not seen: the live wall, the others' hands and their
    concealed kongs (what a hint's ``unseen`` counts)."""
    hidden = [*state.wall[state.head:state.tail]]
    for o in range(4):
        if o != seat:
            hidden += state.hand_tiles(o)
            hidden += [t for m in state.melds[o] if m.kind == "concealed" for t in m.tiles]
    return hidden


def test_the_discards_are_ranked_by_tile_acceptance() -> None:
    """进张, as the efficiency books count it.  123m 46m 456p 89p 22p 78s: two sets, the
    2p pair and three partial sets, one step from ready (one partial too many).  Cutting
    the 89p edge keeps 46m (5m) and 78s (6s, 9s); cutting the 46m keeps 89p (7p, two of
    which are in a river) and 78s; cutting the 78s keeps the two narrow waits.  The laizi
    (2s, the indicator 1s) takes any hand a step closer.  So 8p / 9p take 5m 6s 9s 2s,
    sixteen tiles; 4m / 6m (and 1m: 234m then stands, the 6m alone) fourteen; 7s / 8s ten;
    anything else leaves the hand two steps away."""
    view = make_view("123m46m456p89p22p78s", indicator="1s", discards={1: "7p7p"})
    h = hint(view)
    assert h["shanten"] == 1
    assert [(d["tile"], d["acceptance"]) for d in h["discards"]] == [
        ("8p", 16), ("9p", 16), ("1m", 14), ("4m", 14), ("6m", 14), ("7s", 10), ("8s", 10)]
    assert h["discards"][0]["accepts"] == [{"tile": t, "unseen": 4} for t in ("5m", "2s", "6s", "9s")]
    assert {"tile": "7p", "unseen": 2} in h["discards"][2]["accepts"]


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
def test_acceptance_is_the_rules_cores_count_of_unseen_tiles(profile: str) -> None:
    """Each suggested discard's acceptance: the kinds that lower
    :func:`wuhan_mahjong.analysis.shanten` (the rules core, not the bots' evaluator the
    hint uses), with the copies the seat has not seen; for a ready discard, its waits.
    Best first: the most acceptance, then tile order."""
    rules = get_rules(profile)
    options = 0
    for seed in range(2):
        state = new_hand(rules, dealer=seed, rng=random.Random(100 + seed), auto_pass=True)
        while not state.ended:
            s = state.to_act()[0]
            if state.phase == "turn" and state.head % 3 == 0:
                h = hint(seat_view(state, s))
                hidden = _hidden_from(state, s)
                melds = state.melds[s]
                tiles = [t for t in state.hand_tiles(s) if t not in rules.must_kong_tiles]
                for d in h["discards"]:
                    rest = list(tiles)
                    rest.remove(parse_tile(d["tile"]))
                    if d["shanten"] == 0:
                        assert d["accepts"] == d["waits"]
                    else:
                        assert d["accepts"] == [
                            {"tile": tile_str(k), "unseen": hidden.count(k)} for k in range(34)
                            if hidden.count(k) and k not in rules.must_kong_tiles
                            and shanten([*rest, k], melds, state.laizi, rules) < d["shanten"]]
                    assert d["acceptance"] == sum(a["unseen"] for a in d["accepts"])
                    options += 1
                keys = [(-d["acceptance"], parse_tile(d["tile"])) for d in h["discards"]]
                assert keys == sorted(keys)
            state.apply(s, simple_policy(state, s))
    assert options > 20


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
