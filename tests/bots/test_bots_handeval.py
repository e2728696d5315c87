"""The bots' fast evaluator agrees with the rules core's exact shanten."""

from __future__ import annotations

import random

import pytest

from wuhan_mahjong.analysis import shanten, waits
from wuhan_mahjong.bots import handeval
from wuhan_mahjong.bots.handeval import Evaluator, hand_counts
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tile, parse_tiles


def _random_case(rng: random.Random) -> tuple[list[int], list[Meld], int]:
    pool = [t for t in range(33) for _ in range(4)]
    rng.shuffle(pool)
    melds: list[Meld] = []
    for _ in range(rng.randrange(4)):
        if rng.random() < 0.5:
            t = rng.randrange(34 if rng.random() < 0.2 else 27)
            t = min(t, 32)
            melds.append(Meld("peng", (t, t, t), 1))
        else:
            s = rng.randrange(3) * 9 + rng.randrange(7)
            melds.append(Meld("chi", (s, s + 1, s + 2), 1))
    n = 14 - 3 * len(melds) - rng.randrange(2)
    return pool[:n], melds, rng.randrange(33)


def test_matches_analysis_shanten() -> None:
    rules = get_rules()
    rng = random.Random(2024)
    for _ in range(600):
        hand, melds, laizi = _random_case(rng)
        counts, wilds = hand_counts(hand, laizi)
        ev = Evaluator(counts, wilds, melds, (33,))
        assert ev.best()[0] == shanten(hand, melds, laizi, rules), (hand, melds, laizi)


def test_what_if_queries_match_rebuilding() -> None:
    rng = random.Random(7)
    for _ in range(150):
        hand, melds, laizi = _random_case(rng)
        counts, wilds = hand_counts(hand, laizi)
        ev = Evaluator(counts, wilds, melds, (33,))
        for t in range(33):
            if t == laizi:
                continue
            if counts[t]:
                assert ev.shanten_after(t, -1) == ev.with_tile(t, -1).best()[0]
            if counts[t] < 4:
                assert ev.shanten_after(t, 1) == ev.with_tile(t, 1).best()[0]


def test_targets_and_acceptance() -> None:
    counts, wilds = hand_counts(parse_tiles("1112345678999m"), laizi=33)
    ev = Evaluator(counts, wilds, (), (33,))
    assert ev.shanten("qys") == 0 and ev.shanten("pph") >= 1
    unseen = [4] * 34
    for t in parse_tiles("1112345678999m"):
        unseen[t] -= 1
    tiles, kinds = ev.acceptance(unseen, laizi=33, target="qys0")
    assert kinds == 9 and tiles == sum(unseen[:9])  # 九莲宝灯 waits on every 万


def test_removing_a_tile_the_hand_does_not_hold_is_refused() -> None:
    """The laizi is held as a wild, not as a count: asking to discard it (or any absent
    tile) once recursed without end; it is a ValueError now."""
    laizi = parse_tile("9m")
    counts, wilds = hand_counts(parse_tiles("13355m799p33479s9m"), laizi)
    ev = Evaluator(counts, wilds, [], ())
    with pytest.raises(ValueError, match="holds no tile"):
        ev.shanten_after(laizi, -1)
    with pytest.raises(ValueError, match="holds no tile"):
        ev.with_tile(parse_tile("2p"), -1)
    assert ev.shanten_after(parse_tile("7p"), -1) >= 0


def _biased_case(rng: random.Random) -> tuple[list[int], list[Meld], int, tuple[int, ...], bool]:
    """A hand leaning to one kind of tile now and then (one suit, honours, 2/5/8), so
    that every target is open in some cases, with random must-kong tiles and 碰碰胡."""
    must = rng.choice(((33,), (32, 33), ()))
    lean = rng.choice((None, "suit", "honour", "258"))
    kinds = [t for t in range(34) if t not in must]
    if lean == "suit":
        q = rng.randrange(3)
        kinds = [t for t in kinds if q * 9 <= t < q * 9 + 9] * 2 + kinds
    elif lean == "honour":
        kinds = [t for t in kinds if t >= 27] * 3 + kinds
    elif lean == "258":
        kinds = [t for t in kinds if t < 27 and t % 9 in (1, 4, 7)] * 3 + kinds
    melds: list[Meld] = []
    for _ in range(rng.randrange(4)):
        t = rng.choice(kinds)
        if rng.random() < 0.7 or t >= 25 or t % 9 > 6:
            melds.append(Meld("peng", (t, t, t), 1))
        else:
            melds.append(Meld("chi", (t, t + 1, t + 2), 1))
    n = 14 - 3 * len(melds) - rng.randrange(2)
    pool = [t for t in range(34) for _ in range(4)]
    hand: list[int] = []
    while len(hand) < n:
        t = rng.choice(kinds + ([rng.randrange(34)] if rng.random() < 0.1 else []))
        if pool.count(t) > hand.count(t):
            hand.append(t)
    return hand, melds, rng.randrange(34), must, rng.random() < 0.8


def test_fast_paths_match_their_definition() -> None:
    """The best target's what-if shanten and the acceptance (its kinds found suit by suit,
    one target at a time until one reaches the threshold) against their definitions:
    the least shanten over the open targets, asked one target and one kind at a time;
    and :meth:`Evaluator.with_tile` (which derives the new evaluator from the old one)
    against an evaluator built afresh."""
    rng = random.Random(11)
    for _ in range(400):
        hand, melds, laizi, must, pph = _biased_case(rng)
        counts, wilds = hand_counts(hand, laizi)
        ev = Evaluator(counts, wilds, melds, must, pph)
        unseen = [rng.choice((0, 1, 2, 3, 4)) for _ in range(34)]
        for t in range(34):
            for delta in (1, -1):
                if delta < 0 and not ev.counts[t]:
                    continue
                slow = min(ev.shanten_after(t, delta, tg) for tg in ev.allowed)
                assert ev.shanten_after(t, delta) == slow, (hand, melds, must, t, delta)
                if delta > 0 or ev.counts[t]:
                    other = ev.with_tile(t, delta)
                    fresh = Evaluator([c + (delta if k == t else 0) for k, c in enumerate(ev.counts)],
                                      wilds, melds, must, pph)
                    for name in Evaluator.__slots__:
                        if name != "_big":
                            assert getattr(other, name) == getattr(fresh, name), (name, hand, t)
                    assert other.best() == fresh.best()
        for now in range(-2, 6):
            want = ev._kinds(unseen, laizi, lambda t, ev=ev, now=now: min(
                ev.shanten_after(t, 1, tg) for tg in ev.allowed) < now)
            assert ev.acceptance_kinds(unseen, laizi, current=now) == want, (hand, melds, now)
            assert ev.acceptance(unseen, laizi, current=now) == (sum(unseen[t] for t in want),
                                                                 len(want))


def test_suit_vectors_by_parts_match_the_whole_suit_search() -> None:
    """A suit's vectors built from memoised parts (blocks of kinds held at most two apart,
    each keeping its place modulo 3 for its 2/5/8 pairs; the counts held in any order
    without runs) are those of the whole suit's search (``handeval._build_vectors``)."""
    rng = random.Random(11)
    for suit, size in ((0, 9), (3, 7)):
        for _ in range(6000):
            c = [0] * size
            for _ in range(rng.randint(0, 14)):
                k = rng.randrange(size)
                if c[k] < 4:
                    c[k] += 1
            counts = tuple(c)
            if suit < 3:
                want = (handeval._suit_vec(counts, True, handeval._ANY),
                        handeval._suit_vec(counts, True, handeval._258),
                        handeval._suit_vec(counts, False, handeval._ANY))
            else:
                v = handeval._suit_vec(counts, False, handeval._ANY)
                want = (v, handeval._suit_vec(counts, False, handeval._NONE), v)
            assert handeval._build_vectors(counts, suit) == want, (counts, suit)


def _near_ready(rng: random.Random) -> tuple[list[int], list[Meld]]:
    """A complete hand (four sets and a pair, some sets claimed) less one tile, one tile of
    it changed now and then: mostly ready hands, some a step away."""
    sets: list[tuple[int, ...]] = []
    lean = rng.choice((None, "suit", "honour", "258"))
    q = rng.randrange(3)
    while len(sets) < 4:
        t = rng.randrange(34)
        if lean == "suit" and not q * 9 <= t < q * 9 + 9:
            continue
        if lean == "honour" and rng.random() < 0.7 and t < 27:
            continue
        if lean == "258" and not (t < 27 and t % 9 in (1, 4, 7)):
            continue
        sets.append((t, t + 1, t + 2) if t < 27 and t % 9 < 7 and rng.random() < 0.5
                    else (t, t, t))
    pair = rng.randrange(34)
    melds = [Meld("peng" if s[0] == s[1] else "chi", s, 1) for s in sets[:rng.randrange(5)]]
    hand = [x for s in sets[len(melds):] for x in s] + [pair, pair]
    hand.remove(rng.choice(hand))
    if rng.random() < 0.3:
        hand[rng.randrange(len(hand))] = rng.randrange(34)
    return sorted(hand), melds


def test_a_hand_with_any_win_is_ready_by_the_evaluator() -> None:
    """Whatever the analysis reads as a win (a 全求人 and a soft win included) is a shape
    some open target counts complete, so greedy asks the analysis for the big-hand waits
    of ready hands only (``GreedyBot.wild_waits_big``): a hand the evaluator puts a step
    away has no win at all."""
    rng = random.Random(12)
    wins = 0
    for i in range(1500):
        rules = get_rules(("yuanhang", "bianfeng", "laizishanzhuang")[i % 3])
        hand, melds = _near_ready(rng)
        if any(hand.count(t) + sum(m.tiles.count(t) for m in melds) > 4 for t in set(hand)):
            continue
        laizi = rng.choice(hand) if rng.random() < 0.5 else rng.randrange(34)
        found = waits(hand, melds, laizi, rules, "discard") + waits(hand, melds, laizi, rules)
        if found:
            wins += 1
            counts, wilds = hand_counts(hand, laizi)
            ev = Evaluator(counts, wilds, melds, sorted(rules.must_kong_tiles), rules.pengpenghu)
            assert ev.best()[0] <= 0, (hand, melds, laizi, rules.profile, found)
    assert wins > 250
