"""The operator's surfaces under bad conditions (``wuhan-mahjong admin``, ``store/admin.py``), on
SQLite and PostgreSQL: what a club's operator may get wrong or meet (a closed account's
tombstone name, a database that refuses writes, an export that cannot be written whole) is a
one-line refusal that changes nothing, never a traceback or silver put out of reach."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from wuhan_mahjong.cli import main
from wuhan_mahjong.store import AuthenticationFailed, Store, open_store
from wuhan_mahjong.store.admin import Admin, AdminError
from wuhan_mahjong.store.closing import closed_name
from wuhan_mahjong.store.serve_lock import hold_serve_lock

PW = "correct horse battery"
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


def run(capsys: pytest.CaptureFixture[str], url: str, *words: str) -> tuple[int, str, str]:
    code = main(["admin", "--db", url, "--as", "tester", *words])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, err
    assert len(lines) == 1 and lines[0].startswith("wuhan-mahjong: error: "), err
    return lines[0]


def test_a_closed_account_stays_closed(store: Store, db_url: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A closed account (注销) is closed for good: its tombstone name is found by the admin
    tools (to read it), but a password reset gave it a password again, so anyone could log
    in as ``已注销#<id>``, and a grant put silver into an account nobody can ever use."""
    bob = store.register("bob", PW)
    operator = Admin(store, "root")
    operator.close("bob")
    tomb = closed_name(bob.id)
    before = store.audit()

    for words, expected in [(["reset-password", tomb], "closed"),
                            (["grant", tomb, "100"], "closed")]:
        code, _, err = run(capsys, db_url, *words)
        assert code == 2, (words, err)
        assert expected in one_line_error(err), (words, err)
    with pytest.raises(AdminError, match="closed"):
        operator.reset_password(tomb, "a new secret for him")
    with pytest.raises(AdminError, match="closed"):
        operator.grant(tomb, 5)
    with pytest.raises(AuthenticationFailed):
        store.login(tomb, "a new secret for him")
    row = store.account(bob.id)
    assert row.silver == 0
    after = store.audit()
    assert after.ok and after.total_balances == before.total_balances
    assert [a.action for a in operator.actions(1)] == ["close_account"]  # nothing else logged
    code, out, _ = run(capsys, db_url, "show", tomb)  # still readable, for support
    assert code == 0 and tomb in out


@pytest.fixture
def read_only_url(db_url: str, store: Store) -> str:
    """``db_url`` as a database that refuses every write (PostgreSQL: a hot standby's
    refusal, ``default_transaction_read_only``; SQLite: a trigger that refuses the write
    as a full disk or a read-only file would), with the player ``alice``."""
    store.register("alice", PW)
    url = make_url(db_url)
    if url.get_backend_name() == "postgresql":
        options = f"{url.query['options']} -cdefault_transaction_read_only=on"
        return url.update_query_dict({"options": options}).render_as_string(hide_password=False)
    with store.engine.begin() as connection:
        for table in ("ledger", "admin_actions", "account_bans"):
            connection.exec_driver_sql(
                f"CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} "
                "BEGIN SELECT RAISE(ABORT, 'attempt to write a readonly database'); END")
    return db_url


def test_a_database_that_refuses_writes_is_a_one_line_error(
        store: Store, read_only_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """An operator who points ``admin`` at a read-only database (a PostgreSQL standby, a
    read-only file) got the driver's traceback from every action that writes; now one line
    and exit status 2, and nothing changed."""
    before = store.audit()
    for words in (["grant", "alice", "5"], ["ban", "alice"], ["audit"]):
        code, _, err = run(capsys, read_only_url, *words)
        assert code == 2, (words, err)
        assert "database" in one_line_error(err), (words, err)
    assert store.audit().total_balances == before.total_balances
    assert store.account_by_username("alice").silver == 1000  # type: ignore[union-attr]


@pytest.mark.parametrize("value", [
    "10.0.0.300",            # no address
    "10.0.0.1/8",            # host bits set: uvicorn reads only strict networks
    "10.0.0.0/33",
    "proxy.internal",        # a name: uvicorn compares the peer's address, never a name
    '["*", "10.0.0.1"]',     # '*' trusts every peer only alone
])
def test_a_proxy_address_that_trusts_nothing_is_refused(
        value: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``forwarded_allow_ips`` is handed to uvicorn, which keeps an entry it cannot read as
    an address or a network as a literal no TCP peer ever matches: a typo trusted no proxy,
    without a word, and every player behind it shared its address (one login limit, one
    sign-up limit for the whole club).  ``serve`` now stops with one line naming it."""
    monkeypatch.delenv("WUHAN_MAHJONG_FORWARDED_ALLOW_IPS", raising=False)
    code = main(["serve", "--print-config", "--forwarded-allow-ips", value])
    err = capsys.readouterr().err
    assert code == 2
    assert "forwarded_allow_ips" in one_line_error(err)


def test_proxy_addresses_uvicorn_reads_are_accepted(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WUHAN_MAHJONG_FORWARDED_ALLOW_IPS", raising=False)
    for value in ("127.0.0.1", "10.0.0.5,172.16.0.0/12", "::1", "fd00::/8", "*", '["*"]'):
        assert main(["serve", "--print-config", "--forwarded-allow-ips", value]) == 0, value
        assert "forwarded_allow_ips = [" in capsys.readouterr().out


FILE_LIMIT = 2048
"""Bytes a file of the export's process may hold (``RLIMIT_FSIZE``): its output is larger."""


def _export_limited(url: str, out: Path, *, killed: bool) -> subprocess.CompletedProcess[str]:
    """``admin export alice --out OUT`` in a process whose files stop at :data:`FILE_LIMIT`
    bytes: the kernel kills it there (``SIGXFSZ``, as a ``kill -9`` mid-write would), or,
    with the signal ignored, the write fails as on a full disk."""
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL if killed else signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))

    return subprocess.run(
        [sys.executable, "-m", "wuhan_mahjong", "admin", "--db", url, "--as", "tester",
         "export", "alice", "--out", str(out)],
        capture_output=True, text=True, timeout=120, preexec_fn=limit, check=False)


@pytest.mark.parametrize("killed", [True, False])
def test_an_export_is_written_whole_or_not_at_all(pg_url: str, tmp_path: Path,
                                                  killed: bool) -> None:
    """An export cut short (the process killed mid-write, a full disk) left a truncated file
    under the name asked for, which a later run refused to replace and which an operator
    could hand to the player as his data; a full disk was a traceback too.  Now the file
    appears whole, or not at all, and a failure is one line."""
    store = open_store(pg_url, password_hasher=FAST_HASHER)
    try:
        store.register("alice", PW)
        operator = Admin(store, "root")
        for k in range(40):
            operator.grant("alice", 1, f"refund of match {k:04d}: a reason long enough")
        whole = tmp_path / "whole.json"
        assert main(["admin", "--db", pg_url, "export", "alice", "--out", str(whole)]) == 0
        assert whole.stat().st_size > FILE_LIMIT

        out = tmp_path / "alice.json"
        done = _export_limited(pg_url, out, killed=killed)
        assert done.returncode != 0
        assert not out.exists(), "a cut-short export under the name asked for"
        if not killed:
            assert done.returncode == 2
            assert "alice.json" in one_line_error(done.stderr)
        # the name is free: the next run writes the whole file
        assert main(["admin", "--db", pg_url, "export", "alice", "--out", str(out)]) == 0
        assert json.loads(out.read_text(encoding="utf-8"))["account"]["username"] == "alice"
    finally:
        store.close()


def test_a_backup_of_a_standby_with_more_connection_options(
        pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A PostgreSQL URL whose ``options`` set more than the schema (``-csearch_path=S
    -cstatement_timeout=0``) made ``admin backup`` ask pg_dump for the schema ``S
    -cstatement_timeout=0`` ("no matching schemas"); and a backup taken from a read-only
    standby, as backups often are, was written but reported as failed (exit 2), since its
    row in the event log could not be written there.  Now the backup is taken, and the
    missing log row is a warning."""
    store = open_store(pg_url, password_hasher=FAST_HASHER)
    try:
        alice = store.register("alice", PW)
        Admin(store, "ops").grant("alice", 77, "before the backup")
        parsed = make_url(pg_url)
        standby = parsed.update_query_dict({"options": (
            f"{parsed.query['options']} -cstatement_timeout=0 "
            "-cdefault_transaction_read_only=on")}).render_as_string(hide_password=False)
        dump = tmp_path / "standby.dump"
        code, out, err = run(capsys, standby, "backup", str(dump))
        assert code == 0, err
        assert "backed up" in out and dump.stat().st_size > 0
        assert "not logged" in err and "Traceback" not in err
        Admin(store, "ops").grant("alice", 1000, "after the backup")
    finally:
        store.close()
    code, _, err = run(capsys, pg_url, "restore", str(dump), "--force")
    assert code == 0, err
    with open_store(pg_url, password_hasher=FAST_HASHER) as again:
        assert again.account(alice.id).silver == 1077
        assert again.audit().ok


def test_no_restore_under_a_running_server(store: Store, db_url: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """``admin restore --force`` replaced the database under a server that was serving it
    (its running matches then settled into the restored ledger, or failed on matches it no
    longer had); the server's lock (``store/serve_lock.py``) now refuses it, and nothing
    changes."""
    store.register("alice", PW)
    dump = tmp_path / "backup.dump"
    code, _, err = run(capsys, db_url, "backup", str(dump))
    assert code == 0, err
    Admin(store, "ops").grant("alice", 500, "after the backup")
    for node in (False, True):  # a server alone, then a cluster node: each refuses it
        serving = hold_serve_lock(store.engine, node=node)
        try:
            code, _, err = run(capsys, db_url, "restore", str(dump), "--force")
            assert code == 2
            said = one_line_error(err)
            assert "stop it first" in said and ("cluster nodes" in said) == node, said
            assert store.account_by_username("alice").silver == 1500  # type: ignore[union-attr]
        finally:
            serving.release()
    code, _, err = run(capsys, db_url, "restore", str(dump), "--force")  # stopped: restored
    assert code == 0, err
    with open_store(db_url, password_hasher=FAST_HASHER) as again:
        assert again.account_by_username("alice").silver == 1000  # type: ignore[union-attr]


def test_a_schema_backup_restores_only_into_its_own_schema(
        pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A pg_dump of a database confined to one schema recreates that schema, whatever the
    URL it is restored with says: restored with another schema's URL (an empty one, so no
    --force was asked), it replaced the first schema's live contents (a grant made since
    the backup was gone) and left the named one empty, reporting success.  Now refused,
    and nothing changes."""
    store = open_store(pg_url, password_hasher=FAST_HASHER)
    try:
        store.register("alice", PW)
        dump = tmp_path / "club-a.dump"
        code, _, err = run(capsys, pg_url, "backup", str(dump))
        assert code == 0, err
        Admin(store, "ops").grant("alice", 500, "after the backup")
        parsed = make_url(pg_url)
        other = f"{str(parsed.query['options']).split('=', 1)[1]}_b"
        admin = create_engine(parsed.set(query={}), isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as c:
                c.execute(text(f'CREATE SCHEMA "{other}"'))
            other_url = parsed.update_query_dict(
                {"options": f"-csearch_path={other}"}).render_as_string(hide_password=False)
            code, _, err = run(capsys, other_url, "restore", str(dump))
            assert code == 2
            assert "schema" in one_line_error(err)
            assert store.account_by_username("alice").silver == 1500  # type: ignore[union-attr]
            with admin.connect() as c:
                assert c.scalar(text("SELECT count(*) FROM information_schema.tables "
                                     "WHERE table_schema = :s"), {"s": other}) == 0
        finally:
            with admin.connect() as c:
                c.execute(text(f'DROP SCHEMA IF EXISTS "{other}" CASCADE'))
            admin.dispose()
    finally:
        store.close()


def test_no_silver_for_a_bot(store: Store, db_url: str,
                             capsys: pytest.CaptureFixture[str]) -> None:
    """Bots hold no silver and never get any (``docs/server.md``): they sit at free tables
    only.  An operator's grant by the bot's name (a guest's, as a player sees it at a table)
    credited it all the same, silver no one could ever use."""
    bot = store.create_bot()
    code, _, err = run(capsys, db_url, "grant", bot.username, "100")
    assert code == 2
    assert "bot" in one_line_error(err)
    assert store.account(bot.id).silver == 0 and store.ledger(bot.id) == []


@pytest.mark.parametrize("url", ["/var/lib/wuhan-mahjong/wuhan_mahjong.db",  # a path, no URL
                                 "postgresql://club:secret@db:port/wuhan",   # a port not a number
                                 "postgresql://club:secret@[::1/wuhan"])
@pytest.mark.parametrize("command", [["admin", "tables"], ["admin", "backup", "x.bak"],
                                     ["admin", "restore", "x.bak"], ["serve", "--port", "0"]])
def test_a_database_setting_that_is_no_url_is_one_line(
        url: str, command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A database setting SQLAlchemy cannot read (a file's path where ``sqlite:///`` was
    meant, a port that is no number) was SQLAlchemy's traceback from ``serve`` and every
    ``admin`` command; now one line that shows no password."""
    monkeypatch.chdir(tmp_path)
    code = main([command[0], "--db", url, *command[1:]])
    err = capsys.readouterr().err
    assert code == 2
    line = one_line_error(err)
    assert "database URL" in line and "secret" not in line


def test_print_config_hides_a_password_with_an_at_sign(capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve --print-config`` (made to be pasted into a support request) hid a password
    only up to its first ``@``: a Redis password ``pa@ss`` (redis-py reads the userinfo up
    to the last ``@``) was printed as ``***@ss``."""
    monkeypatch.delenv("WUHAN_MAHJONG_REDIS_URL", raising=False)
    monkeypatch.delenv("WUHAN_MAHJONG_DB_URL", raising=False)
    assert main(["serve", "--print-config", "--redis", "redis://:pa@ss-word@cache:6379/0",
                 "--db", "postgresql://club:s%40cret@db/wuhan"]) == 0
    out = capsys.readouterr().out
    assert 'redis_url = "redis://:***@cache:6379/0"' in out
    assert 'db_url = "postgresql://club:***@db/wuhan"' in out
    assert "ss-word" not in out and "cret" not in out


def test_a_backup_never_replaces_the_database_it_copies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``admin backup data/wuhan_mahjong.db --force`` (the database's own path, or its WAL,
    for the backup's) renamed the copy over the live file: the store open on it (a running
    server) found no tables any more.  Now refused, and the database is as it was."""
    db = tmp_path / "data" / "wuhan_mahjong.db"
    url = f"sqlite:///{db}"
    store = open_store(url, password_hasher=FAST_HASHER)
    try:
        store.register("alice", PW)
        link = tmp_path / "same.db"
        link.symlink_to(db)
        for target in (db, Path(f"{db}-wal"), link):
            code, _, err = run(capsys, url, "backup", str(target), "--force")
            assert code == 2, (target, err)
            assert "database itself" in one_line_error(err)
        Admin(store, "ops").grant("alice", 5, "the store works on")
        assert store.account_by_username("alice").silver == 1005  # type: ignore[union-attr]
    finally:
        store.close()


@pytest.mark.parametrize(("text", "says"), [
    ("port = " + "[" * 100_000 + "]" * 100_000 + "\n", "nested too deeply"),
    ("port = 1" + "0" * 5000 + "\n", "a number of too many digits"),
], ids=["deep", "long"])
def test_a_settings_file_too_deep_or_too_long_is_one_line(
        text: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A TOML settings file nested deeper than Python's recursion limit, or holding a number
    of more digits than ``int()`` converts, was tomllib's RecursionError or ValueError, a
    traceback from ``serve`` and ``admin``; now one line naming the file."""
    path = tmp_path / "server.toml"
    path.write_text(text, encoding="utf-8")
    for argv in (["serve", "--print-config", "--config", str(path)],
                 ["admin", "--config", str(path), "tables"]):
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2, argv
        line = one_line_error(err)
        assert "server.toml: not valid TOML" in line and says in line, line


def test_a_settings_file_is_read_only_up_to_a_bound(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--config`` read the whole file whatever its size: a log file or a disk image named
    by mistake (``/dev/zero`` never ends) was read into memory before a word was said.  A
    settings file is a few lines; past a mebibyte it is refused in one line."""
    path = tmp_path / "server.toml"
    path.write_text("port = 8001\n" + ("# a comment line of some length\n" * 40_000),
                    encoding="utf-8")
    code = main(["serve", "--print-config", "--config", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "server.toml" in one_line_error(err) and "larger than" in err
