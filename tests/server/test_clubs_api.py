"""Clubs (亲友圈) through the real server: a club founded with its rules, players asking to
join and let in, a member's table played by the club's rules (whatever options he sent),
listed on the club's page while it waits, refused to a pending applicant and to an outsider,
played to its end; the club's matches and its standings (each player's points are his match
totals); what a non-member sees; the API's refusals.  SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from .harness import Client, Server, api_get, api_post, guest_token, play, register

RULES = {"profile": "bianfeng", "hands": 1, "opening_scoring": "per_opening", "cap": 250}


def test_a_club_table_from_founding_to_the_standings(server: Server) -> None:
    names = ["owner", "amy", "bo", "pat", "out"]
    tokens = dict(zip(names, (register(server, n) for n in names), strict=True))
    made = api_post(server, "/api/clubs", tokens["owner"],
                 {"name": "汉口 老友", "notice": "周五晚八点", "options": RULES})
    assert made.status_code == 201, made.text
    club = made.json()
    number = club["number"]
    assert club["role"] == "owner" and club["profile"] == "bianfeng"
    assert club["options"]["hands"] == 1 and club["options"]["cap"] == 250
    for n in ("amy", "bo", "pat"):
        applied = api_post(server, f"/api/clubs/{number}/apply", tokens[n])
        assert applied.json() == {"role": "pending"}
    # a pending applicant sees the club's face, not its members, tables or standings
    seen = api_get(server, f"/api/clubs/{number}", tokens["pat"]).json()
    assert seen["club"]["role"] == "pending" and seen["club"]["name"] == "汉口 老友"
    assert seen["members"] is None and seen["rooms"] is None and seen["matches"] is None
    refused = api_get(server, f"/api/clubs/{number}/standings", tokens["pat"])
    assert refused.status_code == 409 and refused.json()["error"]["params"]["reason"] == "not_member"
    # a member may not answer applications; the owner lets two in
    no = api_post(server, f"/api/clubs/{number}/members", tokens["pat"],
               {"username": "amy", "action": "approve"})
    assert no.status_code == 409 and no.json()["error"]["params"]["reason"] == "not_allowed"
    for n in ("amy", "bo"):
        let_in = api_post(server, f"/api/clubs/{number}/members", tokens["owner"],
                       {"username": n, "action": "approve"})
        assert let_in.json() == {"role": "member"}, let_in.text
    owner_view = api_get(server, f"/api/clubs/{number}", tokens["owner"]).json()
    assert owner_view["club"]["pending"] == 1  # pat waits for an answer
    assert [(m["username"], m["role"]) for m in owner_view["members"]] == [
        ("owner", "owner"), ("amy", "member"), ("bo", "member"), ("pat", "pending")]
    # each row says what the asker may do with him: the page's buttons
    assert [m["actions"] for m in owner_view["members"]] == [
        [], ["admin", "transfer", "remove"], ["admin", "transfer", "remove"],
        ["approve", "reject"]]
    member_view = api_get(server, f"/api/clubs/{number}", tokens["amy"]).json()
    assert all(m["actions"] == [] for m in member_view["members"])
    assert member_view["club"]["pending"] == 0
    assert "pat" not in [m["username"] for m in member_view["members"]]  # admins' business
    assert [c["number"] for c in api_get(server, "/api/clubs", tokens["amy"]).json()["clubs"]] == [
        number]
    gone = api_post(server, f"/api/clubs/{number}/members", tokens["owner"],
                 {"username": "nobody", "action": "remove"})
    assert gone.status_code == 409
    assert gone.json()["error"]["params"] == {"reason": "no_player", "username": "nobody"}

    async def scenario() -> tuple[list[Client], list[dict[str, Any]]]:
        owner, amy, bo, pat, out = clients = [Client(server, tokens[n], n) for n in names]
        for c in clients:
            await c.connect()
        # the club's rules, whatever the member's options said
        await amy.send({"type": "create_room",
                        "options": {"club": number, "profile": "yuanhang", "hands": 4}})
        room = await amy.expect("room")
        assert room["options"]["club"] == number and room["options"]["profile"] == "bianfeng"
        assert room["club_name"] == "汉口 老友"
        assert room["options"]["hands"] == 1 and room["options"]["cap"] == 250
        code = room["code"]
        listed = (await asyncio.to_thread(api_get, server, f"/api/clubs/{number}",
                                          tokens["bo"])).json()["rooms"]
        assert listed == [{"code": code, "host": "amy", "players": ["amy"], "hands": 1,
                           "stake": 0}]
        for stranger in (pat, out):  # an applicant and an outsider: not at its tables
            await stranger.send({"type": "join_room", "code": code})
            err = await stranger.expect("error")
            assert err["code"] == "not_member" and err["params"]["club"] == number
            await stranger.send({"type": "create_room", "options": {"club": number}})
            assert (await stranger.expect("error"))["code"] == "not_member"
        await out.send({"type": "create_room", "options": {"club": 999_999 if number != 999_999
                                                           else 100_000}})
        assert (await out.expect("error"))["code"] == "not_found"
        for c in (owner, bo):
            await c.send({"type": "join_room", "code": code})
            await c.expect("room")
        for c in (amy, owner, bo):
            await c.send({"type": "ready"})
        while not all(m["ready"] for m in (await amy.expect("room"))["members"]):
            pass
        await amy.send({"type": "start"})
        tables = [await c.expect("table") for c in (amy, owner, bo)]
        assert tables[0]["profile"] == "bianfeng"
        assert tables[0]["rules"]["opening_scoring"] == "per_opening"
        gone = (await asyncio.to_thread(api_get, server, f"/api/clubs/{number}",
                                        tokens["bo"])).json()["rooms"]
        assert gone == []  # started: no longer waiting
        ends = await asyncio.gather(*(play(c, bot="greedy", seed=k, timeout=120)
                                      for k, c in enumerate((amy, owner, bo))))
        for c in clients:
            await c.close()
        return clients, [{"seat": t["seat"], "totals": e["totals"]}
                         for t, e in zip(tables, ends, strict=True)]

    _, results = asyncio.run(scenario())
    mine = {n: r["totals"][r["seat"]] for n, r in zip(("amy", "owner", "bo"), results,
                                                        strict=True)}
    for period in ("week", "month", "all"):
        standing = api_get(server, f"/api/clubs/{number}/standings?period={period}",
                        tokens["bo"]).json()
        assert standing["period"] == period and (standing["since"] is None) == (period == "all")
        got = {s["username"]: (s["points"], s["matches"], s["hands"])
               for s in standing["standings"]}
        assert got == {n: (p, 1, 1) for n, p in mine.items()}, (period, got)
    bad = api_get(server, f"/api/clubs/{number}/standings?period=year", tokens["bo"])
    assert bad.status_code == 400
    (match,) = api_get(server, f"/api/clubs/{number}", tokens["bo"]).json()["matches"]
    assert match["status"] == "finished" and match["hands_done"] == 1 and match["hands"] == 1
    assert sorted(p for _, p in match["results"]) == sorted(results[0]["totals"])
    assert match["table_id"] is None


def test_a_club_table_starts_only_with_the_clubs_members(server: Server) -> None:
    """Whoever is removed from a club while he waits at its table leaves the table when it
    is to start (told why: ``left`` naming the club), and it does not start without the host
    starting again; when the club was dissolved, everyone leaves and the table is gone."""
    names = ["boss", "ann", "ben"]
    tokens = dict(zip(names, (register(server, n) for n in names), strict=True))
    number = api_post(server, "/api/clubs", tokens["boss"], {"name": "散伙圈"}).json()["number"]
    for n in ("ann", "ben"):
        api_post(server, f"/api/clubs/{number}/apply", tokens[n])
        api_post(server, f"/api/clubs/{number}/members", tokens["boss"],
                 {"username": n, "action": "approve"})

    async def call(path: str, body: Any = None) -> None:
        r = await asyncio.to_thread(api_post, server, path, tokens["boss"], body)
        assert r.status_code == 200, r.text

    async def scenario() -> None:
        boss, ann, ben = clients = [Client(server, tokens[n], n) for n in names]
        for c in clients:
            await c.connect()
        await ann.send({"type": "create_room", "options": {"club": number}})
        code = (await ann.expect("room"))["code"]
        for c in (boss, ben):
            await c.send({"type": "join_room", "code": code})
            await c.expect("room")
        for c in clients:
            await c.send({"type": "ready"})
        while True:
            members = (await ann.expect("room"))["members"]
            if len(members) == 3 and all(m["ready"] for m in members):
                break
        await call(f"/api/clubs/{number}/members", {"username": "ben", "action": "remove"})
        await ann.send({"type": "start"})
        left = await ben.expect("left")
        assert left["where"] == "room" and left["club"] == number and not left["kicked"]
        room = await ann.expect("room")
        assert [m["name"] for m in room["members"]] == ["ann", "boss"]
        await ben.send({"type": "join_room", "code": code})  # and he cannot come back
        assert (await ben.expect("error"))["code"] == "not_member"
        await call(f"/api/clubs/{number}/dissolve")
        await ann.send({"type": "start"})
        for c in (ann, boss):
            assert (await c.expect("left"))["club"] == number
        await boss.send({"type": "join_room", "code": code})
        assert (await boss.expect("error"))["code"] == "not_found"
        for c in clients:  # nobody was seated at a table
            assert not [f for f in c.frames if f.msg["type"] == "table"]
            await c.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("body, field", [
    ({"name": ""}, "name"),
    ({"name": "x" * 21}, "name"),
    ({"name": "ok", "notice": "\u0007"}, "notice"),
    ({"name": "ok", "options": {"profile": "yuanhang", "rules": {"cap": -5}}}, "options"),
    ({"name": "ok", "options": {"profile": "yuanhang", "rules": {"service_fee": 0}}}, "options"),
    ({"name": "ok", "options": {"profile": "yuanhang", "stake": 10, "cap": 0}}, "options"),
])
def test_bad_clubs_are_refused(server: Server, body: dict[str, Any], field: str) -> None:
    token = register(server, "founder")
    r = api_post(server, "/api/clubs", token, body)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["params"]["field"] == field
    if body.get("options", {}).get("rules", {}).get("cap") == -5:  # named, with its range
        params = r.json()["error"]["params"]
        assert (params["option"], params["low"]) == ("cap", 0) and params["high"] > 0


def test_who_may_found_and_what_is_not_found(server: Server) -> None:
    guest = guest_token(server)
    r = api_post(server, "/api/clubs", guest, {"name": "guests"})
    assert r.status_code == 409 and r.json()["error"]["params"]["reason"] == "guest"
    assert api_post(server, "/api/clubs", "nonsense", {"name": "x"}).status_code == 401
    token = register(server, "founder")
    for number in ("000001", "12345", "1234567", "abcdef", "１２３４５６"):
        assert api_get(server, f"/api/clubs/{number}", token).status_code == 404, number
    number = api_post(server, "/api/clubs", token, {"name": "一个"}).json()["number"]
    other = 100_000 if number != 100_000 else 100_001
    assert api_get(server, f"/api/clubs/{other}", token).status_code == 404
    assert api_post(server, f"/api/clubs/{other}/apply", token).status_code == 404
    left = api_post(server, f"/api/clubs/{number}/leave", token)
    assert left.status_code == 409 and left.json()["error"]["params"]["reason"] == "owner"
    renamed = api_post(server, f"/api/clubs/{number}/settings", token,
                    {"name": "两个", "options": {"profile": "laizishanzhuang", "hands": 8}})
    assert renamed.status_code == 200 and renamed.json()["profile"] == "laizishanzhuang"
    assert api_post(server, f"/api/clubs/{number}/dissolve", token).json() == {"ok": True}
    assert api_get(server, f"/api/clubs/{number}", token).status_code == 404


def test_the_players_a_change_concerns_hear_of_it(server: Server) -> None:
    """``club_event`` frames: the owner and admins of an application, the applicant of its
    answer, a member of his new role or his removal, the heir of the club; nobody else."""
    names = ["boss", "aide", "newbie", "idle"]
    tokens = dict(zip(names, (register(server, n) for n in names), strict=True))
    number = api_post(server, "/api/clubs", tokens["boss"], {"name": "消息圈"}).json()["number"]
    api_post(server, f"/api/clubs/{number}/apply", tokens["aide"])
    api_post(server, f"/api/clubs/{number}/members", tokens["boss"],
          {"username": "aide", "action": "approve"})
    api_post(server, f"/api/clubs/{number}/members", tokens["boss"],
          {"username": "aide", "action": "admin"})

    async def scenario() -> list[Client]:
        clients = {n: Client(server, tokens[n], n) for n in names}
        for c in clients.values():
            await c.connect()
        seen = await asyncio.to_thread(api_get, server, f"/api/clubs/{number}", tokens["boss"])
        assert {(m["username"], m["online"]) for m in seen.json()["members"]} == {
            ("boss", True), ("aide", True)}

        async def call(path: str, who: str, body: Any = None) -> None:
            r = await asyncio.to_thread(api_post, server, path, tokens[who], body)
            assert r.status_code == 200, r.text

        def event(kind: str, by: str) -> dict[str, Any]:
            return {"type": "club_event", "event": kind, "club": number, "name": "消息圈",
                    "username": by}

        await call(f"/api/clubs/{number}/apply", "newbie")
        for answerer in ("boss", "aide"):
            assert await clients[answerer].expect("club_event") == event("applied", "newbie")
        await call(f"/api/clubs/{number}/apply", "newbie")  # again: nobody is told twice
        await call(f"/api/clubs/{number}/members", "aide",
                   {"username": "newbie", "action": "approve"})
        assert await clients["newbie"].expect("club_event") == event("approved", "aide")
        await call(f"/api/clubs/{number}/members", "boss",
                   {"username": "newbie", "action": "admin"})
        assert await clients["newbie"].expect("club_event") == event("admin", "boss")
        await call(f"/api/clubs/{number}/transfer", "boss", {"username": "newbie"})
        assert await clients["newbie"].expect("club_event") == event("owner", "boss")
        await call(f"/api/clubs/{number}/members", "newbie",
                   {"username": "aide", "action": "remove"})
        assert await clients["aide"].expect("club_event") == event("removed", "newbie")
        await asyncio.sleep(0.3)
        for c in clients.values():
            await c.close()
        return list(clients.values())

    clients = asyncio.run(scenario())
    for _ in range(50):  # gone: no longer online (the server sees the sockets close)
        members = api_get(server, f"/api/clubs/{number}", tokens["boss"]).json()["members"]
        if not any(m["online"] for m in members):
            break
        asyncio.run(asyncio.sleep(0.1))
    assert {(m["username"], m["online"]) for m in members} == {("newbie", False),
                                                               ("boss", False)}
    heard = {c.name: [(f["event"], f["username"]) for f in c.of_type("club_event")]
             for c in clients}
    assert heard == {"boss": [("applied", "newbie")], "aide": [("applied", "newbie"),
                                                                ("removed", "newbie")],
                     "newbie": [("approved", "aide"), ("admin", "boss"), ("owner", "boss")],
                     "idle": []}
