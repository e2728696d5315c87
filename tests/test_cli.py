"""The command line, run as a real process: exit codes 0 / 1 / 2 and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SAMPLE = {
    "profile": "yuanhang", "options": {"opening_scoring": "per_opening"},
    "dealer": 0, "indicator": "9p", "winner": 1, "win_by": "discard", "from": 2,
    "winning_tile": "5m",
    "seats": [
        {"hand": "", "melds": []},
        {"hand": "456p678s5m", "melds": [{"type": "chi", "tiles": "234m", "from": 0},
                                         {"type": "peng", "tiles": "777s", "from": 3}]},
        {"hand": "", "melds": [{"type": "kong", "kind": "direct", "tiles": "8888p", "from": 0}],
         "kongs": {"red": 1, "green": 0, "laizi": 0, "pi": 0}, "laizi_discards": 1},
        {"hand": "", "melds": [], "ready": False},
    ],
}


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wuhan_mahjong", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_score_the_issue_sample_from_stdin() -> None:
    p = cli("score", stdin=json.dumps(SAMPLE))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["valid"] is True and out["laizi"] == "1p" and out["hands"] == []
    assert out["deltas"] == [-16, 280, -256, -8] and sum(out["deltas"]) == 0
    assert [p["payer"] for p in out["payments"]] == [0, 2, 3]
    assert {"base", "multipliers", "payments", "contractor", "golden_cap", "hard"} <= set(out)
    labels = [f["label"] for f in out["payments"][1]["factors"]]
    assert "×2 放冲" in labels and "×2 红中杠" in labels


def test_score_from_a_file(tmp_path: Path) -> None:
    f = tmp_path / "r.json"
    f.write_text(json.dumps(SAMPLE), encoding="utf-8")
    assert cli("score", str(f)).returncode == 0


def test_a_file_with_a_byte_order_mark_reads_as_without(tmp_path: Path) -> None:
    """Windows editors save UTF-8 with a byte-order mark; ``json`` refuses it, so the CLI
    drops it, from a file and from standard input alike."""
    f = tmp_path / "r.json"
    f.write_bytes(b"\xef\xbb\xbf" + json.dumps(SAMPLE).encode())
    plain = cli("score", stdin=json.dumps(SAMPLE))
    from_file = cli("score", str(f))
    from_stdin = subprocess.run([sys.executable, "-m", "wuhan_mahjong", "score"],
                                input=f.read_bytes(), capture_output=True, timeout=60)
    assert from_file.returncode == 0 and from_file.stdout == plain.stdout
    assert from_stdin.returncode == 0 and from_stdin.stdout.decode() == plain.stdout


@pytest.mark.parametrize("args", [("score", "@f"), ("replay", "@f"), ("verify", "@f"),
                                  ("simulate", "--wall", "@f", "--script", "@f"),
                                  ("score",), ("replay", "-")])
def test_bytes_that_are_not_utf8_exit_2_with_one_line(tmp_path: Path,
                                                       args: tuple[str, ...]) -> None:
    """A binary or Latin-1 file (or standard input) is bad input like any other: the
    commands that read a file used to die of UnicodeDecodeError with a traceback."""
    data = b'{"e": "header", "seat": "\xe9"}\n'  # a Latin-1 e-acute
    f = tmp_path / "record.jsonl"
    f.write_bytes(data)
    argv = [str(f) if a == "@f" else a for a in args]
    stdin = b"" if "@f" in args else data
    p = subprocess.run([sys.executable, "-m", "wuhan_mahjong", *argv], input=stdin,
                       capture_output=True, timeout=60)
    err = p.stderr.decode()
    assert p.returncode == 2 and "Traceback" not in err, err
    [line] = err.strip().splitlines()
    assert f"not UTF-8 text (byte 0xe9 at offset {data.index(0xe9)})" in line, line


def test_score_not_a_legal_win_exits_1() -> None:
    rec = json.loads(json.dumps(SAMPLE))
    rec["seats"][1]["hand"] = "456p678s3m"
    rec["winning_tile"] = "3m"
    p = cli("score", stdin=json.dumps(rec))
    assert p.returncode == 1
    out = json.loads(p.stdout)
    assert out["valid"] is False and "2/5/8" in out["reason"]


@pytest.mark.parametrize(("text", "needle"), [
    ("{not json", "bad JSON"),
    (json.dumps({**SAMPLE, "winning_tile": "0m"}), "not a tile"),
    (json.dumps({**SAMPLE, "profile": "osaka"}), "unknown profile"),
    (json.dumps({**SAMPLE, "options": {"capp": 3}}), "unknown option"),
    (json.dumps({**SAMPLE, "winner": 7}), "out of range"),
    (json.dumps({**SAMPLE, "winning_tile": "8p"}), "more than four copies"),
    (json.dumps({**SAMPLE, "seats": SAMPLE["seats"][:3]}), "four seats"),
    ("[]", "JSON object"),
])
def test_score_malformed_input_exits_2_with_one_line(text: str, needle: str) -> None:
    p = cli("score", stdin=text)
    assert p.returncode == 2
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in p.stderr


def test_score_wrong_hand_size() -> None:
    rec = json.loads(json.dumps(SAMPLE))
    rec["seats"][1]["hand"] = "456p678s"
    p = cli("score", stdin=json.dumps(rec))
    assert p.returncode == 2 and "wrong hand size" in p.stderr


def test_score_missing_file_exits_2() -> None:
    p = cli("score", "/nonexistent/record.json")
    assert p.returncode == 2 and "cannot read" in p.stderr


def test_rules_lists_every_option_with_an_explanation() -> None:
    p = cli("rules", "bianfeng")
    assert p.returncode == 0
    assert "opening_scoring" in p.stdout and "once" in p.stdout
    p = cli("rules", "--json")
    assert json.loads(p.stdout)["profile"] == "yuanhang"
    p = cli("rules", "tokyo")
    assert p.returncode == 2


def test_hand_reports_waits_shanten_and_values() -> None:
    p = cli("hand", "456p678s5m", "--indicator", "9p", "--meld", "chi:234m", "--meld", "peng:777s",
            "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["shanten"] == 0 and out["laizi"] == "1p"
    tiles = {w["tile"]: w for w in out["waits"]}
    assert set(tiles) == {"5m", "1p"}  # the pair, or draw the laizi
    assert tiles["5m"]["values"]["discard"] == "minimum score not reached: no loser owes 20 (highest 16)"
    p = cli("hand", "456p678s5m", "--indicator", "9p", "--meld", "chi:234m", "--meld", "peng:777s")
    assert "shanten 0" in p.stdout and "5m" in p.stdout


def test_hand_calls_fourteen_tiles_complete_only_in_a_winning_shape() -> None:
    """14 tiles are "complete" only in a winning shape (shanten -1): then the report says
    what they pay self-drawn, or why they may not win yet.  (Every 14-tile hand used to be
    reported complete, with the first reason the settlement gave: 'has not opened'.)"""
    def report(*args: str) -> dict[str, Any]:
        p = cli("hand", *args, "--indicator", "9p", "--json")
        assert p.returncode == 0, p.stderr
        out: dict[str, Any] = json.loads(p.stdout)
        return out

    far = report("123m456m789m11z22z3z")
    assert far["shanten"] == 2 and far["complete"] is None
    near = report("456p678s5m9m", "--meld", "chi:234m", "--meld", "peng:777s")
    assert near["shanten"] == 0 and near["complete"] is None
    closed = report("123m456m789m22m555s")  # a winning shape, but no chi, peng or 冲杠 yet
    assert closed["shanten"] == -1 and closed["complete"]["hands"] == ""
    assert "has not opened" in closed["complete"]["self_draw"]
    won = report("456p678s55m", "--meld", "chi:234m", "--meld", "peng:777s")
    assert won["shanten"] == -1
    # opened twice (x4), hard (x2), self-drawn (x2): 16 from each loser, 32 from the dealer
    assert won["complete"] == {"self_draw": 64, "hands": "small", "hard": 1}
    text = cli("hand", "123m456m789m11z22z3z", "--indicator", "9p").stdout
    assert "complete" not in text and "shanten 2" in text


def test_hand_says_hard_even_below_the_minimum_score() -> None:
    """Opened once in 远航, ready on 2s/5s with no laizi: either win is 硬胡 (the ×2 is in
    the amounts the minimum score refuses), and 3s/4s use the laizi 1s as a wild.  The
    report said ``"hard": false`` for every wait no amount could pass."""
    p = cli("hand", "456p678s55m13s", "--meld", "chi:123m", "--indicator", "9s", "--json")
    assert p.returncode == 0, p.stderr
    hard = {w["tile"]: w["hard"] for w in json.loads(p.stdout)["waits"]}
    assert hard == {"2s": True, "3s": False, "4s": False, "5s": False}
    assert all("minimum score not reached" in v for w in json.loads(p.stdout)["waits"]
               for v in w["values"].values())
    # where the minimum is passed the flag was right already, and stays so
    p = cli("hand", "456p678s55m13s", "--meld", "chi:123m", "--indicator", "9s", "--json",
            "--profile", "laizishanzhuang")
    assert {w["tile"]: w["hard"] for w in json.loads(p.stdout)["waits"]} == hard


def test_hand_names_the_move_that_takes_a_special_tile_out() -> None:
    """14 tiles with 红中: the report listed "7z" among the discards like any tile, but 红中
    never goes to the discards; it leaves as its kong (a replacement draw follows)."""
    p = cli("hand", "456p678s55m34s7z", "--meld", "chi:123m", "--indicator", "9s", "--json")
    assert p.returncode == 0, p.stderr
    moves = {d["tile"]: d["move"] for d in json.loads(p.stdout)["discards"]}
    assert moves["7z"] == "special_kong" and moves["3s"] == "discard"
    p = cli("hand", "456p678s55m34s1s", "--meld", "chi:123m", "--indicator", "9s", "--json")
    assert {d["tile"]: d["move"] for d in json.loads(p.stdout)["discards"]}["1s"] == "laizi"
    text = cli("hand", "456p678s55m34s7z", "--meld", "chi:123m", "--indicator", "9s").stdout
    assert "7z (红中杠, the only way it leaves): shanten 0" in text


@pytest.mark.parametrize("args", [
    ("hand", "12x", "--indicator", "1m"),
    ("hand", "123m", "--indicator", "1m"),
    ("hand", "456p678s5m", "--indicator", "1m", "--meld", "chi:235m"),
    ("score", "--bogus"),
    ("nonsense",),
    # huge numbers: refused at once (simulate used to run out of memory, arena to build a
    # task list of that size or start that many processes)
    ("simulate", "--hands", "99999999999999999999"),
    ("simulate", "--hands", "100001"),
    ("arena", "--hands", "99999999999999999999"),
    ("arena", "--hands", "4", "--jobs", "100000"),
])
def test_bad_arguments_exit_2_without_traceback(args: tuple[str, ...]) -> None:
    p = cli(*args)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_help_everywhere() -> None:
    for args in ((), ("score",), ("hand",), ("rules",)):
        p = cli(*args, "--help")
        assert p.returncode == 0 and "usage" in p.stdout


@pytest.mark.parametrize("args", [
    ("hand", "456p678s5m", "--indicator", "9p", "--meld", "peng:" + "5p" * 10_000),
    ("hand", "456p678s5m", "--indicator", "9p", "--meld", "x" * 20_000 + ":123m"),
    ("hand", "456p678s5m", "--indicator", "9" * 20_000 + "x"),
])
def test_a_huge_bad_input_is_quoted_short(args: tuple[str, ...]) -> None:
    """An error quotes the bad input, at most 40 characters of it (it used to echo all
    20,000)."""
    p = cli(*args)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    [line] = p.stderr.strip().splitlines()
    assert len(line) < 200 and "..." in line, line


DEEP = "[" * 100_000
#: a 136-tile wall in order, for ``simulate --wall``
WALL = "".join(f"{r}{r}{r}{r}{suit}" for suit in "mps" for r in range(1, 10)) + "".join(
    f"{r}{r}{r}{r}z" for r in range(1, 8))


@pytest.mark.parametrize(("args", "where"), [(("replay",), "file"), (("verify",), "file"),
                                             (("score",), "stdin"),
                                             (("bot", "--policy", "greedy", "--jsonl"), "stdin")])
def test_a_lone_surrogate_in_json_exits_2_with_one_line(tmp_path: Path, args: tuple[str, ...],
                                                        where: str) -> None:
    """``"\\ud800"`` (half a surrogate pair) parses as JSON but is no Unicode text: a
    record holding it made ``replay`` print it and die of UnicodeEncodeError.  Every JSON
    from outside is refused at the parser instead (``jsontext.LoneSurrogateError``)."""
    text = '{"e": "header", "schema": "wuhan-mahjong/hand", "seat": "\\ud800"}'
    argv = list(args)
    if where == "file":
        f = tmp_path / "record.jsonl"
        f.write_text(text + "\n")
        argv.append(str(f))
    p = cli(*argv, stdin=text + "\n" if where == "stdin" else "")
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    [line] = p.stderr.strip().splitlines()
    assert "lone surrogate" in line, line


@pytest.mark.parametrize(("args", "stdin", "file"), [
    (("score",), DEEP, None),                                 # a settlement record
    (("replay",), None, DEEP),                                # a hand record
    (("verify",), None, DEEP),
    (("bot", "--policy", "greedy"), DEEP, None),              # a seat view
    (("bot", "--policy", "greedy", "--jsonl"), DEEP, None),   # a seat view per line
    (("hand", "123m456m789m22m5s", "--indicator", "9p", "--option", "cap=" + DEEP), None,
     None),                                                   # an option's value
    (("simulate", "--wall", "@wall", "--script"), None, '{"seat": 0, "action": ' + DEEP),
    (("simulate", "--wall", "@wall", "--script"), None, "0 {\"type\": " + DEEP),  # an action
], ids=["score", "replay", "verify", "bot", "bot-jsonl", "option", "script-json", "script-action"])
def test_json_nested_too_deeply_exits_2_with_one_line(tmp_path: Path, args: tuple[str, ...],
                                                      stdin: str | None, file: str | None) -> None:
    """Every command that reads JSON from outside: text nested deeper than the parser can go
    (``json.loads`` recurses, and its RecursionError is no ValueError) is malformed input
    like any other, one line and exit status 2, never a traceback."""
    argv = list(args)
    if "@wall" in argv:
        wall = tmp_path / "wall.txt"
        wall.write_text(WALL)
        argv[argv.index("@wall")] = str(wall)
    if file is not None:
        f = tmp_path / "input.jsonl"
        f.write_text(file + "\n")
        argv.append(str(f))
    p = cli(*argv, stdin=stdin or "")
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


@pytest.mark.parametrize("seat", ["\u00b2", "1" * 5000, "\u0663"],
                         ids=["superscript-2", "5000-digits", "arabic-indic-3"])
@pytest.mark.parametrize("form", ["text", "json"])
def test_a_script_seat_of_odd_digits_exits_2_with_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], seat: str, form: str) -> None:
    """A script's seat is 0-3 in ASCII digits: "²" passes ``str.isdigit()`` but ``int()``
    refuses it, as it refuses more than 4,300 digits, with a bare ValueError (a traceback);
    "٣" (Arabic-Indic three) was read as seat 3."""
    from wuhan_mahjong.cli import main

    wall = tmp_path / "wall.txt"
    wall.write_text(WALL)
    script = tmp_path / "script.txt"
    script.write_text(f"{seat} discard 1m" if form == "text"
                      else json.dumps({"seat": seat, "action": {"type": "pass"}}))
    assert main(["simulate", "--wall", str(wall), "--script", str(script)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("wuhan-mahjong: error: script line 1: not a seat: "), line


@pytest.mark.parametrize("args", [["score"], ["replay", "-"], ["verify", "-"], ["bot"],
                                  ["bot", "--jsonl"], ["simulate", "--wall", "-", "--script", "-"],
                                  ["admin", "reset-password", "alice", "--password-stdin"]])
def test_a_closed_standard_input_exits_2_with_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    """Started with standard input closed (``<&-``), Python's ``sys.stdin`` is None: every
    command that reads it died of AttributeError or TypeError (a traceback)."""
    from wuhan_mahjong.cli import main

    monkeypatch.setattr(sys, "stdin", None)
    assert main(args) == 2
    assert capsys.readouterr().err == "wuhan-mahjong: error: cannot read standard input: it is closed\n"


@pytest.mark.parametrize(("args", "message"), [
    (["bot", "--policy", "greedy", "--jsonl"], "line 1: not JSON: a string holds a lone surrogate"),
    (["bot", "--policy", "greedy"], "cannot read standard input: not UTF-8 text (byte 0xff at "
     "offset 12)"),
    (["admin", "reset-password", "alice", "--password-stdin"],
     "cannot read standard input: not UTF-8 text (byte 0xff)"),
], ids=["bot-jsonl", "bot", "admin-password"])
def test_standard_input_of_bytes_that_are_no_utf8_exits_2_with_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str],
        message: str) -> None:
    """Under a locale whose standard input decodes strictly (``en_US.UTF-8``,
    ``PYTHONIOENCODING=utf-8``), a byte that is no UTF-8 was a UnicodeDecodeError
    traceback from ``bot`` and ``admin reset-password --password-stdin``; it is a malformed
    line (``--jsonl``) or input like any other."""
    import io

    from wuhan_mahjong.cli import main

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"viewer": "\xff"}\n'),
                                                       encoding="utf-8", errors="strict"))
    assert main(args) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line == f"wuhan-mahjong: error: {message}", line


@pytest.mark.parametrize(("args", "message"), [
    (["audit", "--log", "9" * 30], "--log: must be at most 9223372036854775807"),
    (["fairplay", "--min-wins", "9" * 30], "--min-wins: must be at most 9223372036854775807"),
    (["report-close", "9" * 30, "--note", "x"], "ID: must be at most 9223372036854775807"),
    (["fairplay", "--days", "1000000"], "--days: must be at most 36500"),
    (["tournament-cancel", str(2**40)], "ID: must be at most 2147483647"),
    (["club-dissolve", str(2**31)], "NUMBER: must be at most 2147483647"),
    (["audit", "--log", "9" * 5000], "--log: not a whole number: '999"),
], ids=["log", "min-wins", "report", "days", "tournament", "club", "5000-digits"])
def test_an_admin_number_beyond_the_database_is_refused_with_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    """A count or an id larger than its column holds was a driver's OverflowError (SQLite)
    or DataError (PostgreSQL INTEGER), and ``fairplay --days 1000000`` a date before the
    year 1: tracebacks.  The parser refuses them, before the database is opened."""
    from wuhan_mahjong.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["admin", "--db", f"sqlite:///{tmp_path / 'none.db'}", *args])
    assert stop.value.code == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"wuhan-mahjong: error: argument {message}"), line


def test_puzzle_prints_the_position_and_with_answer_the_choices() -> None:
    from wuhan_mahjong.bots.puzzles import make_puzzle, puzzle_json

    expected = [puzzle_json(make_puzzle("bianfeng", n), answer=True) for n in (4, 5)]
    r = cli("puzzle", "4", "5", "--profile", "bianfeng", "--json", "--answer")
    assert r.returncode == 0, r.stderr
    assert [json.loads(line) for line in r.stdout.splitlines()] == expected
    asked = cli("puzzle", "4", "--profile", "bianfeng", "--json")
    assert "answer" not in json.loads(asked.stdout)
    text = cli("puzzle", "4", "--profile", "bianfeng", "--answer").stdout
    assert f"hand     {expected[0]['hand']}" in text
    assert f"answer   {expected[0]['answer']}" in text
    assert len([line for line in text.splitlines() if line.startswith("  ")
                and line.split()[0] in expected[0]["discards"]]) == len(expected[0]["discards"])


@pytest.mark.parametrize("args", [["0"], ["1", "1000000000"], ["-5"], ["x"],
                                  ["1", "--profile", "nope"]])
def test_puzzle_refuses_what_is_no_puzzle(args: list[str]) -> None:
    r = cli("puzzle", *args)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("wuhan-mahjong: error:") and len(r.stderr.splitlines()) == 1


def test_puzzle_win_prints_records_that_score_answers() -> None:
    from wuhan_mahjong.bots.win_puzzles import make_win_question, win_question_json

    q = make_win_question("laizishanzhuang", 6)
    r = cli("puzzle", "6", "--win", "--profile", "laizishanzhuang")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == q.record
    scored = cli("score", "--compact", stdin=r.stdout)
    assert scored.returncode == (0 if q.win else 1)
    assert json.loads(scored.stdout) == q.answer
    answered = cli("puzzle", "6", "--win", "--answer", "--profile", "laizishanzhuang")
    assert json.loads(answered.stdout) == win_question_json(q, answer=True)
