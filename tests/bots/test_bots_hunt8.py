"""Decision problems of the eighth hunt (6 December 2026): building the hand early and in
the middle (which pair to keep, the wider wait, the 2/5/8 pair of a small hand, 红中 /
发财 / 癞子皮 kongs at once, big-hand targets early, the first opening of a closed hand, a
chi against a peng of the same tile).  Each position has one answer the rules and plain
expected value settle, asked of the bots it concerns in every profile where the answer is
the same.

The fault it found (the test fails on the code before the fix it names):

* A step from ready, opened with two chis, 33m 4m 6m 11p 55s, with both other 1p in the
  rivers: the 11p pair can never be a pung, and it is no 将 (a small hand's pair is 2/5/8).
  Greedy, the expert and the search bot threw 6m: counted by the tiles that complete the
  shape (the four laizi among them), the 6m keeps fourteen against the 1p's ten, but the
  2m, 3m and 5m it keeps each make only a ready hand waiting on the dead 1p
  (234m/345m/333m beside 11p and 55s), no step at all.  Thrown, the 1p keeps 3m (333m,
  then 46m waits on 5m) and 5m (456m, then the 33m/55s shanpon wins on 3m): six tiles
  that make the hand ready on live ones.  A step from ready, the discards are now ranked
  by the tiles that make the hand ready on a live winning tile (``live_steps``, greedy
  and expert, on by default: ``greedy.ready_acceptance``), as a ready hand with no live
  winning tile already counts a step away (``live_waits``).
* The same with two pengs, 33m 55s 11p 46m, both other 1p and both other 5s in sight:
  the bots kept 碰碰胡's three pairs (6m), the expert and the search bot because a big
  target as close as the small hand goes first (``big_target``).  No tile makes that
  碰碰胡 ready on a live wait; a step from ready the expert now aims only at a big target
  some unseen tile (the laizi aside) makes ready on a live one (``live_steps`` too).

The positions the bots already answered right are below it, marked as guards.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.analysis import waits
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot
from wuhan_mahjong.engine.actions import action_from_json
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import NUM_KINDS, parse_tile, parse_tiles, tile_str

BOTS = ("greedy", "expert", "search")
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")
PASS = {"type": "pass"}

# ---------------------------------------------------------------- faults found

#: opened with two chis from seat 3; both other 1p are in seat 1's and seat 2's rivers
DEAD_PAIR_MELDS = {0: [meld("chi", "789p", 3), meld("chi", "123s", 3)]}
DEAD_PAIR_RIVERS = {1: "1p9m", 2: "1p8m", 3: "4z3z"}
DEAD_PAIR = "33m4m6m11p55s"


def _dead_pair_view(profile: str) -> Any:
    return make_view(DEAD_PAIR, profile=profile, wall=60, melds=DEAD_PAIR_MELDS,
                     discards=DEAD_PAIR_RIVERS)


def _live_ready_draws(hand: str, thrown: str, shown: list[dict[str, Any]] | None = None,
                      rivers: dict[int, str] | None = None) -> set[str]:
    """By the rules alone (:func:`wuhan_mahjong.analysis.waits`): the unseen kinds that,
    drawn after ``thrown`` leaves ``hand`` beside the melds ``shown`` (this seat's, the
    dead pair's two chis unless given), let some discard leave a hand that wins on a tile
    not all in sight (the laizi aside: it is no winning tile on a discard)."""
    rules = get_rules("yuanhang")
    laizi = rules.laizi_of(parse_tile("1z"))
    tiles = parse_tiles(hand)
    tiles.remove(parse_tile(thrown))
    melds = [Meld(m["type"], tuple(parse_tiles(m["tiles"])), m["from_seat"])
             for m in (shown or DEAD_PAIR_MELDS[0])]
    seen = [0] * NUM_KINDS
    for t in [*parse_tiles(hand), *(x for m in melds for x in m.tiles), parse_tile("1z"),
              *(x for r in (rivers or DEAD_PAIR_RIVERS).values() for x in parse_tiles(r))]:
        seen[t] += 1
    out = set()
    for u in range(NUM_KINDS):
        if u == laizi or u in rules.must_kong_tiles or seen[u] >= 4:
            continue
        drawn = [*tiles, u]
        left = [4 - seen[k] - (k == u) for k in range(NUM_KINDS)]
        for d in set(drawn):
            rest = list(drawn)
            rest.remove(d)
            if any(left[w.tile] > 0 for w in waits(rest, melds, laizi, rules, "discard")):
                out.add(tile_str(u))
                break
    return out


def test_the_dead_pair_by_the_rules() -> None:
    """The position's answer by the rules module: after 6m no draw makes the hand ready on
    a live tile; after 1p the 3m and the 5m do."""
    assert _live_ready_draws(DEAD_PAIR, "6m") == set()
    assert _live_ready_draws(DEAD_PAIR, "4m") == set()
    assert _live_ready_draws(DEAD_PAIR, "1p") == {"3m", "5m"}


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_the_dead_pair_goes(bot: str, profile: str) -> None:
    """33m 4m 6m 11p 55s beside two chis, both other 1p in sight: the 1p goes (3m and 5m,
    six tiles, make the hand ready on live waits), not the 6m (its 2m, 3m and 5m complete
    the shape, every one into the dead 1p's wait).  All three bots threw the 6m."""
    ask(bot, _dead_pair_view(profile), [discard("1p")])


#: two pengs; both other 1p and both other 5s in the rivers
DEAD_PENGS = [meld("peng", "777p", 2), meld("peng", "999s", 1)]
DEAD_PENG_RIVERS = {1: "1p5s9m", 2: "1p5s8m", 3: "4z3z"}


def _dead_pengs_view(profile: str) -> Any:
    return make_view("33m55s11p46m", profile=profile, wall=60, melds={0: DEAD_PENGS},
                     discards=DEAD_PENG_RIVERS)


def test_the_dead_pengpenghu_by_the_rules() -> None:
    """After 6m (or 4m) no draw makes the hand ready on a live tile, as 碰碰胡 or small:
    a 3m makes 333m beside the dead 55s and 11p; after 1p the 3m and the 5m do."""
    for thrown in ("6m", "4m"):
        assert _live_ready_draws("33m55s11p46m", thrown, DEAD_PENGS, DEAD_PENG_RIVERS) == set()
    assert _live_ready_draws("33m55s11p46m", "1p", DEAD_PENGS,
                             DEAD_PENG_RIVERS) == {"3m", "5m"}


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
def test_no_pengpenghu_of_dead_pairs(bot: str, profile: str) -> None:
    """The guard of 碰碰胡 at equal speed below, with both other 1p and both other 5s in
    sight: the 55s and 11p can never be pungs, so after 4m or 6m the 碰碰胡 (and the small
    hand) has no tile that makes it ready on a live wait; the 1p keeps the small hand's 3m
    and 5m.  All three bots kept the 碰碰胡 (the 6m): greedy by the tiles that complete a
    shape, the expert and the search bot by the big target at equal shanten, which took a
    target no live tile brings closer."""
    ask(bot, _dead_pengs_view(profile), [discard("1p")])


def test_the_live_steps_switches_play_as_before() -> None:
    six = action_from_json(discard("6m"))
    for view in (_dead_pair_view("yuanhang"), _dead_pengs_view("yuanhang")):
        assert ExpertBot(1, live_steps=False).choose(view) == six
        greedy = GreedyBot(1)
        greedy.live_steps = False
        assert greedy.choose(view) == six


# ---------------------------------------------------------------- guards

CHI_123P = [meld("chi", "123p", 3)]


def _case(name: str, hand: str, answers: list[str], melds: list[dict[str, Any]] | None = None,
          wall: int = 60, profiles: tuple[str, ...] = PROFILES) -> list[Any]:
    return [pytest.param(hand, melds or [], wall, answers, p, id=f"{name}-{p}")
            for p in profiles]


#: Guards, each a turn: (hand, this seat's melds, wall, the answers, profile).
DISCARD_GUARDS = [
    # opened, 456p 789s 55s 346m: the 6m leaves 34m on 2m/5m (eight tiles), the 3m only
    # the 5m of 46m (four)
    *_case("two-sided", "456p789s55s346m", ["6m"], CHI_123P),
    # two chis, 55s 77m 8m 345p: the 8m would leave the 5s/7m shanpon, where a 5s leaves
    # 77m as the pair (no 2/5/8: no small hand), so only 7m wins; the 7m keeps 78m on
    # 6m/9m beside the 55s 将
    *_case("shanpon-258", "55s77m345p8m", ["7m"], [*CHI_123P, meld("chi", "678s", 3)]),
    # twelve suited 2/5/8 and 东 3m: 将一色 needs no sets (乱将); a tile outside the
    # family goes (either)
    *_case("jiangyise", "2m5m8m2p5p8p2s5s8s2m5p8s1z3m", ["1z", "3m"], wall=70),
    # ten honours (东西北白发, in pairs) and 3m 5p 8s 9m: 风一色 (乱风, two big hands
    # here) needs only its four suited tiles replaced, the small hand far more; a suited
    # tile goes (not in laizishanzhuang, where 发 is a must-kong tile)
    *_case("fengyise", "1z1z3z3z4z4z6z6z5z5z3m5p8s9m", ["3m", "5p", "8s", "9m"], wall=70,
           profiles=("yuanhang", "bianfeng")),
    # two pengs, 33m 55s 11p 46m: after 4m or 6m three pairs make 碰碰胡 (base 10) a step
    # from ready (a 3m, 5s or 1p); after 1p the small hand is as far (a 5m or 3m).  As
    # fast, ten times the base: one of the 4m/6m
    *_case("pengpenghu", "33m55s11p46m", ["4m", "6m"],
           [meld("peng", "777p", 2), meld("peng", "999s", 1)]),
    # chi 123p, 456p 78p 99p 3p 55s 6s: the 6s serves neither the small hand (55s is its
    # 将) nor the pin flush
    *_case("offsuit", "456p78p99p3p55s6s", ["6s"], CHI_123P, wall=70),
    # after the chi of the closed ready hand below: the 1p goes back, and the hand waits
    # on 2m/5m, opened
    *_case("thrown-back", "1p456p789s55s34m", ["1p"], CHI_123P, wall=59),
]


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("hand", "melds", "wall", "answers", "profile"), DISCARD_GUARDS)
def test_guard_discards(bot: str, hand: str, melds: list[dict[str, Any]], wall: int,
                        answers: list[str], profile: str) -> None:
    """Guards (see :data:`DISCARD_GUARDS`)."""
    view = make_view(hand, profile=profile, wall=wall, melds={0: melds})
    ask(bot, view, [discard(a) for a in answers])


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("tile", "kind", "profile"),
                         [*(("7z", "red", p) for p in PROFILES),
                          ("6z", "green", "laizishanzhuang")])
def test_guard_the_must_kong_at_once(bot: str, tile: str, kind: str, profile: str) -> None:
    """Guard.  Early (wall 70), a 红中 (or, in ``laizishanzhuang``, a 发财) among a far
    hand: its kong at once (×2, a replacement draw; held it blocks every win and can
    never be thrown)."""
    view = make_view(tile + "123p456p79s3m8m1z4z5z", profile=profile, wall=70,
                     extra_actions=[{"type": "special_kong", "kind": kind}])
    ask(bot, view, [{"type": "special_kong", "kind": kind}])


@pytest.mark.parametrize("bot", BOTS)
def test_guard_the_pi_kong_of_a_lone_indicator(bot: str) -> None:
    """Guard.  ``bianfeng`` with 口口翻 (where 癞子皮杠 exists), indicator 东: the lone 东,
    which no set of this hand uses, is played out as the 癞子皮杠 (×2 and a replacement
    draw) rather than thrown."""
    view = make_view("1z123p456p79s35m8m4z5z", profile="bianfeng", wall=70,
                     extra_actions=[{"type": "special_kong", "kind": "pi"}])
    view["options"] = {"opening_scoring": "per_opening"}
    ask(bot, view, [{"type": "special_kong", "kind": "pi"}])


CLOSED_READY = "123p456p789s55s34m"  # ready in shape (2m/5m) but closed: no win yet

#: Guards, each a claim of seat 0 on (tile, seat): (hand, claim, actions, answer).
CLAIM_GUARDS = [
    # closed and ready on 2m/5m, which it cannot win closed (RULES §9): seat 3's 1p chied
    # with the 23p of its 123p, the 1p then thrown back, leaves the same wait opened
    pytest.param(CLOSED_READY, ("1p", 3), [PASS, {"type": "chi", "tile": "1p"}],
                 {"type": "chi", "tile": "1p"}, id="chi-opens"),
    # seat 2's 5s: a peng would spend the 55s 将 and leave it a step away (no discard
    # keeps it ready); the pass keeps the wait
    pytest.param(CLOSED_READY, ("5s", 2), [PASS, {"type": "peng", "tile": "5s"}], PASS,
                 id="no-peng-of-the-258-pair"),
    # seat 3's 2m, a winning tile it may not win on closed: the chi 234m opens it, ready
    # again after its discard
    pytest.param(CLOSED_READY, ("2m", 3), [PASS, {"type": "chi", "tile": "2m"}],
                 {"type": "chi", "tile": "2m"}, id="chi-of-its-winning-tile"),
    # closed, 55m 46m 123p 789s 34s 东, seat 3's 5m: the chi 456m keeps the 55m 将 and,
    # after the 东, waits on 2s/5s; the peng spends the only 2/5/8 pair, a step away
    pytest.param("55m46m123p789s34s1z", ("5m", 3),
                 [PASS, {"type": "chi", "tile": "4m"}, {"type": "peng", "tile": "5m"}],
                 {"type": "chi", "tile": "4m"}, id="chi-keeps-the-258-pair"),
]


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("hand", "claim", "actions", "answer"), CLAIM_GUARDS)
def test_guard_claims(bot: str, profile: str, hand: str, claim: tuple[str, int],
                      actions: list[dict[str, Any]], answer: dict[str, Any]) -> None:
    """Guards (see :data:`CLAIM_GUARDS`)."""
    view = make_view(hand, profile=profile, wall=60, claim=claim, actions=actions)
    ask(bot, view, [answer])
