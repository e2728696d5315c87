"""Datasets of play: ``wuhan-mahjong dataset --profile P --hands N --policy expert --out FILE``.

A shipped bot (``--policy``, any registered name) plays all four seats of ``N``
hands; every decision with a real choice (two or more legal actions; with
``--all-decisions`` also the forced ones) becomes one row.  The ``.npz`` file
(NumPy, compressed) holds:

=============  ==================  ===============================================
array          shape, dtype        meaning
=============  ==================  ===============================================
``obs``        (R, 138, 34) f16    observation planes (:mod:`.spaces`), float16
``mask``       (R, 114) bool       legal actions
``action``     (R,) int16          the index the policy chose
``seat``       (R,) int8           the deciding seat
``hand``       (R,) int32          the hand the row belongs to (0 .. N-1)
``reward``     (R,) float32        the deciding seat's points for that hand (final)
``deltas``     (N, 4) int32        every hand's settlement, by seat
``dealer``     (N,) int8           every hand's dealer
``planes``     (138,) str          the names of the observation planes
``meta``       () str              JSON: profile, options, policy, seed, hands, version
=============  ==================  ===============================================

Hand ``h`` is dealt from ``random.Random(f"wuhan-mahjong dataset {seed} {h}")`` and
the bots are seeded from the same string, so a file is reproducible from its
seed (``--seed``, default 0) and any hand can be regenerated alone.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from ..bots import get_bot
from ..engine.actions import PASS, Action
from ..engine.state import new_hand
from ..engine.views import seat_view
from ..rules import PROFILES, RulesError, get_rules, parse_overrides
from .dataset_args import DatasetError, add_arguments
from .npz import DAMAGED, open_npz
from .spaces import NUM_ACTIONS, OBS_SHAPE, PLANES, action_index, action_mask, encode

FORMAT_VERSION = 2  # 2: 138 planes (the replacement draw added, December 2026)

MAX_HANDS = 100_000
"""The most hands one file may hold.  The command writes the observation planes to disk as
the hands are played (about 0.45 MB per hand beside the output until it is compressed;
:func:`generate` holds them in memory), so a larger dataset is several files with
different ``--seed`` values."""


def play_hand_rows(profile: str, options: dict[str, Any], policy: str, seed: int, h: int,
                   all_decisions: bool = False) -> tuple[list[tuple[npt.NDArray[np.float32],
                                                              npt.NDArray[np.int8], int, int]],
                                                    tuple[int, int, int, int], int]:
    """Play hand ``h`` of the dataset: its rows ``(obs, mask, action, seat)``, deltas and dealer.

    With ``all_decisions`` the hand is played without ``auto_pass``, so a claim window, a
    robbing window or a final draw where a seat can only pass is a decision (a row) too;
    that pass is played without asking the bot, so the hand is the one played without
    ``all_decisions`` (with ``auto_pass`` those passes were no decisions at all, and the
    option kept no more rows)."""
    rules = get_rules(profile, options)
    key = f"wuhan-mahjong dataset {seed} {h}"
    rng = random.Random(key)
    dealer = rng.randrange(4)
    state = new_hand(rules, dealer, rng=rng, auto_pass=not all_decisions)
    bots = [get_bot(policy, random.Random(f"{key} seat {s}").getrandbits(31)) for s in range(4)]
    rows = []
    while not state.ended:
        seat = state.to_act()[0]
        view = seat_view(state, seat)
        legal = state.legal_actions(seat)
        if legal == (PASS,) and state.phase != "turn":  # what auto_pass answers
            action: Action = PASS
        else:
            action = bots[seat].choose(view)
        if all_decisions or len(legal) > 1:
            rows.append((encode(view), action_mask(legal, state.pending_tile),
                         action_index(action, state.pending_tile), seat))
        state.apply(seat, action)
    assert state.result is not None
    d = state.result.deltas
    return rows, (d[0], d[1], d[2], d[3]), dealer


def generate(profile: str = "yuanhang", hands: int = 100, policy: str = "expert", seed: int = 0,
             options: dict[str, Any] | None = None, all_decisions: bool = False,
             progress: Callable[[int], None] | None = None) -> dict[str, npt.NDArray[Any]]:
    """The dataset's arrays (see the module docstring); ``progress(done)`` after every hand."""
    blocks: list[npt.NDArray[np.float16]] = []
    arrays = _generate(profile, hands, policy, seed, options, all_decisions, progress,
                       blocks.append)
    obs = np.concatenate(blocks) if blocks else np.zeros((0, *OBS_SHAPE), dtype=np.float16)
    return {"obs": obs, **arrays}


def _generate(profile: str, hands: int, policy: str, seed: int, options: dict[str, Any] | None,
              all_decisions: bool, progress: Callable[[int], None] | None,
              obs_sink: Callable[[npt.NDArray[np.float16]], Any]) -> dict[str, npt.NDArray[Any]]:
    """Every array but ``obs``, whose rows go to ``obs_sink`` a hand's block at a time
    (``float16``, in row order): :func:`run` writes them to disk as they come, so a file
    is not limited by memory."""
    # a NumPy count or seed (a sweep's) is the int it holds; it was played, and then the
    # file's meta could not be written ("int64 is not JSON serializable"): the work lost
    hands = _whole("--hands", hands)
    seed = _whole("--seed", seed)
    if hands < 1:
        raise DatasetError("--hands must be at least 1")
    if hands > MAX_HANDS:
        raise DatasetError(f"--hands must be at most {MAX_HANDS:,} per file; write several "
                           "files with different --seed values")
    if not isinstance(profile, str) or profile not in PROFILES:
        raise DatasetError(f"unknown profile {profile!r} (choose from {', '.join(sorted(PROFILES))})")
    opts = {k: v.item() if isinstance(v, np.generic) else v for k, v in (options or {}).items()}
    try:
        get_rules(profile, opts)
        get_bot(policy, 0)
        json.dumps(opts)  # (the file's meta holds them)
    except (RulesError, ValueError, TypeError) as e:
        raise DatasetError(str(e)) from None
    masks: list[npt.NDArray[np.bool_]] = []  # one block of rows per hand
    actions: list[int] = []
    seats: list[int] = []
    hand_ids: list[int] = []
    rewards: list[float] = []
    deltas = np.zeros((hands, 4), dtype=np.int32)
    dealers = np.zeros(hands, dtype=np.int8)
    for h in range(hands):
        rows, d, dealer = play_hand_rows(profile, opts, policy, seed, h, all_decisions)
        deltas[h] = d
        dealers[h] = dealer
        if rows:  # float16 now: the float32 planes of every row would take twice the space
            obs_sink(np.stack([o for o, _, _, _ in rows]).astype(np.float16))
            masks.append(np.stack([m for _, m, _, _ in rows]).astype(np.bool_))
        for _, _, a, s in rows:
            actions.append(a)
            seats.append(s)
            hand_ids.append(h)
            rewards.append(float(d[s]))
        if progress is not None:
            progress(h + 1)
    meta = {"format": "wuhan-mahjong/dataset", "version": FORMAT_VERSION, "profile": profile,
            "options": opts, "policy": policy, "seed": seed, "hands": hands,
            "all_decisions": all_decisions, "num_actions": NUM_ACTIONS}
    n = len(actions)
    return {
        "mask": np.concatenate(masks) if n else np.zeros((0, NUM_ACTIONS), dtype=np.bool_),
        "action": np.asarray(actions, dtype=np.int16),
        "seat": np.asarray(seats, dtype=np.int8),
        "hand": np.asarray(hand_ids, dtype=np.int32),
        "reward": np.asarray(rewards, dtype=np.float32),
        "deltas": deltas,
        "dealer": dealers,
        "planes": np.asarray(PLANES),
        "meta": np.asarray(json.dumps(meta, sort_keys=True)),
    }


ARRAYS = ("obs", "mask", "action", "seat", "hand", "reward", "deltas", "dealer", "planes", "meta")
"""The arrays of a dataset file (the module docstring's table)."""


def _whole(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise DatasetError(f"{name} must be a whole number, got {value!r}")
    return int(value)


def load(path: str) -> dict[str, Any]:
    """A dataset file's arrays (``obs`` as float32) and its ``meta`` as a dict.  A missing
    file is an ``OSError``; one that is truncated, damaged or no dataset a
    :class:`DatasetError` naming the file (it was whatever NumPy or ``zipfile`` raised:
    ``BadZipFile``, ``EOFError``, ``KeyError``)."""
    f = open_npz(path, "dataset", DatasetError)
    with f:
        missing = [k for k in ARRAYS if k not in f.files]
        if missing:
            raise DatasetError(f"{path}: not a dataset file: no {', '.join(missing)}")
        try:
            out: dict[str, Any] = {k: f[k] for k in f.files}
            out["obs"] = out["obs"].astype(np.float32)
            meta = json.loads(str(out["meta"]))
        except DAMAGED as e:
            raise DatasetError(f"{path}: a damaged dataset file: {e}") from None
    if not isinstance(meta, dict):
        raise DatasetError(f"{path}: a damaged dataset file: meta is not a JSON object")
    out["meta"] = meta
    return out


class ProgressBar:
    """A one-line progress bar on a terminal (``[#####     ] 50/100 hands``)."""

    def __init__(self, total: int, stream: IO[str], width: int = 30) -> None:
        self.total = total
        self.stream = stream
        self.width = width

    def __call__(self, done: int) -> None:
        filled = self.width * done // self.total
        self.stream.write(f"\r[{'#' * filled}{' ' * (self.width - filled)}] {done}/{self.total} hands")
        if done == self.total:
            self.stream.write("\n")
        self.stream.flush()


def _options(items: Sequence[str]) -> dict[str, Any]:
    try:
        return parse_overrides(items)
    except ValueError as e:
        raise DatasetError(str(e)) from None


@contextlib.contextmanager
def _ended_by_signals() -> Iterator[None]:
    """While a file is written: SIGTERM and SIGHUP (``kill``, a closed terminal) end the
    run as an exception does, so its partial files are removed (they ended the process
    at once, leaving the raw planes beside the output); exit status 128 + the signal.
    Only in the main thread, where Python delivers signals."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def end(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    wanted = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {sig: signal.signal(sig, end) for sig in wanted}
    try:
        yield
    finally:
        for sig, handler in previous.items():  # (None: one set outside Python)
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)


def run(args: argparse.Namespace) -> int:
    """Generate and write the dataset; raises :class:`DatasetError` for bad input."""
    out = str(args.out)
    if not out.endswith(".npz"):
        raise DatasetError(f"--out must name a .npz file, got '{out}'")
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise DatasetError(f"cannot write {out}: no such directory {folder}")
    if os.path.isdir(out):  # found only at the end, when every hand had been played
        raise DatasetError(f"cannot write {out}: it is a directory")
    show = sys.stderr.isatty() if args.progress is None else args.progress
    bar = ProgressBar(args.hands, sys.stderr) if show and args.hands > 0 else None
    options = _options(args.option)
    tmp = out + ".part.npz"  # written whole, then renamed: a killed run leaves no half file
    planes = out + ".part.obs"  # the observation planes, raw, as the hands are played
    try:
        with _ended_by_signals():  # (a SIGTERM left the planes file, 0.45 MB a hand)
            try:
                with open(planes, "wb") as raw:
                    arrays = _generate(args.profile, args.hands, args.policy, args.seed, options,
                                       args.all_decisions, bar,
                                       lambda block: raw.write(block.tobytes()))
                rows = len(arrays["action"])
                # read back from disk while it is compressed (NumPy writes it in 16 MiB chunks)
                obs: npt.NDArray[np.float16] = (
                    np.memmap(planes, dtype=np.float16, mode="r", shape=(rows, *OBS_SHAPE))
                    if rows else np.zeros((0, *OBS_SHAPE), dtype=np.float16))
                np.savez_compressed(tmp, obs=obs, **arrays)  # type: ignore[arg-type]
                del obs
                os.replace(tmp, out)
            finally:
                for leftover in (planes, tmp):
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(leftover)
    except OSError as e:
        raise DatasetError(f"cannot write {out}: {e.strerror}") from None
    # a file name of bytes that are no UTF-8 (a lone surrogate here) shown as stderr shows
    # it: printed as it is, it was a UnicodeEncodeError traceback once the file was written
    shown = out.encode("utf-8", "backslashreplace").decode("utf-8")
    print(f"{shown}: {rows} decisions from {args.hands} hands "
          f"({args.profile}, policy {args.policy}, seed {args.seed})")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m wuhan_mahjong.rl.dataset ...``: the same as ``wuhan-mahjong dataset``."""

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> Any:
            self.print_usage(sys.stderr)
            print(f"wuhan-mahjong dataset: error: {message}", file=sys.stderr)
            raise SystemExit(2)

    p = Parser(prog="wuhan-mahjong dataset", description=__doc__.splitlines()[0])
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        return run(args)
    except DatasetError as e:
        print(f"wuhan-mahjong dataset: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # (the partial files are gone): as `wuhan-mahjong dataset`
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
