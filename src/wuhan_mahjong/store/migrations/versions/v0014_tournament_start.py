"""A tournament's start time (定时开赛).

Revision ID: v0014_tournament_start
Revises: v0013_blocks
Create Date: 2026-12-05

``tournaments.starts_at``: when an open tournament starts by itself (with the players
entered, or called off below four); null for one its creator starts by hand, as every
tournament made before this revision.  See ``store/tournaments.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0014_tournament_start"
down_revision: str | Sequence[str] | None = "v0013_blocks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("tournaments", sa.Column("starts_at", sa.DateTime(timezone=True),
                                           nullable=True))


def downgrade() -> None:
    op.drop_column("tournaments", "starts_at")
