"""The fair-play screen (``admin fairplay``): a player who deals into one friend's wins far
more than a third of the time is flagged; fair players, guests and pairs with too few hands
are not.  On SQLite and PostgreSQL, through saved hand records."""

from __future__ import annotations

import json
import random

import pytest

from wuhan_mahjong.cli import main
from wuhan_mahjong.store import HandRecord, Store
from wuhan_mahjong.store.fairplay import CHANCE_SHARE, binomial_tail, fed_pairs
from wuhan_mahjong.store.reports import file_report

PW = "correct horse battery"


def _hand(winner: int, feeder: int | None) -> str:
    """A hand's record lines as far as the statistics read them: its header and its end."""
    deltas = [0, 0, 0, 0]
    if feeder is None:
        deltas = [-10] * 4
        deltas[winner] = 30
    else:
        deltas[feeder], deltas[winner] = -20, 20
    win = {"e": "win", "seat": winner, "win_by": "self_draw" if feeder is None else "discard",
           "from": feeder, "deltas": deltas, "settlement": {"hands": []}}
    return "\n".join(json.dumps(e) for e in ({"e": "header", "profile": "yuanhang"}, win))


def _play(store: Store, seats: list[int], hands: int, seed: int, *, colluders: tuple[int, int]
          | None = None, tag: str = "m") -> None:
    """``hands`` hands among ``seats``: a random winner, on a discard three times in four,
    dealt in by a random other player, except that the first of ``colluders`` (seat
    numbers) feeds the second's discard wins nine times in ten."""
    rng = random.Random(seed)
    for n in range(hands):
        winner = rng.randrange(4)
        feeder = None
        if rng.random() < 0.75:
            others = [s for s in range(4) if s != winner]
            feeder = rng.choice(others)
            if colluders is not None and winner == colluders[1] and rng.random() < 0.9:
                feeder = colluders[0]
        store.save_hand_record(HandRecord(
            match_id=f"{tag}{n // 4}", hand_no=n % 4, commitment="c", wall="", salt="s",
            events=_hand(winner, feeder), seats=dict(enumerate(seats))))


def test_a_feeding_pair_is_flagged_and_fair_players_are_not(store: Store,
                                                             db_url: str,
                                                             capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    names = ["ann", "bob", "cid", "dee", "eve"]
    ids = {n: store.register(n, PW).id for n in names}
    guest = store.create_guest().account.id
    # bob (seat 1) feeds dee (seat 3); ann and cid play fair
    _play(store, [ids["ann"], ids["bob"], ids["cid"], ids["dee"]], 240, 1, colluders=(1, 3))
    # eve and three others, one a guest who feeds her: guests are not screened
    _play(store, [ids["eve"], guest, ids["ann"], ids["cid"]], 240, 2, colluders=(1, 0),
          tag="g")
    looked, flagged = fed_pairs(store, min_wins=20)
    assert [(p.feeder, p.winner) for p in flagged] == [("bob", "dee")]
    (pair,) = flagged
    assert pair.share > 0.8 and pair.p_value < 1e-12
    every_looked, everything = fed_pairs(store, min_wins=20, everything=True)
    assert every_looked == looked == len(everything) > 6
    assert not any(p.feeder.startswith("guest") or p.winner.startswith("guest") for p in everything)
    fair = [p for p in everything if (p.feeder, p.winner) != ("bob", "dee")]
    assert all(p.p_value > 0.001 / looked for p in fair)
    # a pair needs enough hands to be looked at
    assert fed_pairs(store, min_wins=10_000) == (0, [])
    # and the other profiles' hands are not these
    assert fed_pairs(store, min_wins=20, profile="bianfeng") == (0, [])

    # what the players saw is shown beside it: two collusion reports of bob
    seats = [{"account_id": ids[n], "name": n, "is_bot": False} for n in ("ann", "bob", "cid",
                                                                          "dee")]
    store.open_match("seen", "t-seen", "00", {"profile": "yuanhang", "seats": seats})
    file_report(store, ids["ann"], "collusion", match_id="seen", seat=1)
    file_report(store, ids["cid"], "collusion", match_id="seen", seat=1)
    file_report(store, ids["cid"], "name", username="dee")  # not of collusion

    code = main(["admin", "--db", db_url, "--as", "tester", "fairplay"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"bob -> dee: dealt in {pair.fed} of dee's {pair.wins} discard wins" in out
    assert "; reported for collusion: bob 2, dee 0" in out
    code = main(["admin", "--db", db_url, "--as", "tester", "fairplay", "--json", "--days", "1"])
    out, _ = capsys.readouterr()
    found = json.loads(out)
    assert found["pairs_looked_at"] == looked and found["chance_share"] == CHANCE_SHARE
    assert [(p["feeder"], p["winner"]) for p in found["pairs"]] == [("bob", "dee")]
    assert found["pairs"][0]["collusion_reports"] == {"feeder": 2, "winner": 0}
    # the hands behind it, for the operator to read
    code = main(["admin", "--db", db_url, "--as", "tester", "fairplay", "--pair", "BOB", "dee",
                 "--json"])
    out, _ = capsys.readouterr()
    hands = json.loads(out)
    assert code == 0 and len(hands) == pair.fed
    assert all(h["match_id"].startswith("m") for h in hands)
    code = main(["admin", "--db", db_url, "--as", "tester", "fairplay", "--pair", "bob", "nobody"])
    _, err = capsys.readouterr()
    assert code == 2 and "no account named 'nobody'" in err


def test_the_binomial_tail_matches_a_direct_sum() -> None:
    from fractions import Fraction
    from math import comb

    for n, k in ((10, 0), (10, 3), (10, 10), (40, 30), (7, 8)):
        p = Fraction(1, 3)
        exact = sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))
        assert binomial_tail(k, n, 1 / 3) == pytest.approx(float(exact), rel=1e-9)
