"""The publication seeds of docs/bots.md (Evaluation protocol), in one place: the tuning and
study scripts refuse them, so that no published figure comes from a seed something was
tuned on.  Spent: 20261201-20261225; 20261226 is the next, reserved before its protocol."""

from __future__ import annotations

PUBLICATION_SEEDS = frozenset({20261201, 20261202, 20261203, 20261204, 20261205, 20261206, 20261207,
                               20261208, 20261209, 20261210, 20261211,
                               20261212, 20261213, 20261214, 20261215,
                               20261216, 20261217, 20261218, 20261219,
                               20261220, 20261221, 20261222,
                               20261223, 20261224, 20261225, 20261226})
