"""What a silver seat costs: the most one hand can ask of a player, and the minimum to sit.

The figures come from the rules object and the scoring module (the caps of
:meth:`Rules.caps`, the escape penalty, :func:`scoring.big_hand_base` when caps
count in hand bases), never from copied numbers.  ``docs/server.md`` has the
formula and a table of the profiles' values.

>>> from wuhan_mahjong.rules import get_rules
>>> highest_per_loser(get_rules("yuanhang")), min_to_sit(get_rules("yuanhang"), 1)
(400, 400)
>>> highest_per_loser(get_rules("laizishanzhuang")), min_to_sit(get_rules("laizishanzhuang"), 5)
(600, 3000)
>>> highest_per_loser(get_rules("yuanhang", {"cap_per_opening": 0})) is None
True
"""

from __future__ import annotations

from ..rules import BIG_HAND_IDS, Rules
from ..scoring import big_hand_base, loser_caps

__all__ = ["highest_per_loser", "min_to_sit"]


def highest_per_loser(rules: Rules) -> int | None:
    """The most points one loser can be asked to pay in one hand, or for one escape;
    ``None`` when the rules leave it unbounded (a cap or the contract cap switched off).

    A loser pays at most the cap (封顶) or, when someone contracts or a kong is
    robbed, the contract cap per share; at 金顶 every loser pays the golden cap, and
    a never-opened loser the 光明顶 amount where that rule exists.  Caps counted in
    hand bases (``cap_unit = hand_base``) are multiplied by the largest base a hand
    can reach (every big hand at once).  An escape costs the escape penalty.  A
    contractor (承包) pays the shares of all three losers: that can exceed this
    figure, and is then floored at his balance like any payment (docs/RULES.md
    Ambiguity 36) -- the minimum to sit covers one share, as [001]'s 100 silver does.
    """
    cap, contract_cap, golden, bright = loser_caps(rules, big_hand_base(BIG_HAND_IDS, rules))
    if not cap or not contract_cap:
        return None
    return max(cap, contract_cap, golden, bright, rules.escape)


def min_to_sit(rules: Rules, stake: int) -> int | None:
    """Silver needed to sit at a table of these rules and stake (0 at a free table):
    ``stake x max(rules.min_silver, highest_per_loser(rules))``, so [001]'s 100 stays
    the floor at stake 1.  ``None``: no silver table can use these rules (uncapped)."""
    if stake <= 0:
        return 0
    most = highest_per_loser(rules)
    if most is None:
        return None
    return stake * max(rules.min_silver, most)
