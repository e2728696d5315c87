"""What a bot believes about each opponent: is he ready, on what, and what would a
deal-in cost (防守).

Everything comes from the seat view (:class:`~wuhan_mahjong.bots.seat_reading.SeatReading`):

* **Can he win on a discard at all?**  Not before he has opened (开口), and a
  small hand (小胡) only if it could pass the minimum score with his factors and
  the discarder's (``scoring.minimum_failure``, the one place the rule lives).
  One tile beside four claimed melds can only win as 全求人, a big hand that passes
  any minimum score: he is ready, and only the kinds that may pair his tile (a 2/5/8,
  unless his melds make 碰碰胡, 清一色 or 风一色) win (:meth:`OpponentModel.quanqiuren`).
* **Suit focus**, read from his melds and his discards: all melds in one suit
  and few discards of it (清一色), all melds 2/5/8 (将一色), all melds pungs
  (碰碰胡), all honours (风一色).  The more melds and the fewer discards that
  contradict the read, the stronger it is.
* **His waits**, by one of two readings (``waits``).  ``shapes``: the ready shapes he
  could hold, counted over the tiles this seat has not seen (runs missing a tile, pairs,
  2/5/8 singles; :meth:`OpponentModel._shape_waits`), nothing sampled.  ``sampled``:
  determinisations of his concealed tiles drawn from the tiles this seat has not seen,
  weighted by kind so that they agree with what he showed (the kinds of his focus weigh
  more, every other kind less, and kinds he has discarded less: a player keeps what he
  needs); each sample that is ready (the table-driven wait masks of
  :mod:`wuhan_mahjong.shape`, only the shapes he can still win with) votes for its
  waits.  The shape reading ranks the tiles that deal in far better (docs/bots-log.md).
* **Readiness**: a prior from his number of melds (开口 count) and the stage of
  the hand, raised by a strong suit read late in the hand.

:meth:`OpponentModel.risk` gives, for a candidate discard, the chance of dealing
in and its expected cost in points: the deal-in payment (the ×2 / ×1.5 deal-in
factor, both multipliers, the minimum score and the caps), and the contract
(承包) payments where the profile makes the feeder pay for everybody (feeding
the third meld of a one-suit hand, or the tile of a 全求人).

Sampling is bounded by work (``samples`` determinisations per opponent) and uses
the caller's seeded RNG: the same view gives the same beliefs.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .. import shape
from ..rules import Rules
from ..scoring import (
    CONTRACT_OPENING,
    HARD_WIN_FACTOR,
    cap_amounts,
    loser_caps,
    minimum_failure,
    quanqiuren_liable,
    win_way_factor,
)
from ..tiles import NUM_KINDS, is_258, is_honour, is_suited, suit_of
from .seat_reading import SeatReading

SMALL_HARD_MEAN = (1 + HARD_WIN_FACTOR) / 2
"""An opponent's 硬胡 factor on a small win, as the model prices it: hard half the time
(his concealed laizi do not show), so the mean of ×1 and ×2."""

_READY_BY_MELDS = (0.03, 0.10, 0.25, 0.50, 0.90)
WAIT_READINGS = ("sampled", "shapes", "fitted")
"""The ways :class:`OpponentModel` reads the waits (its ``waits``)."""
# The weights of the shape reading (:meth:`OpponentModel._shape_waits`), per combination of
# unseen tiles, a 两面 weighing 1.  Chosen on tuning seed 69 (``yuanhang`` and
# ``laizishanzhuang``, 352 and 386 of the expert's decisions with a tile that deals in and
# one that does not) for the share of (dealing, safe) pairs of one decision ranked right
# (AUC): 0.62 / 0.59 with the first weights (坎张 0.6, 对倒 0.8, 单钓 0.4, a thrown kind's
# wait 0.35), 0.70 / 0.69 with these.  The 2/5/8 single dominates: a small hand's pair must
# be 2/5/8, and a laizi held beside four sets pairs with any of them.
_KANCHAN = 1.0
_PAIR = 4.0
_SINGLE = 20.0
_THROWN_WAIT = 0.2
#: How much likelier a 全求人's lone tile is of his family (风一色, 将一色) than of another
#: kind, per unseen copy: he kept it over everything else he drew.
_FAMILY_KEPT = 4.0
#: how much likelier his lone tile is a laizi than a plain tile, per unseen copy (a
#: laizi pairs with any 将, but in greedy self-play no 全求人 was seen holding a lone
#: laizi, 0 of 85: no more likely than any unseen tile; 4.0 measured worse, the
#: twenty-fifth hunt)
_LAIZI_KEPT = 1.0
_NON258 = sum(7 << (3 * t) for t in range(NUM_KINDS) if not is_258(t))
_SUITED = (1 << 81) - 1
_HONOUR_MASK = sum(1 << x for x in range(27, NUM_KINDS))
_JYS_MASK = sum(1 << x for x in range(27) if is_258(x))


#: The logistic fit of :func:`ready_chance` (intercept; two, three, four melds; stage;
#: stage with two or more melds; suit-read strength × stage; no small hand and no read).
#: Four melds without a 全求人 (a concealed kong among them) were too rare to fit: as three.
_READY_FIT = (-4.119, 1.734, 2.754, 2.754, 7.363, -2.122, -2.106, -6.757)


def ready_chance(melds: int, stage: float, strength: float, may_win_small_or_read: bool) -> float:
    """P(an opened opponent could win on a discard now), fitted to greedy self-play
    (tuning seed 120: 21,548 opponent positions of the three profiles; shape ready, with a
    big-hand target or a small hand that passes the minimum score).  On other deals (seed
    121) it is calibrated within a few points in every tenth, where the hand-set prior
    said about half the true chance (0.08 against 0.15 with one meld, 0.45 against 0.64
    with three).  ``stage`` is the share of the wall drawn (0 to 1).

    >>> round(ready_chance(1, 0.3, 0.0, True), 2), round(ready_chance(3, 0.7, 0.0, True), 2)
    (0.13, 0.91)
    """
    a, b2, b3, b4, c_stage, c_open, c_read, c_none = _READY_FIT
    z = (a + (b2 if melds == 2 else b3 if melds == 3 else b4 if melds >= 4 else 0.0)
         + c_stage * stage + (c_open * stage if melds >= 2 else 0.0) + c_read * strength * stage
         + (0.0 if may_win_small_or_read else c_none))
    return min(0.95, 1.0 / (1.0 + math.exp(-z)))


DANGER_FEATURES = ("bias", "readiness (logit of ready_chance)", "shape reading (log)",
                   "he threw the kind", "copies unseen (quarters)", "honour", "his suit read",
                   "2/5/8", "share of his discards in the kind's suit",
                   "of his last four discards, in the kind's suit", "he threw a neighbour")
"""The inputs of the fitted danger reading (:func:`danger_features`), in order."""

#: The logistic fits of P(he may win on the kind) per profile, on :data:`DANGER_FEATURES`
#: (``bench/bots_danger_fit.py``: greedy self-play of tuning seed 135, 150 deals, labels
#: from the engine, checked on seed 136; docs/bots-log.md).  ``bianfeng`` (a minimum score
#: as in ``yuanhang``) reads with ``yuanhang``'s fit.
_DANGER_FIT: dict[str, tuple[float, ...]] = {
    "yuanhang": (-0.610, 0.625, 0.980, -0.282, -0.226, -0.151, -0.326, 0.219, 0.115, 0.223,
                 0.218),
    "laizishanzhuang": (-0.645, 0.449, 1.006, 0.045, -0.198, -0.152, -0.287, 0.208, 0.258,
                        0.252, 0.184),
}


def danger_features(ready_logit: float, shape_wait: float, discards: Sequence[int],
                    unseen: int, tile: int, suit_read: float) -> tuple[float, ...]:
    """The inputs (:data:`DANGER_FEATURES`) of the fitted danger reading for one opponent
    and one tile kind: his readiness (:func:`ready_chance`, as a logit), the shape
    reading's weight of the kind (its waits, each at most 1), his discards (in order),
    the copies this seat has not seen, and the read of his suit if the kind fits it."""
    suit = suit_of(tile)
    in_suit = sum(1 for x in discards if suit_of(x) == suit)
    recent = sum(1 for x in discards[-4:] if suit_of(x) == suit)
    neighbour = is_suited(tile) and any(is_suited(x) and suit_of(x) == suit
                                        and abs(x - tile) == 1 for x in discards)
    return (1.0, ready_logit, math.log(shape_wait + 0.01), 1.0 if tile in discards else 0.0,
            unseen / 4.0, 1.0 if is_honour(tile) else 0.0, suit_read,
            1.0 if is_258(tile) else 0.0, in_suit / (len(discards) + 1), recent / 4.0,
            1.0 if neighbour else 0.0)


def danger_chance(fit: tuple[float, ...], x: tuple[float, ...]) -> float:
    """The logistic ``fit`` at the inputs ``x``."""
    z = sum(c * v for c, v in zip(fit, x, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@dataclass
class Read:
    """One opponent, as this seat reads him."""

    seat: int
    can_win: bool  # opened: a win on a discard is possible at all
    small_ok: bool  # a small hand of his could pass the minimum score on my discard
    focus: str | None  # "qys0".."qys2", "jys", "fys", "pph" (a big-hand read), or None
    strength: float  # 0..1, how sure the focus read is
    p_ready: float
    waits: list[float]  # P(tile kind completes his hand | he is ready)
    contract_suit_feed: bool  # a fitting discard may be claimed as his third meld (承包)
    #: his readiness for a rob (抢杠): as ``p_ready``, but a robbed kong is a big hand, so
    #: a small hand that could not pass the minimum score robs all the same
    p_rob: float = 0.0
    #: the kinds a win of his on my discard can complete at all (``None``: every kind);
    #: see :meth:`OpponentModel.big_kinds`
    discard_kinds: frozenset[int] | None = None

    def fits(self, tile: int) -> bool:
        """Whether ``tile`` belongs to his focus (the tiles he collects)."""
        return focus_fits(self.focus, tile)


def focus_fits(focus: str | None, tile: int) -> bool:
    """Whether ``tile`` belongs to a big-hand read ``focus`` ("qys0".."qys2": that suit;
    "jys": a 2/5/8; "fys": an honour; "pph" or None: nothing in particular)."""
    if focus is None:
        return False
    if focus.startswith("qys"):
        return tile < 27 and tile // 9 == int(focus[3])
    if focus == "jys":
        return is_258(tile)
    if focus == "fys":
        return is_honour(tile)
    return False


def check_wait_reading(waits: str) -> None:
    """``ValueError`` unless ``waits`` is one of :data:`WAIT_READINGS`."""
    if waits not in WAIT_READINGS:
        raise ValueError(f"waits must be one of {', '.join(WAIT_READINGS)}, not {waits!r}")


class OpponentModel:
    """Reads of every opponent of ``t.me`` (see the module docstring)."""

    def __init__(self, t: SeatReading, rng: random.Random, samples: int = 48,
                 waits: str = "sampled", ready_fit: bool = False,
                 let_go: bool = True, rob_ready: bool = True,
                 own_discard: bool = True, family_reads: bool = True,
                 soft_passes: bool = True, passes_then: bool = True,
                 big_only: bool = True, laizi_lone: bool = False,
                 settled_later: bool = False, claim_odds: bool = False) -> None:
        check_wait_reading(waits)
        self.claim_odds = claim_odds
        """Price the chance that a fitting discard is claimed as a one-suit seat's third
        meld (承包, :meth:`risk`) by :meth:`claim_chance`, the chance that his concealed
        tiles hold a pair of it (a peng) or, from the next seat, both other tiles of a
        run through it (a chi), rather than a quarter per unseen copy (plus 0.3 for a
        chi): beside two 万 chis across the table, a 9m with one copy unseen (no peng, no
        chi) read as fed by half and cost the expert its ready hand in ``bianfeng`` (the
        thirty-first hunt).  Off by default in this class; the expert turns it on
        (``ExpertBot.claim_odds``)."""
        self.settled_later = settled_later
        """Price what this seat would pay anyway, had ``o`` not won on its discard, by the
        settlement (:meth:`later_ratio`: his self-draw and his win on another seat's
        discard, with the caps, 金顶 and 光明顶) rather than at the fixed ratio of the
        typical shares (``PLAIN_SHARE / DEAL_IN_SHARE``).  The two agree for a small hand
        under the caps; beside a big hand (放冲 and 自摸 ×1.5, not ×2) or one at the caps
        the fixed ratio overprices the deal-in (the twenty-seventh hunt).  Off by default
        in this class; the expert turns it on in ``laizishanzhuang``
        (``ExpertBot.settled_later``), where it was measured."""
        self._later_ratios: dict[tuple[int, bool, float], float] = {}
        self.laizi_lone = laizi_lone
        """Read a 全求人's lone tile as possibly a laizi while a laizi is unseen
        (:meth:`_quanqiuren_waits`): it pairs with any kind his melds allow as his 将,
        one with every copy in sight too (a laizi stands for a fifth copy), so no such
        kind reads as safe from him; off, his waits are the kinds whose copies he might
        hold alone, and a 2/5/8 with no copy unseen read as no wait of his, as before
        6 December 2026.  On in the expert and the search bot (``ExpertBot.laizi_lone``),
        off by default in this class: an older test of it (``test_bots_defence.py``,
        ``test_a_lone_tile_beside_four_melds_waits_for_a_258_pair``) reads the waits of a
        table whose laizi are unseen and asks that they sum to one, "exactly one kind
        pairs his tile", which a lone laizi does not keep."""
        self.big_only = big_only
        """Where his small win cannot pass the minimum score on my discard (``small_ok``
        false), read only the kinds a big hand his melds still allow could win on
        (:meth:`big_kinds`) as his waits on my discard (:meth:`risk`); off, every kind
        keeps the shape reading's weight (the other kinds weighed down by a suit read, not
        out), as before 6 December 2026.  His waits for a rob (:meth:`rob_risk`) keep
        every kind: 抢杠 is a big hand whatever the shape."""
        self.passes_then = passes_then
        """With ``let_go``, judge a pass by the factors of the seats when he made it: a
        claim since (a seat's opening) may lift a small win of his that the minimum score
        refused then over it now, on this seat's discard too, so such a pass tells nothing
        (:meth:`_pass_tells`); off, by the factors now, and a pass on this seat's discard
        always tells, as before 6 December 2026."""
        self.soft_passes = soft_passes
        """With ``let_go``, trust a pass on another seat's discard only where every small
        win of his that would pass the minimum score on my discard, soft (a laizi standing
        in) or hard, would have passed on that one (:meth:`_pass_tells`); off, only the
        hard win is compared, as before 6 December 2026."""
        self.family_reads = family_reads
        """Read 将一色 rather than 清一色 where his melds are of one suit and all 2/5/8 and
        his discards make 将一色 the stronger read (:meth:`focus`); off, always the suit,
        as before 6 December 2026."""
        self.own_discard = own_discard
        """With ``let_go``, take his own last discard out of his waits too where he made
        it after a draw (:meth:`SeatReading.discard_after_draw`): a win on it would have
        been his self-draw."""
        self.rob_ready = rob_ready
        """Read a seat's chance of robbing a kong with his readiness whatever the minimum
        score says (``Read.p_rob``: 抢杠 is a big hand); off, with the readiness of a win on
        a discard, which counts a seat whose small hand cannot pass the minimum at 0.3 of
        it (as before 6 December 2026)."""
        self.let_go = let_go
        """Take out of an opponent's waits the kinds he let go by since his last discard
        (:meth:`_let_go_kinds`)."""
        self.t = t
        self.rng = rng
        self.samples = samples
        self.wait_model = waits
        self.ready_fit = ready_fit
        self.work = 0  # determinisations drawn (the budget is samples per opponent)
        self.reads: dict[int, Read] = {}
        for o in range(4):
            if o != t.me:
                self.reads[o] = self._read(o)

    # ------------------------------------------------------------------ reads
    def focus(self, o: int) -> tuple[str | None, float]:
        """His big-hand read from melds and discards: (target, strength 0..1)."""
        ps = self.t.seats[o]
        melds = ps.melds
        n = len(melds)
        if n == 0:
            return None, 0.0
        tiles = [x for m in melds for x in m.tiles]
        disc = ps.discards
        base = {1: 0.25, 2: 0.6, 3: 0.85}.get(n, 0.95)
        suits = {x // 9 for x in tiles}
        if len(suits) == 1 and min(tiles) < 27:
            s = tiles[0] // 9
            off = sum(1 for x in disc if x < 27 and x // 9 == s) / max(4, len(disc))
            flush = max(0.0, base * (1.0 - 2.5 * off))
            if self.family_reads and all(is_258(x) for x in tiles):
                # 222m 555m 888m is a 清一色 or a 将一色: the tiles he threw tell which
                # (one who throws 1m 3m 4m 6m keeps the 2/5/8 of every suit)
                off = sum(1 for x in disc if is_258(x)) / max(4, len(disc))
                jiang = max(0.0, base * (1.0 - 2.5 * off))
                if jiang > flush:
                    return "jys", jiang
            return f"qys{s}", flush
        if all(is_honour(x) for x in tiles):
            off = sum(1 for x in disc if is_honour(x)) / max(4, len(disc))
            return "fys", max(0.0, base * (1.0 - 2.5 * off))
        if all(is_258(x) for x in tiles):
            off = sum(1 for x in disc if is_258(x)) / max(4, len(disc))
            return "jys", max(0.0, base * (1.0 - 2.5 * off))
        if n >= 2 and all(m.is_pung for m in melds):
            return "pph", base * 0.6
        return None, 0.0

    def _weights(self, o: int, focus: str | None, strength: float) -> list[float]:
        """Relative weight of each tile kind in his concealed hand."""
        t = self.t
        disc = set(self.t.seats[o].discards)
        w = [1.0] * NUM_KINDS
        hi = 1.0 + 7.0 * strength
        lo = 1.0 - 0.9 * strength
        for x in range(NUM_KINDS):
            if focus is not None and focus != "pph" and x != t.laizi:
                w[x] = hi if focus_fits(focus, x) else lo
            if x in disc:
                w[x] *= 0.35
        return w

    def _sample(self, pool: list[int], weights: list[float], n: int) -> list[int]:
        """``n`` tiles of ``pool`` without replacement, by weight (Efraimidis-Spirakis)."""
        rnd = self.rng.random
        keyed = sorted(((math.log(rnd() or 1e-300) / weights[x], i) for i, x in enumerate(pool)),
                       reverse=True)
        return [pool[i] for _, i in keyed[:n]]

    def _read(self, o: int) -> Read:
        t = self.t
        ps = t.seats[o]
        focus, strength = self.focus(o)
        can_win = ps.openings > 0
        small_ok = can_win and self._small_ok(o)
        if not can_win:
            return Read(o, False, False, focus, strength, 0.0, [0.0] * NUM_KINDS, False)
        m = min(4, len(ps.melds) + ps.hidden_kongs)
        stage = 1.0 - t.wall / 84.0
        lone = self.quanqiuren(o)
        if lone:
            p_ready = p_rob = 0.95  # his lone tile waits for its pair, a big hand's win
        elif self.ready_fit:
            p_ready = self._fitted_ready(o, focus, strength, small_ok)
            p_rob = p_ready if small_ok else self._fitted_ready(o, focus, strength, True)
        else:
            p_ready = p_rob = min(0.95, _READY_BY_MELDS[m] * (0.5 + stage)
                                  * (1.0 + 0.5 * strength * stage))
            if not small_ok and focus is None:
                p_ready *= 0.3  # only a big hand he does not show could win
        passed = self._let_go_kinds(o, small_ok) if self.let_go else frozenset()
        if lone:
            waits = self._quanqiuren_waits(o, passed)
        elif self.wait_model == "fitted":
            # the fit gives P(he may win on the kind) itself; the readiness is the calibrated
            # one, and a kind's wait is its chance over that readiness
            p_ready = self._fitted_ready(o, focus, strength, small_ok)
            fit = _DANGER_FIT[t.rules.profile if t.rules.profile in _DANGER_FIT else "yuanhang"]
            waits = [0.0 if x is None else min(1.0, danger_chance(fit, x) / p_ready)
                     for x in self.danger_inputs(o, focus, strength, small_ok)]
        elif self.wait_model == "shapes":
            waits = self._shape_waits(o, focus, strength, small_ok)
        else:
            waits = (self._sampled_waits(o, focus, strength, small_ok) if p_ready >= 0.05
                     else self._prior_waits(o, focus, small_ok))
        if passed:  # let_go: a kind he let go by cannot win now
            waits = [0.0 if k in passed else w for k, w in enumerate(waits)]
        feed = (focus is not None and focus != "pph" and ps.openings == CONTRACT_OPENING - 1
                and _contract_name(focus) in t.rules.one_suit_contract_hands)
        kinds = self.big_kinds(o) if self.big_only and not small_ok and not lone else None
        return Read(o, True, small_ok, focus, strength, p_ready, waits, feed, p_rob, kinds)

    def big_kinds(self, o: int) -> frozenset[int]:
        """The kinds a big hand of ``o`` could still win on, by his melds: 清一色 (his
        melds all of one suit: that suit), 碰碰胡 (all pungs or kongs: any kind), 将一色
        (all 2/5/8: the 2/5/8), 风一色 (all honours: the honours).  On a discard no other
        big hand is open to a seat holding more than one tile (全求人 is read apart;
        杠上花 and 海底捞 are self-drawn, 抢杠 is a rob), so where his small win cannot
        pass the minimum score on my discard, no other kind can win for him on it: a
        seat opened by 123p 456p 999p in ``bianfeng`` wins on no 5m.  A kong he holds
        concealed only narrows these (it is one more meld), so reading the shown melds
        alone never takes out a kind that could win."""
        t = self.t
        melds = t.seats[o].melds
        tiles = [x for m in melds for x in m.tiles]
        kinds: set[int] = set()
        if not tiles:
            return frozenset(range(NUM_KINDS))
        if all(m.is_pung for m in melds):
            kinds.update(range(NUM_KINDS))
        suits = {suit_of(x) for x in tiles}
        if len(suits) == 1 and is_suited(tiles[0]):
            kinds.update(x for x in range(27) if suit_of(x) == suit_of(tiles[0]))
        for family in ("jys", "fys"):
            if all(focus_fits(family, x) for x in tiles):
                kinds.update(x for x in range(NUM_KINDS) if focus_fits(family, x))
        return frozenset(kinds)

    def _fitted_ready(self, o: int, focus: str | None, strength: float,
                      small_ok: bool) -> float:
        """His chance of being ready by the fit to self-play (:func:`ready_chance`)."""
        ps = self.t.seats[o]
        return ready_chance(min(4, len(ps.melds) + ps.hidden_kongs), 1.0 - self.t.wall / 84.0,
                            strength, small_ok or focus is not None)

    def danger_inputs(self, o: int, focus: str | None, strength: float,
                      small_ok: bool) -> list[tuple[float, ...] | None]:
        """The fitted reading's inputs (:func:`danger_features`) for each kind ``o`` could
        win on (``None`` for the laizi and the must-kong kinds, which he cannot)."""
        t = self.t
        ps = t.seats[o]
        p = self._fitted_ready(o, focus, strength, small_ok)
        z = math.log(p / (1.0 - p))
        shape = self._shape_waits(o, focus, strength, small_ok)
        must = set(t.must)
        return [None if x == t.laizi or x in must else
                danger_features(z, shape[x], ps.discards, t.unseen[x], x,
                                strength if focus_fits(focus, x) else 0.0)
                for x in range(NUM_KINDS)]

    def quanqiuren(self, o: int) -> bool:
        """Whether ``o`` holds one tile beside four claimed melds: a win on a discard can
        only be 全求人, a big hand, which passes any minimum score (RULES §11: his pair is
        2/5/8 unless the hand is also 碰碰胡, 清一色, 风一色 or 将一色)."""
        ps = self.t.seats[o]
        return ps.concealed == 1 and ps.hidden_kongs == 0 and len(ps.melds) == 4

    def _quanqiuren_waits(self, o: int, passed: frozenset[int] = frozenset()) -> list[float]:
        """P(a kind completes his hand | he is ready) when he holds one tile beside four
        claimed melds.  He wins as 全求人 by pairing his lone tile: with a 2/5/8 (any kind
        if his melds are all pungs; his suit if they are all of one suit).  If his melds
        are all honours or all 2/5/8 and his lone tile is of that family too, any tile of
        the family completes 风一色 / 将一色 (乱风, 乱将: no pair needed; RULES §10), dead
        kinds included: he needs no copy of it in hand.  His lone tile is one of the unseen
        copies, those of kinds he threw counted less, those of his family more (he kept
        it).  His lone tile may be a laizi while one is unseen (:attr:`laizi_lone`, each
        unseen laizi weighed ``_LAIZI_KEPT``): it pairs with every kind he may pair,
        one whose four copies are all in sight too, so that share is added to each.
        Unless he let one of those kinds go by since his last discard (``passed``, with
        :attr:`let_go`): a lone laizi would have won on it (a big hand, whatever the
        minimum score), so his lone tile is no laizi."""
        t = self.t
        ps = t.seats[o]
        meld_tiles = [x for m in ps.melds for x in m.tiles]
        pungs = all(m.is_pung for m in ps.melds)
        suits = {x // 9 for x in meld_tiles}
        one_suit = next(iter(suits)) if len(suits) == 1 and meld_tiles[0] < 27 else None
        family: str | None = None
        if all(is_honour(x) for x in meld_tiles):
            family = "fys"
        elif all(is_258(x) for x in meld_tiles):
            family = "jys"
        thrown = set(ps.discards)
        must = set(t.must)
        lone = [0.0] * NUM_KINDS  # relative chance that his lone tile is of each kind
        pairable = [False] * NUM_KINDS  # the kinds he may win on by pairing his lone tile
        for x in range(NUM_KINDS):
            if x == t.laizi or x in must:
                continue
            in_family = focus_fits(family, x)
            if not (pungs or is_258(x) or in_family
                    or (one_suit is not None and x < 27 and x // 9 == one_suit)):
                continue
            pairable[x] = True
            lone[x] = (t.unseen[x] * (_THROWN_WAIT if x in thrown else 1.0)
                       * (_FAMILY_KEPT if in_family else 1.0))
        # his lone tile a laizi (laizi_lone): it pairs with any kind he may pair, dead too
        wild = (t.unseen[t.laizi] * _LAIZI_KEPT
                if self.laizi_lone and not any(pairable[k] for k in passed) else 0.0)
        total = sum(lone) + wild
        if total <= 0:
            return lone
        p_wild = wild / total
        waits = [w / total + (p_wild if pairable[x] else 0.0) for x, w in enumerate(lone)]
        if family is not None:
            p_family = sum(w for x, w in enumerate(lone) if focus_fits(family, x)) / total
            p_family += p_wild
            waits = [p_family if focus_fits(family, x) and x != t.laizi and x not in must
                     else w for x, w in enumerate(waits)]
        return [min(1.0, w) for w in waits]

    def _let_go_kinds(self, o: int, small_ok: bool) -> frozenset[int]:
        """The kinds ``o`` let go by since his last discard, taken out of his waits: his
        hand has not changed since, so a kind he did not win on cannot win now (players
        take their wins; RULES §15: no furiten).  A pass says so only where a win on that
        discard was as open to him as on mine: with a minimum score, a small hand that
        could pass it on my discard but not on the earlier discarder's tells nothing."""
        offered = (self.t.offered_since_discard_claims(o) if self.passes_then
                   else [(s, k, (0, 0, 0, 0)) for s, k in self.t.offered_since_discard(o)])
        passed = {k for s, k, after in offered
                  if not small_ok or self._pass_tells(o, s, after)}
        # his own last discard, made after a draw: a win on it would have been a
        # self-draw, which passes the minimum score wherever a win on my discard would
        # (自摸 doubles every loser's share, 放冲 the discarder's alone) -- but for 全求人,
        # a big hand only on a discard: his self-drawn pair may be a small hand short of
        # the minimum, and he throws one of the pair and waits on the other
        own = self.t.discard_after_draw(o) if self.own_discard else None
        if own is not None and not self.quanqiuren(o):
            passed.add(own)
        return frozenset(passed)

    def _pass_tells(self, o: int, discarder: int, after: tuple[int, ...] = (0, 0, 0, 0)
                    ) -> bool:
        """Whether ``o``'s pass on ``discarder``'s discard tells that the kind does not
        complete his hand for a win on mine: every small win of his that would pass the
        minimum score on my discard, soft or hard (硬胡 ×2 is the one factor of his that
        does not show), would have passed on that one too.  With ``soft_passes`` off, only
        the hard win (:meth:`_small_ok`).  A soft win may fall short on a seat whose
        factors are lower than mine and pass on mine: in ``bianfeng`` a seat opened once,
        holding 67m 234s 8s and the laizi 8p, passed seat 3's 8m (his soft win, 16 at
        most from a loser, short of 20) and wins on this seat's, whose laizi kong and
        dealership lift it to 32.  ``after`` counts the claims each seat made from that
        discard on (:attr:`passes_then`): where his hard small win was refused with the
        factors of that time (each claimer's openings since taken off) and passes on my
        discard now, the pass tells nothing, on my own discard too.  In ``yuanhang`` seat
        1, opened twice, could not win a small hand on seat 2's 3p while the dealer was
        closed (16 at most from a loser); the dealer's peng since lifts it to 32 on this
        seat's 3p.  (The soft win is compared by the factors now, as before: with the
        factors then, a pass made before any claim would tell nothing wherever a soft win
        is short, the last claims' own discards among them.)"""
        if any(after) and not (self._small_ok(o, discarder, True, after)
                               or not self._small_ok(o, None, True)):
            return False
        if discarder == self.t.me:
            return True
        if not self.soft_passes:
            return self._small_ok(o, discarder)
        return all(self._small_ok(o, discarder, hard) or not self._small_ok(o, None, hard)
                   for hard in (False, True))

    def _small_ok(self, o: int, discarder: int | None = None, hard: bool = True,
                  after: tuple[int, ...] = (0, 0, 0, 0)) -> bool:
        """Could a small hand of ``o`` pass the minimum score if ``discarder`` (this
        seat unless given) dealt in (a hard win unless ``hard`` is false, his factors
        now, deal-in ×2 on the discarder's share)?  With ``after``, each seat's factors
        before the claims it made since (:meth:`SeatReading.multiplier_before`)."""
        t = self.t
        if not (t.rules.min_score_one_loser or t.rules.min_score_every_loser):
            return True
        if discarder is None:
            discarder = t.me
        mw = t.multiplier(o, big=False) * (HARD_WIN_FACTOR if hard else 1)
        amounts = []
        for s in range(4):
            if s == o:
                continue
            m = t.multiplier_before(s, after[s]) if after[s] else t.multiplier(s, big=False)
            if s == discarder:
                m *= 2
            amounts.append(Fraction(mw * m))
        return minimum_failure(amounts, t.rules) is None

    def _sampled_waits(self, o: int, focus: str | None, strength: float,
                       small_ok: bool) -> list[float]:
        t = self.t
        ps = t.seats[o]
        pool = [x for x in range(NUM_KINDS) for _ in range(t.unseen[x])]
        n = ps.concealed
        if n > len(pool) or n == 0:
            return [0.0] * NUM_KINDS
        weights = self._weights(o, focus, strength)
        laizi = t.laizi
        must = set(t.must)
        melds = ps.melds
        pungs = all(m.is_pung for m in melds)
        meld_tiles = [x for m in melds for x in m.tiles]
        honours = all(is_honour(x) for x in meld_tiles)
        j258 = all(is_258(x) for x in meld_tiles)
        suits = {x // 9 for x in meld_tiles}
        hits = [0.0] * NUM_KINDS
        ready = 0
        draws = self.samples if n <= 7 else max(1, self.samples // 2)
        for _ in range(draws):
            self.work += 1
            hand = self._sample(pool, weights, n)
            if must.intersection(hand):
                continue
            wilds = 0
            h = 0
            for x in hand:
                if x == laizi:
                    wilds += 1
                else:
                    h += 1 << (3 * x)
            mask = shape.wait_mask(h, wilds, shape.PAIR258) if small_ok else 0
            if len(suits) <= 1 and not (suits & {3}):
                hs = {x // 9 for x in hand if x != laizi} | suits
                if len(hs) == 1 and next(iter(hs)) < 3:
                    mask |= shape.wait_mask(h, wilds, shape.PAIR)
            if pungs:
                mask |= shape.wait_mask(h, wilds, shape.PPAIR)
            if honours and not (h & _SUITED):
                mask |= _HONOUR_MASK & ~sum(1 << x for x in must)
            if j258 and not (h & _NON258):
                mask |= _JYS_MASK
            mask &= ~(1 << laizi)  # a discarded laizi is never won on
            if not mask:
                continue
            ready += 1
            x = 0
            while mask:
                if mask & 1:
                    hits[x] += 1
                mask >>= 1
                x += 1
        if ready >= 3:
            return [h / ready for h in hits]
        return self._prior_waits(o, focus, small_ok)

    def _shape_waits(self, o: int, focus: str | None, strength: float,
                     small_ok: bool) -> list[float]:
        """P(a tile kind completes his hand | he is ready), by counting the ready shapes he
        could hold with the tiles this seat has not seen (no sampling: the same reading
        every time).  A wait is a run missing one tile (两面, 坎张, 边张: the product of the
        unseen copies of its two tiles), a pair to make a triplet (对倒: pairs of the
        unseen copies, beside a 2/5/8 pair for a small hand) or a single tile to pair
        (单钓: only 2/5/8 for a small hand).  Kinds he discarded count less in his hand
        (he let them go), and a kind he discarded himself is waited on less (had he
        been waiting on it, he would have won on it instead).  A suit read weighs the
        shapes of his focus up."""
        t = self.t
        u = t.unseen
        laizi = t.laizi
        must = set(t.must)
        ps = t.seats[o]
        thrown = [0] * NUM_KINDS
        for x in ps.discards:
            thrown[x] += 1
        # the unseen copies he may hold, discounted for the kinds he let go
        h = [0.0 if x == laizi or x in must else u[x] * (0.5 if thrown[x] else 1.0)
             for x in range(NUM_KINDS)]
        melds = ps.melds
        pungs_only = bool(melds) and all(m.is_pung for m in melds)
        single = ps.concealed == 1  # 全求人: one tile held, waiting to pair it
        score = [0.0] * NUM_KINDS
        for x in range(NUM_KINDS):
            if x == laizi or x in must:
                continue
            if single:
                if not small_ok or is_258(x) or pungs_only:
                    score[x] = h[x] * (_THROWN_WAIT if thrown[x] else 1.0)
                continue
            w = 0.0
            if x < 27 and not (focus == "pph" and strength >= 0.5):
                r = x % 9
                if r >= 2:
                    w += h[x - 2] * h[x - 1]  # 两面 (or 边张 12 for a 3)
                if r <= 6:
                    w += h[x + 1] * h[x + 2]  # 两面 (or 边张 89 for a 7)
                if 1 <= r <= 7:
                    w += _KANCHAN * h[x - 1] * h[x + 1]  # 坎张
            pairs = h[x] * max(0.0, h[x] - 1) / 2
            w += _PAIR * pairs * (1.0 if not small_ok else 0.7)  # 对倒 beside a 2/5/8 pair
            if not small_ok or is_258(x) or pungs_only:
                w += _SINGLE * h[x]  # 单钓 (a small hand's pair is 2/5/8), or a laizi's pair
            if thrown[x]:
                w *= _THROWN_WAIT
            score[x] = w
        if focus is not None and focus != "pph":
            hi, lo = 1.0 + 4.0 * strength, 1.0 - 0.9 * strength
            score = [w * (hi if focus_fits(focus, x) else lo) for x, w in enumerate(score)]
        total = sum(score)
        if total <= 0:
            return self._family_waits(o, focus, strength, self._prior_waits(o, focus, small_ok))
        # a ready hand usually waits on about two kinds: scale so that the kinds sum to 2
        return self._family_waits(o, focus, strength,
                                  [min(1.0, 2.0 * w / total) for w in score])

    def _family_waits(self, o: int, focus: str | None, strength: float,
                      waits: list[float]) -> list[float]:
        """``waits`` raised for a 风一色 or 将一色 read.  These need no sets (乱风, 乱将;
        RULES §10, Project decision 10): a ready family hand holds nothing but the
        family, so every unseen kind of it completes the hand, not the two or so a shape
        waits on.  The read's strength is the chance that his ready hand is that one.
        Only a read of two melds or more (strength 0.5 and up, as for the deal-in cost of
        a big hand): beside one honour pung, his ready hand would need ten concealed
        honours, and one 东 pung is no 风一色."""
        if focus not in ("fys", "jys") or strength < 0.5:
            return waits
        t = self.t
        must = set(t.must)
        # every kind of the family, dead ones too: he needs no copy of it in hand
        return [max(w, strength) if focus_fits(focus, x) and x != t.laizi
                and x not in must else w for x, w in enumerate(waits)]

    def _prior_waits(self, o: int, focus: str | None, small_ok: bool) -> list[float]:
        """Waits when too few samples were ready: middle tiles and 2/5/8 more likely,
        his own discards less, his focus more."""
        t = self.t
        disc = set(t.seats[o].discards)
        res = []
        for x in range(NUM_KINDS):
            if x == t.laizi:
                res.append(0.0)
                continue
            if is_honour(x):
                p = 0.04 * t.unseen[x] if t.unseen[x] >= 2 else 0.01
            else:
                r = x % 9
                p = 0.06 if r in (0, 8) else (0.08 if r in (1, 7) else 0.10)
                if is_258(x):
                    p *= 1.2
            if focus is not None and focus != "pph":
                p = p * 2.5 if focus_fits(focus, x) else (p * 0.3 if small_ok else 0.0)
            if x in disc:
                p *= 0.4
            res.append(min(1.0, p))
        return res

    # ------------------------------------------------------------------ risk
    def threat(self) -> float:
        """The largest readiness among opponents who can win."""
        return max((r.p_ready for r in self.reads.values() if r.can_win), default=0.0)

    def big_win_on(self, o: int, tile: int) -> bool:
        """Whether ``o``'s win on ``tile`` is read as a big hand: the tile fits a strong
        family or one-suit read of his, or he holds one tile beside four melds (全求人)."""
        r = self.reads[o]
        return (r.fits(tile) and r.strength >= 0.5) or self.quanqiuren(o)

    def deal_in_cost(self, o: int, tile: int) -> float:
        """What this seat pays if ``o`` wins on its discard ``tile``: the payment his
        visible factors and mine give (a hard win half the time, the deal-in factor,
        the minimum score, the caps), and at least the typical deal-in payment of the
        profile (wins usually come with more factors than are visible yet; a big hand
        usually reaches the cap)."""
        t = self.t
        big = self.big_win_on(o, tile)
        mine = float(t.multiplier(t.me, big=big, dealt_in=True))  # 放冲 included
        # a big hand's value is the cap's, below
        his = float(t.multiplier(o, big=big)) * (1.0 if big else float(SMALL_HARD_MEAN))
        pay = (10 if big else 1) * mine * his
        rules = t.rules
        cap = self.deal_in_cap(o, tile)
        if big:  # a big hand usually comes near the cap (none without one)
            floor = BIG_DEAL_IN_CAPS * cap if cap < math.inf else 0.0
        else:
            floor = DEAL_IN_SHARE * typical_win(rules)
        pay = max(pay, float(rules.min_score_one_loser or 0), floor)
        return min(pay, cap)

    def deal_in_cap(self, o: int, tile: int) -> float:
        """The most this seat pays if ``o`` wins on its ``tile``: the cap (封顶) of the hand
        he is read to win with, a big hand's where the caps count in hand bases; infinity
        without a cap."""
        return _cap(self.t.rules, 10 if self.big_win_on(o, tile) else 1) or math.inf

    def risk(self, tile: int, my_shanten: int,
             anyway: float | None = None) -> tuple[float, float, float]:
        """(P(discarding ``tile`` deals in), expected deal-in cost, expected contract
        cost) in points for this seat.  The deal-in cost is the payment less the share
        this seat would pay anyway if he won later (with chance ``anyway``; by default
        one rising with the stage of the hand); the contract (承包) cost is what it pays
        for the other losers where the profile makes the feeder pay for all."""
        t = self.t
        rules = t.rules
        p_total = 0.0
        cost = 0.0
        contract = 0.0
        if tile == t.laizi:
            return 0.0, 0.0, 0.0  # a discarded laizi is never won on
        stage = 1.0 - t.wall / 84.0
        for o, r in self.reads.items():
            if not r.can_win:
                continue
            if r.discard_kinds is not None and tile not in r.discard_kinds:
                continue  # no win of his on my discard could complete it
            p = r.p_ready * r.waits[tile]
            pay = self.deal_in_cost(o, tile)
            # had he not won on this tile he would often win later anyway, and this
            # seat would pay its plain share (no deal-in factor)
            later = 0.35 + 0.4 * stage if anyway is None else anyway
            p_total += p
            ratio = (self.later_ratio(o, tile, pay) if self.settled_later
                     else PLAIN_SHARE / DEAL_IN_SHARE)
            cost += p * max(0.0, pay - later * pay * ratio)
            if self.quanqiuren(o) and quanqiuren_liable(
                    rules, tile, lambda: my_shanten == 0 and t.ready_after(tile)):
                contract += p * 2.0 * pay  # the other two shares as well
            if r.contract_suit_feed and r.fits(tile):
                can_chi = r.focus is not None and r.focus.startswith("qys") and (t.me + 1) % 4 == o
                if self.claim_odds:
                    p_claim = self.claim_chance(o, r, tile, can_chi) * r.strength
                else:
                    p_claim = min(1.0, 0.25 * t.unseen[tile] + (0.3 if can_chi else 0.0)) * r.strength
                contract += p_claim * 0.4 * 3.0 * self.deal_in_cost(o, tile)
        return min(1.0, p_total), cost, contract

    def claim_chance(self, o: int, r: Read, tile: int, can_chi: bool) -> float:
        """The chance that ``o`` can claim ``tile`` from this seat (:attr:`claim_odds`): his
        concealed tiles hold two of its unseen copies (a peng), or, with ``can_chi``, at
        least one copy of each other tile of a run through it (a chi; a laizi never
        claims).  His concealed tiles are drawn from the unseen tiles of his focus (all of
        them, if he collects nothing in particular): the most a collector of that suit
        could hold of it, so the chance is generous, never a quarter per copy.

        A peng needs two unseen copies: with one, no claim but a chi is possible."""
        t = self.t
        n = t.seats[o].concealed
        pool = sum(t.unseen[k] for k in range(NUM_KINDS) if r.fits(k)) or t.unseen_total
        pool = max(pool, n, 1)

        def none_of(u: int) -> float:  # P(his n tiles of the pool hold no copy of u)
            return math.comb(pool - u, n) / math.comb(pool, n) if pool - u >= n else 0.0

        u = t.unseen[tile]
        # P(at least two of the u copies): 1 - P(none) - P(exactly one)
        one = u * math.comb(pool - u, n - 1) / math.comb(pool, n) if n >= 1 and pool - u >= n - 1 else 0.0
        p = max(0.0, 1.0 - none_of(u) - one) if u >= 2 else 0.0
        if can_chi and is_suited(tile):
            miss = 1.0
            for lo in range(tile - 2, tile + 1):
                if lo < 0 or suit_of(lo) != suit_of(tile) or suit_of(lo + 2) != suit_of(tile):
                    continue
                if t.laizi in (lo, lo + 1, lo + 2):
                    continue
                a, b = (k for k in (lo, lo + 1, lo + 2) if k != tile)
                miss *= 1.0 - (1.0 - none_of(t.unseen[a])) * (1.0 - none_of(t.unseen[b]))
            p += 1.0 - miss
        return min(1.0, p)

    def later_ratio(self, o: int, tile: int, pay: float) -> float:
        """What this seat would pay if ``o`` won another way (his self-draw, at the share
        :data:`LATER_SELF_DRAW`, or on another seat's discard), over what it pays on its
        own discard ``tile``, each by the settlement's factors as the table stands (his
        hard win half the time, as :meth:`deal_in_cost`), raised alike to the deal-in
        price ``pay`` where that is floored (factors not visible yet are his, and
        multiply every loser's share), then through the caps step
        (:func:`wuhan_mahjong.scoring.cap_amounts`: 封顶, 金顶, 光明顶).  A small hand
        under the caps gives the fixed ratio (a self-draw costs what the deal-in costs,
        another seat's discard half); a big hand more (×1.5 for 放冲 and 自摸 alike:
        0.75), and a hand at the caps up to 1 or more (金顶 and 光明顶 on his self-draw:
        a closed seat pays 400 on its deal-in, 600 on his self-draw in
        ``laizishanzhuang``)."""
        big = self.big_win_on(o, tile)
        key = (o, big, pay)
        hit = self._later_ratios.get(key)
        if hit is None:
            hit = self._later_ratios[key] = self._settled_ratio(o, big, pay)
        return hit

    def _settled_ratio(self, o: int, big: bool, pay: float) -> float:
        """:meth:`later_ratio` for a hand of his read as big or not (memoised there: the
        table does not change within a reading)."""
        t = self.t
        rules = t.rules
        base = 10 if big else 1
        mw = Fraction(base) * t.multiplier(o, big=big) * (1 if big else SMALL_HARD_MEAN)
        f = win_way_factor(big)  # 自摸 on every loser
        losers = [s for s in range(4) if s != o]
        never = {s: t.seats[s].openings == 0 for s in losers}
        raw = mw * t.multiplier(t.me, big=big, dealt_in=True)
        if 0 < raw < pay:
            mw *= Fraction(pay) / raw

        def mine(self_draw: bool, discarder: int | None) -> float:
            raws = {s: mw * t.multiplier(s, big=big, dealt_in=s == discarder)
                    * (f if self_draw else 1) for s in losers}
            return float(cap_amounts(raws, never, rules, base)[t.me][0])

        dealt = mine(False, t.me)
        if dealt <= 0:
            return PLAIN_SHARE / DEAL_IN_SHARE
        others = [s for s in losers if s != t.me]
        elsewhere = sum(mine(False, d) for d in others) / max(1, len(others))
        return (LATER_SELF_DRAW * mine(True, None)
                + (1.0 - LATER_SELF_DRAW) * elsewhere) / dealt

    def rob_risk(self, tile: int) -> tuple[float, float]:
        """(P(an added kong of ``tile`` is robbed), its expected cost in points).  A
        robbed kong is a big hand (抢杠), so the minimum score never stops it (each seat's
        readiness is ``Read.p_rob``, with :attr:`rob_ready`), and the konger pays all
        three shares (杠进杠出, or as the robbed contractor: RULES §17.11), each at most
        the contract cap; a big hand usually comes near it.  The konger holds
        all four copies, so no pair waits on the tile: a run may, and a ready 风一色 or
        将一色 wins on any tile of its family (乱风, 乱将), so an honour is robbed only by
        a 风一色 read."""
        miss = 1.0
        for r in self.reads.values():
            if r.can_win and (tile < 27 or r.focus == "fys"):
                miss *= 1.0 - (r.p_rob if self.rob_ready else r.p_ready) * r.waits[tile]
        p = 1.0 - miss
        contract_cap = float(loser_caps(self.t.rules, 10)[1])
        return p, p * 3.0 * BIG_DEAL_IN_CAPS * contract_cap


#: The winner's mean gain per win in greedy self-play (``bench``-style measurement:
#: 100 wins per profile, seed 99), and what the discarder and each other loser paid
#: of it on average (0.47-0.54 and 0.29): wins come with more factors than a seat
#: shows before them, so these floor the bots' estimates.
TYPICAL_WIN = {"yuanhang": 440.0, "bianfeng": 295.0, "laizishanzhuang": 440.0}
DEAL_IN_SHARE = 0.47
#: a big hand (base 10) usually reaches the cap: what its discarder pays, in caps
BIG_DEAL_IN_CAPS = 0.9
PLAIN_SHARE = 0.29
#: the share of an opponent's later wins (had he not won on my discard) that are his
#: self-draws, for :meth:`OpponentModel.later_ratio`: the one the fixed ratio
#: ``PLAIN_SHARE / DEAL_IN_SHARE`` implies for a small hand (s + (1 - s) / 2 = 0.62)
LATER_SELF_DRAW = 2.0 * PLAIN_SHARE / DEAL_IN_SHARE - 1.0


def _cap(rules: Rules, base: int = 1) -> float:
    """What one loser pays at most for a hand of ``base`` (封顶, by the opening mode and
    ``cap_unit``: :func:`wuhan_mahjong.scoring.loser_caps`; 0: no cap)."""
    return float(loser_caps(rules, base)[0])


def typical_win(rules: Rules) -> float:
    """The typical winner's gain under ``rules`` (1.45 caps for an unmeasured profile)."""
    return TYPICAL_WIN.get(rules.profile, 1.45 * _cap(rules))


def _contract_name(focus: str) -> str:
    if focus.startswith("qys"):
        return "qingyise"
    return {"jys": "jiangyise", "fys": "fengyise"}.get(focus, focus)
