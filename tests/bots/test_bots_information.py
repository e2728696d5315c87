"""A bot's input is its seat view and nothing else.

* The policy modules import nothing that holds engine state.
* Two states that differ only in what the seat cannot see give the same view
  (but for the wall commitment, a hash) and the same decision.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

import wuhan_mahjong.bots as bots_pkg
from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine import new_hand, seat_view
from wuhan_mahjong.engine.dealing import INDICATOR_POS
from wuhan_mahjong.rules import get_rules

POLICY_MODULES = ["base", "seat_reading", "search", "handeval", "greedy", "expert", "opponents", "jsonl"]
FORBIDDEN = {"wuhan_mahjong.engine.state", "wuhan_mahjong.engine.match",
             "wuhan_mahjong.engine.records", "wuhan_mahjong.engine.dealing"}
FORBIDDEN_NAMES = {"HandState", "new_hand", "reduce", "play_hand", "tile_census"}


def _imports(path: Path) -> set[str]:
    out = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = "wuhan_mahjong.bots"
            mod = node.module or ""
            if node.level:
                parts = base.split(".")[: len(base.split(".")) - node.level + 1]
                mod = ".".join([*parts, mod]) if mod else ".".join(parts)
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


@pytest.mark.parametrize("module", POLICY_MODULES)
def test_policy_modules_do_not_import_engine_state(module: str) -> None:
    path = Path(bots_pkg.__file__).parent / f"{module}.py"
    names = _imports(path)
    assert not names & FORBIDDEN, names & FORBIDDEN
    assert not names & FORBIDDEN_NAMES, names & FORBIDDEN_NAMES


def _decisions(name: str, view: dict) -> str:  # type: ignore[type-arg]
    bot = ExpertBot(5, samples=40) if name == "expert" else get_bot(name, 5)
    return str(bot.choose(view))  # type: ignore[arg-type]


@pytest.mark.parametrize("policy", ["greedy", pytest.param("expert", marks=pytest.mark.slow), "random"])
def test_hidden_wall_order_does_not_change_the_decision(policy: str) -> None:
    """Permute every tile the dealer cannot see (other hands, live wall): same decision."""
    rules = get_rules("yuanhang")
    checked = 0
    for k in range(15):
        rng = random.Random(k)
        a = new_hand(rules, 0, rng=rng)
        hidden = [p for p in range(len(a.wall)) if p != INDICATOR_POS]
        own = set()
        from wuhan_mahjong.engine.dealing import deal_positions

        own.update(deal_positions(0)[0])
        hidden = [p for p in hidden if p not in own]
        wall = list(a.wall)
        tiles = [wall[p] for p in hidden]
        rng.shuffle(tiles)
        for p, x in zip(hidden, tiles, strict=True):
            wall[p] = x
        b = new_hand(rules, 0, wall=wall, salt=a.salt)
        va, vb = seat_view(a, 0), seat_view(b, 0)
        assert va["commitment"] != vb["commitment"] or wall == list(a.wall)
        va_pub = {k2: v for k2, v in va.items() if k2 != "commitment"}
        vb_pub = {k2: v for k2, v in vb.items() if k2 != "commitment"}
        assert va_pub == vb_pub
        assert _decisions(policy, va) == _decisions(policy, vb)  # type: ignore[arg-type]
        checked += 1
    assert checked == 15


@pytest.mark.slow
def test_swapping_other_hands_mid_hand_does_not_change_views_or_decisions() -> None:
    """Mid-hand, exchange concealed tiles between two other seats: the viewer's view and
    the greedy/expert decisions are unchanged."""
    rules = get_rules("bianfeng")
    done = 0
    for k in range(30):
        state = new_hand(rules, 0, rng=random.Random(100 + k), auto_pass=True)
        g = get_bot("greedy", 0)
        for _ in range(12):
            if state.ended:
                break
            s = state.to_act()[0]
            state.apply(s, g.choose(seat_view(state, s)))
        if state.ended or state.phase != "turn":
            continue
        viewer = state.current
        b, c = [(viewer + 1) % 4, (viewer + 2) % 4]
        tb = next(t for t in range(34) if state.counts[b][t])
        tc = next(t for t in range(34) if state.counts[c][t] and t != tb)
        other = state.copy()
        other._remove(b, tb)
        other._add(b, tc)
        other._remove(c, tc)
        other._add(c, tb)
        other._legal = [None] * 4
        v1, v2 = seat_view(state, viewer), seat_view(other, viewer)
        assert v1 == v2
        for name in ("greedy", "expert"):
            assert _decisions(name, v1) == _decisions(name, v2)  # type: ignore[arg-type]
        done += 1
    assert done >= 10


def test_expert_decision_is_a_function_of_the_view() -> None:
    """The same bot asked twice about the same view answers the same (its sampling is
    seeded from its seed and the public view, not from its history)."""
    rules = get_rules("laizishanzhuang")
    bot = ExpertBot(9, samples=30)
    g = get_bot("greedy", 0)
    state = new_hand(rules, 0, rng=random.Random(77), auto_pass=True)
    views = []
    while not state.ended and len(views) < 40:
        s = state.to_act()[0]
        v = seat_view(state, s)
        views.append(v)
        state.apply(s, g.choose(v))
    first = [str(bot.choose(v)) for v in views]
    again = [str(bot.choose(v)) for v in reversed(views)][::-1]
    assert first == again
