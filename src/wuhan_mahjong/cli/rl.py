"""The research sub-command of ``wuhan-mahjong``: ``dataset`` (the ``[rl]`` extra).

``wuhan-mahjong dataset --profile yuanhang --hands 1000 --policy expert --out d.npz``
is :func:`wuhan_mahjong.rl.dataset.main`; see ``docs/rl.md``.  Without the extra
installed the command says so in one line (exit 2).
"""

from __future__ import annotations

import argparse

from .common import ArgumentParser, UsageError


def _missing(name: str) -> int:
    raise UsageError(f"the dataset command needs the rl extra ({name} is not installed): "
                     "pip install 'wuhan-mahjong[rl]'")


def add_dataset_command(p: ArgumentParser) -> None:
    from ..rl.dataset_args import DatasetError, add_arguments

    add_arguments(p)
    try:
        from ..rl import dataset
    except ImportError as e:
        missing = e.name or "a package"
        p.set_defaults(func=lambda args: _missing(missing))
        return

    def cmd_dataset(args: argparse.Namespace) -> int:
        try:
            return dataset.run(args)
        except DatasetError as e:
            raise UsageError(str(e)) from None

    p.set_defaults(func=cmd_dataset)


CONFIGURE = {"dataset": add_dataset_command}
"""Sub-command name -> the function that adds its arguments (read by ``cli.build_parser``)."""
