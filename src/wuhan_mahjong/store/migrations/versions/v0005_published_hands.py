"""Shareable replays: a ``published`` flag on hand records (private by default).

Revision ID: v0005_published_hands
Revises: v0004_admin_ratings
Create Date: 2026-12-01

A hand's players may publish its record (``POST /api/hands/{match}/{n}/publish``);
a published record is readable by anyone, without an account, at
``GET /api/public/hands/{match}/{n}``.  Every existing record stays private.
See ``docs/store.md`` and ``docs/protocol.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0005_published_hands"
down_revision: str | Sequence[str] | None = "v0004_admin_ratings"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("hand_records") as batch:
        batch.add_column(sa.Column("published", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("hand_records") as batch:
        batch.drop_column("published")
