"""The memo tables keyed by a suit's counts stay bounded (the server's memory, soak bench).

Each memo of ``shape``, ``analysis`` and ``bots.handeval`` is keyed by one suit's tile
counts (about 1.3 million possible keys); kept whole they grew a long-running server by
several MiB a minute.  These tests shrink the bound, feed many more distinct suits than
it, and check that the table never holds more and still gives the same answers.
"""

from __future__ import annotations

import itertools
import random

import pytest

from wuhan_mahjong import analysis, shape
from wuhan_mahjong.bots import handeval


def _suits(n: int, size: int = 9, seed: int = 7) -> list[tuple[int, ...]]:
    """``n`` distinct suit count vectors (0-4 of each kind, at most 14 tiles)."""
    rng = random.Random(seed)
    out: dict[tuple[int, ...], None] = {}
    while len(out) < n:
        c = [0] * size
        for _ in range(rng.randint(1, 14)):
            k = rng.randrange(size)
            if c[k] < 4:
                c[k] += 1
        out[tuple(c)] = None
    return list(out)


def _pack(c: tuple[int, ...]) -> int:
    return sum(n << (3 * i) for i, n in enumerate(c))


LIMIT = 40


def test_recursive_memos_are_lru_bounded() -> None:
    assert shape._need.cache_info().maxsize == getattr(shape, "MEMO_LIMIT", None)
    assert handeval._suit_vec.cache_info().maxsize == getattr(shape, "MEMO_LIMIT", None)
    assert shape.MEMO_LIMIT <= 1 << 16  # a few tens of MiB at most


def test_suit_tables_stay_bounded_and_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    suits = _suits(5 * LIMIT)
    want = [shape.SUITED[_pack(c)] for c in suits]  # the real table, whatever its state
    monkeypatch.setattr(shape, "MEMO_LIMIT", LIMIT, raising=False)
    table = shape._SuitTable(9, True)
    got = []
    for c in suits:
        got.append(table[_pack(c)])
        assert len(table) <= LIMIT
    assert got == want


def test_wait_rows_stay_bounded_and_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    keys = [(s, _pack(c), m) for s, c, m in zip(itertools.cycle(range(3)), _suits(5 * LIMIT),
                                                itertools.cycle((shape.PAIR, shape.PPAIR)))]
    monkeypatch.setattr(shape, "_WAIT_ROWS", {})
    want = [shape._wait_rows(*k) for k in keys]
    monkeypatch.setattr(shape, "_WAIT_ROWS", {})
    monkeypatch.setattr(shape, "MEMO_LIMIT", LIMIT, raising=False)
    for k, w in zip(keys, want, strict=True):
        assert shape._wait_rows(*k) == w
        assert len(shape._WAIT_ROWS) <= LIMIT


@pytest.mark.slow
def test_shanten_memo_stays_bounded_and_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    suits = _suits(5 * LIMIT)
    monkeypatch.setattr(analysis, "_SUIT_KEPT_CACHE", {})
    want = [analysis._suit_kept(c, True, 1) for c in suits]
    monkeypatch.setattr(analysis, "_SUIT_KEPT_CACHE", {})
    monkeypatch.setattr(shape, "MEMO_LIMIT", LIMIT, raising=False)
    for c, w in zip(suits, want, strict=True):
        assert analysis._suit_kept(c, True, 1) == w
        assert len(analysis._SUIT_KEPT_CACHE) <= LIMIT


def test_bot_evaluator_memos_stay_bounded_and_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    hands = [c + (0,) * 25 for c in _suits(5 * LIMIT)]  # the 万 suit varies
    monkeypatch.setattr(handeval, "_SV", {})
    monkeypatch.setattr(handeval, "_COMB", {})
    want = [handeval.suit_vectors(h, 0) for h in hands]
    pairs = [(a[0], b[1]) for a, b in itertools.pairwise(want)]
    want_comb = [handeval.combine(a, b) for a, b in pairs]
    monkeypatch.setattr(handeval, "_SV", {})
    monkeypatch.setattr(handeval, "_COMB", {})
    monkeypatch.setattr(handeval, "MEMO_LIMIT", LIMIT, raising=False)
    for h, w in zip(hands, want, strict=True):
        assert handeval.suit_vectors(h, 0) == w
        assert len(handeval._SV) <= LIMIT
    for (va, vb), vw in zip(pairs, want_comb, strict=True):
        assert handeval.combine(va, vb) == vw
        assert len(handeval._COMB) <= 2 * LIMIT


def test_chat_limits_stay_bounded() -> None:
    """The quick-chat rate limit keeps a bucket per account that chatted lately, in
    bounded memory: every account that ever chatted used to stay in a dict."""
    from types import SimpleNamespace
    from typing import Any, cast

    from wuhan_mahjong.server.chat import ChatRelay
    from wuhan_mahjong.server.placement import TablePlace
    from wuhan_mahjong.server.protocol import ChatMsg, ProtocolError

    table = SimpleNamespace(seats=[])  # nobody to relay to: only the limit is exercised
    hub = SimpleNamespace(where=SimpleNamespace(get=lambda _acct: TablePlace(cast(Any, table), 0)))
    relay = ChatRelay(cast(Any, hub))
    relay.limiter.max_addresses = LIMIT
    msg = ChatMsg.model_validate({"type": "chat", "phrase": "nice"})
    for account_id in range(5 * LIMIT):
        relay.say(cast(Any, SimpleNamespace(account_id=account_id)), msg)
        assert len(relay.limiter.buckets) <= LIMIT
    talker = cast(Any, SimpleNamespace(account_id=10 * LIMIT))
    for _ in range(3):  # the burst (3), then the limit holds
        relay.say(talker, msg)
    with pytest.raises(ProtocolError):
        relay.say(talker, msg)


def test_rule_set_caches_stay_bounded_and_exact() -> None:
    """The caches keyed by a whole rule set (``rules._overrides``, the bots' ``_rules``)
    hold at most their bound however many rule sets rooms choose (they were
    ``functools.cache``: one entry per rule set ever seen, for the process's life)."""
    from wuhan_mahjong import rules
    from wuhan_mahjong.bots import seat_reading as table

    for cached in (rules._overrides, table._rules):
        assert cached.cache_info().maxsize is not None
    bound = rules._overrides.cache_info().maxsize
    assert bound is not None and table._rules.cache_info().maxsize == bound
    for cap in range(301, 301 + 3 * bound):  # 300 is the preset
        r = table.rules_for("yuanhang", {"cap": cap})
        assert r.cap == cap and r.overrides() == {"cap": cap}
        assert rules.get_rules("yuanhang", r.overrides()) == r
        assert rules._overrides.cache_info().currsize <= bound
        assert table._rules.cache_info().currsize <= bound


def test_bot_acceptance_memo_stays_bounded_and_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """The memo of the kinds that lower a hand's shanten, suit by suit, shared between
    evaluators (``handeval._LOWERING``)."""
    rng = random.Random(3)
    cases = []
    for _ in range(60):
        pool = [t for t in range(34) for _ in range(4)]
        rng.shuffle(pool)
        counts = [0] * 34
        for t in pool[:13]:
            counts[t] += 1
        cases.append(counts)
    unseen = [4] * 34

    def run() -> list[tuple[int, ...]]:
        return [handeval.Evaluator(c, 0, (), (33,)).acceptance_kinds(unseen, 32) for c in cases]

    monkeypatch.setattr(handeval, "_LOWERING", {})
    want = run()
    monkeypatch.setattr(handeval, "_LOWERING", {})
    monkeypatch.setattr(handeval, "MEMO_LIMIT", LIMIT, raising=False)
    assert run() == want
    assert 0 < len(handeval._LOWERING) <= LIMIT
    assert run() == want  # from a full memo as from an empty one


def test_bot_evaluator_rule_memos_are_lru_bounded() -> None:
    """The open targets by melds and the 风一色 tiles by must-kong tiles (``handeval``)."""
    assert handeval._allowed.cache_info().maxsize == 1024
    assert handeval._fys_tiles.cache_info().maxsize == 64


def test_bot_waits_memo_stays_bounded_and_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """Greedy's memo of what it reads from a hand's waits (``greedy._WAITS``), and the
    evaluator's memos of a suit's parts (``handeval._block_vectors``, ``_pung_vector``)."""
    from wuhan_mahjong.bots import greedy
    from wuhan_mahjong.bots.seat_reading import SeatReading
    from wuhan_mahjong.bots.view import int_view
    from wuhan_mahjong.engine.state import new_hand
    from wuhan_mahjong.meld import Meld
    from wuhan_mahjong.rules import get_rules

    assert handeval._block_vectors.cache_info().maxsize == shape.MEMO_LIMIT
    assert handeval._pung_vector.cache_info().maxsize == 1024
    t = SeatReading(int_view(new_hand(get_rules(), 0, rng=random.Random(5)), 0))
    melds = [Meld("peng", (x, x, x), 1) for x in (18, 19, 20)]  # opened: its waits win
    rng = random.Random(4)
    hands = []
    for _ in range(3 * LIMIT):
        pool = [x for x in range(9) for _ in range(4)]
        rng.shuffle(pool)
        hands.append(sorted(pool[:4]))

    def run() -> list[tuple[greedy.WaitSummary, ...]]:
        return [greedy.wait_summary(h, melds, t, "self_draw") for h in hands]

    monkeypatch.setattr(greedy, "_WAITS", {})
    want = run()
    assert any(want)  # some hands are ready
    monkeypatch.setattr(greedy, "_WAITS", {})
    monkeypatch.setattr(greedy, "WAITS_LIMIT", LIMIT)
    assert run() == want
    assert 0 < len(greedy._WAITS) <= LIMIT
