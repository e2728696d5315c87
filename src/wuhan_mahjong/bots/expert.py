"""``expert``: greedy's speed, plus the value of its waits, and contracting risk by sampling.

The expert starts from the greedy ordering (shanten over every target shape,
then tile acceptance) and changes it where it can price the difference.

*The core* (every profile).  Big hands first at equal shanten: a big hand has
base 10 against 1 and usually reaches the cap, so among the discards at the
best shanten one that keeps a big-hand target at that shanten is played
(``big_target``; the same key decides whether a claim brings the hand
closer).  No idle claims while far and closed: an unopened hand makes claims
that do not bring it closer only below shanten 2 (``eager_below``); far from
ready the opening would come anyway, and it doubles what the seat pays when it
loses.  Both were found on the greedy chassis and measured in the arena.

*Per profile* (:data:`PROFILE_SETTINGS`): what follows is switched off where
the arena measured that it does not pay (in ``laizishanzhuang``, all of it).

*Laizi.*  It keeps its single laizi as a wild.  Greedy kongs it when a small
hand could not pass the minimum score with the factors held now (×4 in
``yuanhang`` / ``bianfeng``); measured in the arena, the wild's speed is worth
more than the factor (docs/bots.md, ablations), and the minimum score is more
often met through openings and 红中 kongs made anyway.  It also keeps a second
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

*Contracting (承包) by determinization.*  For each opened opponent (an unopened
hand cannot win) the bot samples his concealed tiles from the tiles it has not
seen (the other hands and the wall are one multiset from this seat's point of
view), keeps the samples that are ready (the table-driven wait masks of
:mod:`wuhan_mahjong.shape`), and so estimates which tiles he waits on, weighted
by a readiness prior from his exposed melds and the stage of the hand.  That
prices the liabilities: feeding the third meld of a hand that shows two melds
of one suit (or 2/5/8 / honours where the profile contracts those), and dealing
into a 全求人.  Plain deal-in danger and folding are options
(``deal_in_weight``, ``fold``) that are off by default: in this game all three
losers pay, dealing in only doubles one's own share, and the arena measured
both as losing points against greedy.

*Claims* follow greedy (a claim must not slow the hand); a claim that gives no
speed is passed while an opponent looks ready (its only effect would be a
higher multiplier to pay with).

The sampling RNG is seeded from the bot's seed and a digest of the view (less
its wall commitment), so a decision is a pure function of (seed, public view).
``samples`` and ``lookahead_work`` bound the work; ``time_cap_ms`` is a safety
cap per decision (the bot counts ``cap_hits``; when hit, it plays the best
choice found so far).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import time
from collections.abc import Sequence

from .. import shape
from ..analysis import NotAWin, candidate_mask
from ..engine.actions import PASS, WIN, Action, Chi, Discard, Kong, Peng, SpecialKong
from ..engine.views import SeatView
from ..meld import Meld
from ..scoring import SeatState, WinRecord, settle
from ..tiles import NUM_KINDS, is_258, is_honour
from .base import NoLegalAction
from .greedy import GreedyBot, after_claim, discard_choices, evaluator, tile_shape_rank
from .handeval import Evaluator
from .table import Table

_READY_BY_MELDS = (0.03, 0.10, 0.25, 0.50, 0.90)
_NON258 = sum(7 << (3 * t) for t in range(NUM_KINDS) if not is_258(t))
_SUITED = (1 << 81) - 1


_DEFAULTS: dict[str, float | bool] = {
    "use_value": True, "contract_weight": 1.0, "claim_filter": True, "lookahead": True,
    "keep_two_laizi": True}

#: Settings the arena measured per profile (docs/bots.md, ablations).  In
#: ``laizishanzhuang`` (laizi kong ×2, no minimum score, caps reached by half the
#: money) the laizi handling, the two-step search, the value of waits, the claim
#: filter and the contract term each measured no edge over the core (big hands
#: first at equal shanten, no idle claims while far and closed), and every
#: deviation from that core adds variance; so they are off there.
PROFILE_SETTINGS: dict[str, dict[str, float | bool]] = {
    "laizishanzhuang": {"keep_two_laizi": False, "lookahead": False, "use_value": False,
                        "claim_filter": False, "contract_weight": 0.0},
}


class ExpertBot(GreedyBot):
    """See the module docstring."""

    name = "expert"

    def __init__(self, seed: int | None = None, *, samples: int = 150, time_cap_ms: float = 90.0,
                 fold: bool = False, value: bool | None = None, deal_in_weight: float = 0.0,
                 contract_weight: float | None = None, laizi_for_minimum: bool = False,
                 claim_equal: float = 0.0, claim_filter: bool | None = None,
                 lookahead: bool | None = None, hold_must: int = 0,
                 kong_max_shanten: int = 99, keep_two_laizi: bool | None = None,
                 lookahead_work: int = 300, big_target: float = 0.5,
                 eager_below: int = 2) -> None:
        super().__init__(seed)
        self.seed = 0 if seed is None else seed
        self.samples = samples
        self.time_cap = time_cap_ms / 1000
        self.fold = fold
        self.deal_in_weight = deal_in_weight
        self.laizi_for_minimum = laizi_for_minimum
        self.claim_equal = claim_equal
        # None = the profile's measured setting (PROFILE_SETTINGS), else as given
        self.chosen: dict[str, float | bool | None] = {
            "use_value": value, "contract_weight": contract_weight, "claim_filter": claim_filter,
            "lookahead": lookahead, "keep_two_laizi": keep_two_laizi}
        self._tune(None)
        self.hold_must = hold_must
        self.kong_max_shanten = kong_max_shanten
        self.lookahead_work = lookahead_work
        self.big_target = big_target
        self.eager_below = eager_below
        self.work = 0
        self.cap_hits = 0

    # ------------------------------------------------------------------ entry
    def choose(self, view: SeatView) -> Action:
        t = Table(view)
        acts = t.actions
        if not acts:
            raise NoLegalAction(f"seat {t.me} has no decision to make")
        if WIN in acts:
            return WIN
        if t.phase in ("final", "rob"):
            return PASS
        self._start = time.perf_counter()
        # the commitment is a hash of the hidden wall: random noise to a player, so it
        # must not steer the sampling (equal public information, equal decisions)
        public = {k: v for k, v in view.items() if k != "commitment"}
        digest = hashlib.blake2b(json.dumps(public, sort_keys=True).encode(), digest_size=8)
        self.rng = random.Random(self.seed * 1_000_003 + int.from_bytes(digest.digest(), "big"))
        self.t = t
        self._tune(t.rules.profile)
        self.work = 0
        self._waits: dict[int, list[float]] | None = None
        self._value_cache: dict[tuple[tuple[int, ...], int], float] = {}
        if t.phase == "claim":
            return self.claim(t)
        return self.turn(t)

    def _tune(self, profile: str | None) -> None:
        """Set the per-profile options: as given to ``__init__``, else the profile's
        measured setting, else the default."""
        tuned = PROFILE_SETTINGS.get(profile or "", {})
        self.use_value = bool(self._setting("use_value", tuned))
        self.contract_weight = float(self._setting("contract_weight", tuned))
        self.claim_filter = bool(self._setting("claim_filter", tuned))
        self.lookahead = bool(self._setting("lookahead", tuned))
        self.keep_two_laizi = bool(self._setting("keep_two_laizi", tuned))

    def _setting(self, name: str, tuned: dict[str, float | bool]) -> float | bool:
        given = self.chosen[name]
        return tuned.get(name, _DEFAULTS[name]) if given is None else given

    def _over(self) -> bool:
        if time.perf_counter() - self._start > self.time_cap:
            self.cap_hits += 1
            return True
        return False

    # ------------------------------------------------------------------ threat model
    def readiness(self, seat: int) -> float:
        """Prior that ``seat`` is ready now, from public information."""
        t = self.t
        ps = t.seats[seat]
        if seat == t.me or ps.openings == 0:
            return 0.0  # no win without an opening
        m = min(4, len(ps.melds) + ps.hidden_kongs)
        stage = 1.0 - t.wall / 84.0
        return min(0.95, _READY_BY_MELDS[m] * (0.5 + stage))

    def wait_probs(self) -> dict[int, list[float]]:
        """Per opened opponent: P(tile kind completes his hand | he is ready), by sampling
        his concealed tiles from the unseen multiset and keeping the ready samples."""
        if self._waits is not None:
            return self._waits
        t = self.t
        out: dict[int, list[float]] = {}
        pool = [x for x in range(NUM_KINDS) for _ in range(t.unseen[x])]
        laizi = t.laizi
        must = set(t.must)
        for o in range(4):
            ps = t.seats[o]
            if o == t.me or ps.openings == 0 or ps.concealed > len(pool):
                continue
            n = ps.concealed
            melds = ps.melds
            pungs = all(m.is_pung for m in melds)
            honour_melds = all(is_honour(x) for m in melds for x in m.tiles)
            j_melds = all(is_258(x) for m in melds for x in m.tiles)
            suits = {x // 9 for m in melds for x in m.tiles}
            hits = [0.0] * NUM_KINDS
            ready = 0
            draws = self.samples if n <= 7 else self.samples // 2
            for _ in range(draws):
                hand = self.rng.sample(pool, n)
                if must.intersection(hand):
                    continue
                wilds = 0
                h = 0
                for x in hand:
                    if x == laizi:
                        wilds += 1
                    else:
                        h += 1 << (3 * x)
                mask = shape.wait_mask(h, wilds, shape.PAIR258)
                if len(suits) <= 1 and not (suits & {3}):
                    one = shape.wait_mask(h, wilds, shape.PAIR)
                    suit_of_hand = {x // 9 for x in hand if x != laizi} | suits
                    if len(suit_of_hand) == 1 and next(iter(suit_of_hand)) < 3:
                        mask |= one
                if pungs:
                    mask |= shape.wait_mask(h, wilds, shape.PPAIR)
                if honour_melds and not (h & _SUITED) and wilds + n >= 1:
                    mask |= sum(1 << x for x in range(27, NUM_KINDS) if x not in must)
                if j_melds and not (h & _NON258):
                    mask |= sum(1 << x for x in range(27) if is_258(x))
                mask &= ~(1 << laizi)  # a discarded laizi is never won on
                if not mask:
                    continue
                ready += 1
                for x in range(NUM_KINDS):
                    if mask >> x & 1:
                        hits[x] += 1
            if ready >= 3:
                out[o] = [x / ready for x in hits]
            else:
                out[o] = self._prior_waits(o)
        self._waits = out
        return out

    def _prior_waits(self, o: int) -> list[float]:
        t = self.t
        ps = t.seats[o]
        res = []
        for x in range(NUM_KINDS):
            u = t.unseen[x]
            if is_honour(x):
                p = 0.04 * u if u >= 2 else 0.01
            else:
                r = x % 9
                p = 0.06 if r in (0, 8) else (0.08 if r in (1, 7) else 0.10)
                if is_258(x):
                    p *= 1.2
            if x in ps.discards:
                p *= 0.4
            res.append(min(1.0, p))
        return res

    def pattern(self, o: int) -> str | None:
        ps = self.t.seats[o]
        melds = ps.melds
        if len(melds) < 2:
            return None
        tiles = [x for m in melds for x in m.tiles]
        suits = {x // 9 for x in tiles}
        if len(suits) == 1 and next(iter(suits)) < 3:
            return "qingyise"
        if all(is_258(x) for x in tiles):
            return "jiangyise"
        if all(is_honour(x) for x in tiles):
            return "fengyise"
        return None

    def danger(self, tile: int, my_shanten: int) -> float:
        """Expected points lost by discarding ``tile`` now (deal-in and contracting)."""
        if not self.deal_in_weight and not self.contract_weight:
            return 0.0  # nothing priced: no sampling
        t = self.t
        rules = t.rules
        me = t.me
        mine = float(t.multiplier(me, big=False))
        total = 0.0
        waits = self.wait_probs()
        for o, probs in waits.items():
            ps = t.seats[o]
            pat = self.pattern(o)
            big = pat is not None
            share = mine * float(t.multiplier(o, big=big)) * (10.0 if big else 4.0)
            p = self.readiness(o) * probs[tile]
            # dealing in doubles my share; he may have won anyway later
            cost = p * share * 1.5 * self.deal_in_weight
            contract_cost = 0.0
            nmelds = len(ps.melds) + ps.hidden_kongs
            if nmelds == 4 and ps.concealed == 1:
                # 全求人 on his single tile: who contracts depends on the profile
                contract = (is_258(tile) if rules.quanqiuren_contract == "jiang_discard"
                            else my_shanten > 0)
                if contract:
                    contract_cost += p * share * 2.0
            if pat is not None and pat in rules.one_suit_contract_hands and ps.openings == 2:
                fits = ((pat == "qingyise" and tile < 27 and tile // 9 == ps.melds[0].tiles[0] // 9)
                        or (pat == "jiangyise" and is_258(tile))
                        or (pat == "fengyise" and is_honour(tile)))
                if fits:
                    can_chi = pat == "qingyise" and (me + 1) % 4 == o
                    p_claim = min(1.0, 0.2 * t.unseen[tile] + (0.35 if can_chi else 0.0))
                    contract_cost += p_claim * 0.3 * share * 3.0
            total += cost + contract_cost * self.contract_weight
        return total

    def max_threat(self) -> float:
        return max((self.readiness(o) for o in range(4)), default=0.0)

    # ------------------------------------------------------------------ value of waits
    def win_value(self, hand13: Sequence[int], tile: int, melds: Sequence[Meld]) -> float:
        """Expected winnings if ``tile`` completes ``hand13``: half self-drawn, half on a
        discard from the next seat; 0 when the win would not be legal (minimum score,
        shape, laizi limit...)."""
        key = (tuple(sorted(hand13)), tile)
        hit = self._value_cache.get(key)
        if hit is not None:
            return hit
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
        self._value_cache[key] = total
        return total

    def wait_value(self, hand13: list[int], melds: Sequence[Meld]) -> float:
        """Σ over drawable tiles of unseen copies × the value of the win they make."""
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
        for x in range(NUM_KINDS):
            if not (cand >> x & 1) or not t.unseen[x] or x in t.must:
                continue
            v = self.win_value(hand13, x, melds)
            if v > 0:
                total += t.unseen[x] * v
        return total

    # ------------------------------------------------------------------ turn
    def turn(self, t: Table) -> Action:
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
        if self.kong_max_shanten < 99 and any(isinstance(a, Kong) for a in t.actions):
            # an optional kong doubles (暗杠: quadruples) what this seat pays when it
            # loses; a hand far from winning does not want that
            ev = evaluator(t.hand, t.melds, t)
            if ev.best()[0] > self.kong_max_shanten and discard_choices(t):
                t.actions = [a for a in t.actions if not isinstance(a, Kong)]
        return super().turn(t)

    def pick_discard(self, t: Table, ev: Evaluator) -> Action | None:
        choices = discard_choices(t)
        if not choices:
            return None
        scored = [(ev.shanten_after(d, -1), d) for d in choices]
        best = min(s for s, _ in scored)
        # fold: someone looks ready and this hand is far away
        if self.fold and best >= 2 and self.max_threat() >= 0.35:
            safest = min(choices, key=lambda d: (self.danger(d, best), -tile_shape_rank(d, t.counts)))
            return Discard(safest)
        tied = [d for s, d in scored if s == best]
        if best == 0 and self.use_value:
            # ready after the discard: the waits' real value, minus the danger
            hand = list(t.hand)
            out = []
            for d in tied:
                h13 = list(hand)
                h13.remove(d)
                v = self.wait_value(h13, t.melds) / max(1, t.unseen_total)
                out.append((v * 4 - self.danger(d, 0), -tile_shape_rank(d, t.counts), d))
                if self._over():
                    break
            out.sort(reverse=True)
            if out[0][0] > 0 or len(out) == len(tied):
                return Discard(out[0][2])
        # a big hand first at equal shanten: a discard that keeps a big-hand target
        # (one suit, all pungs, 2/5/8, honours) as close as the best is preferred,
        # and its acceptance is counted for that target
        aims: dict[int, str | None] = dict.fromkeys(tied)
        if self.big_target and best >= 1:
            for d in tied:
                key, target = self.shanten_key(ev, d)
                aims[d] = target if target != "small" and key < best else None
            if any(aims.values()):
                tied = [d for d in tied if aims[d]]
        if len(tied) == 1:
            return Discard(tied[0])
        keyed = []
        for d in tied:
            ev13 = ev.with_tile(d, -1)
            aim = aims[d]
            if aim:
                acc, _ = ev13.acceptance(t.unseen, t.laizi, target=aim, current=ev13.shanten(aim))
            else:
                acc, _ = ev13.acceptance(t.unseen, t.laizi, current=best)
            bigb = 0.0 if self.big_target else self._big_bonus(ev, d, best)
            dang = self.danger(d, best)
            keyed.append((-(acc * (1.0 + bigb)) + dang * 0.5, tile_shape_rank(d, t.counts), d))
        keyed.sort()
        if self.lookahead and best >= 1 and len(keyed) > 1:
            # two-step acceptance among the best few: how many (draw, draw) paths
            # bring the hand two steps closer
            top = [(k, r, d) for k, r, d in keyed[:4] if k <= keyed[0][0] * 0.8 or k == keyed[0][0]]
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

    def _two_step(self, ev13: Evaluator, sh: int, t: Table) -> float:
        """Σ over tiles u that lower the shanten of this 13-tile hand of unseen(u) × the
        best acceptance after drawing u and discarding well."""
        total = 0.0
        unseen = t.unseen
        laizi = t.laizi
        for u in range(NUM_KINDS):
            n = unseen[u]
            if not n or u in t.must or u == laizi:
                continue
            if ev13.shanten_after(u, 1) >= sh:
                continue
            ev14 = ev13.with_tile(u, 1)
            best_acc = 0
            for d in range(NUM_KINDS):
                if ev14.counts[d] and ev14.shanten_after(d, -1) == sh - 1:
                    self.work += 1
                    acc, _ = ev14.with_tile(d, -1).acceptance(unseen, laizi, current=sh - 1)
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
    def claim(self, t: Table) -> Action:
        choice = self.claim_equal_acceptance(t) if self.claim_equal else super().claim(t)
        if isinstance(choice, Kong) and self.kong_max_shanten < 99:
            ev = evaluator(t.hand, t.melds, t)
            if ev.best()[0] > self.kong_max_shanten:
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
        after = min((ev2.shanten_after(d, -1) for d in set(hand)
                     if d != t.laizi and d not in t.must), default=99)
        if after >= cur and t.opened and self.max_threat() >= 0.5 and isinstance(choice, (Chi, Peng)):
            return PASS
        return choice

    def claim_equal_acceptance(self, t: Table) -> Action:
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
                opts = [(ev2.shanten_after(d, -1), d) for d in set(hand)
                        if d != t.laizi and d not in t.must]
                if not opts:
                    continue
                after = min(s for s, _ in opts)
                acc = max(ev2.with_tile(d, -1).acceptance(t.unseen, t.laizi)[0]
                          for s, d in opts if s == after)
            ok = after < cur or (after == cur and (
                eager or isinstance(a, Kong) or acc >= acc0 * self.claim_equal))
            key = (after, -acc)
            if ok and (best is None or key < best[0]):
                best = (key, a)
        return best[1] if best is not None else PASS
