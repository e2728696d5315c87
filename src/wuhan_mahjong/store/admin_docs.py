"""The operator's readings as JSON documents: one shape for ``wuhan-mahjong admin ... --json``
and the staff pages' API (``server/staff_api.py``), so that both say the same thing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .admin import AccountSummary, AdminAction, Overview, RunningTable
    from .announcements import Announcement
    from .clubs import Club
    from .fairplay import FedPair
    from .ledger_store import Audit
    from .reports import Report
    from .staff import StaffMember
    from .tournaments import Tournament

__all__ = [
    "action_doc",
    "announcement_doc",
    "audit_doc",
    "club_doc",
    "overview_doc",
    "pair_doc",
    "report_doc",
    "staff_doc",
    "summary_doc",
    "table_doc",
    "tournament_doc",
]

_Doc = dict[str, Any]


def _when(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat()


def summary_doc(found: AccountSummary) -> _Doc:
    """An account at a glance (``admin show``)."""
    a = found.account
    return {
        "id": a.id, "username": a.username, "guest": a.is_guest, "bot": found.is_bot,
        "silver": a.silver, "points": a.points, "level": a.level.number,
        "created_at": a.created_at.isoformat(),
        "ban": None if found.ban is None else {"reason": found.ban[0],
                                               "since": found.ban[1].isoformat()},
        "live_sessions": found.live_sessions, "last_login": _when(found.last_login),
        "ledger": [{"at": e.created_at.isoformat(), "delta": e.delta,
                    "balance_after": e.balance_after, "reason": e.reason,
                    "reference": e.reference} for e in found.ledger],
        "matches": [{"match_id": m.match_id, "profile": m.profile, "points": m.points_delta,
                     "silver": m.silver_net, "escaped": m.escaped,
                     "finished_at": m.finished_at.isoformat()} for m in found.matches],
        "table": None if found.table is None else found.table.match_id,
        "table_id": None if found.table is None else found.table.table_id,
        "reports_open": found.reports_open, "reports_total": found.reports_total}


def report_doc(r: Report) -> _Doc:
    return {"id": r.id, "created_at": r.created_at.isoformat(), "reporter": r.reporter,
            "reported": r.reported, "reason": r.reason, "match_id": r.match_id, "seat": r.seat,
            "status": r.status, "note": r.note, "closed_by": r.closed_by,
            "closed_at": _when(r.closed_at)}


def tournament_doc(t: Tournament) -> _Doc:
    return {"id": t.id, "name": t.name, "profile": t.profile, "status": t.status,
            "round": t.round, "rounds": t.rounds, "hands": t.hands, "players": t.players,
            "capacity": t.capacity, "creator": t.creator, "created": t.created_at.isoformat()}


def club_doc(c: Club) -> _Doc:
    return {"number": c.number, "name": c.name, "owner": c.owner, "profile": c.profile,
            "members": c.members, "notice": c.notice, "created": c.created_at.isoformat()}


def table_doc(t: RunningTable) -> _Doc:
    return {"match_id": t.match_id, "table_id": t.table_id, "profile": t.profile,
            "hands_done": t.hands_done, "hands": t.hands, "stake": t.stake,
            "players": list(t.players), "server": t.owner, "started": t.started.isoformat(),
            "updated": t.updated.isoformat()}


def action_doc(a: AdminAction) -> _Doc:
    return {"id": a.id, "at": a.created_at.isoformat(), "actor": a.actor, "action": a.action,
            "account_id": a.account_id, "detail": a.detail}


def audit_doc(result: Audit, banned: Sequence[tuple[str, str | None, datetime]] = (),
              actions: Sequence[AdminAction] = ()) -> _Doc:
    """The ledger's invariants (``admin audit``), the banned accounts and the newest log."""
    return {
        "ok": result.ok, "total_balances": result.total_balances,
        "player_balances": result.player_balances, "house_balance": result.house_balance,
        "sources": dict(result.sources), "sinks": result.sinks,
        "fee_income": result.fee_income, "closure_income": result.closure_income,
        "transfers": result.transfers, "unknown_reasons": list(result.unknown_reasons),
        "mismatched_accounts": list(result.mismatched_accounts),
        "negative_accounts": list(result.negative_accounts),
        "banned": [name for name, _reason, _since in banned],
        "log": [action_doc(a) for a in actions]}


def pair_doc(p: FedPair, reports: Mapping[str, int]) -> _Doc:
    """A pair of the fair-play screen, with each one's collusion reports (by name)."""
    return {"feeder": p.feeder, "winner": p.winner, "wins": p.wins, "fed": p.fed,
            "share": p.share, "p_value": p.p_value,
            "collusion_reports": {"feeder": reports.get(p.feeder, 0),
                                  "winner": reports.get(p.winner, 0)}}


def staff_doc(m: StaffMember) -> _Doc:
    return {"username": m.username, "role": m.role, "granted_by": m.granted_by,
            "granted_at": m.granted_at.isoformat()}


def announcement_doc(a: Announcement) -> _Doc:
    return {"id": a.id, "text": a.text, "actor": a.actor, "created_at": a.created_at.isoformat(),
            "expires_at": _when(a.expires_at), "ended_at": _when(a.ended_at)}


def overview_doc(o: Overview) -> _Doc:
    return {"players": o.players, "new_players": o.new_players, "banned": o.banned,
            "matches_running": o.matches_running, "matches_since": o.matches_since,
            "reports_open": o.reports_open, "clubs": o.clubs,
            "tournaments_open": o.tournaments_open, "tournaments_running": o.tournaments_running,
            "draining": o.draining,
            "announcement": None if o.announcement is None else announcement_doc(o.announcement)}
