"""Clubs (亲友圈) in the store: founding, applications and roles, who may do what, the
standings over the hands played at the club's tables (from the engine's own results), the
list of its matches, handing it on, leaving, dissolving, and closing an owner's account; on
SQLite and PostgreSQL."""

from __future__ import annotations

import json
import random
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import update

from wuhan_mahjong.engine import Match, simple_policy
from wuhan_mahjong.rules import get_rules
from wuhan_mahjong.store import HandRecord, Store, clubs
from wuhan_mahjong.store.closing import close_account
from wuhan_mahjong.store.clubs import ClubError
from wuhan_mahjong.store.export import account_export
from wuhan_mahjong.store.models import ClubMatchRow, utcnow

PW = "correct horse battery"
PRESET = {"profile": "yuanhang", "hands": 2, "opening_scoring": "per_opening"}


def _code(call: object, *args: object, **kwargs: object) -> str:
    with pytest.raises(ClubError) as e:
        call(*args, **kwargs)  # type: ignore[operator]
    return e.value.code


def _club(store: Store, owner: int, name: str = "汉口老友") -> int:
    return clubs.create(store, owner, name, "yuanhang", PRESET, notice="周五晚八点").number


def _play(store: Store, match_id: str, number: int | None, seats: list[int], seed: int,
          hands: int = 2) -> Counter[int]:
    """Play a match of ``simple_policy`` seats through the store as a table does (its room
    options name the club), and return each account's points from the engine's results."""
    config = {"profile": "yuanhang", "hands": hands,
              "room": None if number is None else {**PRESET, "club": number},
              "seats": [{"account_id": a, "name": f"p{a}", "is_bot": False} for a in seats]}
    epoch = store.open_match(match_id, "t" + match_id, "00", config, owner="node")
    match = Match(get_rules("yuanhang"), hands, rng=random.Random(seed))
    points: Counter[int] = Counter()
    totals = [0, 0, 0, 0]
    while not match.finished:
        hand = match.start_hand()
        while not hand.ended:
            seat = hand.to_act()[0]
            match.apply(seat, simple_policy(hand, seat))
        deltas = hand.result.deltas
        for seat, account in enumerate(seats):
            points[account] += deltas[seat]
            totals[seat] += deltas[seat]
        record = HandRecord(match_id=match_id, hand_no=hand.hand_no, commitment=hand.commitment,
                            wall="", salt=hand.salt.hex(),
                            events="\n".join(match.history[-1].records),
                            seats=dict(enumerate(seats)))
        store.finish_hand(match_id, epoch, record, dict(zip(seats, deltas, strict=True)),
                          stake=0, fee=0, profile="yuanhang", totals=totals)
    store.end_match(match_id, epoch, "finished")
    return points


def test_a_club_from_founding_to_its_standings(store: Store) -> None:
    owner, a, b, c, outsider = (store.register(n, PW).id
                                for n in ("owner", "amy", "bo", "cai", "dan"))
    number = _club(store, owner)
    assert 100_000 <= number <= 999_999
    page = clubs.club(store, number, a)
    assert (page.name, page.owner, page.members, page.role) == ("汉口老友", "owner", 1, None)
    assert page.preset == PRESET and page.notice == "周五晚八点"
    for x in (a, b, c, outsider):
        assert clubs.apply(store, number, x) == "pending"
    assert clubs.apply(store, number, a) == "pending"  # twice is once
    assert clubs.club(store, number, owner).pending == 4  # for those who answer them
    assert clubs.club(store, number, a).pending == 0
    assert [m.role for m in clubs.members(store, number)] == ["owner", *["pending"] * 4]
    for name in ("amy", "bo", "cai"):
        assert clubs.answer(store, number, owner, name, "approve") == "member"
    assert clubs.answer(store, number, owner, "dan", "reject") is None
    assert clubs.member_role(store, number, outsider)[0] is None
    assert clubs.club(store, number).members == 4
    assert [(x.number, x.role) for x in clubs.my_clubs(store, a)] == [(number, "member")]

    before = utcnow()
    first = _play(store, "club-m1", number, [owner, a, b, c], seed=3)
    second = _play(store, "club-m2", number, [a, b, c, owner], seed=8)
    elsewhere = _play(store, "quick-m3", None, [owner, a, b, c], seed=5)
    assert any(elsewhere.values())  # a match not at the club's tables counts nowhere
    expected = {x: first[x] + second[x] for x in (owner, a, b, c)}  # (Counter + drops <= 0)
    table = clubs.standings(store, number)
    names = {owner: "owner", a: "amy", b: "bo", c: "cai"}
    assert {s.username: s.points for s in table} == {names[x]: p for x, p in expected.items()}
    assert [s.points for s in table] == sorted((s.points for s in table), reverse=True)
    assert {s.matches for s in table} == {2} and {s.hands for s in table} == {4}
    assert table[0].rank == 1 and all(s.rank <= k + 1 for k, s in enumerate(table))
    assert sum(s.wins for s in table) <= 4
    # the period: matches opened before the start of it do not count
    assert clubs.standings(store, number, since=utcnow() + timedelta(seconds=1)) == []
    assert {s.username for s in clubs.standings(store, number, since=before)} == set(
        names.values())
    listed = clubs.club_matches(store, number)
    assert [m.match_id for m in listed][:2] in (["club-m2", "club-m1"], ["club-m1", "club-m2"])
    assert len(listed) == 2 and all(m.status == "finished" and m.hands_done == 2 for m in listed)
    (one,) = [m for m in listed if m.match_id == "club-m1"]
    assert sorted(p for _, p in one.results) == sorted(first[x] for x in (owner, a, b, c))
    # a retried open of the same match is written down once
    from wuhan_mahjong.store.clubs import match_opened
    with store._write() as session:
        match_opened(session, "club-m1", {"room": {"club": number}})
        match_opened(session, "club-m9", {"room": {"club": 123}})  # no such club: nothing
        match_opened(session, "club-m8", {"room": None})
    assert len(clubs.club_matches(store, number)) == 2
    # a member who left is off the standings; his hands stay in the others' matches
    clubs.leave(store, number, c)
    assert "cai" not in {s.username for s in clubs.standings(store, number)}
    # the data download names his clubs
    assert account_export(store, a)["clubs"][0]["number"] == number
    assert account_export(store, a)["clubs"][0]["role"] == "member"


def test_who_may_do_what(store: Store) -> None:
    owner, admin, member, applicant, guest_less = (
        store.register(n, PW).id for n in ("owner", "ada", "mei", "app", "gil"))
    guest = store.create_guest().account.id
    number = _club(store, owner)
    for x in (admin, member, applicant):
        clubs.apply(store, number, x)
    clubs.answer(store, number, owner, "ada", "approve")
    clubs.answer(store, number, owner, "mei", "approve")
    assert clubs.answer(store, number, owner, "ada", "admin") == "admin"
    # an admin answers applications and removes plain members, nothing more
    assert _code(clubs.answer, store, number, member, "app", "approve") == "not_allowed"
    assert _code(clubs.answer, store, number, admin, "owner", "remove") == "not_allowed"
    assert _code(clubs.answer, store, number, admin, "mei", "admin") == "not_allowed"
    assert _code(clubs.answer, store, number, admin, "ada", "remove") == "not_allowed"  # self
    assert _code(clubs.answer, store, number, admin, "app", "remove") == "applicant"
    assert _code(clubs.answer, store, number, admin, "mei", "approve") == "already"
    assert _code(clubs.answer, store, number, admin, "nobody", "approve") == "no_player"
    assert _code(clubs.answer, store, number, admin, "no\x00body", "remove") == "no_player"
    assert clubs.answer(store, number, admin, "app", "approve") == "member"
    assert clubs.answer(store, number, admin, "app", "remove") is None
    assert clubs.member_role(store, number, applicant)[0] is None
    # the notice is the admins' too; the name and the rules are the owner's
    assert clubs.update(store, number, admin, notice=" 周六\r\n 下午  两点，不见不散！ ").notice == (
        "周六\n下午 两点，不见不散！")  # full-width punctuation kept (NFC, not NFKC)
    assert _code(clubs.update, store, number, admin, name="x") == "not_allowed"
    assert _code(clubs.update, store, number, member, notice="x") == "not_allowed"
    changed = clubs.update(store, number, owner, name="  武昌  牌友 ", profile="bianfeng",
                           preset={"profile": "bianfeng", "hands": 8})
    assert (changed.name, changed.profile, changed.preset["hands"]) == ("武昌 牌友", "bianfeng", 8)
    for bad in ("", " ", "x" * 21, "a\u0000b", "a\u202eb", 7):
        assert _code(clubs.update, store, number, owner, name=bad) == "bad_name"
    assert _code(clubs.update, store, number, owner, notice="x" * 201) == "bad_notice"
    assert _code(clubs.update, store, number, owner, notice="a\u0007") == "bad_notice"
    assert _code(clubs.update, store, number, owner, profile="riichi", preset={}) == "invalid"
    assert _code(clubs.update, store, number, owner,
                 preset={"profile": "yuanhang"}) == "invalid"  # not the club's profile
    # guests found and join nothing; an unknown number is not found
    assert _code(clubs.create, store, guest, "g", "yuanhang", PRESET) == "guest"
    assert _code(clubs.apply, store, number, guest) == "guest"
    assert _code(clubs.apply, store, 999_999 if number != 999_999 else 100_000,
                 member) == "not_found"
    # the owner neither leaves nor is removed; he hands the club on, then may leave
    assert _code(clubs.leave, store, number, owner) == "owner"
    assert _code(clubs.leave, store, number, guest_less) == "not_member"
    assert _code(clubs.transfer, store, number, admin, "mei") == "not_allowed"
    assert _code(clubs.transfer, store, number, owner, "gil") == "no_player"
    clubs.transfer(store, number, owner, "mei")
    roles = {m.username: m.role for m in clubs.members(store, number)}
    assert roles == {"mei": "owner", "owner": "admin", "ada": "admin"}
    clubs.leave(store, number, owner)
    assert _code(clubs.dissolve, store, number, admin) == "not_allowed"
    clubs.dissolve(store, number, member)
    assert _code(clubs.club, store, number) == "not_found"
    assert clubs.my_clubs(store, admin) == []


def test_limits(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    owner = store.register("owner", PW).id
    numbers = [_club(store, owner, f"c{k}") for k in range(clubs.OWNED_MAX)]
    assert len(set(numbers)) == clubs.OWNED_MAX
    assert _code(clubs.create, store, owner, "one more", "yuanhang", PRESET) == "too_many"
    monkeypatch.setattr(clubs, "MEMBERS_MAX", 2)
    monkeypatch.setattr(clubs, "PENDING_MAX", 2)
    players = [store.register(f"p{k}", PW).id for k in range(4)]
    clubs.apply(store, numbers[0], players[0])
    clubs.apply(store, numbers[0], players[1])
    assert _code(clubs.apply, store, numbers[0], players[2]) == "full"  # 2 waiting
    clubs.answer(store, numbers[0], owner, "p0", "approve")
    assert _code(clubs.answer, store, numbers[0], owner, "p1", "approve") == "full"
    assert _code(clubs.apply, store, numbers[0], players[3]) == "full"  # 2 members


def test_closing_an_owner_hands_his_clubs_on_or_dissolves_them(store: Store) -> None:
    owner, member, admin = (store.register(n, PW).id for n in ("owner", "mei", "ada"))
    kept = _club(store, owner, "kept")
    alone = _club(store, owner, "alone")
    for x in (member, admin):
        clubs.apply(store, kept, x)
        clubs.answer(store, kept, owner, "mei" if x == member else "ada", "approve")
    clubs.answer(store, kept, owner, "ada", "admin")
    _play(store, "closing-m1", alone, [owner, member, admin, store.register("xu", PW).id], 4, 1)
    close_account(store, owner, actor="self")
    assert clubs.club(store, kept).owner == "ada"  # the admin before the member
    assert {m.username for m in clubs.members(store, kept)} == {"ada", "mei"}
    assert _code(clubs.club, store, alone) == "not_found"
    with store._read() as session:
        assert session.get(ClubMatchRow, "closing-m1") is None


def test_two_applications_at_once_for_the_last_place(store: Store,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The club's row is locked while its members are counted: of two approvals racing for
    the last place, one is refused."""
    import threading

    monkeypatch.setattr(clubs, "MEMBERS_MAX", 3)
    owner, admin = store.register("owner", PW).id, store.register("ada", PW).id
    number = _club(store, owner)
    clubs.apply(store, number, admin)
    clubs.answer(store, number, owner, "ada", "approve")
    clubs.answer(store, number, owner, "ada", "admin")
    for name in ("p1", "p2"):
        clubs.apply(store, number, store.register(name, PW).id)
    results: list[str] = []

    def approve(actor: int, name: str) -> None:
        try:
            results.append(str(clubs.answer(store, number, actor, name, "approve")))
        except ClubError as e:
            results.append(e.code)

    threads = [threading.Thread(target=approve, args=(owner, "p1")),
               threading.Thread(target=approve, args=(admin, "p2"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["full", "member"]
    assert clubs.club(store, number).members == 3
    with store._write() as session:  # the standings of an empty period are empty
        session.execute(update(ClubMatchRow).values(created_at=utcnow()))
    assert clubs.standings(store, number) == []


def test_the_operator_lists_and_dissolves_clubs(store: Store, db_url: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from wuhan_mahjong.cli import main
    from wuhan_mahjong.store.admin import Admin

    owner, member = store.register("owner", PW).id, store.register("mei", PW).id
    rude = _club(store, owner, "rude name")
    clubs.apply(store, rude, member)
    clubs.answer(store, rude, owner, "mei", "approve")
    kept = _club(store, member, "kept")

    def admin(*words: str) -> tuple[int, str, str]:
        code = main(["admin", "--db", db_url, "--as", "ops", *words])
        out, err = capsys.readouterr()
        return code, out, err

    code, out, _ = admin("clubs", "--json")
    listed = {c["number"]: c for c in json.loads(out)}
    assert code == 0 and listed[rude]["members"] == 2 and listed[rude]["owner"] == "owner"
    assert listed[kept]["name"] == "kept"
    code, out, _ = admin("clubs")
    assert code == 0 and "2 clubs" in out and f"{rude} 'rude name' yuanhang, 2 members" in out
    code, out, _ = admin("club-dissolve", str(rude), "--reason", "its name")
    assert code == 0 and f"club {rude} 'rude name' of owner dissolved (2 members)" in out
    assert _code(clubs.club, store, rude) == "not_found"
    code, _, err = admin("club-dissolve", str(rude))
    assert code == 2 and f"no club {rude}" in err and "Traceback" not in err
    (logged, *_) = [a for a in Admin(store, "t").actions() if a.action == "club_dissolve"]
    assert logged.actor == "ops" and logged.detail is not None
    assert logged.detail["reason"] == "its name"


def test_a_resumed_club_match_counts_each_hand_once(store: Store) -> None:
    """A match taken over after its node died replays the hand the crash interrupted: the
    club's standings count that hand once, and the match is the club's once."""
    players = [store.register(n, PW).id for n in ("owner", "amy", "bo", "cai")]
    number = _club(store, players[0])
    for k, name in enumerate(("amy", "bo", "cai"), start=1):
        clubs.apply(store, number, players[k])
        clubs.answer(store, number, players[0], name, "approve")
    config = {"profile": "yuanhang", "hands": 2, "room": {**PRESET, "club": number},
              "seats": [{"account_id": a, "name": f"p{a}", "is_bot": False} for a in players]}
    epoch = store.open_match("resumed", "t-resumed", "00", config, owner="node-a")
    match = Match(get_rules("yuanhang"), 2, rng=random.Random(11))
    hand = match.start_hand()
    while not hand.ended:
        seat = hand.to_act()[0]
        match.apply(seat, simple_policy(hand, seat))
    record = HandRecord(match_id="resumed", hand_no=0, commitment=hand.commitment, wall="",
                        salt=hand.salt.hex(), events="\n".join(match.history[-1].records),
                        seats=dict(enumerate(players)))
    deltas = dict(zip(players, hand.result.deltas, strict=True))
    assert store.finish_hand("resumed", epoch, record, deltas, stake=0, fee=0,
                             profile="yuanhang", totals=hand.result.deltas) is not None
    taken = store.claim_match("resumed", owner="node-b")  # node a died; b replays hand 0
    assert store.finish_hand("resumed", taken, record, deltas, stake=0, fee=0,
                             profile="yuanhang", totals=hand.result.deltas) is None
    table = {s.username: (s.points, s.hands, s.matches) for s in clubs.standings(store, number)}
    names = dict(zip(players, ("owner", "amy", "bo", "cai"), strict=True))
    assert table == {names[a]: (p, 1, 1) for a, p in deltas.items()}
    assert [m.status for m in clubs.club_matches(store, number)] == ["running"]


@pytest.mark.parametrize("asker", ["owner", "admin", "member"])
def test_the_member_lists_buttons_are_what_the_store_allows(store: Store, asker: str) -> None:
    """For every asker's role, every other player's role and every action: the action is
    done exactly when ``member_actions`` offers it (so the page's buttons never offer what
    the store refuses, nor hide what it allows); an owner naming an admin again changes
    nothing."""
    targets = ["admin", "member", "pending"]
    actions: list[clubs.MemberAction] = ["approve", "reject", "remove", "admin", "member"]
    for target in targets:
        for action in actions:
            owner = store.register(f"o{target[:2]}{action[:3]}{asker[:2]}", PW)
            number = _club(store, owner.id)
            people = {"owner": owner}
            for role in {"admin", "member", "pending", asker} - {"owner"}:
                people[role] = store.register(f"{role[:3]}{target[:2]}{action[:3]}{asker[:2]}", PW)
                clubs.apply(store, number, people[role].id)
                if role != "pending":
                    clubs.answer(store, number, owner.id, people[role].username, "approve")
                if role == "admin":
                    clubs.answer(store, number, owner.id, people[role].username, "admin")
            if asker == target:  # a second player of the asker's role, to act on
                other = store.register(f"x{target[:2]}{action[:3]}{asker[:2]}", PW)
                clubs.apply(store, number, other.id)
                if target != "pending":
                    clubs.answer(store, number, owner.id, other.username, "approve")
                if target == "admin":
                    clubs.answer(store, number, owner.id, other.username, "admin")
                people_target = other
            else:
                people_target = people[target]
            offered = clubs.member_actions(asker, target, own=False)
            again = asker == "owner" and action == target
            try:
                clubs.answer(store, number, people[asker].id, people_target.username, action)
                done = True
            except ClubError:
                done = False
            assert done == (action in offered or again), (asker, target, action, offered)
    assert clubs.member_actions("owner", "owner", own=False) == ()
    assert clubs.member_actions("owner", "admin", own=True) == ()
    assert clubs.member_actions("pending", "member", own=False) == ()
    assert clubs.member_actions(None, "member", own=False) == ()
