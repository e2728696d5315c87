"""Hand records: saved once, readable only by the accounts that sat at the hand."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

import pytest

from wuhan_mahjong.store import (
    HandRecord,
    InvalidSettlement,
    RecordExists,
    Store,
    UnknownAccount,
)


def make_record(seats: dict[int, int], match_id: str = "table-7", hand_no: int = 1) -> HandRecord:
    wall = " ".join(f"{n % 9 + 1}m" for n in range(136))
    salt = "5a1f" * 8
    events = "\n".join(
        json.dumps({"seq": i, "type": kind}) for i, kind in enumerate(["deal", "discard", "win"])
    )
    return HandRecord(
        match_id=match_id,
        hand_no=hand_no,
        commitment=hashlib.sha256(f"{salt}:{wall}".encode()).hexdigest(),
        wall=wall,
        salt=salt,
        events=events + "\n",
        seats=seats,
    )


def test_save_and_fetch_by_participants_only(store: Store) -> None:
    a, b, c, d, outsider = (store.create_guest().account.id for _ in range(5))
    seats = {0: c, 1: a, 2: d, 3: b}
    saved = store.save_hand_record(make_record(seats))
    assert saved.finished_at is not None
    for viewer in (a, b, c, d):
        fetched = store.hand_record("table-7", 1, viewer=viewer)
        assert fetched == saved
        assert fetched.seats == seats
        assert fetched.events.splitlines()[2] == '{"seq": 2, "type": "win"}'
    assert store.hand_record("table-7", 1, viewer=outsider) is None
    assert store.hand_record("table-7", 1, viewer=store.house_account_id) is None
    # Not existing and not allowed look the same.
    assert store.hand_record("table-7", 2, viewer=a) is None
    assert store.hand_record("nope", 1, viewer=a) is None


def test_hand_numbers_follow_the_seats(store: Store) -> None:
    a, b, c, d, e = (store.create_guest().account.id for _ in range(5))
    store.save_hand_record(make_record({0: a, 1: b, 2: c, 3: d}, hand_no=1))
    store.save_hand_record(make_record({0: a, 1: b, 2: c, 3: e}, hand_no=2))  # d left
    store.save_hand_record(make_record({0: a, 1: b, 2: c, 3: e}, hand_no=3))
    store.save_hand_record(make_record({0: a, 1: b, 2: c, 3: d}, match_id="other"))
    assert store.hand_numbers("table-7", viewer=a) == [1, 2, 3]
    assert store.hand_numbers("table-7", viewer=d) == [1]
    assert store.hand_numbers("table-7", viewer=e) == [2, 3]
    assert store.hand_record("table-7", 2, viewer=d) is None
    assert store.hand_record("table-7", 2, viewer=e) is not None


def test_records_are_immutable(store: Store) -> None:
    a, b, c, d = (store.create_guest().account.id for _ in range(4))
    store.save_hand_record(make_record({0: a, 1: b, 2: c, 3: d}))
    with pytest.raises(RecordExists):
        store.save_hand_record(make_record({0: a, 1: b, 2: c, 3: d}))


def test_finished_time_is_kept(store: Store) -> None:
    a, b = (store.create_guest().account.id for _ in range(2))
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    record = make_record({0: a, 2: b})
    saved = store.save_hand_record(
        HandRecord(**{**{f: getattr(record, f) for f in record.__slots__}, "finished_at": when})
    )
    fetched = store.hand_record("table-7", 1, viewer=b)
    assert saved.finished_at == when
    assert fetched is not None and fetched.finished_at == when


@pytest.mark.parametrize(
    "seats",
    [{}, {0: 1, 1: 1}, {4: 1}, {-1: 1}],
)
def test_bad_seats(store: Store, seats: dict[int, int]) -> None:
    store.create_guest()
    with pytest.raises(InvalidSettlement):
        store.save_hand_record(make_record(seats))


def test_unknown_seated_account(store: Store) -> None:
    a = store.create_guest().account.id
    with pytest.raises(UnknownAccount):
        store.save_hand_record(make_record({0: a, 1: 999_999}))
    with pytest.raises(UnknownAccount):
        store.save_hand_record(make_record({0: a, 1: store.house_account_id}))
    assert store.hand_record("table-7", 1, viewer=a) is None


def test_oversized_fields_are_refused(store: Store) -> None:
    a = store.create_guest().account.id
    record = make_record({0: a})
    fields = {f: getattr(record, f) for f in record.__slots__}
    with pytest.raises(InvalidSettlement):
        store.save_hand_record(HandRecord(**{**fields, "commitment": "f" * 129}))
    with pytest.raises(InvalidSettlement):
        store.save_hand_record(HandRecord(**{**fields, "match_id": "m" * 129}))
    assert store.hand_numbers("table-7", viewer=a) == []
