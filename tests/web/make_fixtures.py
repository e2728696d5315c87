"""Real seat views of random hands, for the static fixture page.

The static fixture page (``index.html#/fixture?src=...``) renders these frames, so
the table and the settlement can be checked without a server.
The browser tests make them afresh from the engine at every run (``conftest.py``),
so they never lag behind the view format.  To look at them by hand:

    python3 tests/web/make_fixtures.py    # writes tests/web/fixtures/ (git-ignored)
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from wuhan_mahjong.bots.hints import hint
from wuhan_mahjong.engine import new_hand, random_policy, seat_view, simple_policy
from wuhan_mahjong.engine.actions import WIN, Chi
from wuhan_mahjong.rules import get_rules

OUT = Path(__file__).parent / "fixtures"


def mixed_policy(rng: random.Random):
    rand = random_policy(rng)

    def play(state, seat):
        acts = state.legal_actions(seat)
        if WIN in acts:
            return WIN
        if state.phase == "claim" and rng.random() < 0.6:
            return rand(state, seat)
        return simple_policy(state, seat) if rng.random() < 0.8 else rand(state, seat)

    return play


def play(seed: int, profile: str = "yuanhang", want: str = "win"):
    """Play a hand from seat 0's view; keep interesting frames."""
    rng = random.Random(seed)
    state = new_hand(get_rules(profile), dealer=seed % 4, rng=random.Random(seed))
    pol = mixed_policy(rng)
    frames: dict[str, dict] = {"start": seat_view(state, 0)}
    while not state.ended:
        for s in state.to_act():
            if s == 0 and state.phase == "turn" and "turn" not in frames and state.drawn is not None:
                frames["turn"] = seat_view(state, 0)
            if s == 0 and state.phase == "claim":
                acts = state.legal_actions(0)
                if any(isinstance(a, Chi) for a in acts) and "claim_chi" not in frames:
                    frames["claim_chi"] = seat_view(state, 0)
                elif len(acts) > 1 and "claim" not in frames:
                    frames["claim"] = seat_view(state, 0)
            if state.live < 30 and "late" not in frames and s == 0 and state.phase == "turn":
                frames["late"] = seat_view(state, 0)
            if s == 0 and state.phase == "turn" and "ready" not in frames and state.live < 70:
                v = seat_view(state, 0)
                if any(o["waits"] for o in hint_for(v).get("discards", [])):
                    frames["ready"] = v
        s = state.to_act()[0]
        state.apply(s, pol(state, s))
        if state.ended:
            break
    frames["end"] = seat_view(state, 0)
    return state, frames


def hint_for(view: dict) -> dict:
    """The help panel's data, exactly as the server's ``GET /api/hint`` computes it."""
    return dict(hint(view))  # type: ignore[arg-type]


def main(out: Path = OUT) -> None:
    """Write ``views.json`` to ``out``."""
    out.mkdir(exist_ok=True)
    views: dict[str, dict] = {}
    for seed in range(1, 400):
        state, frames = play(seed, ["yuanhang", "bianfeng", "laizishanzhuang"][seed % 3])
        r = state.result
        if "ready" in frames and "ready" not in views:
            views["ready"] = frames["ready"]
        wanted = {"claim_chi", "late"} <= frames.keys()
        if r.outcome == "win" and "win" not in views and r.settlement and wanted:
            views.update({k: v for k, v in frames.items() if k not in ("end", "ready")})
            views["win"] = frames["end"]
        if r.outcome == "win" and r.settlement is not None and r.settlement.contractor is not None \
                and "contract" not in views:
            views["contract"] = frames["end"]
        if r.outcome == "exhausted" and "exhausted" not in views:
            views["exhausted"] = frames["end"]
        if {"win", "contract", "exhausted", "ready"} <= views.keys():
            break
    for name in ("turn", "claim_chi", "late", "ready"):
        if name in views:
            views[name]["hint"] = hint_for(views[name])
    (out / "views.json").write_text(json.dumps(views, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
    print(f"wrote {OUT}/views.json")
