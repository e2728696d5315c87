"""JSON lines: a bot in any language can take a seat.

The protocol is one JSON object per line in each direction:

* the table writes a seat view (:func:`wuhan_mahjong.engine.views.seat_view`)
  on the bot's standard input;
* the bot answers with one action object on its standard output, e.g.
  ``{"type": "discard", "tile": "5m"}``, one of ``view["legal_actions"]``.

:func:`serve` is the bot side (``wuhan-mahjong bot --policy greedy --jsonl``);
:class:`SubprocessBot` the table side (an arena seat ``cmd:python3 mybot.py``).
"""

from __future__ import annotations

import contextlib
import json
import queue
import shlex
import subprocess
import threading
from collections.abc import Iterator
from typing import IO, Any

from .. import jsontext
from ..engine.actions import Action, ActionFormatError, action_from_json
from ..engine.views import SeatView
from ..tiles import echo
from .base import Bot


class BotProtocolError(RuntimeError):
    """The other side broke the JSON-lines protocol (bad JSON, no answer, exit)."""


BOM = "\ufeff"

MAX_LINE = 1_000_000
"""The most characters one line may hold, in either direction.  A seat view is a few
thousand characters and an action a few dozen; a line past this is not the protocol, and
reading on would hold it all in memory (a ``cat /dev/zero`` bot exhausted the machine)."""


def _lines(inp: IO[str]) -> Iterator[tuple[int, str]]:
    """``(number, line)`` for every line of ``inp``; a line longer than :data:`MAX_LINE`
    or input that is not UTF-8 text raises :class:`BotProtocolError`."""
    no = 0
    while True:
        try:
            line = inp.readline(MAX_LINE + 1)
        except UnicodeDecodeError as e:
            raise BotProtocolError(f"line {no + 1}: not UTF-8 text (byte "
                                   f"{e.object[e.start]:#04x})") from None
        if not line:
            return
        no += 1
        if len(line) > MAX_LINE and not line.endswith("\n"):
            raise BotProtocolError(f"line {no}: longer than {MAX_LINE:,} characters")
        yield no, line


def serve(bot: Bot, inp: IO[str], out: IO[str]) -> int:
    """Answer every view line on ``inp`` with an action line on ``out``; returns the number
    of decisions.  Blank lines are ignored; a line that is not a seat view (or longer than
    :data:`MAX_LINE`) raises :class:`BotProtocolError` (the command prints it as one line
    and exits 2)."""
    n = 0
    for no, raw in _lines(inp):
        # a byte-order mark opening the stream (Windows PowerShell pipes one) is dropped,
        # as `wuhan-mahjong bot` drops it from a single view (it was "not JSON")
        line = (raw.removeprefix(BOM) if no == 1 else raw).strip()
        if not line:
            continue
        try:
            view = jsontext.loads(line)
        except json.JSONDecodeError as e:
            raise BotProtocolError(f"line {no}: not JSON: {e.msg}") from None
        if not isinstance(view, dict) or "legal_actions" not in view or "viewer" not in view:
            raise BotProtocolError(f"line {no}: not a seat view (needs 'viewer' and 'legal_actions')")
        try:
            action = bot.choose(view)  # type: ignore[arg-type]
        except (KeyError, TypeError, ValueError) as e:
            raise BotProtocolError(f"line {no}: cannot decide: {echo(str(e), 200)}") from None
        out.write(json.dumps(action.to_json()) + "\n")
        out.flush()
        n += 1
    return n


ANSWER_SECONDS = 60.0
"""Wall-clock seconds an external bot may take to answer one view (``arena --bot-timeout``).

A safety net, not a budget: it only ends a run whose bot hangs (a deadlock, a read of more
input than was sent), which used to stall the arena for good without a word.  Decisions
themselves are never cut short by it, so results do not depend on the machine's speed."""


QUEUED_LINES = 64
"""Lines of a bot's output read ahead of the table (the reader waits past that)."""


class _TooLong:
    """The reader's word that the bot wrote a line longer than :data:`MAX_LINE`."""


class SubprocessBot:
    """A bot played by an external command speaking JSON lines (one process, reused)."""

    def __init__(self, command: str, name: str | None = None,
                 answer_seconds: float | None = ANSWER_SECONDS) -> None:
        try:
            argv = shlex.split(command)
        except ValueError as e:  # shlex says only "No closing quotation"
            raise ValueError(f"cannot read bot command '{command}': {e}") from None
        if not argv:
            raise ValueError("empty bot command")
        self.command = command
        self.name = name or f"cmd:{command}"
        if answer_seconds is not None and not (isinstance(answer_seconds, int | float)
                                               and answer_seconds > 0):  # (NaN is not)
            raise ValueError(f"answer_seconds must be a number of seconds > 0 or None, got "
                             f"{answer_seconds!r}")
        self.answer_seconds = answer_seconds
        """``None``: wait for an answer for ever."""
        self._wait: float | None = (answer_seconds if answer_seconds is not None
                                    and answer_seconds <= threading.TIMEOUT_MAX else None)
        """What a wait is given: past ``threading.TIMEOUT_MAX`` (``--bot-timeout 1e300``,
        infinity) a wait raised OverflowError; it is for ever all the same."""
        try:
            self.proc: subprocess.Popen[str] = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, encoding="utf-8",
                bufsize=1)
        except OSError as e:
            raise ValueError(f"cannot start bot command '{command}': {e.strerror}") from None
        self.hung = False
        """It gave no answer in time, or more output than the protocol allows: :meth:`close`
        kills it without waiting."""
        self._closing = False
        self._failure: str | None = None
        """Why the bot's output is broken for good (every later answer fails the same way)."""
        self._answers: queue.Queue[str | UnicodeDecodeError | _TooLong | None] = \
            queue.Queue(maxsize=QUEUED_LINES)
        """The bot's output lines, read by a thread of their own (so a wait can time out);
        a decoding error or a line too long; ``None`` at the end of its output.  Bounded:
        a bot that writes without end waits for the table instead of filling the memory."""
        threading.Thread(target=self._read, name=f"bot output {command}", daemon=True).start()

    def _put(self, item: str | UnicodeDecodeError | _TooLong | None) -> bool:
        """Queue ``item`` once there is room; False (dropped) once :meth:`close` began."""
        while not self._closing:
            try:
                self._answers.put(item, timeout=0.1)
            except queue.Full:
                continue
            return True
        return False

    def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        first = True
        try:
            while True:
                line = stdout.readline(MAX_LINE + 1)
                if not line:
                    break
                if first:  # a .NET bot writing UTF-8 opens with a byte-order mark
                    line, first = line.removeprefix(BOM), False
                if len(line) > MAX_LINE and not line.endswith("\n"):
                    self._put(_TooLong())  # and read no more: the rest is no protocol either
                    return
                if not self._put(line):
                    return
        except UnicodeDecodeError as e:
            self._put(e)
        except (OSError, ValueError):  # closed under the reader (close())
            pass
        self._put(None)

    def choose(self, view: SeatView) -> Action:
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None
        if self._failure is not None:
            raise BotProtocolError(self._failure)
        try:
            proc.stdin.write(json.dumps(view, ensure_ascii=False) + "\n")
            proc.stdin.flush()
        except BrokenPipeError:
            raise BotProtocolError(f"bot '{self.command}' {self._ended()}") from None
        try:
            line = self._answers.get(timeout=self._wait)
        except queue.Empty:
            self.hung = True
            raise BotProtocolError(f"bot '{self.command}' gave no answer in "
                                   f"{self.answer_seconds:g} s") from None
        if isinstance(line, UnicodeDecodeError):
            self._failure = (f"bot '{self.command}' answered bytes that are not UTF-8 "
                             f"(byte {line.object[line.start]:#04x})")
            raise BotProtocolError(self._failure)
        if isinstance(line, _TooLong):
            self.hung = True  # it may still be writing: nobody reads it any more
            self._failure = (f"bot '{self.command}' answered a line longer than "
                             f"{MAX_LINE:,} characters")
            raise BotProtocolError(self._failure)
        if line is None:
            self._failure = f"bot '{self.command}' closed its output and {self._ended()}"
            raise BotProtocolError(self._failure)
        try:
            obj: Any = jsontext.loads(line)
            return action_from_json(obj)
        except (json.JSONDecodeError, ActionFormatError) as e:
            raise BotProtocolError(f"bot '{self.command}' answered {echo(line.strip(), 80)!r}: {e}") from None

    def _ended(self) -> str:
        """How the bot's process ended, for an error: its exit status once it has exited (a
        process that has just closed its output is given a moment to do so)."""
        try:
            status = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "is still running"
        if status < 0:
            return f"was killed by signal {-status}"
        return f"exited with status {status}"

    def close(self) -> None:
        proc = self.proc
        self._closing = True  # the reader drops what it still reads, instead of waiting
        if proc.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
        try:
            proc.wait(timeout=0 if self.hung else 5)
        except subprocess.TimeoutExpired:  # a stuck bot
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
