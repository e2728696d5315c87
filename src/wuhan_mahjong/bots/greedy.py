"""``greedy``: the fastest route to a legal win.

* Wins whenever a win is offered (the engine offers only legal wins, minimum
  score included).
* 红中 (and 发财 where it is a must-kong tile) is played out as its special kong
  at once: it can never be discarded, it blocks every win while held, and the
  kong doubles the multiplier and draws a replacement.
* Laizi: one is kept as a wild (a small hand may win with at most one); a second
  one is konged (×4 / ×2 and a replacement draw).  The single one is konged too
  when the thirteen tiles left are as close without it (the kong's factor, a hard
  hand and the replacement draw come for free).  Where an option lets a small
  hand hold more (``small_hand_max_laizi``), that many are kept; where it allows
  none, the single one is konged while the hand heads for a small hand.  The
  single wild is konged too when a small hand could not pass the minimum score
  with the factors held now.
* Discards minimise shanten (with laizi, over every big-hand shape as well as the
  2/5/8 small hand), then maximise the number of unseen tiles that would lower it;
  of ready discards, where no small win could pass the minimum score, the big
  hands' winning tiles count first (the small hand's waits could not be won).
  A ready hand none of whose winning tiles is left (every copy in sight; the laizi
  aside) counts a step from ready, as it is (:func:`live_shanten`): it must change
  a tile before it can win.  So a step from ready, a tile counts only if it makes the
  hand ready on a live winning tile (:func:`ready_acceptance`): a pair whose other
  copies are in sight is no pung and no shanpon.
* Claims (chi, peng, 冲杠) are made when they lower shanten; at equal shanten
  when the hand has not opened yet (no win without an opening) or when more
  factors are needed for the minimum score and the opening gives one (口口翻:
  every opening doubles; 开口翻 counts only the first), or when the hand is ready
  but none of its winning tiles gives a win that passes the minimum score and the
  claim keeps it ready with some that do (a peng that makes a 碰碰胡), or with at
  least as many winning tiles, more of them big hands (the fourth claimed meld that
  makes a single 5p wait a 全求人), or with at least twice as many winning tiles whose
  win passes the minimum (:attr:`GreedyBot.wider_claims`: the peng of a 7p that turns
  a wait on the last 7p into 3p/6p).
  Of several such claims, the one that leaves the hand closest (a closed hand's 冲杠
  a step further where the table's ``direct_kong_opens`` is off: it opens nothing),
  then accepting
  the most tiles after its best discard (of two chis of a 5m, the one whose wait
  is still alive).
* Kongs that do not cost shanten are made (×2 / ×4), a kong that leaves a
  ready hand waiting on dead tiles costing a step, and one that leaves it ready
  made only if its winning tiles times the kong's factor (and the replacement
  draw) are as many as the best ready discard's (:meth:`GreedyBot.kong_keeps_waits`:
  no kong that narrows seven winning tiles to one); one that costs a
  step too when its factor is what lets a small hand pass the minimum score
  (暗杠 ×4, 蓄杠 ×2), as the single laizi is konged.
* The end phase (海底, RULES §16): the discard made then is the last before the
  final draws, where each seat draws once and may only win by that draw, a 海底捞
  (a big hand: no minimum score to pass, and in 远航 and 边锋 any pair).  So the
  discard keeps the most unseen tiles that would win it, and a chi or peng is made
  only when it adds such tiles (:meth:`GreedyBot.end_phase_discard`,
  :meth:`GreedyBot.haidi_live`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from fractions import Fraction

from ..analysis import waits
from ..engine.actions import (
    PASS,
    WIN,
    Action,
    Chi,
    Discard,
    Kong,
    LaiziDiscard,
    Peng,
    SpecialKong,
)
from ..engine.views import SeatView
from ..meld import Meld, opening_count
from ..scoring import big_hand_base
from ..tiles import NUM_KINDS, is_honour
from .base import NoLegalAction
from .handeval import Evaluator, hand_counts
from .seat_reading import SeatReading
from .view import IntView


def evaluator(tiles: Sequence[int], melds: Sequence[Meld], t: SeatReading) -> Evaluator:
    counts, wilds = hand_counts(tiles, t.laizi)
    return Evaluator(counts, wilds, melds, t.must, t.rules.pengpenghu)


def has_live_win(ev13: Evaluator, t: SeatReading) -> bool:
    """Whether some unseen kind other than the laizi completes the 3n+1 hand of ``ev13``.
    A ready hand whose every winning tile is in sight (discarded, melded, held) can win
    only on a drawn laizi: a self-draw, in most profiles a soft win that may fail the
    minimum score, and no better than changing a tile first."""
    laizi = t.laizi
    # the kinds that bring the shanten below 0, found suit by suit from the evaluator's
    # memo (the unseen ones, the laizi always, the must-kong tiles never)
    return any(x != laizi for x in ev13.acceptance_kinds(t.unseen, laizi, 0))


def live_wins(ev13: Evaluator, t: SeatReading, small: bool = True) -> int:
    """The unseen tiles (the laizi and the must-kong tiles aside) that complete the 3n+1
    hand of ``ev13``: the winning tiles a ready hand has left, as :func:`has_live_win`
    asks whether there is one.  ``small`` False: only those that complete a big hand
    (a small win that cannot pass the minimum score is no win)."""
    unseen = t.unseen
    laizi = t.laizi
    if small:  # as has_live_win finds them
        return sum(unseen[x] for x in ev13.acceptance_kinds(unseen, laizi, 0) if x != laizi)
    big = sorted(tg for tg in ev13.allowed if tg != "small")
    return sum(unseen[x] for x in range(NUM_KINDS)
               if unseen[x] and x != laizi and x not in t.must
               and any(ev13.shanten_after(x, 1, tg) < 0 for tg in big))


#: One winning tile of :func:`wait_summary`: (tile, a big reading, a hard small reading, a
#: soft small reading, the highest big-hand base of its readings, 0 for none).
WaitSummary = tuple[int, bool, bool, bool, int]

#: :func:`wait_summary`'s memo: the same hands come back within a decision and from one to
#: the next (a ready hand waiting through the claim windows of a go-round)
_WAITS: dict[tuple[object, ...], tuple[WaitSummary, ...]] = {}
#: the most entries :data:`_WAITS` keeps (each a hand, its melds and a few waits, well
#: under a kilobyte): a full table starts over, as the evaluator's memos do
#: (:data:`wuhan_mahjong.shape.MEMO_LIMIT`)
WAITS_LIMIT = 4096


def wait_summary(hand13: Sequence[int], melds: Sequence[Meld], t: SeatReading,
                 win_by: str) -> tuple[WaitSummary, ...]:
    """:func:`wuhan_mahjong.analysis.waits` of the 3n+1 ``hand13`` beside ``melds``, each
    wait reduced to what the bots ask of it (:data:`WaitSummary`), memoised: the analysis
    reads every winning hand in full, about half a millisecond a hand."""
    rules = t.rules
    key = (tuple(hand13), tuple(melds), t.laizi, rules, win_by)
    hit = _WAITS.get(key)
    if hit is not None:
        return hit
    res = tuple(
        (w.tile, any(r.is_big for r in w.readings),
         any(r.hard and not r.is_big for r in w.readings),
         any(not r.hard and not r.is_big for r in w.readings),
         max((big_hand_base(r.big_hands, rules) for r in w.readings if r.is_big), default=0))
        for w in waits(hand13, melds, t.laizi, rules, win_by))
    if len(_WAITS) >= WAITS_LIMIT:  # bounded: the server runs for days
        _WAITS.clear()
    _WAITS[key] = res
    return res


def big_wins(hand13: Sequence[int], melds: Sequence[Meld], t: SeatReading) -> int:
    """The unseen tiles on which the 3n+1 ``hand13`` beside ``melds`` wins a big hand
    (base 10) on a discard, by the analysis's own rules (:func:`wuhan_mahjong.analysis.waits`:
    全求人 included, which no shanten target knows); 0 for a hand not opened."""
    return sum(t.unseen[w[0]] for w in wait_summary(hand13, melds, t, "discard") if w[1])


def ready_wins(hand13: Sequence[int], melds: Sequence[Meld], t: SeatReading,
               small_ok: tuple[bool, bool] | None = None) -> tuple[int, int]:
    """What the 3n+1 ``hand13`` beside ``melds`` wins, from one reading of its waits
    (:func:`wuhan_mahjong.analysis.waits`), as ``(legal, big)``:

    * ``legal``, the unseen tiles (a drawn laizi included) on which it makes a win that
      could pass the minimum score, by the analysis's own readings: a big hand always, a
      small hand where its factors could reach the minimum, a soft one (a laizi standing
      in, no 硬胡 factor) as soft.  In 远航 with two openings as dealer a hard small win
      passes and a soft one never does, so a ready hand whose every wait uses its wild
      wins nothing;
    * ``big``, the unseen tiles on which it wins a big hand, each counted by its base (10
      a big hand; 清一色碰碰胡, two big hands, 20 in 远航 and 边锋:
      :func:`wuhan_mahjong.scoring.big_hand_base`): of two ready discards with as many
      winning tiles, the one whose wins pay more.

    ``(0, 0)`` for a hand not opened (no win yet: its waits are the shape's).
    ``small_ok``: :func:`small_wins_ok` of ``t``, when the caller asks for many hands."""
    if not t.opened:
        return 0, 0
    hard_ok, soft_ok = small_wins_ok(t) if small_ok is None else small_ok
    legal = big = 0
    for tile, any_big, hard_small, soft_small, base in wait_summary(hand13, melds, t,
                                                                    "self_draw"):
        if tile in t.must:
            continue
        unseen = t.unseen[tile]
        if any_big or (hard_ok and hard_small) or (soft_ok and soft_small):
            legal += unseen
        big += unseen * base
    return legal, big


def small_wins_ok(t: SeatReading) -> tuple[bool, bool]:
    """Whether a hard and a soft small win could pass the minimum score
    (:meth:`SeatReading.small_win_possible`): what :func:`ready_wins` asks of every hand."""
    return t.small_win_possible(), t.small_win_possible(hard=False)


def _without(hand: Sequence[int], tile: int) -> list[int]:
    rest = list(hand)
    rest.remove(tile)
    return rest


def live_shanten(ev: Evaluator, t: SeatReading, tile: int = -1, live: bool = True) -> int:
    """Shanten of ``ev``'s hand after discarding ``tile`` (-1: a 3n+1 hand as it is), a
    ready hand with no live winning tile (:func:`has_live_win`) counted a step away:
    the bots used to keep such a hand, and kong into one, as if it were ready.
    ``live`` False: the plain shanten (the bots' ``live_waits`` off, an ablation)."""
    sh = ev.shanten_after(tile, -1)
    if live and sh == 0 and not has_live_win(ev if tile == -1 else ev.with_tile(tile, -1), t):
        return 1
    return sh


def revive_acceptance(ev13: Evaluator, t: SeatReading) -> int:
    """The unseen tiles that let a ready 3n+1 hand with no live winning tile become ready
    on live ones: drawn, some discard leaves a hand with a winning tile left (the laizi
    always counts, one more wild).  The acceptance of such a hand, which the plain count
    (every tile "lowers" a ready hand's shanten) would put above every real step."""
    total = 0
    for u in range(NUM_KINDS):
        n = t.unseen[u]
        if not n or u in t.must:
            continue
        if u == t.laizi:
            total += n
            continue
        ev14 = ev13.with_tile(u, 1)
        held = [d for d in range(NUM_KINDS) if ev14.counts[d] and d not in t.must]
        if any(ev14.shanten_after(d, -1) == 0 and has_live_win(ev14.with_tile(d, -1), t)
               for d in held):
            total += n
    return total


def ready_acceptance(ev13: Evaluator, t: SeatReading, target: str | None = None) -> int:
    """The unseen tiles that make the 3n+1 hand of ``ev13``, a step from ready, ready on a
    live winning tile: drawn, some discard leaves a hand with a winning tile left (the
    laizi always counts).  The plain count takes every tile that completes the shape, also
    one whose ready hand waits only on tiles all in sight (a dead pair's shanpon: with
    both other 1p in the rivers, 11p beside 334m waits on 1p after a 2m, 3m or 5m),
    which is no step at all (:func:`live_shanten` counts such a hand a step away).
    ``target``: the tiles that make that target ready (a 碰碰胡 whose every pung is of a
    kind all in sight but the one it holds has none)."""
    laizi = t.laizi
    unseen = t.unseen
    if target is None:
        kinds: Iterable[int] = ev13.acceptance_kinds(unseen, laizi, 1)
    else:
        kinds = [u for u in range(NUM_KINDS) if unseen[u] and u not in t.must
                 and (u == laizi or ev13.shanten_after(u, 1, target) < 1)]
    # the kinds that win nothing: all in sight, or the laizi's own face (a drawn laizi
    # is no winning tile of :func:`has_live_win`)
    blocked = [k for k in range(NUM_KINDS)
               if k not in t.must and (k == laizi or not unseen[k])]
    total = 0
    for u in kinds:
        if u == laizi or (not ev13.wilds and not _near(blocked, ev13.counts, u)):
            total += unseen[u]  # the laizi; or no ready hand of these tiles waits on
            continue            # a blocked kind (a wait lies within two of its tiles)
        ev14 = ev13.with_tile(u, 1)
        if any(ev14.counts[d] and d not in t.must and ev14.shanten_after(d, -1, target) == 0
               and has_live_win(ev14.with_tile(d, -1), t) for d in range(NUM_KINDS)):
            total += unseen[u]
    return total


def _near(kinds: Sequence[int], counts: Sequence[int], drawn: int) -> bool:
    """Whether some of ``kinds`` is within two of a tile of ``counts`` or of ``drawn`` in
    its suit (an honour: the same kind): a ready hand of those tiles with no wild in it
    waits only on such kinds (a run's missing tile, a pair's or a single's own kind)."""
    for k in kinds:
        if is_honour(k):
            if counts[k] or k == drawn:
                return True
            continue
        lo = k - k % 9
        if any(counts[j] or j == drawn for j in range(max(lo, k - 2), min(lo + 9, k + 3))):
            return True
    return False


def tile_shape_rank(tile: int, counts: Sequence[int]) -> int:
    """Tie-break for discards: lower = discard first.  Lone honours, then terminals,
    then tiles with few neighbours."""
    if is_honour(tile):
        return counts[tile] * 10
    r = tile % 9
    lo = tile - r
    near = sum(counts[x] for x in range(max(lo, tile - 2), min(lo + 8, tile + 2) + 1) if x != tile)
    edge = 0 if r in (0, 8) else (1 if r in (1, 7) else 2)
    return 5 + counts[tile] * 10 + near * 3 + edge


def after_claim(t: SeatReading, action: Action) -> tuple[list[int], list[Meld]] | None:
    """My concealed tiles and melds after the claim (before the discard that follows)."""
    tile = t.on_table
    if tile is None:
        return None
    hand = list(t.hand)
    melds = list(t.melds)
    frm = t.on_table_from
    if isinstance(action, Peng):
        for _ in range(2):
            hand.remove(tile)
        melds.append(Meld("peng", (tile,) * 3, frm))
    elif isinstance(action, Kong):
        for _ in range(3):
            hand.remove(tile)
        melds.append(Meld("kong", (tile,) * 4, frm, "direct"))
    elif isinstance(action, Chi):
        for x in action.tiles:
            if x != tile:
                hand.remove(x)
        melds.append(Meld("chi", action.tiles, frm))
    else:
        return None
    return hand, melds


def peng_ready_hands(t: SeatReading) -> list[tuple[list[int], list[Meld], Evaluator]]:
    """After the peng of the tile on the table (if offered), each discard that leaves the
    hand ready: the 13 tiles kept, the melds and their evaluator."""
    peng = next((a for a in t.actions if isinstance(a, Peng)), None)
    res = after_claim(t, peng) if peng is not None else None
    if res is None:
        return []
    hand, melds = res
    ev = evaluator(hand, melds, t)
    out = []
    for d in claim_discards(t, hand):
        if live_shanten(ev, t, d) == 0:
            h13 = list(hand)
            h13.remove(d)
            out.append((h13, melds, ev.with_tile(d, -1)))
    return out


def kong_result(t: SeatReading, kong: Kong) -> tuple[list[int], list[Meld]]:
    """The concealed tiles and melds a concealed or added ``kong`` leaves (before its
    replacement draw)."""
    hand = list(t.hand)
    for _ in range(4 if kong.kind == "concealed" else 1):
        hand.remove(kong.tile)
    melds = list(t.melds)
    if kong.kind == "concealed":
        melds.append(Meld("kong", (kong.tile,) * 4, None, "concealed"))
    else:
        melds = [Meld("kong", (kong.tile,) * 4, m.from_seat, "added")
                 if m.type == "peng" and m.tiles[0] == kong.tile else m for m in melds]
    return hand, melds


def opening_adds_factor(t: SeatReading, opened: int = 0) -> bool:
    """Whether one more opening (开口), beyond ``opened`` more the hand will make anyway,
    raises this seat's multiplier: always the first; a later one only where every opening
    counts (口口翻, ``opening_scoring`` per_opening).  Where the opening counts once
    (开口翻), a claim that does not bring the hand closer gives nothing towards the
    minimum score and costs the draw it replaces."""
    now = t.my_multiplier(big=False, hard=True, self_drawn=True, extra_openings=opened)
    return t.my_multiplier(big=False, hard=True, self_drawn=True,
                           extra_openings=opened + 1) > now


def best_acceptance(ev: Evaluator, t: SeatReading, discards: Iterable[int],
                    current: int | None = None, live: bool = True) -> int:
    """The most unseen tiles that would bring the hand closer after any one of
    ``discards`` (``current``: their shanten, when the caller knows it; ``live``: as
    :func:`live_shanten` counts it)."""
    return max(step_acceptance(ev.with_tile(d, -1), t, current, live) for d in discards)


def step_acceptance(ev13: Evaluator, t: SeatReading, current: int | None = None,
                    live: bool = True) -> int:
    """The unseen tiles that bring the 3n+1 hand of ``ev13`` a step closer, from its
    :func:`live_shanten` (``current``, when the caller knows it): for a ready hand
    with no live winning tile, those that make it ready on live ones
    (:func:`revive_acceptance`).  ``live`` False: the plain shanten and acceptance."""
    if current is None:
        current = live_shanten(ev13, t, live=live)
    if current == 1 and ev13.shanten_after(-1, 0) == 0:
        return revive_acceptance(ev13, t)
    return ev13.acceptance(t.unseen, t.laizi, current=current)[0]


def discard_choices(t: SeatReading) -> list[int]:
    return [a.tile for a in t.actions if isinstance(a, Discard)]


def claim_discards(t: SeatReading, hand: Sequence[int]) -> list[int]:
    """The kinds this seat may throw from ``hand`` after a claim (:func:`after_claim`), in
    tile order: never the laizi, never a must-kong tile (红中, 发财 in 赖子山庄)."""
    return sorted({d for d in hand if d != t.laizi and d not in t.must})


class GreedyBot:
    """See the module docstring.  Deterministic: ``seed`` is accepted for the registry."""

    name = "greedy"
    #: the arena may hand it the in-process view (:mod:`wuhan_mahjong.bots.view`)
    accepts_int_view = True
    #: kong the single wild laizi when a small hand could not pass the minimum score
    laizi_for_minimum = True
    #: how much closer than the small hand a big-hand target counts (in shanten):
    #: 0 = the plain minimum over targets; the expert uses 0.5, i.e. "a big hand
    #: first at equal shanten"
    big_target = 0.0
    #: an unopened hand makes claims that do not lower its shanten (it cannot win
    #: without an opening) only while its shanten is below this
    eager_below = 99
    #: an unopened hand makes a peng that does not lower its shanten at any shanten (its
    #: chis still follow ``eager_below``)
    eager_peng = False
    #: play the end phase for 海底捞 (:meth:`end_phase_discard`, :meth:`end_phase_claim`);
    #: off, it is played as any other turn (an ablation, docs/bots-log.md)
    haidi = True
    #: count a ready hand with no live winning tile a step away (:func:`live_shanten`), in
    #: its discards, kongs and claims; off, as before 4 December 2026 (an ablation)
    live_waits = True
    #: a kong that leaves the hand ready keeps its winning tiles (:meth:`kong_keeps_waits`);
    #: off, every kong that costs no step is made, as before 5 December 2026 (an ablation)
    kong_waits = True
    #: of ready discards, where no small win can pass the minimum score, the one that
    #: keeps the most big-hand winning tiles (:meth:`pick_discard`); off, by acceptance
    #: alone, as before 5 December 2026 (an ablation)
    legal_waits = True
    #: kong the single laizi when the kong costs no shanten (:meth:`laizi_kong_is_free`):
    #: its factor, a hard hand and the replacement draw for nothing; off, the wild is
    #: kept, as before 5 December 2026 (the expert has made this kong since 3 December)
    free_laizi_kong = True
    #: of ready discards, the one with the most tiles whose win could pass the minimum
    #: score, a soft small win counted as soft (:func:`ready_wins`), then by acceptance;
    #: off, only where no small win at all could pass (:attr:`legal_waits`), as before
    #: 5 December 2026 (an ablation)
    soft_waits = True
    #: of ready discards with as many winning tiles (:attr:`soft_waits`), the one whose
    #: wins pay more big-hand bases (:func:`ready_wins`); off, the acceptance and the
    #: shape of the tile thrown decide, as before 5 December 2026 (an ablation)
    big_ties = True
    #: a laizi kong that leaves a ready hand ready keeps its winning tiles, counted by
    #: what the kong adds within the caps, and one that costs a ready hand a step is not
    #: made (:meth:`laizi_kong_keeps_waits`); off, as before 5 December 2026 (an ablation)
    laizi_waits = True
    #: a kong's factor counts, in :meth:`kong_keeps_waits`, only for what it adds to the
    #: win within the caps (:meth:`capped_gain`): nothing to a hand whose every win is at
    #: 金顶 already; off, the whole factor, as before 6 December 2026 (an ablation)
    capped_kongs = True
    #: a step from ready, a discard is ranked by the tiles that make the hand ready on a
    #: live winning tile (:func:`ready_acceptance`); off, by every tile that completes the
    #: shape, a dead pair's shanpon included, as before 6 December 2026 (an ablation)
    live_steps = True
    #: a closed hand's 冲杠 that the table does not count as an opening (the option
    #: ``direct_kong_opens`` off) ranks, among the claims, a step further than it is: the
    #: hand still needs the opening the peng of the same tile makes (no win without one,
    #: RULES §9); off, the 冲杠 first, as before 6 December 2026 (an ablation)
    direct_opens = True
    #: a ready hand whose winning tiles include some that pass the minimum score claims,
    #: at equal shanten, a chi or peng that keeps it ready with at least twice as many
    #: such tiles (the peng of the last 7p but one of a 55p 77p wait on 7p alone, whose
    #: win the closed seat's discard could not pay, for a 3p/6p wait every seat pays);
    #: off, such a hand passes, as before 6 December 2026 (an ablation)
    wider_claims = True
    #: offered a peng and a 冲杠 of the same tile by a ready hand, the kong is weighed
    #: against the peng's best ready discard as well as against passing
    #: (:meth:`peng_over_kong_claim`): 555m 44m 88p beside two melds, on a 5m, konged for
    #: the 4m single (one left) where the peng and the 4m wait on 3m/6m, eight tiles;
    #: off, the kong is weighed against passing alone and ranks first, as before
    #: 6 December 2026 (an ablation)
    peng_over_kong = True

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: SeatView | IntView) -> Action:
        t = SeatReading(view)
        acts = t.actions
        if not acts:
            raise NoLegalAction(f"seat {t.me} has no decision to make")
        if WIN in acts:
            return WIN
        if t.phase in ("claim", "rob"):
            return self.claim(t)
        if t.phase == "final":
            return PASS
        return self.turn(t)

    # ------------------------------------------------------------------ turn
    def turn(self, t: SeatReading) -> Action:
        acts = t.actions
        for a in acts:
            if isinstance(a, SpecialKong) and a.kind in ("red", "green"):
                return a
        ev = evaluator(t.hand, t.melds, t)
        _, target = ev.best()
        wilds = t.counts[t.laizi]
        laizi_kong = next((a for a in acts if isinstance(a, SpecialKong) and a.kind == "laizi"), None)
        keep = t.rules.small_hand_max_laizi  # the wilds a small hand may win with
        if laizi_kong is not None and (
            (wilds > keep and (wilds >= 2 or target == "small")
             and self.laizi_kong_keeps_waits(t))
            or (self.laizi_for_minimum and target == "small" and not t.small_win_possible()
                and not self.wild_waits_big(t))
            or (self.free_laizi_kong and wilds == 1 and self.laizi_kong_is_free(t))
        ):
            return laizi_kong
        for a in acts:
            if isinstance(a, Kong):
                hand, melds = kong_result(t, a)
                # a kong leaves a 3n+1 hand that draws a replacement: compare with the
                # best discard's shanten (a wait the kong leaves dead is no wait)
                after = live_shanten(evaluator(hand, melds, t), t, live=self.live_waits)
                if (self.kong_keeps_value(t, hand, melds, after)
                        if after <= self.best_discard_shanten(ev, t)
                        else self.kong_for_minimum(t, target, melds)):
                    return a
            if isinstance(a, SpecialKong) and a.kind == "pi" and t.indicator in t.hand:
                after = ev.shanten_after(t.indicator, -1)
                if after <= self.best_discard_shanten(ev, t):
                    return a
        choice = self.end_phase_discard(t, ev) if t.end_phase and self.haidi else None
        if choice is None:
            choice = self.pick_discard(t, ev)
        if choice is not None:
            return choice
        # only laizi (and must-kong tiles in the end phase) left to play
        for a in acts:
            if isinstance(a, LaiziDiscard):
                return a
        return acts[0]

    def laizi_kong_is_free(self, t: SeatReading) -> bool:
        """Whether konging the single laizi costs no shanten: the 13 tiles left after
        the kong (the replacement still to come) are as close as the best discard
        keeping the wild.  Then the kong's factor (×4 / ×2), a hard hand (no wild used)
        and the replacement draw (杠上花) come for free.  Not while 红中 / 发财 must
        still be played out."""
        if any(isinstance(a, SpecialKong) and a.kind in ("red", "green") for a in t.actions):
            return False
        choices = discard_choices(t)
        if not choices:
            return False
        ev = evaluator(t.hand, t.melds, t)
        keep = min(ev.shanten_after(d, -1) for d in choices)
        return bool(evaluator(_without(t.hand, t.laizi), t.melds, t).best()[0] <= keep
                    and self.laizi_kong_keeps_waits(t))

    def wild_waits_big(self, t: SeatReading) -> bool:
        """Whether some discard leaves the hand ready, its laizi kept, on a big hand (by the
        analysis's waits: 全求人 too, which no shanten target knows): then the hand's wins
        pass the minimum score without the laizi kong's factor, and
        :attr:`laizi_for_minimum` has no reason to kong.  In 边锋, four claimed melds, the
        wild and a 9s: throwing the 9s waits on every 2/5/8 for a 全求人; the kong, for a
        small hand that could not pass, left the 9s alone, no wait at all.  False with
        :attr:`laizi_waits` off."""
        if not self.laizi_waits:
            return False
        # a win of any reading needs a shape some shanten target counts complete (a 全求人
        # has the 2/5/8 pair or a big hand's shape): the analysis reads ready hands only
        ev = evaluator(t.hand, t.melds, t)
        return any(ev.shanten_after(d, -1) <= 0 and big_wins(_without(t.hand, d), t.melds, t) > 0
                   for d in discard_choices(t))

    def laizi_kong_keeps_waits(self, t: SeatReading) -> bool:
        """Whether a laizi kong keeps what a ready hand wins, as :meth:`kong_keeps_waits`
        asks it of the other kongs: the unseen winning tiles of the 13 tiles left after
        the kong, times what its factor (×4 / ×2, and the hard win when it takes the last
        wild) adds to the win within the caps, and one more draw (the replacement),
        against those of the best ready discard keeping the wilds, whose small wins count
        only where the hand may win them (no more laizi than a small hand may hold, the
        minimum score).  A kong that leaves such a hand a step away is not made.  In 远航,
        with three melds of pins and two 红中 kongs, 3p 4p 66p and the wild: throwing 4p
        waits on sixteen tiles of a 清一色 already at 金顶; the kong, which shanten calls
        free, waits on the seven 2p and 5p for the same 金顶.  True for a hand that no
        discard leaves ready with a win, and with :attr:`laizi_waits` off."""
        choices = discard_choices(t)
        if not self.laizi_waits or not choices:
            return True
        ev = evaluator(t.hand, t.melds, t)
        wilds = t.counts[t.laizi]
        keep = t.rules.small_hand_max_laizi
        need = 0 if t.opened else 1  # a closed hand still needs the opening to win
        small_now = wilds <= keep and t.small_win_possible(extra_openings=need)
        best = big = 0
        for d in choices:
            if live_shanten(ev, t, d) == 0:
                ev13 = ev.with_tile(d, -1)
                n = live_wins(ev13, t, small_now)
                if n > best:
                    best, big = n, live_wins(ev13, t, small=False)
        if best == 0:
            return True
        ev_kong = evaluator(_without(t.hand, t.laizi), t.melds, t)
        if live_shanten(ev_kong, t) != 0:
            return False
        factor = Fraction(t.rules.laizi_kong_factor)
        # what the factor adds to a win, within the caps: nothing to a hand already at
        # the cap (the wild standing in, a soft win, against a hard one after the last
        # wild's kong)
        gain = self.capped_gain(t, 10 if big == best else 1, need, hard=False,
                                hard_after=wilds == 1, extra=factor)
        small_kong = (wilds - 1 <= keep
                      and t.small_win_possible(extra=factor, extra_openings=need))
        draws = max(1.0, t.wall / 4)
        return live_wins(ev_kong, t, small_kong) * gain * (1.0 + 1.0 / draws) >= best

    def kong_keeps_value(self, t: SeatReading, hand: Sequence[int], melds: Sequence[Meld],
                         after: int, peng: bool = False) -> bool:
        """Whether a kong that costs no step is worth its waits (``hand``: the 3n+1 tiles
        left beside ``melds``, ``after`` their shanten).  Greedy: a kong that leaves the
        hand ready is made unless it narrows the wait (:meth:`kong_keeps_waits`); any
        other kong always (×2 / ×4 and a replacement draw).  The expert weighs a ready
        hand's waits by what each win pays, where that is on.  ``peng``: a 冲杠 weighed against the
        peng of the same tile too (:meth:`peng_over_kong_claim`)."""
        return self.kong_keeps_waits(t, hand, melds, peng)

    def kong_keeps_waits(self, t: SeatReading, hand: Sequence[int],
                         melds: Sequence[Meld], peng: bool = False) -> bool:
        """Whether a kong that leaves the 3n+1 ``hand`` (beside ``melds``) ready keeps
        enough of the winning tiles: its unseen winning tiles (:func:`live_wins`) times
        the kong's factor (暗杠 ×4, 蓄杠 ×2, a 冲杠's ×2 and, in 口口翻, its opening)
        and one more draw (the replacement), against those of the best ready discard
        (or of the hand as it stands, for a 冲杠).  An added 5p kong beside 123p and
        555p that leaves one 3p to win on, where throwing the 3p waits on seven 4p and
        7p of the same 清一色, is not made: the old rule (every kong that costs no step)
        made it in every profile.  A kong whose factor is what lets a small hand pass the
        minimum score is made.  True for a hand the kong leaves not ready, and with
        :attr:`kong_waits` off (an ablation)."""
        if not self.kong_waits:
            return True
        ev_kong = evaluator(hand, melds, t)
        if live_shanten(ev_kong, t) != 0:
            return True
        need = 0 if t.opened else 1  # a closed hand still needs the opening to win
        small_now = t.small_win_possible(extra_openings=need)
        small_kong = t.small_win_possible(extra_openings=need, melds=melds)
        ev = evaluator(t.hand, t.melds, t)
        best = 0
        if t.phase in ("claim", "rob") and live_shanten(ev, t) == 0:
            best = live_wins(ev, t, small_now)  # a 冲杠: against passing, the hand as it is
        for d in discard_choices(t):
            if live_shanten(ev, t, d) == 0:
                best = max(best, live_wins(ev.with_tile(d, -1), t, small_now))
        wins = live_wins(ev_kong, t, small_kong)
        if self.capped_kongs:
            # within the caps: nothing for a hand whose every win is at 金顶 already
            big = wins == live_wins(ev_kong, t, small=False)
            gain = self.capped_gain(t, 10 if big else 1, need, melds=melds)
        else:
            gain = float(t.my_multiplier(big=False, hard=True, self_drawn=True, melds=melds)
                         / t.my_multiplier(big=False, hard=True, self_drawn=True))
        draws = max(1.0, t.wall / 4)
        # ``peng``: the peng's waits by the factor it adds (the kong's gain counts the
        # same opening, a 冲杠 being the peng's factor times the 明杠's ×2)
        return wins * gain * (1.0 + 1.0 / draws) >= max(best, self.peng_wins(t) if peng else 0)

    @staticmethod
    def capped_gain(t: SeatReading, base: int, need: int, *, hard: bool = True,
                    hard_after: bool = True, extra: Fraction = Fraction(1),
                    melds: Sequence[Meld] | None = None) -> float:
        """By how much a kong multiplies what a self-drawn win of ``base`` collects, after
        the caps (:meth:`SeatReading.collected`): its factor ``extra`` (or the factor of
        ``melds`` as this seat's melds), ``hard`` / ``hard_after`` the win before and after
        it, ``need`` openings still to come for a closed hand (none after a kong that
        opens).  1 for a hand at 金顶 either way: there the factor only raises what this
        seat pays when another wins (Project decision 6)."""
        opens = melds is not None and opening_count(list(melds), t.rules.direct_kong_opens) > 0
        after_needs = 0 if opens else need
        mw = t.my_multiplier(big=base > 1, hard=hard, self_drawn=True, extra_openings=need)
        mw_kong = t.my_multiplier(big=base > 1, hard=hard_after, self_drawn=True, extra=extra,
                                  extra_openings=after_needs, melds=melds)
        return t.collected(base, mw_kong, None) / max(1e-9, t.collected(base, mw, None))

    def kong_for_minimum(self, t: SeatReading, target: str, melds: Sequence[Meld]) -> bool:
        """Whether a kong that costs a step is still made: the hand heads for a small win
        that could not pass the minimum score with the factors held now (and the opening
        a closed hand still needs), while with the kong's factor (暗杠 ×4, 蓄杠 ×2) it
        could.  Without it every win of the hand would be refused, as with the single
        laizi (:attr:`laizi_for_minimum`); the replacement draw pays part of the step."""
        if target != "small":
            return False
        need = 0 if t.opened else 1
        return (not t.small_win_possible(extra_openings=need)
                and t.small_win_possible(extra_openings=need, melds=melds))

    def shanten_key(self, ev: Evaluator, tile: int = -1,
                    t: SeatReading | None = None) -> tuple[float, str]:
        """(key, target) of the hand after discarding ``tile`` (-1: as it is): the
        shanten of each target, big-hand targets less ``big_target``; the lowest.  Ties
        go to the first target in name order (``ev.allowed`` is a set of strings, whose
        iteration order changes with the process's hash seed).  Given the seat's
        reading ``t``, a ready hand with no live winning tile counts a step further
        (:func:`live_shanten`)."""
        best = (float(ev.shanten_after(tile, -1, "small")), "small")
        for target in sorted(ev.allowed):
            if target != "small":
                k = ev.shanten_after(tile, -1, target) - self.big_target
                if k < best[0]:
                    best = (k, target)
        if (t is not None and self.live_waits and best[0] <= 0
                and live_shanten(ev, t, tile) > 0):
            best = (best[0] + 1, best[1])  # ready on dead tiles only: a step away
        return best

    # ------------------------------------------------------------------ 海底
    @staticmethod
    def haidi_live(t: SeatReading, hand13: Sequence[int], melds: Sequence[Meld]) -> int:
        """The unseen tiles that would win a 海底捞 (a win on one of the final draws) for
        ``hand13``: every legal self-drawn win by the analysis's own rules (opened, no
        must-kong tile held; a big hand, so the pair is free where the profile frees it
        and any number of laizi may stand in), the minimum score aside, which a big hand
        always passes."""
        return sum(t.unseen[w[0]] for w in wait_summary(hand13, melds, t, "last_tile"))

    @staticmethod
    def my_final_draws(t: SeatReading) -> int:
        """The final draws this seat makes after its end-phase discard: they begin with
        the next seat, one each in turn, ``final_draws`` of them (at most the live wall)."""
        return min(t.rules.final_draws, t.wall) // 4

    def haidi_after(self, t: SeatReading, hand: Sequence[int], melds: Sequence[Meld],
                    discards: Iterable[int]) -> dict[int, int]:
        """For each of ``discards``, :meth:`haidi_live` of ``hand`` without it (0 for
        every one when this seat makes no final draw)."""
        draws = self.my_final_draws(t)
        out: dict[int, int] = {}
        for d in discards:
            rest = list(hand)
            rest.remove(d)
            out[d] = self.haidi_live(t, rest, melds) if draws else 0
        return out

    def haidi_chances(self, t: SeatReading) -> dict[int, int]:
        """:meth:`haidi_after` each discard of this end-phase turn."""
        return self.haidi_after(t, t.hand, t.melds, discard_choices(t))

    def end_phase_discard(self, t: SeatReading, ev: Evaluator) -> Action | None:
        """The end-phase discard (海底, RULES §16): the one that keeps the most unseen
        tiles winning a 海底捞 (the shape-speed order among equals); ``None`` when no
        discard keeps any, and the turn's usual discard goes (a shanten of the usual
        kind means nothing now: one draw is left)."""
        worth = {d: self.haidi_worth(t, d, n) for d, n in self.haidi_chances(t).items()}
        best = max(worth.values(), default=0.0)
        if best == 0:
            return None
        tied = [d for d, n in worth.items() if n == best]
        return Discard(min(tied, key=lambda d: (tile_shape_rank(d, t.counts), d)))

    def haidi_worth(self, t: SeatReading, tile: int, live: int) -> float:
        """What the ``live`` unseen tiles that win a 海底捞 after discarding ``tile`` are
        worth, counted in winning tiles: greedy counts every one alike; the expert counts
        each by the big hands it makes (:attr:`ExpertBot.haidi_bases`)."""
        return float(live)

    def end_phase_claim(self, t: SeatReading, choice: Action) -> Action:
        """In the end phase a chi or peng is worth making only if, after its best
        discard, the hand wins a 海底捞 on more unseen tiles than it does now: there is
        no later draw to build with, and an opening raises what this seat pays when
        another wins.  Of several claims, the one that adds most; none where this seat
        makes no final draw (``final_draws`` below four: the draws end before its turn)."""
        if not isinstance(choice, (Chi, Peng)):
            return choice
        now = self.haidi_live(t, t.hand, t.melds) if self.my_final_draws(t) else 0
        best: tuple[int, Action] = (now, PASS)
        for a in t.actions:
            res = after_claim(t, a) if isinstance(a, (Chi, Peng)) else None
            if res is None:
                continue
            hand, melds = res
            live = self.haidi_after(t, hand, melds, claim_discards(t, hand))
            n = max(live.values(), default=0)
            if n > best[0]:
                best = (n, a)
        return best[1]

    def best_discard_shanten(self, ev: Evaluator, t: SeatReading) -> int:
        return min((live_shanten(ev, t, d, self.live_waits) for d in discard_choices(t)),
                   default=99)

    def pick_discard(self, t: SeatReading, ev: Evaluator) -> Action | None:
        choices = discard_choices(t)
        if not choices:
            return None
        scored = [(live_shanten(ev, t, d, self.live_waits), d) for d in choices]
        best = min(s for s, _ in scored)
        tied = [d for s, d in scored if s == best]
        if len(tied) == 1:
            return Discard(tied[0])
        # ready, and no small win can pass the minimum score with the factors held now
        # (and the opening a closed hand still needs): only the big hands' winning tiles
        # are wins (a 碰碰胡 single on 7s over a small hand's kanchan on 6s)
        only_big = (best == 0 and self.legal_waits
                    and not t.small_win_possible(extra_openings=0 if t.opened else 1))
        # ready and opened: the tiles whose win could pass the minimum score first (a
        # soft small win that cannot pass is no win: the wait 2m-L of a dealer with two
        # openings in 远航, where the 6p that makes 567p with the laizi as itself wins)
        by_legal = best == 0 and self.legal_waits and self.soft_waits and t.opened
        small_ok = small_wins_ok(t) if by_legal else None
        evs = {d: ev.with_tile(d, -1) for d in tied}
        accs = {d: step_acceptance(evs[d], t, best, self.live_waits) for d in tied}
        if best == 1 and self.live_waits and self.live_steps:
            # a step from ready, the tiles that make it ready on a live wait
            # (ready_acceptance), never more than the plain count: asked from the most
            # plain tiles down, only while the plain count could still reach the best so far
            floor = -1
            for d in sorted(tied, key=lambda x: -accs[x]):
                if accs[d] < floor:
                    break
                if evs[d].shanten_after(-1, 0) == 1:  # not a dead ready hand (revived above)
                    accs[d] = ready_acceptance(evs[d], t)
                floor = max(floor, accs[d])
        keyed = []
        for d in tied:
            ev13 = evs[d]
            acc = accs[d]
            # as many winning tiles either way: the one whose wins pay more (a 清一色碰碰胡
            # shanpon over a 清一色 single on as many tiles), before the acceptance (which
            # counts a second laizi drawn to a small hand, no win) and the tile's shape
            if by_legal:
                legal, big = ready_wins(_without(t.hand, d), t.melds, t, small_ok)
                big = big if self.big_ties else 0
            else:
                legal, big = (live_wins(ev13, t, small=False) if only_big else 0), 0
            keyed.append((-legal, -big, -acc, tile_shape_rank(d, t.counts), d))
        keyed.sort()
        return Discard(keyed[0][4])

    # ------------------------------------------------------------------ claims
    def peng_over_kong_claim(self, t: SeatReading) -> bool:
        """Whether a ready hand offered a peng and a 冲杠 of the same discard should make
        the peng: the kong leaves the hand ready and would be made against passing
        (:meth:`kong_keeps_value`), but its waits fall short of those the peng keeps
        after its best ready discard (:meth:`peng_wins`).  The fourth tile held beside
        the pung may be what makes the wide wait (5555m 4m: 45m after the peng, a lone 4m
        after the kong); the kong's ×2 raises the win and what this seat pays alike, and
        its replacement is one draw."""
        if not self.peng_over_kong:
            return False
        kong = next((a for a in t.actions if isinstance(a, Kong)), None)
        if kong is None or not any(isinstance(a, Peng) for a in t.actions):
            return False
        res = after_claim(t, kong)
        if res is None or live_shanten(evaluator(res[0], res[1], t), t) != 0:
            return False
        return (self.kong_keeps_value(t, res[0], res[1], 0)
                and not self.kong_keeps_value(t, res[0], res[1], 0, peng=True))

    def peng_wins(self, t: SeatReading) -> float:
        """The best ready discard after the peng of the tile on the table: its unseen
        winning tiles (:func:`live_wins`) times the factor the peng adds within the caps
        (:meth:`capped_gain`: its opening in 口口翻, nothing in 开口翻 once opened); 0 if
        no peng is offered or none leaves the hand ready."""
        need = 0 if t.opened else 1
        best = 0.0
        for _, melds, ev13 in peng_ready_hands(t):
            small = t.small_win_possible(extra_openings=need, melds=melds)
            wins = live_wins(ev13, t, small)
            big = wins == live_wins(ev13, t, small=False)
            best = max(best, wins * self.capped_gain(t, 10 if big else 1, need, melds=melds))
        return best

    def short_of_minimum(self, t: SeatReading) -> bool:
        """Whether a small hand's claim that keeps its shanten is worth its opening for the
        minimum score: no small win passes it with the factors held now, and one more
        opening raises them (:func:`opening_adds_factor`)."""
        return not t.small_win_possible() and opening_adds_factor(t)

    def claim(self, t: SeatReading) -> Action:
        acts = t.actions
        claims = [a for a in acts if isinstance(a, (Peng, Chi, Kong))]
        if not claims:
            return PASS
        ev = evaluator(t.hand, t.melds, t)
        cur, target = (self.shanten_key(ev, t=t) if self.big_target
                       else (float(live_shanten(ev, t, live=self.live_waits)), ev.best()[1]))
        eager = ((not t.opened and cur < self.eager_below)
                 or (target == "small" and self.short_of_minimum(t)))
        # ready, but no winning tile gives a win that passes the minimum score (a small
        # hand short of it, no big hand among its waits): a claim that keeps the hand
        # ready with such wins is worth making at equal shanten (a peng that makes a
        # 碰碰胡 of a small hand that could not be won, in 开口翻 where the opening adds
        # nothing), and such wins rank the claims; with some such wins, a claim that
        # keeps it ready with twice as many (:attr:`wider_claims`)
        ready = self.legal_waits and live_shanten(ev, t) == 0
        wins_now = (live_wins(ev, t, t.small_win_possible(extra_openings=0 if t.opened else 1))
                    if ready else 0)
        no_win = ready and wins_now == 0
        small_claimed = ready and t.small_win_possible(extra_openings=1)  # the claim opens
        # ready, and some claim keeps it ready with at least as many winning tiles, more
        # of them big hands (base 10): the chi whose fourth claimed meld makes the single
        # 5p wait a 全求人, the peng that makes a shanpon 碰碰胡
        big_now = big_wins(list(t.hand), t.melds, t) if ready else 0
        # among the claims worth making: the closest hand, kongs first, then (for a hand
        # with no win now) the most winning tiles that pass the minimum score, then the
        # most tiles accepted after the best discard (chi 345m or 567m on a 5m: the one
        # whose wait is alive), then a peng before a chi
        best: tuple[tuple[float, int, int, int, int, int], Action] | None = None
        peng_first = self.peng_over_kong_claim(t)  # the peng's wait beats the kong's
        for a in claims:
            res = after_claim(t, a)
            if res is None:
                continue
            hand, melds = res
            ev2 = evaluator(hand, melds, t)
            after: float
            keyed: list[tuple[float, int]] = []  # (closeness after discarding d, d)
            if isinstance(a, Kong):
                after = (self.shanten_key(ev2, t=t)[0] if self.big_target
                         else live_shanten(ev2, t, live=self.live_waits))
            else:
                keyed = [(self.shanten_key(ev2, d, t)[0] if self.big_target
                          else float(live_shanten(ev2, t, d, self.live_waits)), d)
                         for d in claim_discards(t, hand)]
                after = min((k for k, _ in keyed), default=99.0)
            legal = big = 0
            if ready and not isinstance(a, Kong):
                kept = [d for _, d in keyed if live_shanten(ev2, t, d) == 0]
                if no_win or (self.wider_claims and wins_now):
                    wins_after = max((live_wins(ev2.with_tile(d, -1), t, small_claimed)
                                      for d in kept), default=0)
                    legal = wins_after if no_win or wins_after >= 2 * wins_now else 0
                big = max((big_wins(_without(hand, d), melds, t) for d in kept), default=0)
                if big <= big_now or big < wins_now:
                    big = 0  # no more big-hand wins, or fewer winning tiles in all
            ok = after < cur or (after == cur and (
                eager or legal > 0 or big > 0
                or (isinstance(a, Peng) and peng_first)
                or (isinstance(a, Kong) and not peng_first
                    and self.kong_keeps_value(t, hand, melds, int(after)))
                or (self.eager_peng and isinstance(a, Peng) and not t.opened)))
            if not ok or (peng_first and isinstance(a, Kong)):
                continue
            if isinstance(a, Kong):
                # a closed hand that this 冲杠 leaves closed still needs its opening
                closed = (self.direct_opens and not t.opened
                          and not t.rules.direct_kong_opens)
                key = (after + (1 if closed else 0), 0, 0, 0, 0, 0)
            else:
                acc = best_acceptance(ev2, t, (d for k, d in keyed if k == after),
                                      live=self.live_waits)
                key = (after, 1, -legal, -big, -acc, 1 if isinstance(a, Peng) else 2)
            if best is None or key < best[0]:
                best = (key, a)
        choice = best[1] if best is not None else PASS
        return self.end_phase_claim(t, choice) if t.end_phase and self.haidi else choice
