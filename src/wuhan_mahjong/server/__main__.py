"""``python -m wuhan_mahjong.server [options]``: the same as ``wuhan-mahjong serve``."""

import sys

from ..cli.serve import main

sys.exit(main())
