"""``wuhan-mahjong admin``: every command on SQLite and on PostgreSQL (real databases), the
backup/restore round trip, and errors as one line with exit status 2."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from wuhan_mahjong.cli import main
from wuhan_mahjong.store import AccountBanned, Store, open_store
from wuhan_mahjong.store.admin import Admin
from wuhan_mahjong.store.admin import backup as admin_backup
from wuhan_mahjong.store.serve_lock import hold_serve_lock

FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)

PW = "correct horse battery"


def run(capsys: pytest.CaptureFixture[str], url: str, *words: str,
        stdin: str | None = None, monkeypatch: pytest.MonkeyPatch | None = None
        ) -> tuple[int, str, str]:
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(["admin", "--db", url, "--as", "tester", *words])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err
    assert lines and lines[-1].startswith("wuhan-mahjong: error: ")
    return lines[-1]


def test_every_admin_command(store: Store, db_url: str, capsys: pytest.CaptureFixture[str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    alice = store.register("alice", PW)
    others = [store.register(f"p{k}", PW).id for k in range(3)]

    code, out, _ = run(capsys, db_url, "grant", "alice", "300", "--reason", "prize")
    assert code == 0 and "balance 1300" in out
    assert store.account(alice.id).silver == 1300
    assert store.ledger(alice.id)[0].reason == "operator_grant"

    code, out, _ = run(capsys, db_url, "ban", "alice", "--reason", "abuse")
    assert code == 0 and "banned alice" in out
    with pytest.raises(AccountBanned):
        store.login("alice", PW)
    code, out, _ = run(capsys, db_url, "unban", "alice")
    assert code == 0
    assert store.login("alice", PW)

    code, out, _ = run(capsys, db_url, "reset-password", "alice", "--password-stdin",
                       stdin="a brand new secret\n", monkeypatch=monkeypatch)
    assert code == 0, out
    assert store.login("alice", "a brand new secret")
    code, out, _ = run(capsys, db_url, "reset-password", "alice")
    assert code == 0
    generated = out.split("new password of alice: ")[1].split()[0]
    assert store.login("alice", generated)

    seats = [{"account_id": a, "name": n, "is_bot": False}
             for a, n in zip([alice.id, *others], ["alice", "p0", "p1", "p2"], strict=True)]
    epoch = store.open_match("m-1", "tab-1", "00", {"profile": "yuanhang", "hands": 2,
                                                    "stake": 0, "seats": seats}, owner="node:7")
    code, out, _ = run(capsys, db_url, "tables", "--json")
    assert code == 0
    (table,) = json.loads(out)
    assert table["match_id"] == "m-1" and table["players"] == ["alice", "p0", "p1", "p2"]
    assert table["server"] == "node:7"
    code, out, _ = run(capsys, db_url, "tables")
    assert code == 0 and "1 running match; servers: open; no server is running" in out
    assert "m-1 table tab-1 yuanhang 0/2 hands done, stake 0 [alice, p0, p1, p2] on node:7" in out

    code, out, _ = run(capsys, db_url, "drain")
    assert code == 0 and Admin(store, "x").draining()
    # no server runs: the match waits, stored, for the next one; nothing to wait for
    code, out, _ = run(capsys, db_url, "drain", "--wait", "--timeout", "5")
    assert code == 0 and "no server is running: 1 match waits in the database" in out
    serving = hold_serve_lock(store.engine, node=True)  # a cluster node runs the match now
    try:
        code, out, _ = run(capsys, db_url, "tables")
        assert code == 0 and "1 running match; servers: draining (no new matches)\n" in out
        code, _, err = run(capsys, db_url, "drain", "--wait", "--timeout", "0")
        assert code == 2 and "1 match still running" in one_line_error(err)
        store.end_match("m-1", epoch, "aborted", "test")
        code, out, _ = run(capsys, db_url, "drain", "--wait", "--timeout", "5")
        assert code == 0 and "no match is running" in out
    finally:
        serving.release()
    code, out, _ = run(capsys, db_url, "drain", "--off")
    assert code == 0 and not Admin(store, "x").draining()

    code, out, _ = run(capsys, db_url, "audit", "--json", "--log", "20")
    assert code == 0
    report = json.loads(out)
    assert report["ok"] is True and report["sources"]["operator_grant"] == 300
    actions = [entry["action"] for entry in report["log"]]
    assert actions[:1] == ["audit"]
    assert {"grant", "ban", "unban", "reset_password", "drain", "undrain"} <= set(actions)
    assert {entry["actor"] for entry in report["log"]} == {"tester"}
    code, out, _ = run(capsys, db_url, "audit")
    assert code == 0 and out.startswith("ledger: ok")


def test_audit_exits_1_when_the_ledger_is_broken(store: Store, db_url: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    alice = store.register("alice", PW)
    with store.engine.begin() as conn:  # silver that no ledger row explains
        conn.execute(text("UPDATE accounts SET silver = silver + 5 WHERE id = :i"), {"i": alice.id})
    code, out, _ = run(capsys, db_url, "audit")
    assert code == 1 and out.startswith("ledger: BROKEN")


def test_naming_staff(store: Store, db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    store.register("alice", PW)
    code, out, _ = run(capsys, db_url, "role", "ALICE", "moderator")
    assert code == 0 and out.strip() == "alice is a moderator (was a player)"
    code, out, _ = run(capsys, db_url, "role", "--json")
    assert code == 0
    assert [(m["username"], m["role"], m["granted_by"]) for m in json.loads(out)] == [
        ("alice", "moderator", "tester")]
    code, out, _ = run(capsys, db_url, "role")
    assert code == 0 and out.startswith("1 staff member\n  alice: moderator, named by tester")
    code, out, _ = run(capsys, db_url, "role", "alice", "none")
    assert code == 0 and out.strip() == "alice is a player again (was a moderator)"
    code, out, _ = run(capsys, db_url, "role", "alice", "admin")
    assert code == 0 and out.strip() == "alice is an admin (was a player)"  # not "a admin"
    code, out, _ = run(capsys, db_url, "role", "alice", "none")
    assert code == 0 and out.strip() == "alice is a player again (was an admin)"
    guest = store.create_guest().account.username
    for words, expected in [(["role", "alice"], "give the role too"),
                            (["role", "alice", "none"], "'alice' is no staff member already"),
                            (["role", guest, "admin"], "cannot be staff"),
                            (["role", "nobody", "admin"], "no account named 'nobody'")]:
        code, _, err = run(capsys, db_url, *words)
        assert code == 2 and expected in one_line_error(err), (words, err)


def test_errors_are_one_line(store: Store, db_url: str, capsys: pytest.CaptureFixture[str],
                             tmp_path: Path) -> None:
    store.register("alice", PW)
    for words, expected in [
        (["grant", "nobody", "5"], "no account named 'nobody'"),
        (["grant", "alice", "-99999"], "cannot take 99999"),
        (["unban", "alice"], "'alice' is not banned"),
        (["reset-password", "nobody"], "no account named"),
        (["restore", str(tmp_path / "missing.bak")], "cannot read"),
        (["restore", __file__], "is not"),
    ]:
        code, _, err = run(capsys, db_url, *words)
        assert code == 2
        assert expected in one_line_error(err), (words, err)
    with pytest.raises(SystemExit) as stop:
        run(capsys, db_url, "grant", "alice", "lots")
    assert stop.value.code == 2
    assert "invalid int value" in one_line_error(capsys.readouterr().err)
    for words, expected in [  # refused by the parser: nan made drain --wait wait for ever
        (["drain", "--wait", "--timeout", "nan"], "--timeout: must be a finite number >= 0"),
        (["drain", "--wait", "--timeout", "-1"], "--timeout: must be a finite number >= 0"),
        (["drain", "--wait", "--timeout", "soon"], "--timeout: not a number"),
        (["audit", "--log", "-3"], "--log: must be >= 0"),
    ]:
        with pytest.raises(SystemExit) as stop:
            run(capsys, db_url, *words)
        assert stop.value.code == 2
        assert expected in one_line_error(capsys.readouterr().err), words


def test_missing_sqlite_file_is_not_created(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["admin", "--data-dir", str(tmp_path / "nowhere"), "tables"])
    err = capsys.readouterr().err
    assert code == 2 and "no database at" in one_line_error(err)
    assert not (tmp_path / "nowhere").exists()


def _drop_pg_schema(url: str) -> None:
    parsed = make_url(url)
    schema = str(parsed.query["options"]).split("=", 1)[1]
    admin = create_engine(parsed.set(query={}), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    finally:
        admin.dispose()


def test_backup_and_restore_round_trip(store: Store, db_url: str, backend: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    alice = store.register("alice", PW)
    Admin(store, "ops").grant("alice", 77, "before the backup")
    record_before = store.ledger(alice.id, limit=None)
    dump = tmp_path / "backup.dump"
    code, out, _ = run(capsys, db_url, "backup", str(dump))
    assert "backed up" in out
    assert code == 0 and dump.stat().st_size > 0
    code, _, err = run(capsys, db_url, "backup", str(dump))
    assert code == 2 and "exists" in one_line_error(err)

    # changes after the backup ...
    Admin(store, "ops").grant("alice", 1000, "after the backup")
    store.register("zed", PW)
    code, _, err = run(capsys, db_url, "restore", str(dump))
    assert code == 2 and "not empty" in one_line_error(err)
    assert store.account(alice.id).silver == 2077  # refused: nothing changed
    # ... are undone by restoring over the database
    store.close()
    code, _out, err = run(capsys, db_url, "restore", str(dump), "--force")
    assert code == 0, err
    with open_store(db_url, password_hasher=FAST_HASHER) as again:
        assert again.account(alice.id).silver == 1077
        assert again.ledger(alice.id, limit=None) == record_before
        assert again.account_by_username("zed") is None
        assert again.login("alice", PW).account.id == alice.id
        assert again.audit().ok
        actions = [a.action for a in Admin(again, "x").actions(50)]
        assert actions[0] == "restore" and "backup" not in actions  # logged after the copy

    # into a database that is empty: no --force needed
    if backend == "sqlite":
        empty = f"sqlite:///{tmp_path / 'elsewhere' / 'restored.db'}"
    else:  # a dump of one schema restores into that schema: drop it first
        _drop_pg_schema(db_url)
        empty = db_url
    code, _out, err = run(capsys, empty, "restore", str(dump))
    assert code == 0, err
    with open_store(empty, password_hasher=FAST_HASHER) as copy:
        assert copy.account(alice.id).silver == 1077
        assert copy.audit().ok


def _foreign_backup(db_url: str, backend: str, tmp_path: Path) -> Path:
    """A backup of another program's database (one ``photos`` table), in ``backend``'s
    format: an SQLite file, or a pg_dump of a schema beside the test's own."""
    if backend == "sqlite":
        path = tmp_path / "photos.db"
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY)")
        return path
    parsed = make_url(db_url)
    schema = str(parsed.query["options"]).split("=", 1)[1] + "_photos"
    url = parsed.update_query_dict({"options": f"-csearch_path={schema}"})
    engine = create_engine(parsed.set(query={}), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as c:
            c.execute(text(f'CREATE SCHEMA "{schema}"'))
            c.execute(text(f'CREATE TABLE "{schema}".photos (id INTEGER PRIMARY KEY)'))
        dump = tmp_path / "photos.dump"
        admin_backup(url, dump)
        return dump
    finally:
        _drop_pg_schema(url.render_as_string(hide_password=False))
        engine.dispose()


def test_a_backup_of_another_program_is_refused_before_anything_changes(
        store: Store, db_url: str, backend: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``restore --force`` of a wrong file: the database used to be replaced by it first
    and only then found wanting (everything the operator had, gone).  The backup's schema
    revision is read first; nothing is touched."""
    alice = store.register("alice", PW)
    Admin(store, "ops").grant("alice", 77, "before")
    foreign = _foreign_backup(db_url, backend, tmp_path)
    code, _, err = run(capsys, db_url, "restore", str(foreign), "--force")
    assert code == 2 and "is no wuhan-mahjong backup" in one_line_error(err)
    assert store.account(alice.id).silver == 1077 and store.audit().ok


def test_a_backup_from_a_newer_version_is_refused(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A backup at a schema revision this version does not ship: refused, named."""
    url = f"sqlite:///{tmp_path / 'source.db'}"
    open_store(url, password_hasher=FAST_HASHER).close()
    dump = tmp_path / "newer.db"
    assert run(capsys, url, "backup", str(dump))[0] == 0
    with sqlite3.connect(dump) as db:
        db.execute("UPDATE alembic_version SET version_num = 'f00dfeed0099'")
    code, _, err = run(capsys, f"sqlite:///{tmp_path / 'new.db'}", "restore", str(dump))
    assert code == 2 and "schema revision 'f00dfeed0099'" in one_line_error(err)
    assert not (tmp_path / "new.db").exists()


def test_an_sqlite_backup_is_one_self_contained_file(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The copy was left in WAL mode, which SQLite cannot read from a read-only folder
    (it must create the ``-shm`` file beside it); restoring it left ``-wal`` and ``-shm``
    files beside the backup.  It is written in the rollback-journal mode."""
    url = f"sqlite:///{tmp_path / 'source.db'}"
    open_store(url, password_hasher=FAST_HASHER).close()
    folder = tmp_path / "backups"
    folder.mkdir()
    dump = folder / "b.db"
    assert run(capsys, url, "backup", str(dump))[0] == 0
    assert dump.read_bytes()[18:20] == b"\x01\x01"  # file format: rollback journal
    code, _, err = run(capsys, f"sqlite:///{tmp_path / 'r' / 'restored.db'}", "restore",
                       str(dump))
    assert code == 0, err
    assert [p.name for p in folder.iterdir()] == ["b.db"]


def test_database_found_as_serve_finds_it(store: Store, db_url: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``--db``, ``db_url`` of the ``--config`` file, ``$WUHAN_MAHJONG_DB``: as ``serve``."""
    store.register("alice", PW)
    config = tmp_path / "serve.toml"
    config.write_text(f"db_url = {json.dumps(db_url)}\n")
    code = main(["admin", "--config", str(config), "grant", "alice", "1"])
    assert code == 0, capsys.readouterr().err
    monkeypatch.setenv("WUHAN_MAHJONG_DB", db_url)
    code = main(["admin", "grant", "alice", "2"])
    assert code == 0, capsys.readouterr().err
    monkeypatch.setenv("WUHAN_MAHJONG_DB", f"sqlite:///{tmp_path / 'absent.db'}")
    code = main(["admin", "--db", db_url, "grant", "alice", "4"])
    assert code == 0, capsys.readouterr().err
    code = main(["admin", "grant", "alice", "8"])  # the variable names a missing file
    assert code == 2 and "no database at" in one_line_error(capsys.readouterr().err)
    assert store.account_by_username("alice").silver == 1007  # type: ignore[union-attr]


def test_a_failed_backup_leaves_the_last_good_one(store: Store, db_url: str, backend: str,
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``backup --force`` over last night's file, and the database cannot be read: pg_dump
    wrote into the file itself and left it empty (the last good backup, gone).  Every
    backup is now written beside it and renamed over it when whole."""
    store.register("alice", PW)
    dump = tmp_path / "nightly.dump"
    assert run(capsys, db_url, "backup", str(dump))[0] == 0
    good = dump.read_bytes()
    if backend == "sqlite":
        broken = tmp_path / "broken.db"
        broken.write_text("not a database\n" * 100)
        unreadable = f"sqlite:///{broken}"
    else:
        unreadable = make_url(db_url).set(database="no_such_database").render_as_string(
            hide_password=False)
    code, _, err = run(capsys, unreadable, "backup", str(dump), "--force")
    assert code == 2 and "failed" in one_line_error(err)
    assert dump.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("nightly")) == [
        "nightly.dump"]
