"""Decision problems of the fourth hunt (6 December 2026), aimed at 赖子山庄
(``laizishanzhuang``: 红中 and 发财 both must-kong tiles, laizi kong ×2, no minimum score,
opening scoring once), where the expert's edge over greedy is smallest.  Each position has
one answer the rules settle, asked of the bots it concerns in every profile where the
answer is the same.

The faults it found (each test fails on the code before the fix it names):

* Two lone tiles equally useless, one of them a pin the next seat, who shows two pin melds,
  may chi or peng as the third meld of his 清一色, which makes this seat pay for all three
  losers (承包).  In ``laizishanzhuang`` the expert's core leaves the contract out of its
  discard ranking (``contract_weight`` 0 there, as measured), and its safety layers act
  only once some seat reads as ready, so early it fed the pin (``ExpertBot.contract_ties``).

The positions the bots already answered right are below them, marked as guards.
"""

from __future__ import annotations

import pytest
from handmade import ask, discard, make_view, meld

from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine import SeatView
from wuhan_mahjong.engine.actions import action_from_json

READERS = ("expert", "search")  # the bots that read the other seats (greedy does not)
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")
PASS = {"type": "pass"}
GREEN = {"type": "special_kong", "kind": "green"}
LAIZI_KONG = {"type": "special_kong", "kind": "laizi"}

#: seat 1, this seat's next, shows two melds of pins: 123p chi'd from this seat, 555p
#: peng'd from seat 3.  A third pin meld fed to him makes the feeder contract (承包) for
#: his 清一色 in every profile (``one_suit_contract_hands``).
TWO_PINS = [meld("chi", "123p", 0), meld("peng", "555p", 3)]
TWO_PIN_RIVERS = {0: "1p>1", 1: "1z9s", 2: "2z3z", 3: "5p>1 4z"}


def _feed(lone: str, wall: int, profile: str) -> SeatView:
    """Closed, one step from ready (234m 567m 22s 45s 78s) with two lone tiles: a pin
    (``lone``'s first) and a character, equally useless."""
    return make_view("234m567m22s45s78s" + lone, profile=profile, indicator="9s", wall=wall,
                     dealer=2, melds={1: TWO_PINS}, discards=TWO_PIN_RIVERS)


# ---------------------------------------------------------------- faults found

@pytest.mark.parametrize("bot", READERS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("wall", [64, 56, 40])
@pytest.mark.parametrize(("lone", "answer"), [("9p1m", "1m"), ("8p9m", "9m")])
def test_no_third_pin_meld_for_a_contract(bot: str, profile: str, wall: int, lone: str,
                                          answer: str) -> None:
    """The next seat shows 123p and 555p: a 9p (or 8p) from this seat is the chi or peng of
    his third pin meld, and if he then wins his 清一色 this seat pays all three shares
    (承包, RULES §17).  The 1m (9m) is as useless to this hand and feeds nothing: it goes.
    In ``laizishanzhuang`` the expert and the search bot threw the pin while nobody read as
    ready yet (wall 64, 56): the core's ranking there prices no contract
    (``contract_weight`` 0) and the push-or-fold layer waits for a threat
    (``ExpertBot.contract_ties``)."""
    ask(bot, _feed(lone, wall, profile), [discard(answer)])


def test_the_contract_ties_switch_plays_as_before() -> None:
    view = _feed("9p1m", 64, "laizishanzhuang")
    assert ExpertBot(1, contract_ties=False).choose(view) == action_from_json(discard("9p"))
