"""Players report players (举报, ``store/reports.py``): a table's reasons name a match both
sat in as players (never a bot's seat), a name report names a registered player; the same
open report is filed once; ten a day; operators list and close them (logged), and the
collusion screen shows them.  On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from wuhan_mahjong.cli import main
from wuhan_mahjong.store import Store
from wuhan_mahjong.store.admin import Admin
from wuhan_mahjong.store.models import utcnow
from wuhan_mahjong.store.reports import (
    REPORTS_PER_DAY,
    ReportError,
    close_report,
    file_report,
    open_reports,
    reports_about,
    reports_by,
)

PW = "correct horse battery"


def _match(store: Store, match_id: str, players: list[int], bots: tuple[int, ...] = ()) -> None:
    seats = [{"account_id": a, "name": f"p{a}", "is_bot": k in bots}
             for k, a in enumerate(players)]
    store.open_match(match_id, "t-" + match_id, "00", {"profile": "yuanhang", "seats": seats})


def test_reports_of_a_table_and_of_a_name(store: Store) -> None:
    ann, ben, cal, dot = (store.register(n, PW).id for n in ("ann", "ben", "cal", "dot"))
    bot = store.create_bot().id
    _match(store, "m1", [ann, ben, cal, bot], bots=(3,))
    _match(store, "m2", [ben, cal, dot, bot], bots=(3,))

    first, new = file_report(store, ann, "collusion", match_id="m1", seat=1)
    assert new
    assert file_report(store, ann, "collusion", match_id="m1", seat=1) == (first, False)
    other, new = file_report(store, ann, "collusion", match_id="m1", seat=2)
    assert new and other != first
    assert file_report(store, ann, "stalling", match_id="m1", seat=1)[1]  # another reason
    name_report, new = file_report(store, cal, "name", username="BEN")  # as a login finds it
    assert new
    refusals = [
        (dict(reason="collusion", match_id="m2", seat=0), "not_found"),  # ann not in m2
        (dict(reason="collusion", match_id="m1", seat=3), "not_found"),  # a bot's seat
        (dict(reason="collusion", match_id="nope", seat=0), "not_found"),
        (dict(reason="collusion", match_id="m\x001", seat=1), "not_found"),  # PostgreSQL: no NUL
        (dict(reason="name", username="be\x00n"), "not_found"),
        (dict(reason="collusion", match_id="m1"), "invalid"),  # no seat
        (dict(reason="collusion", match_id="m1", seat=0), "self"),
        (dict(reason="name", username="ann"), "self"),
        (dict(reason="name"), "invalid"),
        (dict(reason="name", username="nobody"), "not_found"),
        (dict(reason="slow", match_id="m1", seat=1), "invalid"),
    ]
    for kwargs, code in refusals:
        reason = str(kwargs.pop("reason"))
        with pytest.raises(ReportError) as caught:
            file_report(store, ann, reason, **kwargs)  # type: ignore[arg-type]
        assert caught.value.code == code, (kwargs, caught.value)
    guest = store.create_guest().account
    with pytest.raises(ReportError) as caught:  # a guest has no public page: no name report
        file_report(store, ann, "name", username=guest.username)
    assert caught.value.code == "not_found"

    listed = open_reports(store)
    assert [r.id for r in listed] == sorted((first, other, name_report, listed[1].id),
                                            reverse=True)
    by_id = {r.id: r for r in listed}
    assert (by_id[first].reporter, by_id[first].reported, by_id[first].reason,
            by_id[first].match_id, by_id[first].seat) == ("ann", "ben", "collusion", "m1", 1)
    assert (by_id[name_report].match_id, by_id[name_report].seat) == (None, None)
    assert reports_about(store, [ben, cal, dot]) == {ben: 3, cal: 1}
    assert reports_about(store, [ben, cal, dot], "collusion") == {ben: 1, cal: 1}

    closed = close_report(store, first, "op-lee", "  warned   both ")
    assert (closed.status, closed.note, closed.closed_by) == ("closed", "warned both", "op-lee")
    assert first not in [r.id for r in open_reports(store)]
    assert first in [r.id for r in open_reports(store, everything=True)]
    with pytest.raises(ReportError) as caught:
        close_report(store, first, "op-lee")
    assert caught.value.code == "closed"
    with pytest.raises(ReportError) as caught:
        close_report(store, 10_000, "op-lee")
    assert caught.value.code == "not_found"
    (logged,) = [a for a in Admin(store, "t").actions() if a.action == "close_report"]
    assert logged.actor == "op-lee" and logged.account_id == ben
    assert logged.detail == {"report": first, "reason": "collusion", "note": "warned both"}
    # the reporter reads his own reports' state, newest first; nobody else's
    mine = reports_by(store, ann)
    assert [r.id for r in mine] == sorted((r.id for r in mine), reverse=True)
    assert {r.id: r.status for r in mine}[first] == "closed"
    assert first not in [r.id for r in reports_by(store, cal)]
    assert [r.id for r in reports_by(store, cal)] == [name_report]
    # once closed, the same report may be filed again: it is new
    assert file_report(store, ann, "collusion", match_id="m1", seat=1)[1]


def test_ten_reports_a_day(store: Store) -> None:
    ids = [store.register(f"r{k}", PW).id for k in range(REPORTS_PER_DAY + 3)]
    reporter = ids[0]
    yesterday = utcnow() - timedelta(days=1, minutes=1)
    file_report(store, reporter, "name", username="r1", now=yesterday)  # a day ago: not counted
    for k in range(REPORTS_PER_DAY):
        file_report(store, reporter, "name", username=f"r{k + 2}")
    with pytest.raises(ReportError) as caught:
        file_report(store, reporter, "name", username=f"r{REPORTS_PER_DAY + 2}")
    assert caught.value.code == "too_many"
    assert file_report(store, reporter, "name", username="r1")[1] is False  # yesterday's, open
    assert file_report(store, reporter, "name", username="r2")[1] is False  # open: no new one
    assert file_report(store, ids[1], "name", username="r0")[1]  # another reporter


def test_the_operators_commands(store: Store, db_url: str,
                                capsys: pytest.CaptureFixture[str]) -> None:
    amy, bo = (store.register(n, PW).id for n in ("amy", "bo"))
    store.register("cy", PW)
    _match(store, "mx", [amy, bo, store.account_by_username("cy").id,  # type: ignore[union-attr]
                         store.create_bot().id], bots=(3,))
    rid, _ = file_report(store, amy, "cheating", match_id="mx", seat=1)
    file_report(store, amy, "name", username="cy")

    def admin(*argv: str) -> tuple[int, str, str]:
        code = main(["admin", "--db", db_url, "--as", "op-zed", *argv])
        out, err = capsys.readouterr()
        return code, out, err

    code, out, _ = admin("reports")
    assert code == 0 and out.startswith("2 open reports:")
    assert f"#{rid} " in out and "amy reported bo for cheating in mx seat 1" in out
    assert "reported most:" in out
    code, out, _ = admin("reports", "--player", "bo", "--json")
    (only,) = json.loads(out)
    assert (only["id"], only["reported"], only["status"]) == (rid, "bo", "open")
    code, out, _ = admin("report-close", str(rid), "--note", "second account, banned")
    assert code == 0 and "closed by op-zed: second account, banned" in out
    code, out, _ = admin("reports")
    assert out.startswith("1 open reports:") and f"#{rid} " not in out
    code, out, _ = admin("reports", "--all")
    assert f"#{rid} " in out
    for argv, says in ((("report-close", str(rid)), "closed already"),
                       (("report-close", "999"), "no report 999"),
                       (("reports", "--player", "nobody"), "no account named 'nobody'")):
        code, _, err = admin(*argv)
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1
