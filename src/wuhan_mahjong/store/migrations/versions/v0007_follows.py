"""Following players (关注): who follows whom.

Revision ID: v0007_follows
Revises: v0006_username_skeletons
Create Date: 2026-12-04

``follows`` holds one row per (follower, followee): the follower's list shows each
followed player online or not and at which table (``GET /api/following``).  A player
follows at most ``store.social.FOLLOW_MAX`` others.  See ``docs/store.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0007_follows"
down_revision: str | Sequence[str] | None = "v0006_username_skeletons"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "follows",
        sa.Column("follower_id", sa.Integer(), nullable=False),
        sa.Column("followee_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["follower_id"], ["accounts.id"],
                                name=op.f("fk_follows_follower_id_accounts"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["followee_id"], ["accounts.id"],
                                name=op.f("fk_follows_followee_id_accounts"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("follower_id", "followee_id", name=op.f("pk_follows")),
    )


def downgrade() -> None:
    op.drop_table("follows")
