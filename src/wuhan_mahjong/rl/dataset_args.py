"""The ``dataset`` command's arguments and error, standard library only: ``wuhan-mahjong
dataset --help`` works, and says what is missing, without the ``[rl]`` extra installed."""

from __future__ import annotations

import argparse


class DatasetError(ValueError):
    """Bad arguments or an unwritable output: one line, exit status 2."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``dataset`` command's arguments (shared by ``wuhan-mahjong dataset`` and
    :func:`wuhan_mahjong.rl.dataset.main`)."""
    from ..rules import PROFILES

    p.add_argument("--profile", default="yuanhang", choices=sorted(PROFILES),
                   help="rule profile (default: yuanhang)")
    p.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                   help="override one rule option (VALUE is JSON, or a bare string); repeatable")
    p.add_argument("--hands", type=int, required=True, help="number of hands to play")
    p.add_argument("--policy", default="expert", help="the bot playing every seat (default: expert)")
    p.add_argument("--seed", type=int, default=0, help="dataset seed (default 0): same seed, same file")
    p.add_argument("--out", required=True, help="output file (.npz)")
    p.add_argument("--all-decisions", action="store_true",
                   help="also keep decisions with a single legal action")
    p.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="show a progress bar (default: when standard error is a terminal)")
    p.add_argument("--no-progress", dest="progress", action="store_false")
