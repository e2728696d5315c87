"""The expert's core rules, checked on every decision of real hands.

* Big hands first at equal shanten: when a discard at the best shanten keeps a
  big-hand target (one suit, all pungs, 2/5/8, honours) as close, the expert's
  discard keeps one too (unless its defence layer traded it for a safer tile).
* No idle claims while far and closed: an unopened expert at shanten 2 or more
  passes a claim that does not bring it closer (greedy makes it).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from handmade import make_view

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot, after_claim, discard_choices, evaluator
from wuhan_mahjong.bots.handeval import Evaluator, hand_counts
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import SeatView, new_hand, seat_view
from wuhan_mahjong.engine.actions import PASS, Action, Chi, Discard, Kong, Peng
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import parse_tile, parse_tiles


def test_shanten_key_puts_a_big_target_first_at_equal_shanten() -> None:
    # after 1p goes, ready both as a small hand (pair 55m) and as 清一色
    counts, wilds = hand_counts(parse_tiles("123456m55m789m78m1p"), laizi=33)
    ev = Evaluator(counts, wilds, (), (33,))
    one_p = parse_tiles("1p")[0]
    assert ev.shanten_after(one_p, -1, "small") == ev.shanten_after(one_p, -1, "qys0") == 0
    assert GreedyBot(0).shanten_key(ev, one_p) == (0.0, "small")
    assert ExpertBot(0).shanten_key(ev, one_p) == (-0.5, "qys0")
    # a big target one step further than the small hand does not win
    counts, wilds = hand_counts(parse_tiles("123456m55m789m23p9s"), laizi=33)
    ev = Evaluator(counts, wilds, (), (33,))
    nine_s = parse_tiles("9s")[0]
    assert ev.shanten_after(nine_s, -1, "small") < ev.shanten_after(nine_s, -1, "qys0")
    assert ExpertBot(0).shanten_key(ev, nine_s) == (0.0, "small")


def _big_kept(ev: Evaluator, d: int, best: int) -> bool:
    return any(ev.shanten_after(d, -1, tg) == best for tg in ev.allowed if tg != "small")


def _expert_decisions(profile: str, seeds: range
                      ) -> Iterator[tuple[SeatView, Action, ExpertBot, bool]]:
    """Every decision of four experts over one hand per seed: (view, action, bot, whether
    the defence layer replaced the core's discard by a safer one)."""
    rules = get_rules(profile)
    for seed in seeds:
        state = new_hand(rules, 0, rng=random.Random(seed), auto_pass=True)
        # small work budgets: the core rules do not depend on them
        bots = [ExpertBot(s, samples=16, lookahead_work=60) for s in range(4)]
        while not state.ended:
            seat = state.to_act()[0]
            view = seat_view(state, seat)
            before = bots[seat].defended
            action = bots[seat].choose(view)
            yield view, action, bots[seat], bots[seat].defended > before
            state.apply(seat, action)


@pytest.mark.slow
def test_expert_keeps_a_big_target_at_equal_shanten() -> None:
    checked = 0
    for view, action, _, defended in _expert_decisions("laizishanzhuang", range(500, 540)):
        t = SeatReading(view)
        if t.phase == "turn" and isinstance(action, Discard) and not defended:
            ev = evaluator(t.hand, t.melds, t)
            choices = discard_choices(t)
            best = min(ev.shanten_after(d, -1) for d in choices)
            if best >= 1 and any(_big_kept(ev, d, best) for d in choices
                                 if ev.shanten_after(d, -1) == best):
                assert ev.shanten_after(action.tile, -1) == best
                assert _big_kept(ev, action.tile, best), (view["hand"], action)
                checked += 1
    assert checked > 20


@pytest.mark.slow
def test_closed_far_hands_pass_idle_claims() -> None:
    expert_passed = greedy_claimed = 0
    greedy = get_bot("greedy", 0)
    for view, action, me, _ in _expert_decisions("yuanhang", range(900, 960)):
        t = SeatReading(view)
        if (t.phase != "claim" or t.opened or not t.small_win_possible()
                or any(isinstance(a, Kong) for a in t.actions)):  # 冲杠 always pays
            continue
        ev = evaluator(t.hand, t.melds, t)
        cur = me.shanten_key(ev)[0]
        idle = []
        for a in t.actions:
            if isinstance(a, (Chi, Peng)):
                res = after_claim(t, a)
                assert res is not None
                ev2 = evaluator(*res, t)
                after = min(me.shanten_key(ev2, d)[0] for d in set(res[0])
                            if d != t.laizi and d not in t.must)
                idle.append(after >= cur)
        if cur >= 2 and idle and all(idle):
            assert action == PASS, (view["hand"], view["legal_actions"])
            expert_passed += 1
            if greedy.choose(view) != PASS:
                greedy_claimed += 1
    assert expert_passed > 5 and greedy_claimed > 0


def test_eager_peng_makes_an_idle_peng_of_a_far_closed_hand() -> None:
    """Three steps from ready and closed, the peng of 8m keeps the shanten: greedy makes
    it, the expert passes (``eager_below``), and with ``eager_peng`` it pengs (measured
    about even, so off: docs/bots-log.md)."""
    view = make_view("57889m89p366s122z", profile="laizishanzhuang", indicator="9s", wall=60,
                     claim=("8m", 2), actions=[{"type": "peng", "tile": "8m", "tiles": "888m"},
                                               {"type": "pass"}])
    peng = Peng(parse_tile("8m"))
    assert get_bot("greedy", 1).choose(view) == peng
    assert ExpertBot(1).choose(view) == PASS
    assert ExpertBot(1, eager_peng=True).choose(view) == peng
