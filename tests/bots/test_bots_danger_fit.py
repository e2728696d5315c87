"""The fitted danger reading (``OpponentModel(waits="fitted")``, docs/bots-log.md): a logistic
fit of P(he may win on the kind) to the engine's answers, and the tool that fits it
(``bench/bots_danger_fit.py``)."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from handmade import make_view, meld
from test_bots_defence import PINS, _view

from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.opponents import (
    _DANGER_FIT,
    DANGER_FEATURES,
    OpponentModel,
    danger_chance,
    danger_features,
    ready_chance,
)
from wuhan_mahjong.bots.seat_reading import SeatReading
from wuhan_mahjong.engine.actions import Discard
from wuhan_mahjong.tiles import parse_tile

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bots_danger_fit


def test_the_inputs_say_what_their_names_say() -> None:
    one_s, nine_m = parse_tile("1s"), parse_tile("9m")
    x = danger_features(0.5, 0.2, [one_s, parse_tile("2s"), nine_m], 3, one_s, 0.0)
    assert len(x) == len(DANGER_FEATURES)
    named = dict(zip(DANGER_FEATURES, x, strict=True))
    assert named["bias"] == 1.0 and named["readiness (logit of ready_chance)"] == 0.5
    assert named["shape reading (log)"] == pytest.approx(math.log(0.21))
    assert named["he threw the kind"] == 1.0 and named["copies unseen (quarters)"] == 0.75
    assert named["honour"] == 0.0 and named["2/5/8"] == 0.0
    assert named["share of his discards in the kind's suit"] == pytest.approx(2 / 4)
    assert named["of his last four discards, in the kind's suit"] == pytest.approx(2 / 4)
    assert named["he threw a neighbour"] == 1.0  # 2s beside 1s
    east = danger_features(0.0, 0.0, [nine_m], 4, parse_tile("1z"), 0.0)
    assert dict(zip(DANGER_FEATURES, east, strict=True))["honour"] == 1.0
    assert danger_chance((0.0,) * len(x), x) == 0.5


def test_the_fitted_reading_is_the_fit_over_the_calibrated_readiness() -> None:
    t = SeatReading(_view(15, PINS))
    model = OpponentModel(t, random.Random(3), waits="fitted")
    read = model.reads[1]
    assert read.can_win and read.focus == "qys1"
    inputs = model.danger_inputs(1, read.focus, read.strength, read.small_ok)
    assert inputs[t.laizi] is None  # nobody wins on the laizi
    fit = _DANGER_FIT["yuanhang"]
    for tile in ("9p", "1m", "4p", "3z"):
        k = parse_tile(tile)
        x = inputs[k]
        assert x is not None
        # the model's chance he wins on k is exactly the fit's, below the clip at 1
        assert read.p_ready * read.waits[k] == pytest.approx(
            min(read.p_ready, danger_chance(fit, x)))
    assert read.p_ready == pytest.approx(ready_chance(3, 1.0 - 15 / 84.0, read.strength, True))


def test_the_fitted_reading_also_keeps_the_pin_from_a_pin_flush() -> None:
    view = _view(15, PINS)
    t = SeatReading(view)
    model = OpponentModel(t, random.Random(3), waits="fitted")
    p_pin, _, _ = model.risk(parse_tile("9p"), 1)
    p_man, _, _ = model.risk(parse_tile("1m"), 1)
    assert p_pin > 2 * p_man
    bot = ExpertBot(1, waits="fitted")
    assert bot.choose(view) == Discard(parse_tile("1m")) and bot.defended == 1


def test_the_fitting_tool_collects_labels_and_fits_them(tmp_path: Path) -> None:
    out = tmp_path / "danger.npz"
    bots_danger_fit.collect("yuanhang", 7, 1, out)
    d = np.load(out)
    x, y = d["x"], d["y"]
    assert x.shape[1] == len(DANGER_FEATURES) and len(y) == len(d["group"]) == len(d["base"])
    assert d["rich"].shape == (len(y), len(bots_danger_fit.RICH_FEATURES))
    assert set(d["opponent"]) <= {0, 1, 2, 3}
    assert 0 < y.sum() < len(y)  # someone dealt in, not every kind
    w = bots_danger_fit.fit_logistic(x, y)
    p = np.array([danger_chance(tuple(w), tuple(row)) for row in x])
    # on its own data the fit beats the constant rate, and the mean matches the rate
    rate = float(y.mean())
    assert bots_danger_fit.log_loss(p, y) < bots_danger_fit.log_loss(np.full(len(y), rate), y)
    assert float(p.mean()) == pytest.approx(rate, abs=0.01)
    auc, pairs = bots_danger_fit.within_auc(p, y, d["group"])
    assert pairs > 0 and 0.5 < auc <= 1.0


def test_the_fitting_tool_refuses_a_publication_seed(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["bots_danger_fit.py", "collect", "--seed", "20261207",
                                      "--out", str(tmp_path / "x.npz")])
    assert bots_danger_fit.main() == 2
    assert not (tmp_path / "x.npz").exists()


def test_the_richer_inputs_read_the_river_as_named() -> None:
    """Seat 1 (the dealer) threw 4p, then 1z; between them 9s, 2z and 7m went by him (one
    interval before his last discard), after it 8s and 3z (since his last discard: the
    let_go reading's, not flagged here); he holds a peng of 5p."""
    view = make_view("123m456p789s55m34s9m", melds={1: [meld("peng", "555p", 2)]}, dealer=1,
                     discards={1: "4p1z", 2: "9s8s", 3: "2z3z", 0: "7m"}, wall=40)
    t = SeatReading(view)
    rich = bots_danger_fit.rich_features(t, 1)
    names = bots_danger_fit.RICH_FEATURES
    assert len(rich) == 34 and all(len(r) == len(names) for r in rich)

    def feature(kind: str, name: str) -> float:
        return rich[parse_tile(kind)][names.index(name)]

    assert feature("7p", "he threw k-3") == 1.0 and feature("1p", "he threw k+3") == 1.0
    assert feature("5p", "he threw k-1") == 1.0 and feature("3p", "he threw k+1") == 1.0
    assert feature("7s", "he threw k-3") == 0.0  # 4p is not of the 索 suit
    assert feature("1z", "he threw k+1") == 0.0  # honours have no neighbours
    assert feature("1z", "he threw k in his last four") == 1.0
    one, two = "let go one interval before his last discard", "let go two or more intervals before"
    assert [feature(k, one) for k in ("9s", "2z", "7m", "8s", "3z", "4p")] == [1, 1, 1, 0, 0, 0]
    assert feature("9s", two) == 0.0
    assert feature("5p", "k in his melds") == 3.0
    assert feature("1z", "runs through k still possible (unseen neighbours)") == 0.0
    assert feature("1m", "terminal") == 1.0 and feature("5m", "terminal") == 0.0
    assert feature("5m", "wall left (tens)") == 4.0


def test_releveling_keeps_each_opponents_level_and_takes_the_ranking() -> None:
    level = np.array([0.1, 0.1, 0.2, 0.3])
    rank = np.array([0.3, 0.1, 0.5, 0.5])
    group = np.array([64, 65, 64, 65])  # one decision, kinds 0 and 1
    opponent = np.array([1, 1, 2, 2])
    out = bots_danger_fit.relevel(level, rank, group, opponent)
    assert out == pytest.approx([0.15, 0.05, 0.25, 0.25])
