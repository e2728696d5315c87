"""An opened, ready hand's chi or peng that keeps it ready, decided by what its waits
are worth (``ExpertBot.ready_claim``).

Shanten calls such a claim idle, and greedy passes it; but with three melds shown, a
fourth claim turns a small hand's single 2/5/8 wait into a 全求人 (a big hand, base 10)
on the same tile, and in 边锋 it turns a hand whose every small win falls short of the
minimum score (one loser 20, each loser 8) into one whose wins pass it.  A strong
player makes that claim in every profile; the expert and the search bot make it, and
with ``ready_claims`` off the expert passed.
"""

from __future__ import annotations

from typing import Any

import pytest
from handmade import make_view, meld

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.expert import ExpertBot
from wuhan_mahjong.bots.greedy import GreedyBot
from wuhan_mahjong.engine.actions import PASS, action_from_json

PASS_JSON = {"type": "pass"}
THREE_CLAIMED = {0: [meld("chi", "123m", 3), meld("peng", "777p", 2), meld("chi", "345s", 3)]}
PROFILES = ("yuanhang", "bianfeng", "laizishanzhuang")


def _claim(hand: str, tile: str, seat: int, action: dict[str, Any], profile: str,
           melds: dict[int, list[dict[str, Any]]] | None = None) -> Any:
    return make_view(hand, profile=profile, indicator="9m", melds=melds or THREE_CLAIMED,
                     claim=(tile, seat), actions=[action, PASS_JSON])


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("bot", ["expert", "search"])
def test_the_fourth_claim_that_makes_a_quanqiuren_on_the_same_tile(bot: str, profile: str) -> None:
    # ready on 5p alone (678s and a 2/5/8 pair to be); the chi of 9s (78s) shows a fourth
    # claimed meld and leaves 5p 6s: throwing 6s waits on the same 5p, now as 全求人
    chi = {"type": "chi", "tile": "7s"}
    view = _claim("5p678s", "9s", 3, chi, profile)
    assert get_bot(bot, 1).choose(view) == action_from_json(chi)
    assert ExpertBot(1, ready_claims=False).choose(view) == PASS
    # greedy makes it too since 5 December 2026 (as many winning tiles, now a big hand:
    # GreedyBot.legal_waits); by shanten alone (the option off) it was an idle chi
    assert get_bot("greedy", 1).choose(view) == action_from_json(chi)
    old = GreedyBot(1)
    old.legal_waits = False
    assert old.choose(view) == PASS


@pytest.mark.parametrize("profile", PROFILES)
def test_the_peng_that_turns_a_closed_wait_into_a_quanqiuren(profile: str) -> None:
    # ready on 7s (68s, pair 55p); the peng of 5p leaves 68s, and 8s stays as the
    # 全求人's lone 2/5/8 (a lone 6s could not pair into a win)
    peng = {"type": "peng", "tile": "5p"}
    view = _claim("55p68s", "5p", 2, peng, profile)
    assert ExpertBot(1).choose(view) == action_from_json(peng)
    assert ExpertBot(1, ready_claims=False).choose(view) == PASS


def test_bianfeng_a_claim_makes_the_wins_pass_the_minimum_score() -> None:
    # 边锋 (开口翻): ready on 5s/8s with the pair 55p, the hand's small wins owe at most
    # 2 × 2 (opened, hard) × 1.5 = 6 from the discarder, short of 20; no factor the
    # hand can add by claiming changes that, but the chi of 8s (67s) makes the lone 5p
    # a 全求人, whose win on a discard owes 10 × 4 × 1.5 = 60
    chi = {"type": "chi", "tile": "6s"}
    view = _claim("55p67s", "8s", 3, chi, "bianfeng")
    assert ExpertBot(1).choose(view) == action_from_json(chi)
    assert ExpertBot(1, ready_claims=False).choose(view) == PASS


def test_no_claim_where_it_changes_nothing() -> None:
    # the third meld is a concealed kong, so four melds are no 全求人 (its melds all come
    # from claims): the chi of 9s only trades the single 5p wait for the same one
    melds = {0: [meld("chi", "123m", 3),
                 {"type": "kong", "kind": "concealed", "tiles": "7777p", "from_seat": None},
                 meld("chi", "345s", 3)]}
    view = _claim("5p678s", "9s", 3, {"type": "chi", "tile": "7s"}, "bianfeng", melds)
    assert ExpertBot(1).choose(view) == PASS


def test_no_such_claim_in_the_end_phase() -> None:
    # at the end-phase discard only a 海底捞 (a self-drawn big hand) can still win: the
    # 全求人 wins on a discard, which the final draws never bring, and 5p wins the 海底捞
    # with or without the chi, so the chi adds nothing
    chi = {"type": "chi", "tile": "7s"}
    view = _claim("5p678s", "9s", 3, chi, "bianfeng")
    view["end_phase"] = True
    view["wall"] = 14
    assert ExpertBot(1).choose(view) == PASS
    view["end_phase"] = False
    assert ExpertBot(1).choose(view) == action_from_json(chi)
