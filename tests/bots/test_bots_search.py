"""The ``search`` bot: determinised Monte Carlo over the opponent model's beliefs.

Decision problems on hand-made views (the views of ``test_bots_defence``: seat 1
shows three melds of 筒 and has thrown none), the work budget, and the same
decisions under other hash seeds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.handeval import hand_counts
from wuhan_mahjong.bots.search import SearchBot, _big, _may_win, _Rollout, _Seat
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine.actions import PASS, Chi, Discard
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.tiles import RED, parse_tile, parse_tiles

PINS = [meld("chi", "123p", 0), meld("peng", "555p", 2), meld("chi", "789p", 0)]
DISCARDS = {1: "1s9m4z7s2m3z8m", 2: "1z2z9s", 3: "3z4z1p"}
#: this seat has opened with a chi of 234m; discarding 1m leaves it ready on 6s/9s
#: (456m 234s 55s 78s), discarding 4m breaks the run and leaves it one step away
OPENED = "456m55s234s78s1m"
#: closed, one step from ready; 9p and 1m are equally good (test_bots_defence)
CLOSED = "234m456m55s23s78s9p1m"


def _opened_view(wall: int = 30):  # type: ignore[no-untyped-def]
    return make_view(OPENED, wall=wall, melds={1: PINS, 0: [meld("chi", "234m", 3)]},
                     discards=DISCARDS, dealer=2)


def _search(bot: SearchBot, view: object, moves: list[tuple[str, str]]) -> object:
    t = SeatReading(view)  # type: ignore[arg-type]
    bot._prepare(t)
    return bot.search(t, [(name, Discard(parse_tile(tile))) for name, tile in moves])


def test_the_search_is_registered() -> None:
    bot = get_bot("search", 1)
    assert isinstance(bot, SearchBot) and bot.name == "search"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_search_keeps_the_ready_hand_rather_than_breaking_it(seed: int) -> None:
    """The first move is the one to beat: the search replaces it by the ready discard,
    because the rollouts win more often from a ready hand."""
    bot = SearchBot(seed)
    choice = _search(bot, _opened_view(), [("break", "4m"), ("ready", "1m")])
    assert choice == Discard(parse_tile("1m"))
    assert bot.last["ready"] > bot.last["break"] + 100
    assert bot.searched == 1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_search_rates_the_safe_tile_above_the_one_suit_readers_tile(seed: int) -> None:
    """Late (wall 15), against three melds of pins: 9p and 1m are equally fast, but a
    9p deals in more often and costs more (his 清一色): the rollouts say so."""
    view = make_view(CLOSED, wall=15, melds={1: PINS}, discards=DISCARDS, dealer=2)
    bot = SearchBot(seed)
    _search(bot, view, [("9p", "9p"), ("1m", "1m")])
    assert bot.last["1m"] > bot.last["9p"]


def test_without_a_threat_the_search_plays_the_expert() -> None:
    """Nobody has opened: no search, the expert's choice (9p, a terminal first)."""
    view = make_view(CLOSED, wall=15, discards=DISCARDS, dealer=2)
    bot = SearchBot(1)
    assert bot.choose(view) == get_bot("expert", 1).choose(view) == Discard(parse_tile("9p"))
    assert bot.searches == 0


def test_the_search_runs_late_against_a_threat_and_plays_a_legal_discard() -> None:
    view = make_view(CLOSED, wall=15, melds={1: PINS}, discards=DISCARDS, dealer=2)
    bot = SearchBot(1)
    action = bot.choose(view)
    assert bot.searches == 1 and len(bot.last) >= 2
    assert action in SeatReading(view).actions


def test_the_work_budget_bounds_the_rollouts() -> None:
    """Every rollout step spends one unit of ``rollout_work``; out of budget after fewer
    than two full samples, the first (the expert's) move stands."""
    bot = SearchBot(1, rollout_work=5)
    choice = _search(bot, _opened_view(), [("break", "4m"), ("ready", "1m")])
    assert choice == Discard(parse_tile("4m")) and bot.searched == 0
    small = SearchBot(1, rollout_work=400, determinisations=1000)
    _search(small, _opened_view(), [("break", "4m"), ("ready", "1m")])
    full = SearchBot(1, rollout_work=100_000, determinisations=8)
    _search(full, _opened_view(), [("break", "4m"), ("ready", "1m")])
    assert small.searched == 1 and full.searched == 1


def test_a_claim_of_a_closed_hand_is_not_searched() -> None:
    """The fast policy hardly opens a closed hand, which would favour every claim; so
    only an opened hand's claims are searched."""
    view = make_view("234m456m55s23s78s9p", wall=20, melds={1: PINS}, discards=DISCARDS,
                     dealer=2, actions=[{"type": "chi", "tile": "1s"}, {"type": "pass"}],
                     claim=("1s", 3))
    bot = SearchBot(1)
    assert bot.choose(view) in (PASS, *SeatReading(view).actions)
    assert bot.searches == 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_opened_hand_s_claim_is_searched_and_a_chi_to_ready_is_kept(seed: int) -> None:
    """Opened, one step from ready: the chi of 4s (234s) makes the hand ready; the
    rollouts rate it far above passing."""
    view = make_view("456m55s23s78s1m", wall=20, melds={1: PINS, 0: [meld("chi", "234m", 3)]},
                     discards=DISCARDS, dealer=2,
                     actions=[{"type": "chi", "tile": "2s"}, {"type": "pass"}],
                     claim=("4s", 3))
    bot = SearchBot(seed)
    action = bot.choose(view)
    assert bot.searches == 1
    assert action == Chi(parse_tile("2s"))
    assert bot.last["claim"] > bot.last["pass"] + 100


@pytest.mark.parametrize("big_wins", [False, True])
def test_a_rollout_prices_this_seat_s_win_by_the_hand_it_wins_with(big_wins: bool) -> None:
    """With ``big_wins`` a rollout won with a big hand (here a 索 flush: 123s chi, 456s
    789s 22s 34s waiting on 2s/5s) is worth the big-hand value and a plain win the
    plain value; before, one value per decision priced every win alike, so a discard
    that broke the flush looked as good as one that kept it."""
    view = make_view("456s789s22s34s5m", wall=30, melds={1: PINS, 0: [meld("chi", "123s", 3)]},
                     discards=DISCARDS, dealer=2)
    bot = SearchBot(1, big_wins=big_wins)
    t = SeatReading(view)
    bot._prepare(t)
    bot.search(t, [("flush", Discard(parse_tile("5m"))), ("break", Discard(parse_tile("2s")))])
    assert bot.value_me > 0
    seats, wall = bot._determinise(t)
    me = seats[t.me]
    me.remove(parse_tile("5m"))
    ro = _Rollout(bot, seats, wall, [100])
    ev = me.evaluator(t.must)
    flush = ro._win(t.me, parse_tile("5s"), None, big_wins and _big(ev, parse_tile("5s"), 1))
    if big_wins:
        assert bot.value_big > bot.value_me
        assert flush == min(bot.value_big, bot.most_collected[True])
    else:
        assert flush == min(bot.value_me, bot.most_collected[False])
    assert _big(ev, parse_tile("5s"), 1) and not _big(ev, parse_tile("5m"), 1)


DRIVER = """
import json, sys
sys.path.insert(0, sys.argv[1])
from test_bots_search import CLOSED, DISCARDS, PINS, _opened_view
from handmade import make_view
from wuhan_mahjong.bots.search import SearchBot
out = []
for view in (_opened_view(), make_view(CLOSED, wall=15, melds={1: PINS}, discards=DISCARDS, dealer=2)):
    bot = SearchBot(7)
    out.append([bot.choose(view).to_json(), sorted(bot.last.items())])
print(json.dumps(out))
"""


@pytest.mark.slow
def test_search_decisions_agree_across_hash_seeds() -> None:
    here = os.path.dirname(__file__)
    runs = []
    for hs in ("0", "1"):
        env = dict(os.environ, PYTHONHASHSEED=hs)
        r = subprocess.run([sys.executable, "-c", DRIVER, here], env=env, capture_output=True,
                           text=True, timeout=600, check=True)
        runs.append(json.loads(r.stdout))
    assert runs[0] == runs[1]
    assert runs[0][1][1], "the late position was searched"


@pytest.mark.parametrize("max_laizi", [0, 1, 2])
def test_a_rollout_holds_a_small_win_to_the_table_s_laizi_limit(max_laizi: int) -> None:
    """A rollout seat's small win is taken only with at most the table's
    ``small_hand_max_laizi`` laizi in hand (the play-outs used to hard-code one): opened by
    a chi of 123s, 123m 456p 78s 5m and two wilds (as 9s and 5m) wins where two are allowed,
    123m 456p 789s 5m and one wild where one is."""
    melds = (Meld("chi", tuple(parse_tiles("123s")), 3),)
    for hand, wilds in (("123m456p78s5m", 2), ("123m456p789s5m", 1)):
        counts, _ = hand_counts(parse_tiles(hand), -1)
        seat = _Seat(counts, wilds, melds, True, True)
        ev = seat.evaluator((RED,))
        assert ev.shanten_after(-1, 0, "small") < 0
        assert _may_win(seat, ev, -1, 0, max_laizi) is (wilds <= max_laizi)
