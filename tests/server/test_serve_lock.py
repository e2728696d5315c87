"""One server alone per database (``store/serve_lock.py``): a second ``serve`` without
``--redis`` on the same database refuses to start, in one line, and takes no match away
from the first; once the first is gone (even by ``kill -9``) a server starts again."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_durable_crash import ServeProcess


@pytest.mark.slow
def test_a_second_server_on_the_same_database_refuses_to_start(db_url: str,
                                                                tmp_path: Path) -> None:
    first = ServeProcess(db_url, tmp_path / "first.log")
    second = ServeProcess(db_url, tmp_path / "second.log")
    third = ServeProcess(db_url, tmp_path / "third.log")
    try:
        first.start()
        with pytest.raises(RuntimeError, match="exited with 2"):
            second.start()
        lines = [ln for ln in (tmp_path / "second.log").read_text().splitlines()
                 if not ln.startswith("---")]
        assert len(lines) == 1, lines
        assert lines[0].startswith("wuhan-mahjong: error: another wuhan-mahjong server serves "
                                   "this database (") and "--redis" in lines[0], lines[0]
        assert first.proc is not None and first.proc.poll() is None  # untouched
        first.kill()
        third.start()  # the lock died with the process
    finally:
        for p in (first, second, third):
            p.close()


@pytest.mark.slow
def test_the_same_sqlite_file_by_another_path_is_the_same_database(tmp_path: Path) -> None:
    """A symbolic link to the database file, under another name: still one lock."""
    (tmp_path / "data").mkdir()
    real = tmp_path / "data" / "wuhan_mahjong.db"
    first = ServeProcess(f"sqlite:///{real}", tmp_path / "first.log")
    link = tmp_path / "elsewhere.db"
    second = ServeProcess(f"sqlite:///{link}", tmp_path / "second.log")
    try:
        first.start()
        link.symlink_to(real)
        with pytest.raises(RuntimeError, match="exited with 2"):
            second.start()
        assert "another wuhan-mahjong server" in (tmp_path / "second.log").read_text()
    finally:
        first.close()
        second.close()
