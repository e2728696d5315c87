"""The arena: policies play duplicate deals, and the statistics are honest about luck.

Duplicate deals
    Deal ``g`` has one wall (and salt) drawn from the seed.  It is played four
    times, with the seat assignment rotated: in rotation ``r`` seat ``i`` plays
    ``seats[(i + r) % 4]``.  Every policy so meets every position of the same
    tiles, and the luck of the deal cancels within the group.  The dealer is
    seat 0 in every hand.

    With ``permute`` a deal is played once per *distinct* arrangement of the
    seats (all permutations, not only rotations): 4 for ``a,b,b,b``, 12 for
    ``a,b,c,c`` or ``a,a,b,c`` (rotations of ``a,b,b,c`` would never seat ``b`` on
    both sides of ``a``), 6 for ``a,a,b,b``, 24 for four policies.  For one
    policy against three copies of another, rotations already are all
    arrangements.

Confidence intervals
    A policy's score in group ``g`` is its mean points per hand in that group
    (over all seats it held there).  Groups are independent; hands within a
    group are not (same wall), so the 95% interval is
    ``mean ± 1.96 · sd(group scores) / sqrt(groups)``.  The same is done for
    the per-group difference between two policies.

Determinism
    Walls, salts and bot seeds derive from ``seed`` and the group number only,
    so a run is reproducible and independent of ``jobs`` and of the process's
    hash seed.  The shipped bots bound their search by work, never by the clock.
    (A bot given a wall-clock safety net could decide differently under load; it
    reports how often the net fired in ``cap_hits``.)

Decision times
    CPU time of the arena's process spent in ``choose`` (``time.process_time``),
    so a busy machine does not inflate them.  An external ``cmd:`` bot's own CPU
    time is not counted (it runs in another process).
"""

from __future__ import annotations

import itertools
import math
import random
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from ..engine.actions import IllegalAction
from ..engine.dealing import new_salt, shuffled_wall
from ..engine.state import new_hand
from ..engine.views import seat_view
from ..rules import Rules
from . import get_bot
from .base import Bot
from .jsonl import ANSWER_SECONDS, SubprocessBot
from .view import int_view


class ArenaError(RuntimeError):
    """A seat misbehaved (illegal action, broken external bot)."""


@dataclass
class HandOutcome:
    """One hand: the policy at each seat and what happened."""

    group: int
    rotation: int  # index of the seat arrangement within the deal
    policies: tuple[str, ...]
    deltas: tuple[int, ...]
    winner: int | None
    win_by: str | None
    from_seat: int | None
    big_hands: tuple[str, ...]
    contractor: int | None
    times: tuple[list[float], ...]  # decision CPU seconds per seat (time.process_time)
    cap_hits: tuple[int, ...] = (0, 0, 0, 0)  # decisions cut short by a bot's time cap
    arrangements: int = 4  # seat arrangements played on this deal


@dataclass
class PolicyStats:
    name: str
    hands: int = 0
    points: int = 0
    wins: int = 0
    big_wins: int = 0
    deal_ins: int = 0
    contracts: int = 0
    self_draws: int = 0
    cap_hits: int = 0
    times: list[float] = field(default_factory=list)
    group_means: list[float] = field(default_factory=list)


def parse_seats(text: str) -> list[str]:
    """``expert,greedy,greedy,greedy``; an external bot is ``cmd:COMMAND`` (no commas)."""
    seats = [s.strip() for s in text.split(",")]
    if len(seats) != 4 or not all(seats):
        raise ValueError(f"--seats needs four comma-separated policies, got {text!r}")
    return seats


def _seed_for(seed: int, group: int, rotation: int, seat: int, per: int = 4) -> int:
    return ((seed * 1_000_003 + group) * per + rotation) * 4 + seat


def deal(seed: int, group: int) -> tuple[list[int], bytes]:
    """The wall and salt of duplicate group ``group``."""
    rng = random.Random(f"wuhan-mahjong arena {seed} {group}")
    return shuffled_wall(rng), new_salt(rng)


class BotPool:
    """Makes bots for seats: a fresh registered bot per hand (seeded), one shared
    process per external command."""

    def __init__(self, answer_seconds: float | None = ANSWER_SECONDS) -> None:
        self.procs: dict[str, SubprocessBot] = {}
        self.answer_seconds = answer_seconds
        """How long an external bot may take to answer (:data:`.jsonl.ANSWER_SECONDS`)."""

    def get(self, spec: str, seed: int) -> Bot:
        if spec.startswith("cmd:"):
            bot = self.procs.get(spec)
            if bot is None:
                bot = SubprocessBot(spec[4:], name=spec, answer_seconds=self.answer_seconds)
                self.procs[spec] = bot
            return bot
        return get_bot(spec, seed)

    def close(self) -> None:
        for b in self.procs.values():
            b.close()
        self.procs.clear()


def arrangements(seats: Sequence[str], permute: bool = False) -> list[tuple[str, ...]]:
    """The seat assignments a deal is played with: the four rotations, or (``permute``)
    every distinct permutation, in a fixed order."""
    if not permute:
        return [tuple(seats[(i + r) % 4] for i in range(4)) for r in range(4)]
    return sorted(set(itertools.permutations(seats)))


def play_group(rules: Rules, seats: Sequence[str], seed: int, group: int,
               pool: BotPool, permute: bool = False, int_views: bool = True) -> list[HandOutcome]:
    """Play deal ``group`` in each seat arrangement.  Bots that accept it get the
    in-process view (:func:`wuhan_mahjong.bots.view.int_view`; ``int_views=False``
    gives every seat the JSON view, as a server would); the view's construction
    counts in the decision time."""
    wall, salt = deal(seed, group)
    out = []
    arrs = arrangements(seats, permute)
    for r, policies in enumerate(arrs):
        bots = [pool.get(policies[i], _seed_for(seed, group, r, i, max(4, len(arrs))))
                for i in range(4)]
        state = new_hand(rules, 0, wall=wall, salt=salt, hand_no=group * len(arrs) + r,
                         auto_pass=True)
        fast = [int_views and bool(getattr(b, "accepts_int_view", False)) for b in bots]
        times: tuple[list[float], ...] = ([], [], [], [])
        while not state.ended:
            s = state.to_act()[0]
            t0 = time.process_time()
            # the in-process view, in the engine's integers, where the bot takes it
            view = int_view(state, s) if fast[s] else seat_view(state, s)
            action = bots[s].choose(view)  # type: ignore[arg-type]
            times[s].append(time.process_time() - t0)
            try:
                state.apply(s, action)
            except IllegalAction as e:
                raise ArenaError(f"{policies[s]} at seat {s} played an illegal action "
                                 f"'{action}': {e}") from None
        res = state.result
        assert res is not None
        st = res.settlement
        caps = tuple(int(getattr(b, "cap_hits", 0)) for b in bots)
        out.append(HandOutcome(group, r, policies, tuple(res.deltas), res.winner, res.win_by,
                               res.from_seat, tuple(st.hands) if st else (),
                               st.contractor if st else None, times, caps, len(arrs)))
    return out


def _worker(args: tuple[Rules, tuple[str, ...], int, list[int], bool, float | None]
            ) -> tuple[list[HandOutcome], float]:
    rules, seats, seed, groups, permute, answer_seconds = args
    pool = BotPool(answer_seconds)
    cpu = time.process_time()
    try:
        hands = [h for g in groups for h in play_group(rules, seats, seed, g, pool, permute)]
        return hands, time.process_time() - cpu
    finally:
        pool.close()


def run_groups(rules: Rules, seats: Sequence[str], seed: int, groups: int, jobs: int = 1,
               progress: Callable[[int], None] | None = None, permute: bool = False,
               cpu: list[float] | None = None,
               answer_seconds: float | None = ANSWER_SECONDS) -> Iterator[HandOutcome]:
    """Every hand of ``groups`` duplicate groups, in group order.  The CPU seconds of
    the play (the workers' with ``jobs``) are added to ``cpu[0]``."""
    seats_t = tuple(seats)
    if jobs <= 1:
        pool = BotPool(answer_seconds)
        try:
            for g in range(groups):
                c0 = time.process_time()
                hands = play_group(rules, seats_t, seed, g, pool, permute)
                if cpu is not None:
                    cpu[0] += time.process_time() - c0
                yield from hands
                if progress:
                    progress(g + 1)
        finally:
            pool.close()
        return
    import multiprocessing as mp

    chunk = 5
    tasks = [(rules, seats_t, seed, list(range(i, min(i + chunk, groups))), permute,
              answer_seconds) for i in range(0, groups, chunk)]
    with mp.get_context("spawn").Pool(jobs) as p:
        done = 0
        for hands, used in p.imap(_worker, tasks):
            if cpu is not None:
                cpu[0] += used
            yield from hands
            done += len({h.group for h in hands})
            if progress:
                progress(done)


def percentile(xs: Sequence[float], q: float) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    k = min(len(s) - 1, max(0, math.ceil(q / 100 * len(s)) - 1))
    return s[k]


def ci95(xs: Sequence[float]) -> tuple[float, float]:
    """(mean, half-width of the 95% interval) over independent samples."""
    n = len(xs)
    if n == 0:
        return 0.0, 0.0
    mean = sum(xs) / n
    if n < 2:
        return mean, math.inf
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def _interval(mean: float, half_width: float) -> list[float | None]:
    """``[low, high]``; ``[None, None]`` (JSON ``null``) for the unbounded interval of a
    single deal: ``-Infinity`` is no JSON, and the ``--json`` report of a one-deal run
    was text a strict parser (JavaScript's, ``jq``) refuses."""
    if not math.isfinite(half_width):
        return [None, None]
    return [mean - half_width, mean + half_width]


def _bounds(interval: list[float | None]) -> tuple[float, float]:
    """An interval of the JSON report as the text shows it (``[-inf, inf]`` unbounded)."""
    lo, hi = interval
    return (-math.inf if lo is None else lo, math.inf if hi is None else hi)


@dataclass
class ArenaReport:
    profile: str
    options: dict[str, Any]
    seats: list[str]
    seed: int
    groups: int
    hands: int
    seconds: float
    stats: dict[str, PolicyStats]
    diffs: dict[tuple[str, str], list[float]]
    cpu_seconds: float = 0.0
    permute: bool = False

    def to_json(self) -> dict[str, Any]:
        pol = {}
        for name, s in self.stats.items():
            mean, hw = ci95(s.group_means)
            pol[name] = {
                "hands": s.hands,
                "mean_points": mean, "ci95": _interval(mean, hw),
                "win_rate": s.wins / s.hands if s.hands else 0.0,
                "self_draw_rate": s.self_draws / s.hands if s.hands else 0.0,
                "deal_in_rate": s.deal_ins / s.hands if s.hands else 0.0,
                "big_hand_rate": s.big_wins / s.hands if s.hands else 0.0,
                "contract_rate": s.contracts / s.hands if s.hands else 0.0,
                "decisions": len(s.times),
                "decision_ms_p50": percentile(s.times, 50) * 1000,
                "decision_ms_p99": percentile(s.times, 99) * 1000,
                "time_cap_hits": s.cap_hits,
            }
        diffs = {}
        for (a, b), xs in self.diffs.items():
            mean, hw = ci95(xs)
            diffs[f"{a} - {b}"] = {"mean": mean, "ci95": _interval(mean, hw),
                                   "excludes_zero": mean - hw > 0 or mean + hw < 0}
        return {"profile": self.profile, "options": self.options, "seats": self.seats, "seed": self.seed,
                "groups": self.groups, "hands": self.hands, "seconds": self.seconds,
                "hands_per_second": self.hands / self.seconds if self.seconds else 0.0,
                "cpu_seconds": self.cpu_seconds,
                "hands_per_cpu_second": self.hands / self.cpu_seconds if self.cpu_seconds else 0.0,
                "arrangements": "permutations" if self.permute else "rotations",
                "policies": pol, "differences": diffs}

    def text(self) -> str:
        j = self.to_json()
        opts = "".join(f" {k}={v}" for k, v in self.options.items())
        arr = len(arrangements(self.seats, self.permute))
        kind = "permutations" if self.permute else "rotations"
        lines = [f"arena: profile {self.profile}{opts}, seats {','.join(self.seats)}, seed {self.seed}: "
                 f"{self.hands} hands ({self.groups} duplicate deals x {arr} {kind}) in "
                 f"{self.seconds:.1f} s, {self.cpu_seconds:.1f} s CPU "
                 f"({j['hands_per_cpu_second']:.1f} hands per CPU second)",
                 f"{'policy':<16}{'points/hand':>12}  {'95% CI':<20}{'win':>7}{'deal-in':>9}"
                 f"{'big':>7}{'p50 ms':>9}{'p99 ms':>9}  (decision CPU time)"]
        for name, p in j["policies"].items():
            lo, hi = _bounds(p["ci95"])
            lines.append(f"{name[:15]:<16}{p['mean_points']:>12.2f}  [{lo:>7.2f}, {hi:>7.2f}]  "
                         f"{p['win_rate']:>7.1%}{p['deal_in_rate']:>9.1%}{p['big_hand_rate']:>7.1%}"
                         f"{p['decision_ms_p50']:>9.3f}{p['decision_ms_p99']:>9.3f}")
        for key, d in j["differences"].items():
            lo, hi = _bounds(d["ci95"])
            verdict = "significant" if d["excludes_zero"] else "not significant"
            lines.append(f"difference {key}: {d['mean']:+.2f} points/hand, 95% CI "
                         f"[{lo:+.2f}, {hi:+.2f}] ({verdict})")
        return "\n".join(lines)


def run_arena(rules: Rules, seats: Sequence[str], hands: int, seed: int, *, jobs: int = 1,
              progress: IO[str] | None = None, permute: bool = False,
              answer_seconds: float | None = ANSWER_SECONDS) -> ArenaReport:
    """Play ``hands`` hands, rounded up to whole duplicate groups (of four rotations, or
    of every distinct seat permutation with ``permute``); an external bot that takes longer
    than ``answer_seconds`` to answer ends the run (:class:`.jsonl.BotProtocolError`)."""
    if hands < 1:
        raise ValueError("--hands must be at least 1")
    per = len(arrangements(seats, permute))
    groups = (hands + per - 1) // per
    t0 = time.perf_counter()

    def show(done: int) -> None:
        if progress is None:
            return
        width = 30
        fill = width * done // groups
        rate = done * per / max(time.perf_counter() - t0, 1e-9)
        progress.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done * per}/{groups * per} hands "
                       f"{rate:.1f}/s")
        progress.flush()

    cpu = [0.0]
    report = report_from_hands(rules, seats, seed,
                               run_groups(rules, seats, seed, groups, jobs, show, permute, cpu,
                                          answer_seconds),
                               permute=permute)
    if progress is not None:
        progress.write("\n")
        progress.flush()
    report.seconds = time.perf_counter() - t0
    report.cpu_seconds = cpu[0]
    return report


def report_from_hands(rules: Rules, seats: Sequence[str], seed: int,
                      hands: Iterable[HandOutcome], *, permute: bool = False,
                      seconds: float = 0.0, cpu_seconds: float = 0.0) -> ArenaReport:
    """The statistics of played hands, in group order (whole groups only: a group cut
    short at the end is left out)."""
    names = list(dict.fromkeys(seats))
    stats = {n: PolicyStats(n) for n in names}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    diffs: dict[tuple[str, str], list[float]] = {p: [] for p in pairs}
    pending: list[HandOutcome] = []
    count = 0
    groups = 0
    for h in hands:
        if h.rotation == 0:
            pending = []
        pending.append(h)
        if h.rotation != h.arrangements - 1 or len(pending) != h.arrangements:
            continue
        group_sum = dict.fromkeys(names, 0.0)
        group_n = dict.fromkeys(names, 0)
        for g in pending:
            _count_hand(g, stats, group_sum, group_n)
        count += len(pending)
        groups += 1
        means = {n: group_sum[n] / group_n[n] for n in names}
        for n in names:
            stats[n].group_means.append(means[n])
        for a, b in pairs:
            diffs[(a, b)].append(means[a] - means[b])
    return ArenaReport(rules.profile, dict(rules.overrides()), list(seats), seed, groups, count,
                       seconds, stats, diffs, cpu_seconds, permute)


def _count_hand(h: HandOutcome, stats: dict[str, PolicyStats], group_sum: dict[str, float],
                group_n: dict[str, int]) -> None:
    for s in range(4):
        p = stats[h.policies[s]]
        p.hands += 1
        p.points += h.deltas[s]
        p.times.extend(h.times[s])
        p.cap_hits += h.cap_hits[s]
        group_sum[h.policies[s]] += h.deltas[s]
        group_n[h.policies[s]] += 1
        if h.winner == s:
            p.wins += 1
            if h.big_hands:
                p.big_wins += 1
            if h.win_by in ("self_draw", "kong_bloom", "last_tile"):
                p.self_draws += 1
        if h.winner is not None and h.win_by == "discard" and h.from_seat == s:
            p.deal_ins += 1
        if h.contractor == s:
            p.contracts += 1


def main_progress(flag: bool) -> IO[str] | None:
    """Where the progress bar goes: stderr when it is a terminal or when asked."""
    return sys.stderr if flag or sys.stderr.isatty() else None
