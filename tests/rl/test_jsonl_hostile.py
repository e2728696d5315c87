"""The JSON-lines bot protocol against hostile input, both ways: ``serve`` (a bot reading
views) and ``SubprocessBot`` (the table driving an external bot program).  Bad input is a
one-line :class:`BotProtocolError` (exit 2 from the commands), never a traceback, and never
unbounded memory."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wuhan_mahjong.bots import get_bot
from wuhan_mahjong.bots.jsonl import MAX_LINE, BotProtocolError, SubprocessBot, serve
from wuhan_mahjong.engine.state import new_hand
from wuhan_mahjong.engine.views import seat_view
from wuhan_mahjong.rules import get_rules


def a_view() -> dict[str, Any]:
    state = new_hand(get_rules(), 0, rng=random.Random(4))
    return dict(seat_view(state, 0))


class EndlessLine(io.TextIOBase):
    """Standard input that never ends its first line (``cat /dev/zero``): only a read with
    a limit ever returns."""

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:
        if size is None or size < 0:
            raise AssertionError("an unbounded read of a line that never ends")
        return "x" * size

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("an unbounded read of a line that never ends")


def test_serve_refuses_a_line_longer_than_the_limit_without_reading_it_all() -> None:
    """``serve`` read whole lines: an input line without end (``< /dev/zero``) held ever
    more memory until the process died of a MemoryError traceback."""
    with pytest.raises(BotProtocolError, match=f"line 1: longer than {MAX_LINE:,} characters"):
        serve(get_bot("greedy", 0), EndlessLine(), io.StringIO())
    # a long line that does end is refused the same way; one at the limit is read
    with pytest.raises(BotProtocolError, match="line 2: longer than"):
        serve(get_bot("greedy", 0), io.StringIO("\n" + " " * (MAX_LINE + 1) + "\n"), io.StringIO())
    assert serve(get_bot("greedy", 0), io.StringIO(" " * (MAX_LINE - 1) + "\n"), io.StringIO()) == 0


def test_serve_says_which_line_is_not_utf8_on_a_strict_stream() -> None:
    """On a stream that decodes strictly (``python -m wuhan_mahjong.rl.policy`` under a
    UTF-8 locale) a byte that is no UTF-8 was a UnicodeDecodeError traceback."""
    view = json.dumps(a_view()).encode()
    inp = io.TextIOWrapper(io.BytesIO(b"\xff\xfe\n" + view + b"\n"), encoding="utf-8",
                           errors="strict")
    with pytest.raises(BotProtocolError, match=r"line 1: not UTF-8 text \(byte 0xff\)"):
        serve(get_bot("greedy", 0), inp, io.StringIO())


@pytest.mark.parametrize(("line", "message"), [
    ("\x00", "line 1: not JSON"),
    ('{"viewer": 0, "legal_actions": [], "x": "\x00"}', "not JSON: Invalid control character"),
    ('{"viewer": 0, "legal_actions": [], "hand": "1m\\u0000"}', "cannot decide"),
    ("[1, 2]", "not a seat view"),
    ("null", "not a seat view"),
    ('"view"', "not a seat view"),
    ("9" * 5000, "not JSON: a number of too many digits"),
    ("[" * 100_000, "not JSON: nested too deeply"),
    ('{"viewer": 0, "legal_actions": [{"type": "pass"}], "wall": 1e999}', "cannot decide"),
])
def test_serve_answers_garbage_with_one_line(line: str, message: str) -> None:
    with pytest.raises(BotProtocolError, match=message) as e:
        serve(get_bot("greedy", 0), io.StringIO(line + "\n"), io.StringIO())
    assert "\n" not in str(e.value)


def test_a_huge_number_in_a_view_is_quoted_short() -> None:
    """A 4,000-digit number in a view made a 4,000-character error line."""
    view = a_view()
    view["wall"] = 10 ** 4000
    with pytest.raises(BotProtocolError, match="cannot decide") as e:
        serve(get_bot("greedy", 0), io.StringIO(json.dumps(view) + "\n"), io.StringIO())
    assert len(str(e.value)) < 300


def _bot(tmp_path: Path, script: str) -> SubprocessBot:
    path = tmp_path / "bot.py"
    path.write_text(script)
    # a generous safety net only: every answer here comes (or fails) at once
    return SubprocessBot(f"{sys.executable} {path}", answer_seconds=120)


def test_an_external_bot_that_writes_a_line_without_end_is_stopped(tmp_path: Path) -> None:
    """The table read the bot's whole line: ``cmd:cat /dev/zero`` held ever more memory
    (a MemoryError in the reader thread, and then the machine's memory).  Past
    :data:`MAX_LINE` characters the answer is refused and the rest is never read."""
    bot = _bot(tmp_path, "import sys\nsys.stdin.readline()\n"
                         f"sys.stdout.write('x' * {MAX_LINE + 10} + '\\n')\nsys.stdout.flush()\n"
                         "sys.stdin.readline()\n")
    try:
        for _ in range(2):  # and so is every later answer: the stream is no protocol
            with pytest.raises(BotProtocolError, match=f"answered a line longer than "
                                                       f"{MAX_LINE:,} characters"):
                bot.choose(a_view())  # type: ignore[arg-type]
    finally:
        bot.close()


def test_an_external_bot_that_writes_without_end_fills_no_memory(tmp_path: Path) -> None:
    """A bot that writes answers without reading (a loop around its print): the table
    read them all ahead into memory; it now reads a bounded number ahead."""
    from wuhan_mahjong.bots.jsonl import QUEUED_LINES

    bot = _bot(tmp_path, "import sys\n"
                         "for _ in range(100_000):\n"
                         "    sys.stdout.write('{\"type\": \"pass\"}\\n')\n"
                         "sys.stdout.flush()\nsys.stdin.read()\n")
    try:
        assert str(bot.choose(a_view())) == "pass"  # type: ignore[arg-type]
        assert bot._answers.maxsize == QUEUED_LINES
        assert bot._answers.qsize() <= QUEUED_LINES
    finally:
        bot.close()
    assert bot.proc.returncode is not None


def test_an_unreadable_bot_command_is_named() -> None:
    """shlex's own message was all the error said: 'No closing quotation'."""
    with pytest.raises(ValueError, match="cannot read bot command ''unterminated': No closing "
                                         "quotation"):
        SubprocessBot("'unterminated")


def test_the_policy_bot_reads_bytes_that_are_no_utf8_as_a_bad_line(tmp_path: Path) -> None:
    """``python -m wuhan_mahjong.rl.policy`` under a strict UTF-8 locale ended in a
    UnicodeDecodeError traceback (``wuhan-mahjong bot --jsonl`` did not)."""
    from wuhan_mahjong.rl.policy import MLP, NUM_ACTIONS, OBS_SIZE

    weights = tmp_path / "w.npz"
    MLP.create([OBS_SIZE, 4, NUM_ACTIONS]).save(str(weights))
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    r = subprocess.run([sys.executable, "-m", "wuhan_mahjong.rl.policy", "--weights", str(weights)],
                       input=b"\xff\xfe{}\n", capture_output=True, env=env, timeout=120)
    err = r.stderr.decode().strip().splitlines()
    assert r.returncode == 2 and len(err) == 1, err
    assert err[0].startswith("wuhan_mahjong.rl.policy: error: line 1: not JSON")


GREEDY = f"{sys.executable} -m wuhan_mahjong bot --policy greedy --jsonl"


def test_a_bot_timeout_past_what_a_wait_can_take_is_no_limit() -> None:
    """``arena --bot-timeout 1e300`` passed the check (a finite number of seconds) and then
    every answer's wait raised OverflowError: a traceback."""
    for seconds in (1e300, float("inf")):
        bot = SubprocessBot(GREEDY, answer_seconds=seconds)
        try:
            view = a_view()
            assert bot.choose(view) == get_bot("greedy", 0).choose(view)  # type: ignore[arg-type]
        finally:
            bot.close()
    for bad in (0, -1.0, float("nan"), "5"):
        with pytest.raises(ValueError, match="answer_seconds must be a number of seconds > 0"):
            SubprocessBot(GREEDY, answer_seconds=bad)  # type: ignore[arg-type]


def test_the_arena_takes_a_huge_bot_timeout() -> None:
    r = subprocess.run([sys.executable, "-m", "wuhan_mahjong", "arena", "--seats",
                        f"cmd:{GREEDY},random,random,random", "--hands", "4", "--bot-timeout",
                        "1e300"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr


def test_a_byte_order_mark_opening_the_stream_is_dropped(tmp_path: Path) -> None:
    """Windows PowerShell pipes a byte-order mark ahead of the first view, and a .NET bot
    writing UTF-8 opens its output with one: both were refused ("not JSON: Unexpected
    UTF-8 BOM"), where the single-view ``wuhan-mahjong bot`` drops it."""
    view = json.dumps(a_view())
    out = io.StringIO()
    assert serve(get_bot("greedy", 0), io.StringIO("\ufeff" + view + "\n" + view + "\n"), out) == 2
    # only where the stream opens: a mark inside it is still no JSON
    with pytest.raises(BotProtocolError, match="line 2: not JSON"):
        serve(get_bot("greedy", 0), io.StringIO(view + "\n\ufeff" + view + "\n"), io.StringIO())
    bot = _bot(tmp_path, "import json, sys\n"
                         "for n, line in enumerate(sys.stdin):\n"
                         "    a = json.loads(line)['legal_actions'][0]\n"
                         "    sys.stdout.write(('\\ufeff' if n == 0 else '') + json.dumps(a) + '\\n')\n"
                         "    sys.stdout.flush()\n")
    try:
        first = bot.choose(a_view())  # type: ignore[arg-type]
        assert bot.choose(a_view()) == first  # type: ignore[arg-type]
    finally:
        bot.close()


def test_the_policy_bot_ends_quietly_when_the_table_stops_reading(tmp_path: Path) -> None:
    """The table went away (closed the bot's output): ``python -m wuhan_mahjong.rl.policy``
    ended in a BrokenPipeError traceback (``wuhan-mahjong bot --jsonl`` exits 0)."""
    from wuhan_mahjong.rl.policy import MLP, NUM_ACTIONS, OBS_SIZE

    weights = tmp_path / "w.npz"
    MLP.create([OBS_SIZE, 4, NUM_ACTIONS]).save(str(weights))
    views = tmp_path / "views.jsonl"
    views.write_text((json.dumps(a_view()) + "\n") * 5000)
    with views.open("rb") as inp:
        proc = subprocess.Popen([sys.executable, "-m", "wuhan_mahjong.rl.policy", "--weights",
                                 str(weights)], stdin=inp, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline().startswith(b"{")
        proc.stdout.close()  # the table is gone: every later answer meets a broken pipe
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=300) == 0 and "Traceback" not in err, err


def test_the_policy_bot_started_without_standard_input_says_so(tmp_path: Path) -> None:
    """``python -m wuhan_mahjong.rl.policy ... <&-`` was an AttributeError traceback on
    ``None.readline`` (``wuhan-mahjong bot --jsonl`` says the input is closed)."""
    import shlex

    from wuhan_mahjong.rl.policy import MLP, NUM_ACTIONS, OBS_SIZE

    weights = tmp_path / "w.npz"
    MLP.create([OBS_SIZE, 4, NUM_ACTIONS]).save(str(weights))
    command = shlex.join([sys.executable, "-m", "wuhan_mahjong.rl.policy", "--weights", str(weights)])
    r = subprocess.run(["sh", "-c", f"exec {command} <&-"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        "wuhan_mahjong.rl.policy: error: cannot read standard input: it is closed"], r.stderr
