"""Closing accounts (注销账号): when an account was closed.

Revision ID: v0009_account_closing
Revises: v0008_hand_stats
Create Date: 2026-12-05

``accounts.closed_at`` is set when a player (``POST /api/account/close``) or an operator
(``wuhan-mahjong admin close``) closes an account (``store/closing.py``); null for every
open account.  See ``docs/store.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0009_account_closing"
down_revision: str | Sequence[str] | None = "v0008_hand_stats"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("accounts", sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35+): a batch would copy and drop ``accounts``,
    # which every table refers to
    op.drop_column("accounts", "closed_at")
