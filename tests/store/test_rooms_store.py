"""The kept rooms (``store/rooms.py``): what each node writes, and the two reads of a cluster
node's heartbeat: every room's holder (no states), then the states of the rooms it takes."""

from __future__ import annotations

from wuhan_mahjong.store import Store
from wuhan_mahjong.store.rooms import (
    claim_room,
    kept_room_owner,
    kept_room_owners,
    saved_rooms,
    write_rooms,
)


def _state(host: int) -> dict[str, object]:
    return {"host": host, "options": {"hands": 1}, "members": [[host, f"p{host}"]], "kicked": []}


def test_the_heartbeat_reads_holders_then_only_the_rooms_it_takes(store: Store) -> None:
    assert write_rooms(store, "node-a", {"AAAA": _state(1), "BBBB": _state(2)}) == 2
    assert write_rooms(store, "node-b", {"CCCC": _state(3)}) == 1
    assert kept_room_owners(store) == [("AAAA", "node-a"), ("BBBB", "node-a"), ("CCCC", "node-b")]
    taken = saved_rooms(store, ["BBBB", "CCCC", "GONE"])
    assert [(r.code, r.owner, r.state["host"]) for r in taken] == [("BBBB", "node-a", 2),
                                                                   ("CCCC", "node-b", 3)]
    assert saved_rooms(store, []) == []
    assert [r.code for r in saved_rooms(store)] == ["AAAA", "BBBB", "CCCC"]


def test_a_room_taken_over_is_no_longer_written_by_its_old_holder(store: Store) -> None:
    write_rooms(store, "node-a", {"AAAA": _state(1)})
    assert claim_room(store, "AAAA", "node-a", "node-b")
    assert not claim_room(store, "AAAA", "node-a", "node-c")  # one node wins it
    assert write_rooms(store, "node-a", {"AAAA": None}) == 0  # a late write of the dead node
    assert kept_room_owner(store, "AAAA") == "node-b"
    assert write_rooms(store, "node-b", {"AAAA": None}) == 1
    assert kept_room_owners(store) == [] and kept_room_owner(store, "AAAA") is None
