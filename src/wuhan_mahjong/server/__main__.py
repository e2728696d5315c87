"""``python -m wuhan_mahjong.server [options]``: the same as ``wuhan-mahjong serve``.

An entry point, like ``wuhan_mahjong/__main__.py``: it sits above every layer, so it
may call the command line (nothing imports this module).
"""

import sys

from ..cli import main

sys.exit(main(["serve", *sys.argv[1:]]))
