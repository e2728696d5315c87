"""The typed in-process view holds exactly what the JSON seat view shows, and a bot
decides the same on either form."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from typing import Any

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading, ViewError, parse_view
from wuhan_mahjong.bots.view import int_view
from wuhan_mahjong.engine import new_hand, seat_view
from wuhan_mahjong.rules import PROFILES, get_rules


@pytest.mark.parametrize("profile", [p if p == "yuanhang" else pytest.param(p, marks=pytest.mark.slow)
                                     for p in sorted(PROFILES)])
def test_int_view_equals_the_parsed_json_view_at_every_decision(profile: str) -> None:
    rules = get_rules(profile)
    checked = 0
    for h in range(6):
        state = new_hand(rules, h % 4, rng=random.Random(f"v{profile}{h}"), auto_pass=h % 2 == 0)
        bots = [get_bot("greedy", s) for s in range(4)]
        while not state.ended:
            for s in range(4):  # every seat's view, not only the one to act
                assert int_view(state, s) == parse_view(seat_view(state, s))
            seat = state.to_act()[0]
            state.apply(seat, bots[seat].choose(seat_view(state, seat)))
            checked += 1
        for s in range(4):  # at the end, concealed kongs are shown to all
            assert int_view(state, s) == parse_view(seat_view(state, s))
    assert checked > 100


@pytest.mark.slow
def test_another_seats_concealed_kong_stays_hidden() -> None:
    """Play until some seat makes a concealed kong: the others' int views hide its tiles."""
    rules = get_rules("yuanhang")
    for h in range(200):
        state = new_hand(rules, 0, rng=random.Random(h), auto_pass=True)
        bots = [get_bot("greedy", s) for s in range(4)]
        while not state.ended:
            for s in range(4):
                for m in state.melds[s]:
                    if m.kind == "concealed":
                        other = (s + 1) % 4
                        v = int_view(state, other)
                        assert v.seats[s].hidden_kongs >= 1
                        assert all(x.kind != "concealed" for x in v.seats[s].melds)
                        assert any(x.kind == "concealed" for x in int_view(state, s).seats[s].melds)
                        return
            seat = state.to_act()[0]
            state.apply(seat, bots[seat].choose(seat_view(state, seat)))
    pytest.fail("no concealed kong in 200 hands")


def test_bots_decide_the_same_on_either_form() -> None:
    rules = get_rules("bianfeng")
    n = 0
    for h in range(3):
        state = new_hand(rules, 0, rng=random.Random(h), auto_pass=True)
        bots = [ExpertBot(1, samples=16, lookahead_work=60), get_bot("greedy", 2),
                get_bot("random", 3), ExpertBot(4, samples=16, lookahead_work=60)]
        twins = [ExpertBot(1, samples=16, lookahead_work=60), get_bot("greedy", 2),
                 get_bot("random", 3), ExpertBot(4, samples=16, lookahead_work=60)]
        while not state.ended:
            seat = state.to_act()[0]
            a = bots[seat].choose(seat_view(state, seat))
            b = twins[seat].choose(int_view(state, seat))
            assert a == b
            assert SeatReading(int_view(state, seat)).public_key() == SeatReading(
                seat_view(state, seat)).public_key()
            state.apply(seat, a)
            n += 1
    assert n > 80


def _turn_view() -> dict[str, Any]:
    return make_view("123m456p789s55m34s1z", indicator="9s", melds={1: [meld("peng", "555p", 2)]},
                     discards={2: "1z9m"})  # type: ignore[return-value]


#: (where in the view, what is put there, what the error names)
MALFORMED = [
    (("laizi",), None, "view.laizi: not a tile"),
    (("indicator",), 7, "view.indicator: not a tile"),
    (("hand",), 5, "view.hand: not tiles"),
    (("hand",), "123m", "view.hand: 3 tiles, three a meld, where the seat to play holds 14"),
    # a tile short of a turn, or a tile too many for a claim window: no deal reaches either
    (("hand",), "123m456p789s55m34s", "view.hand: 13 tiles, three a meld, where the seat to "
                                      "play holds 14 in the turn phase"),
    (("phase",), "claim", "view.hand: 14 tiles, three a meld, where this seat holds 13 in "
                          "the claim phase"),
    (("turn",), 9, "view.turn: 9 is not 0 to 3"),
    (("hand",), "5p5p5p5p5p5p5p5p5p5p5p5p5p5p", "copies of 5p in sight"),
    (("viewer",), 10**30, "view.viewer: 1000000000000000000000000000000 is not 0 to 3"),
    (("viewer",), True, "view.viewer: bool where int belongs"),
    (("seats",), [], "view.seats: 0 seats, not 4"),
    (("seats", 1, "melds", 0, "tiles"), "55p", "view.seats[1].melds[0].tiles: 2 tiles in a peng"),
    (("seats", 1, "melds", 0, "from_seat"), 9, "view.seats[1].melds[0].from_seat: not a seat"),
    (("seats", 1, "melds", 0, "kind"), "direct", "view.seats[1].melds[0].kind: a kong is"),
    (("seats", 1, "melds", 0, "kind"), [], "view.seats[1].melds[0].kind: a kong is"),
    (("seats", 2, "discards", 0, "tile"), "0z", "view.seats[2].discards[0].tile"),
    (("seats", 2, "discards", 0, "tile"), {"a": 1}, "view.seats[2].discards[0].tile: dict"),
    (("seats", 2, "discards", 0, "claimed_by"), 7, "view.seats[2].discards[0].claimed_by"),
    (("seats", 2, "special_kongs", "red"), -1, "view.seats[2].special_kongs.red: -1 is not 0 to 4"),
    (("options",), "x", "view.options: str where dict belongs"),
    (("phase",), "dance", "view.phase: not one of"),
    (("on_table",), {"seat": 9, "tile": "1m"}, "view.on_table.seat: 9 is not 0 to 3"),
    (("wall",), 1e308, "view.wall: float where int belongs"),
    (("legal_actions", 0), {"type": "dance"}, "view.legal_actions[0]"),
]


@pytest.mark.parametrize(("path", "value", "message"), MALFORMED,
                         ids=[".".join(map(str, p)) + f"={v!r}"[:24] for p, v, _ in MALFORMED])
def test_a_malformed_view_is_refused_naming_the_field(path: tuple[Any, ...], value: Any,
                                                      message: str) -> None:
    """A view no engine could send (from a program on the JSON-lines protocol) is a
    ``ViewError`` (a ValueError: ``wuhan-mahjong bot`` prints it as one line, exit 2) that
    names the field, not an AttributeError or IndexError deep in a bot."""
    view = _turn_view()
    obj: Any = view
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value
    with pytest.raises(ViewError, match=re.escape(message)):
        parse_view(view)  # type: ignore[arg-type]
    for name in ("greedy", "expert", "search"):
        with pytest.raises(ViewError):
            get_bot(name, 1).choose(view)  # type: ignore[arg-type]


def test_the_bot_command_refuses_a_malformed_view_in_one_line() -> None:
    view = _turn_view()
    view["laizi"] = None
    for args in ([], ["--jsonl"]):
        p = subprocess.run([sys.executable, "-m", "wuhan_mahjong", "bot", "--policy", "expert",
                            *args], input=json.dumps(view) + "\n", capture_output=True,
                           text=True, timeout=60)
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
        [line] = p.stderr.strip().splitlines()
        assert "view.laizi: not a tile" in line
