"""The staff pages' API (``server/staff_api.py``) against its own rule, on SQLite and
PostgreSQL: a staff member acts only on players below his rank and never on himself
(``store/staff.py``), whatever route he takes; and a closed account stays closed whoever
asks."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from urllib.parse import quote

import httpx
import pytest

from wuhan_mahjong.server import admin as server_admin
from wuhan_mahjong.store.admin import Admin
from wuhan_mahjong.store.closing import closed_name
from wuhan_mahjong.store.reports import open_reports

from .harness import Client, Server, api_get, api_post, register


def _refusal(r: httpx.Response) -> tuple[int, str, str | None]:
    error = r.json()["error"]
    return r.status_code, error["code"], error.get("params", {}).get("reason")


@pytest.fixture
def staffed(server: Server) -> tuple[Server, dict[str, str]]:
    """A server with an admin ``boss``, moderators ``mod`` and ``mod2`` and a player ``pat``."""
    tokens = {n: register(server, n) for n in ("boss", "mod", "mod2", "pat")}
    operator = Admin(server.store, "root")
    operator.set_role("boss", "admin")
    operator.set_role("mod", "moderator")
    operator.set_role("mod2", "moderator")
    return server, tokens


def _report(server: Server, token: str, username: str) -> int:
    filed = api_post(server, "/api/reports", token, {"reason": "name", "username": username})
    assert filed.status_code == 201, filed.text
    report_id: int = filed.json()["id"]
    return report_id


def test_a_report_is_closed_only_by_staff_above_the_reported(
        staffed: tuple[Server, dict[str, str]]) -> None:
    """Closing a report is acting on the player it names: a moderator closed a report about
    himself ("nothing found") or about an admin, where every other action on them is refused
    (``self``, ``rank``)."""
    server, t = staffed
    about_mod = _report(server, t["pat"], "mod")
    about_boss = _report(server, t["pat"], "boss")
    about_mod2 = _report(server, t["pat"], "mod2")

    def close(report_id: int, who: str) -> httpx.Response:
        return api_post(server, f"/api/staff/reports/{report_id}/close", t[who],
                        {"note": "nothing found"})

    assert _refusal(close(about_mod, "mod")) == (403, "staff_refused", "self")
    assert _refusal(close(about_boss, "mod")) == (403, "staff_refused", "rank")
    assert _refusal(close(about_mod2, "mod")) == (403, "staff_refused", "rank")
    assert _refusal(close(about_boss, "boss")) == (403, "staff_refused", "self")
    still = {r.id for r in open_reports(server.store)}
    assert still == {about_mod, about_boss, about_mod2}  # nothing closed by a refusal
    # the one above closes it; the command line (the root of trust) closes any
    assert close(about_mod, "boss").json()["report"]["closed_by"] == "web:boss"
    assert close(about_mod2, "boss").status_code == 200
    assert close(4242, "mod").status_code == 404
    about_pat = _report(server, t["mod"], "pat")
    assert close(about_pat, "mod2").json()["report"]["status"] == "closed"


def test_a_closed_account_gets_no_password_or_silver_from_the_staff_pages(
        staffed: tuple[Server, dict[str, str]]) -> None:
    """An admin reset the password of a closed account (its tombstone name ``已注销#<id>``)
    and got one back to log in with: the account the player closed for good was open again."""
    server, t = staffed
    pat = server.store.account_by_username("pat")
    assert pat is not None
    Admin(server.store, "root").close("pat")
    path = f"/api/staff/accounts/{quote(closed_name(pat.id))}"
    assert api_get(server, path, t["boss"]).status_code == 200  # found, to read
    reset = api_post(server, path, t["boss"],
                     {"action": "reset_password"})
    assert _refusal(reset) == (409, "staff_refused", "refused")
    assert "password" not in reset.json()
    grant = api_post(server, path, t["boss"],
                     {"action": "grant", "amount": 50})
    assert _refusal(grant) == (409, "staff_refused", "refused")
    assert server.store.account(pat.id).silver == 0
    assert server.store.audit().ok


def test_a_password_reset_closes_the_players_connections(
        staffed: tuple[Server, dict[str, str]]) -> None:
    """An operator resets a password when an account is in the wrong hands: every session
    ended, but the connection open with one stayed open (the server closed it after a ban,
    a closing or the player's own change of password, not after a reset), so whoever held
    it played on.  Now it closes within a poll, from the command line and the staff pages."""
    server, t = staffed

    async def reset_while_connected(who: str, reset: Callable[[], object]) -> int | None:
        client = Client(server, t[who], who)
        await client.connect()
        await asyncio.to_thread(reset)
        await asyncio.wait_for(client.closed.wait(), 4 * server_admin.POLL_SECONDS + 5)
        return client.close_code

    assert asyncio.run(reset_while_connected(
        "pat", lambda: Admin(server.store, "root").reset_password("pat"))) == 4401
    by_web = asyncio.run(reset_while_connected("mod2", lambda: api_post(
        server, "/api/staff/accounts/mod2", t["boss"], {"action": "reset_password"})))
    assert by_web == 4401


@pytest.mark.parametrize("amount", [True, "500", 500.0, "5e2"])
def test_a_grant_is_a_whole_number_not_something_like_one(
        staffed: tuple[Server, dict[str, str]], amount: object) -> None:
    """Silver is created only by the number an admin typed: ``"amount": true`` granted 1
    silver, and ``"500"`` or ``500.0`` were taken for 500 (JSON that is not a whole
    number, from a client with a bug).  Now 400, and nothing is granted."""
    server, t = staffed
    r = api_post(server, "/api/staff/accounts/pat", t["boss"], {"action": "grant", "amount": amount})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["params"]["field"] == "amount"
    assert server.store.account_by_username("pat").silver == 1000  # type: ignore[union-attr]


def test_a_staff_member_reads_no_report_about_himself(
        staffed: tuple[Server, dict[str, str]]) -> None:
    """"The reported player is never told who reported him" (``store/reports.py``): a
    moderator reported by a player read the report, the reporter's name with it, on the
    staff pages.  The list now holds the reports its reader may close: about players below
    his rank (the command line's ``admin reports`` lists every one)."""
    server, t = staffed
    about_mod = _report(server, t["pat"], "mod")
    about_boss = _report(server, t["pat"], "boss")
    about_pat = _report(server, t["mod2"], "pat")

    def listed(who: str) -> set[int]:
        r = api_get(server, "/api/staff/reports?all=1", t[who])
        assert r.status_code == 200, r.text
        return {rep["id"] for rep in r.json()["reports"]}

    assert listed("mod") == {about_pat}
    assert listed("mod2") == {about_pat}
    assert listed("boss") == {about_pat, about_mod}
    assert about_boss not in listed("boss")
