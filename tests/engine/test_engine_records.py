"""Records, commitment, verification, the CLI commands and the action formats."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import SALT, fingerprint, keen_policy, play, scenario

from wuhan_mahjong.cli import main
from wuhan_mahjong.engine import (
    PASS,
    ActionFormatError,
    Chi,
    Discard,
    IllegalAction,
    Kong,
    SpecialKong,
    action_from_json,
    commitment,
    new_hand,
    parse_action,
    play_hand,
    record_lines,
    reduce,
)
from wuhan_mahjong.engine.dealing import arrange_wall, shuffled_wall
from wuhan_mahjong.engine.records import RECORD_VERSION, describe, load_records
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.tiles import all_tiles, tile_str


def _won_hand_lines() -> list[str]:
    rng = random.Random(21)
    while True:
        state = play_hand(new_hand(get_rules("laizishanzhuang"), 1, rng=rng), keen_policy(rng))
        if state.result is not None and state.result.outcome == "win":
            return record_lines(state)


def test_seeded_walls_are_exactly_random_shuffle() -> None:
    """The inline Fisher-Yates for a plain random.Random draws what Random.shuffle draws:
    the same walls and the same generator state after (seeded records stay replayable)."""
    for seed in range(300):
        ours, theirs = random.Random(seed), random.Random(seed)
        wall = all_tiles()
        theirs.shuffle(wall)
        assert shuffled_wall(ours) == wall
        assert ours.getstate() == theirs.getstate()


def test_commitment_is_sha256_of_tag_salt_and_wall_bytes() -> None:
    wall = shuffled_wall(random.Random(1))
    expect = hashlib.sha256(b"wuhan-mahjong/wall/v1" + SALT + bytes(wall)).hexdigest()
    assert commitment(SALT, wall) == expect
    state = new_hand(get_rules(), 0, wall=wall, salt=SALT)
    assert state.commitment == expect


def test_record_structure() -> None:
    lines = _won_hand_lines()
    events = [json.loads(x) for x in lines]
    head, deal, reveal = events[0], events[1], events[-1]
    assert head["e"] == "header" and head["version"] == RECORD_VERSION
    assert head["schema"] == "wuhan-mahjong/hand" and len(head["commitment"]) == 64
    assert deal["e"] == "deal" and len(deal["hands"]) == 4 and deal["wall"] == 82
    assert reveal["e"] == "reveal" and len(reveal["wall"]) == 272 and len(reveal["salt"]) == 64
    win = next(e for e in events if e["e"] == "win")
    assert sum(win["deltas"]) == 0 and win["settlement"]["valid"] is True
    assert {e["e"] for e in events} >= {"act", "draw", "win"}


def test_an_unfinished_hand_has_no_reveal() -> None:
    state = new_hand(get_rules(), 0, rng=random.Random(2))
    lines = record_lines(state)
    assert [json.loads(x)["e"] for x in lines] == ["header", "deal"]
    assert state.salt.hex() not in "".join(lines)


def _write(tmp_path: Path, lines: list[str]) -> str:
    p = tmp_path / "rec.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(p)


def test_verify_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, _won_hand_lines() + _won_hand_lines())
    assert main(["verify", path]) == 0
    out = capsys.readouterr().out
    assert out.count("ok: hand") == 2 and "replay identical" in out


def _tampered(lines: list[str], kind: str) -> list[str]:
    events = [json.loads(x) for x in lines]
    if kind == "wall":
        rev = events[-1]
        w = rev["wall"]
        rev["wall"] = w[-2:] + w[2:-2] + w[:2]  # swap the first and the last tile
    elif kind == "salt":
        events[-1]["salt"] = "00" * 32
    elif kind == "settlement":
        win = next(e for e in events if e["e"] == "win")
        win["deltas"] = [d * 2 for d in win["deltas"]]
    elif kind == "action":
        act = next(e for e in events if e["e"] == "act" and e["action"]["type"] == "discard")
        act["action"]["tile"] = "7z"
    elif kind == "truncated":
        events = events[:-3] + events[-1:]
    return [json.dumps(e, ensure_ascii=False) for e in events]


@pytest.mark.parametrize("kind,message", [
    ("wall", "commitment mismatch"), ("salt", "commitment mismatch"),
    ("settlement", "differs from the replay"), ("action", "illegal action"),
    ("truncated", "did not finish"),
])
def test_verify_detects_tampering(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str,
                                  message: str) -> None:
    lines = _won_hand_lines()
    if kind == "wall":
        events = [json.loads(x) for x in lines]
        assert events[-1]["wall"][:2] != events[-1]["wall"][-2:]
    assert main(["verify", _write(tmp_path, _tampered(lines, kind))]) == 1
    err = capsys.readouterr().err
    assert "MISMATCH" in err and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("text,message", [
    ("not json\n", "bad JSON"),
    ('{"e": "act", "seat": 0}\n', "must start with a header"),
    ('{"x": 1}\n', "not a record event"),
    ("", "empty record"),
])
def test_verify_malformed_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                                  message: str) -> None:
    p = tmp_path / "bad.jsonl"
    p.write_text(text, encoding="utf-8")
    assert main(["verify", str(p)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_verify_unknown_version_is_malformed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = [json.loads(x) for x in _won_hand_lines()]
    events[0]["version"] = 99
    path = _write(tmp_path, [json.dumps(e) for e in events])
    assert main(["verify", path]) == 2
    assert "unsupported record version" in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "missing.jsonl")]) == 2


def test_replay_prints_the_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = _won_hand_lines()
    assert main(["replay", _write(tmp_path, lines)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Hand 0 · profile laizishanzhuang")
    assert "indicator" in out and "wins (" in out and "reveal: salt" in out
    assert describe(load_records("\n".join(lines))[0])[0] == out.splitlines()[0]


def test_simulate_summary(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    recs = tmp_path / "all.jsonl"
    assert main(["simulate", "--profile", "bianfeng", "--hands", "30", "--seed", "7",
                 "--records", str(recs)]) == 0
    out = capsys.readouterr().out
    assert "30 hands" in out and "wins by hand type" in out and "mean points" in out
    assert main(["verify", str(recs)]) == 0
    assert capsys.readouterr().out.count("ok: hand") == 30
    assert main(["simulate", "--hands", "5", "--seed", "7", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["hands"] == 5 and sum(summary["totals"]) == 0
    assert main(["simulate", "--hands", "5", "--seed", "7", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == summary  # a seed replays


def test_simulate_scripted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    st = scenario({0: "5m", 1: "5m5m234p678p234s5s7z"}, repl="5s")
    wall = tmp_path / "wall.txt"
    wall.write_text("".join(tile_str(x) for x in st.wall), encoding="utf-8")
    script = tmp_path / "script.txt"
    script.write_text("# red kong, then kong bloom\n0 discard 5m\n1 peng\nW pass\n3 pass\n"
                      "S red\n1 win\n", encoding="utf-8")
    assert main(["simulate", "--wall", str(wall), "--script", str(script), "--seed", "1"]) == 0
    events = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    win = next(e for e in events if e["e"] == "win")
    assert win["win_by"] == "kong_bloom" and win["seat"] == 1
    # a record's own act lines work as a script
    rec = tmp_path / "rec.jsonl"
    rec.write_text("\n".join(json.dumps(e) for e in events), encoding="utf-8")
    assert main(["simulate", "--wall", str(wall), "--script", str(rec), "--seed", "1"]) == 0
    assert [json.loads(x) for x in capsys.readouterr().out.splitlines()] == events
    script.write_text("0 discard 7z\n", encoding="utf-8")
    assert main(["simulate", "--wall", str(wall), "--script", str(script)]) == 2
    assert "script line 1: illegal action" in capsys.readouterr().err
    wall.write_text("1m2m", encoding="utf-8")
    assert main(["simulate", "--wall", str(wall), "--script", str(script)]) == 2
    assert "a wall has 136 tiles" in capsys.readouterr().err


def test_actions_json_and_text() -> None:
    for a in (Discard(4), Chi(2), Kong("added", 30), SpecialKong("pi"), PASS):
        assert action_from_json(json.loads(json.dumps(a.to_json()))) == a
    assert parse_action("kong concealed 1z") == Kong("concealed", 27)
    assert parse_action('{"type": "chi", "tile": "7p"}') == Chi(15)
    for bad in ({"type": "chi", "tile": "8m"}, {"type": "kong", "tile": "1m"}, {"type": "x"},
                {"type": "discard"}, [], {"type": "special_kong", "kind": "blue"},
                # a kind of another JSON type (a dict was a TypeError: unhashable)
                {"type": "kong", "kind": {"a": 1}, "tile": "1m"},
                {"type": "special_kong", "kind": ["laizi"]}):
        with pytest.raises(ActionFormatError):
            action_from_json(bad)
    for text in ("", "fly", "discard", "kong", "peng"):
        with pytest.raises(ActionFormatError):
            parse_action(text)


def test_reduce_leaves_the_state_alone_and_errors_name_the_rule() -> None:
    st = scenario({0: "5m7z", 1: "5m5m"})
    before = fingerprint(st)
    after = reduce(st, 0, Discard(4))
    assert fingerprint(st) == before
    assert after.phase == "claim" and after.to_act() == (1,) and st.phase == "turn"
    with pytest.raises(IllegalAction, match="no seat 7"):
        st.apply(7, PASS)
    with pytest.raises(IllegalAction, match="cannot pass his own turn"):
        st.apply(0, PASS)
    with pytest.raises(IllegalAction, match="claims a discard; there is none"):
        st.apply(0, Chi(2))
    with pytest.raises(IllegalAction, match="is not in seat 0's hand"):
        st.apply(0, Discard(26))
    with pytest.raises(IllegalAction, match="needs a peng"):
        st.apply(0, Kong("added", 4))
    assert fingerprint(st) == before
    play(st, "0 discard 5m")
    with pytest.raises(IllegalAction, match="cannot claim his own discard"):
        st.apply(0, PASS)


def test_arrange_wall_rejects_impossible_walls() -> None:
    with pytest.raises(ValueError, match="more than four"):
        arrange_wall(0, [[0] * 5])
    with pytest.raises(ValueError, match="dealt 13 tiles"):
        arrange_wall(0, [[], [0] * 14])


#: values of every JSON type, and out-of-range ones, put in place of a record's fields
_ODD_VALUES = [None, "x", -1, 10**30, 1e308, [], {}, "🀄", True, "1m1m1m1m1m", 0.5, [1, 2],
               {"a": 1}, "9z"]


def _field_paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    if isinstance(obj, dict):
        items: list[tuple[Any, Any]] = list(obj.items())
    elif isinstance(obj, list):
        items = list(enumerate(obj[:3]))
    else:
        return out
    for k, v in items:
        out.append((*prefix, k))
        out += _field_paths(v, (*prefix, k))
    return out


@pytest.mark.parametrize(("event", "path", "value"), [
    ("deal", ("hands",), -1),                       # replay: 'int' object is not iterable
    ("deal", ("hands",), 1e308),
    ("act", ("action", "kind"), {"a": 1}),          # verify: unhashable type: 'dict'
])
def test_a_field_of_another_type_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], event: str, path: tuple[str, ...],
        value: Any) -> None:
    events = [json.loads(x) for x in _won_hand_lines()]
    if event == "act":  # a kong's kind: an action that has one
        i = next(i for i, e in enumerate(events)
                 if e["e"] == "act" and "kind" in e.get("action", {}))
    else:
        i = next(i for i, e in enumerate(events) if e["e"] == event)
    obj = events[i]
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value
    record = _write(tmp_path, [json.dumps(e) for e in events])
    for command in ("replay", "verify"):
        status = main([command, record])
        err = capsys.readouterr().err
        assert status in (1, 2) and len(err.strip().splitlines()) == 1, (command, err)


@pytest.mark.parametrize("seed", range(4))
def test_a_record_with_any_field_changed_is_read_or_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int) -> None:
    """Any field of a real record replaced by a value of another type or out of range:
    ``replay`` prints it or refuses it, ``verify`` accepts it, reports a mismatch or refuses
    it, each refusal one line with exit status 2, never a traceback (a deal's ``hands`` as a
    number, or an action's ``kind`` as an object, were TypeErrors)."""
    events = [json.loads(x) for x in _won_hand_lines()]
    rng = random.Random(seed)
    for _ in range(40):
        i = rng.randrange(len(events))
        paths = _field_paths(events[i])
        if not paths:
            continue
        path, value = rng.choice(paths), rng.choice(_ODD_VALUES)
        changed = json.loads(json.dumps(events))
        obj = changed[i]
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = value
        record = _write(tmp_path, [json.dumps(e) for e in changed])
        for command, allowed in (("replay", (0, 2)), ("verify", (0, 1, 2))):
            status = main([command, record])
            err = capsys.readouterr().err
            assert status in allowed, (command, i, path, value, err)
            if status:
                assert len(err.strip().splitlines()) == 1, (command, i, path, value, err)
