"""Following players (``store/social.py``): idempotent, bounded, only players who have a
public page (registered, not banned), found as a login finds a name.  On SQLite and
PostgreSQL."""

from __future__ import annotations

import pytest

import wuhan_mahjong.store.social as social
from wuhan_mahjong.store import Store
from wuhan_mahjong.store.admin import Admin
from wuhan_mahjong.store.social import FollowError, follow, following, unfollow

PASSWORD = "correct horse battery staple"


def _ids(store: Store, *names: str) -> list[int]:
    return [store.register(n, PASSWORD).id for n in names]


def test_follow_and_unfollow(store: Store) -> None:
    me, ann, bob = _ids(store, "me", "ann", "Bob")
    assert following(store, me) == []
    assert follow(store, me, "BOB") == "Bob"  # as a login finds the name
    assert follow(store, me, "ann") == "ann"
    assert follow(store, me, "ann") == "ann"  # again: nothing changes
    assert following(store, me) == [(ann, "ann"), (bob, "Bob")]
    assert following(store, ann) == []  # one way
    assert unfollow(store, me, "ann") is True
    assert unfollow(store, me, "ann") is False
    assert unfollow(store, me, "nobody") is False
    assert following(store, me) == [(bob, "Bob")]


def test_who_cannot_be_followed(store: Store) -> None:
    (me,) = _ids(store, "me")
    guest = store.create_guest()
    for name, code in (("me", "self"), ("nobody", "not_found"), (guest.account.username, "not_found")):
        with pytest.raises(FollowError) as raised:
            follow(store, me, name)
        assert raised.value.code == code, name
    # a banned player leaves the list (his page is gone too) and comes back with the ban lifted
    _ids(store, "cal")
    follow(store, me, "cal")
    admin = Admin(store, "test")
    admin.ban("cal")
    assert following(store, me) == []
    with pytest.raises(FollowError):
        follow(store, me, "cal")
    admin.unban("cal")
    assert [n for _, n in following(store, me)] == ["cal"]


def test_a_player_follows_at_most_follow_max(store: Store,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(social, "FOLLOW_MAX", 2)
    me, *_ = _ids(store, "me", "p1", "p2", "p3")
    follow(store, me, "p1")
    follow(store, me, "p2")
    with pytest.raises(FollowError) as raised:
        follow(store, me, "p3")
    assert raised.value.code == "too_many"
    assert follow(store, me, "p2") == "p2"  # one already followed is still fine
    unfollow(store, me, "p1")
    assert follow(store, me, "p3") == "p3"


def test_blocking(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A block ends every follow between the two and refuses new ones either way (as for
    nobody by that name: the blocked player is not told); lifting it allows them again."""
    from wuhan_mahjong.store.closing import close_account
    from wuhan_mahjong.store.export import account_export
    from wuhan_mahjong.store.social import block, blocked, unblock

    ann, bob, cat, dan = (store.register(n, "correct horse battery").id
                          for n in ("ann", "bob", "cat", "dan"))
    follow(store, ann, "bob")
    follow(store, bob, "ann")
    follow(store, cat, "bob")
    assert block(store, ann, "BOB") == "bob"
    assert block(store, ann, "bob") == "bob"  # again: nothing changes
    assert following(store, ann) == [] and following(store, bob) == []
    assert following(store, cat) == [(bob, "bob")]  # others' follows stay
    for who, whom in ((ann, "bob"), (bob, "ann")):
        with pytest.raises(FollowError) as caught:
            follow(store, who, whom)
        assert caught.value.code == "not_found"
    assert blocked(store, ann) == [(bob, "bob")] and blocked(store, bob) == []
    assert account_export(store, ann)["blocked"][0]["username"] == "bob"
    for name, code in (("ann", "self"), ("nobody", "not_found"),
                       (store.create_guest().account.username, "not_found")):
        with pytest.raises(FollowError) as caught:
            block(store, ann, name)
        assert caught.value.code == code
    monkeypatch.setattr(social, "BLOCK_MAX", 2)
    block(store, ann, "cat")
    with pytest.raises(FollowError) as caught:
        block(store, ann, "dan")
    assert caught.value.code == "too_many"
    assert unblock(store, ann, "bob") and not unblock(store, ann, "bob")
    assert not unblock(store, ann, "nobody")
    assert follow(store, bob, "ann") == "ann"  # allowed again
    # closing an account takes its blocks, both ways, with it
    block(store, dan, "ann")
    close_account(store, ann, actor="t")
    assert blocked(store, dan) == [] and blocked(store, ann) == []
