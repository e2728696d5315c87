"""The fixed action space, the masks and the observation planes."""

from __future__ import annotations

import random

import numpy as np
import pytest

from wuhan_mahjong.engine import new_hand, random_policy, seat_view
from wuhan_mahjong.engine.actions import CHIS, PASS, Chi, Kong, SpecialKong
from wuhan_mahjong.rl import spaces
from wuhan_mahjong.rules import get_rules

PROFILES = ["yuanhang", "bianfeng", "laizishanzhuang"]


def test_the_table_of_actions_is_complete_and_one_to_one() -> None:
    names = spaces.action_names()
    assert len(names) == spaces.NUM_ACTIONS == 114 and len(set(names)) == 114
    for i in range(spaces.NUM_ACTIONS):
        if i in (spaces.CHI_LOW, spaces.CHI_MID, spaces.CHI_HIGH, spaces.PENG, spaces.KONG_DIRECT):
            action = spaces.index_action(i, on_table=13)  # 5p on the table
        else:
            action = spaces.index_action(i)
        assert spaces.action_index(action, on_table=13) == i
    assert spaces.index_action(spaces.CHI_HIGH, 13) == Chi(11)
    assert spaces.index_action(spaces.KONG_ADDED + 4) == Kong("added", 4)
    assert spaces.index_action(spaces.SPECIAL["pi"]) == SpecialKong("pi")
    with pytest.raises(ValueError, match="out of range"):
        spaces.index_action(114)
    with pytest.raises(ValueError, match="none on the table"):
        spaces.index_action(spaces.PENG)
    with pytest.raises(ValueError, match="no chi run"):
        spaces.index_action(spaces.CHI_HIGH, on_table=9)  # 1p cannot be the top of a run
    with pytest.raises(ValueError, match="no chi run"):
        spaces.index_action(spaces.CHI_LOW, on_table=28)  # honours never chi


@pytest.mark.parametrize("profile", [PROFILES[0], *(pytest.param(p, marks=pytest.mark.slow)
                                                   for p in PROFILES[1:])])
def test_masks_are_exactly_the_legal_actions(profile: str) -> None:
    rng = random.Random(profile)
    policy = random_policy(rng)
    seen: set[int] = set()
    for h in range(40):
        state = new_hand(get_rules(profile), h % 4, rng=rng)
        while not state.ended:
            seat = state.to_act()[0]
            legal = state.legal_actions(seat)
            mask = spaces.action_mask(legal, state.pending_tile)
            assert int(mask.sum()) == len(legal)
            for i in np.flatnonzero(mask):
                assert spaces.index_action(int(i), state.pending_tile) in legal
                seen.add(int(i))
            assert (spaces.view_mask(seat_view(state, seat)) == mask).all()
            state.apply(seat, policy(state, seat))
    # every kind of action turned up: discards, chi (3 ways), peng, kongs, specials, pass
    kinds = {spaces.CHI_LOW, spaces.CHI_MID, spaces.CHI_HIGH, spaces.PENG,
             spaces.PASS_INDEX, spaces.LAIZI_DISCARD_INDEX, spaces.SPECIAL["red"], spaces.SPECIAL["laizi"]}
    assert kinds <= seen
    assert any(spaces.KONG_CONCEALED <= i < spaces.KONG_ADDED + 34 for i in seen) or profile != "yuanhang"


def test_plane_table_matches_the_encoding() -> None:
    assert len(spaces.PLANES) == spaces.NUM_PLANES == spaces.OBS_SHAPE[0]
    assert spaces.OBS_SHAPE == (138, 34)
    state = new_hand(get_rules("bianfeng"), 2, rng=random.Random(4))
    obs = spaces.encode(seat_view(state, 2))
    assert obs.dtype == np.float32 and obs.shape == spaces.OBS_SHAPE
    assert obs.min() >= 0.0 and obs.max() <= 1.0
    hand = state.counts[2]
    for k in range(4):
        assert obs[k].tolist() == [1.0 if n > k else 0.0 for n in hand]
    assert obs[6, state.laizi] == 1.0 and obs[6].sum() == 1.0
    assert obs[7, state.indicator] == 1.0
    row = spaces.PLANES.index("own seat is 2")
    assert obs[row].min() == 1.0 and obs[row - 2].max() == 0.0
    assert obs[spaces.PLANES.index("dealer is seat +0")].min() == 1.0
    assert obs[spaces.PLANES.index("profile bianfeng")].min() == 1.0
    assert obs[spaces.PLANES.index("phase turn")].min() == 1.0


def test_the_replacement_draw_plane_follows_the_engine() -> None:
    """Plane 137 is all ones exactly while the seat in turn holds a kong's replacement draw
    (a win now is 杠上花), for every seat's view: the kong is public.  Random hands with
    kongs taken whenever offered, so replacement draws come often; the test fails if the
    plane never lights (the loop counts them)."""
    plane = spaces.PLANES.index(
        "replacement draw: the seat in turn drew a kong's replacement (杠上花 if it wins)")
    assert plane == 137  # appended: the older planes kept their places
    rng = random.Random(11)
    lit = dark = 0
    for i in range(60):
        state = new_hand(get_rules(PROFILES[i % 3]), i % 4, rng=rng, auto_pass=True)
        policy = random_policy(rng)
        while not state.ended:
            expected = state.phase == "turn" and state.draw_source == "replacement"
            for viewer in range(4):
                obs = spaces.encode(seat_view(state, viewer))
                assert obs[plane].min() == obs[plane].max() == float(expected)
            lit += expected
            dark += not expected
            seat = state.to_act()[0]
            kongs = [a for a in state.legal_actions(seat) if isinstance(a, Kong | SpecialKong)]
            state.apply(seat, kongs[0] if kongs else policy(state, seat))
    assert lit >= 20 and dark > lit


def test_discards_and_their_order_are_encoded_relative_to_the_viewer() -> None:
    rng = random.Random(8)
    state = new_hand(get_rules(), 0, rng=rng, auto_pass=True)
    policy = random_policy(rng)
    while len(state.rivers[1]) < 3 and not state.ended:
        seat = state.to_act()[0]
        state.apply(seat, policy(state, seat))
    river = [t for t, _, _ in state.rivers[1]]
    obs = spaces.encode(seat_view(state, 0))
    last = spaces.PLANES.index("seat +1: discard 1 from last")
    assert obs[last, river[-1]] == 1.0 and obs[last + 1, river[-2]] == 1.0
    assert obs[spaces.PLANES.index("seat +1: discards, at least 1"), river[0]] == 1.0
    # seen from seat 1 the same river is its own (+0)
    own = spaces.encode(seat_view(state, 1))
    assert own[spaces.PLANES.index("seat +0: discard 1 from last"), river[-1]] == 1.0


def test_observation_never_depends_on_hidden_tiles() -> None:
    """Swap other seats' concealed tiles with live-wall tiles: the observation is unchanged
    (and changing the viewer's own hand does change it, so the check can fail)."""
    rng = random.Random(3)
    checked = 0
    for i in range(150):
        profile = PROFILES[i % 3]
        state = new_hand(get_rules(profile), i % 4, rng=rng)
        policy = random_policy(rng)
        stop = rng.randrange(80)
        while not state.ended and stop:
            seat = state.to_act()[0]
            state.apply(seat, policy(state, seat))
            stop -= 1
        if state.ended:
            continue
        viewer = rng.randrange(4)
        before = spaces.encode(seat_view(state, viewer))
        other = state.copy()
        wall = list(other.wall)
        swapped = False
        for s in range(4):
            if s == viewer:
                continue
            mine = [t for t in other.hand_tiles(s) if t != other.laizi]
            pos = rng.randrange(other.head, other.tail) if other.tail > other.head else None
            if not mine or pos is None or wall[pos] == other.laizi or wall[pos] in mine:
                continue
            out, into = rng.choice(mine), wall[pos]
            other._remove(s, out)
            other._add(s, into)
            wall[pos] = out
            swapped = True
        other.wall = tuple(wall)
        other._legal = [None] * 4
        assert (spaces.encode(seat_view(other, viewer)) == before).all()
        if swapped and other.hand_tiles(viewer):
            mine = [t for t in other.hand_tiles(viewer) if t != other.laizi]
            if mine:
                t = mine[0]
                other._remove(viewer, t)
                other._add(viewer, (t + 1) % 27)
                assert not (spaces.encode(seat_view(other, viewer)) == before).all()
                checked += 1
    assert checked > 80


def test_chi_indices_follow_the_discards_place_in_the_run() -> None:
    assert spaces.action_index(CHIS[2], on_table=2) == spaces.CHI_LOW
    assert spaces.action_index(CHIS[2], on_table=3) == spaces.CHI_MID
    assert spaces.action_index(CHIS[2], on_table=4) == spaces.CHI_HIGH
    with pytest.raises(ValueError):
        spaces.action_index(CHIS[2], on_table=7)
    assert spaces.action_index(PASS) == spaces.PASS_INDEX
