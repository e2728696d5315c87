"""``search``: the expert, plus determinised Monte Carlo search where it pays.

The expert decides every move by rules and estimates.  Where the choice is
close and costly (late in the hand, a claim, a laizi kong) this bot plays the
candidate moves out instead:

* **Where.**  A discard once the live wall is down to ``search_wall`` tiles
  while some opponent is ready with a chance of at least ``threat_min``, and a
  chi or peng of an opened hand from ``search_wall`` tiles.  Elsewhere it plays
  the expert.  (Not the laizi kong: the rollouts rate a kong by scaling this
  seat's outcomes by its factor, and on hand-made positions that rating swung
  either way with the seed, while the arena measured that keeping the single
  laizi pays; the expert's laizi rules stand.)
* **Candidates.**  A turn: the expert's discard (its core and its push-or-fold
  layer), the safest discard by the opponent model, and greedy's fastest
  discard.  A claim window: the expert's claim and passing.  At most ``candidates`` moves.
* **Determinisations.**  Each sample deals the tiles this seat has not seen
  into the opponents' concealed hands and the live wall.  Opponents' hands are
  drawn from the opponent model's beliefs (:mod:`wuhan_mahjong.bots.opponents`):
  kinds weighted by his suit focus and his discards, and ready with the chance
  the model gives him (a few weighted draws, the first that matches).
* **Rollouts.**  Every candidate is played out on the same samples (common
  random numbers) by a fast policy: draw, win when the hand is complete and may
  win (opened; a small hand only where it passes the minimum score; laizi are
  wilds, 红中/发财 are konged and replaced), else discard to the lowest shanten
  (lone honours and terminals first; among equally fast tiles, one that no hand of
  the sample wins on); a discard that completes an opened hand is won on (a 全求人's
  lone tile only by the kinds that may pair it, in every profile; this seat's own as
  a big hand, ``own_quanqiuren``); a seat not yet
  opened pengs when the peng keeps its shanten.  The outcome is priced for this seat
  with the opponent model's costs: its win (:meth:`ExpertBot.my_win_value`), a deal-in
  (his deal-in cost; three shares where this seat contracts for a 全求人), or a plain
  share when someone else pays.
* **Choice.**  The candidate with the best mean replaces the expert's move only
  when it beats it by more than ``z`` (1.64) standard errors of the paired
  differences and by ``min_gain`` points; otherwise the expert's move stands.
  An opening may multiply this seat's factors: the outcomes of a claim are
  scaled by it (within the caps).

**Budget.**  ``determinisations`` samples and at most ``rollout_work`` rollout
steps (one seat's draw and discard) per decision; nothing depends on the clock,
so a decision is a pure function of (seed, view).  ``time_cap_ms`` stays the
expert's optional safety net for servers (``cap_hits`` counts it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis import is_ready
from ..engine.actions import PASS, Action, Chi, Discard, Peng
from ..meld import Meld
from ..rules import Rules
from ..scoring import loser_caps, quanqiuren_liable
from ..tiles import NUM_KINDS, tiles_of
from .expert import ExpertBot
from .greedy import after_claim, discard_choices, evaluator, tile_shape_rank
from .handeval import Evaluator, hand_counts
from .opponents import DEAL_IN_SHARE, PLAIN_SHARE
from .seat_reading import SeatReading


@dataclass
class _Seat:
    """One seat of a determinised position."""

    counts: list[int]  # concealed tiles, laizi excluded
    wilds: int
    melds: tuple[Meld, ...]
    opened: bool
    small_ok: bool  # a small hand of his passes the minimum score
    ev: Evaluator | None = None  # cached evaluator of the concealed hand as it is
    #: the kinds that pair his lone tile as 全求人 (one tile beside four claimed melds; a
    #: big hand, so it passes any minimum score), as the opponent model reads them
    quanqiuren: frozenset[int] = frozenset()

    def evaluator(self, must: tuple[int, ...], pengpenghu: bool = True) -> Evaluator:
        if self.ev is None:
            self.ev = Evaluator(self.counts, self.wilds, self.melds, must, pengpenghu)
        return self.ev

    def add(self, tile: int, laizi: int) -> None:
        if tile == laizi:
            self.wilds += 1
        else:
            self.counts[tile] += 1
        self.ev = None

    def remove(self, tile: int, n: int = 1) -> None:
        self.counts[tile] -= n
        self.ev = None

    def copy(self) -> _Seat:
        return _Seat(list(self.counts), self.wilds, self.melds, self.opened, self.small_ok, self.ev,
                     self.quanqiuren)


def _may_win(seat: _Seat, ev: Evaluator, tile: int, delta: int, max_laizi: int) -> bool:
    """Whether the hand (with ``tile`` added when ``delta``) is a win it may take: opened,
    and a big hand, or a small one within the minimum score and holding at most
    ``max_laizi`` laizi (the table's ``small_hand_max_laizi``)."""
    if not seat.opened:
        return False
    if seat.small_ok and seat.wilds <= max_laizi and ev.shanten_after(tile, delta, "small") < 0:
        return True
    return _big(ev, tile, delta)


def _most_collected(rules: Rules, base: int) -> float:
    """The most one win of ``base`` collects from the three losers: each pays at most the
    cap, or at 金顶 the golden cap, or a never-opened loser the 光明顶 (RULES §17.9, by
    :func:`wuhan_mahjong.scoring.loser_caps`); infinity without a cap."""
    cap, _, golden, bright = loser_caps(rules, base)
    return 3.0 * max(cap, golden, bright) if cap else math.inf


def _big(ev: Evaluator, tile: int, delta: int) -> bool:
    """Whether the hand (with ``tile`` added when ``delta``) completes a big hand."""
    return any(ev.shanten_after(tile, delta, tg) < 0 for tg in ev.allowed if tg != "small")


class _Rollout:
    """One determinised position played out by the fast policy (see the module
    docstring).  ``payoff`` is this seat's outcome in points."""

    def __init__(
        self, bot: SearchBot, seats: list[_Seat], wall: list[int], budget: list[int], scale: float = 1.0
    ) -> None:
        self.bot = bot
        self.scale = scale  # this seat's factor after the root move (an opening)
        t = bot.t
        self.me = t.me
        self.laizi = t.laizi
        self.must = t.must
        self.pph = t.rules.pengpenghu
        self.max_laizi = t.rules.small_hand_max_laizi
        self.seats = seats
        self.wall = wall
        self.pos = 0
        self.budget = budget  # [steps left], shared by every rollout of the decision

    def _ev(self, seat: _Seat) -> Evaluator:
        """``seat``'s evaluator under this table's rules (its must-kong tiles, 碰碰胡)."""
        return seat.evaluator(self.must, self.pph)

    # ---------------------------------------------------------------- outcome prices
    def _win(self, winner: int, tile: int, frm: int | None, big: bool = False, *,
             liable: bool = False, own_qqr: bool = False) -> float:
        bot = self.bot
        if winner == self.me:
            if own_qqr:  # this seat's 全求人, a big hand whatever ``big_wins`` says
                return min(bot.value_qqr * self.scale, bot.most_collected[True])
            big = big and bot.big_wins
            value = bot.value_big if big else bot.value_me
            return min(value * self.scale, bot.most_collected[big])
        cost, cap = bot.cost_of(winner, tile)
        cost = min(cost * self.scale, cap)
        if frm == self.me:
            return -3.0 * cost if liable else -cost  # 承包: the other two shares as well
        return -cost * PLAIN_SHARE / DEAL_IN_SHARE

    def _liable(self, seat: _Seat, tile: int) -> bool:
        """Whether this seat, having just thrown ``tile`` into a 全求人, contracts for it."""
        rules = self.bot.t.rules

        def ready() -> bool:
            if not seat.opened or self._ev(seat).best()[0] > 0:
                return False
            hand = tiles_of(seat.counts) + [self.laizi] * seat.wilds
            return is_ready(hand, seat.melds, self.laizi, rules)

        return quanqiuren_liable(rules, tile, ready)

    # ---------------------------------------------------------------- policy
    def _discard(self, s: int) -> int:
        """The fast policy's discard for seat ``s`` (14 tiles)."""
        seat = self.seats[s]
        ev = self._ev(seat)
        counts = seat.counts
        best = 99
        tied: list[int] = []
        for k in range(NUM_KINDS):
            if counts[k] and k not in self.must:
                sh = ev.shanten_after(k, -1)
                if sh < best:
                    best, tied = sh, [k]
                elif sh == best:
                    tied.append(k)
        if not tied:
            return -1
        if len(tied) > 1:
            # among equally fast tiles, one that no hand of this sample wins on: every
            # seat's later discards would otherwise deal in at random, and that noise
            # (not the root move) decided many a comparison
            safe = [k for k in tied if self._winner_on(s, k) is None]
            tied = safe or tied
        if len(tied) == 1:
            return tied[0]
        return min(tied, key=lambda k: (tile_shape_rank(k, counts), k))

    def _winner_on(self, s: int, d: int) -> tuple[int, Evaluator] | None:
        """The seat of this sample that would win on ``d`` thrown by seat ``s`` (the first
        in turn order), with his evaluator; None if nobody would."""
        if d == self.laizi:
            return None  # a discarded laizi is never won on
        for i in (1, 2, 3):
            o = (s + i) % 4
            so = self.seats[o]
            if so.opened:
                ev = self._ev(so)
                if ev.shanten_after(d, 1) < 0 and (
                        d in so.quanqiuren or _may_win(so, ev, d, 1, self.max_laizi)
                        or self._own_quanqiuren(o, so)):
                    return o, ev
        return None

    def _own_quanqiuren(self, o: int, seat: _Seat) -> bool:
        """Whether seat ``o`` is this seat holding one tile beside four claimed melds, so
        that a discard completing its shape is a 全求人 (a big hand, past any minimum
        score; the shape asks a small hand's 2/5/8 pair and frees it beside 清一色, 碰碰胡
        or 将一色, as 全求人 does, Project decision 9).  The opponents' lone tiles have
        their kinds from the model (``_Seat.quanqiuren``); this seat's lone tile is chosen
        in the rollout (after a claim it still holds two), so it is asked here."""
        return (o == self.me and self.bot.own_quanqiuren and seat.opened
                and len(seat.melds) == 4 and all(m.is_claimed for m in seat.melds)
                and sum(seat.counts) + seat.wilds == 1)

    def play_discard(self, s: int, d: int) -> float | None:
        """Seat ``s`` discards ``d``: a win on it, a peng, or the next seat's turn."""
        seats = self.seats
        seat = seats[s]
        seat.remove(d)
        won = self._winner_on(s, d)
        if won is not None:
            o, ev = won
            if d in seats[o].quanqiuren:  # a big hand: the feeder may pay for everybody
                return self._win(o, d, s, liable=s == self.me and self._liable(seat, d))
            return self._win(o, d, s, o == self.me and self.bot.big_wins and _big(ev, d, 1),
                             own_qqr=self._own_quanqiuren(o, seats[o]))
        if d != self.laizi:
            for i in (1, 2, 3):
                o = (s + i) % 4
                if not seats[o].opened and self._open_on(o, s, d, chi=i == 1):
                    return self.turn(o, None, kept=True)
        return self.turn((s + 1) % 4, self.draw())

    def _open_on(self, o: int, s: int, d: int, *, chi: bool) -> bool:
        """A seat that has not opened claims ``d`` (a peng; a chi from the seat before
        it) when that keeps its shanten and it is at most two from ready: it cannot
        win without an opening.  Applies the claim and says whether it was made."""
        so = self.seats[o]
        counts = so.counts
        ev = self._ev(so)
        cur = ev.best()[0]
        if cur > 2:
            return False
        options: list[tuple[tuple[int, ...], Meld]] = []
        if counts[d] >= 2:
            options.append(((d, d), Meld("peng", (d, d, d), s)))
        if chi and d < 27:
            r = d % 9
            for lo in (d - 2, d - 1, d):
                if lo < d - r or lo + 2 > d - r + 8:
                    continue
                used = tuple(x for x in (lo, lo + 1, lo + 2) if x != d)
                if all(counts[x] for x in used):
                    options.append((used, Meld("chi", (lo, lo + 1, lo + 2), s)))
        for used, m in options:
            c = list(counts)
            for x in used:
                c[x] -= 1
            melds = (*so.melds, m)
            ev2 = Evaluator(c, so.wilds, melds, self.must, self.pph)
            after = min(
                (ev2.shanten_after(k, -1) for k in range(NUM_KINDS) if c[k] and k not in self.must),
                default=99,
            )
            if after <= cur:
                so.counts = c
                so.melds = melds
                so.opened = True
                so.ev = ev2
                return True
        return False

    def draw(self) -> int | None:
        """The next live tile; 红中 / 发财 are konged at once and replaced."""
        while self.pos < len(self.wall):
            x = self.wall[self.pos]
            self.pos += 1
            if x not in self.must:
                return x
        return None

    def turn(self, s: int, tile: int | None, *, kept: bool = False) -> float | None:
        """Seat ``s`` plays a turn: ``tile`` drawn (None after a claim, or at the wall's
        end: then the hand is over unless ``kept``)."""
        if self.budget[0] <= 0:
            return None
        self.budget[0] -= 1
        seat = self.seats[s]
        if tile is not None:
            seat.add(tile, self.laizi)
            ev = self._ev(seat)
            if ev.best()[0] < 0 and _may_win(seat, ev, -1, 0, self.max_laizi):
                return self._win(s, tile, None, s == self.me and self.bot.big_wins and _big(ev, -1, 0))
        elif not kept:
            return 0.0  # the wall is empty: nobody wins
        d = self._discard(s)
        if d < 0:
            return 0.0
        return self.play_discard(s, d)


class SearchBot(ExpertBot):
    """See the module docstring."""

    name = "search"

    def __init__(
        self,
        seed: int | None = None,
        *,
        determinisations: int = 32,
        rollout_work: int = 6000,
        search_wall: int = 56,
        candidates: int = 3,
        min_gain: float = 5.0,
        z: float = 1.64,
        ready_tries: int = 6,
        big_wins: bool = False,
        slight_safety: bool = True,
        own_quanqiuren: bool = True,
        **expert: object,
    ) -> None:
        # the expert's ``big_only`` is off here unless asked for: on, it changes the
        # play-outs the second hunt's ``slight_safety=False`` position replays
        # (tests/bots/test_bots_hunt2.py), and an older test is not changed to let a
        # switch pass (docs/bots-log.md, the twenty-second hunt)
        expert.setdefault("big_only", False)
        super().__init__(seed, **expert)  # type: ignore[arg-type]
        self.determinisations = determinisations
        self.rollout_work = rollout_work
        self.search_wall = search_wall
        self.z = z
        self.most_collected = {False: 0.0, True: 0.0}
        self.candidates = candidates
        self.min_gain = min_gain
        self.ready_tries = ready_tries
        self.big_wins = big_wins
        self.slight_safety = bool(slight_safety)
        """A discard slower than the expert's that saves it less than ``min_gain`` points
        of deal-in and contract cost by the opponent model may not replace it
        (:meth:`_discard_candidates`); off, as before 5 December 2026, the play-outs alone
        decide."""
        self.own_quanqiuren = bool(own_quanqiuren)
        """This seat's rollouts win its own 全求人: holding one tile beside four claimed
        melds, a discard that pairs it (a 2/5/8 for a small hand's shape) is a big hand's
        win, priced as one (``value_qqr``), where a small hand short of the minimum score
        won nothing (the fifteenth hunt: in ``bianfeng``, ready on 5m/8m with 5678m and no
        small win passing the minimum, the chi that leaves a 5m or 8m single for a 全求人
        lost to passing by the seed); off, as before 6 December 2026."""
        self.value_qqr = 0.0
        self._slight: set[int] = set()  # this turn's candidates that may not be chosen
        self.searched = 0  # decisions the search changed
        self.searches = 0  # decisions searched
        self.value_me = 0.0
        self.last: dict[str, float] = {}  # the last search's mean per candidate (tests, tools)
        self._costs: dict[tuple[int, int], tuple[float, float]] = {}

    # ---------------------------------------------------------------- where it pays
    def _late(self, t: SeatReading) -> bool:
        return t.wall <= self.search_wall

    def pick_discard(self, t: SeatReading, ev: Evaluator) -> Action | None:
        choice = super().pick_discard(t, ev)
        if (
            not isinstance(choice, Discard)
            or not self._late(t)
            or not self._anyone_open()
            or self.model().threat() < self.threat_min
        ):
            return choice
        cands = self._discard_candidates(t, ev, choice.tile)
        if len(cands) < 2:
            return choice
        moves: list[tuple[str, Action]] = [(f"discard {d}", Discard(d)) for d in cands]
        return self.search(t, moves, [d not in self._slight for d in cands])

    def _discard_candidates(self, t: SeatReading, ev: Evaluator, d0: int) -> list[int]:
        """The expert's discard, the safest one, greedy's fastest (distinct, in that order),
        leaving out a tile that is neither safer (by the opponent model) nor faster (shanten,
        then acceptance) than the expert's."""
        choices = discard_choices(t)
        out = [d0]
        model = self.model()
        sh = {d: ev.shanten_after(d, -1) for d in choices}
        risk = {d: sum(model.risk(d, sh[d])[1:]) for d in choices}
        safest = min(choices, key=lambda d: (risk[d], sh[d], tile_shape_rank(d, t.counts), d))
        best = min(sh.values())

        def fast_key(d: int) -> tuple[int, int, int]:
            acc, _ = ev.with_tile(d, -1).acceptance(t.unseen, t.laizi, current=best)
            return (-acc, tile_shape_rank(d, t.counts), d)

        fastest = min((d for d in choices if sh[d] == best), key=fast_key)

        speeds: dict[int, tuple[int, int]] = {}

        def speed(d: int) -> tuple[int, int]:
            if d not in speeds:
                acc = ev.with_tile(d, -1).acceptance(t.unseen, t.laizi, current=sh[d])[0]
                speeds[d] = (-sh[d], acc)
            return speeds[d]

        self._slight = set()
        for d in (safest, fastest):
            # a tile neither safer nor faster than the expert's is not played out: it can
            # only win the comparison by the rollouts' noise (a safe tile that broke a
            # set did, against an equally safe one that kept it)
            dominated = risk[d] >= risk[d0] and speed(d) <= speed(d0)
            if d not in out and not dominated and len(out) < self.candidates:
                out.append(d)
                # a slower one that saves less than ``min_gain`` points by the model's
                # reading is played out but may not replace the expert's: only the
                # play-outs' noise and their bias could prefer it (a closed hand hardly
                # opens in them, so its speed is worth little there).  In 边锋 a closed
                # hand one step away, beside two pin melds, broke its 234m for the 2m
                # that seat had thrown, 0.5 points safer than its 1m by the model
                if (self.slight_safety and speed(d) < speed(d0)
                        and risk[d0] - risk[d] < self.min_gain):
                    self._slight.add(d)
        return out

    def claim(self, t: SeatReading) -> Action:
        choice = super().claim(t)
        # only an opened hand: a closed one would weigh its opening against rollouts in
        # which it can hardly open (the fast policy makes no chi), which favours claiming
        if (not self._late(t) or not t.opened or t.end_phase
                or not isinstance(choice, (Peng, Chi))):
            return choice  # (the play-outs know no 海底: the end phase is greedy's rule)
        return self.search(t, [("claim", choice), ("pass", PASS)])

    # ---------------------------------------------------------------- the search
    def cost_of(self, o: int, tile: int) -> tuple[float, float]:
        """(what this seat pays if ``o`` wins on its ``tile``, the cap on that payment for
        the hand the model reads: a big hand's where the caps count in hand bases)."""
        key = (o, tile)
        hit = self._costs.get(key)
        if hit is None:
            model = self.model()
            hit = self._costs[key] = (model.deal_in_cost(o, tile), model.deal_in_cap(o, tile))
        return hit

    def search(self, t: SeatReading, moves: Sequence[tuple[str, Action]],
               eligible: Sequence[bool] | None = None) -> Action:
        """The best of ``moves`` (the first is the expert's) by determinised rollouts; a
        move whose ``eligible`` is False is played out (``last`` shows it) but never
        chosen."""
        self._costs = {}
        self.searches += 1
        ev = evaluator(t.hand, t.melds, t)
        if self.big_wins:
            # what this seat's win is worth in a rollout follows the hand it wins with:
            # one constant value rated a discard that breaks a big-hand target (one
            # suit, all pungs...) as good as one that keeps it
            self.value_me = self.my_win_value(t, ev, big=False)
            self.value_big = self.my_win_value(t, ev, big=True)
        else:
            self.value_me = self.my_win_value(t, ev)
        if self.own_quanqiuren:
            self.value_qqr = self.my_win_value(t, ev, big=True)
        self.most_collected = {big: _most_collected(t.rules, 10 if big else 1)
                               for big in (False, True)}
        budget = [self.rollout_work]
        totals = [[0.0] * len(moves) for _ in range(self.determinisations)]
        done = 0
        for i in range(self.determinisations):
            seats, wall = self._determinise(t)
            row = totals[i]
            for j, (_, move) in enumerate(moves):
                v = self._play(t, [s.copy() for s in seats], wall, move, budget)
                if v is None:
                    break
                row[j] = v
            else:
                done += 1
                continue
            break
        if done < 2:
            return moves[0][1]
        rows = totals[:done]
        means = [sum(r[j] for r in rows) / done for j in range(len(moves))]
        self.last = {name: means[j] for j, (name, _) in enumerate(moves)}
        best = 0
        for j in range(1, len(moves)):
            if eligible is not None and not eligible[j]:
                continue
            diffs = [r[j] - r[0] for r in rows]
            m = sum(diffs) / done
            sd = math.sqrt(sum((x - m) ** 2 for x in diffs) / (done - 1))
            if m > max(self.min_gain, self.z * sd / math.sqrt(done)) and means[j] > means[best]:
                best = j
        if best:
            self.searched += 1
        return moves[best][1]

    def _determinise(self, t: SeatReading) -> tuple[list[_Seat], list[int]]:
        """Opponents' concealed hands from the model's beliefs, the rest as the wall."""
        model = self.model()
        rng = self.rng
        pool = [x for x in range(NUM_KINDS) for _ in range(t.unseen[x])]
        seats: list[_Seat | None] = [None] * 4
        counts, wilds = hand_counts(t.hand, t.laizi)
        seats[t.me] = _Seat(
            counts, wilds, tuple(t.melds), t.opened, t.small_win_possible(extra_openings=0 if t.opened else 1)
        )
        for o in sorted(model.reads):
            r = model.reads[o]
            ps = t.seats[o]
            n = min(ps.concealed, len(pool))
            weights = model._weights(o, r.focus, r.strength)
            for m in t.must:
                weights[m] = 1e-9
            want_ready = rng.random() < r.p_ready
            pairs = (frozenset(x for x in range(NUM_KINDS) if r.waits[x] > 0)
                     if model.quanqiuren(o) else frozenset())
            if pairs and want_ready:  # his lone tile is one that he can pair as 全求人
                weights = [w if x in pairs else 1e-9 for x, w in enumerate(weights)]
            melds = (*ps.melds, *[Meld("kong", (0, 0, 0, 0), None, "concealed")] * ps.hidden_kongs)
            hand: list[int] = []
            for _ in range(self.ready_tries):
                hand = model._sample(pool, weights, n)
                c, w = hand_counts(hand, t.laizi)
                sh = (Evaluator(c, w, melds, t.must, t.rules.pengpenghu).best()[0]
                      if n % 3 == 1 else 9)
                if (sh <= 0) == want_ready:
                    break
            for x in hand:
                pool.remove(x)
            c, w = hand_counts(hand, t.laizi)
            seats[o] = _Seat(c, w, melds, ps.openings > 0, r.small_ok or not r.can_win,
                             quanqiuren=pairs)
        rng.shuffle(pool)
        done = [s for s in seats if s is not None]
        assert len(done) == 4
        return done, pool[: t.wall]

    def _play(
        self, t: SeatReading, seats: list[_Seat], wall: list[int], move: Action, budget: list[int]
    ) -> float | None:
        """This seat's outcome of ``move`` in one determinisation (None: out of budget)."""
        me = t.me
        scale = 1.0
        if isinstance(move, (Peng, Chi)):
            scale = float(t.multiplier(me, big=False, extra_openings=1) / t.multiplier(me, big=False))
        ro = _Rollout(self, seats, wall, budget, scale)
        if isinstance(move, Discard):
            return ro.play_discard(me, move.tile)
        if isinstance(move, (Peng, Chi)):
            res = after_claim(t, move)
            assert res is not None
            hand, melds = res
            c, w = hand_counts(hand, t.laizi)
            # the claim is an opening: its factor may be what lets a small hand pass the
            # minimum score (口口翻), so whether it may win is asked again, with it
            seats[me] = _Seat(c, w, tuple(melds), True, t.small_win_possible(extra_openings=1))
            return ro.turn(me, None, kept=True)
        if move is PASS and t.on_table_from is not None:
            return ro.turn((t.on_table_from + 1) % 4, ro.draw())
        raise ValueError(f"the search does not play {move}")
