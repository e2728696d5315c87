"""Random legal play: invariants after every step, replay determinism, view secrecy."""

from __future__ import annotations

import contextlib
import json
import random
from collections import Counter
from typing import Any

import pytest
from engine_helpers import fingerprint, keen_policy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wuhan_mahjong.engine import (
    WIN,
    HandState,
    IllegalAction,
    Pass,
    action_from_json,
    load_records,
    new_hand,
    random_policy,
    record_lines,
    seat_view,
    spectator_view,
    tile_census,
    verify,
)
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import NUM_KINDS, parse_tiles

RULES = [
    get_rules("yuanhang"),
    get_rules("bianfeng", {"opening_scoring": "per_opening"}),  # 癞子皮杠 on
    get_rules("laizishanzhuang"),  # 发财杠, no minimum score: many wins
    get_rules("yuanhang", {"end_phase_wall": 40, "winner_order": "from_discarder"}),
]


def mixed_policy(rng: random.Random) -> Any:
    """Mostly a keen player (wins happen), sometimes uniformly random (every kind of kong,
    丢癞子 and odd claims happen)."""
    keen, uniform = keen_policy(rng), random_policy(rng)
    return lambda state, seat: keen(state, seat) if rng.random() < 0.7 else uniform(state, seat)


def check_invariants(state: HandState) -> None:
    assert tile_census(state) == [4] * NUM_KINDS
    sizes = [state.hand_size(s) + 3 * len(state.melds[s]) for s in range(4)]
    phase = state.phase
    if phase == "turn":
        assert sizes[state.current] == 14
        assert all(sizes[s] == 13 for s in range(4) if s != state.current)
    elif phase in ("claim", "rob"):
        assert sizes == [13] * 4
    elif phase == "final":
        assert sizes[state.current] == 14 and all(n in (13, 14) for n in sizes)
    else:
        assert all(n in (13, 14) for n in sizes)
        r = state.result
        assert r is not None and sum(r.deltas) == 0
        if r.outcome == "win":
            assert r.winner is not None and sizes[r.winner] == 14
            assert r.settlement is not None and r.settlement.deltas == r.deltas
        else:
            assert r.deltas == (0, 0, 0, 0)
    for s in range(4):
        acts = state.legal_actions(s)
        assert bool(acts) == (s in state.to_act())
        for a in acts:
            assert action_from_json(json.loads(json.dumps(a.to_json()))) == a


def play_checked(state: HandState, rng: random.Random, every_step: bool = True) -> HandState:
    policy = mixed_policy(rng)
    while not state.ended:
        seat = state.to_act()[0]
        state.apply(seat, policy(state, seat))
        if every_step:
            check_invariants(state)
    check_invariants(state)
    return state


@pytest.mark.parametrize("rules", RULES, ids=["yuanhang", "bianfeng-kkf", "lzsz", "yh-options"])
def test_random_hands_keep_every_invariant(rules: Any) -> None:
    rng = random.Random(hash(rules.profile) % 1000)
    outcomes: Counter[str] = Counter()
    for i in range(60):
        state = new_hand(rules, i % 4, rng=rng, auto_pass=i % 2 == 0)
        play_checked(state, rng)
        assert state.result is not None
        outcomes[state.result.win_by or "exhausted"] += 1
    assert len(outcomes) >= 2  # some hands are won


@pytest.mark.slow
def test_many_random_hands_zero_sum_and_replayable() -> None:
    rng = random.Random(2024)
    wins = 0
    for i in range(300):
        rules = RULES[i % len(RULES)]
        state = new_hand(rules, i % 4, rng=rng, auto_pass=True)
        play_checked(state, rng, every_step=False)
        assert state.result is not None
        wins += state.result.outcome == "win"
        if i % 10 == 0:
            (events,) = load_records("\n".join(record_lines(state)))
            again = verify(events)
            assert fingerprint(again)[:-1] == fingerprint(state)[:-1]
    assert wins > 150


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(RULES), st.integers(0, 3), st.integers(0, 2**32))
def test_hypothesis_chosen_actions(data: Any, rules: Any, dealer: int, seed: int) -> None:
    """Hypothesis picks every action (so failures shrink to short hands)."""
    state = new_hand(rules, dealer, rng=random.Random(seed))
    while not state.ended:
        seat = state.to_act()[0]
        acts = state.legal_actions(seat)
        before = fingerprint(state)
        with pytest.raises(IllegalAction):
            state.apply((seat + 1) % 4, acts[0]) if (seat + 1) % 4 not in state.to_act() else (
                state.apply(seat, Pass()) if Pass() not in acts else state.apply(9, acts[0]))
        assert fingerprint(state) == before
        i = data.draw(st.integers(0, len(acts) - 1)) if WIN not in acts else 0
        state.apply(seat, acts[i])
        check_invariants(state)
    (events,) = load_records("\n".join(record_lines(state)))
    assert fingerprint(verify(events))[:-1] == fingerprint(state)[:-1]


def test_replay_rebuilds_the_identical_state_and_settlement() -> None:
    rng = random.Random(5)
    found = 0
    for i in range(400):
        state = new_hand(RULES[2], i % 4, rng=rng)
        play_checked(state, rng, every_step=False)
        if state.result is None or state.result.outcome != "win":
            continue
        found += 1
        lines = record_lines(state)
        (events,) = load_records("\n".join(lines))
        again = verify(events)
        assert again.result is not None and state.result.settlement is not None
        assert again.result.settlement is not None
        assert again.result.settlement.to_json() == state.result.settlement.to_json()
        assert record_lines(again) == lines
        if found == 5:
            break
    assert found == 5


# --------------------------------------------------------------------------- secrecy
def _tiles_in(obj: Any, skip: frozenset[str], path: str = "") -> list[int]:
    """Every tile written anywhere in a JSON value (strings that read as tiles)."""
    out: list[int] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in skip:
                out += _tiles_in(v, skip, f"{path}.{k}")
    elif isinstance(obj, list):
        for v in obj:
            out += _tiles_in(v, skip, path)
    elif isinstance(obj, str):
        with contextlib.suppress(ValueError):
            out += parse_tiles(obj)
    return out


# Fields that name a tile kind rather than show a tile: the laizi, the viewer's own legal
# actions and drawn tile (both his own tiles), the tile on the table (also in the discards
# or, for a robbing window, a tile the konger just showed).
KIND_FIELDS = frozenset({"laizi", "legal_actions", "drawn", "on_table"})


def _public(state: HandState, viewer: int | None) -> Counter[int]:
    seen: Counter[int] = Counter([state.indicator])
    for s in range(4):
        for m in state.melds[s]:
            if m.kind != "concealed" or s == viewer:
                seen.update(m.tiles)
        for tile, _claimed, _lz in state.rivers[s]:
            seen[tile] += 1
    if viewer is not None:
        seen.update(state.hand_tiles(viewer))
    return seen


def check_secrecy(state: HandState) -> None:
    secret = [state.salt.hex(), "".join(f"{t}" for t in state.wall)]
    for viewer in (0, 1, 2, 3, None):
        view = seat_view(state, viewer)
        text = json.dumps(view, ensure_ascii=False)
        assert not any(x in text for x in secret)
        assert view["result"] is None
        shown = Counter(_tiles_in(view, KIND_FIELDS))
        assert shown == _public(state, viewer), (viewer, state.phase)
        # the viewer's own options only: nothing about who else may claim or has answered
        assert set(view) == set(spectator_view(state))
        if viewer is not None:
            for a in view["legal_actions"]:
                if "tile" in a and a["type"] in ("discard", "kong") and a.get("kind") != "direct":
                    assert parse_tiles(a["tile"])[0] in state.hand_tiles(viewer)
                # the tiles an action uses are the viewer's own or on the table
                assert set(parse_tiles(a["tiles"])) <= {
                    *state.hand_tiles(viewer), state.pending_tile, state.indicator}, a


@pytest.mark.slow
def test_views_never_show_hidden_tiles() -> None:
    rng = random.Random(99)
    checked = 0
    for i in range(1500):
        state = new_hand(RULES[i % len(RULES)], i % 4, rng=rng, auto_pass=True)
        policy = mixed_policy(rng)
        look = {rng.randrange(120) for _ in range(3)}
        step = 0
        while not state.ended:
            if step in look:
                check_secrecy(state)
                checked += 1
            seat = state.to_act()[0]
            state.apply(seat, policy(state, seat))
            step += 1
        end = seat_view(state, i % 4)["result"]
        assert end is not None and end["reveal"]["salt"] == state.salt.hex()
    assert checked > 2000


def test_views_are_independent_of_hidden_information() -> None:
    """Swap other seats' concealed tiles with wall tiles: the viewer's view is unchanged."""
    rng = random.Random(3)
    for i in range(200):
        state = new_hand(RULES[2], i % 4, rng=rng)
        policy = mixed_policy(rng)
        stop = rng.randrange(60)
        while not state.ended and stop:
            seat = state.to_act()[0]
            state.apply(seat, policy(state, seat))
            stop -= 1
        if state.ended or state.phase != "turn":
            continue
        viewer = rng.randrange(4)
        before = seat_view(state, viewer)
        other = state.copy()
        # exchange one concealed tile of each other seat with one live wall tile
        wall = list(other.wall)
        for s in range(4):
            if s == viewer:
                continue
            mine = [t for t in other.hand_tiles(s) if t != other.laizi]
            pos = rng.randrange(other.head, other.tail)
            if not mine or wall[pos] == other.laizi:
                continue
            out, into = rng.choice(mine), wall[pos]
            other._remove(s, out)
            other._add(s, into)
            wall[pos] = out
        other.wall = tuple(wall)
        other._legal = [None] * 4
        after = seat_view(other, viewer)
        after["commitment"] = before["commitment"]
        assert after == before
