"""Rooms: the private rooms waiting for players, kept over a restart.

Revision ID: v0020_rooms
Revises: v0019_day_indexes
Create Date: 2026-12-05

``rooms`` holds each room that waits for its players (房间): its code, the node process
that holds it and its state (host, options, members).  A server that starts again, or a
cluster node that takes over a dead node's work, opens them again, their members away
until they reconnect (``store/rooms.py``, ``server/lobby.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0020_rooms"
down_revision: str | Sequence[str] | None = "v0019_day_indexes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(length=16), nullable=False),
        sa.Column("owner", sa.String(length=255), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("code", name=op.f("pk_rooms")),
    )


def downgrade() -> None:
    op.drop_table("rooms")
