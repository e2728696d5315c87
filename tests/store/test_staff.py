"""Staff roles (``store/staff.py``): who may be staff, what each role may do and on whom,
the event log of naming one, the staff list, and what closing an account and the data
download do with a role."""

from __future__ import annotations

import itertools

import pytest

from wuhan_mahjong.store import Store
from wuhan_mahjong.store.admin import Admin, AdminError
from wuhan_mahjong.store.export import account_export
from wuhan_mahjong.store.staff import (
    PERMISSIONS,
    STAFF_ROLES,
    StaffRefused,
    check,
    role_of,
    staff_list,
)

PW = "correct horse battery"


def test_who_acts_on_whom(store: Store) -> None:
    """Every pair of (actor rank, target rank) for an action on an account: only a higher
    rank reaches a lower one, a player reaches nobody, nobody reaches himself."""
    ops = Admin(store, "root")
    people = {"player": store.register("pat", PW), "moderator": store.register("mo", PW),
              "admin": store.register("ad", PW)}
    ops.set_role("mo", "moderator")
    ops.set_role("ad", "admin")
    rank = {"player": 0, "moderator": 1, "admin": 2}
    for actor, target in itertools.product(people, repeat=2):
        a, t = people[actor], people[target]
        if actor == "player":
            with pytest.raises(StaffRefused) as refused:
                check(store, a.id, "ban", t.id)
            assert refused.value.reason == "not_staff"
        elif a.id == t.id:
            with pytest.raises(StaffRefused) as refused:
                check(store, a.id, "ban", t.id)
            assert refused.value.reason == "self"
        elif rank[target] >= rank[actor]:
            with pytest.raises(StaffRefused) as refused:
                check(store, a.id, "ban", t.id)
            assert refused.value.reason == "rank"
        else:
            assert check(store, a.id, "ban", t.id) == actor
    # the admins' actions are not a moderator's
    assert PERMISSIONS["moderator"] < PERMISSIONS["admin"]
    for action in sorted(PERMISSIONS["admin"] - PERMISSIONS["moderator"]):
        with pytest.raises(StaffRefused) as refused:
            check(store, people["moderator"].id, action)
        assert refused.value.reason == "not_allowed"
        assert check(store, people["admin"].id, action) == "admin"


def test_naming_staff_is_logged_and_only_for_players(store: Store) -> None:
    ops = Admin(store, "root")
    pat = store.register("pat", PW)
    guest = store.create_guest()
    assert ops.set_role("PAT", "moderator") is None
    assert role_of(store, pat.id) == "moderator"
    with pytest.raises(AdminError):  # nothing changes
        ops.set_role("pat", "moderator")
    assert ops.set_role("pat", "admin") == "moderator"
    assert [(m.username, m.role, m.granted_by) for m in staff_list(store)] == [
        ("pat", "admin", "root")]
    assert ops.set_role("pat", None) == "admin"
    assert role_of(store, pat.id) is None and staff_list(store) == []
    with pytest.raises(StaffRefused):
        ops.set_role(guest.account.username, "moderator")
    with pytest.raises(AdminError):
        ops.set_role("nobody", "moderator")
    log = [(a.action, a.detail) for a in reversed(ops.actions())]
    assert log == [("role", {"role": "moderator", "was": None}),
                   ("role", {"role": "admin", "was": "moderator"}),
                   ("role", {"role": None, "was": "admin"})]
    assert STAFF_ROLES == ("moderator", "admin")


def test_a_closed_account_is_no_staff_and_the_download_says_the_role(store: Store) -> None:
    ops = Admin(store, "root")
    mo = store.register("mo", PW)
    ops.set_role("mo", "moderator")
    assert account_export(store, mo.id)["staff"]["role"] == "moderator"
    assert account_export(store, store.register("pat", PW).id)["staff"] is None
    ops.close("mo")
    assert role_of(store, mo.id) is None and staff_list(store) == []
