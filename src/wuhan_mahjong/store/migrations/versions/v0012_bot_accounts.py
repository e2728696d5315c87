"""Bot accounts told apart from guests.

Revision ID: v0012_bot_accounts
Revises: v0011_reports
Create Date: 2026-12-05

A bot's account was a guest account that never had a session.  ``accounts.is_bot`` now
says so: the housekeeping closes guest accounts nobody can use any more (no session left,
``store/closing.py``: ``close_abandoned_guests``), and must never take a bot for one.  The
bots of the stored matches are found in their seats (``matches.config``: ``is_bot``); a bot
that never sat stays unmarked, as a guest nobody uses, and is closed as one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0012_bot_accounts"
down_revision: str | Sequence[str] | None = "v0011_reports"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500


def upgrade() -> None:
    op.add_column("accounts", sa.Column("is_bot", sa.Boolean(), nullable=False,
                                        server_default=sa.false()))
    connection = op.get_bind()
    bots: set[int] = set()
    for (config,) in connection.execute(sa.text("SELECT config FROM matches")):
        try:
            seats = json.loads(config).get("seats", [])
        except (ValueError, AttributeError):
            continue
        bots.update(s["account_id"] for s in seats if isinstance(s, dict) and s.get("is_bot")
                    and isinstance(s.get("account_id"), int))
    ordered = sorted(bots)
    for start in range(0, len(ordered), BATCH):
        connection.execute(
            sa.text("UPDATE accounts SET is_bot = :yes WHERE is_guest = :yes AND id IN :ids")
            .bindparams(sa.bindparam("ids", expanding=True)),
            {"yes": True, "ids": ordered[start:start + BATCH]})


def downgrade() -> None:
    op.drop_column("accounts", "is_bot")
