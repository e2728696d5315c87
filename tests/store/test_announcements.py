"""Announcements (系统公告, ``store/announcements.py``): one shown at a time, the newest; a new
one replaces the one before; it ends when taken down or when it expires; what a notice may
say; each change in the event log; ``admin announce`` on the command line."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy.orm import Session

from wuhan_mahjong.cli import main
from wuhan_mahjong.store import Store
from wuhan_mahjong.store.admin import Admin, AdminError, poll_server_state
from wuhan_mahjong.store.announcements import (
    ANNOUNCEMENT_MAX,
    AnnouncementError,
    announce,
    current,
)
from wuhan_mahjong.store.models import utcnow


def test_one_notice_at_a_time_until_taken_down_or_expired(store: Store) -> None:
    ops = Admin(store, "ops")
    assert ops.announcement() is None
    first = ops.announce("  今晚 23:00  停服维护十分钟！ ")
    assert first.text == "今晚 23:00 停服维护十分钟！" and first.expires_at is None
    assert poll_server_state(store, 0).announcement == first
    second = ops.announce("周末比赛\n20:00 开始", hours=2)  # one line: a banner
    assert second.text == "周末比赛 20:00 开始"
    assert ops.announcement() == second
    assert second.expires_at is not None
    assert timedelta(hours=2) == second.expires_at - second.created_at
    ended = ops.end_announcement()
    assert ended.id == second.id and ended.ended_at is not None
    assert ops.announcement() is None and poll_server_state(store, 0).announcement is None
    with pytest.raises(AdminError):
        ops.end_announcement()
    assert [(a.id, a.ended_at is not None) for a in ops.announcements()] == [
        (second.id, True), (first.id, True)]
    assert [(a.action, (a.detail or {}).get("id")) for a in reversed(ops.actions())] == [
        ("announce", first.id), ("announce", second.id), ("announce_end", second.id)]
    # an expired notice is shown no more, by itself
    with Session(store.engine) as session, session.begin():
        soon = announce(session, "一小时后过期", "ops", hours=1)
        assert current(session) == soon
        assert current(session, utcnow() + timedelta(hours=1, seconds=1)) is None


@pytest.mark.parametrize(("text", "hours"), [
    ("", None), ("   ", None), ("a\u200bb", None), ("x" * (ANNOUNCEMENT_MAX + 1), None),
    (42, None), ("ok", 0), ("ok", -1), ("ok", float("nan")), ("ok", float("inf")), ("ok", 24 * 31),
])
def test_what_a_notice_may_not_be(store: Store, text: object, hours: float | None) -> None:
    with Session(store.engine) as session, session.begin(), pytest.raises(AnnouncementError):
        announce(session, text, "ops", hours)
    assert Admin(store, "ops").announcement() is None


def test_admin_announce(store: Store, db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    def run(*words: str) -> tuple[int, str, str]:
        code = main(["admin", "--db", db_url, "--as", "tester", "announce", *words])
        out, err = capsys.readouterr()
        return code, out, err

    code, out, _ = run("今晚停服维护", "--hours", "1.5")
    assert code == 0 and out.startswith("notice 1 shown to every player until ")
    code, out, _ = run("--json")
    assert code == 0
    (doc,) = json.loads(out)
    assert (doc["text"], doc["actor"], doc["ended_at"]) == ("今晚停服维护", "tester", None)
    code, out, _ = run("--off")
    assert code == 0 and out.strip() == "notice 1 taken down: 今晚停服维护"
    code, out, _ = run()
    assert code == 0 and "#1 " in out and "taken down: 今晚停服维护" in out
    for words, expected in [(["--off"], "no notice is shown now"),
                            (["x", "--off"], "--off takes the notice down"),
                            (["--hours", "2"], "give the TEXT too"),
                            (["a\u0007b"], "1 to 200 visible characters")]:
        code, _, err = run(*words)
        assert code == 2 and "Traceback" not in err and expected in err.splitlines()[-1], words
    with pytest.raises(SystemExit) as stop:
        run("x", "--hours", "nan")
    assert stop.value.code == 2
