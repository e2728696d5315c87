"""Server settings: flags, then WUHAN_MAHJONG_* variables, then a TOML file, then defaults.

Every field of ``ServerConfig`` is a setting without a hand-written list: the
tests walk the dataclass's fields, and add fields to a copy of it to show that a
new field is configurable everywhere at once.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.cli import build_parser
from wuhan_mahjong.server import settings as settings_mod
from wuhan_mahjong.server.config import ServerConfig
from wuhan_mahjong.server.settings import ProcessConfig, SettingsError, load_settings, settings_fields

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.upper().startswith("WUHAN_MAHJONG_"):
            monkeypatch.delenv(key)


def toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "server.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_precedence_flag_then_environment_then_file_then_default(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = toml(tmp_path, 'port = 7001\nhost = "10.0.0.1"\nbot_wait = 2.5\nlog_level = "debug"\n')
    monkeypatch.setenv("WUHAN_MAHJONG_PORT", "7002")
    monkeypatch.setenv("WUHAN_MAHJONG_HOST", "10.0.0.2")
    s = load_settings({"port": "7003"}, path)
    assert s.server.port == 7003  # flag beats environment and file
    assert s.server.host == "10.0.0.2"  # environment beats file
    assert s.server.bot_wait == 2.5  # file beats default
    assert s.process.log_level == "debug"
    assert s.server.hand_pause == ServerConfig().hand_pause  # default
    assert s.sources == {"port": "--port", "host": "$WUHAN_MAHJONG_HOST", "bot_wait": str(path),
                         "log_level": str(path)}
    assert load_settings({}, path).server.port == 7002
    monkeypatch.delenv("WUHAN_MAHJONG_PORT")
    assert load_settings({}, path).server.port == 7001
    assert load_settings({}).server.port == ServerConfig().port


def test_config_file_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = toml(tmp_path, "quick_hands = 8\n")
    monkeypatch.setenv("WUHAN_MAHJONG_CONFIG", str(path))
    assert load_settings().server.quick_hands == 8
    assert load_settings({}, toml(tmp_path, "quick_hands = 2\n")).server.quick_hands == 2


def test_none_unsets_an_optional_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = toml(tmp_path, "fee = 5\nclaim_seconds = 3.0\n")
    assert load_settings({}, path).server.fee == 5
    monkeypatch.setenv("WUHAN_MAHJONG_FEE", "none")
    s = load_settings({"claim_seconds": "none"}, path)
    assert s.server.fee is None and s.server.claim_seconds is None


def test_a_cluster_heartbeat_life_of_three_beats_or_more(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--cluster-heartbeat`` / ``--cluster-ttl`` (the tests' short life among them), from
    a flag or the environment; three beats is the shortest life taken."""
    s = load_settings({"cluster_heartbeat": "0.25", "cluster_ttl": "2"}).server
    assert (s.cluster_heartbeat, s.cluster_ttl) == (0.25, 2.0)
    monkeypatch.setenv("WUHAN_MAHJONG_CLUSTER_HEARTBEAT", "0.5")
    monkeypatch.setenv("WUHAN_MAHJONG_CLUSTER_TTL", "1.5")
    s = load_settings({}).server
    assert (s.cluster_heartbeat, s.cluster_ttl) == (0.5, 1.5)
    assert (ServerConfig().cluster_heartbeat, ServerConfig().cluster_ttl) == (1.0, 5.0)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, set, frozenset)):
        return json.dumps([str(v) for v in value])
    return str(value)


def test_every_field_has_a_flag_a_variable_and_a_key(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    fields = [f for cls in (ServerConfig, ProcessConfig) for f in dataclasses.fields(cls) if f.init]
    assert [s.name for s in settings_fields()] == [f.name for f in fields]
    with pytest.raises(SystemExit):
        build_parser(only=["serve"]).parse_args(["serve", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    for s in settings_fields():
        assert re.search(rf"{re.escape(s.flag)}(?![-\w])", shown), s.flag
        assert f"${s.env})" in shown, s.env
        if s.default is None:
            continue
        # the default's own text, given in each source, reads back as the default
        monkeypatch.setenv(s.env, _text(s.default))
        got = load_settings()
        monkeypatch.delenv(s.env)
        part = got.server if s.owner is ServerConfig else got.process
        assert getattr(part, s.name) == s.default and got.sources[s.name] == f"${s.env}"
        assert getattr(load_settings({s.name: _text(s.default)}).server
                       if s.owner is ServerConfig else load_settings({s.name: _text(s.default)}).process,
                       s.name) == s.default


def test_a_new_field_is_configurable_with_no_other_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What another engineer's new ServerConfig field gets: a flag, a variable and a TOML key."""
    extended = dataclasses.make_dataclass(
        "ServerConfig",
        [("trusted_proxies", tuple[str, ...], dataclasses.field(default=())),
         ("abandon_timeout", float, dataclasses.field(default=60.0)),
         ("strict_seating", bool, dataclasses.field(default=False)),
         ("motd", str | None, dataclasses.field(default=None))],
        bases=(ServerConfig,), frozen=True)
    monkeypatch.setattr(settings_mod, "ServerConfig", extended)
    names = [s.name for s in settings_fields()]
    assert {"trusted_proxies", "abandon_timeout", "strict_seating", "motd"} <= set(names)
    parser = build_parser(only=["serve"])
    args = parser.parse_args(["serve", "--trusted-proxies", "10.0.0.1, 10.0.0.2", "--strict-seating",
                              "--config", str(toml(tmp_path, 'motd = "hi"\nabandon_timeout = 5\n'))])
    monkeypatch.setenv("WUHAN_MAHJONG_ABANDON_TIMEOUT", "30")
    from wuhan_mahjong.cli.serve import settings_from_args

    s = settings_from_args(args).server
    assert isinstance(s, extended)
    assert s.trusted_proxies == ("10.0.0.1", "10.0.0.2")  # type: ignore[attr-defined]
    assert s.strict_seating is True  # type: ignore[attr-defined]
    assert s.abandon_timeout == 30.0  # type: ignore[attr-defined]
    assert s.motd == "hi"  # type: ignore[attr-defined]
    monkeypatch.setenv("WUHAN_MAHJONG_TRUSTED_PROXIES", '["192.168.0.1"]')
    assert load_settings().server.trusted_proxies == ("192.168.0.1",)  # type: ignore[attr-defined]
    # the variable takes the flag's comma-separated form too
    monkeypatch.setenv("WUHAN_MAHJONG_TRUSTED_PROXIES", "192.168.0.1, 192.168.0.2")
    assert load_settings().server.trusted_proxies == (  # type: ignore[attr-defined]
        "192.168.0.1", "192.168.0.2")
    with pytest.raises(SettingsError, match=r"^\$WUHAN_MAHJONG_ABANDON_TIMEOUT: abandon_timeout: "):
        monkeypatch.setenv("WUHAN_MAHJONG_ABANDON_TIMEOUT", "soon")
        load_settings()


@pytest.mark.parametrize(("flags", "env", "file", "message"), [
    ({"port": "eighty"}, {}, None, r"^--port: port: Input should be a valid integer.*'eighty'"),
    ({}, {"WUHAN_MAHJONG_MSG_RATE": "fast"}, None, r"^\$WUHAN_MAHJONG_MSG_RATE: msg_rate: "),
    ({}, {}, "bot_delay = 'slow'\n", r"server\.toml: bot_delay: "),
    ({}, {}, "prot = 8000\n", r"server\.toml: unknown setting 'prot'$"),
    ({}, {}, "port = \n", r"server\.toml: not valid TOML"),
    ({}, {}, "log_level = 'loud'\n", r"server\.toml: log_level: "),
    ({"quick_hands": "0"}, {}, None, r"^invalid settings: quick_hands must be in 1\.\.64$"),
    # a quick-match stake, match length or fee no room may have: a big hand's settlement
    # past the ledger's exact range failed (the hand voided, the table ended as an error)
    ({"quick_hands": "65"}, {}, None, r"^invalid settings: quick_hands must be in 1\.\.64$"),
    ({}, {"WUHAN_MAHJONG_QUICK_STAKE": "10000000000000"}, None,
     r"^invalid settings: quick_stake must be in 0\.\.1000000$"),
    ({}, {}, "fee = 100000000000000\n", r"^invalid settings: fee must be in 0\.\.10000$"),
    ({"quick_profile": "tokyo"}, {}, None, r"^invalid settings: unknown profile 'tokyo'$"),
    # a cluster node's heartbeat life outlives a few beats (else a late beat loses its leases)
    ({"cluster_ttl": "2"}, {}, None, r"^invalid settings: cluster_ttl must be at least 3 "
     r"heartbeats \(3 x cluster_heartbeat = 3 s\) and at most 600 s, not 2$"),
    ({"cluster_heartbeat": "0.5", "cluster_ttl": "1"}, {}, None,
     r"^invalid settings: cluster_ttl must be at least 3 heartbeats \(3 x cluster_heartbeat = 1\.5 s\)"),
    ({}, {}, "cluster_ttl = 601.0\n", r"^invalid settings: cluster_ttl .* at most 600 s, not 601$"),
    ({}, {"WUHAN_MAHJONG_CLUSTER_HEARTBEAT": "0"}, None,
     r"^invalid settings: cluster_heartbeat must be in 0\.05\.\.60 seconds, not 0$"),
    ({"cluster_heartbeat": "-1"}, {}, None, r"^invalid settings: cluster_heartbeat must be in "),
    ({"cluster_heartbeat": "61", "cluster_ttl": "300"}, {}, None,
     r"^invalid settings: cluster_heartbeat must be in 0\.05\.\.60 seconds, not 61$"),
    # the platform's calendar is a real IANA zone (a typo would move every day's start)
    ({"timezone": "Asia/Wuhan"}, {}, None,
     r"^invalid settings: unknown time zone 'Asia/Wuhan' \(an IANA name such as "),
    ({}, {}, "timezone = '../../etc/passwd'\n", r"unknown time zone '../../etc/passwd'"),
    # no nan or infinity in a time or a rate: nan passed every "must be >= 0" check
    ({"bot_wait": "nan"}, {}, None, r"^--bot-wait: bot_wait: Input should be a finite number"),
    ({"quick_affinity": "1e400"}, {}, None, r"^--quick-affinity: quick_affinity: .*finite"),
    ({}, {"WUHAN_MAHJONG_CLAIM_HOLD": "inf"}, None, r"^\$WUHAN_MAHJONG_CLAIM_HOLD: claim_hold: .*finite"),
    ({}, {}, "turn_seconds = nan\n", r"server\.toml: turn_seconds: .*finite"),
    ({}, {}, "msg_rate = inf\n", r"server\.toml: msg_rate: .*finite"),
    # a list from the environment is read as the flag reads it; text it cannot decode is
    # named (pydantic-settings' own error and its RecursionError were tracebacks)
    ({}, {"WUHAN_MAHJONG_FORWARDED_ALLOW_IPS": "[oops"}, None,
     r"^\$WUHAN_MAHJONG_FORWARDED_ALLOW_IPS: not JSON: Expecting value"),
    ({}, {"WUHAN_MAHJONG_FORWARDED_ALLOW_IPS": "[" * 100_000}, None,
     r"^\$WUHAN_MAHJONG_FORWARDED_ALLOW_IPS: not JSON: nested too deeply"),
    ({"forwarded_allow_ips": "[" * 100_000}, {}, None,
     r"^--forwarded-allow-ips: not JSON: nested too deeply"),
    # a number of more digits than int() converts (a ValueError of its own: a traceback)
    ({}, {"WUHAN_MAHJONG_FORWARDED_ALLOW_IPS": "[" + "9" * 5000 + "]"}, None,
     r"^\$WUHAN_MAHJONG_FORWARDED_ALLOW_IPS: not JSON: a number of too many digits"),
])
def test_bad_values_name_their_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: dict[str, str],
                                      env: dict[str, str], file: str | None, message: str) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(SettingsError, match=message):
        load_settings(flags, toml(tmp_path, file) if file is not None else None)


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(ServerConfig)
                                  if f.type in ("float", "float | None")])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_no_float_setting_takes_nan_or_infinity(name: str, value: float) -> None:
    """Every float setting is a time or a rate: the dataclass refuses a non-finite one too,
    whoever builds it (a test, an embedding program), not only the settings loader."""
    with pytest.raises(ValueError, match=f"^{name} must be a finite number"):
        ServerConfig(**{name: value})


def test_missing_settings_file(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"cannot read the settings file .*nowhere\.toml"):
        load_settings({}, tmp_path / "nowhere.toml")


def test_a_settings_file_that_is_not_utf8(tmp_path: Path) -> None:
    """TOML is UTF-8; a Latin-1 file made tomllib raise UnicodeDecodeError, a traceback
    from ``serve --config`` and every ``admin`` action."""
    path = tmp_path / "server.toml"
    path.write_bytes(b'motd = "caf\xe9"\n')
    with pytest.raises(SettingsError, match=r"server\.toml: not valid TOML: not UTF-8 text "
                                            r"\(byte 0xe9 at offset 11\)$"):
        load_settings({}, path)
    p = serve(tmp_path, "--config", str(path), "--print-config")
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "not UTF-8 text" in p.stderr


def test_other_wuhan_mahjong_variables_are_not_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WUHAN_MAHJONG_TEST_PG", "postgresql://x/y")
    monkeypatch.setenv("WUHAN_MAHJONG_CHROMIUM", "/usr/bin/chromium")
    assert load_settings().server == ServerConfig()


def test_the_example_config_is_valid() -> None:
    path = REPO / "deploy" / "config.example.toml"
    s = load_settings({}, path)
    assert s.server.data_dir == Path("/var/lib/wuhan-mahjong")
    assert set(s.sources) <= {f.name for f in settings_fields()} and len(s.sources) >= 10


# --- the command line ---------------------------------------------------------------------

def serve(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.upper().startswith("WUHAN_MAHJONG_")}
    return subprocess.run([sys.executable, "-m", "wuhan_mahjong", "serve", *args], capture_output=True,
                          text=True, env={**base, **(env or {})}, cwd=tmp_path, timeout=120)


def test_print_config_shows_each_setting_and_its_source(tmp_path: Path) -> None:
    path = toml(tmp_path, "port = 7001\nquick_stake = 5\nhand_pause = 1.5\n")
    p = serve(tmp_path, "--config", str(path), "--port", "7003", "--no-gc-tuning", "--print-config",
              env={"WUHAN_MAHJONG_QUICK_STAKE": "9",
                   "WUHAN_MAHJONG_DB_URL": "postgresql://u:secret@db.example/wm"})
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert "port = 7003  # --port" in lines
    assert "quick_stake = 9  # $WUHAN_MAHJONG_QUICK_STAKE" in lines
    assert f"hand_pause = 1.5  # {path}" in lines
    assert "gc_tuning = false  # --gc-tuning" in lines
    assert 'db_url = "postgresql://u:***@db.example/wm"  # $WUHAN_MAHJONG_DB_URL' in lines
    assert "secret" not in p.stdout
    assert f"quick_hands = {ServerConfig().quick_hands}  # default" in lines
    # the printed settings are themselves a valid settings file
    again = toml(tmp_path, p.stdout.replace("***", "pw"))
    assert load_settings({}, again).server.quick_stake == 9


@pytest.mark.parametrize(("args", "env", "needle"), [
    (["--port", "abc"], {}, "--port: port: "),
    (["--port", "70000"], {}, "port must be 0-65535"),
    ([], {"WUHAN_MAHJONG_BOT_WAIT": "-1"}, "bot_wait must be >= 0"),
    (["--bot-delay", "nan"], {}, "--bot-delay: bot_delay: Input should be a finite number"),
    ([], {"WUHAN_MAHJONG_PORT": "x"}, "$WUHAN_MAHJONG_PORT: port: "),
    (["--config", "missing.toml"], {}, "cannot read the settings file missing.toml"),
    (["--bot", "nobody"], {}, "unknown bot 'nobody'"),
    (["--log-level", "loud"], {}, "--log-level: log_level: "),
    (["--timezone", "Beijing"], {}, "unknown time zone 'Beijing'"),
    ([], {"WUHAN_MAHJONG_FORWARDED_ALLOW_IPS": "[oops"}, "$WUHAN_MAHJONG_FORWARDED_ALLOW_IPS: not JSON"),
])
def test_bad_settings_exit_2_with_one_line(tmp_path: Path, args: list[str], env: dict[str, str],
                                           needle: str) -> None:
    p = serve(tmp_path, *args, "--print-config", env=env)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    [line] = p.stderr.strip().splitlines()
    assert line.startswith("wuhan-mahjong: error: ") and needle in line, line


def test_a_port_in_use_is_a_one_line_error(tmp_path: Path) -> None:
    """uvicorn logged "address already in use" among its start-up lines and exited with
    status 3; ``serve`` binds the port itself first and says so in one line."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        p = serve(tmp_path, "--port", str(port), "--data-dir", str(tmp_path))
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    [line] = p.stderr.strip().splitlines()
    assert line == f"wuhan-mahjong: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    assert "serving" not in p.stdout


@pytest.mark.parametrize("command", ["serve", "admin"])
def test_another_program_s_database_is_refused_in_one_line(tmp_path: Path, command: str) -> None:
    """``--db`` naming another program's SQLite file: it used to be migrated, our tables
    added beside its own; now exit 2, one line, and the file is as it was."""
    path = tmp_path / "photos.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY)")
    before = path.read_bytes()
    base = {k: v for k, v in os.environ.items() if not k.upper().startswith("WUHAN_MAHJONG_")}
    argv = (["serve", "--port", "0", "--db", f"sqlite:///{path}"] if command == "serve"
            else ["admin", "--db", f"sqlite:///{path}", "tables"])
    p = subprocess.run([sys.executable, "-m", "wuhan_mahjong", *argv], capture_output=True,
                       text=True, env=base, cwd=tmp_path, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    [line] = p.stderr.strip().splitlines()
    assert "no wuhan-mahjong database (it holds 1 other table: photos)" in line, line
    assert path.read_bytes() == before


def test_old_spellings_still_work(tmp_path: Path) -> None:
    p = serve(tmp_path, "--db", "sqlite:///x.db", "--print-config")
    assert p.returncode == 0 and 'db_url = "sqlite:///x.db"  # --db-url' in p.stdout.splitlines()


def test_print_config_shows_the_older_variables_in_force(tmp_path: Path) -> None:
    """docs/operations.md: ``$WUHAN_MAHJONG_DB`` still works when ``db_url`` is not set,
    and ``--print-config`` prints the settings in force.  It printed ``db_url = (none)``
    while the server would open the variable's database (and ``redis_url`` likewise for
    ``$WUHAN_MAHJONG_REDIS``): a settings file made from it lost the database."""
    env = {"WUHAN_MAHJONG_DB": "postgresql://u:secret@db.example/wm",
           "WUHAN_MAHJONG_REDIS": "redis://127.0.0.1:6379/3"}
    p = serve(tmp_path, "--print-config", env=env)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert 'db_url = "postgresql://u:***@db.example/wm"  # $WUHAN_MAHJONG_DB' in lines
    assert 'redis_url = "redis://127.0.0.1:6379/3"  # $WUHAN_MAHJONG_REDIS' in lines
    assert "secret" not in p.stdout
    p = serve(tmp_path, "--db", "sqlite:///x.db", "--print-config", env=env)  # the setting wins
    assert 'db_url = "sqlite:///x.db"  # --db-url' in p.stdout.splitlines()


def test_python_m_server_is_serve(tmp_path: Path) -> None:
    base = {k: v for k, v in os.environ.items() if not k.upper().startswith("WUHAN_MAHJONG_")}
    p = subprocess.run([sys.executable, "-m", "wuhan_mahjong.server", "--port", "7777", "--print-config"],
                       capture_output=True, text=True, env=base, cwd=tmp_path, timeout=120)
    assert p.returncode == 0 and "port = 7777  # --port" in p.stdout.splitlines()


def test_serve_raises_its_open_files_limit(tmp_path: Path) -> None:
    """Each player's socket is an open file, and a service gets a soft limit of 1,024 by
    default: a node stopped accepting players at about a thousand sockets.  ``serve``
    raises its soft limit to the hard one (here 256 → the test's own hard limit)."""
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard <= 256:
        pytest.skip(f"the hard limit of open files is {hard}: nothing to raise")

    def low_soft_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))

    base = {k: v for k, v in os.environ.items() if not k.upper().startswith("WUHAN_MAHJONG_")}
    p = subprocess.Popen([sys.executable, "-m", "wuhan_mahjong", "serve", "--port", "0",
                          "--data-dir", str(tmp_path), "--log-level", "warning"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=base,
                         cwd=tmp_path, preexec_fn=low_soft_limit)
    try:
        assert p.stdout is not None
        lines = []
        while not any("serving" in line for line in lines):
            line = p.stdout.readline()
            assert line, f"serve ended: {lines} {p.stderr.read() if p.stderr else ''}"
            lines.append(line)
        limits = Path(f"/proc/{p.pid}/limits").read_text()
    finally:
        p.terminate()
        p.communicate(timeout=60)
    [raised] = [line for line in lines if "open files" in line]
    assert raised.startswith("wuhan-mahjong: open files limit raised from 256 to "), raised
    [row] = [line for line in limits.splitlines() if line.startswith("Max open files")]
    assert row.split()[3] == (str(hard) if hard != resource.RLIM_INFINITY else str(1 << 20)), row


def test_a_sigterm_as_the_server_starts_stops_it(tmp_path: Path) -> None:
    """systemd stopping a server that is still starting: the SIGTERM reached the handler
    ``serve`` keeps for after uvicorn's graceful shutdown, which did nothing, so the server
    started and ran on until the SIGKILL 90 s later (a test that stopped ``serve`` as soon
    as it printed its address hung).  Now the server stops as soon as it has started,
    gracefully, exit 0."""
    base = {k: v for k, v in os.environ.items() if not k.upper().startswith("WUHAN_MAHJONG_")}
    p = subprocess.Popen([sys.executable, "-m", "wuhan_mahjong", "serve", "--port", "0",
                          "--data-dir", str(tmp_path), "--log-level", "warning"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=base,
                         cwd=tmp_path)
    try:
        assert p.stdout is not None
        while "serving" not in (line := p.stdout.readline()):
            assert line, "serve ended before it served"
        p.send_signal(signal.SIGTERM)  # before uvicorn has taken the signal over
        p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 0
