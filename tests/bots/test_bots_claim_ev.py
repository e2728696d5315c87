"""``ExpertBot(claim_ev=...)``: a chi or peng only when it is worth its exposure (off by
default; docs/bots-log.md, "Claims worth their exposure").  An opening doubles what the seat
pays whenever another seat wins, nearly every hand; a hand far from winning does not earn
that back."""

from __future__ import annotations

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.engine.actions import PASS, Chi

CHI_3M = [{"type": "chi", "tile": "2m"}, {"type": "pass"}]
#: three steps from ready, closed; the chi of 3m (with 2m 4m) is one step closer
FAR_CLOSED = "24m57p19s3z4z66s8p9m1p"
#: the same, opened by a peng of 北
FAR_OPENED = "24m57p19s66s8p1p"
OPENED = {0: [meld("peng", "444z", 2)]}


def test_the_default_expert_takes_every_claim_that_brings_it_closer() -> None:
    for hand, melds in ((FAR_CLOSED, None), (FAR_OPENED, OPENED)):
        view = make_view(hand, wall=24, claim=("3m", 3), melds=melds, actions=CHI_3M)
        assert isinstance(ExpertBot(1).choose(view), Chi)


@pytest.mark.parametrize("profile", ["yuanhang", "bianfeng", "laizishanzhuang"])
def test_a_far_closed_hand_keeps_closed(profile: str) -> None:
    """Its first opening doubles every loss from now on, for one step of shanten."""
    view = make_view(FAR_CLOSED, profile=profile, wall=24, claim=("3m", 3), actions=CHI_3M)
    assert ExpertBot(1, claim_ev=1).choose(view) == PASS


def test_a_second_opening_is_exposure_only_where_each_opening_doubles() -> None:
    """口口翻 (远航): late and far, a second opening doubles the losses and buys too little
    speed; where one opening counts once (边锋), a second one costs nothing and the step
    is taken."""
    yuanhang = make_view(FAR_OPENED, wall=24, claim=("3m", 3), melds=OPENED, actions=CHI_3M)
    assert ExpertBot(1, claim_ev=2).choose(yuanhang) == PASS
    bianfeng = make_view(FAR_OPENED, profile="bianfeng", wall=24, claim=("3m", 3), melds=OPENED,
                         actions=CHI_3M)
    assert isinstance(ExpertBot(1, claim_ev=2).choose(bianfeng), Chi)


def test_a_claim_the_minimum_score_needs_is_made() -> None:
    """Ready with one opening in 远航, no win can reach 20: the chi's opening is what lets
    one pass, so the hand's chance without it is nil."""
    view = make_view("456p789s55m34s", claim=("5p", 3), melds={0: [meld("chi", "123m", 3)]},
                     actions=[{"type": "chi", "tile": "4p"}, {"type": "pass"}])
    assert isinstance(ExpertBot(1, claim_ev=2).choose(view), Chi)
