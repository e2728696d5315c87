"""Matches: dealer rotation, the first dealer, running totals, escapes."""

from __future__ import annotations

import itertools
import random

import pytest
from engine_helpers import keen_policy

from wuhan_mahjong.engine import PASS, Match, MatchError, escape_deltas, random_policy, simple_policy
from wuhan_mahjong.rules import get_rules


def test_first_dealer_comes_from_the_injected_source() -> None:
    for seed in range(8):
        m = Match(get_rules(), 1, rng=random.Random(seed))
        assert m.dealer == random.Random(seed).randrange(4)


def test_dealer_keeps_the_deal_after_his_win_or_a_draw_else_it_passes_on() -> None:
    rng = random.Random(11)
    m = Match(get_rules("laizishanzhuang"), 120, rng=rng, auto_pass=True)
    totals = m.run(keen_policy(rng))
    hist = m.history
    kinds = set()
    for a, b in itertools.pairwise(hist):
        r = a.result
        if r.outcome == "exhausted":
            kinds.add("draw")
            assert b.dealer == a.dealer
        elif r.winner == a.dealer:
            kinds.add("dealer")
            assert b.dealer == a.dealer
        else:
            kinds.add("other")
            assert b.dealer == (a.dealer + 1) % 4
    assert kinds == {"draw", "dealer", "other"}
    assert sum(totals) == 0
    assert totals == [sum(h.result.deltas[s] for h in hist) for s in range(4)]
    assert [h.hand_no for h in hist] == list(range(120))


def test_dealer_passes_on_after_a_draw_when_the_option_says_so() -> None:
    rng = random.Random(11)
    m = Match(get_rules("laizishanzhuang", {"dealer_keeps_after_draw": False}), 40, rng=rng,
              auto_pass=True)
    m.run(keen_policy(rng))
    draws = [(a, b) for a, b in itertools.pairwise(m.history) if a.result.outcome == "exhausted"]
    assert draws
    assert all(b.dealer == (a.dealer + 1) % 4 for a, b in draws)


def test_escape_pays_the_penalty_and_a_bot_finishes_the_match() -> None:
    rules = get_rules("laizishanzhuang")  # escape 400
    rng = random.Random(4)
    m = Match(rules, 6, rng=rng, auto_pass=True)
    hand = m.start_hand()
    policy = keen_policy(rng)
    for _ in range(10):
        s = hand.to_act()[0]
        m.apply(s, policy(hand, s))
    assert m.escape(2) == (133, 133, -400, 134)
    assert m.totals == [133, 133, -400, 134]
    with pytest.raises(MatchError, match="already escaped"):
        m.escape(2)
    with pytest.raises(MatchError, match="has escaped"):
        m.apply(2, PASS)
    assert 2 not in hand.to_act()  # the built-in player answered at once
    m.run(policy)
    assert m.finished and sum(m.totals) == 0
    assert ("escape", 2, 400, (133, 133, -400, 134)) in hand.log
    assert any('"e":"escape"' in line for line in m.history[0].records)


def test_escape_split_is_integer_safe() -> None:
    for penalty in (0, 1, 2, 400, 500, 401):
        for seat in range(4):
            d = escape_deltas(seat, penalty)
            assert sum(d) == 0 and d[seat] == -penalty
            assert max(d[s] for s in range(4) if s != seat) - min(
                d[s] for s in range(4) if s != seat) <= 1


def test_simple_policy_plays_whole_hands() -> None:
    rng = random.Random(8)
    m = Match(get_rules("bianfeng"), 3, rng=rng, auto_pass=True)
    m.escape(0)
    m.escape(1)
    m.escape(3)
    m.run(random_policy(rng))
    assert m.finished and sum(m.totals) == 0
    hand = m.hand
    assert hand is not None and hand.ended
    with pytest.raises(MatchError, match="nothing to do"):
        simple_policy(hand, 0)


def test_match_misuse() -> None:
    with pytest.raises(MatchError):
        Match(get_rules(), 0)
    m = Match(get_rules(), 1, rng=random.Random(1))
    with pytest.raises(MatchError, match="no hand in progress"):
        m.apply(0, PASS)
    m.start_hand()
    with pytest.raises(MatchError, match="in progress"):
        m.start_hand()


def test_explicit_walls_and_the_default_secure_source() -> None:
    from wuhan_mahjong.engine import new_hand
    from wuhan_mahjong.engine.dealing import shuffled_wall

    wall = shuffled_wall(random.Random(3))
    m = Match(get_rules(), 1, walls=[wall], first_dealer=2)
    hand = m.start_hand()
    assert hand.wall == tuple(wall) and hand.dealer == 2
    a, b = new_hand(get_rules(), 0), new_hand(get_rules(), 0)  # OS CSPRNG walls and salts
    assert a.commitment != b.commitment and a.salt != b.salt
