"""Win questions (胡不胡, ``bots/win_puzzles.py``): the question is a settlement record the
calculator reads back, its answer is the calculator's, the engine agrees with it on every
candidate position, and the answers are yes and no alike."""

from __future__ import annotations

import collections
import json
import random
from typing import Any

import pytest

from wuhan_mahjong.analysis import is_winning_shape
from wuhan_mahjong.bots import win_puzzles
from wuhan_mahjong.bots.puzzles import PUZZLE_NUMBER_MAX, PuzzleError
from wuhan_mahjong.bots.win_puzzles import WinQuestion, make_win_question, win_question_json
from wuhan_mahjong.calculator import answer_record, score_record
from wuhan_mahjong.engine.state import HandState
from wuhan_mahjong.rules import PROFILES, get_rules
from wuhan_mahjong.tiles import parse_tile, parse_tiles
from wuhan_mahjong.win_record import WinRecord, load_win_record


def check_question(q: WinQuestion) -> None:
    text = json.dumps(q.record)
    answer = score_record(text)  # the calculator, from the record as a player would paste it
    assert answer.body == q.answer
    assert answer.settled == q.win
    rec = load_win_record(text)
    assert rec.rules.profile == q.profile
    seat = q.record["seats"][q.record["winner"]]
    hand = parse_tiles(seat["hand"])
    melds = rec.seats[rec.winner].melds
    assert len(hand) + 3 * len(melds) == 13
    # the tiles make a winning shape: the question is about the rules, never the shape
    assert is_winning_shape([*hand, parse_tile(q.record["winning_tile"])], melds, rec.laizi,
                            rec.rules)
    if not q.win:
        assert q.answer["refusal"]["code"] not in ("no_shape", "tile_count")


@pytest.mark.parametrize("profile", list(PROFILES))
def test_the_questions_are_the_calculators(profile: str) -> None:
    for number in (1, 2, 3, PUZZLE_NUMBER_MAX):
        check_question(make_win_question(profile, number))


@pytest.mark.slow
@pytest.mark.parametrize("profile", list(PROFILES))
def test_yes_and_no_alike_and_several_reasons(profile: str) -> None:
    questions = [make_win_question(profile, n) for n in range(4, 64)]
    for q in questions:
        check_question(q)
    wins = sum(q.win for q in questions)
    assert 18 <= wins <= 42, wins  # half and half, drawn per number
    reasons = collections.Counter(q.answer["refusal"]["code"] for q in questions if not q.win)
    assert len(reasons) >= 2, reasons


@pytest.mark.parametrize("profile", list(PROFILES))
def test_the_engine_agrees_on_every_candidate(profile: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """At each candidate position, the engine's own verdict (what it would let the seat
    do) is the calculator's answer for the record."""
    checked: list[bool] = []
    real = win_puzzles._candidates

    def watched(state: HandState) -> list[WinRecord]:
        found = real(state)
        for rec in found:
            engine = state.win_now(rec.winner) is not None
            assert engine == answer_record(rec).settled, rec
            checked.append(engine)
        return found

    monkeypatch.setattr(win_puzzles, "_candidates", watched)
    rules = get_rules(profile)
    for deal in range(12):
        win_puzzles._from_deal(rules, 1, random.Random(f"agree {deal}"), True)
    assert True in checked and False in checked


def test_the_json_hides_the_answer_until_asked() -> None:
    q = make_win_question("bianfeng", 7)
    asked: dict[str, Any] = win_question_json(q, answer=False)
    assert set(asked) == {"profile", "number", "record"}
    full = win_question_json(q, answer=True)
    assert full["win"] == q.win and full["result"] == q.answer
    assert {k: full[k] for k in asked} == asked


@pytest.mark.parametrize(("profile", "number"), [("nope", 1), ("yuanhang", 0),
                                                 ("yuanhang", PUZZLE_NUMBER_MAX + 1)])
def test_no_such_question(profile: str, number: int) -> None:
    with pytest.raises(PuzzleError):
        make_win_question(profile, number)
