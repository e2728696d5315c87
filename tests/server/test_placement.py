"""The server's placements: where each account is, moved only by named transitions."""

from __future__ import annotations

from typing import Any

import pytest

from wuhan_mahjong.server.placement import (
    PlacementError,
    Placements,
    QueuePlace,
    RoomPlace,
    StartingPlace,
    TablePlace,
)

ROOM: Any = object()
TABLE: Any = object()
OTHER_TABLE: Any = object()


def test_a_quick_match_and_a_room_lead_to_a_table_and_back() -> None:
    p = Placements()
    assert p.get(1) is None and 1 not in p and len(p) == 0
    p.join_queue(1, ("yuanhang", 0))
    p.join_room(2, ROOM)
    assert p.get(1) == QueuePlace(("yuanhang", 0)) and p.get(2) == RoomPlace(ROOM)
    for a in (1, 2):
        p.starting(a)
        assert p.get(a) == StartingPlace() and p.at_table(a) is None
        p.sit(a, TABLE, a)
    assert p.at_table(1) == TablePlace(TABLE, 1) and p.at_table(2, TABLE) == TablePlace(TABLE, 2)
    assert p.at_table(2, OTHER_TABLE) is None
    assert not p.leave_table(1, OTHER_TABLE) and 1 in p
    assert p.leave_table(1, TABLE) and 1 not in p
    assert p.leave(2) == TablePlace(TABLE, 2) and p.leave(2) is None and len(p) == 0


def test_a_resumed_match_seats_its_players_straight_away() -> None:
    p = Placements()
    p.sit(7, TABLE, 3)
    assert p.at_table(7, TABLE) == TablePlace(TABLE, 3)


@pytest.mark.parametrize("before, move", [
    ("queue", "join_queue"), ("queue", "join_room"), ("room", "join_queue"), ("table", "join_room"),
    ("table", "starting"), ("table", "sit"), ("queue", "sit"), ("room", "sit"),
])
def test_moves_the_flow_never_makes_are_refused(before: str, move: str) -> None:
    p = Placements()
    if before == "queue":
        p.join_queue(1, ("bianfeng", 1))
    elif before == "room":
        p.join_room(1, ROOM)
    else:
        p.sit(1, TABLE, 0)
    was = p.get(1)
    args = {"join_queue": (("yuanhang", 0),), "join_room": (ROOM,), "starting": (), "sit": (OTHER_TABLE, 2)}
    with pytest.raises(PlacementError, match="account 1 cannot go from"):
        getattr(p, move)(1, *args[move])
    assert p.get(1) == was
