"""Blocking players (屏蔽): who blocks whom.

Revision ID: v0013_blocks
Revises: v0012_bot_accounts
Create Date: 2026-12-05

``blocks`` holds one row per (blocker, blocked): neither may follow the other (so neither
can invite the other), and the blocker's client hides the blocked player's quick chat.  A
player blocks at most ``store.social.BLOCK_MAX`` others.  See ``docs/store.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0013_blocks"
down_revision: str | Sequence[str] | None = "v0012_bot_accounts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "blocks",
        sa.Column("blocker_id", sa.Integer(), nullable=False),
        sa.Column("blocked_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["blocker_id"], ["accounts.id"],
                                name=op.f("fk_blocks_blocker_id_accounts"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["blocked_id"], ["accounts.id"],
                                name=op.f("fk_blocks_blocked_id_accounts"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("blocker_id", "blocked_id", name=op.f("pk_blocks")),
    )


def downgrade() -> None:
    op.drop_table("blocks")
