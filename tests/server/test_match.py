"""Four real WebSocket clients (bots behind them) play whole matches through the server."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from wuhan_mahjong.engine import load_records, verify

from .harness import Client, Server, StartServer, guest_token, play, register, seat_four


def test_four_clients_play_a_whole_match(server: Server) -> None:
    tokens = [guest_token(server) for _ in range(4)]

    async def scenario() -> list[Client]:
        clients = await seat_four(server, tokens, hands=2)
        ends = await asyncio.gather(*(play(c, seed=i) for i, c in enumerate(clients)))
        assert len({e["match_id"] for e in ends}) == 1
        for c in clients:
            await c.close()
        return clients

    clients = asyncio.run(scenario())
    seats = sorted(c.of_type("table")[0]["seat"] for c in clients)
    assert seats == [0, 1, 2, 3]
    for c in clients:
        assert c.of_type("error") == [], c.of_type("error")
        hand_ends = c.of_type("hand_end")
        assert [h["hand_no"] for h in hand_ends] == [0, 1]
        end = c.of_type("match_end")[0]
        assert sum(end["totals"]) == 0
        assert end["totals"] == hand_ends[-1]["totals"]
        assert all(not p["bot"] for p in c.of_type("table")[0]["players"])
    # Every hand's record is saved, readable by the players, and checks out.
    match_id = clients[0].of_type("match_end")[0]["match_id"]
    auth = {"Authorization": f"Bearer {tokens[0]}"}
    r = httpx.get(f"{server.http}/api/matches/{match_id}/hands", headers=auth)
    assert r.status_code == 200 and r.json()["hands"] == [0, 1]
    # ... with who sat where and the caller's seat, for the replay viewer's names
    table = clients[0].of_type("table")[0]
    assert r.json()["seat"] == table["seat"]
    assert r.json()["players"] == [p["name"] for p in sorted(table["players"], key=lambda p: p["seat"])]
    for hand_no in (0, 1):
        rec = httpx.get(f"{server.http}/api/matches/{match_id}/hands/{hand_no}", headers=auth).json()
        text = "\n".join(__import__("json").dumps(e, ensure_ascii=False) for e in rec["events"])
        state = verify(load_records(text)[0])
        assert state.ended and rec["commitment"] == state.commitment
    # The match is settled once, in every player's history.
    profile = httpx.get(f"{server.http}/api/profile", headers=auth).json()
    assert [h["match_id"] for h in profile["history"]] == [match_id]
    # Each player's statistics (战绩) count the two hands as the hand_end frames told them.
    for token, c in zip(tokens, clients, strict=True):
        seat = c.of_type("table")[0]["seat"]
        ends = c.of_type("hand_end")
        mine = httpx.get(f"{server.http}/api/profile",
                         headers={"Authorization": f"Bearer {token}"}).json()
        [stats] = mine["stats"]
        assert stats["profile"] == "yuanhang"
        assert (stats["matches"], stats["hands"]) == (1, 2)
        assert stats["wins"] == sum(e["winner"] == seat for e in ends)
        assert stats["exhausted"] == sum(e["outcome"] == "exhausted" for e in ends)
        assert stats["points"] == sum(e["deltas"][seat] for e in ends)
        best = stats["best"]
        assert (best is None) == (stats["wins"] == 0)
        if best is not None:  # his own best hand says where it is, for its replay
            assert best["match_id"] == match_id and best["hand_no"] in (0, 1)


@pytest.mark.slow
def test_silver_table_settles_points_at_the_stake_with_the_fee(start_server: StartServer) -> None:
    server = start_server(fee=7)
    tokens = [register(server, f"player{i}") for i in range(4)]

    async def scenario() -> list[Client]:
        clients = await seat_four(server, tokens, hands=1, stake=2, profile="bianfeng")
        await asyncio.gather(*(play(c, seed=10 + i) for i, c in enumerate(clients)))
        for c in clients:
            await c.close()
        return clients

    clients = asyncio.run(scenario())
    end = clients[0].of_type("match_end")[0]
    assert end["stake"] == 2
    for line in end["results"]:
        # the fee comes after the points, floored at what is left: a seat that lost all its
        # 1000 silver (a contract costs three shares, up to 2,400 at stake 2) pays none
        assert line["fee"] == min(7, 1000 + line["silver"])
        if line["points"] <= 0:  # losers pay points × stake (they all had 1000 silver)
            assert line["silver"] == 2 * line["points"] or line["silver"] == -1000
    for c in clients:
        me = c.of_type("match_end")[0]["account"]
        mine = next(x for x in end["results"] if x["seat"] == c.of_type("table")[0]["seat"])
        assert me["silver"] == 1000 + mine["silver"] - mine["fee"]
    assert server.store.audit().ok
