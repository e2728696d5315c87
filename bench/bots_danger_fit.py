"""Fit the danger reading to the engine's answers (docs/bots-log.md, "A danger reading fitted to
the oracle").

Greedy self-play on the arena's duplicate deals of a TUNING seed; at every discard of every
seat, for each opened opponent and each kind the seat could throw, the engine says whether
he may win on it (the label; no player sees it), and the opponent model gives the inputs
of :func:`wuhan_mahjong.bots.opponents.danger_features` from the seat's view.  A logistic
regression of the label on the inputs (Newton's method, a little L2) is fitted on one seed
and checked on another: log-loss beside the shape reading's ``p_ready × wait``, and how
often, within one decision, a kind that deals in is rated above one that does not (AUC,
over the kinds the seat holds, any opponent).

    nice -n 19 python3 bench/bots_danger_fit.py collect --profile yuanhang --seed 135 \\
        --deals 60 --out /tmp/danger_yh_135.npz
    python3 bench/bots_danger_fit.py fit --train /tmp/danger_yh_135.npz \\
        --check /tmp/danger_yh_136.npz

With ``--rich`` it also fits on :data:`RICH_FEATURES` (kind-relative reads of each
opponent's river and melds) and rates the shape reading's level shared out by that fit's
ranking (tuning seeds 146-147).

Never run it on a publication seed (Evaluation protocol).
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from _seeds import PUBLICATION_SEEDS  # bench/_seeds.py
from wuhan_mahjong.bots.arena import deal
from wuhan_mahjong.bots.greedy import GreedyBot
from wuhan_mahjong.bots.opponents import DANGER_FEATURES, OpponentModel, danger_chance
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine import new_hand, seat_view
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import is_suited, rank_of, suit_of

RICH_FEATURES = ("he threw k-1", "he threw k+1", "he threw k-2", "he threw k+2",
                 "he threw k-3", "he threw k+3", "he threw k in his last four",
                 "runs through k still possible (unseen neighbours)", "terminal",
                 "let go one interval before his last discard",
                 "let go two or more intervals before", "k in his melds",
                 "his discards (tens)", "wall left (tens)")
"""Extra inputs of the ranking study (tuning seeds 146-147): kind-relative reads a player
makes of one opponent's river and melds, beside :data:`DANGER_FEATURES`."""


def rich_features(t: SeatReading, o: int) -> list[tuple[float, ...]]:
    """:data:`RICH_FEATURES` of every kind for opponent ``o``, from the seat's view."""
    ps = t.seats[o]
    river = ps.discards
    thrown = set(river)
    last4 = set(river[-4:])
    meld_tiles = [x for m in ps.melds for x in m.tiles]
    order = t.discard_order() or []
    mine = [i for i, (s, _) in enumerate(order) if s == o]
    interval: dict[int, int] = {}  # kind -> how many of his discards ago he let it go
    for i, (s, k) in enumerate(order):
        if s == o or not mine or i > mine[-1]:
            continue
        ago = sum(1 for j in mine if j > i)
        interval[k] = min(interval.get(k, 99), ago)
    out = []
    for k in range(34):
        suited = is_suited(k)
        # he threw the kind d ranks away in its suit (honours have no neighbours)
        threw = [1.0 if suited and k + d >= 0 and is_suited(k + d)
                 and suit_of(k + d) == suit_of(k) and k + d in thrown else 0.0
                 for d in (-1, 1, -2, 2, -3, 3)]
        runs = 0.0
        if suited:
            r = rank_of(k)
            runs = sum(min(t.unseen[k + a], t.unseen[k + b])
                       for a, b in ((-2, -1), (-1, 1), (1, 2))
                       if 1 <= r + a <= 9 and 1 <= r + b <= 9) / 4.0
        ago = interval.get(k)
        out.append((*threw, 1.0 if k in last4 else 0.0, runs,
                    1.0 if suited and rank_of(k) in (1, 9) else 0.0,
                    1.0 if ago == 1 else 0.0, 1.0 if ago is not None and ago >= 2 else 0.0,
                    float(meld_tiles.count(k)), len(river) / 10.0, t.wall / 10.0))
    return out


def collect(profile: str, seed: int, deals: int, out: Path) -> None:
    rules = get_rules(profile)
    xs: list[tuple[float, ...]] = []
    rich: list[tuple[float, ...]] = []
    ys: list[int] = []
    base: list[float] = []
    groups: list[int] = []  # one per (decision, kind): the rows of its opponents share it
    opponents: list[int] = []
    group = 0
    for g in range(deals):
        wall, salt = deal(seed, g)
        for r in range(4):
            state = new_hand(rules, r, wall=wall, salt=salt, hand_no=g * 4 + r, auto_pass=True)
            bots = [GreedyBot(1000 * g + 10 * r + i) for i in range(4)]
            while not state.ended:
                seat = state.to_act()[0]
                view = seat_view(state, seat)
                action = bots[seat].choose(view)
                if isinstance(action, Discard):
                    t = SeatReading(view)
                    model = OpponentModel(t, random.Random(0), waits="shapes")
                    probe = state.copy()
                    kinds = sorted({a.tile for a in state.legal_actions(seat)
                                    if isinstance(a, Discard)})
                    for o, read in model.reads.items():
                        if not read.can_win or model.quanqiuren(o):
                            continue
                        inputs = model.danger_inputs(o, read.focus, read.strength, read.small_ok)
                        extra = rich_features(t, o)
                        for k in kinds:
                            x = inputs[k]
                            if x is None:
                                continue
                            xs.append(x)
                            rich.append(extra[k])
                            ys.append(int(probe._discard_win(o, k, seat, rob=False)))
                            base.append(read.p_ready * read.waits[k])
                            groups.append(group + k)
                            opponents.append(o)
                    group += 64
                state.apply(seat, action)
    np.savez(out, x=np.array(xs), rich=np.array(rich), y=np.array(ys), base=np.array(base),
             group=np.array(groups), opponent=np.array(opponents))
    print(f"{len(ys)} rows, {sum(ys)} positive, {group // 64} decisions -> {out}")


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (p - y) + l2 * len(y) * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + l2 * len(y) * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def within_auc(p: np.ndarray, y: np.ndarray, group: np.ndarray) -> tuple[float, int]:
    """Per (decision, kind): P(any opponent wins) = 1 − Π(1 − p); then, within each
    decision, the share of (dealing, safe) kind pairs ranked right (ties half)."""
    anyp: dict[int, float] = defaultdict(lambda: 1.0)
    anyy: dict[int, int] = defaultdict(int)
    for pi, yi, gi in zip(p, y, group, strict=True):
        anyp[int(gi)] *= 1.0 - float(pi)
        anyy[int(gi)] |= int(yi)
    decisions: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for gi, q in anyp.items():
        decisions[gi // 64].append((1.0 - q, anyy[gi]))
    right = pairs = 0.0
    for kinds in decisions.values():
        pos = [q for q, yy in kinds if yy]
        neg = [q for q, yy in kinds if not yy]
        for a in pos:
            for b in neg:
                pairs += 1
                right += 1.0 if a > b else 0.5 if a == b else 0.0
    return (right / pairs if pairs else math.nan), int(pairs)


def relevel(level: np.ndarray, rank: np.ndarray, group: np.ndarray,
            opponent: np.ndarray) -> np.ndarray:
    """Per decision and opponent: the chances of ``level`` summed over the kinds, shared out
    in proportion to ``rank`` (so the ranking is ``rank``'s, the level ``level``'s)."""
    out = np.zeros_like(level)
    key = (group // 64) * 4 + opponent
    for k in np.unique(key):
        m = key == k
        total = rank[m].sum()
        out[m] = np.clip(level[m].sum() * rank[m] / total, 0, 1) if total > 0 else level[m]
    return out


def calibration(p: np.ndarray, y: np.ndarray) -> str:
    edges = [0, 0.02, 0.05, 0.1, 0.2, 0.4, 1.01]
    out = []
    for lo, hi in itertools.pairwise(edges):
        m = (p >= lo) & (p < hi)
        if m.sum():
            out.append(f"[{lo:.2f},{hi:.2f}) n={int(m.sum())} said {p[m].mean():.3f} "
                       f"true {y[m].mean():.3f}")
    return "\n  ".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--profile", default="yuanhang")
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--deals", type=int, default=50)
    c.add_argument("--out", type=Path, required=True)
    f = sub.add_parser("fit")
    f.add_argument("--train", type=Path, nargs="+", required=True)
    f.add_argument("--check", type=Path, nargs="+", required=True)
    f.add_argument("--rich", action="store_true",
                   help="also fit on the richer inputs (RICH_FEATURES) and rank with them")
    args = ap.parse_args()
    if args.cmd == "collect":
        if args.seed in PUBLICATION_SEEDS:
            print(f"error: {args.seed} is a publication seed (docs/bots.md)", file=sys.stderr)
            return 2
        collect(args.profile, args.seed, args.deals, args.out)
        return 0
    train = [np.load(p) for p in args.train]
    x = np.concatenate([d["x"] for d in train])
    y = np.concatenate([d["y"] for d in train])
    w = fit_logistic(x, y)
    print("fit:", ", ".join(f"{n} {v:+.3f}" for n, v in zip(DANGER_FEATURES, w, strict=True)))
    print("as code: (" + ", ".join(f"{v:.3f}" for v in w) + ")")
    wr = None
    if args.rich:
        xr = np.concatenate([np.hstack([d["x"], d["rich"]]) for d in train])
        wr = fit_logistic(xr, y)
        print("rich fit:", ", ".join(f"{n} {v:+.3f}" for n, v in
                                     zip(DANGER_FEATURES + RICH_FEATURES, wr, strict=True)))
    for path in args.check:
        d = np.load(path)
        fitted = np.array([danger_chance(tuple(w), tuple(row)) for row in d["x"]])
        shapes = np.clip(d["base"], 0, 1)
        print(f"\n{path.name}: {len(d['y'])} rows, {d['y'].mean():.3f} positive")
        candidates = [("shapes", shapes), ("fitted", fitted)]
        if wr is not None:
            z = np.hstack([d["x"], d["rich"]]) @ wr
            rich = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
            candidates += [("rich", rich),
                           ("shapes' level, rich ranking",
                            relevel(shapes, rich, d["group"], d["opponent"]))]
        for name, p in candidates:
            auc, pairs = within_auc(p, d["y"], d["group"])
            print(f" {name}: log-loss {log_loss(p, d['y']):.4f}, within-decision AUC {auc:.3f} "
                  f"({pairs} pairs)\n  {calibration(p, d['y'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
