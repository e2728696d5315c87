"""The protocol models agree with docs/protocol.md; configuration helpers."""

from __future__ import annotations

import gc
import json
import re
import typing
from pathlib import Path

import pytest

from wuhan_mahjong.rules import RulesError
from wuhan_mahjong.server.config import DB_ENV, ServerConfig, database_url, normalize_db_url
from wuhan_mahjong.server.lobby import room_rules
from wuhan_mahjong.server.protocol import (
    CLIENT_TYPES,
    SERVER_MESSAGES,
    ErrorCode,
    ProtocolError,
    RoomOptions,
    parse_client_message,
    state_frame,
    state_frame_parts,
)

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")


def _union_types(annotated: typing.Any) -> set[str]:
    union = typing.get_args(annotated)[0]
    return {typing.get_args(m.model_fields["type"].annotation)[0] for m in typing.get_args(union)}


def test_every_message_type_and_error_code_is_documented() -> None:
    from wuhan_mahjong.server.protocol import ClientMessage, ServerMessage

    assert _union_types(ClientMessage) == set(CLIENT_TYPES)
    for kind in CLIENT_TYPES + tuple(_union_types(ServerMessage)):
        assert f"| `{kind}` |" in DOC, kind
    for code in typing.get_args(ErrorCode):
        assert f"`{code}`" in DOC, code


@pytest.mark.parametrize("text, code", [
    ("{", "bad_json"),
    ("3", "invalid_message"),
    ('{"type": 3}', "invalid_message"),
    ('{"type": "x" }', "unknown_type"),
    ('{"type": "ready", "ready": "yes"}', "invalid_message"),
    ('{"type": "hello", "token": ""}', "invalid_message"),
    ('{"type": "ping", "ref": "' + "r" * 65 + '"}', "invalid_message"),
    ("[" * 100000 + "]" * 100000, "bad_json"),
])
def test_client_messages_are_validated(text: str, code: str) -> None:
    # The deeply nested case recurses to Python's limit inside json: a finalizer of an
    # earlier test's garbage, run there by the collector, could not even report itself
    # (RecursionError in the unraisable hook, which pytest turned into this test's failure
    # once, in a loaded run).  Collect first and not during the parse.
    gc.collect()
    gc.disable()
    try:
        with pytest.raises(ProtocolError) as e:
            parse_client_message(text)
    finally:
        gc.enable()
    assert e.value.code == code


def test_state_frame_text_matches_its_model() -> None:
    import random

    from wuhan_mahjong.engine import new_hand, seat_view
    from wuhan_mahjong.rules import get_rules

    state = new_hand(get_rules(), 0, rng=random.Random(1))
    players = [{"seat": s, "name": f"p{s}", "bot": False, "connected": True, "auto": False,
                "escaped": False} for s in range(4)]
    parts = state_frame_parts("m-1", 0, [0, 0, 0, 0], players, {"kind": "turn", "seconds": 15.0})
    from wuhan_mahjong.server.protocol import encode_view

    text = state_frame(parts, encode_view(seat_view(state, 2)), False, True)
    msg = json.loads(text)
    SERVER_MESSAGES.validate_python(msg)
    assert msg["view"] == json.loads(json.dumps(seat_view(state, 2)))
    assert msg["auto"] is True and msg["answered"] is False


def test_database_urls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert normalize_db_url("postgres://u@h/d") == "postgresql+psycopg://u@h/d"
    assert normalize_db_url("postgresql+psycopg://u@h/d") == "postgresql+psycopg://u@h/d"
    monkeypatch.delenv(DB_ENV, raising=False)
    url = database_url(ServerConfig(data_dir=tmp_path / "d"))
    assert url == f"sqlite:///{(tmp_path / 'd' / 'wuhan_mahjong.db').resolve()}"
    monkeypatch.setenv(DB_ENV, "postgresql://a:b@c/d")
    assert database_url(ServerConfig()) == "postgresql+psycopg://a:b@c/d"
    assert database_url(ServerConfig(db_url="sqlite:///x.db")) == "sqlite:///x.db"
    with pytest.raises(ValueError):
        ServerConfig(bot_delay=-1)


def test_room_rules() -> None:
    rules = room_rules(RoomOptions(profile="laizishanzhuang", opening_scoring="per_opening",
                                   claim_window_seconds=5, rules={"golden_cap": 700}))
    assert rules.per_opening and rules.claim_window_seconds == 5.0 and rules.golden_cap == 700
    assert rules.escape == 500
    for bad in ({"min_silver": 0}, {"nonsense": 1}, {"opening_scoring": "twice"}):
        with pytest.raises(RulesError):
            room_rules(RoomOptions(rules=bad))
    assert re.fullmatch(r"\d+", "123456")
