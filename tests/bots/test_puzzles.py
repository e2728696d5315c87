"""Discard problems (何切, ``bots/puzzles.py``): every claim a puzzle makes is checked against
the rules core's shanten, with acceptance counted by the book's definition (draw a tile,
then throw the best one), not the module's shortcut."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date

import pytest

from wuhan_mahjong.analysis import shanten
from wuhan_mahjong.bots.puzzles import (
    ALTERNATIVES,
    PUZZLE_NUMBER_MAX,
    Puzzle,
    PuzzleError,
    daily_number,
    make_puzzle,
    puzzle_json,
)
from wuhan_mahjong.rules import PROFILES, get_rules
from wuhan_mahjong.tiles import NUM_KINDS, parse_tiles


def check_puzzle(p: Puzzle) -> None:
    rules = get_rules(p.profile)
    hand = list(p.hand)
    must = set(rules.must_kong_tiles)
    # a position a table can show: fourteen tiles with the melds, no fifth copy, no laizi,
    # must-kong tile or 癞子皮 in hand (those turns ask another question)
    assert len(hand) + 3 * len(p.melds) == 14
    seen = [hand.count(t) for t in range(NUM_KINDS)]
    for m in p.melds:
        for t in m.tiles:
            seen[t] += 1
    seen[p.indicator] += 1
    assert max(seen) <= 4
    assert p.laizi == rules.laizi_of(p.indicator)
    pi = p.indicator if rules.pi_kong_active and p.indicator not in must else None
    assert p.laizi not in hand and not must & set(hand) and pi not in hand
    assert p.drawn is None or p.drawn in hand
    # every kind in hand is a choice, once
    assert sorted(c.tile for c in p.choices) == sorted(set(hand))
    known: dict[tuple[int, ...], int] = {}

    def thirteen(tiles: list[int]) -> int:
        """The rules core's shanten of thirteen tiles beside the melds, each multiset asked
        once (the choices' draws and discards reach the same hands many times over)."""
        key = tuple(sorted(tiles))
        if key not in known:
            known[key] = shanten(list(key), p.melds, p.laizi, rules)
        return known[key]

    for c in p.choices:
        rest = list(hand)
        rest.remove(c.tile)
        assert thirteen(rest) == c.shanten, c
        # the book's acceptance: a drawn tile after which some discard leaves the hand
        # closer (by the rules core's shanten of thirteen tiles)
        kinds = []
        for t in range(NUM_KINDS):
            if seen[t] == 4 or t in must:
                continue
            drawn = [*rest, t]
            if any(thirteen(drawn[:i] + drawn[i + 1:]) < c.shanten
                   for i in range(len(drawn)) if drawn[i] != p.laizi):
                kinds.append(t)
        assert c.kinds == tuple(kinds), (c, kinds)
        assert c.acceptance == sum(4 - seen[t] for t in kinds)
    # best first, one answer, a real choice, not yet ready
    keys = [(c.shanten, -c.acceptance) for c in p.choices]
    assert keys == sorted(keys)
    best = p.choices[0]
    assert p.answer == best.tile and best.shanten >= 1
    assert p.choices[1].shanten == best.shanten and p.choices[1].acceptance < best.acceptance
    assert sum(c.shanten == best.shanten for c in p.choices) > ALTERNATIVES


@pytest.mark.parametrize("profile", list(PROFILES))
def test_the_puzzles_claims_hold(profile: str) -> None:
    for number in (1, 3, PUZZLE_NUMBER_MAX):
        check_puzzle(make_puzzle(profile, number))


@pytest.mark.slow
@pytest.mark.parametrize("profile", list(PROFILES))
def test_the_puzzles_claims_hold_on_many(profile: str) -> None:
    for number in (2, *range(4, 40)):
        check_puzzle(make_puzzle(profile, number))


def test_the_json_hides_the_answer_until_asked() -> None:
    p = make_puzzle("yuanhang", 5)
    question = puzzle_json(p, answer=False)
    assert "answer" not in question and "choices" not in question
    assert sorted(parse_tiles("".join(question["discards"]))) == sorted(set(p.hand))
    assert parse_tiles(question["hand"]) == list(p.hand)
    full = puzzle_json(p, answer=True)
    assert full["answer"] == full["choices"][0]["tile"]
    assert {k: v for k, v in full.items() if k not in ("answer", "choices")} == question
    assert len(full["choices"]) == len(question["discards"])


def test_same_number_same_puzzle_under_any_hash_seed() -> None:
    """A puzzle is a pure function of (profile, number): another process, with another hash
    seed, deals and plays the same."""
    code = ("import json; from wuhan_mahjong.bots.puzzles import make_puzzle, puzzle_json; "
            "print(json.dumps([puzzle_json(make_puzzle(p, n), answer=True) "
            "for p in ('yuanhang', 'laizishanzhuang') for n in (11, 12)]))")
    here = [puzzle_json(make_puzzle(p, n), answer=True)
            for p in ("yuanhang", "laizishanzhuang") for n in (11, 12)]
    for seed in ("0", "1"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        assert json.loads(out) == here


@pytest.mark.parametrize(("profile", "number"), [
    ("nope", 1), ("yuanhang", 0), ("yuanhang", -5), ("yuanhang", PUZZLE_NUMBER_MAX + 1)])
def test_no_such_puzzle(profile: str, number: int) -> None:
    with pytest.raises(PuzzleError):
        make_puzzle(profile, number)


def test_the_daily_number() -> None:
    day = date(2026, 12, 5)
    assert daily_number(day) == daily_number(date(2026, 12, 5))
    assert daily_number(day) != daily_number(date(2026, 12, 6))
    assert all(1 <= daily_number(date.fromordinal(n)) <= PUZZLE_NUMBER_MAX
               for n in (1, 2, 3_652_059))
