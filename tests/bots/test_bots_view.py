"""The typed in-process view holds exactly what the JSON seat view shows, and a bot
decides the same on either form."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.base import NoLegalAction
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading, ViewError, parse_view
from wuhan_mahjong.bots.view import int_view
from wuhan_mahjong.engine import SeatView, new_hand, seat_view
from wuhan_mahjong.engine.actions import Win, action_from_json
from wuhan_mahjong.engine.state import HandState
from wuhan_mahjong.rules import PROFILES, Rules, get_rules
from wuhan_mahjong.tiles import format_tiles, parse_tiles


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
                SeatReading(seat_view(state, s))  # and it agrees with its rules
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
    # a legal action takes from the hand tiles it holds, and a claim the tile on the table
    (("legal_actions", 0), {"type": "discard", "tile": "9p"},
     "view.legal_actions[0]: discard 9p needs 9p in the hand"),
    (("legal_actions", 0), {"type": "chi", "tile": "1m"},
     "view.legal_actions[0]: chi 123m in the turn phase: chi claims a discard"),
    (("legal_actions", 0), {"type": "kong", "kind": "added", "tile": "5m"},
     "view.legal_actions[0]: kong added 5m has no peng to add to"),
    (("legal_actions", 0), {"type": "kong", "kind": "concealed", "tile": "5m"},
     "view.legal_actions[0]: kong concealed 5m needs 5555m in the hand"),
    (("legal_actions", 0), {"type": "special_kong", "kind": "red"},
     "view.legal_actions[0]: red kong (红中杠) needs 7z in the hand"),
    (("legal_actions", 0), {"type": "laizi_discard"},
     "view.legal_actions[0]: laizi discard (丢癞子) needs 1s in the hand"),
    (("drawn",), "9p", "view.drawn: 9p is not in the hand"),
    (("legal_actions", 0), {"type": "pass"}, "view.legal_actions[0]: pass in the turn phase: a "
                                              "player cannot pass his own turn"),
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


def test_a_claim_takes_the_tile_on_the_table() -> None:
    """In a claim window on 5p, a chi of 123m or a peng of 4m claims nothing."""
    for action, message in (({"type": "chi", "tile": "1m"}, "chi 123m takes no tile"),
                            ({"type": "peng", "tile": "4m"}, "peng 4m takes no tile")):
        view = make_view("23m44m456p789s55s9s", claim=("5p", 3), actions=[action])
        with pytest.raises(ViewError, match=re.escape(message)):
            parse_view(view)
    view = make_view("23m44m456p789s55s9s", claim=("1m", 3),
                     actions=[{"type": "chi", "tile": "1m"}, {"type": "pass"}])
    assert get_bot("expert", 1).choose(view) in parse_view(view).legal_actions


#: views that parse but contradict their own profile's rules: (a change, what the error names)
DISAGREE: list[tuple[dict[str, Any], str]] = [
    ({"laizi": "2s"}, "view.laizi: 2s, where the indicator 9s makes 1s the laizi"),
    ({"hand": "123m456p789s55m34s7z", "legal_actions": [{"type": "discard", "tile": "7z"}]},
     "view.legal_actions[0]: discard 7z, a tile that only leaves the hand as a kong or 丢癞子"),
    ({"hand": "123m456p789s55m34s1s", "legal_actions": [{"type": "discard", "tile": "1s"}]},
     "view.legal_actions[0]: discard 1s, a tile that only leaves the hand as a kong or 丢癞子"),
]


@pytest.mark.parametrize(("change", "message"), DISAGREE)
def test_a_view_that_contradicts_its_rules_is_refused(change: dict[str, Any],
                                                      message: str) -> None:
    """The laizi and the plain discards a view shows must be what its profile makes them;
    otherwise a bot would count a wild that is none, or throw a tile it holds as a wild."""
    view = _turn_view()
    view.update(change)
    parse_view(view)  # type: ignore[arg-type]  # it reads: the fault is in what it says
    with pytest.raises(ViewError, match=re.escape(message)):
        SeatReading(view)  # type: ignore[arg-type]
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


def _engine_views(rng: random.Random) -> list[dict[str, Any]]:
    """Views of real decisions, every profile and phase kind, greedy self-play."""
    views: list[dict[str, Any]] = []
    for h in range(9):
        rules = get_rules(sorted(PROFILES)[h % 3])
        state = new_hand(rules, h % 4, rng=random.Random(f"fuzz{h}"), auto_pass=False)
        bots = [get_bot("greedy", s) for s in range(4)]
        while not state.ended:
            seat = state.to_act()[0]
            view = seat_view(state, seat)
            if rng.random() < 0.2:
                views.append(json.loads(json.dumps(view)))
            state.apply(seat, bots[seat].choose(view))
    return views


def _mutated(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``view`` with one to three fields changed to values of the right type that may
    contradict the rest: the phase, whose turn, the tile on the table, the drawn tile, the
    legal actions, one tile of the hand, the laizi or indicator, the profile, the wall."""
    v = json.loads(json.dumps(view))
    kinds = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + [f"{r}z" for r in range(1, 8)]

    def action() -> dict[str, Any]:
        t = rng.choice(["discard", "chi", "peng", "kong", "special_kong", "laizi_discard",
                        "win", "pass"])
        a: dict[str, Any] = {"type": t}
        if t in ("discard", "chi", "peng", "kong"):
            a["tile"] = rng.choice([k for k in kinds if t != "chi" or (k[1] != "z" and k[0] < "8")])
        if t == "kong":
            a["kind"] = rng.choice(["direct", "added", "concealed"])
        if t == "special_kong":
            a["kind"] = rng.choice(["red", "green", "laizi", "pi"])
        return a

    for _ in range(rng.choice([1, 1, 2, 3])):
        change = rng.randrange(10)
        if change == 0:
            v["phase"] = rng.choice(["turn", "claim", "rob", "final", "ended"])
        elif change == 1:
            v["turn"] = rng.randrange(4)
        elif change == 2:
            v["on_table"] = rng.choice([None, {"seat": rng.randrange(4), "tile": rng.choice(kinds)}])
        elif change == 3:
            v["drawn"] = rng.choice([None, rng.choice(kinds)])
        elif change == 4:
            v["legal_actions"] = [action() for _ in range(rng.randrange(5))]
        elif change == 5:
            v["legal_actions"] = v["legal_actions"] + [action()]
        elif change == 6:
            tiles = parse_tiles(v["hand"])
            tiles[rng.randrange(len(tiles))] = rng.randrange(34)
            v["hand"] = format_tiles(sorted(tiles))
        elif change == 7:
            v[rng.choice(["laizi", "indicator"])] = rng.choice(kinds)
        elif change == 8:
            v["profile"] = rng.choice(sorted(PROFILES))
        else:
            v["wall"] = rng.choice([0, 1, 14, 136])
    return v


@pytest.mark.parametrize(("bot", "count"), [("greedy", 400), ("expert", 400), ("search", 60)])
def test_a_view_that_contradicts_itself_is_refused_or_answered_legally(bot: str,
                                                                        count: int) -> None:
    """Real views with fields changed to values that may contradict the rest (a chi in a
    turn, a discard of a tile not held, a 14-tile claim, a laizi its indicator does not
    make): every bot either answers with one of the view's legal actions or refuses the
    view with a ``ViewError`` (``NoLegalAction`` where it lists none), never another
    exception from deep inside a bot."""
    rng = random.Random(f"mutate-{bot}")
    views = _engine_views(rng)
    answered = refused = 0
    for _ in range(count):
        view = _mutated(rng.choice(views), rng)
        try:
            choice = get_bot(bot, 1).choose(view)  # type: ignore[arg-type]
        except ViewError:
            refused += 1
            continue
        except NoLegalAction:
            assert not view["legal_actions"]
            continue
        assert choice in [action_from_json(a) for a in view["legal_actions"]], view
        answered += 1
    assert answered > count // 5 and refused > count // 5  # both kinds were exercised


FINAL_8 = {"final_draws": 8}


def _to_the_final_draws(rules: Rules, h: int) -> Iterator[tuple[HandState, int, SeatView]]:
    """Views of a hand played by greedy seats that never take a win, so that it reaches
    its final draws: (state, seat, view) at every decision."""
    state = new_hand(rules, h % 4, rng=random.Random(f"final8-{h}"), auto_pass=False)
    while not state.ended:
        seat = state.to_act()[0]
        view = seat_view(state, seat)
        yield state, seat, view
        choice = get_bot("greedy", seat).choose(view)
        if isinstance(choice, Win):
            choice = next(a for a in map(action_from_json, view["legal_actions"])
                          if not isinstance(a, Win))
        state.apply(seat, choice)


def _size(view: SeatView, seat: int) -> int:
    return len(parse_tiles(view["hand"])) + 3 * len(view["seats"][seat]["melds"])


@pytest.mark.parametrize("bot", ["greedy", "expert", "search"])
def test_a_second_final_draw_is_a_view_the_bots_play(bot: str) -> None:
    """With more than four final draws (the table option ``final_draws``, up to 8) a seat
    draws twice in 海底 and keeps both tiles: 15 tiles, three a meld.  The view check
    refused that hand as malformed, so every bot failed at such a table."""
    rules = get_rules("yuanhang", FINAL_8)
    second_draws = 0
    for state, seat, view in _to_the_final_draws(rules, 0):
        if view["phase"] != "final":
            continue
        second_draws += _size(view, seat) == 15
        for form in (view, int_view(state, seat)):
            choice = get_bot(bot, seat).choose(form)  # type: ignore[arg-type]
            assert choice in [action_from_json(a) for a in view["legal_actions"]]
    assert second_draws  # the case was played


def test_a_second_final_draw_at_a_table_of_four_is_refused() -> None:
    rules = get_rules("yuanhang", FINAL_8)
    for _state, seat, view in _to_the_final_draws(rules, 0):
        if view["phase"] == "final" and _size(view, seat) == 15:
            SeatReading(view)  # type: ignore[arg-type]  # at its own table: read
            view["options"] = {**view["options"], "final_draws": 4}  # a table of four
            with pytest.raises(ViewError, match="second final draw"):
                SeatReading(view)  # type: ignore[arg-type]
            return
    pytest.fail("no second final draw")


def test_hands_with_eight_final_draws_play_to_their_end() -> None:
    """Hand 18 stopped the engine: a seat's second final draw made 15 tiles, which the
    win check read as a complete hand and could not arrange (an AssertionError).  15 tiles
    are no win: only a pass is offered there."""
    rules = get_rules("yuanhang", FINAL_8)
    second_draws = 0
    for h in range(20):
        played = None
        for state, seat, view in _to_the_final_draws(rules, h):
            played = state
            if view["phase"] == "final" and _size(view, seat) == 15:
                second_draws += 1
                assert [a["type"] for a in view["legal_actions"]] == ["pass"]
        assert played is not None and played.result is not None
        assert played.result.outcome == "exhausted"  # nobody took a win: the wall ran out
    assert second_draws


def test_another_seats_fifteen_concealed_tiles_are_read() -> None:
    """A seat that never opened holds 15 concealed tiles after its second final draw, and
    every other seat's view shows that count: the view check allowed at most 14.  (A long
    end phase, ``end_phase_wall`` 40, keeps hands closed; hand 5 is such a hand.)"""
    rules = get_rules("yuanhang", {"final_draws": 8, "end_phase_wall": 40})
    shown = 0
    for state, seat, view in _to_the_final_draws(rules, 5):
        if view["phase"] != "final":
            continue
        for s in range(4):
            other = seat_view(state, s)
            shown += any(p["concealed"] == 15 for p in other["seats"] if p["seat"] != s)
            SeatReading(other)  # type: ignore[arg-type]
        for name in ("greedy", "expert"):
            choice = get_bot(name, seat).choose(view)
            assert choice in [action_from_json(a) for a in view["legal_actions"]]
    assert shown
