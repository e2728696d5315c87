"""Decision problems of the twenty-first hunt (6 December 2026): kongs on plain tiles and
the turn after a kong's replacement draw.  Each position has one answer the rules and
plain expected value settle (the amounts asked of :func:`wuhan_mahjong.scoring.settle`),
asked of the bots it concerns in every profile where the answer is the same.

A self-drawn win on a kong's replacement draw is 杠上花 (``kong_bloom``), a big hand that
settles far above a plain self-draw.  The seat view did not say where the tile in hand
came from, so a seat that had made any kong priced the win in hand as the larger of the
two (left alone at the sixteenth hunt).  The engine's views now say it
(``replacement_draw``: the JSON view, the typed :class:`~wuhan_mahjong.bots.view.IntView`;
public, every seat saw the kong), and the first part checks that they say it exactly when
the engine's turn began with a replacement draw, alike in both forms and for every viewer.

The fault it found (the test fails on the code before the fix it names):

* Not the dealer, opened once (a chi of 123m) with two 红中 kongs, holding 456p 789s 55m
  3s and the laizi 1s (indicator 9s), drawing a 4s from the wall: the soft self-drawn win
  collects 64.  After the laizi kong the hand waits hard on 2s/5s (and a drawn laizi): the
  replacement wins 杠上花 at 金顶 on 11 of the 119 unseen tiles (1,200 each in
  ``yuanhang`` and ``bianfeng``, 1,800 or 720 in ``laizishanzhuang``), 111 (or 168)
  points on that draw alone, and a miss leaves the hand ready and hard, its later
  self-drawn wins collecting 512 (256).  The expert and the search bot took the 64: their
  rule (``bloom_first``) priced the win in hand as a 杠上花 (360) since the seat had
  konged.  With the view's fact they price it as what it is
  (``ExpertBot.bloom_source``).

The guard (every bot right before): the same 14 tiles where the 4s came as the second 红中
kong's replacement: the win in hand is 杠上花, 360, against a laizi kong whose bloom is
worth about a third of it; the win is taken.  Greedy, the baseline, takes every win it is
offered (its design): it is asked only the guard.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.analysis import waits
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.seat_reading import SeatReading, ViewError, parse_view
from wuhan_mahjong.bots.view import int_view
from wuhan_mahjong.engine import SeatView, new_hand, seat_view, spectator_view
from wuhan_mahjong.engine.actions import Action, action_from_json
from wuhan_mahjong.engine.match import play_hand, random_policy
from wuhan_mahjong.engine.state import HandState
from wuhan_mahjong.meld import Meld
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.scoring import NotAWin, settle
from wuhan_mahjong.tiles import parse_tile, parse_tiles
from wuhan_mahjong.win_record import parse_win_record

PROFILES = ["yuanhang", "bianfeng", "laizishanzhuang"]
READERS = ["expert", "search"]
WIN = {"type": "win"}
LAIZI_KONG = {"type": "special_kong", "kind": "laizi"}
#: self-drawn, then on seat 1's (the dealer's), seat 2's and seat 3's discard
WAYS = (("self_draw", None), ("discard", 1), ("discard", 2), ("discard", 3))


# ----------------------------------------------------- the view says where the tile came from

def _after_replacement(state: HandState) -> bool:
    """From the engine's log, not its fields: the seat in turn's last event is a
    replacement draw (the end phase's note may follow it)."""
    if state.phase != "turn":
        return False
    for entry in reversed(state.log):
        if entry[0] == "end_phase":
            continue
        return entry[0] == "draw" and entry[1] == state.current and entry[3] == "replacement"
    return False


@pytest.mark.parametrize("profile", PROFILES)
def test_the_views_say_when_the_tile_in_hand_is_a_replacement_draw(profile: str) -> None:
    """Over played hands (random play, every 红中 kong made at once, so replacement draws
    come often): every seat's JSON view, the spectator's and the typed view say
    ``replacement_draw`` exactly when the seat in turn's last event is a replacement
    draw, and the deciding seat's parsed JSON view reads the same typed view (its seed key
    too)."""
    rng = random.Random(2101)
    seen = {True: 0, False: 0}
    base = random_policy(rng)

    def policy(state: HandState, seat: int) -> Action:
        want = _after_replacement(state)
        seen[want] += 1
        assert spectator_view(state)["replacement_draw"] is want
        for viewer in range(4):
            view = seat_view(state, viewer)
            assert view["replacement_draw"] is want
            iv = int_view(state, viewer)
            assert iv.replacement_draw is want
            if viewer == seat:  # the one who decides: the JSON form reads the same
                assert parse_view(view) == iv
                assert SeatReading(view).public_key() == SeatReading(iv).public_key()
        return base(state, seat)

    for n in range(6):
        play_hand(new_hand(get_rules(profile), n % 4, rng=rng), policy)
    assert seen[True] >= 6 and seen[False] > seen[True]


def test_a_view_without_the_fact_reads_as_a_wall_draw_and_keeps_its_seed() -> None:
    """Views written before the field (hand-made ones, older clients) read as a draw from
    the wall, and a decision's seed key without a replacement draw is what it was."""
    view = _view("yuanhang", 40, replacement=None)
    assert "replacement_draw" not in view
    iv = parse_view(view)
    assert iv.replacement_draw is False
    assert repr(iv).endswith(", replacement_draw=False)")
    assert SeatReading(view).public_key() == repr(iv)[:-len(", replacement_draw=False)")
                                                      ].encode() + b")"
    assert SeatReading(_view("yuanhang", 40, replacement=True)).replacement_draw is True


@pytest.mark.parametrize(("claim", "value", "message"), [
    (False, 1, "view.replacement_draw: not true or false"),
    (True, True, "view.replacement_draw: no replacement draw in the claim phase"),
])
def test_a_view_with_a_wrong_replacement_draw_is_refused(claim: bool, value: Any,
                                                         message: str) -> None:
    view: dict[str, Any] = dict(_view("yuanhang", 40, replacement=None) if not claim else
                                make_view("456p789s55m3s1s", indicator="9s", dealer=1,
                                          melds={0: CHI}, claim=("2s", 3),
                                          actions=[{"type": "pass"}]))
    view["replacement_draw"] = value
    with pytest.raises(ViewError, match=message):
        parse_view(view)  # type: ignore[arg-type]


# ------------------------------------------------ the win in hand against the laizi kong

#: seat 0 (seat 1 deals) opened by a chi of 123m from seat 3, with two 红中 kongs
CHI = [meld("chi", "123m", 3)]


def _view(profile: str, wall: int, *, replacement: bool | None) -> SeatView:
    """Seat 0's turn holding 456p 789s 55m 3s, the laizi 1s (indicator 9s) and the drawn
    4s: a soft self-drawn win; ``replacement``: the 4s came as a kong's replacement
    (``None``: a view that does not say, as hand-made views did before)."""
    view: dict[str, Any] = dict(make_view(
        "456p789s55m3s4s1s", profile=profile, indicator="9s", wall=wall, dealer=1,
        melds={0: CHI}, red_kongs={0: 2},
        actions=[WIN, LAIZI_KONG, {"type": "laizi_discard"},
                 *[{"type": "discard", "tile": x}
                   for x in ("4p", "5p", "6p", "7s", "8s", "9s", "5m", "3s", "4s")]]))
    view["drawn"] = "4s"
    if replacement is not None:
        view["replacement_draw"] = replacement
    return view  # type: ignore[return-value]


def _seat0(profile: str, hand: str, melds: list[dict[str, Any]], tile: str, win_by: str, *,
           from_seat: int | None = None, kongs: dict[str, int] | None = None,
           indicator: str = "1z") -> int:
    """What seat 0 (seat 1 deals) collects winning by ``win_by`` on ``tile`` with ``hand``
    beside ``melds`` (the settlement record's form), 0 where it is no win (the minimum
    score's refusal included)."""
    seats: list[dict[str, Any]] = [{"hand": "", "melds": []} for _ in range(4)]
    seats[0] = {"hand": hand, "melds": melds, **({"kongs": kongs} if kongs else {})}
    rec: dict[str, Any] = {"profile": profile, "dealer": 1, "indicator": indicator,
                           "winner": 0, "win_by": win_by, "winning_tile": tile, "seats": seats}
    if from_seat is not None:
        rec["from"] = from_seat
    try:
        return settle(parse_win_record(rec)).total
    except NotAWin:
        return 0


def _collects(profile: str, hand: str, tile: str, win_by: str, laizi_kongs: int) -> int:
    return _seat0(profile, hand, [{"type": "chi", "tiles": "123m", "from": 3}], tile, win_by,
                  kongs={"red": 2, "laizi": laizi_kongs}, indicator="9s")


@pytest.mark.parametrize("profile", PROFILES)
def test_the_win_in_hand_and_the_kong_line_by_the_settlement(profile: str) -> None:
    """The rules' side.  The 14 tiles win soft (the wild for 2s or 5s): 64 self-drawn from
    the wall, 360 as 杠上花 on a replacement draw, every profile.  After the laizi kong the
    13 tiles left (456p 789s 55m 34s) wait hard on 2s/5s and soft on a drawn laizi: 杠上花
    collects 1,200 on each (``laizishanzhuang``: 1,800, a laizi 720), 11 of the 119 unseen
    tiles; a later self-draw 512 (256 on a laizi; ``laizishanzhuang`` 256 and 128).  So
    from the wall, the bloom alone is worth more than the win in hand (11/119 × 1,200 =
    111 > 64; 168 in ``laizishanzhuang``), and a miss leaves the hand ready, hard, its
    wins four to eight times the 64.  On a replacement draw the win in hand, 360, is more
    than three times the bloom."""
    assert _collects(profile, "456p789s55m3s1s", "4s", "self_draw", 0) == 64
    assert _collects(profile, "456p789s55m3s1s", "4s", "kong_bloom", 0) == 360
    blooms = [_collects(profile, "456p789s55m34s", x, "kong_bloom", 1) for x in ("2s", "5s", "1s")]
    later = [_collects(profile, "456p789s55m34s", x, "self_draw", 1) for x in ("2s", "5s", "1s")]
    if profile == "laizishanzhuang":
        assert blooms == [1800, 1800, 720] and later == [256, 256, 128]
    else:
        assert blooms == [1200, 1200, 1200] and later == [512, 512, 256]
    t = SeatReading(_view(profile, 40, replacement=False))
    assert t.unseen_total == 119
    wins = [parse_tile(x) for x in ("2s", "5s", "1s")]
    assert [t.unseen[x] for x in wins] == [4, 4, 3]
    bloom = sum(t.unseen[x] * b for x, b in zip(wins, blooms, strict=True)) / t.unseen_total
    assert 64 < bloom < 360 / 2


@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [40, 20])
def test_the_laizi_kong_over_a_plain_self_draw_beside_the_seats_kongs(
        bot: str, profile: str, wall: int) -> None:
    """The fault: drawn from the wall, the soft win of 64 is passed for the laizi kong
    (its bloom alone worth 111, or 168).  The expert and the search bot took it, pricing
    it as the 杠上花 of a seat that has konged (``ExpertBot.bloom_source``)."""
    ask(bot, _view(profile, wall, replacement=False), [LAIZI_KONG])


def test_the_bloom_source_switch_plays_as_before() -> None:
    view = _view("yuanhang", 40, replacement=False)
    assert ExpertBot(1, bloom_source=False).choose(view) == action_from_json(WIN)
    assert ExpertBot(1).choose(view) == action_from_json(LAIZI_KONG)


@pytest.mark.parametrize("bot", ["greedy", *READERS])
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [40, 20])
def test_guard_the_bloom_in_hand_is_taken(bot: str, profile: str, wall: int) -> None:
    """Guard: the same 14 tiles where the 4s came as the replacement of the second 红中
    kong.  The win in hand is 杠上花, 360, against a laizi kong whose bloom is worth 111
    (168) and whose later wins must still come: every bot takes it."""
    ask(bot, _view(profile, wall, replacement=True), [WIN])


# ------------------------------------------------------ a concealed kong on a plain tile

#: seat 0 (seat 1 deals, indicator 东 so the laizi is 南: nobody holds one) opened by a chi
#: of 123s from seat 3, nobody else opened: no threat is read, the kong's alone
CHI_S = [meld("chi", "123s", 3)]


def _kong_view(hand: str, drawn: str, kong: str, profile: str, wall: int) -> SeatView:
    view: dict[str, Any] = dict(make_view(
        hand, profile=profile, wall=wall, melds={0: CHI_S},
        extra_actions=[{"type": "kong", "kind": "concealed", "tile": kong}]))
    view["drawn"] = drawn
    return view  # type: ignore[return-value]


def _plain(profile: str, hand: str, tile: str, win_by: str, *, kong: str | None = None,
           from_seat: int | None = None) -> int:
    """What seat 0 collects beside ``CHI_S`` (and the 暗杠 ``kong``)."""
    melds: list[dict[str, Any]] = [{"type": "chi", "tiles": "123s", "from": 3}]
    if kong:
        melds.append({"type": "kong", "kind": "concealed", "tiles": kong})
    return _seat0(profile, hand, melds, tile, win_by, from_seat=from_seat)


@pytest.mark.parametrize("profile", PROFILES)
def test_the_free_kong_and_the_kong_that_breaks_the_wait_by_the_settlement(profile: str) -> None:
    """The rules' side of the guards below.  4444p 567s 22m 34m: throwing a 4p leaves 444p
    beside the 22m pair, ready on 2m/5m; the 暗杠 of 4444p leaves the same wait, its wins
    128 self-drawn, 720 as 杠上花 on a 2m or 5m replacement draw, 80 to 96 on a discard,
    every profile, where without it they collect 32 and 20 to 24 in ``laizishanzhuang``
    and nothing in ``yuanhang`` and ``bianfeng`` (16 at most from a loser, short of the
    minimum score).  3333m 4m 567p 88s and a drawn 9s: throwing the 9s leaves 333m 34m
    beside the 88s pair, ready on 2m/5m; the 暗杠 of 3333m leaves 4m and 9s single, a step
    short whatever the replacement.  Where the ready hand's wins pass the minimum score
    (``laizishanzhuang``: 32 self-drawn, 20 on seat 2's discard) the kong gives up the
    readiness; in ``yuanhang`` and ``bianfeng`` no win of that hand passes it, and the
    kong is what makes its later wins count (the tenth hunt's kong the minimum needs)."""
    small = 32 if profile == "laizishanzhuang" else 0
    for tile in ("2m", "5m"):
        assert _plain(profile, "444p567s22m34m", tile, "self_draw") == small
        assert _plain(profile, "567s22m34m", tile, "self_draw", kong="4444p") == 128
        assert _plain(profile, "567s22m34m", tile, "kong_bloom", kong="4444p") == 720
    assert [_plain(profile, "567s22m34m", "2m", "discard", kong="4444p", from_seat=f)
            for f in (1, 2, 3)] == [96, 80, 80]
    breaks = [_plain(profile, "3333m4m567p88s", tile, win_by, from_seat=f)
              for tile in ("2m", "5m") for win_by, f in (("self_draw", None), ("discard", 2))]
    if profile == "laizishanzhuang":
        assert breaks == [32, 20, 32, 20]
    else:
        assert breaks == [0, 0, 0, 0]


@pytest.mark.parametrize("bot", ["greedy", *READERS])
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [40, 8])
def test_guard_the_concealed_kong_that_keeps_the_wait(bot: str, profile: str, wall: int) -> None:
    """Guard: 4444p 567s 22m 34m (the 4p just drawn): the 暗杠 keeps the 2m/5m wait, makes
    every win four times as large (``laizishanzhuang``) or lifts it past the minimum score
    (``yuanhang``, ``bianfeng``), and draws a replacement that wins 杠上花 (720) on a 2m or
    5m; nobody else is opened.  Every bot makes it, early and late."""
    ask(bot, _kong_view("4444p567s22m34m", "4p", "4p", profile, wall),
        [{"type": "kong", "kind": "concealed", "tile": "4p"}])


@pytest.mark.parametrize("bot", ["greedy", *READERS])
@pytest.mark.parametrize("wall", [16, 8])
def test_guard_no_kong_that_breaks_a_ready_hand_whose_wins_pass(bot: str, wall: int) -> None:
    """Guard (``laizishanzhuang``, no minimum score): 3333m 4m 567p 88s and a drawn 9s, late.
    Throwing the 9s leaves the hand ready on 2m/5m, eight tiles, its wins passing; the 暗杠
    of 3333m leaves it a step short, two tiles to find in the last few draws, and its
    factor raises what this seat pays too.  Every bot throws the 9s.  (In ``yuanhang`` and
    ``bianfeng`` no win of the ready hand passes the minimum score and every bot konges:
    the tenth hunt's kong the minimum score needs.)"""
    ask(bot, _kong_view("3333m4m567p88s9s", "9s", "3m", "laizishanzhuang", wall),
        [discard("9s")])


#: two openings (口口翻 ×4 in ``yuanhang``): a chi of 123p from seat 3, a peng of 777p from
#: seat 2
TWO_OPEN = [meld("chi", "123p", 3), meld("peng", "777p", 2)]


def test_the_kong_that_spends_the_258_pair_by_the_analysis_and_the_settlement() -> None:
    """The rules' side of the guard below: 222m 34m 99s wins on the 9s (the 22m pair, 234m,
    999s) and on a drawn laizi; in ``yuanhang`` self-drawn for 64 and on the dealer's
    discard for 48 (the others' discards fall short of the minimum score),
    ``laizishanzhuang`` 32, 24, 20 and 20.  After the 暗杠 of 2222m, 34m 99s waits on
    nothing: the 2m/5m would leave 99s as the pair, no 将."""
    melds = [Meld("chi", tuple(parse_tiles("123p")), 3, None),
             Meld("peng", tuple(parse_tiles("777p")), 2, None)]
    kong = Meld("kong", tuple(parse_tiles("2222m")), None, "concealed")
    for profile, amounts in (("yuanhang", [64, 48, 0, 0]), ("laizishanzhuang", [32, 24, 20, 20])):
        rules = get_rules(profile)
        laizi = rules.laizi_of(parse_tile("1z"))
        assert [w.tile for w in waits(parse_tiles("222m34m99s"), melds, laizi, rules,
                                      "self_draw")] == [parse_tile("9s"), laizi]
        assert not waits(parse_tiles("34m99s"), [*melds, kong], laizi, rules, "self_draw")
        record = [{"type": m["type"], "tiles": m["tiles"], "from": m["from_seat"]}
                  for m in TWO_OPEN]
        assert [_seat0(profile, "222m34m99s", record, "9s", w, from_seat=f)
                for w, f in WAYS] == amounts


@pytest.mark.parametrize("bot", ["greedy", *READERS])
@pytest.mark.parametrize("profile", ["yuanhang", "laizishanzhuang"])
@pytest.mark.parametrize("wall", [40, 8])
def test_guard_no_kong_that_spends_the_258_pair(bot: str, profile: str, wall: int) -> None:
    """Guard: opened twice, 222m 34m 99s ready on the 9s with the 22m pair, its self-drawn
    win passing the minimum score; the fourth 2m drawn.  Its 暗杠 leaves no 2/5/8 pair
    (34m 99s waits on nothing, two tiles at least from ready again); throwing the 2m keeps
    the hand as it was.  Every bot throws the 2m.  (In ``bianfeng``, where no win of the
    ready hand passes the minimum, every bot konges.)"""
    view: dict[str, Any] = dict(make_view(
        "2222m34m99s", profile=profile, wall=wall, melds={0: TWO_OPEN},
        extra_actions=[{"type": "kong", "kind": "concealed", "tile": "2m"}]))
    view["drawn"] = "2m"
    ask(bot, view, [discard("2m")])  # type: ignore[arg-type]


# ---------------------------------------------------------- an added kong on a plain tile

#: opened by a chi of 123s from seat 3 and a peng of 555p from seat 2, nobody else opened
PENG_5P = [meld("chi", "123s", 3), meld("peng", "555p", 2)]


def _added(profile: str, tile: str, win_by: str, *, kong: bool, from_seat: int | None = None
           ) -> int:
    """What seat 0 collects with 234m 67s 88m beside ``PENG_5P`` (the peng made an added
    kong with ``kong``)."""
    third: dict[str, Any] = ({"type": "kong", "kind": "added", "tiles": "5555p", "from": 2}
                             if kong else {"type": "peng", "tiles": "555p", "from": 2})
    return _seat0(profile, "234m67s88m", [{"type": "chi", "tiles": "123s", "from": 3}, third],
                  tile, win_by, from_seat=from_seat)


@pytest.mark.parametrize(("profile", "before", "after"), [
    ("yuanhang", [64, 48, 0, 0], [128, 96, 80, 80]),
    ("bianfeng", [0, 0, 0, 0], [64, 48, 0, 0]),
    ("laizishanzhuang", [32, 24, 20, 20], [64, 48, 40, 40]),
])
def test_the_added_kong_by_the_settlement(profile: str, before: list[int],
                                          after: list[int]) -> None:
    """The rules' side of the guard below: 234m 67s 88m waits on 5s/8s with the peng of 555p
    or with its added kong; the kong doubles every win (or lifts it past the minimum
    score: ``bianfeng``), self-drawn and on seats 1 to 3's discards, and its replacement
    draw wins 杠上花 on a 5s or 8s (720 in ``yuanhang``, 360 elsewhere)."""
    for tile in ("5s", "8s"):
        assert [_added(profile, tile, w, kong=False, from_seat=f) for w, f in WAYS] == before
        assert [_added(profile, tile, w, kong=True, from_seat=f) for w, f in WAYS] == after
        assert _added(profile, tile, "kong_bloom", kong=True) == (
            720 if profile == "yuanhang" else 360)


@pytest.mark.parametrize("bot", ["greedy", *READERS])
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [40, 8])
def test_guard_the_added_kong_that_keeps_the_wait(bot: str, profile: str, wall: int) -> None:
    """Guard: the fourth 5p drawn beside the peng, nobody else opened: the added kong
    (补杠) keeps the 5s/8s wait, doubles its wins and draws a replacement that may win
    杠上花; throwing the 5p gives all that up for nothing.  Every bot konges, early and late."""
    view: dict[str, Any] = dict(make_view(
        "234m67s88m5p", profile=profile, wall=wall, melds={0: PENG_5P},
        extra_actions=[{"type": "kong", "kind": "added", "tile": "5p"}]))
    view["drawn"] = "5p"
    ask(bot, view, [{"type": "kong", "kind": "added", "tile": "5p"}])  # type: ignore[arg-type]
