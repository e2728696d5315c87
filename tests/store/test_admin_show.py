"""``wuhan-mahjong admin show USER``: an account at a glance for support, read from the
store (silver, level, ban, sessions, newest silver changes and matches, its running table,
reports about it), in words and as JSON; an unknown name is a one-line error.  On SQLite
and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from wuhan_mahjong.cli import main
from wuhan_mahjong.store import Store
from wuhan_mahjong.store.admin import Admin
from wuhan_mahjong.store.reports import file_report

PW = "correct horse battery"


def test_an_account_at_a_glance(store: Store, db_url: str, rated_match: Callable[..., None],
                                capsys: pytest.CaptureFixture[str]) -> None:
    ids = [store.register(n, PW).id for n in ("sue", "tom", "uma", "vic")]
    store.login("sue", PW)
    store.login("sue", PW)
    Admin(store, "op").grant("sue", 40, "a gift")
    rated_match(store, "done-1", ids, [30, 10, -10, -30])
    seats = [{"account_id": a, "name": n, "is_bot": False}
             for a, n in zip(ids, ("sue", "tom", "uma", "vic"), strict=True)]
    store.open_match("running-1", "t-run", "00", {"profile": "bianfeng", "hands": 4,
                                                  "seats": seats})
    file_report(store, ids[1], "collusion", match_id="running-1", seat=0)
    file_report(store, ids[2], "name", username="sue")
    Admin(store, "op").ban("sue", "two accounts")

    found = Admin(store, "op").show("SUE")
    assert (found.account.username, found.is_bot, found.live_sessions) == ("sue", False, 2)
    assert found.ban is not None and found.ban[0] == "two accounts"
    assert found.last_login is not None
    assert [e.reason for e in found.ledger] == [e.reason for e in store.ledger(ids[0], limit=10)]
    assert found.ledger[0].reference == "a gift"
    assert [m.match_id for m in found.matches] == ["done-1"]
    assert found.table is not None and found.table.match_id == "running-1"
    assert (found.reports_open, found.reports_total) == (2, 2)

    code = main(["admin", "--db", db_url, "show", "sue"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith(f"sue (account {ids[0]}, registered, since ")
    for line in ("BANNED since", ": two accounts", "2 live session(s)",
                 "playing now: running-1 (bianfeng, hand 1 of 4)",
                 "reports about him: 2 open, 2 in all", "+40 ->", "operator_grant (a gift)",
                 "done-1 yuanhang: +30 points"):
        assert line in out, (line, out)
    code = main(["admin", "--db", db_url, "show", "tom", "--json"])
    shown = json.loads(capsys.readouterr().out)
    assert code == 0 and shown["username"] == "tom" and shown["table"] == "running-1"
    assert shown["ban"] is None and shown["reports_total"] == 0
    assert [m["points"] for m in shown["matches"]] == [10]
    bot = store.create_bot()
    code = main(["admin", "--db", db_url, "show", bot.username])
    assert code == 0 and ", bot, since" in capsys.readouterr().out
    assert main(["admin", "--db", db_url, "show", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "no account named 'nobody'" in err and len(err.strip().splitlines()) == 1
