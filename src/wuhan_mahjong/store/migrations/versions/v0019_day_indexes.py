"""Indexes on when an account was made and when a match was settled.

Revision ID: v0019_day_indexes
Revises: v0018_announcements
Create Date: 2026-12-05

The staff pages' first screen counts today's new players and today's matches
(``Admin.overview``); without these indexes each count read the whole table.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "v0019_day_indexes"
down_revision: str | Sequence[str] | None = "v0018_announcements"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(op.f("ix_accounts_created_at"), "accounts", ["created_at"])
    op.create_index(op.f("ix_settlements_settled_at"), "settlements", ["settled_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_settlements_settled_at"), table_name="settlements")
    op.drop_index(op.f("ix_accounts_created_at"), table_name="accounts")
