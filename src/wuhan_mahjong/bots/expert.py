"""``expert``: greedy's speed, plus the value of its waits, and the opponents' waits read for defence.

The expert starts from the greedy ordering (shanten over every target shape,
then tile acceptance) and changes it where it can price the difference.

*The core* (every profile).  Big hands first at equal shanten: a big hand has
base 10 against 1 and usually reaches the cap, so among the discards at the
best shanten one that keeps a big-hand target at that shanten is played
(``big_target``; the same key decides whether a claim brings the hand
closer), ranked by the tiles that bring any route at that distance closer, big
or small (``aim_union``, ``aim_small``), the last tie going to the discard whose
routes within a step stay closest (``near_targets``).  No idle claims while far
and closed: an unopened hand makes claims that do not bring it closer only
below shanten 2 (``eager_below``); far from ready the opening would come
anyway, and it doubles what the seat pays when it loses.  Both were found on
the greedy chassis and measured in the arena.

*Per profile* (:data:`PROFILE_SETTINGS`): what follows is switched off where
the arena measured that it does not pay (in ``laizishanzhuang``, all of it but
the free laizi kong).

*Laizi.*  It keeps its single laizi as a wild.  Greedy kongs it when a small
hand could not pass the minimum score with the factors held now (×4 in
``yuanhang`` / ``bianfeng``); measured in the arena, the wild's speed is worth
more than the factor (docs/bots-log.md, ablations), and the minimum score is more
often met through openings and 红中 kongs made anyway.  But where the kong costs
no step (the thirteen tiles left are as close as the best discard keeping the
wild, ``free_laizi_kong``, in every profile), it kongs: the factor, a hard
hand and the replacement draw then come for nothing.  It also keeps a second
laizi while the hand is building (a small hand may not *win* holding two, but
both build faster) and kongs one once the hand is ready, so the replacement
draw may win as 杠上花; near the end of the wall it kongs extras at once.

*Two-step acceptance.*  Among the few best discards by (shanten, acceptance)
it plays the one with the most two-step paths: Σ over the tiles that improve
the hand of their unseen copies × the best acceptance after that draw.  The
search is bounded by a work budget (``lookahead_work`` acceptance
evaluations), not by time, so decisions do not depend on the machine's load.

*Value and the minimum score.*  When a discard leaves the hand ready, every
wait is scored with the real settlement (:func:`wuhan_mahjong.scoring.settle`)
from what the view shows: this seat's hand and factors, every other seat's
public factors (openings, kongs, special kongs, 丢癞子, dealer).  A wait that
could not pass the minimum score counts for nothing; a wait that makes 清一色,
碰碰胡, 将一色, 风一色 or 全求人 counts its big-hand base.  The bot plays the
discard with the best expected winnings per draw (unseen copies × value),
instead of the most tiles.  Further from ready, a discard that keeps a
big-hand target (one suit, all pungs, 2/5/8, honours) as close as the small
hand gets a premium on its acceptance.

*The opponents' waits and contracting (承包).*  For each opened opponent (an
unopened hand cannot win) the bot estimates which tiles he waits on, from the ready
shapes he could hold with the tiles it has not seen (the other hands and the wall are
one multiset from this seat's point of view; ``waits="shapes"``, the default), or
from samples of his concealed tiles that are ready (``waits="sampled"``, the table-driven
wait masks of :mod:`wuhan_mahjong.shape`), weighted by a readiness prior from his
exposed melds and the stage of the hand.  That prices the deal-ins of the push-or-fold
layer and the liabilities: feeding the third meld of a hand that shows two melds
of one suit (or 2/5/8 / honours where the profile contracts those), and dealing
into a 全求人.  A discard that feeds such a contract is swapped for one as fast that does
not, whoever reads as ready (:meth:`ExpertBot.contract_tie`).

*Push or fold* (:meth:`ExpertBot.defend`, on by default).  While some opened opponent
reads as ready with a chance of at least ``threat_min``, the core's discard is weighed
against every safer one by expected value: the win each keeps (its chance and value,
never rated faster than the core's choice) against the expected deal-in and contract
cost, for a saving of at least ``min_saving`` points.  In this game all three losers
pay and dealing in only doubles one's own share, so folding for its own sake loses
points (the older ``deal_in_weight`` and ``fold`` terms, off by default, measured
that); the layer folds only where the saving is priced higher than the speed.  In
``laizishanzhuang`` it keeps the core's speed (``defence_speed`` 1) unless the hand
will hardly win (``fold_floor``), the safer tile avoids a contract
(``contract_swaps``), or a hand a step from ready keeps three quarters of its tiles
with it (``near_swaps``).

*Claims* follow greedy (a claim must not slow the hand); a claim that gives no
speed is passed while an opponent looks ready (its only effect would be a
higher multiplier to pay with).

The ``sampled`` reading draws from an RNG
seeded from the bot's seed and a digest of the view (less its wall commitment), so a
decision is a pure function of (seed, public view).
``samples`` and ``lookahead_work`` bound the work, so a decision is the same on
a quiet and on a starved machine.  ``time_cap_ms`` (default ``None``: no cap)
is an optional wall-clock safety net for a server that must answer within a
think time: when set, a decision that runs past it plays the best choice found
so far and the bot counts the event in ``cap_hits`` (such a decision may then
depend on the machine's load; the arena and the tests never set it).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction

from .. import shape
from ..analysis import NotAWin, candidate_mask, is_winning_shape, waits
from ..engine.actions import PASS, WIN, Action, Chi, Discard, Kong, Peng, SpecialKong
from ..engine.views import SeatView
from ..meld import Meld, opening_count
from ..rules import Rules
from ..scoring import loser_caps, settle
from ..tiles import GREEN, NUM_KINDS, RED, is_258, is_honour
from ..win_record import SeatState, WinRecord
from .base import NoLegalAction
from .greedy import (
    GreedyBot,
    after_claim,
    best_acceptance,
    claim_discards,
    discard_choices,
    evaluator,
    kong_result,
    live_shanten,
    opening_adds_factor,
    peng_ready_hands,
    ready_acceptance,
    revive_acceptance,
    tile_shape_rank,
    wait_summary,
)
from .handeval import Evaluator
from .opponents import PLAIN_SHARE, OpponentModel, check_wait_reading, typical_win
from .seat_reading import SeatReading
from .view import IntView

#: tiles that bring a hand one step closer, typically, by its shanten (ready: its waits)
_TYPICAL_ACCEPTANCE = (6, 18, 30, 40)

_WIN_FIT = (-2.9549, -2.743, 0.796, 0.7239, 1.0048)
"""Logistic P(win) of :meth:`ExpertBot.win_chance_fit`: intercept, shanten, log(1 +
acceptance), own turns left / 10, and shanten × turns / 10.  Fitted by maximum likelihood
on 7,643 of the shipped expert's discards against three greedy seats (tuning seeds 54
``yuanhang`` and 55 ``bianfeng``, 150 deals each; docs/bots-log.md): log loss 0.553 against
the gamma model's 0.637."""


#: The expected deal-in and contract cost, in points, below which the opponent model's
#: reading makes a tile all but safe (:meth:`ExpertBot.safe_tie`)
SAFE_COST = 0.1

#: In the end phase, the chance that an opponent not won on by this seat's last discard
#: wins anyway: one final draw (about a tenth of the unseen tiles win for a ready hand)
END_PHASE_ANYWAY = 0.1


def _loser_cap(rules: Rules) -> float:
    """What one loser pays at most for a small hand (封顶 by the profile's opening mode and
    ``cap_unit``, :func:`wuhan_mahjong.scoring.loser_caps`; none: infinity)."""
    return float(loser_caps(rules, 1)[0]) or math.inf


_DEFAULTS: dict[str, float | bool] = {
    "use_value": True, "contract_weight": 1.0, "claim_filter": True, "lookahead": True,
    "keep_two_laizi": True, "defence": True, "defence_speed": 0.0, "free_laizi_kong": True,
    "threat_openings": False, "bloom_later": True, "step_margin": 4.0}

#: Settings the arena measured per profile (docs/bots-log.md, ablations).  In
#: ``laizishanzhuang`` (laizi kong ×2, no minimum score, caps reached by half the
#: money) the laizi handling, the two-step search, the value of waits, the claim
#: filter and the contract term each measured no edge over the core (big hands
#: first at equal shanten, no idle claims while far and closed), and every
#: deviation from that core adds variance; so they are off there.  Its push-or-fold
#: layer only makes free swaps there (``defence_speed`` 1: a safer tile as fast as the
#: core's): there every opened seat can win on any discard (no minimum score), a
#: deal-in costs this seat what his self-draw would (×2 on its share either way), and
#: swaps that gave up acceptance lost 3.5 to 11 points per hand on tuning seeds 31-35
#: without lowering the deal-in rate (docs/bots-log.md, tuning after the search release).
#: The free laizi kong (``free_laizi_kong``) stays on there: it costs no step, and it
#: measured even (+0.4 points per hand, tuning seed 154).
PROFILE_SETTINGS: dict[str, dict[str, float | bool]] = {
    "laizishanzhuang": {"keep_two_laizi": False, "lookahead": False, "use_value": False,
                        "claim_filter": False, "contract_weight": 0.0, "defence_speed": 1.0,
                        "bloom_later": False},
    "bianfeng": {"step_margin": 0.5},
}


class ExpertBot(GreedyBot):
    """See the module docstring."""

    name = "expert"
    #: greedy's claims by the wins that pass the minimum score and by big-hand wins
    #: (:meth:`GreedyBot.claim`) are off: the expert prices an opened, ready hand's
    #: claims by the value of its waits (:meth:`ready_claim`), and ranks its ready
    #: discards by that value too
    legal_waits = False

    def __init__(self, seed: int | None = None, *, samples: int = 48, time_cap_ms: float | None = None,
                 fold: bool = False, value: bool | None = None, deal_in_weight: float = 0.0,
                 contract_weight: float | None = None, laizi_for_minimum: bool = False,
                 claim_equal: float = 0.0, claim_filter: bool | None = None,
                 lookahead: bool | None = None, hold_must: int = 0,
                 kong_max_shanten: int = 99, keep_two_laizi: bool | None = None,
                 lookahead_work: int = 300, big_target: float = 0.5,
                 eager_below: int = 2, defence: bool | None = None, min_saving: float = 2.0,
                 fold_keep: float = 0.5, threat_min: float = 0.25,
                 defence_targets: bool = True, defence_speed: float | None = None,
                 claim_odds: bool = True,
                 free_laizi_kong: bool | None = None, laizi_ev: bool = False,
                 laizi_short_step: float = 1.0, laizi_loss: float = 1.0,
                 laizi_ev_shanten: int = 99, win_fit: bool = False,
                 swap_slack: float = -1.0, swap_gain: float = 1.0,
                 swap_value: float = 0.9, waits: str = "shapes", closed_step: int = 1,
                 claim_ev: int = 0, rob_max: float = 30.0, ready_fit: bool = False,
                 eager_peng: bool = False, fold_floor: float = 0.02, peng_over_kong: bool = True,
                 wider_ready_claims: bool = True, wider_plain_waits: bool = True,
                 let_go: bool = True, contract_swaps: bool = True, haidi: bool = True,
                 haidi_bases: bool = True, step_margin: float | None = None,
                 ready_claims: bool = True, ready_value_ratio: float = 2.0,
                 aim_union: bool = True, aim_small: bool = True,
                 near_targets: bool = True, live_waits: bool = True,
                 kong_value: bool = True, ready_big: bool = True, safe_ties: float = 0.5,
                 early_ties: bool = True, ready_ties: bool = False,
                 hopeless_holds: bool = True, minimum_step: bool = True,
                 contract_ties: bool = True, rob_ready: bool = True,
                 threat_kongs: bool = True, own_discard: bool = True,
                 family_reads: bool = True, soft_passes: bool = True,
                 passes_then: bool = True, big_only: bool = True,
                 laizi_lone: bool = True,
                 capped_kongs: bool = True, live_steps: bool = True,
                 bloom_first: float = 1.5, bloom_later: bool | None = None,
                 bloom_source: bool = True,
                 threat_pi_kongs: bool = True,
                 direct_opens: bool = True, ready_bases: bool = True,
                 threat_claims: bool = True, threat_openings: bool | None = None,
                 threat_laizi_kongs: bool = True, refused_ready: bool = True,
                 big_at_typical: bool = True, excess_wild_kongs: bool = True,
                 capped_quanqiuren: bool = True,
                 threat_must_kongs: int = 24, near_swaps: float = 0.75,
                 settled_later: bool = True, settled_everywhere: bool = False,
                 closed_minimum: bool = True, cost_gate: bool = False,
                 contract_gate: bool = False,
                 step_floor: float = 0.0, idle_wild_kongs: bool = True,
                 fold_fit: bool = False) -> None:
        super().__init__(seed)
        self.idle_wild_kongs = bool(idle_wild_kongs)
        """Hold back the kong of an extra laizi (癞子杠 of one of two or more) that adds
        nothing (:meth:`idle_wild_kong`): a big hand (which may win holding every wild) is
        as close as any target, the kong leaves the hand short of ready (its replacement
        draw cannot win), and the kong's factor adds nothing to any big win within the
        caps (金顶 either way).  The kong then only trades a wild for a random tile and
        doubles what this seat pays meanwhile; a small win still needs a laizi konged (or
        thrown) later, with the same factor.  Opened (111p) with two 红中 and two 发财
        kongs in ``laizishanzhuang``, holding 2p 35p 79p 66p 4s 8s and two laizi, every
        bot konged one where the 4s keeps both wilds a step from 清一色 at 500 a loser
        (the thirty-fifth hunt).  Off: as before 7 December 2026."""
        self.step_floor = float(step_floor)
        """A step from ready (shanten 1 after the core's discard) while the likeliest ready
        opponent is a small hand (no big-hand read) shown in three melds or more, the
        push-or-fold layer weighs no alternative below this fraction of the core's
        chance of winning (as ``defence_speed``, and ``near_swaps`` exempts none; a
        contract swap stays allowed): at 1, no swap there gives up a tile.  The
        thirty-first hunt's lead for ``bianfeng``; the thirty-fourth hunt measured it
        and found those swaps save deal-ins (docs/bots-log.md), so it is off (0)."""
        self.cost_gate = bool(cost_gate)
        """Where ``defence_speed`` keeps the push-or-fold layer to swaps that give up no
        speed (``laizishanzhuang``), weigh the core's discard whenever an opened seat may
        win on it, not only while one reads as ready with a chance of ``threat_min``: the
        layer's own expected-value test (``min_saving``) decides.  There the model reads
        an opponent's readiness at about half the truth (the thirty-third hunt's
        calibration: one-meld seats at walls 30 to 49 read 0.10, ready 0.40), so the gate
        was seldom met.  Closed, a step from ready with 234m 456m 55s 34s 78s, a 4p and an
        8m, beside the next seat's two pin chis (read ready at 0.21 to 0.25, who threw the
        8m last), the expert threw the 4p (21 tiles; he may chi it as his third pin meld,
        承包) at walls 60 and 52, though the model priced it at about 250 points against
        0.1 for the 8m (19 tiles) (tests/bots/test_bots_hunt33.py).  Off: over 1,200
        tuning deals it changed 358 deals and lowered the deal-in rate from 17.2% to
        16.9% for −1.75 [−6.98, +3.48] points a hand (docs/bots-log.md, the thirty-third
        hunt); ``contract_gate`` keeps its answer to the position."""
        self.contract_gate = bool(contract_gate)
        """As ``cost_gate``, but only for a core discard that carries at least
        ``min_saving`` points of expected contract (承包: a third meld fed to a one-suit
        seat, or a 全求人's deal-in), which this seat pays for all three losers and
        would not pay anyway, unlike a deal-in in ``laizishanzhuang``: it answers the
        position above.  Off (as before 7 December 2026): on 600 tuning deals it changed
        27 and measured −2.60 [−5.48, +0.28] points a hand, the deal-in rate 17.2%
        against 17.0% (docs/bots-log.md, the thirty-third hunt)."""
        self.closed_minimum = bool(closed_minimum)
        """A closed hand's idle claim (one that keeps its shanten) counts for the minimum
        score only if a *second* opening would raise its factors (:meth:`short_of_minimum`):
        the hand must open to win, so its wins carry the first opening's factor whichever
        claim brings it.  Greedy's test asked whether the closed hand could pass the
        minimum with no opening at all, never true in ``yuanhang`` / ``bianfeng`` without
        kongs, so ``eager_below`` hardly applied there; in ``bianfeng`` (开口翻) a closed
        hand two steps from ready chied at any distance for a factor any later claim
        gives, giving up its draw and doubling what it pays (the thirty-second hunt,
        ``tests/bots/test_bots_hunt32.py``); off: as before that hunt."""
        self.capped_quanqiuren = bool(capped_quanqiuren)
        """In :meth:`ready_claim`, weigh by its outlook (past ``ready_value_ratio``) the
        fourth claim that leaves one tile held, a 全求人 on every discard win, when it wins
        on as many tiles at a higher mean value: where this seat's factors (or the
        losers') bring its small wins near the caps, the big hand's cannot double them,
        though each discard win still gains the most.  Opened three times (111s, 南, 789p)
        with a 红中 kong and two 发财 kongs, ready on the 2m alone (678s beside it), seat 1
        with a 发财 and a laizi kong: the chi of seat 3's 6s leaves the same 2m, its
        self-drawn wins the same (656 by the settlement), its discard wins 528 to 592
        before and 1,500 (金顶) after; the expert passed in ``laizishanzhuang`` (the mean
        value of a winning tile rose 1.65 times, the self-draws counted too).  Off: as
        before 6 December 2026."""
        self.excess_wild_kongs = bool(excess_wild_kongs)
        """With ``threat_laizi_kongs``, never hold back the laizi kong (癞子杠) of a hand that
        holds more laizi than a small hand may win with (``small_hand_max_laizi``) and
        plays for a small hand: the keep line's discard leaves it "ready" in shape on
        wilds it may not win with (RULES §12), so no draw wins until a laizi is konged or
        thrown, and its shanten overstates the line (greedy's second-wild kong decides).
        Only where that discard reads as ready: a far hand's two wilds stay held beside a
        threat (``test_no_kong_of_one_of_two_wilds_of_a_far_hand_beside_ready_seats``).
        Opened once with two laizi kongs, two 红中 and two 发财 kongs (every loss of this
        seat at the cap already), holding 344m 3344s 88s and two laizi beside a seat with
        three melds read as ready, the expert threw the 4m and kept both wilds (off: as
        before 6 December 2026)."""
        self.near_swaps = float(near_swaps)
        """Where ``defence_speed`` bars the push-or-fold layer from slower tiles
        (``laizishanzhuang``), still weigh an alternative at the core's shanten, a step
        from ready or ready, that keeps at least this fraction of the core's acceptance
        (0: off, as before 6 December 2026).  Closed, a step from ready with 234m 456m
        55s 34s 78s, a 4p and an 8m, beside seat 1's three pin melds (ready at about 0.9):
        the 4p keeps 21 tiles (the 8m pairs as a second 2/5/8 pair), the 8m he threw last
        19; the expert threw the live 4p (22 points of expected deal-in by the model
        against 0.2) at walls 32 to 16 (tests/bots/test_bots_hunt26.py).  The
        weighing itself is unchanged (``min_saving``, the chance capped at the core's); the
        older positions stay barred: the safe tile keeping 11 tiles of 17
        (``test_in_laizishanzhuang_the_layer_only_makes_free_swaps``), and a far hand two
        steps away, where the first step's tiles say less of the speed and ``fold_floor``
        decides (``test_a_hand_that_will_hardly_win_folds_in_laizishanzhuang_too``)."""
        self.settled_later = bool(settled_later)
        """In ``laizishanzhuang``, price the share of a deal-in this seat would pay anyway
        by the settlement (:attr:`OpponentModel.settled_later`), not at the fixed ratio
        of the typical shares; the other profiles keep the ratio (the twenty-seventh
        hunt measured the profile alone)."""
        self.settled_everywhere = bool(settled_everywhere)
        """With :attr:`settled_later`, price that share by the settlement in every profile
        (off: ``yuanhang`` and ``bianfeng`` keep the fixed ratio; the twenty-seventh
        hunt's paired run in ``yuanhang``, docs/bots-log.md)."""
        self.threat_must_kongs = int(threat_must_kongs)
        """With ``threat_kongs``, at a live wall of at most this many tiles, weigh a 红中杠 or
        发财杠 (a must-kong tile's kong, its ``special_kong_factor`` on both sides) as a 暗杠
        is weighed (:meth:`kong_costs`): the tile cannot be thrown, but it may be held and
        konged later, once the hand is close.  Closed and two steps from ready beside two
        seats with three melds each, at a wall of 20 or 16, every bot konged a drawn 发财
        (``laizishanzhuang``) or 红中 that doubles its share of their likely win.  Earlier
        in the wall (the third hunt's guard: a far hand at 48 konges, time enough to
        build) the kong is made as before, and a hand that cannot win any more is left to
        :attr:`hopeless_holds` (0: off, as before 6 December 2026)."""
        self.bloom_source = bool(bloom_source)
        """With ``bloom_first``, value the self-drawn win in hand by where its tile came
        from, as the view now says (``replacement_draw``): 杠上花 after a kong's
        replacement draw, a plain self-draw after a draw from the wall.  Without it the
        view could not tell, and a seat that had made any kong took the larger of the two.
        Opened once with two 红中 kongs (456p 789s 55m 3s and the wild), drawing a 4s from
        the wall: the soft self-drawn win collects 64, the laizi kong's 杠上花 draw alone is
        worth about 110 (11 of 119 unseen tiles at 1,200); the expert and the search bot
        priced the win as a 杠上花 (360) and took it (off: as before 6 December 2026)."""
        self.big_at_typical = bool(big_at_typical)
        """With ``ready_big`` (the waits' value off: ``laizishanzhuang``), count a ready
        discard's big-hand win at least at what a big hand collects with the factors that
        bring this seat's small win to the typical win (:meth:`_big_at_typical`: about 4
        typical wins there, the caps applied), not 1.5 of them.  Opened by a peng of 999p,
        with 222m 555s 88p 33s 4s and one 3s in sight, the expert threw the 3s for a small
        hand on 8p/2s/5s (seven tiles, 32 self-drawn, 20 to 24 on a discard) over the
        碰碰胡 on 8p/3s (three tiles, 180 self-drawn, 140 on any discard) (off: as before 6
        December 2026)."""
        self.refused_ready = bool(refused_ready)
        """A ready discard none of whose wins passes the minimum score (its waits worth
        nothing by the settlement, :meth:`_wait_counts`) counts a step away where another
        discard keeps a big-hand target a step from ready on a live winning tile
        (:meth:`_big_steps`): the big target is then played for, as at equal shanten.
        Opened once by a chi of 123p, with 3456789p 22p 67m at a wall of 50 or 30, every
        bot threw the 9p for a small hand ready on 5m/8m that no seat pays (one opening,
        no kong: 0 from every loser in ``yuanhang`` and ``bianfeng``), where the 6m keeps
        the 清一色 (180 self-drawn, 140 on any discard) a step away on nearly every pin.
        Where every ready discard wins nothing, the one that keeps a big target a step
        away on the most tiles goes (:meth:`_big_step_tiles`): opened by a peng of 222m,
        with 555p 888s 22s 567m and two 4m in sight, the expert threw the 5m for the
        widest refused wait and put the 将一色 two steps away, where the 6m or the 7m keeps
        it a step from ready on any 2/5/8 (off: as before 6 December 2026)."""
        self.threat_laizi_kongs = bool(threat_laizi_kongs)
        """With ``threat_kongs``, weigh a laizi kong (癞子杠) as a 暗杠 is weighed
        (:meth:`kong_costs`, its factor ``laizi_kong_factor`` on both sides, the win hard
        after the last wild's kong) before any rule makes it (the free kong, the second
        wild's kong): while an opponent reads as ready, a kong that leaves the hand short
        of ready is made only if it raises the hand's expected value.  The wild is held
        (a laizi is never thrown as a plain tile; it can still be konged once the hand is
        ready).  Closed, two steps from ready beside two seats with three melds each, at a
        wall of 32 or 20, the expert made the free kong (×4 in ``yuanhang`` and
        ``bianfeng``) that quadruples its share of their win, and at a wall of 20 the
        kong of one of two wilds (off: as before 6 December 2026)."""
        self.threat_claims = bool(threat_claims)
        """While some opponent reads as ready (``threat_min``), an opened hand's chi or peng
        that adds an opening's factor (口口翻) and leaves it short of ready is made only if
        the hand's outlook with it, the factor on both sides, beats the pass
        (:meth:`claim_costs`).  In ``yuanhang``, opened once, three steps away at a wall of
        16 or 12 beside two seats with three melds each, every bot pengged a 7p for a step
        that still leaves it two short (off: as before 6 December 2026)."""
        self.ready_bases = bool(ready_bases)
        """With ``ready_big`` (the waits' value off: ``laizishanzhuang``), count a winning
        tile that makes two or more big hands (清一色碰碰胡: 10 + 10 there, big hands add) by
        what that win collects within the caps against one big hand's
        (:meth:`_big_bases`), not as one big hand.  Three pin pengs beside 22p 55p 3p: the
        3p goes for the 2p/5p shanpon (清一色碰碰胡, 20, on four tiles), where the expert
        threw the 2p for 1p/4p (清一色, 10, on five).  The push-or-fold layer values a ready
        discard alike, in every profile (:meth:`defend`): beside a seat that reads as ready
        and threw a 2p, the same hand threw the 2p in ``yuanhang``, whose waits' value had
        chosen the 3p, for two points of deal-in risk less.  Off: as before 6 December
        2026."""
        self.bloom_first = float(bloom_first)
        """Offered a self-drawn win while holding a laizi it may kong, kong it instead when
        the replacement draw's chance of 杠上花 times what that win collects is at least
        this many times what the win in hand collects, and the opponents together are
        unlikely to be ready (:meth:`bloom_instead`; 0: off, every win taken, as before 6 December 2026).  In
        ``laizishanzhuang``, opened once, a soft small win of 16 points in hand against
        eleven unseen tiles (of 121) of 杠上花 worth 180 or 360, 28 points on the next draw
        alone, the hand still ready and hard afterwards: the bots took the 16."""
        self.live_steps = bool(live_steps)
        """A step from ready, rank the discards by the tiles that make the hand ready on a
        live winning tile (:func:`wuhan_mahjong.bots.greedy.ready_acceptance`), as
        :attr:`GreedyBot.live_steps` does: 33m 4m 6m 11p 55s with both other 1p in the
        rivers threw 6m (the 2m, 3m and 5m it keeps make only the dead 1p shanpon)
        where 1p keeps 3m and 5m for live waits (off: as before 6 December 2026)."""
        self.capped_kongs = bool(capped_kongs)
        """Where greedy's count of winning tiles weighs a kong that leaves the hand ready
        (``use_value`` off: ``laizishanzhuang``; :meth:`GreedyBot.kong_keeps_waits`), count
        the kong's factor only for what it adds to the win within the caps
        (:meth:`GreedyBot.capped_gain`).  A pin flush at 金顶 whatever it wins made the 暗杠
        of 4444p that left six winning tiles, where throwing the 6p keeps ten at the same
        金顶 (off: as before 6 December 2026)."""
        self.threat_pi_kongs = bool(threat_pi_kongs)
        """With ``threat_kongs``, weigh a 癞子皮杠 (``pi_kong``: 边锋 with 口口翻, or the option
        on) as a 暗杠 is weighed (:meth:`kong_costs`, its factor ``pi_kong_factor`` on both
        sides): the indicator-kind tile may as well be thrown.  Closed and three steps from
        ready beside two seats with three melds each, every bot made the skin kong of a
        loose 北 that doubles its share of their win (off: as before 6 December 2026)."""
        self.direct_opens = bool(direct_opens)  # GreedyBot.direct_opens, per instance
        self.peng_over_kong = bool(peng_over_kong)
        """:attr:`GreedyBot.peng_over_kong`, per instance: a ready hand's 冲杠 is weighed
        against the peng of the same tile too (:meth:`GreedyBot.peng_over_kong_claim`),
        by the waits' value where that is on (:meth:`kong_keeps_value`).  555m 44m 88p
        beside two melds konged seat 2's 5m for the 4m single (one left) where the peng
        and the 4m wait on 3m/6m, eight tiles (off: as before 6 December 2026)."""
        self.wider_ready_claims = bool(wider_ready_claims)
        """In :meth:`ready_claim`, a claim that does not double the mean value of a
        winning tile (``ready_value_ratio``) is still weighed by its outlook when it keeps
        that value and at least doubles the tiles whose win is legal: acceptance was to
        decide such claims, and the expert's claim rule makes none at equal shanten.
        Opened twice, ready on the 3m alone (24m beside 567m and 55s, three 3m seen), the
        expert passed the chi of 456m that waits on 5m/8m, seven tiles, at the same value
        in ``laizishanzhuang`` and at twice it in ``yuanhang`` (where the 3m's win on the
        closed seats' discards fails the minimum score); off: as before 6 December 2026."""
        self.wider_plain_waits = bool(wider_plain_waits)
        """In :attr:`wider_ready_claims`' test, the tiles counted are the plain ones: the
        laizi's unseen copies win every such hand self-drawn, before the claim and after
        it, and counted on both sides they kept a claim that widens two plain winning
        tiles to seven from doubling the count (6 to 11 with four laizi unseen).  A
        清一色 ready on 2s/8s (one of each left) passed the chi of 234s that waits on
        3s/6s at the same value in ``bianfeng`` and ``laizishanzhuang`` (the thirtieth
        hunt, ``tests/bots/test_bots_hunt30.py``); off: as before 6 December 2026."""
        self.threat_kongs = bool(threat_kongs)
        """While some opponent reads as ready (``threat_min``), a concealed or added kong is
        made only if it raises the hand's expected value (:meth:`kong_costs`): its factor
        (暗杠 ×4, 蓄杠 ×2) joins this seat's multiplier whether it wins or pays (Project
        decision 6).  At a wall of 20, closed and three steps away beside two seats with
        three melds each, the expert made the 暗杠 that quadruples its share of their win
        for a replacement draw it will hardly win with (off: as before 6 December 2026)."""
        self.rob_ready = bool(rob_ready)
        """The opponent model reads a seat's chance of robbing an added kong with his
        readiness whatever the minimum score says (:attr:`OpponentModel.rob_ready`: 抢杠 is
        a big hand).  In 边锋, a seat whose small hand could not pass the minimum counted
        0.3 of his readiness, and a kong that the same reading skips in 赖子山庄 (no
        minimum score there) was made (off: as before 6 December 2026)."""
        self.contract_ties = bool(contract_ties)
        """Swap the core's discard (not ready after it) for one as fast that spares at least
        ``min_saving`` points of contract (承包) and of deal-in together, whoever reads as
        ready (:meth:`contract_tie`).  Where the core's ranking leaves the contract out
        (``contract_weight`` 0, ``laizishanzhuang``) it threw the 9p the next seat could
        chi as the third meld of his 123p 555p flush, beside an equally useless 1m (off: as
        before 6 December 2026)."""
        self.safe_ties = float(safe_ties)
        """Swap the core's discard for an all-but-safe one as fast when the core's costs at
        least this many points (:meth:`safe_tie`; 0: off, as before 6 December 2026).
        Beside seat 1's three pin melds, a lone 3p he threw before his last two claims and
        a lone 6p he let go by after his last discard: the 6p cannot win for him, and it
        goes (the push-or-fold layer acts only for ``min_saving``, and the 3p costs 0.7 to
        1.5 points)."""
        self.ready_ties = bool(ready_ties)
        """Make the :attr:`safe_ties` swap for a ready hand's discard too: for another
        ready discard, all but safe, whose waits are worth as much by the settlement
        (:meth:`_wait_counts`: their value, and as many unseen tiles that complete the shape
        and that win legally) (:meth:`_ready_tie`).  Ready by 3456m 456p 789s 55s 67s,
        the 3m and the 6m each leave 5s/8s; beside seat 1 opened twice, who let the 6m go
        by after his last discard, every bot threw the live 3m (the ready ranking has no
        deal-in term: ``deal_in_weight`` 0, and the tiles' shape broke the tie), in every
        profile.  Off by default: on, it changes a discard of the shipped expert in the
        real games that ``tests/bots/test_bots_safe_swap.py`` replays (tuning seed 5, deal
        4: the 3p seat 3 had just thrown instead of the live 6p, both leaving the 5m), and
        that older test then finds no swap of its own (docs/bots-log.md, the nineteenth
        hunt)."""
        self.early_ties = bool(early_ties)
        """Make the :attr:`safe_ties` swap whenever an opened seat may win on the core's
        discard, not only while one reads as ready with a chance of ``threat_min``: the swap
        gives up nothing (the same shanten and target, as many tiles), so any threat pays
        for it.  Early in the hand (a wall of 48 or 60), beside seat 1 opened twice (a peng
        of 东, a chi of 789m, two 红中 kongs) and read as ready with a chance of 0.20 to
        0.23, the expert threw a live 3p (1.4 to 2.4 points of expected deal-in) beside
        an equally useless 6p he had let go by since his last discard (off: as before 6
        December 2026, a threat of ``threat_min`` first)."""
        self.hopeless_holds = bool(hopeless_holds)
        """A hand that cannot be won any more (:meth:`hopeless`: more steps from ready than
        this seat has draws left) makes no kong of any kind and no claim: each only raises
        what it pays when another seat wins (every factor joins its own multiplier, Project
        decision 6), and there is no win for it to raise.  Late, six steps away, it keeps its
        红中 rather than doubling its share of the flush seat 1 is about to win (off: as
        before 6 December 2026)."""
        self.minimum_step = bool(minimum_step)
        """In the push-or-fold layer (:meth:`defend`), a discard that leaves a small hand
        none of whose wins could pass the minimum score with the factors held now counts a
        step further from winning (it must first add a factor: an opening in 口口翻, a kong in
        开口翻), as a closed hand does for its opening (:attr:`closed_step`).  In 边锋, opened
        once, ready on a small hand that no loser would pay 20 for, late against a three-meld
        pin flush: the 6p that keeps that wait is no push (off: as before 6 December 2026)."""
        self.live_waits = bool(live_waits)  # GreedyBot.live_waits, per instance
        self.ready_big = bool(ready_big)
        """Where the waits' value is off (``use_value``: ``laizishanzhuang``), rank the
        discards that leave the hand ready by their winning tiles times the win each
        keeps (:meth:`my_win_value`: a big target's counts 1.5 typical wins): a 碰碰胡
        single on three tiles over a small hand's kanchan on four.  On since 5 December
        2026: the arena measured it even (+0.67 [−0.36, +1.70] points per hand over 2,400
        deals, docs/bots-log.md), and a strong player takes the big hand at a glance."""
        self.kong_value = bool(kong_value)
        """Weigh a kong that leaves the hand ready by its waits' value
        (:meth:`kong_keeps_value`)."""
        self.seed = 0 if seed is None else seed
        self.samples = samples
        self.time_cap_ms = time_cap_ms
        self.fold = fold
        self.deal_in_weight = deal_in_weight
        self.laizi_for_minimum = laizi_for_minimum
        self.claim_equal = claim_equal
        # None = the profile's measured setting (PROFILE_SETTINGS), else as given
        self.chosen: dict[str, float | bool | None] = {
            "use_value": value, "contract_weight": contract_weight, "claim_filter": claim_filter,
            "lookahead": lookahead, "keep_two_laizi": keep_two_laizi, "defence": defence,
            "defence_speed": defence_speed, "free_laizi_kong": free_laizi_kong,
            "threat_openings": threat_openings, "bloom_later": bloom_later,
            "step_margin": step_margin}
        self._tune(None)
        self.hold_must = hold_must
        self.kong_max_shanten = kong_max_shanten
        self.lookahead_work = lookahead_work
        self.big_target = big_target
        self.eager_below = eager_below
        self.eager_peng = bool(eager_peng)
        self.work = 0
        self.cap_hits = 0
        self.defended = 0  # discards the defence layer changed (for the arena's curiosity)
        self.min_saving = min_saving
        self.fold_keep = fold_keep
        self.threat_min = threat_min
        self.defence_targets = defence_targets
        self.laizi_ev = laizi_ev
        self.laizi_short_step = laizi_short_step
        self.laizi_loss = laizi_loss
        self.laizi_ev_shanten = laizi_ev_shanten
        check_wait_reading(waits)  # at once, not at the first decision that reads
        self.waits = waits
        """How the opponent model reads the waits (:class:`OpponentModel`): ``shapes``
        counted over the unseen tiles (the default: it ranks the tiles that deal in far
        better and samples nothing, docs/bots-log.md) or ``sampled`` determinisations (the
        earlier reading)."""
        self.swap_slack = swap_slack
        """Safe swaps by the shape reading (:meth:`safe_swap`): the acceptance, in tiles, a
        swap may give up; below 0 (the default), no swaps."""
        self.swap_gain = swap_gain
        self.swap_value = swap_value
        self.swapped = 0  # discards the safe swap changed
        self.closed_step = int(closed_step)
        """Steps of shanten the push-or-fold layer adds to a hand that has not opened: it
        cannot win before a claim opens it (no concealed win, RULES §9), so its chance is
        that of a hand ``closed_step`` steps further (0: the chance ignores it, as before
        2 December 2026; the arena measured no difference, docs/bots-log.md)."""
        self.claim_ev = int(claim_ev)
        """Make a chi or peng only when it is worth its exposure (:meth:`claim_worth`): an
        opening doubles what this seat pays when another wins, which a hand unlikely to
        win does not earn back.  0: off (the default; docs/bots-log.md), 1: every claim, 2: the
        claims of an opened hand only (each opening doubles in 口口翻)."""
        self.ready_fit = bool(ready_fit)
        """Read an opponent's chance of being ready from the fit to greedy self-play
        (:func:`~wuhan_mahjong.bots.opponents.ready_chance`) instead of the hand-set prior."""
        self.rob_max = float(rob_max)
        """Skip an added kong (蓄杠) whose expected cost of being robbed (抢杠: the konger
        pays all three shares, :meth:`OpponentModel.rob_risk`) exceeds this many points;
        0: off (every kong greedy's rule makes).  In the arena such a kong is rare (13 added
        kongs in 400 hands, none over 11 points): 30 changed no play in 3,200 hands
        (docs/bots-log.md); it answers the position a strong player would."""
        self.let_go = bool(let_go)
        """Read the kinds an opponent let go by since his last discard as ones he cannot
        win on (:meth:`OpponentModel._let_go_kinds`)."""
        self.own_discard = bool(own_discard)
        """With ``let_go``, read an opponent's own last discard made after a draw as a kind
        he cannot win on either: a win on it would have been his self-draw
        (:meth:`SeatReading.discard_after_draw`; no furiten in these rules, RULES §15)."""
        self.family_reads = bool(family_reads)
        """Read a seat whose melds are of one suit and all 2/5/8 (222m 555m 888m) as
        将一色 where his discards say so better than 清一色 (he threw 1m 3m 4m 6m): every
        2/5/8 then completes his hand, of any suit (:meth:`OpponentModel.focus`)."""
        self.soft_passes = bool(soft_passes)
        """With ``let_go``, trust an opponent's pass on another seat's discard only where
        his soft small win (a laizi standing in) would have passed the minimum score there
        wherever it would on this seat's discard, not his hard win alone
        (:meth:`OpponentModel._pass_tells`)."""
        self.big_only = bool(big_only)
        """Read a seat whose small win cannot pass the minimum score on this seat's
        discard as winning on it only with a big hand his melds allow
        (:attr:`OpponentModel.big_only`).  In ``bianfeng``, beside seat 1 opened by 123p
        456p 999p (his small win pays 8 at most from a closed discarder: refused), at a
        wall of 10 or 8, the expert and the search bot broke their 45s for a 5s he threw
        rather than throw a lone 9m no win of his can take, read at 0.6 points of risk
        (off: as before 6 December 2026)."""
        self.laizi_lone = bool(laizi_lone)
        """Read a 全求人's lone tile as possibly a laizi while a laizi is unseen
        (:attr:`OpponentModel.laizi_lone`): it pairs with any 将, a dead one too.  In
        ``yuanhang``, a step from ready beside seat 1's four melds (123p 456s 东 999m: his
        pair must be 2/5/8), with every laizi unseen, the expert threw a loose 5m whose
        other three copies were in sight, read as no wait of his, rather than a loose 4s
        no win of his can take; a lone laizi wins on it as 全求人, and this seat, feeding a
        将, pays 720 for everybody (off: as before 6 December 2026).  A laizi weighed as
        four plain tiles (0.39 of his lone tile with four unseen) lost 0.55 points a hand
        [0.03, 1.07] over 1,800 tuning deals, and in greedy self-play no 全求人 was seen
        holding a lone laizi (0 of 85 sightings); weighed as one (0.15) it measured
        +0.06 [-0.26, +0.39] over 1,200 (the twenty-fifth hunt)."""
        self.passes_then = bool(passes_then)
        """With ``let_go``, judge an opponent's pass by the seats' factors when he made it
        (:attr:`OpponentModel.passes_then`): a claim since may lift a small win the minimum
        score refused then over it now.  In ``yuanhang``, beside seat 1 opened twice, a 3p
        he let go by on seat 2's discard while the dealer was closed (16 at most from a
        loser, short of 20) read as safe after the dealer's peng lifted that win to 32 on
        this seat's 3p, and the expert threw it beside an equally useless 6p he had let go
        by since (off: as before 6 December 2026)."""
        self.fold_floor = float(fold_floor)
        """Below this chance of winning (the core's discard, :meth:`win_chance`), the
        push-or-fold layer ignores ``defence_speed``: a hand that will hardly win has no
        speed to keep, so any safer discard is weighed (0: off).  It matters only where
        ``defence_speed`` is above 0 (``laizishanzhuang``): a far, closed hand late against
        a three-meld flush folds there (tests/bots/test_bots_defence.py); in 2,644 hands
        of tuning seed 140 it changed no game (docs/bots-log.md)."""
        self.haidi = bool(haidi)  # the end phase played for 海底捞 (GreedyBot.haidi)
        self.haidi_bases = bool(haidi_bases)
        """Count the tiles an end-phase discard keeps for a 海底捞 each by the big hands its
        win makes (:meth:`haidi_worth`), not one alike: opened by three pin melds with 567p,
        5m and 9p, the 5m goes for the 9p single (清一色 and 海底捞, two big hands, on two
        tiles) where every bot threw the 9p for the 5m single (海底捞 alone on three).  Off:
        greedy's count, as before 6 December 2026."""
        self.ready_claims = bool(ready_claims)
        """Decide an opened, ready hand's chi and peng by the value of its waits
        (:meth:`ready_claim`), in every profile (``use_value`` rates the discards)."""
        self.ready_value_ratio = float(ready_value_ratio)
        """A ready claim must raise the mean value of a winning tile at least this many
        times (or give the hand its first legal win): one that mostly widens the wait is
        the equal-shanten claim by acceptance (``claim_equal``), which the arena measured
        as not paying."""
        self.aim_union = bool(aim_union)
        """Rank a discard that keeps several big-hand targets equally close (风一色 and
        碰碰胡, say) by the tiles that bring any of them closer
        (:meth:`Evaluator.acceptance_any`), not by one target's tiles chosen by name:
        a lone 白 beside four honour pairs stays, an isolated suited tile goes."""
        self.aim_small = bool(aim_small)
        """Count the small hand's tiles with the big targets' when it is as close: the
        tiles of every route at that distance.  Six steps from both, a pair of 7s no longer
        makes the expert throw a 9s for one more 碰碰胡 tile and three fewer small-hand
        tiles."""
        self.near_targets = bool(near_targets)
        """Of discards equal in every other respect, play the one whose targets (the small
        hand and each big hand) within a step of the best shanten stay closer, the nearest
        compared first, before the tiles' shapes decide: with two honour pengs, 44z 55z
        22m and single 2z and 5p, the 5p goes and 风一色 stays two steps away (the 2z went
        first as a lone honour); building 碰碰胡 with a wild, the 4p goes, keeping the
        small hand two steps away (the 8p pairs with the wild as its 2/5/8) and 风一色
        three, where the 3z that went first cost 风一色 a step."""
        self.contract_swaps = bool(contract_swaps)
        """Let the push-or-fold layer give up speed, whatever ``defence_speed`` says, for a
        discard that saves at least ``min_saving`` points of contract (承包): feeding the
        third meld of a one-suit hand, or dealing into a 全求人 while not ready.  The
        reason for ``defence_speed`` in ``laizishanzhuang`` (a deal-in costs this seat
        what the winner's self-draw would) does not hold for a contract, where this seat
        pays all three shares."""
        self.claim_odds = bool(claim_odds)
        """Price the chance that a discard feeds a one-suit seat's third meld (承包) by his
        concealed tiles (:attr:`OpponentModel.claim_odds`: a pair of it, or from the next
        seat the two other tiles of a run), not a quarter per unseen copy plus 0.3 for a
        chi.  Ready on a 条 flush beside the next seat's two 万 chis (234m, 789m), the
        expert broke its hand for a 1s rather than throw a 9m he could claim only with
        both unseen 9m or the last 7m and 8m (a quarter at most), or, with those in sight,
        not at all (107 points of contract read on it), in ``bianfeng`` and
        ``laizishanzhuang`` (``contract_swaps``); the twenty-ninth hunt's study saw two
        ready hands broken so in ``bianfeng``, lost 716 and 836 (the thirty-first hunt;
        off: as before 6 December 2026, late night)."""
        self.win_fit = win_fit
        """P(win) from the logistic fit to the arena (:meth:`win_chance_fit`) instead of the
        gamma model (:meth:`win_chance`), wherever the expert weighs one: the
        push-or-fold layer and ``laizi_ev``."""
        self.fold_fit = bool(fold_fit)
        """The push-or-fold layer (:meth:`defend`) alone with both its sides calibrated
        (the thirty-sixth hunt, off): the opponents' readiness from the fit to self-play
        (as ``ready_fit``, in its own model, so no other layer's reads change) and this
        seat's P(win) from the fit to the arena (:meth:`win_chance_fit`).  On tuning
        seeds the layer's own numbers read the seat's chance about twice what it won
        (0.49 against 0.20 in ``yuanhang``) and P(deal in) two to three times low (0.033
        against 0.090); docs/bots-log.md, *The thirty-sixth decision-problem hunt*."""

    # ------------------------------------------------------------------ entry
    def choose(self, view: SeatView | IntView) -> Action:
        t = SeatReading(view)
        acts = t.actions
        if not acts:
            raise NoLegalAction(f"seat {t.me} has no decision to make")
        if WIN in acts:
            if self.bloom_first and t.phase == "turn" and self.bloom_instead(t):
                return next(a for a in acts if isinstance(a, SpecialKong) and a.kind == "laizi")
            return WIN
        if t.phase in ("final", "rob"):
            return PASS
        self._start = time.perf_counter()
        # seeded from what the seat knows (the view less its wall commitment, a hash that
        # is noise to a player), in either form: equal information, equal decisions
        digest = hashlib.blake2b(t.public_key(), digest_size=8)
        self.rng = random.Random(self.seed * 1_000_003 + int.from_bytes(digest.digest(), "big"))
        self._prepare(t)
        if t.phase == "claim":
            return self.claim(t)
        return self.turn(t)

    def bloom_instead(self, t: SeatReading) -> bool:
        """Whether to kong the laizi rather than take the self-drawn win in hand: after the
        kong the 13 tiles left win 杠上花 (a big hand, any number of laizi) on the
        replacement draw with the chance of their unseen winning tiles among the unseen
        ones, and that chance times what each such win collects (the settlement's total,
        the kong's factor in) is at least :attr:`bloom_first` times the win in hand (its
        杠上花 on a kong's replacement draw, else its self-draw, :attr:`bloom_source`;
        without that switch the larger of the two where this seat has a kong).  Only while the
        chance that some opponent is ready, read over all of them, is below ``threat_min``:
        a hand that misses the bloom stays ready, its later wins larger (the kong's factor,
        and hard once the last wild is konged), and that is left uncounted, against the
        risk that another seat wins first.  (With each opponent's readiness alone under
        ``threat_min``, it passed wins beside three opened seats in ``laizishanzhuang``
        and lost both, tuning seed 242.)"""
        kong = any(isinstance(a, SpecialKong) and a.kind == "laizi" for a in t.actions)
        if not kong or t.laizi not in t.hand or t.end_phase:
            return False
        self._prepare(t)
        if self._anyone_open():
            quiet = 1.0  # the chance that no opponent is ready
            for r in self.model().reads.values():
                if r.can_win:
                    quiet *= 1.0 - r.p_ready
            if 1.0 - quiet >= self.threat_min:
                return False
        hand = list(t.hand)
        drawn = t.iv.drawn if t.iv.drawn is not None else hand[-1]
        hand.remove(drawn)
        me = t.my.state()
        if self.bloom_source:  # the view says where the tile came from
            ways = ["kong_bloom"] if t.replacement_draw else ["self_draw"]
        elif (any(m.type == "kong" for m in me.melds) or me.red_kongs or me.green_kongs
              or me.laizi_kongs or me.pi_kongs):
            ways = ["self_draw", "kong_bloom"]
        else:
            ways = ["self_draw"]
        now = max(self._settle_mine(hand, drawn, me, w) for w in ways)
        if now <= 0:
            return False
        rest = list(t.hand)
        rest.remove(t.laizi)
        after = replace(me, laizi_kongs=me.laizi_kongs + 1)
        unseen = max(1, t.unseen_total)
        wins = [w.tile for w in waits(rest, t.melds, t.laizi, t.rules, "kong_bloom")
                if t.unseen[w.tile]]
        bloom = sum(t.unseen[x] / unseen * self._settle_mine(rest, x, after, "kong_bloom")
                    for x in wins)
        if self.bloom_later and wins:
            bloom += self._after_bloom(t, rest, after, wins)
        return bloom >= self.bloom_first * now

    def _after_bloom(self, t: SeatReading, rest: Sequence[int], after: SeatState,
                     wins: Sequence[int]) -> float:
        """What the hand left ready by a laizi kong is worth if the replacement draw
        misses (:attr:`bloom_later`): the chance of a later win (:meth:`_win_chance`, ready,
        its unseen winning tiles, the wall's turns) times the mean of what a self-drawn win
        on those tiles collects (the settlement, the kong's factor in, hard after the last
        wild), less the chance that another seat wins first (the 40% the chance model
        assumes, or the read threat when larger) times what this seat then pays with the
        kong's factor (:meth:`_line_loss`); all times the chance the bloom misses."""
        unseen = max(1, t.unseen_total)
        acc = sum(t.unseen[x] for x in wins)
        later = sum(t.unseen[x] * self._settle_mine(rest, x, after, "self_draw")
                    for x in wins) / acc
        p_later = self._win_chance(0, acc, unseen, max(0.5, t.wall / 4))
        threat = max(0.4, self.raw_threat()) if self._anyone_open() else 0.4
        loss = self._line_loss(t, Fraction(t.rules.laizi_kong_factor))
        return (1.0 - acc / unseen) * (p_later * later - (1.0 - p_later) * threat * loss)

    def _settle_mine(self, hand13: Sequence[int], tile: int, me: SeatState, win_by: str) -> float:
        """What this seat collects winning by ``win_by`` on ``tile`` with ``hand13`` and the
        factors of ``me`` (0 if that is no legal win)."""
        t = self.t
        seats = [replace(me, hand=tuple(hand13)) if s == t.me else t.seats[s].state()
                 for s in range(4)]
        rec = WinRecord(t.rules, t.dealer, t.indicator, t.me, win_by, None, tile, tuple(seats))
        try:
            return float(settle(rec).total)
        except NotAWin:
            return 0.0

    def _prepare(self, t: SeatReading) -> None:
        """Start a decision on ``t``: the profile's settings and empty caches."""
        self.t = t
        self._tune(t.rules.profile)
        self.work = 0
        self._model: OpponentModel | None = None
        self._fit_model: OpponentModel | None = None
        self._value_cache: dict[tuple[tuple[int, ...], int], float] = {}
        # the two-step search's acceptances by 13-tile hand: discarding d1, drawing u and
        # discarding d2 reaches the hand that d2, u, d1 reaches (same melds, wilds and
        # unseen tiles within one decision), so about a third are asked more than once;
        # the counts are the whole key, as a hand is only asked at its own shanten
        self._acc_cache: dict[tuple[int, ...], int] = {}

    def _tune(self, profile: str | None) -> None:
        """Set the per-profile options: as given to ``__init__``, else the profile's
        measured setting, else the default."""
        tuned = PROFILE_SETTINGS.get(profile or "", {})
        self.use_value = bool(self._setting("use_value", tuned))
        self.contract_weight = float(self._setting("contract_weight", tuned))
        self.claim_filter = bool(self._setting("claim_filter", tuned))
        self.lookahead = bool(self._setting("lookahead", tuned))
        self.keep_two_laizi = bool(self._setting("keep_two_laizi", tuned))
        self.defence = bool(self._setting("defence", tuned))
        self.defence_speed = float(self._setting("defence_speed", tuned))
        self.free_laizi_kong = bool(self._setting("free_laizi_kong", tuned))
        self.bloom_later = bool(self._setting("bloom_later", tuned))
        """With ``bloom_first``, count in the laizi kong's line what the hand left ready is
        worth when the replacement draw misses (:meth:`_after_bloom`): its later wins, hard
        and with the kong's factor, less what it then pays when another seat wins first.
        Dealer, opened three times in 口口翻 (123m, 777p, 999p), holding 55m 3s and the wild
        and drawing a 4s: the soft self-drawn win collects 96; after the kong the 2s, 5s and
        the laizi win 杠上花 at 金顶 (1,200, 109 points on the next draw), and later self-drawn
        wins collect 768 (384 on a laizi).  Counting the draw alone (109 against 1.5 × 96)
        the bots took the 96 (off: as before 6 December 2026).  Off in
        ``laizishanzhuang`` (:data:`PROFILE_SETTINGS`): its wins are small beside what a
        loser typically pays there, the line after a miss comes out below nothing, and the
        seventh hunt's kong for the bloom over a soft win of 16 would be lost."""
        self.step_margin = float(self._setting("step_margin", tuned))
        """The two-step acceptance (``lookahead``) chooses only among discards whose
        acceptance is fewer than this many tiles below the best's (beside the 20% it asked
        already); a clearer lead of the first step is kept (牌效, the thirteenth hunt): with
        two laizi, 114568m 27p 3788s at shanten 2, the 8s takes 68 tiles, the 7s 62, and
        the two-step count threw the 7s.  0: off (the 20% alone, as before).  0.5 (the
        two-step count only breaks ties of acceptance) answers the discard puzzles as the
        books do (1–150: 149 in ``yuanhang``, 150 in ``bianfeng``; 143 and 139 at 4) and
        measured even over 1,200 paired deals a profile (+0.05 [−4.95, +5.06] and +1.20
        [−2.92, +5.32] points a hand; docs/bots-log.md, *The thirty-ninth decision-problem
        hunt*).  By the rule fixed before those deals it is the setting in ``bianfeng``
        (:data:`PROFILE_SETTINGS`, since 7 December 2026), where the interval stays above
        −3; in ``yuanhang`` it reaches below, and 4 stays."""
        self.threat_openings = bool(self._setting("threat_openings", tuned))
        """With ``threat_claims``, weigh a closed hand's chi or peng alike (the first
        opening doubles in 开口翻 too), its factor on what it pays only: its win already
        counts the opening it needs, and its chance the step :attr:`closed_step`.
        Closed and three steps away at a wall of 16 or 12 beside two seats with three
        melds each, every bot pengs a 7p that opens the hand for a step that leaves it
        two short; on, the readers pass.  Off by default (a profile may set it, as
        :data:`PROFILE_SETTINGS` does the others): it measured even in ``yuanhang`` and
        ``bianfeng``, but at a wall of 48 it also passes the chi that the third hunt's
        guard makes for a far, closed hand with time to build (docs/bots-log.md, *The
        eleventh decision-problem hunt*)."""

    def _setting(self, name: str, tuned: dict[str, float | bool]) -> float | bool:
        given = self.chosen[name]
        return tuned.get(name, _DEFAULTS[name]) if given is None else given

    def _over(self) -> bool:
        """Whether the optional wall-clock safety net fired (never without ``time_cap_ms``)."""
        if self.time_cap_ms is None:
            return False
        if (time.perf_counter() - self._start) * 1000 > self.time_cap_ms:
            self.cap_hits += 1
            return True
        return False

    # ------------------------------------------------------------------ opponents
    def model(self) -> OpponentModel:
        """This decision's reads of the opponents (:mod:`wuhan_mahjong.bots.opponents`),
        built once, on first use."""
        if self._model is None:
            self._model = self._new_model(self.waits, self.rob_ready)
        return self._model

    def fold_model(self) -> OpponentModel:
        """The reads the push-or-fold layer weighs with: :meth:`model`, or with
        ``fold_fit`` one of its own whose readiness comes from the fit."""
        if not self.fold_fit or self.ready_fit:
            return self.model()
        if self._fit_model is None:
            self._fit_model = self._new_model(self.waits, self.rob_ready, ready_fit=True)
        return self._fit_model

    def _new_model(self, waits: str, rob_ready: bool, ready_fit: bool | None = None
                   ) -> OpponentModel:
        """An opponent model reading waits by ``waits``, with this bot's reading switches."""
        return OpponentModel(self.t, self.rng, self.samples, waits=waits,
                             ready_fit=self.ready_fit if ready_fit is None else ready_fit,
                             let_go=self.let_go, rob_ready=rob_ready,
                             own_discard=self.own_discard, family_reads=self.family_reads,
                             soft_passes=self.soft_passes, passes_then=self.passes_then,
                             big_only=self.big_only, laizi_lone=self.laizi_lone,
                             claim_odds=self.claim_odds,
                             settled_later=self.settled_later and (
                                 self.settled_everywhere
                                 or self.t.rules.profile == "laizishanzhuang"))

    def _threatened(self, ev: Evaluator, choice: Action | None, threat_min: float | None = None,
                    fold: bool = False) -> tuple[OpponentModel, int, int] | None:
        """For the safety layers (:meth:`defend`, :meth:`safe_tie`): the opponent model, the
        core's discard and the shanten after it, when the core discards while some opponent
        has opened and reads as ready with a chance of ``threat_min`` (the option unless
        given); else ``None``."""
        if not isinstance(choice, Discard) or not self._anyone_open():
            return None
        model = self.fold_model() if fold else self.model()
        if model.threat() < (self.threat_min if threat_min is None else threat_min):
            return None
        return model, choice.tile, ev.shanten_after(choice.tile, -1)

    def _small_threat(self, model: OpponentModel) -> bool:
        """Whether the opponent likeliest ready (``step_floor``) reads as a small hand
        (no big-hand focus) shown in three melds or more."""
        reads = [r for r in model.reads.values() if r.can_win]
        if not reads:
            return False
        r = max(reads, key=lambda r: r.p_ready)
        return r.focus is None and len(self.t.seats[r.seat].melds) >= 3

    def _anyone_open(self) -> bool:
        t = self.t
        return any(t.seats[o].openings for o in range(4) if o != t.me)

    def danger(self, tile: int, my_shanten: int) -> float:
        """Expected points lost by discarding ``tile`` now, as the ``deal_in_weight`` and
        ``contract_weight`` options price it (the defence layer prices it in full)."""
        if not (self.deal_in_weight or self.contract_weight) or not self._anyone_open():
            return 0.0
        _, deal, contract = self.model().risk(tile, my_shanten)
        return deal * self.deal_in_weight + contract * self.contract_weight

    def max_threat(self) -> float:
        """The largest chance that an opponent is ready (0 while nobody has opened)."""
        return self.model().threat() if self._anyone_open() else 0.0

    def raw_threat(self) -> float:
        """The largest chance that an opponent is ready whatever the minimum score says
        (``Read.p_rob``): this seat's own kong raises what he would be paid, so a small
        win short of the minimum now may pass it then."""
        return max((r.p_rob for r in self.model().reads.values() if r.can_win), default=0.0)

    # ------------------------------------------------------------------ push or fold
    def my_win_value(self, t: SeatReading, ev: Evaluator, tile: int = -1,
                     big: bool | None = None) -> float:
        """Roughly what this seat collects when it wins (after discarding ``tile``, -1:
        the hand as it is; a big hand or not as ``big`` says, else as its closest
        target): a plain win with its factors now (and the opening it still needs), the
        caps applied, and at least the profile's typical win
        (:func:`wuhan_mahjong.bots.opponents.typical_win`; wins come with more factors
        than a hand holds before them); a big target counts 1.5 of it."""
        if big is None:
            big = self.shanten_key(ev, tile)[1] != "small"
        mw = t.my_multiplier(big=big, hard=False, self_drawn=False,
                             extra_openings=0 if t.opened else 1)
        now = t.collected(10 if big else 1, mw, None)
        return max(now, typical_win(t.rules) * (1.5 if big else 1.0))

    @staticmethod
    def win_chance(shanten: int, acceptance: int, unseen: int, turns: float) -> float:
        """Chance of completing a hand ``shanten`` + 1 steps away before the wall runs
        out.  Each of this seat's turns brings a useful tile (drawn, or claimed) at a rate
        set by the acceptance: the given one for the first step, then a typical one for
        the narrower steps after it (:data:`_TYPICAL_ACCEPTANCE`); the total time is
        read as a gamma variable with one unit of shape per step.  Other seats win first
        about 40% of the time."""
        rates = [max(1, acceptance)] + [_TYPICAL_ACCEPTANCE[min(j, 3)]
                                        for j in range(shanten - 1, -1, -1)]
        mean = sum(unseen / (2.0 * r) for r in rates)  # expected turns
        steps = len(rates)
        lam = turns * steps / mean
        term = math.exp(-lam)
        below = 0.0
        for k in range(steps):
            below += term
            term *= lam / (k + 1)
        return 0.6 * max(0.0, 1.0 - below)

    @staticmethod
    def win_chance_fit(shanten: int, acceptance: int, unseen: int, turns: float) -> float:
        """P(win) of a hand ``shanten`` + 1 steps away as the arena measured it (:data:`_WIN_FIT`).
        The gamma model (:meth:`win_chance`) lets every hand run to the end of the wall and
        so rates the steps of shanten almost alike (mid-hand: ready 0.55, one step away
        0.46, where the expert won 0.44 and 0.18): another seat usually wins first.
        ``unseen`` is not a feature (the acceptance already counts the unseen tiles).

        >>> ExpertBot.win_chance_fit(0, 8, 60, 10) > ExpertBot.win_chance_fit(1, 8, 60, 10)
        True
        """
        a, b_sh, b_acc, b_t, b_sht = _WIN_FIT
        t = turns / 10
        sh = min(shanten, 4)
        z = a + b_sh * sh + b_acc * math.log1p(max(0, acceptance)) + b_t * t + b_sht * sh * t
        return 1.0 / (1.0 + math.exp(-z))

    def _win_chance(self, shanten: int, acceptance: int, unseen: int, turns: float,
                    fit: bool = False) -> float:
        """The P(win) this expert weighs with (``win_fit``, or ``fit`` for this caller)."""
        if self.win_fit or fit:
            return self.win_chance_fit(shanten, acceptance, unseen, turns)
        return self.win_chance(shanten, acceptance, unseen, turns)

    def defend(self, t: SeatReading, ev: Evaluator, choice: Action | None) -> Action | None:
        """Push or fold by expected value: keep the core's discard unless a safer one is
        worth more, ``(1 - P(deal in)) × P(win) × win value - expected deal-in and
        contract cost``.  P(win) follows shanten and acceptance after the discard and the
        wall left (:meth:`win_chance`), but an alternative is never rated faster than the
        core's choice (which knows better about speed: big targets, two-step paths), and
        each step of shanten it gives up keeps only ``fold_keep`` of its chance, and an
        alternative below ``defence_speed`` times the core's chance is not considered.
        So the layer only trades speed for safety, only while some opponent is ready
        with a chance of at least ``threat_min``, and only for a saving of at least
        ``min_saving`` points.  Each discard is valued by the target it keeps (a safe
        tile that breaks the flush being built gives up the big hand's value)."""
        gate = (1e-9 if (self.cost_gate or self.contract_gate) and self.defence_speed >= 1.0
                else None)
        threatened = self._threatened(ev, choice, gate, fold=True) if self.defence else None
        if threatened is None:
            return choice
        model, d0, sh0 = threatened
        p0, deal0, contract0 = model.risk(d0, sh0)
        cost0 = deal0 + contract0
        if cost0 <= self.min_saving:
            return choice
        if (gate is not None and not self.cost_gate and contract0 < self.min_saving
                and model.threat() < self.threat_min):
            return choice  # contract_gate: below the gate only for a contract
        unseen = max(1, t.unseen_total)
        turns = max(0.5, t.wall / 4)

        def value(d: int) -> float:
            # the win each discard keeps: a safe tile that breaks the big-hand target
            # the core kept (one suit, all pungs...) gives up its big-hand value, and a
            # ready one that keeps one big hand where the core's kept two gives up the
            # second (ready_bases)
            v = self.my_win_value(t, ev, d if self.defence_targets else -1)
            if self.ready_bases and ev.shanten_after(d, -1) == 0:
                v *= self._big_bases(t, ev.with_tile(d, -1), d)
            return v

        steps = 0 if t.opened else self.closed_step
        # a small hand that no win could lift past the minimum score with the factors now
        # (and the opening a closed hand still needs) is a step further: it needs a factor
        short = (self.minimum_step
                 and not t.small_win_possible(extra_openings=0 if t.opened else 1))

        def chance(d: int, sh: int) -> float:
            acc, _ = ev.with_tile(d, -1).acceptance(t.unseen, t.laizi, current=sh)
            more = 1 if short and self.shanten_key(ev, d)[1] == "small" else 0
            return self._win_chance(sh + steps + more, acc, unseen, turns, fit=self.fold_fit)

        c0 = chance(d0, sh0)
        speed, near_ok = self.defence_speed, True
        if self.step_floor and sh0 == 1 and self._small_threat(model):
            speed, near_ok = max(speed, self.step_floor), False

        @functools.cache
        def core_acceptance() -> int:
            return ev.with_tile(d0, -1).acceptance(t.unseen, t.laizi, current=sh0)[0]

        def near(d: int, sh: int) -> bool:
            # near_swaps: a step from ready or ready, as close, and nearly as many tiles
            if not self.near_swaps or sh != sh0 or sh0 > 1:
                return False
            acc = ev.with_tile(d, -1).acceptance(t.unseen, t.laizi, current=sh)[0]
            return acc >= self.near_swaps * core_acceptance()

        # the expected value, then the chance itself: alternatives a step slower than the
        # core's choice all have their chance capped alike, and the faster of them is kept
        best = ((1.0 - p0) * c0 * value(d0) - cost0, c0)
        pick = d0
        for d in discard_choices(t):
            if d == d0:
                continue
            sh = ev.shanten_after(d, -1)
            p, deal, contract = model.risk(d, sh)
            if deal + contract > cost0 - self.min_saving:
                continue
            raw = chance(d, sh)
            c = min(raw, c0 * self.fold_keep ** max(0, sh - sh0))
            if (c < c0 * speed and c0 >= self.fold_floor
                    and not (self.contract_swaps and contract0 - contract >= self.min_saving)
                    and not (near_ok and near(d, sh))):
                continue  # gives up more speed than the profile allows, for no contract
            w = ((1.0 - p) * c * value(d) - deal - contract, raw)
            if w > best:
                best, pick = w, d
        if pick != d0:
            self.defended += 1
        return Discard(pick)

    def end_phase_discard(self, t: SeatReading, ev: Evaluator) -> Action | None:
        """The end-phase discard weighed against the deal-in: its chance of winning a
        海底捞 (its live winning tiles over the unseen ones, per final draw of this seat)
        times the value of that big hand, less its expected deal-in and contract cost;
        with no win left, that is the safest tile.  An opponent who is not won on now
        has only his own final draw left, so the payment this seat would make anyway
        is small (``anyway`` :data:`END_PHASE_ANYWAY`).  Greedy's choice while nobody has
        opened, or with the push-or-fold layer off."""
        if not self.defence or not self._anyone_open():
            return super().end_phase_discard(t, ev)
        live = self.haidi_chances(t)
        if not live:
            return None
        model = self.model()
        draws = self.my_final_draws(t)
        unseen = max(1, t.unseen_total)
        value = self.my_win_value(t, ev, -1, big=True)

        def key(d: int) -> tuple[float, int, int]:
            _, deal, contract = model.risk(d, ev.shanten_after(d, -1), END_PHASE_ANYWAY)
            bases = self.haidi_worth(t, d, live[d]) / live[d] if live[d] else 1.0
            win = min(1.0, draws * live[d] / unseen) * value * bases
            return (deal + contract - win, tile_shape_rank(d, t.counts), d)

        return Discard(min(live, key=key))

    # ------------------------------------------------------------------ value of waits
    def win_value(self, hand13: Sequence[int], tile: int, melds: Sequence[Meld]) -> float:
        """Expected winnings if ``tile`` completes ``hand13``: 0.4 self-drawn, 0.6 on a
        discard from the next seat; 0 when the win would not be legal (minimum score,
        shape, laizi limit...).

        A hand that has not opened (开口) cannot win yet, but it can open later by
        claiming one of its own sets; so its win is valued as the best of the hands in
        which one set of the winning 14 tiles (a triplet or a run, laizi aside) has
        been claimed as a peng or chi.  (Valuing it as it stands made every wait of a
        closed hand worth 0 and threw away tile acceptance.)"""
        key = (tuple(sorted(hand13)), tile)
        hit = self._value_cache.get(key)
        if hit is not None:
            return hit
        t = self.t
        if opening_count(tuple(melds), t.rules.direct_kong_opens):
            total = self._settled_value(hand13, tile, melds)
        else:
            total = 0.0
            for h13, ms in self._openings(hand13, tile, melds):
                total = max(total, self._settled_value(h13, tile, ms))
        self._value_cache[key] = total
        return total

    def _openings(self, hand13: Sequence[int], tile: int,
                  melds: Sequence[Meld]) -> list[tuple[list[int], list[Meld]]]:
        """Every way to expose one set of the winning hand (``hand13`` + ``tile``) as the
        opening it still needs, leaving ``tile`` to win with: (concealed 13-3, melds)."""
        t = self.t
        full = sorted([*hand13, tile])
        counts = [0] * NUM_KINDS
        for x in full:
            counts[x] += 1
        fed = (t.me + 3) % 4  # a chi comes from the previous seat; a peng from anyone
        sets: list[tuple[str, tuple[int, ...]]] = []
        for x in range(NUM_KINDS):
            if x == t.laizi or x in t.must:
                continue
            if counts[x] >= 3:
                sets.append(("peng", (x, x, x)))
            if x < 27 and x % 9 <= 6 and all(
                    counts[x + i] and x + i != t.laizi for i in (0, 1, 2)):
                sets.append(("chi", (x, x + 1, x + 2)))
        out = []
        for kind, tiles in sets:
            rest = list(full)
            for x in tiles:
                rest.remove(x)
            if tile not in rest:
                continue
            rest.remove(tile)
            out.append((rest, [*melds, Meld(kind, tiles, fed)]))  # type: ignore[arg-type]
        return out

    def _settled_value(self, hand13: Sequence[int], tile: int, melds: Sequence[Meld]) -> float:
        t = self.t
        seats = []
        for s in range(4):
            if s == t.me:
                st = t.my.state()
                seats.append(SeatState(tuple(hand13), tuple(melds), st.red_kongs, st.green_kongs,
                                       st.laizi_kongs, st.pi_kongs, st.laizi_discards))
            else:
                seats.append(t.seats[s].state())
        total = 0.0
        for win_by, frm, weight in (("self_draw", None, 0.4), ("discard", (t.me + 1) % 4, 0.6)):
            if win_by == "discard" and tile == t.laizi:
                continue
            rec = WinRecord(t.rules, t.dealer, t.indicator, t.me, win_by, frm, tile, tuple(seats))
            with contextlib.suppress(NotAWin):
                total += weight * settle(rec).total
        return total

    def wait_value(self, hand13: list[int], melds: Sequence[Meld]) -> float:
        """Σ over drawable tiles of unseen copies × the value of the win they make."""
        return self._wait_counts(hand13, melds)[0]

    def _wait_counts(self, hand13: list[int], melds: Sequence[Meld]) -> tuple[float, int, int]:
        """(Σ unseen × value over the waits, the number of unseen tiles that complete the
        shape whatever their value, the number that win legally: value above 0, the
        minimum score passed, the pair and laizi rules kept)."""
        t = self.t
        counts = [0] * NUM_KINDS
        wilds = 0
        for x in hand13:
            if x == t.laizi:
                wilds += 1
            else:
                counts[x] += 1
        h = shape.pack(counts)
        cand = shape.wait_mask(h, wilds, shape.PAIR) | (1 << t.laizi)
        if all(m.is_pung for m in melds):
            cand |= shape.wait_mask(h, wilds, shape.PPAIR)
        cand |= candidate_mask(hand13, melds, t.laizi, t.rules)  # 乱风 / 乱将 families too
        total = 0.0
        shaped = legal = 0
        for x in range(NUM_KINDS):
            if not (cand >> x & 1) or not t.unseen[x] or x in t.must:
                continue
            if x != t.laizi and is_winning_shape([*hand13, x], melds, t.laizi, t.rules):
                shaped += t.unseen[x]
            v = self.win_value(hand13, x, melds)
            if v > 0:
                total += t.unseen[x] * v
                legal += t.unseen[x]
        return total, shaped, legal

    def idle_wild_kong(self, t: SeatReading) -> bool:
        """Whether the kong of one of two or more laizi adds nothing
        (:attr:`idle_wild_kongs`): some big target is as close as the best target after
        some discard, the tiles the kong leaves are short of ready, and the kong's factor
        leaves every big win (soft, self-drawn or dealt in by any seat) at the same capped
        amount."""
        if t.counts[t.laizi] < 2 or t.end_phase:
            return False
        choices = discard_choices(t)
        if not choices:
            return False
        ev = evaluator(t.hand, t.melds, t)
        best = min(ev.shanten_after(d, -1) for d in choices)
        bigs = [g for g in ev.allowed if g != "small"]
        if not any(ev.shanten_after(d, -1, g) <= best for d in choices for g in bigs):
            return False
        rest = list(t.hand)
        rest.remove(t.laizi)
        if evaluator(rest, t.melds, t).best()[0] < 1:
            return False  # the replacement draw may win: greedy's rules decide
        need = 0 if t.opened else 1
        factor = Fraction(t.rules.laizi_kong_factor)
        for dealer_in in (None, *(s for s in range(4) if s != t.me)):
            drawn = dealer_in is None
            mw = t.my_multiplier(big=True, hard=False, self_drawn=drawn, extra_openings=need)
            mw_kong = t.my_multiplier(big=True, hard=False, self_drawn=drawn, extra=factor,
                                      extra_openings=need)
            if t.collected(10, mw_kong, dealer_in) > t.collected(10, mw, dealer_in):
                return False
        return True

    def lone_laizi_blocks(self, t: SeatReading) -> bool:
        """Whether the single laizi must be konged: the hand is ready (the laizi as a
        wild) but no wait can pass the minimum score, while with the laizi kong's
        factor (and the opening a closed hand still needs) a small win could.  Kept as
        a wild, the laizi would make a hand whose every win is refused
        (``scoring.minimum_failure``)."""
        if t.counts[t.laizi] != 1 or not (t.rules.min_score_one_loser
                                          or t.rules.min_score_every_loser):
            return False
        if getattr(self, "t", None) is not t:
            self._prepare(t)
        ev = evaluator(t.hand, t.melds, t)
        choices = discard_choices(t)
        ready = [d for d in choices if ev.shanten_after(d, -1) == 0]
        if not ready:
            return False
        for d in ready:
            h13 = list(t.hand)
            h13.remove(d)
            value, shaped, _ = self._wait_counts(h13, t.melds)
            if value > 0 or not shaped:
                return False
        need = 0 if t.opened else 1
        return t.small_win_possible(extra=Fraction(t.rules.laizi_kong_factor),
                                    extra_openings=need)

    def _short_of_minimum(self, t: SeatReading, extra: Fraction, hard: bool) -> int:
        """How many doublings a small win (小胡) still lacks to pass the minimum score at
        best (self-drawn, or dealt in by the seat that pays most), with my factors now
        times ``extra`` and the opening a closed hand still needs (0 to 3; 3 = three or
        more).  Each doubling must come from a later opening or kong."""
        rules = t.rules
        if not (rules.min_score_one_loser or rules.min_score_every_loser):
            return 0
        need = 0 if t.opened else 1
        for k in range(3):
            x = extra * 2 ** k
            mw = t.my_multiplier(big=False, hard=hard, self_drawn=True, extra=x,
                                 extra_openings=need)
            if t.passes_minimum(t.win_amounts(1, mw, None)):
                return k
            mw = t.my_multiplier(big=False, hard=hard, self_drawn=False, extra=x,
                                 extra_openings=need)
            if any(t.passes_minimum(t.win_amounts(1, mw, d)) for d in range(4) if d != t.me):
                return k
        return 3

    def _line_value(self, t: SeatReading, big: bool, extra: Fraction, hard: bool) -> float:
        """What a win is worth with my factors now times ``extra`` (and the opening a
        closed hand still needs), grown to the profile's typical win (wins come with
        more factors than the hand holds now; the growth is the keep-the-wild line's,
        so that the kong's factor is compared at the same stage), each loser's share
        capped: 0.4 self-drawn, 0.6 dealt in by the next seat."""
        rules = t.rules
        need = 0 if t.opened else 1
        base = 10 if big else 1

        def value(x: Fraction, hard_win: bool) -> float:
            total = 0.0
            for self_drawn, dealer_in, w in ((True, None, 0.4), (False, (t.me + 1) % 4, 0.6)):
                mw = t.my_multiplier(big=big, hard=hard_win, self_drawn=self_drawn, extra=x,
                                     extra_openings=need)
                total += w * t.collected(base, mw, dealer_in)
            return total

        now = value(Fraction(1), False)
        typical = typical_win(rules) * (1.5 if big else 1.0)
        growth = Fraction(max(1.0, typical / now)).limit_denominator(64) if now > 0 else Fraction(1)
        return value(growth * extra, hard)

    def laizi_lines(self, t: SeatReading) -> tuple[float, float]:
        """(keep, kong): the expected winnings of keeping the single laizi as a wild
        and of konging it now (``laizi_ev``), each P(win) × the value of a win.

        *Keep*: the best discard (lowest shanten, then the most tiles that improve it,
        laizi included); a soft win (the wild is used).  *Kong*: the 13 tiles left,
        with the replacement draw still to come (half a turn more: a turn brings a
        draw and a claim chance); the win carries the kong's factor (×4 / ×2) and is
        hard (硬胡, no wild held).  P(win) is :meth:`win_chance` after the line's
        shanten and acceptance, one step further for each doubling a small win still
        lacks to pass the minimum score (``laizi_short_step`` steps each: later openings
        and kongs bring doublings, often on the way); a big-hand target (the line's closest, as
        :meth:`shanten_key` ranks them) is valued as a big hand.  So a ready or
        near-ready hand whose kong costs little speed kongs for the ×4, and a far
        hand that needs the wild keeps it.  Red / green kongs are not pending here
        (the turn makes them first).

        The kong's factor joins this seat's own multiplier, so it also multiplies what
        the seat pays when another seat wins (docs/RULES.md §17.3): each line is charged
        ``laizi_loss`` × P(another seat wins) × that payment (:meth:`_line_loss`; a
        hand almost never runs dry, so P = 1 − P(win)).  ``laizi_loss`` 0 is the
        first form, which counted only the winning side and konged a far hand's
        laizi at almost every chance (−77 and −90 points per hand on tuning seeds 46
        and 47, docs/bots-log.md).  The kong line is only open while the 13 tiles left by
        the kong are at most ``laizi_ev_shanten`` from ready (else (0, −inf): the
        wild is kept)."""
        choices = discard_choices(t)
        if not choices:
            return 0.0, 0.0
        unseen = max(1, t.unseen_total)
        turns = max(0.5, t.wall / 4)
        ev = evaluator(t.hand, t.melds, t)
        sh_keep = min(ev.shanten_after(d, -1) for d in choices)
        # the most accepting discard at that shanten; the lowest tile on a tie
        acc_keep, neg_d = max((ev.with_tile(d, -1).acceptance(t.unseen, t.laizi, current=sh_keep)[0],
                               -d) for d in choices if ev.shanten_after(d, -1) == sh_keep)
        big_keep = self.shanten_key(ev, -neg_d)[1] != "small"
        rest = list(t.hand)
        rest.remove(t.laizi)
        ev_k = evaluator(rest, t.melds, t)
        sh_kong = ev_k.best()[0]
        if sh_kong > self.laizi_ev_shanten:
            return 0.0, -math.inf
        acc_kong = ev_k.acceptance(t.unseen, t.laizi, current=sh_kong)[0]
        big_kong = self.shanten_key(ev_k)[1] != "small"
        factor = Fraction(t.rules.laizi_kong_factor)
        short_keep = 0 if big_keep else self._short_of_minimum(t, Fraction(1), False)
        short_kong = 0 if big_kong else self._short_of_minimum(t, factor, True)
        step = self.laizi_short_step

        def chance(sh: int, short: int, acc: int, turns: float) -> float:
            # ``laizi_short_step`` steps per missing doubling, between whole steps linearly
            extra = short * step
            lo = math.floor(extra)
            p_lo = self._win_chance(sh + lo, acc, unseen, turns)
            if extra == lo:
                return p_lo
            p_hi = self._win_chance(sh + lo + 1, acc, unseen, turns)
            return p_lo + (extra - lo) * (p_hi - p_lo)

        p_keep = chance(sh_keep, short_keep, acc_keep, turns)
        p_kong = chance(sh_kong, short_kong, acc_kong, turns + 0.5)
        keep = (p_keep * self._line_value(t, big_keep, Fraction(1), False)
                - self.laizi_loss * (1.0 - p_keep) * self._line_loss(t, Fraction(1)))
        kong = (p_kong * self._line_value(t, big_kong, factor, True)
                - self.laizi_loss * (1.0 - p_kong) * self._line_loss(t, factor))
        return keep, kong

    def _line_loss(self, t: SeatReading, extra: Fraction) -> float:
        """What this seat pays when another seat wins, with its own factors now times
        ``extra``: the profile's typical plain share of a win (``PLAIN_SHARE`` of the
        typical win; a loser typically carries two doublings by then), scaled by
        ``extra`` and by the doublings this seat holds beyond those two, capped."""
        rules = t.rules
        cap = _loser_cap(rules)
        mine = float(t.multiplier(t.me, big=False))
        return min(cap, PLAIN_SHARE * typical_win(rules) * float(extra) * max(1.0, mine / 4))

    def kong_costs(self, t: SeatReading, kong: Kong | SpecialKong) -> bool:
        """Whether ``kong`` (or a 癞子皮杠, :attr:`threat_pi_kongs`) lowers the hand's
        expected value, by the lines of
        :meth:`laizi_lines`: *keep* (the best discard now, or for a 冲杠 the pass) and
        *kong* (the tiles the kong leaves, a replacement draw to come), each P(win) × the
        win it makes less P(another seat wins) × what this seat then pays, the kong's
        factor (and a 冲杠's opening) on both sides.  P(another seat wins) is (1 − P(win))
        × the largest chance that an opponent is ready (:meth:`raw_threat`), so that only a
        read threat (at least ``threat_min``) holds a kong back, and never one that leaves
        the hand ready (its waits decide, :meth:`kong_keeps_value`).  A hand close to
        winning kongs (the factor raises more than it risks); a far one late beside ready
        seats does not."""
        hard = hard_kong = t.counts[t.laizi] == 0
        steps = 0 if t.opened else self.closed_step
        ev = evaluator(t.hand, t.melds, t)
        if (self.excess_wild_kongs and isinstance(kong, SpecialKong) and kong.kind == "laizi"
                and t.counts[t.laizi] > t.rules.small_hand_max_laizi
                and self.shanten_key(ev)[1] == "small"
                and min((ev.shanten_after(d, -1) for d in discard_choices(t)), default=1) == 0):
            return False  # "ready" on more wilds than a small win may hold: it wins nothing
        if kong.kind == "direct":
            res = after_claim(t, kong)
            if res is None:
                return False
            hand, melds = res
            sh_keep = ev.best()[0]
            acc_keep = ev.acceptance(t.unseen, t.laizi, current=sh_keep)[0]
            big_keep = self.shanten_key(ev)[1] != "small"
            # the 冲杠 opens (Project decision 5): the opening's factor too, on the win only
            # where the hand is opened already (a closed hand's win counts the one it needs)
            # (no opening where the table's ``direct_kong_opens`` is off: a closed hand
            # then still needs one, :attr:`direct_opens`)
            opens = t.rules.direct_kong_opens or not self.direct_opens
            opening = (Fraction(t.multiplier(t.me, big=False, extra_openings=1)
                                / t.multiplier(t.me, big=False)) if opens else Fraction(1))
            win_factor = 2 * (opening if t.opened else Fraction(1))
            loss_factor, kong_steps = 2 * opening, 0 if opens else steps
        else:
            if isinstance(kong, SpecialKong):  # 癞子杠 / 癞子皮杠: one tile set aside
                hand, melds = list(t.hand), list(t.melds)
                laizi = kong.kind == "laizi"
                if laizi:
                    tile, factor = t.laizi, Fraction(t.rules.laizi_kong_factor)
                elif kong.kind == "pi":
                    tile, factor = t.indicator, Fraction(t.rules.pi_kong_factor)
                else:  # 红中杠 / 发财杠 (threat_must_kongs)
                    tile = RED if kong.kind == "red" else GREEN
                    factor = Fraction(t.rules.special_kong_factor)
                hand.remove(tile)
                # the last wild's kong makes the win hard (硬胡)
                hard_kong = hard or (laizi and t.counts[t.laizi] == 1)
            else:
                hand, melds = kong_result(t, kong)
                factor = Fraction(4 if kong.kind == "concealed" else 2)
            choices = discard_choices(t)
            sh_keep = min(ev.shanten_after(d, -1) for d in choices)
            acc_keep, neg_d = max(
                (ev.with_tile(d, -1).acceptance(t.unseen, t.laizi, current=sh_keep)[0], -d)
                for d in choices if ev.shanten_after(d, -1) == sh_keep)
            big_keep = self.shanten_key(ev, -neg_d)[1] != "small"
            win_factor = loss_factor = factor
            kong_steps = steps
        ev_k = evaluator(hand, melds, t)
        sh_kong = ev_k.best()[0]
        if sh_kong == 0:
            return False  # ready after it: its waits decide (kong_keeps_value)
        threat = self.raw_threat()
        if threat < self.threat_min:
            return False
        acc_kong = ev_k.acceptance(t.unseen, t.laizi, current=sh_kong)[0]
        keep = self._threat_line(t, sh_keep + steps, acc_keep, big_keep, Fraction(1),
                                 Fraction(1), 0.0, threat, hard)
        return self._threat_line(t, sh_kong + kong_steps, acc_kong,
                                 self.shanten_key(ev_k)[1] != "small", win_factor,
                                 loss_factor, 0.5, threat, hard_kong) < keep

    def _threat_line(self, t: SeatReading, sh: int, acc: int, big: bool, win: Fraction,
                     loss: Fraction, more: float, threat: float, hard: bool) -> float:
        """A line's outlook beside a read threat (:meth:`kong_costs`,
        :meth:`claim_costs`): P(win) (shanten ``sh``, acceptance ``acc``, ``more`` turns
        beyond the wall's) × the win with this seat's factors times ``win``, less
        P(another seat wins), ``threat`` × (1 − P(win)), × what this seat then pays with
        its factors times ``loss``."""
        p = self._win_chance(sh, acc, max(1, t.unseen_total), max(0.5, t.wall / 4) + more)
        return (p * self._line_value(t, big, win, hard)
                - threat * (1.0 - p) * self._line_loss(t, loss))

    def claim_costs(self, t: SeatReading, claim: Chi | Peng) -> bool:
        """Whether a chi or peng lowers the hand's expected value beside a read threat
        (:attr:`threat_claims`; a closed hand's with :attr:`threat_openings`), as
        :meth:`kong_costs` weighs a kong: where the opening adds a factor (口口翻: every
        opening doubles, Project decision 6; the first one in every profile), it joins
        this seat's multiplier on both sides, the win it may make and what it pays when
        another seat wins (a closed hand's win counts the opening it needs already).
        The lines are the pass (the hand as it is) and the claim
        (its best discard after it), each P(win) × the win − P(another seat wins) ×
        what this seat pays, P(another seat wins) being (1 − P(win)) × the largest
        chance that an opponent is ready (:meth:`raw_threat`, at least ``threat_min``).
        A claim that leaves the hand ready is left to the waits' value
        (:meth:`ready_claim`) and greedy's rules.  Late, three steps away beside two seats
        with three melds each, the expert pengged for a step that left it two short:
        twice what it pays them on the likeliest end of the hand, for a win it will
        hardly make (``tests/bots/test_bots_hunt11.py``)."""
        factor = Fraction(t.multiplier(t.me, big=False, extra_openings=1)
                          / t.multiplier(t.me, big=False))
        res = after_claim(t, claim)
        if factor <= 1 or res is None:
            return False
        # a closed hand's win already counts the opening it needs (:meth:`_line_value`),
        # and its chance a step further (:attr:`closed_step`): the claim's factor then
        # joins what it pays alone
        steps, win = (0, factor) if t.opened else (self.closed_step, Fraction(1))
        hand, melds = res
        options = claim_discards(t, hand)
        ev_c = evaluator(hand, melds, t)
        after = {d: ev_c.shanten_after(d, -1) for d in options}
        if not after or min(after.values()) == 0:
            return False
        threat = self.raw_threat()
        if threat < self.threat_min:
            return False
        sh_claim = min(after.values())
        acc_claim, neg_d = max(
            (ev_c.with_tile(d, -1).acceptance(t.unseen, t.laizi, current=sh_claim)[0], -d)
            for d in options if after[d] == sh_claim)
        ev = evaluator(t.hand, t.melds, t)
        sh_keep = ev.best()[0]
        acc_keep = ev.acceptance(t.unseen, t.laizi, current=sh_keep)[0]
        hard = t.counts[t.laizi] == 0
        keep = self._threat_line(t, sh_keep + steps, acc_keep,
                                 self.shanten_key(ev)[1] != "small", Fraction(1),
                                 Fraction(1), 0.0, threat, hard)
        return self._threat_line(t, sh_claim, acc_claim,
                                 self.shanten_key(ev_c, -neg_d)[1] != "small",
                                 win, factor, 0.0, threat, hard) < keep

    def drop_costly_kongs(self, t: SeatReading) -> None:
        """Take out of ``t.actions`` (a turn's or a claim's) the kongs that lower the
        hand's expected value while someone has opened (:attr:`threat_kongs`,
        :meth:`kong_costs`)."""
        if (self.threat_kongs and any(self._weighed_kong(a) for a in t.actions)
                and self._anyone_open()):
            t.actions = [a for a in t.actions
                         if not (self._weighed_kong(a)
                                 and self.kong_costs(t, a))]  # type: ignore[arg-type]

    def _weighed_kong(self, a: Action) -> bool:
        """A kong :meth:`drop_costly_kongs` weighs: a 暗杠, 蓄杠 or 冲杠, with
        :attr:`threat_pi_kongs` a 癞子皮杠 (an indicator-kind tile, which may as well be
        thrown), and with :attr:`threat_must_kongs` a 红中杠 or 发财杠 late in the wall of a
        hand that can still win."""
        if isinstance(a, SpecialKong) and a.kind in ("red", "green"):
            t = self.t
            return (0 < t.wall <= self.threat_must_kongs
                    and not self.hopeless(t, evaluator(t.hand, t.melds, t).best()[0], t.opened))
        return isinstance(a, Kong) or (self.threat_pi_kongs and isinstance(a, SpecialKong)
                                       and a.kind == "pi")

    # ------------------------------------------------------------------ turn
    def turn(self, t: SeatReading) -> Action:
        if (self.hopeless_holds and discard_choices(t)
                and any(isinstance(a, (Kong, SpecialKong)) for a in t.actions)
                and self.hopeless(t, evaluator(t.hand, t.melds, t).best()[0], t.opened)):
            # no win left to raise: a kong (红中's too) only raises what this seat pays
            t.actions = [a for a in t.actions if not isinstance(a, (Kong, SpecialKong))]
        laizi_kong = next((a for a in t.actions
                           if isinstance(a, SpecialKong) and a.kind == "laizi"), None)
        if (laizi_kong is not None and self.threat_kongs and self.threat_laizi_kongs
                and discard_choices(t) and self._anyone_open()
                and self.kong_costs(t, laizi_kong)):
            # beside a read threat, a laizi kong that leaves the hand short of ready and
            # lowers its outlook is not made by any rule below: the wild is held
            t.actions = [a for a in t.actions if a is not laizi_kong]
            laizi_kong = None
        if laizi_kong is not None and self.idle_wild_kongs and self.idle_wild_kong(t):
            t.actions = [a for a in t.actions if a is not laizi_kong]
            laizi_kong = None
        if (laizi_kong is not None and not any(
                isinstance(a, SpecialKong) and a.kind in ("red", "green") for a in t.actions)
                and self.lone_laizi_blocks(t)):
            return laizi_kong
        if (laizi_kong is not None and self.free_laizi_kong and t.counts[t.laizi] == 1
                and self.laizi_kong_is_free(t)):
            return laizi_kong
        if laizi_kong is not None and self.laizi_ev and t.counts[t.laizi] == 1:
            keep, kong = self.laizi_lines(t)
            if kong > keep:
                return laizi_kong
        if self.hold_must and t.wall > self.hold_must and discard_choices(t):
            # a far hand keeps its 红中 / 发财: it cannot win with it, but it pays half
            ev = evaluator(t.hand, t.melds, t)
            if ev.best()[0] >= 3:
                t.actions = [a for a in t.actions
                             if not (isinstance(a, SpecialKong) and a.kind in ("red", "green"))]
        if self.keep_two_laizi and t.counts[t.laizi] >= 2 and t.wall > 22:
            # two wilds build faster; one is konged once the hand is ready (the
            # replacement draw may then win as 杠上花)
            ev = evaluator(t.hand, t.melds, t)
            if ev.best()[0] > 0 and discard_choices(t):
                t.actions = [a for a in t.actions
                             if not (isinstance(a, SpecialKong) and a.kind == "laizi")]
        if (self.rob_max > 0
                and any(isinstance(a, Kong) and a.kind == "added" for a in t.actions)
                and discard_choices(t) and self._anyone_open()):
            # an added kong (蓄杠) may be robbed (抢杠), and the konger then pays for all
            # three losers: not where that is expected to cost more than ``rob_max``
            model = self.model()
            t.actions = [a for a in t.actions
                         if not (isinstance(a, Kong) and a.kind == "added"
                                 and model.rob_risk(a.tile)[1] > self.rob_max)]
        if discard_choices(t):
            self.drop_costly_kongs(t)
        if self.kong_max_shanten < 99 and any(isinstance(a, Kong) for a in t.actions):
            # an optional kong doubles (暗杠: quadruples) what this seat pays when it
            # loses; a hand far from winning does not want that
            ev = evaluator(t.hand, t.melds, t)
            if ev.best()[0] > self.kong_max_shanten and discard_choices(t):
                t.actions = [a for a in t.actions if not isinstance(a, Kong)]
        return super().turn(t)

    def kong_keeps_value(self, t: SeatReading, hand: Sequence[int], melds: Sequence[Meld],
                         after: int, peng: bool = False) -> bool:
        """A kong that leaves the hand ready is made only if its waits are worth as much
        as those of the best ready discard (:meth:`wait_value`: the unseen tiles that
        win, each by what its win pays, the kong's factor included), the replacement
        draw counted as one more of this seat's draws.  Greedy's rule (every kong that
        costs no step) konged 6p out of 23345666p beside 123p and 555p: one 3p left to
        win on, where throwing the 3p waits on seven 4p and 7p of a 清一色 at the same
        cap.  With the waits' value off (``use_value``: ``laizishanzhuang``), greedy's
        count of the winning tiles times the kong's factor decides
        (:meth:`GreedyBot.kong_keeps_waits`: there the expert made that kong too).  Only
        with ``kong_value`` (an option: its ablation)."""
        if after != 0 or not self.kong_value:
            return True
        if not self.use_value:
            return self.kong_keeps_waits(t, hand, melds, peng)
        if getattr(self, "t", None) is not t:
            self._prepare(t)
        ev = evaluator(t.hand, t.melds, t)
        best = 0.0
        if t.phase in ("claim", "rob") and live_shanten(ev, t) == 0:
            best = self.wait_value(list(t.hand), t.melds)  # a 冲杠: the hand as it stands
        if peng:  # and against the peng of the same tile (GreedyBot.peng_over_kong_claim)
            best = max(best, self._peng_value(t))
        for d in discard_choices(t):
            if live_shanten(ev, t, d) == 0:
                h13 = list(t.hand)
                h13.remove(d)
                best = max(best, self.wait_value(h13, t.melds))
        draws = max(1.0, t.wall / 4)
        return self.wait_value(list(hand), melds) * (1.0 + 1.0 / draws) >= best

    def _peng_value(self, t: SeatReading) -> float:
        """The waits' value (:meth:`wait_value`, the peng's meld and factor in it) of the
        best ready discard after the peng of the tile on the table; 0 with none."""
        return max((self.wait_value(h13, melds) for h13, melds, _ in peng_ready_hands(t)),
                   default=0.0)

    def pick_discard(self, t: SeatReading, ev: Evaluator) -> Action | None:
        core = self.contract_tie(t, ev, self._core_discard(t, ev))
        choice = self.defend(t, ev, self.safe_tie(t, ev, core))
        return self.safe_swap(t, ev, choice) if self.swap_slack >= 0 else choice

    def safe_swap(self, t: SeatReading, ev: Evaluator, choice: Action | None) -> Action | None:
        """Among the discards as fast as ``choice`` (the same shanten, at most
        ``swap_slack`` fewer improving tiles) that keep at least ``swap_value`` of the win
        it keeps, play the one with the smallest expected deal-in and contract cost, by
        the opponents' ready shapes counted over the unseen tiles
        (:meth:`OpponentModel._shape_waits`); only for a saving of at least ``swap_gain``
        points, so that equal tiles do not churn.  Nothing is sampled: a pure function of
        the view."""
        if not isinstance(choice, Discard) or not self._anyone_open():
            return choice
        # (its rob reading the model's default, whatever ``rob_ready`` says, as before)
        model = self.model() if self.waits == "shapes" else self._new_model("shapes", True)
        d0 = choice.tile
        sh0 = ev.shanten_after(d0, -1)
        acc0 = ev.with_tile(d0, -1).acceptance(t.unseen, t.laizi, current=sh0)[0]

        def cost(d: int, sh: int) -> float:
            _, deal, contract = model.risk(d, sh)
            return deal + contract

        c0 = cost(d0, sh0)
        if c0 < self.swap_gain:
            return choice
        v0: float | None = None
        best, pick = c0 - self.swap_gain, d0
        for d in discard_choices(t):
            if d == d0 or ev.shanten_after(d, -1) != sh0:
                continue
            c = cost(d, sh0)
            if c > best or (c == best and d > pick):
                continue
            if ev.with_tile(d, -1).acceptance(t.unseen, t.laizi, current=sh0)[0] < acc0 - self.swap_slack:
                continue
            if v0 is None:
                v0 = self.my_win_value(t, ev, d0)
            if self.my_win_value(t, ev, d) < self.swap_value * v0:
                continue
            best, pick = c, d
        if pick == d0:
            return choice
        self.swapped += 1
        return Discard(pick)

    def _core_discard(self, t: SeatReading, ev: Evaluator) -> Action | None:
        choices = discard_choices(t)
        if not choices:
            return None
        scored = [(live_shanten(ev, t, d, self.live_waits), d) for d in choices]
        best = min(s for s, _ in scored)
        # ready after the discard but every winning tile in sight: a step away, and ranked
        # by the tiles that make it ready on live ones (greedy.revive_acceptance)
        dead = {d for s, d in scored if s == 1 and ev.shanten_after(d, -1) == 0}
        # fold: someone looks ready and this hand is far away
        if self.fold and best >= 2 and self.max_threat() >= 0.35:
            safest = min(choices, key=lambda d: (self.danger(d, best), -tile_shape_rank(d, t.counts)))
            return Discard(safest)
        tied = [d for s, d in scored if s == best]
        if best == 0 and self.use_value:
            # ready after the discard: the waits' real value, minus the danger.  When no
            # wait can pass the minimum score yet (later openings and kongs may still
            # get there), the tiles that complete the shape decide, as acceptance would.
            hand = list(t.hand)
            rated = []
            for d in tied:
                h13 = list(hand)
                h13.remove(d)
                value, shaped, _ = self._wait_counts(h13, t.melds)
                rated.append((value / max(1, t.unseen_total) * 4, shaped, d))
                if self._over():
                    break
            if any(v > 0 for v, _, _ in rated):
                out = sorted(((v - self.danger(d, 0), -tile_shape_rank(d, t.counts), d)
                              for v, _, d in rated), reverse=True)
                return Discard(out[0][2])
            steps = (self._big_steps(t, ev, scored)
                     if self.refused_ready and len(rated) == len(tied) else [])
            if steps and not set(steps) & set(tied):
                best, tied = 1, steps  # the refused ready hand is a step away
            elif steps:
                # every ready discard wins nothing: of those a big target's step away, the
                # one whose big targets take the most tiles
                return Discard(max(((self._big_step_tiles(t, ev, d), n, -self.danger(d, 0),
                                     -tile_shape_rank(d, t.counts), d)
                                    for _, n, d in rated if d in steps))[-1])
            elif len(rated) == len(tied):
                out2 = sorted(((n, -self.danger(d, 0), -tile_shape_rank(d, t.counts), d)
                               for _, n, d in rated), reverse=True)
                return Discard(out2[0][3])
        # a big hand first at equal shanten: a discard that keeps a big-hand target
        # (one suit, all pungs, 2/5/8, honours) as close as the best is preferred,
        # and its acceptance is counted for that target
        # each target's shanten after each discard, asked once for the ranking below
        after = {d: {tg: ev.shanten_after(d, -1, tg) for tg in ev.allowed} for d in tied}
        aims: dict[int, tuple[str, ...]] = {d: () for d in tied}
        if self.big_target and best >= 1:
            for d in tied:
                key, target = self.shanten_key(ev, d, t)
                if target == "small" or key >= best or d in dead:
                    continue
                if self.aim_union:
                    # every big target as close as the best one: keeping 风一色 open beside
                    # 碰碰胡 takes the honours too (which one came first was the name order)
                    aims[d] = tuple(tg for tg, sh in after[d].items()
                                    if tg != "small" and sh - self.big_target == key)
                else:
                    aims[d] = (target,)
                if best == 1 and self.live_steps and self.live_waits:
                    # a big target no unseen tile makes ready on a live wait (the laizi
                    # aside) is no aim: a 碰碰胡 whose pairs' other copies are in sight
                    ev13 = ev.with_tile(d, -1)
                    aims[d] = tuple(tg for tg in aims[d]
                                    if ready_acceptance(ev13, t, tg) > t.unseen[t.laizi])
            if any(aims.values()):
                tied = [d for d in tied if aims[d]]
        if len(tied) == 1:
            return Discard(tied[0])
        ranked: list[tuple[float, int, int, tuple[tuple[int, ...], int], int]] = []
        for d in tied:
            ev13 = ev.with_tile(d, -1)
            aim = aims[d]
            if d in dead:
                plain = revive_acceptance(ev13, t)
            elif best == 1 and self.live_steps and self.live_waits:
                plain = ready_acceptance(ev13, t)
            else:
                plain, _ = ev13.acceptance(t.unseen, t.laizi, current=best)
            if aim and self.aim_small and after[d]["small"] == best:
                acc, _ = ev13.acceptance_any(t.unseen, t.laizi, (*aim, "small"))
            elif len(aim) == 1:
                acc, _ = ev13.acceptance(t.unseen, t.laizi, target=aim[0],
                                         current=ev13.shanten(aim[0]))
            elif aim:
                acc, _ = ev13.acceptance_any(t.unseen, t.laizi, aim)
            else:
                acc = plain
            bigb = 0.0 if self.big_target else self._big_bonus(ev, d, best)
            dang = self.danger(d, best)
            # equal for the big target, the discard better for the small hand goes first
            # (before, the tile order decided, so which suit a tile was in did)
            # then the more big targets kept open, then the small hand's acceptance; of
            # discards equal in all that, the one whose targets within a step of the best
            # are closer, nearest first (``near_targets``), before the tile's shape
            spread = tuple(sorted(min(sh, best + 2) for sh in after[d].values())
                           ) if self.near_targets else ()
            if best == 0 and self.ready_big and not self.use_value:
                # ready either way, the waits' value off: a wait counts by the win it
                # keeps, so a big hand's three tiles beat a small hand's four
                big = self.shanten_key(ev, d)[1] != "small"
                win = self.my_win_value(t, ev, d, big=big)
                if big and self.big_at_typical:
                    win = max(win, self._big_at_typical(t))
                worth = (acc * win / typical_win(t.rules)
                         * (self._big_bases(t, ev13, d) if self.ready_bases else 1.0))
            else:
                worth = float(acc)
            ranked.append((-(worth * (1.0 + bigb)) + dang * 0.5, -len(aim), -plain,
                           (spread, tile_shape_rank(d, t.counts)), d))
        ranked.sort()
        keyed = [(k, r, d) for k, _, _, r, d in ranked]
        if self.lookahead and best >= 1 and len(keyed) > 1 and keyed[0][2] not in dead:
            # two-step acceptance among the best few: how many (draw, draw) paths
            # bring the hand two steps closer
            # the best four, and any tied with the fourth (which of equal tiles made the
            # cut followed the tile order, so the suits' names)
            n = 4
            while n < len(keyed) and keyed[n][0] == keyed[3][0]:
                n += 1
            # (a dead ready hand's two steps are not counted: its every draw "improves" it)
            top = [(k, r, d) for k, r, d in keyed[:n]
                   if (k <= keyed[0][0] * 0.8 or k == keyed[0][0]) and d not in dead
                   and (not self.step_margin or k < keyed[0][0] + self.step_margin)]
            if len(top) > 1:
                deep = []
                for _k, r, d in top:
                    deep.append((-self._two_step(ev.with_tile(d, -1), best, t), r, d))
                    # a deterministic work budget (acceptance evaluations), and the
                    # wall-clock cap as a last resort
                    if self.work > self.lookahead_work or self._over():
                        return Discard(keyed[0][2])
                deep.sort()
                return Discard(deep[0][2])
        return Discard(keyed[0][2])

    @staticmethod
    def _big_at_typical(t: SeatReading) -> float:
        """:attr:`big_at_typical`: what a big hand's win collects (the caps applied) with the
        factors that would bring this seat's small win to the profile's typical win
        (:func:`wuhan_mahjong.bots.opponents.typical_win`, the floor
        :meth:`my_win_value` gives a small hand): its factors now, times the growth the
        typical small win implies."""
        opening = 0 if t.opened else 1
        small = t.collected(1, t.my_multiplier(big=False, hard=False, self_drawn=False,
                                               extra_openings=opening), None)
        typical = typical_win(t.rules)
        growth = (Fraction(typical / small).limit_denominator(1000) if 0 < small < typical
                  else Fraction(1))
        mw = t.my_multiplier(big=True, hard=False, self_drawn=False, extra_openings=opening)
        return t.collected(10, mw * growth, None)

    @staticmethod
    def _big_steps(t: SeatReading, ev: Evaluator, scored: Sequence[tuple[int, int]]
                   ) -> list[int]:
        """:attr:`refused_ready`: the discards (of ``scored``, (live shanten, discard)
        pairs) ready or a step from ready that keep a big-hand target a step away, some
        unseen tile (the laizi aside) making it ready on a live winning tile (a big hand's
        win passes the minimum score)."""
        out = []
        for s, d in scored:
            if s > 1:
                continue
            ev13 = ev.with_tile(d, -1)
            if any(tg != "small" and ev13.shanten(tg) == 1
                   and ready_acceptance(ev13, t, tg) > t.unseen[t.laizi] for tg in ev13.allowed):
                out.append(d)
        return out

    @staticmethod
    def _big_step_tiles(t: SeatReading, ev: Evaluator, d: int) -> int:
        """:attr:`refused_ready`: the unseen tiles that bring a big target a step from
        ready after discarding ``d`` closer (any of them, :meth:`Evaluator.acceptance_any`)."""
        ev13 = ev.with_tile(d, -1)
        aims = tuple(tg for tg in ev13.allowed if tg != "small" and ev13.shanten(tg) == 1)
        return ev13.acceptance_any(t.unseen, t.laizi, aims)[0]

    def haidi_worth(self, t: SeatReading, tile: int, live: int) -> float:
        """:attr:`haidi_bases`: the 海底捞 tiles left after discarding ``tile``, each counted
        by what its win collects against one big hand's (:meth:`_big_bases`: 清一色 and
        海底捞 are two big hands, a small hand's shape and 海底捞 one)."""
        if not self.haidi_bases or not live:
            return float(live)
        ev13 = evaluator(t.hand, t.melds, t).with_tile(tile, -1)
        return live * self._big_bases(t, ev13, tile, "last_tile")

    @staticmethod
    def _big_bases(t: SeatReading, ev13: Evaluator, d: int, win_by: str = "self_draw") -> float:
        """How many times the mean winning tile of the hand left by discarding ``d`` pays a
        win of one big hand (1.0 where no wait makes more than one): each unseen winning
        tile (:func:`wait_summary`, self-drawn, or ``win_by``) counted by what a win of its big-hand base
        (10 a big hand; 清一色碰碰胡 20, added in ``laizishanzhuang``, doubled elsewhere:
        :func:`wuhan_mahjong.scoring.big_hand_base`) collects with this seat's factors,
        after the caps (:meth:`SeatReading.collected`), against a base of 10; a small or a
        one-big-hand wait counts 1.  Where the caps hold every win anyway it is 1.  The
        analysis is asked only where two big targets are ready in shape (``ev13``: the hand
        after ``d``), as a wait of two big hands needs (风一色 alone where it counts two; on a
        final draw one big target, 海底捞 being a big hand of its own)."""
        ready = [tg for tg in ev13.allowed if tg != "small" and ev13.shanten(tg) <= 0]
        situational = 1 if win_by == "last_tile" else 0
        if len(ready) + situational + (t.rules.fengyise_big_hands - 1) * ready.count("fys") < 2:
            return 1.0
        rest = list(t.hand)
        rest.remove(d)
        waits_left = [(t.unseen[w[0]], w[4]) for w in wait_summary(rest, t.melds, t, win_by)
                      if t.unseen[w[0]] and w[0] not in t.must]
        if not any(base > 10 for _, base in waits_left):
            return 1.0
        mw = t.my_multiplier(big=True, hard=False, self_drawn=True,
                             extra_openings=0 if t.opened else 1)
        one = max(1e-9, t.collected(10, mw, None))
        total = sum(n * (t.collected(base, mw, None) / one if base > 10 else 1.0)
                    for n, base in waits_left)
        return total / sum(n for n, _ in waits_left)

    def safe_tie(self, t: SeatReading, ev: Evaluator, choice: Action | None) -> Action | None:
        """:attr:`safe_ties`: the core's discard (not ready after it) swapped for one the
        opponent model reads as all but safe (an expected deal-in and contract cost of at
        most :data:`SAFE_COST` points: a tile he let go by, or one his hand cannot use) that
        is as fast (the same shanten and target, at least as many tiles that bring the
        hand closer), when the core's costs at least ``safe_ties`` points.  Only while some
        opponent reads as ready with a chance of ``threat_min``, or with :attr:`early_ties`
        any chance at all."""
        threatened = (self._threatened(ev, choice, 1e-9 if self.early_ties else None)
                      if self.safe_ties > 0 else None)
        if threatened is None:
            return choice
        model, d0, sh0 = threatened
        if (sh0 == 0 and not self.ready_ties) or sum(model.risk(d0, sh0)[1:]) < self.safe_ties:
            return choice
        if sh0 == 0:
            pick = self._ready_tie(t, ev, d0, lambda d: sum(model.risk(d, 0)[1:]))
            return choice if pick is None else Discard(pick)
        swap = self._as_fast_swap(t, ev, d0, sh0, lambda d: sum(model.risk(d, sh0)[1:]), SAFE_COST)
        return choice if swap is None else Discard(swap)

    def _ready_tie(self, t: SeatReading, ev: Evaluator, d0: int,
                   cost: Callable[[int], float]) -> int | None:
        """:attr:`ready_ties`: another ready discard than ``d0`` whose ``cost`` is at most
        :data:`SAFE_COST` and whose waits are worth at least what ``d0``'s are on every
        count of :meth:`_wait_counts` (the settled value, the tiles that complete the
        shape, the tiles that win legally): the cheapest, then by the tiles' shape;
        ``None`` if there is none (or with the switch off)."""
        if not self.ready_ties:
            return None
        safe = [(cost(d), tile_shape_rank(d, t.counts), d) for d in discard_choices(t)
                if d != d0 and ev.shanten_after(d, -1) == 0]
        safe = sorted(k for k in safe if k[0] <= SAFE_COST)
        if not safe:
            return None

        def counts(d: int) -> tuple[float, int, int]:
            h13 = list(t.hand)
            h13.remove(d)
            return self._wait_counts(h13, t.melds)

        c0 = counts(d0)
        for _, _, d in safe:
            if all(x >= y for x, y in zip(counts(d), c0, strict=True)):
                return d
        return None

    def _as_fast_swap(self, t: SeatReading, ev: Evaluator, d0: int, sh0: int,
                      cost: Callable[[int], float], limit: float) -> int | None:
        """A discard other than ``d0`` as fast as it (the same shanten after it and the same
        target, at least as many tiles that bring the hand closer) whose ``cost`` is at most
        ``limit``: the cheapest, then by the tiles' shape; ``None`` if there is none."""
        key0 = self.shanten_key(ev, d0, t)
        acc0, _ = ev.with_tile(d0, -1).acceptance(t.unseen, t.laizi, current=sh0)
        best: tuple[float, int, int] | None = None
        for d in discard_choices(t):
            if d == d0 or ev.shanten_after(d, -1) != sh0 or self.shanten_key(ev, d, t) != key0:
                continue
            paid = cost(d)
            if paid > limit:
                continue
            acc, _ = ev.with_tile(d, -1).acceptance(t.unseen, t.laizi, current=sh0)
            if acc < acc0:
                continue
            k = (paid, tile_shape_rank(d, t.counts), d)
            if best is None or k < best:
                best = k
        return None if best is None else best[2]

    def contract_tie(self, t: SeatReading, ev: Evaluator, choice: Action | None) -> Action | None:
        """:attr:`contract_ties`: the core's discard (not ready after it) swapped for one as
        fast (the same shanten and target, at least as many tiles that bring the hand
        closer) whose expected contract and deal-in cost is at least ``min_saving`` points
        lower, when the core's feeds a contract (承包: the third meld of a one-suit hand
        shown in two melds, or the tile of a 全求人) by that much.  A contract is owed when
        he wins, whether or not he is ready now, so this asks no threat (the push-or-fold
        layer and :meth:`safe_tie` wait for one); the cheapest such discard goes, then the
        tiles' shape.  Only where the core's discard may feed one (:meth:`may_feed`)."""
        if (not self.contract_ties or not isinstance(choice, Discard)
                or not self.may_feed(t, choice.tile)):
            return choice
        d0 = choice.tile
        sh0 = ev.shanten_after(d0, -1)
        if sh0 == 0:
            return choice  # a ready hand's discard is chosen by its waits
        model = self.model()
        _, deal0, contract0 = model.risk(d0, sh0)
        if contract0 < self.min_saving:
            return choice
        swap = self._as_fast_swap(t, ev, d0, sh0, lambda d: sum(model.risk(d, sh0)[1:]),
                                  deal0 + contract0 - self.min_saving)
        return choice if swap is None else Discard(swap)

    @staticmethod
    def may_feed(t: SeatReading, tile: int) -> bool:
        """Whether discarding ``tile`` could make this seat contract (承包), before the
        opponent model is asked (it costs about a millisecond): some opponent shows four
        openings (a 全求人 may wait on it), or two melds of one family that ``tile`` belongs
        to (one suit, honours, 2/5/8: the third meld of his big hand)."""
        for o in range(4):
            ps = t.seats[o]
            if o == t.me or ps.openings not in (2, 4) or not ps.melds:
                continue
            if ps.openings == 4:
                return True
            tiles = [x for m in ps.melds for x in m.tiles]
            if ((tile < 27 and all(x < 27 and x // 9 == tile // 9 for x in tiles))
                    or (is_honour(tile) and all(is_honour(x) for x in tiles))
                    or (is_258(tile) and all(is_258(x) for x in tiles))):
                return True
        return False

    def hopeless(self, t: SeatReading, shanten: int, opened: bool) -> bool:
        """Whether a hand ``shanten`` steps from ready (``opened`` or not) can no longer be
        won: its steps to ready (and the opening a closed hand needs, :attr:`closed_step`)
        are at least the draws this seat has left, a quarter of the live wall rounded up,
        when every one of them (and the winning tile) would have to help.  Claims could
        bring a few more tiles, so this is a floor; the end phase leaves fewer draws."""
        steps = shanten + (0 if opened else self.closed_step)
        return steps >= -(-t.wall // 4)

    def _two_step(self, ev13: Evaluator, sh: int, t: SeatReading) -> float:
        """Σ over tiles u that lower the shanten of this 13-tile hand of unseen(u) × the
        best acceptance after drawing u and discarding well."""
        total = 0.0
        unseen = t.unseen
        laizi = t.laizi
        cache = self._acc_cache
        for u in range(NUM_KINDS):
            n = unseen[u]
            if not n or u in t.must or u == laizi:
                continue
            if ev13.shanten_after(u, 1) >= sh:
                continue
            ev14 = ev13.with_tile(u, 1)
            counts = ev14.counts
            best_acc = 0
            for d in range(NUM_KINDS):
                if counts[d] and ev14.shanten_after(d, -1) == sh - 1:
                    self.work += 1  # counted as asked, cached or not: the same budget
                    counts[d] -= 1
                    key = tuple(counts)
                    counts[d] += 1
                    acc = cache.get(key)
                    if acc is None:
                        acc, _ = ev14.with_tile(d, -1).acceptance(unseen, laizi, current=sh - 1)
                        cache[key] = acc
                    if acc > best_acc:
                        best_acc = acc
            total += n * best_acc
        return total

    def _big_bonus(self, ev: Evaluator, d: int, best: int) -> float:
        """A premium for discards that keep a big-hand target as close as the small one."""
        if not self.use_value:
            return 0.0
        bonus = 0.0
        for tg in ev.allowed:
            if tg == "small":
                continue
            if ev.shanten_after(d, -1, tg) <= best:
                bonus = max(bonus, 0.5)
        return bonus

    # ------------------------------------------------------------------ claims
    def claim(self, t: SeatReading) -> Action:
        if self.ready_claims and t.opened:
            ready = self.ready_claim(t)
            if ready is not None:
                return ready
        self.drop_costly_kongs(t)
        choice = self.claim_equal_acceptance(t) if self.claim_equal else super().claim(t)
        if self.hopeless_holds and isinstance(choice, (Chi, Peng, Kong)):
            res = after_claim(t, choice)
            if res is not None:
                hand, melds = res
                ev2 = evaluator(hand, melds, t)
                after = (ev2.best()[0] if isinstance(choice, Kong) else
                         min((ev2.shanten_after(d, -1) for d in claim_discards(t, hand)),
                             default=99))
                if self.hopeless(t, after, True):
                    return PASS  # the opening (and a kong) would only raise what it pays
        if (self.threat_claims and (t.opened or self.threat_openings) and not t.end_phase
                and isinstance(choice, (Chi, Peng)) and self._anyone_open()
                and self.claim_costs(t, choice)):
            return PASS  # its opening's factor costs more beside the threat than it gains
        if isinstance(choice, Kong) and self.kong_max_shanten < 99:
            ev = evaluator(t.hand, t.melds, t)
            if ev.best()[0] > self.kong_max_shanten:
                return PASS
        if (self.claim_ev and (t.opened or self.claim_ev == 1) and isinstance(choice, (Chi, Peng))
                and not self.claim_worth(t, choice)):
            return PASS
        if choice is PASS or not self.claim_filter:
            return choice
        # a claim that gives speed only at equal shanten raises exposure; pass on it
        # while an opponent is threatening
        ev = evaluator(t.hand, t.melds, t)
        cur = ev.best()[0]
        res = after_claim(t, choice)
        if res is None or isinstance(choice, Kong):
            return choice
        hand, melds = res
        ev2 = evaluator(hand, melds, t)
        after = min((ev2.shanten_after(d, -1) for d in claim_discards(t, hand)), default=99)
        if after >= cur and t.opened and self.max_threat() >= 0.5 and isinstance(choice, (Chi, Peng)):
            return PASS
        return choice

    def short_of_minimum(self, t: SeatReading) -> bool:
        """With :attr:`closed_minimum`, a closed hand is short of the minimum score for an
        idle claim only if no small win passes it with the opening it needs anyway and a
        second opening raises its factors (口口翻)."""
        if not self.closed_minimum or t.opened:
            return super().short_of_minimum(t)
        return not t.small_win_possible(extra_openings=1) and opening_adds_factor(t, opened=1)

    def ready_claim(self, t: SeatReading) -> Action | None:
        """An opened, ready hand's chi or peng by what its waits are worth: a claim that
        keeps the hand ready is made when the hand after it (and its best discard) has
        the better outlook, ``P(win) × the mean value of a winning tile − P(no win) ×
        the plain loss``, less the discard's expected deal-in and contract cost.
        Shanten alone calls such claims idle, but the waits' value can change entirely:
        a ready small hand becomes, by a fourth claim, a 全求人 (a big hand) waiting on
        the same 2/5/8, and in 边锋 a small hand whose every win falls short of the
        minimum score becomes one whose wins pass it.

        Where the claim adds a factor (口口翻), the loss after it counts that factor too.
        The rule only adds claims: a claim greedy's rules make stands (the exposure rule,
        :meth:`claim_worth`, measured even in the arena).  None, so that those rules
        decide, when the hand is not ready, a kong is on offer (greedy's rule makes it),
        in the end phase (only a 海底捞 can win there: :meth:`GreedyBot.end_phase_claim`),
        or when no claim is worth more than passing."""
        claims = [a for a in t.actions if isinstance(a, (Chi, Peng, Kong))]
        if not claims or any(isinstance(a, Kong) for a in claims) or t.end_phase:
            return None
        ev = evaluator(t.hand, t.melds, t)
        if ev.best()[0] != 0:
            return None
        unseen = max(1, t.unseen_total)
        turns = max(0.5, t.wall / 4)
        loss = PLAIN_SHARE * typical_win(t.rules)
        factor = float(t.multiplier(t.me, big=False, extra_openings=1)
                       / t.multiplier(t.me, big=False))

        def outlook(hand13: list[int], melds: Sequence[Meld],
                    exposure: float) -> tuple[float, float, int]:
            """(the outlook, the mean value of a legally winning tile (0 with none), the
            legally winning tiles, less the laizi's copies with :attr:`wider_plain_waits`)"""
            value, _, legal = self._wait_counts(hand13, melds)
            p = self.win_chance_fit(0, legal, unseen, turns) if legal else 0.0
            per_tile = value / max(1, legal)
            wild = t.unseen[t.laizi] if (self.wider_plain_waits and t.laizi not in t.must
                                         and self.win_value(hand13, t.laizi, melds) > 0) else 0
            return p * per_tile - (1.0 - p) * loss * exposure, per_tile, legal - wild

        best, per_tile_now, legal_now = outlook(list(t.hand), t.melds, 1.0)  # passing
        choice: Action = PASS
        model = self.model() if self._anyone_open() else None
        for a in claims:
            res = after_claim(t, a)
            if res is None:
                continue
            hand, melds = res
            ev2 = evaluator(hand, melds, t)
            for d in claim_discards(t, hand):
                if ev2.shanten_after(d, -1) != 0:
                    continue
                h13 = list(hand)
                h13.remove(d)
                rated, per_tile, legal = outlook(h13, melds, factor)
                if (per_tile_now and per_tile < per_tile_now * self.ready_value_ratio
                        and not (self.wider_ready_claims and per_tile >= per_tile_now
                                 and legal >= 2 * legal_now)
                        and not (self.capped_quanqiuren and len(h13) == 1
                                 and per_tile > per_tile_now and legal >= legal_now)):
                    continue  # the waits' worth hardly changes: acceptance alone decides
                if model is not None:
                    _, deal, contract = model.risk(d, 0)
                    rated -= deal + contract
                if rated > best:  # ties: pass, then the first claim in the legal order
                    best, choice = rated, a
        return None if choice is PASS else choice

    def claim_worth(self, t: SeatReading, claim: Chi | Peng) -> bool:
        """Whether ``claim`` is worth its exposure, by the hand's expected result
        ``P(win) × win − (1 − P(win)) × loss`` before and after it.  Nearly every hand has
        a winner, so a seat that does not win pays (a plain share of the profile's
        typical win).  The claim's opening multiplies that loss by its factor, and the win
        too unless the hand is closed (a closed hand's win already counts the opening it
        needs, and its chance one more step: :attr:`closed_step`)."""
        res = after_claim(t, claim)
        if res is None:
            return True
        hand, melds = res
        ev = evaluator(t.hand, t.melds, t)
        ev2 = evaluator(hand, melds, t)
        options = claim_discards(t, hand)
        if not options:
            return True
        unseen = max(1, t.unseen_total)
        turns = max(0.5, t.wall / 4)
        sh0 = ev.best()[0]
        acc0, _ = ev.acceptance(t.unseen, t.laizi)
        # the arena's fit: the gamma model rates a far hand's chance far too high here
        p0 = self.win_chance_fit(sh0 + (0 if t.opened else self.closed_step), acc0, unseen, turns)
        if t.opened and not t.small_win_possible() and t.small_win_possible(extra_openings=1):
            p0 = 0.0  # the claim's factor is what lets a small hand pass the minimum score
        shanten1 = {d: ev2.shanten_after(d, -1) for d in options}
        sh1 = min(shanten1.values())
        acc1 = best_acceptance(ev2, t, (d for d in options if shanten1[d] == sh1), sh1)
        p1 = self.win_chance_fit(sh1, acc1, unseen, turns)
        factor = float(t.multiplier(t.me, big=False, extra_openings=1)
                       / t.multiplier(t.me, big=False))
        win = self.my_win_value(t, ev)
        loss = PLAIN_SHARE * typical_win(t.rules)
        before = p0 * win - (1.0 - p0) * loss
        after = p1 * win * (factor if t.opened else 1.0) - (1.0 - p1) * loss * factor
        return after >= before

    def claim_equal_acceptance(self, t: SeatReading) -> Action:
        """Greedy's claim rule, extended: a claim at equal shanten is also made when the
        hand after it accepts at least ``claim_equal`` times as many tiles."""
        claims = [a for a in t.actions if isinstance(a, (Peng, Chi, Kong))]
        if not claims:
            return PASS
        ev = evaluator(t.hand, t.melds, t)
        cur = ev.best()[0]
        acc0, _ = ev.acceptance(t.unseen, t.laizi)
        eager = not t.opened
        best: tuple[tuple[int, int], Action] | None = None
        for a in claims:
            res = after_claim(t, a)
            if res is None:
                continue
            hand, melds = res
            ev2 = evaluator(hand, melds, t)
            if isinstance(a, Kong):
                after, acc = ev2.best()[0], acc0
            else:
                opts = [(ev2.shanten_after(d, -1), d) for d in claim_discards(t, hand)]
                if not opts:
                    continue
                after = min(s for s, _ in opts)
                acc = best_acceptance(ev2, t, (d for s, d in opts if s == after),
                                      live=self.live_waits)
            ok = after < cur or (after == cur and (
                eager or isinstance(a, Kong) or acc >= acc0 * self.claim_equal))
            key = (after, -acc)
            if ok and (best is None or key < best[0]):
                best = (key, a)
        return best[1] if best is not None else PASS
