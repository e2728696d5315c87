"""The HTTP calculator (``POST /api/score``, ``POST /api/hand``) against the CLI.

Every record and query is sent to a real server over HTTP and given to the real
``wuhan-mahjong`` command (its ``main``, in this process); the answers must be
the same JSON, with exit 0 / 1 / 2 mapped to 200 / 422 / 400.  The records are
the documented ones (README, docs/score.md), the worked examples of
tests/test_examples.py in every profile, hands played out by the engine, and
mutations of those that make them illegal wins or malformed.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import io
import json
import random
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from wuhan_mahjong.cli import main as cli_main
from wuhan_mahjong.engine.match import play_hand, simple_policy
from wuhan_mahjong.engine.state import new_hand
from wuhan_mahjong.rules import PROFILES, get_rules
from wuhan_mahjong.server.calculator import MAX_BODY, AddressLimiter
from wuhan_mahjong.store import open_store
from wuhan_mahjong.tiles import tile_str
from wuhan_mahjong.win_record import dump_win_record

from .harness import FAST, FAST_HASHER, Server

ROOT = Path(__file__).resolve().parents[2]
STATUS_OF_EXIT = {0: 200, 1: 422, 2: 400}
CLI_ERROR = "wuhan-mahjong: error: "


# --------------------------------------------------------------------------- the two sides
def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main(argv)
        except SystemExit as e:  # argparse's own errors
            code = int(e.code or 0)
    return code, out.getvalue(), err.getvalue()


def cli_score(text: str, tmp: Path) -> tuple[int, Any]:
    """(exit status, the printed JSON, or the one-line error without its prefix)."""
    path = tmp / "record.json"
    path.write_text(text, encoding="utf-8")
    code, out, err = run_cli(["score", str(path)])
    if code == 2:
        lines = err.strip().splitlines()
        assert out == "" and len(lines) == 1 and lines[0].startswith(CLI_ERROR), err
        return code, lines[0][len(CLI_ERROR):]
    return code, json.loads(out)


def cli_hand(query: dict[str, Any]) -> tuple[int, Any]:
    argv = ["hand", query["hand"], "--indicator", query["indicator"], "--json",
            "--profile", query.get("profile", "yuanhang")]
    for m in query.get("melds", []):
        argv += ["--meld", m]
    if query.get("dealer"):
        argv.append("--dealer")
    for name, value in (query.get("options") or {}).items():
        argv += ["--option", f"{name}={json.dumps(value)}"]
    code, out, err = run_cli(argv)
    if code == 2:
        lines = err.strip().splitlines()
        return code, lines[-1][len(CLI_ERROR):]
    return code, json.loads(out)


def api_answer(r: httpx.Response) -> Any:
    body = r.json()
    if r.status_code == 400:
        assert set(body) == {"error"} and body["error"]["code"] == "invalid_request"
        return body["error"]["message"]
    return body


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("calc") / "server.db"
    store = open_store(f"sqlite:///{db}", password_hasher=FAST_HASHER)
    srv = Server(replace(FAST, calc_rate=1e6, calc_burst=1_000_000), store)
    try:
        yield srv
    finally:
        srv.stop()
        store.close()


# --------------------------------------------------------------------------- the records
def played_records(hands_per_profile: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for profile in PROFILES:
        rng = random.Random(f"calculator-{profile}")
        while sum(r["profile"] == profile for r in out) < hands_per_profile:
            state = play_hand(new_hand(get_rules(profile), rng.randrange(4), rng=rng),
                              simple_policy)
            if state.result is not None and state.result.settlement is not None:
                out.append(dump_win_record(state.result.settlement.record))
    return out


def documented_records() -> list[dict[str, Any]]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    score_doc = (ROOT / "docs" / "score.md").read_text(encoding="utf-8")
    texts = [re.search(r"echo '(\{.*?\})' \| wuhan-mahjong score", readme, re.S),
             re.search(r"## Record\s+```json\n(.*?)```", score_doc, re.S)]
    records = [json.loads(m.group(1)) for m in texts if m]
    assert len(records) == 2
    spec = importlib.util.spec_from_file_location("worked_examples", ROOT / "tests" / "test_examples.py")
    assert spec and spec.loader
    examples = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(examples)
    for name in sorted(dir(examples)):
        value = getattr(examples, name)
        if re.fullmatch(r"EXAMPLE_\d+\w*", name) and isinstance(value, dict):
            for profile in PROFILES:
                for mode in ("once", "per_opening"):
                    records.append({**copy.deepcopy(value), "profile": profile,
                                    "options": {"opening_scoring": mode}})
    return records


def mutations(rec: dict[str, Any], rng: random.Random) -> list[str]:
    """Texts made from ``rec``: other winning tiles (often not a win, or a fifth copy),
    another profile, a missing tile, a broken field, broken JSON."""
    out = []
    for tile in rng.sample(range(34), 3):
        out.append(json.dumps({**rec, "winning_tile": tile_str(tile)}))
    out.append(json.dumps({**rec, "profile": rng.choice([p for p in PROFILES
                                                         if p != rec.get("profile")])}))
    short = copy.deepcopy(rec)
    short["seats"][short["winner"]]["hand"] = short["seats"][short["winner"]]["hand"][2:]
    out.append(json.dumps(short))
    out.append(json.dumps({**rec, "indicator": rec["winning_tile"]}))
    out.append(json.dumps({**rec, "win_by": "tsumo"}))
    out.append(json.dumps(rec)[:-7])
    return out


def all_score_texts() -> list[str]:
    rng = random.Random(13)
    base = documented_records() + played_records(8)
    texts = [json.dumps(r, ensure_ascii=False) for r in base]
    for rec in base[:: max(1, len(base) // 24)]:
        texts += mutations(rec, rng)
    texts += ["", "[]", "{not json", json.dumps({"dealer": 0}), "\ufeff{}", "[" * 15_000]
    return texts


# --------------------------------------------------------------------------- the tests
@pytest.mark.slow
def test_score_api_answers_exactly_what_the_cli_prints(server: Server, tmp_path: Path) -> None:
    texts = all_score_texts()
    seen = {200: 0, 422: 0, 400: 0}
    with httpx.Client(base_url=server.http, timeout=60) as http:
        for text in texts:
            code, cli_out = cli_score(text, tmp_path)
            r = http.post("/api/score", content=text.encode("utf-8"),
                          headers={"content-type": "application/json"})
            assert r.status_code == STATUS_OF_EXIT[code], (text, r.text, cli_out)
            assert api_answer(r) == cli_out, text
            seen[r.status_code] += 1
    # the corpus reaches every outcome, and in numbers
    assert len(texts) >= 150 and min(seen.values()) >= 15, seen


def test_score_refuses_the_five_copies_record(server: Server) -> None:
    """Indicator 9p beside a 9999p kong: five 9p, so 400 like the CLI's exit 2."""
    rec = documented_records()[0]
    rec["seats"][2]["melds"][0]["tiles"] = "9999p"
    r = httpx.post(f"{server.http}/api/score", json=rec)
    assert r.status_code == 400
    assert "more than four copies of 9p" in r.json()["error"]["message"]


def test_score_422_names_the_rule(server: Server) -> None:
    rec = documented_records()[0]
    rec["seats"][1]["hand"] = "456p678s3m"
    rec["winning_tile"] = "3m"
    r = httpx.post(f"{server.http}/api/score", json=rec)
    assert r.status_code == 422
    assert r.json()["valid"] is False and "2/5/8" in r.json()["reason"]


def hand_queries() -> list[dict[str, Any]]:
    queries: list[dict[str, Any]] = [
        {"hand": "456p678s5m", "indicator": "9p", "melds": ["chi:234m", "peng:777s"]},
        {"hand": "456p678s5m", "indicator": "9p", "melds": ["chi:234m", "peng:777s"],
         "dealer": True, "profile": "bianfeng", "options": {"opening_scoring": "per_opening"}},
        {"hand": "456p678s55m", "indicator": "9p", "melds": ["chi:234m", "peng:777s"]},
        {"hand": "123456789m1122z", "indicator": "3z"},
        # malformed: size, tile, meld, profile, option, the 1p indicator... as the CLI says
        {"hand": "456p678s", "indicator": "9p", "melds": ["chi:234m", "peng:777s"]},
        {"hand": "456p678s0m", "indicator": "9p", "melds": ["chi:234m", "peng:777s"]},
        {"hand": "456p678s5m", "indicator": "9p", "melds": ["chi:235m", "peng:777s"]},
        {"hand": "456p678s5m", "indicator": "9p", "melds": ["chi:234m"],
         "options": {"cap": -1}},
        {"hand": "456p678s5m", "indicator": "9x", "melds": ["chi:234m", "peng:777s"]},
        {"hand": "456p678s5m", "indicator": "9p", "melds": ["chi:234m", "kong:9999p"]},
    ]
    for rec in played_records(3):
        w = rec["seats"][rec["winner"]]
        melds = []
        for m in w["melds"]:
            kind = {"direct": "kong", "added": "addkong", "concealed": "ankong"}.get(
                m.get("kind", ""), m["type"])
            melds.append(f"{kind}:{m['tiles']}")
        q = {"hand": w["hand"], "indicator": rec["indicator"], "melds": melds,
             "dealer": rec["dealer"] == rec["winner"], "profile": rec["profile"]}
        queries.append(q)
        queries.append({**q, "hand": w["hand"] + rec["winning_tile"]})
    return queries


def test_hand_api_answers_exactly_what_the_cli_prints(server: Server) -> None:
    queries = hand_queries()
    seen = {200: 0, 400: 0}
    with httpx.Client(base_url=server.http, timeout=120) as http:
        for q in queries:
            code, cli_out = cli_hand(q)
            r = http.post("/api/hand", json=q)
            assert r.status_code == STATUS_OF_EXIT[code], (q, r.text, cli_out)
            assert api_answer(r) == cli_out, q
            seen[r.status_code] += 1
    assert seen[200] >= 10 and seen[400] >= 5, seen
    ready = httpx.post(f"{server.http}/api/hand", json=queries[0]).json()
    assert ready["shanten"] == 0 and ready["laizi"] == "1p"
    assert {w["tile"] for w in ready["waits"]} >= {"5m"}
    assert all("self_draw" in w["values"] for w in ready["waits"])


@pytest.mark.parametrize(("body", "message"), [
    (b"[]", "JSON object"),
    (b"{not json", "bad JSON"),
    (json.dumps({"hand": "1m", "indicator": "9p", "turn": 3}).encode(), "unknown field 'turn'"),
    (json.dumps({"indicator": "9p"}).encode(), "missing field 'hand'"),
    (json.dumps({"hand": "1m", "indicator": "9p", "melds": "chi:234m"}).encode(), "melds"),
    (json.dumps({"hand": "1m", "indicator": "9p", "dealer": "yes"}).encode(), "dealer"),
    (b"\xff\xfe", "UTF-8"),
    (b"[" * 15_000, "nested too deeply"),
])
def test_hand_api_malformed_queries(server: Server, body: bytes, message: str) -> None:
    r = httpx.post(f"{server.http}/api/hand", content=body)
    assert r.status_code == 400 and message in r.json()["error"]["message"]


def test_body_size_limit(server: Server) -> None:
    big = b"{" + b" " * MAX_BODY + b"}"
    for path in ("/api/score", "/api/hand"):
        r = httpx.post(f"{server.http}{path}", content=big)
        assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"


def test_rate_limited_per_address(tmp_path: Path) -> None:
    """Past the burst (and with a refill too slow to matter) the answer is 429 with
    Retry-After, on both routes, which share the address's bucket."""
    store = open_store(f"sqlite:///{tmp_path / 'server.db'}", password_hasher=FAST_HASHER)
    srv = Server(replace(FAST, calc_rate=0.001, calc_burst=3), store)
    try:
        rec = documented_records()[0]
        q = hand_queries()[0]
        with httpx.Client(base_url=srv.http, timeout=60) as http:
            codes = [http.post("/api/score", json=rec).status_code,
                     http.post("/api/hand", json=q).status_code,
                     http.post("/api/score", json=rec).status_code]
            assert codes == [200, 200, 200]
            for path, body in (("/api/score", rec), ("/api/hand", q)):
                r = http.post(path, json=body)
                assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
                assert int(r.headers["retry-after"]) >= 1
            assert http.get("/api/health").status_code == 200  # the rest of the API is not limited
    finally:
        srv.stop()
        store.close()


def test_address_limiter_memory_is_bounded() -> None:
    clock = [0.0]
    lim = AddressLimiter(rate=1, burst=1, max_addresses=3, clock=lambda: clock[0])
    for i in range(10):
        assert lim.retry_after(f"10.0.0.{i}") == 0.0
        assert len(lim.buckets) <= 3
    assert lim.retry_after("10.0.0.9") > 0  # a recent address keeps its bucket


def test_a_malformed_input_says_its_problem_as_a_code(server: Server, tmp_path: Path) -> None:
    """A 400 carries ``params.problem`` and the problem's parameters, so that the browser
    says it in the player's language (``wuhan_mahjong.problems``); the message is the CLI's."""
    record = {"dealer": 0, "indicator": "9p", "winner": 1, "win_by": "discard", "from": 2,
              "winning_tile": "5m",
              "seats": [{}, {"hand": "456p678s5m",
                             "melds": [{"type": "chi", "tiles": "234m", "from": 0},
                                       {"type": "peng", "tiles": "111p", "from": 3}]}, {}, {}]}
    r = httpx.post(f"{server.http}/api/score", json=record, timeout=30)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["params"] == {"problem": "laizi_in_meld", "seat": 1, "meld": 1, "tile": "1p"}
    assert error["message"] == cli_score(json.dumps(record), tmp_path)[1]
    query = {"hand": "456p678s5m", "indicator": "9p", "melds": ["chi:234m", "peng:777z"]}
    r = httpx.post(f"{server.http}/api/hand", json=query, timeout=30)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["params"] == {"problem": "kong_alone", "meld": 1, "tile": "7z"}
    assert error["message"] == cli_hand(query)[1]
    r = httpx.post(f"{server.http}/api/score", content=b'{"dealer": 0}', timeout=30)
    assert r.json()["error"]["params"] == {"problem": "malformed"}
