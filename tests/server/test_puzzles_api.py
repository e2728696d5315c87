"""Puzzles over HTTP (``server/puzzles_api.py``) through the real server: a discard puzzle's
position without its answer, the answer with every choice; a win question and the
calculator's answer; an account's first answer recorded and its record in the kind
returned, the puzzles of the day, anonymous askers, bad input and the allowance.  SQLite
and PostgreSQL."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from wuhan_mahjong.bots.puzzles import daily_number, make_puzzle, puzzle_json
from wuhan_mahjong.bots.win_puzzles import make_win_question, win_question_json
from wuhan_mahjong.calculator import score_record
from wuhan_mahjong.tiles import tile_str

from .harness import Server, StartServer, guest_token


def _call(server: Server, method: str, path: str, token: str | None = None,
          **kw: Any) -> httpx.Response:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    return httpx.request(method, f"{server.http}{path}", headers=headers, timeout=60, **kw)


def _question(profile: str, number: int) -> dict[str, Any]:
    return puzzle_json(make_puzzle(profile, number), answer=False)


def test_a_player_solves_puzzles(server: Server) -> None:
    token = guest_token(server)
    p = make_puzzle("yuanhang", 21)
    got = _call(server, "GET", "/api/puzzles/yuanhang/21", token)
    assert got.status_code == 200, got.text
    asked = got.json()
    assert asked.pop("attempt") is None and asked.pop("daily") is None
    assert asked == _question("yuanhang", 21)  # the position, not the answer
    wrong = p.choices[1].tile
    r = _call(server, "POST", "/api/puzzles/yuanhang/21/answer", token,
              json={"discard": tile_str(wrong)})
    assert r.status_code == 200, r.text
    full = puzzle_json(p, answer=True)
    out = r.json()
    assert out["correct"] is False and out["answer"] == full["answer"]
    assert out["choices"] == full["choices"]
    assert out["first"] == {"discard": tile_str(wrong), "correct": False}
    assert out["stats"] == {"attempted": 1, "solved": 0, "streak": 0, "best_streak": 0}
    # asked again, it shows his first answer; the right answer now is shown right, and the
    # first answer stands
    again = _call(server, "GET", "/api/puzzles/yuanhang/21", token).json()
    assert again["attempt"] == {"discard": tile_str(wrong), "correct": False}
    right = _call(server, "POST", "/api/puzzles/yuanhang/21/answer", token,
                  json={"discard": full["answer"]}).json()
    assert right["correct"] is True and right["first"]["correct"] is False
    assert right["stats"]["attempted"] == 1
    # another puzzle, solved: the record moves
    other = puzzle_json(make_puzzle("laizishanzhuang", 22), answer=True)
    solved = _call(server, "POST", "/api/puzzles/laizishanzhuang/22/answer", token,
                   json={"discard": other["answer"]}).json()
    assert solved["correct"] is True
    assert solved["stats"] == {"attempted": 2, "solved": 1, "streak": 1, "best_streak": 1}
    assert _call(server, "GET", "/api/puzzles/stats", token).json() == solved["stats"]
    # one account's record is not another's
    assert _call(server, "GET", "/api/puzzles/stats", guest_token(server)).json() == {
        "attempted": 0, "solved": 0, "streak": 0, "best_streak": 0}


def test_without_an_account(server: Server) -> None:
    asked = _call(server, "GET", "/api/puzzles/bianfeng/5").json()
    assert asked["attempt"] is None and asked["number"] == 5
    answer = puzzle_json(make_puzzle("bianfeng", 5), answer=True)["answer"]
    out = _call(server, "POST", "/api/puzzles/bianfeng/5/answer", json={"discard": answer}).json()
    assert out["correct"] is True and out["first"] is None and out["stats"] is None
    assert _call(server, "GET", "/api/puzzles/stats").status_code == 401


def test_the_puzzle_of_the_day(server: Server) -> None:
    zone = ZoneInfo(server.config.timezone)
    before = datetime.now(zone).date()
    got = _call(server, "GET", "/api/puzzles/daily?profile=bianfeng").json()
    after = datetime.now(zone).date()
    day = before if got["daily"] == before.isoformat() else after
    assert got["daily"] == day.isoformat()
    assert got["number"] == daily_number(day) and got["profile"] == "bianfeng"
    default = _call(server, "GET", "/api/puzzles/daily").json()
    assert default["profile"] == "yuanhang" and default["number"] == got["number"]


@pytest.mark.parametrize("path", [
    "/api/puzzles/nope/1", "/api/puzzles/yuanhang/0", "/api/puzzles/yuanhang/1000000000",
    "/api/puzzles/yuanhang/99999999999999999999999999", "/api/puzzles/yuanhang/-1",
    "/api/puzzles/yuanhang/1.5", "/api/puzzles/daily?profile=nope",
    "/api/puzzles/%E9%BA%BB%00/3"])
def test_no_such_puzzle(server: Server, path: str) -> None:
    r = _call(server, "GET", path)
    assert r.status_code == 404, r.text
    assert r.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(("body", "status"), [
    (b'{"discard": "9z"}', 400), (b'{"discard": ""}', 400), (b'{"discard": "\\uff13\\uff4d"}', 400),
    (b'{"discard": 3}', 400), (b"{", 400), (b"[]", 400), (b'{"discard": "1m", "x": 1}', 400),
    (b"{}", 400), (b'{"discard": "' + b"1m" * 5000 + b'"}', 413)])
def test_bad_answers(server: Server, body: bytes, status: int) -> None:
    token = guest_token(server)
    r = httpx.post(f"{server.http}/api/puzzles/yuanhang/3/answer", content=body, timeout=60,
                   headers={"Authorization": f"Bearer {token}",
                            "Content-Type": "application/json"})
    assert r.status_code == status, r.text
    # nothing was recorded
    assert _call(server, "GET", "/api/puzzles/stats", token).json()["attempted"] == 0


def test_the_allowance(start_server: StartServer) -> None:
    """``puzzle_burst`` requests, then 429 (an allowance that does not refill during the
    test: at its default of one a second, a slow machine's requests could keep up with it)."""
    server = start_server(puzzle_rate=0.001, puzzle_burst=5)
    token = guest_token(server)
    codes = [_call(server, "GET", "/api/puzzles/yuanhang/8", token).status_code
             for _ in range(6)]
    assert codes == [200] * 5 + [429]
    # another asker is not held up
    assert _call(server, "GET", "/api/puzzles/yuanhang/8", guest_token(server)).status_code == 200


def test_a_player_answers_win_questions(server: Server) -> None:
    token = guest_token(server)
    yes, no = (next(n for n in range(1, 60) if make_win_question("yuanhang", n).win is want)
               for want in (True, False))
    for number, truth in ((yes, True), (no, False)):
        q = make_win_question("yuanhang", number)
        got = _call(server, "GET", f"/api/puzzles/win/yuanhang/{number}", token)
        assert got.status_code == 200, got.text
        assert got.json() == {**win_question_json(q, answer=False), "kind": "win",
                              "daily": None, "attempt": None}
        # the answer is the calculator's, for the record as the question shows it
        r = _call(server, "POST", f"/api/puzzles/win/yuanhang/{number}/answer", token,
                  json={"win": not truth})
        assert r.status_code == 200, r.text
        out = r.json()
        assert out["correct"] is False and out["win"] is truth and out["answered"] is not truth
        assert out["result"] == score_record(json.dumps(q.record)).body
        assert out["first"] == {"win": not truth, "correct": False}
        again = _call(server, "GET", f"/api/puzzles/win/yuanhang/{number}", token).json()
        assert again["attempt"] == {"win": not truth, "correct": False}
    stats = _call(server, "GET", "/api/puzzles/stats?kind=win", token).json()
    assert stats == {"attempted": 2, "solved": 0, "streak": 0, "best_streak": 0}
    # the discard puzzles keep their own record, and the same number is another puzzle
    assert _call(server, "GET", "/api/puzzles/stats", token).json()["attempted"] == 0
    assert _call(server, "GET", f"/api/puzzles/yuanhang/{yes}", token).json()["attempt"] is None
    right = _call(server, "POST", f"/api/puzzles/win/yuanhang/{no + 1000}/answer", token,
                  json={"win": make_win_question("yuanhang", no + 1000).win}).json()
    assert right["correct"] is True
    assert right["stats"] == {"attempted": 3, "solved": 1, "streak": 1, "best_streak": 1}
    daily = _call(server, "GET", "/api/puzzles/win/daily?profile=laizishanzhuang").json()
    assert daily["kind"] == "win" and daily["profile"] == "laizishanzhuang" and daily["daily"]


@pytest.mark.parametrize(("path", "body", "status"), [
    ("/api/puzzles/win/yuanhang/3/answer", b'{"win": "yes"}', 400),
    ("/api/puzzles/win/yuanhang/3/answer", b'{"win": 1}', 400),
    ("/api/puzzles/win/yuanhang/3/answer", b"{}", 400),
    ("/api/puzzles/win/yuanhang/0/answer", b'{"win": true}', 404),
    ("/api/puzzles/win/nope/3/answer", b'{"win": true}', 404),
    ("/api/puzzles/stats?kind=riddle", None, 400)])
def test_bad_win_answers(server: Server, path: str, body: bytes | None, status: int) -> None:
    token = guest_token(server)
    method = "GET" if body is None else "POST"
    r = httpx.request(method, f"{server.http}{path}", content=body, timeout=60,
                      headers={"Authorization": f"Bearer {token}",
                               "Content-Type": "application/json"})
    assert r.status_code == status, r.text
    assert _call(server, "GET", "/api/puzzles/stats?kind=win", token).json()["attempted"] == 0


def test_the_history(server: Server) -> None:
    token = guest_token(server)
    for number in (31, 32):
        full = puzzle_json(make_puzzle("yuanhang", number), answer=True)
        tile = full["answer"] if number == 31 else full["choices"][1]["tile"]
        assert _call(server, "POST", f"/api/puzzles/yuanhang/{number}/answer", token,
                     json={"discard": tile}).status_code == 200
    got = _call(server, "GET", "/api/puzzles/history", token).json()
    assert [(a["number"], a["correct"], a["kind"]) for a in got["attempts"]] == [
        (32, False, "discard"), (31, True, "discard")]
    assert got["more"] is False
    assert all(datetime.fromisoformat(a["at"]).utcoffset() is not None for a in got["attempts"])
    wrong = _call(server, "GET", "/api/puzzles/history?wrong=1&limit=1", token).json()
    assert [a["number"] for a in wrong["attempts"]] == [32] and wrong["more"] is False
    first = _call(server, "GET", "/api/puzzles/history?limit=1", token).json()
    assert [a["number"] for a in first["attempts"]] == [32] and first["more"] is True
    assert _call(server, "GET", "/api/puzzles/history?kind=win", token).json() == {
        "attempts": [], "more": False}
    assert _call(server, "GET", "/api/puzzles/history").status_code == 401
    for query in ("kind=x", "wrong=2", "limit=0", "limit=101", "offset=-1", "offset=100001",
                  "limit=%EF%BC%91", "limit=1.5", "offset=" + "9" * 40, "offset=" + "9" * 5000):
        r = _call(server, "GET", f"/api/puzzles/history?{query}", token)
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request", query
