"""A player's data to take away (数据导出, ``store/export.py``): the document holds all that
the store keeps about his account and nothing of anyone else's, the records file is every
hand he sat at and verifies, a closed account exports nothing, and the operator's command
writes both files and logs the reading.  On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.cli import main
from wuhan_mahjong.engine.records import record_outcome
from wuhan_mahjong.store import Store, UnknownAccount
from wuhan_mahjong.store.admin import Admin
from wuhan_mahjong.store.export import EXPORT_FORMAT, account_export, account_records
from wuhan_mahjong.store.ratings import MIN_MATCHES
from wuhan_mahjong.store.reports import file_report
from wuhan_mahjong.store.social import follow
from wuhan_mahjong.store.tournaments import create, join

PW = "correct horse battery"


def _all_records(store: Store, account_id: int, batch: int) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    after = 0
    while chunk := account_records(store, account_id, after=after, limit=batch):
        out += chunk
        after = chunk[-1][0]
    return out


def test_the_document_holds_his_data_and_no_one_elses(
        store: Store, played_match: Callable[..., list[Any]],
        rated_match: Callable[..., None]) -> None:
    alice, bob, cat, dan, eve = (store.register(n, PW) for n in ("alice", "bob", "cat", "dan",
                                                                 "eve"))
    login = store.login("alice", PW)
    store.login("bob", PW)
    admin = Admin(store, "op-anna")
    admin.grant("alice", 75, "a prize")
    admin.grant("bob", 11, "not hers")
    admin.ban("alice", "rude name")
    admin.unban("alice")
    follow(store, alice.id, "bob")
    follow(store, bob.id, "alice")
    follow(store, cat.id, "alice")
    follow(store, bob.id, "cat")  # between others: not hers
    mine = played_match(store, "pm-hers", [alice.id, bob.id, cat.id, dan.id], "bianfeng", 5)
    played_match(store, "pm-not-hers", [bob.id, cat.id, dan.id, eve.id], "yuanhang", 6)
    for k in range(MIN_MATCHES):
        rated_match(store, f"rm{k}", [dan.id, alice.id, bob.id, cat.id], [30, 10, -10, -30])
    created = create(store, alice.id, "周末赛", "yuanhang", hands=1, rounds=1, capacity=8)
    other = create(store, bob.id, "bob's", "yuanhang", hands=1, rounds=1, capacity=8)
    join(store, other, alice.id)
    create(store, cat.id, "cat's", "yuanhang", hands=1, rounds=1, capacity=8)  # not hers

    file_report(store, alice.id, "name", username="cat")
    file_report(store, dan.id, "name", username="alice")  # about her: not hers to read
    doc = account_export(store, alice.id)
    text = json.dumps(doc, ensure_ascii=False)  # JSON-ready as it is
    assert doc["format"] == EXPORT_FORMAT and doc["version"] == 1
    account = doc["account"]
    now = store.account(alice.id)
    assert (account["id"], account["username"], account["guest"]) == (alice.id, "alice", False)
    assert (account["silver"], account["points"]) == (now.silver, now.points)
    assert account["level"]["number"] == now.level.number and account["banned"] is None
    # sessions: when, never the token or its hash; no password hash anywhere
    assert len(doc["sessions"]) == 1
    assert login.token not in text and "argon2" not in text and "token" not in text
    # the ledger: all of his rows, oldest first, adding up to his balance
    ledger = store.ledger(alice.id, limit=None)
    assert [e["id"] for e in doc["ledger"]] == [e.id for e in reversed(ledger)]
    assert sum(e["delta"] for e in doc["ledger"]) == now.silver
    assert "not hers" not in text and "a prize" in text
    # matches and ratings
    assert [m["game_id"] for m in doc["settlements"]] == [f"rm{k}/0" for k in range(MIN_MATCHES)]
    assert [m["points"] for m in doc["settlements"]] == [10] * MIN_MATCHES
    assert [(r["profile"], r["matches"]) for r in doc["ratings"]] == [("yuanhang", MIN_MATCHES)]
    assert [r["match_id"] for r in doc["rating_history"]] == [f"rm{k}" for k in range(MIN_MATCHES)]
    assert {r["place"] for r in doc["rating_history"]} == {2}
    # the hands he sat at, with how he fared, and none of the others'
    played = [h for h in doc["hands"] if h["match_id"] == "pm-hers"]
    assert [h["hand_no"] for h in played] == [r.hand_no for r in mine]
    assert "pm-not-hers" not in text
    for hand, rec in zip(played, mine, strict=True):
        outcome = record_outcome([json.loads(line) for line in rec.events.splitlines()])
        assert outcome is not None and hand["seat"] == 0 and hand["published"] is False
        assert hand["points"] == outcome.seats[0].points and hand["profile"] == "bianfeng"
        assert hand["won"] == outcome.seats[0].won
    # follows: whom he follows, how many follow him
    assert [f["username"] for f in doc["following"]] == ["bob"] and doc["followers"] == 2
    # tournaments he made or entered
    assert [(t["id"], t["created_by_you"], t["withdrawn"]) for t in doc["tournaments"]] == [
        (created, True, False), (other, False, False)]
    # what operators did to him, without their names
    assert [a["action"] for a in doc["operator_actions"]] == ["grant", "ban", "unban"]
    assert "op-anna" not in text
    # the reports he filed; not those about him (they would name who filed them)
    assert [(r["reported"], r["reason"], r["status"]) for r in doc["reports_filed"]] == [
        ("cat", "name", "open")]
    assert account_export(store, cat.id)["reports_filed"] == []


def test_a_ban_in_force_is_in_it(store: Store) -> None:
    gus = store.register("gus", PW)
    Admin(store, "op").ban("gus", "spam")
    banned = account_export(store, gus.id)["account"]["banned"]
    assert banned is not None and banned["reason"] == "spam"


def test_the_records_are_every_hand_he_sat_at_and_verify(
        store: Store, played_match: Callable[..., list[Any]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    ids = [store.register(n, PW).id for n in ("ann", "ben", "cal", "deb", "eli")]
    saved = played_match(store, "m1", ids[:4], "yuanhang", 3)
    played_match(store, "m2", ids[1:], "yuanhang", 4)  # ann is not there
    saved += played_match(store, "m3", [ids[2], ids[0], ids[3], ids[4]], "laizishanzhuang", 5)
    for batch in (1, 2, 200):  # batch boundaries do not lose or repeat a hand
        got = _all_records(store, ids[0], batch)
        assert [events.rstrip("\n") for _, events in got] == [r.events for r in saved]
    path = tmp_path / "hands.jsonl"
    path.write_text("".join(e for _, e in _all_records(store, ids[0], 2)), encoding="utf-8")
    assert main(["verify", str(path)]) == 0, capsys.readouterr()
    assert capsys.readouterr().out.count("replay identical") == len(saved) == 4


def test_a_closed_account_or_the_house_exports_nothing(store: Store) -> None:
    fay = store.register("fay", PW)
    store.close_account(fay.id, PW)
    for account_id in (fay.id, store.house_account_id, 10_000):
        with pytest.raises(UnknownAccount):
            account_export(store, account_id)
        with pytest.raises(UnknownAccount):
            account_records(store, account_id)


def test_a_guest_exports_too(store: Store) -> None:
    guest = store.create_guest()
    doc = account_export(store, guest.account.id)
    assert doc["account"]["guest"] is True and doc["hands"] == [] and len(doc["sessions"]) == 1
    assert [e["reason"] for e in doc["ledger"]] == [e.reason for e in reversed(
        store.ledger(guest.account.id, limit=None))]


def test_the_operator_exports_an_account(store: Store, db_url: str, tmp_path: Path,
                                         played_match: Callable[..., list[Any]],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    ids = [store.register(n, PW).id for n in ("hal", "ivy", "jon", "kim")]
    saved = played_match(store, "op-m", ids, "yuanhang", 8)
    out, records = tmp_path / "hal.json", tmp_path / "hal.jsonl"
    code = main(["admin", "--db", db_url, "--as", "tester", "export", "hal", "--out", str(out),
                 "--records", str(records), "--reason", "asked by mail"])
    said, err = capsys.readouterr()
    assert code == 0, err
    assert f"exported hal (account {ids[0]}): the data to {out}, {len(saved)} hands" in said
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["account"]["username"] == "hal" and len(doc["hands"]) == len(saved)
    assert records.read_text(encoding="utf-8") == "".join(r.events + "\n" for r in saved)
    (logged,) = [a for a in Admin(store, "t").actions() if a.action == "export"]
    assert logged.actor == "tester" and logged.account_id == ids[0]
    assert logged.detail == {"reason": "asked by mail", "hands": len(saved)}
    # to standard output; then the refusals, each one line and exit 2
    assert main(["admin", "--db", db_url, "export", "ivy"]) == 0
    assert json.loads(capsys.readouterr().out)["account"]["username"] == "ivy"
    for argv, says in ((["export", "hal", "--out", str(out)], "exists already"),
                       (["export", "nobody"], "no account named 'nobody'"),
                       (["export", "hal", "--records", str(tmp_path / "no" / "x.jsonl")],
                        "no folder")):
        assert main(["admin", "--db", db_url, *argv]) == 2
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
