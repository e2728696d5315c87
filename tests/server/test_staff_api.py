"""The staff pages' API (``server/staff_api.py``, ``store/staff.py``) through the real server,
on SQLite and PostgreSQL: who may do what (players nothing, moderators not the admins'
actions, nobody on his own rank or above or on himself), each action the same as the command
line's (a ban shuts the player out and closes his connection, a grant is a ledger row the
audit accepts, a removed moderator can do nothing more at once), every action in the event
log under ``web:NAME``, and the refusals' codes."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from wuhan_mahjong.server import admin as server_admin
from wuhan_mahjong.store.admin import Admin

from .harness import Client, Server, api_get, api_post, bearer, play, register, seat_four


def _refusal(r: httpx.Response) -> tuple[int, str, str | None]:
    error = r.json()["error"]
    return r.status_code, error["code"], error.get("params", {}).get("reason")


@pytest.fixture
def staffed(server: Server) -> tuple[Server, dict[str, str]]:
    """A server with an admin ``boss``, a moderator ``mod`` and players ``pat`` and ``cheat``."""
    names = ["boss", "mod", "pat", "cheat"]
    tokens = {n: register(server, n) for n in names}
    operator = Admin(server.store, "root")
    operator.set_role("boss", "admin")
    operator.set_role("mod", "moderator")
    return server, tokens


def test_who_may_do_what(staffed: tuple[Server, dict[str, str]]) -> None:
    server, t = staffed
    assert _refusal(api_get(server, "/api/staff", t["pat"])) == (403, "staff_refused", "not_staff")
    assert _refusal(api_get(server, "/api/staff/reports", t["pat"]))[2] == "not_staff"
    assert api_get(server, "/api/staff", "nonsense").status_code == 401
    home = api_get(server, "/api/staff", t["mod"]).json()
    assert home["role"] == "moderator"
    assert "ban" in home["actions"] and "grant" not in home["actions"]
    assert [(m["username"], m["role"]) for m in home["staff"]] == [("boss", "admin"),
                                                                   ("mod", "moderator")]
    assert set(api_get(server, "/api/staff", t["boss"]).json()["actions"]) > set(home["actions"])
    seen = home["overview"]
    assert (seen["players"], seen["new_players"], seen["banned"], seen["reports_open"]) == (
        4, 4, 0, 0)
    assert (seen["matches_running"], seen["matches_since"], seen["clubs"]) == (0, 0, 0)
    assert (seen["online"], seen["tables"], seen["draining"], seen["announcement"]) == (
        0, 0, False, None)
    assert [api_get(server, "/api/profile", t[n]).json()["staff"] for n in ("boss", "mod", "pat")] \
        == ["admin", "moderator", None]
    # a moderator: not the admins' actions, nobody of his rank or above, not himself
    grant = api_post(server, "/api/staff/accounts/pat", t["mod"], {"action": "grant", "amount": 5})
    assert _refusal(grant) == (403, "staff_refused", "not_allowed")
    assert _refusal(api_post(server, "/api/staff/drain", t["mod"], {"on": True}))[2] == "not_allowed"
    assert _refusal(api_get(server, "/api/staff/audit", t["mod"]))[2] == "not_allowed"
    assert _refusal(api_post(server, "/api/staff/accounts/boss", t["mod"],
                          {"action": "ban"}))[2] == "rank"
    assert _refusal(api_get(server, "/api/staff/accounts/boss", t["mod"]))[2] == "rank"
    assert _refusal(api_post(server, "/api/staff/accounts/mod", t["mod"],
                          {"action": "ban"}))[2] == "self"
    # an admin reaches moderators, not admins, and names no admin from a browser
    assert api_get(server, "/api/staff/accounts/mod", t["boss"]).json()["role"] == "moderator"
    assert _refusal(api_post(server, "/api/staff/accounts/boss", t["boss"],
                          {"action": "grant", "amount": 5}))[2] == "self"
    to_admin = api_post(server, "/api/staff/accounts/pat", t["boss"],
                     {"action": "role", "role": "admin"})
    assert to_admin.status_code == 400 and to_admin.json()["error"]["code"] == "invalid_request"
    # nothing to act on, and input out of bounds
    assert api_get(server, "/api/staff/accounts/nobody", t["mod"]).status_code == 404
    assert api_get(server, "/api/staff/accounts/" + "x" * 200, t["mod"]).status_code == 404
    huge = api_post(server, "/api/staff/accounts/pat", t["boss"],
                 {"action": "grant", "amount": 10**30})
    assert huge.status_code == 400
    assert api_get(server, "/api/staff/log?limit=-3", t["mod"]).status_code == 400
    assert api_get(server, "/api/staff/log?limit=" + "9" * 5000, t["mod"]).status_code == 400
    assert api_get(server, "/api/staff/fairplay?profile=riichi", t["mod"]).status_code == 400
    assert server.store.account_by_username("pat").silver == 1000  # type: ignore[union-attr]


def test_a_moderators_ban_and_an_admins_grant(staffed: tuple[Server, dict[str, str]]) -> None:
    server, t = staffed

    async def banned_while_connected() -> int | None:
        cheat = Client(server, t["cheat"], "cheat")
        await cheat.connect()
        r = await asyncio.to_thread(api_post, server, "/api/staff/accounts/cheat", t["mod"],
                                    {"action": "ban", "reason": "通牌"})
        assert r.status_code == 200, r.text
        assert r.json()["account"]["ban"]["reason"] == "通牌"
        await asyncio.wait_for(cheat.closed.wait(), 4 * server_admin.POLL_SECONDS + 5)
        return cheat.close_code

    assert asyncio.run(banned_while_connected()) == server_admin.BANNED_CLOSE_CODE
    login = httpx.post(f"{server.http}/api/login", json={"username": "cheat",
                                                         "password": "secret-123"}, timeout=10)
    assert login.status_code == 401
    again = api_post(server, "/api/staff/accounts/cheat", t["mod"], {"action": "ban"})
    assert _refusal(again) == (409, "staff_refused", "refused")
    assert api_post(server, "/api/staff/accounts/cheat", t["mod"],
                 {"action": "unban"}).json()["account"]["ban"] is None

    granted = api_post(server, "/api/staff/accounts/pat", t["boss"],
                    {"action": "grant", "amount": 250, "reason": "refund of a lost match"})
    assert granted.status_code == 200, granted.text
    body = granted.json()
    assert body["balance"] == 1250 and body["account"]["silver"] == 1250
    assert body["account"]["ledger"][0]["reason"] == "operator_grant"
    below_zero = api_post(server, "/api/staff/accounts/pat", t["boss"],
                       {"action": "grant", "amount": -5000})
    assert _refusal(below_zero)[0:2] == (409, "staff_refused")
    audit = api_get(server, "/api/staff/audit", t["boss"]).json()
    assert audit["ok"] is True and audit["sources"]["operator_grant"] == 250

    log = api_get(server, "/api/staff/log?limit=20", t["mod"]).json()["log"]
    done = [(a["actor"], a["action"]) for a in reversed(log)]
    assert [d for d in done if d[0].startswith("web:")] == [
        ("web:mod", "ban"), ("web:mod", "unban"), ("web:boss", "grant"), ("web:boss", "audit")]


def test_moderators_come_and_go_at_once(staffed: tuple[Server, dict[str, str]]) -> None:
    server, t = staffed
    named = api_post(server, "/api/staff/accounts/pat", t["boss"],
                  {"action": "role", "role": "moderator"})
    assert named.status_code == 200 and named.json()["role"] == "moderator"
    assert api_get(server, "/api/staff", t["pat"]).json()["role"] == "moderator"
    assert api_get(server, "/api/staff/reports", t["pat"]).status_code == 200
    gone = api_post(server, "/api/staff/accounts/pat", t["boss"], {"action": "role", "role": "none"})
    assert gone.status_code == 200 and gone.json()["role"] is None
    assert _refusal(api_get(server, "/api/staff/reports", t["pat"]))[2] == "not_staff"
    # a new password from an admin: the old sessions end, the new password logs in
    reset = api_post(server, "/api/staff/accounts/pat", t["boss"], {"action": "reset_password"})
    password = reset.json()["password"]
    assert api_get(server, "/api/profile", t["pat"]).status_code == 401
    login = httpx.post(f"{server.http}/api/login", json={"username": "pat", "password": password},
                       timeout=10)
    assert login.status_code == 200, login.text
    # closing an account: the name becomes a tombstone, the silver goes to the house
    closed = api_post(server, "/api/staff/accounts/cheat", t["boss"],
                   {"action": "close", "reason": "asked by mail"})
    assert closed.status_code == 200 and closed.json()["account"] is None
    assert server.store.account_by_username("cheat") is None


def test_reports_clubs_and_tables(staffed: tuple[Server, dict[str, str]]) -> None:
    server, t = staffed
    filed = api_post(server, "/api/reports", t["pat"], {"reason": "name", "username": "cheat"})
    assert filed.status_code == 201, filed.text
    listed = api_get(server, "/api/staff/reports", t["mod"]).json()["reports"]
    assert [(r["reporter"], r["reported"], r["status"]) for r in listed] == [
        ("pat", "cheat", "open")]
    report_id = listed[0]["id"]
    closed = api_post(server, f"/api/staff/reports/{report_id}/close", t["mod"],
                   {"note": "warned him"})
    assert closed.json()["report"]["status"] == "closed"
    assert closed.json()["report"]["closed_by"] == "web:mod"
    assert api_get(server, "/api/staff/reports", t["mod"]).json()["reports"] == []
    assert len(api_get(server, "/api/staff/reports?all=1", t["mod"]).json()["reports"]) == 1
    twice = api_post(server, f"/api/staff/reports/{report_id}/close", t["mod"], {})
    assert _refusal(twice) == (409, "staff_refused", "refused")
    assert api_post(server, "/api/staff/reports/99999/close", t["mod"], {}).status_code == 404
    assert api_post(server, "/api/staff/reports/x1/close", t["mod"], {}).status_code == 404

    club = api_post(server, "/api/clubs", t["cheat"], {"name": "坏名字", "options": {}}).json()
    clubs = api_get(server, "/api/staff/clubs", t["mod"]).json()["clubs"]
    assert [(c["number"], c["owner"]) for c in clubs] == [(club["number"], "cheat")]
    dissolved = api_post(server, f"/api/staff/clubs/{club['number']}/dissolve", t["mod"],
                      {"reason": "offensive name"})
    assert dissolved.json()["club"]["name"] == "坏名字"
    assert api_get(server, f"/api/clubs/{club['number']}", t["cheat"]).status_code == 404
    assert api_post(server, f"/api/staff/clubs/{club['number']}/dissolve", t["mod"],
                 {}).status_code == 404
    assert api_post(server, "/api/staff/tournaments/4242/cancel", t["mod"], {}).status_code == 404
    for path in ("/api/staff/tournaments/999999999999/cancel", "/api/staff/clubs/2147483648/dissolve",
                 "/api/staff/reports/99999999999999999999/close", "/api/staff/reports/0/close"):
        # beyond the column's integer: no such thing (it was PostgreSQL's error, a 500)
        assert api_post(server, path, t["mod"], {}).status_code == 404, path
    assert api_get(server, "/api/staff/tournaments", t["mod"]).json() == {"tournaments": []}

    assert api_get(server, "/api/staff/tables", t["mod"]).json() == {"tables": [],
                                                                 "draining": False}
    assert api_post(server, "/api/staff/drain", t["boss"], {"on": True}).json() == {"draining": True}
    assert api_get(server, "/api/staff/tables", t["mod"]).json()["draining"] is True
    seen = api_get(server, "/api/staff", t["mod"]).json()["overview"]
    assert (seen["draining"], seen["clubs"], seen["reports_open"]) == (True, 0, 0)
    api_post(server, "/api/staff/drain", t["boss"], {"on": False})
    screen = api_get(server, "/api/staff/fairplay?min_wins=1&days=30", t["mod"]).json()
    assert screen["pairs_looked_at"] == 0 and screen["pairs"] == []


def test_a_notice_reaches_every_player_at_once(staffed: tuple[Server, dict[str, str]]) -> None:
    """An admin's notice (系统公告) comes to a connected player as an ``announcement`` frame
    within a poll, with the ``welcome`` of a later connection, and goes when taken down."""
    server, t = staffed
    refused = api_post(server, "/api/staff/announcement", t["mod"], {"text": "hi"})
    assert _refusal(refused) == (403, "staff_refused", "not_allowed")
    wait = 4 * server_admin.POLL_SECONDS + 5

    async def flow() -> None:
        pat = Client(server, t["pat"], "pat")
        welcome = await pat.connect()
        assert welcome["announcement"] is None and welcome["staff"] is None
        boss = Client(server, t["boss"], "boss")
        assert (await boss.connect())["staff"] == "admin"  # the menu's link to the staff pages
        await boss.close()
        shown = await asyncio.to_thread(api_post, server, "/api/staff/announcement", t["boss"],
                                        {"text": "今晚 23:00 停服维护十分钟", "hours": 3})
        assert shown.status_code == 200, shown.text
        frame = await pat.expect("announcement", timeout=wait)
        assert frame["announcement"]["text"] == "今晚 23:00 停服维护十分钟"
        assert frame["announcement"]["id"] == shown.json()["announcement"]["id"]
        assert frame["announcement"]["expires_at"] is not None
        later = Client(server, t["cheat"], "cheat")
        assert (await later.connect())["announcement"] == frame["announcement"]
        down = await asyncio.to_thread(api_post, server, "/api/staff/announcement", t["boss"],
                                       {"text": None})
        assert down.json() == {"announcement": None}
        assert (await pat.expect("announcement", timeout=wait))["announcement"] is None
        assert (await later.expect("announcement", timeout=wait))["announcement"] is None
        await pat.close()
        await later.close()

    asyncio.run(flow())
    listed = api_get(server, "/api/staff/announcement", t["boss"]).json()
    assert listed["announcement"] is None
    assert [a["text"] for a in listed["recent"]] == ["今晚 23:00 停服维护十分钟"]
    bad = api_post(server, "/api/staff/announcement", t["boss"], {"text": "x", "hours": 0})
    assert bad.status_code == 400
    empty = api_post(server, "/api/staff/announcement", t["boss"], {"text": "  "})
    assert _refusal(empty) == (409, "staff_refused", "refused")
    assert api_post(server, "/api/staff/announcement", t["boss"], {"text": None}).status_code == 409


def test_a_notice_with_an_end_goes_by_itself(staffed: tuple[Server, dict[str, str]]) -> None:
    """A notice given for a time (``hours``) is taken from every connected player by the
    server once it has expired, with no admin acting, and a later welcome has none."""
    server, t = staffed
    wait = 4 * server_admin.POLL_SECONDS + 5

    async def flow() -> None:
        pat = Client(server, t["pat"], "pat")
        await pat.connect()
        shown = await asyncio.to_thread(api_post, server, "/api/staff/announcement", t["boss"],
                                        {"text": "片刻即止", "hours": 0.001})  # 3.6 s
        assert shown.status_code == 200, shown.text
        frame = await pat.expect("announcement", timeout=wait)
        ends = datetime.fromisoformat(frame["announcement"]["expires_at"])
        assert (await pat.expect("announcement", timeout=wait + 4))["announcement"] is None
        assert datetime.now(UTC) >= ends  # not before its time
        later = Client(server, t["cheat"], "cheat")
        assert (await later.connect())["announcement"] is None
        await pat.close()
        await later.close()

    asyncio.run(flow())
    listed = api_get(server, "/api/staff/announcement", t["boss"]).json()
    assert listed["announcement"] is None
    assert [a["text"] for a in listed["recent"]][:1] == ["片刻即止"]


def test_a_moderator_replays_the_hand_a_report_names(start_server: Any) -> None:
    """Four players finish a match; one reports another.  A moderator (who did not sit
    there) lists the match's hands and its players and gets a hand's replay frames, the
    same as its players get; the reading is logged; a player gets neither."""
    server = start_server()
    tokens = {n: register(server, n) for n in ("rp0", "rp1", "rp2", "rp3", "mod", "nosy")}
    Admin(server.store, "root").set_role("mod", "moderator")

    async def scenario() -> dict[str, Any]:
        clients = await seat_four(server, [tokens[f"rp{k}"] for k in range(4)], hands=1)
        ends = await asyncio.gather(*(play(c, seed=i) for i, c in enumerate(clients)))
        for c in clients:
            await c.close()
        return ends[0]

    match_id = asyncio.run(scenario())["match_id"]
    seen = api_get(server, "/api/staff", tokens["mod"]).json()["overview"]
    assert (seen["players"], seen["matches_since"], seen["matches_running"]) == (6, 1, 0)
    listed = api_get(server, f"/api/staff/matches/{match_id}", tokens["mod"])
    assert listed.status_code == 200, listed.text
    assert listed.json()["hands"] == [0]
    assert sorted(listed.json()["players"]) == ["rp0", "rp1", "rp2", "rp3"]
    staff_frames = api_get(server, f"/api/staff/matches/{match_id}/hands/0/frames", tokens["mod"])
    own_frames = api_get(server, f"/api/matches/{match_id}/hands/0/frames", tokens["rp0"])
    assert staff_frames.status_code == own_frames.status_code == 200
    assert staff_frames.json() == own_frames.json() and staff_frames.json()["frames"]
    # a player who did not sit there sees nothing, by either door
    assert api_get(server, f"/api/matches/{match_id}/hands/0/frames", tokens["nosy"]).status_code \
        == 404
    assert _refusal(api_get(server, f"/api/staff/matches/{match_id}", tokens["nosy"]))[2] \
        == "not_staff"
    assert _refusal(api_get(server, f"/api/staff/matches/{match_id}/hands/0/frames",
                         tokens["nosy"]))[2] == "not_staff"
    for path in (f"/api/staff/matches/{match_id}/hands/7/frames", "/api/staff/matches/nope",
                 "/api/staff/matches/" + "x" * 300):
        assert api_get(server, path, tokens["mod"]).status_code == 404, path
    log = api_get(server, "/api/staff/log", tokens["mod"]).json()["log"]
    assert [(a["actor"], a["action"], a["detail"]["match_id"]) for a in log
            if a["action"] == "read_match"] == [("web:mod", "read_match", match_id)]


def test_a_reason_with_a_nul_is_refused_not_an_error(staffed: tuple[Server, dict[str, str]]) -> None:
    """PostgreSQL refuses a NUL in any text: a reason, a grant's reference or a report's
    note with one (or another control character) is refused in words; it was a 500."""
    server, t = staffed
    lone = httpx.post(f"{server.http}/api/staff/accounts/pat", headers=bearer(t["boss"]),
                      content=b'{"action": "ban", "reason": "\\ud800"}', timeout=10)
    assert lone.status_code == 400 and lone.json()["error"]["code"] == "invalid_request"
    for body in ({"action": "ban", "reason": "a\x00b"},
                 {"action": "grant", "amount": 5, "reason": "x\x00"},
                 {"action": "close", "reason": "bye\x07"}):
        r = api_post(server, "/api/staff/accounts/pat", t["boss"], body)
        assert _refusal(r) == (409, "staff_refused", "refused"), (body, r.text)
    shown = api_get(server, "/api/staff/accounts/pat", t["boss"]).json()["account"]
    assert shown["ban"] is None and shown["silver"] == 1000
    assert api_post(server, "/api/reports", t["pat"],
                    {"reason": "name", "username": "cheat"}).status_code == 201
    (report,) = api_get(server, "/api/staff/reports", t["mod"]).json()["reports"]
    r = api_post(server, f"/api/staff/reports/{report['id']}/close", t["mod"], {"note": "a\x00"})
    assert _refusal(r) == (409, "staff_refused", "refused")
    # a reason of spaces is none; one of many lines is one line
    r = api_post(server, "/api/staff/accounts/pat", t["boss"],
                 {"action": "ban", "reason": " 通牌\n 证据见对局 "})
    assert r.json()["account"]["ban"]["reason"] == "通牌 证据见对局"


def test_a_welcome_without_the_staff_role_when_the_database_blinks(
        staffed: tuple[Server, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The database going away between a connection's login and its welcome costs the
    welcome its staff role, not the connection (it closed with a traceback)."""
    import sqlite3

    from sqlalchemy.exc import OperationalError

    from wuhan_mahjong.server import hub as hub_module

    server, t = staffed

    def away(*_: object) -> None:
        raise OperationalError("SELECT", {}, sqlite3.OperationalError("database is locked"))

    monkeypatch.setattr(hub_module, "role_of", away)

    async def flow() -> dict[str, Any]:
        boss = Client(server, t["boss"], "boss")
        welcome = await boss.connect()
        await boss.send({"type": "ping", "ref": "p"})
        await boss.expect("pong")
        await boss.close()
        return welcome

    assert asyncio.run(flow())["staff"] is None



def test_a_welcome_carries_no_notice_that_has_expired() -> None:
    """Between a notice's end and the next poll of the admin table (which takes it from
    everyone), a new connection's welcome must not show it: ``Hub.announcement_now``."""
    import types
    from datetime import timedelta

    from wuhan_mahjong.server.hub import Hub
    from wuhan_mahjong.server.protocol import AnnouncementOut

    now = datetime.now(UTC)

    def shown(expires_at: datetime | None) -> AnnouncementOut | None:
        notice = AnnouncementOut(id=1, text="停服维护", expires_at=expires_at)
        return Hub.announcement_now(types.SimpleNamespace(announcement=notice))  # type: ignore[arg-type]

    assert shown(None) is not None  # no end
    assert shown(now + timedelta(minutes=5)) is not None
    assert shown(now - timedelta(seconds=1)) is None
    assert Hub.announcement_now(types.SimpleNamespace(announcement=None)) is None  # type: ignore[arg-type]
