"""Announcements: notices to every player from the operator or the staff.

Revision ID: v0018_announcements
Revises: v0017_staff
Create Date: 2026-12-05

``announcements`` holds each notice (系统公告), who gave it, when it expires and when it
was taken down; the newest one neither ended nor expired is shown.  See
``store/announcements.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0018_announcements"
down_revision: str | Sequence[str] | None = "v0017_staff"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "announcements",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("text", sa.String(length=800), nullable=False),
        sa.Column("actor", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_announcements")),
    )


def downgrade() -> None:
    op.drop_table("announcements")
