"""Players' reports of players (举报).

Revision ID: v0011_reports
Revises: v0010_tournaments
Create Date: 2026-12-05

``reports`` holds one row per report: who reported whom, for what (``collusion``,
``cheating``, ``stalling``, ``escaping`` or ``name``), in which match and seat, and whether
an operator closed it (with a note).  See ``store/reports.py`` and ``docs/store.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0011_reports"
down_revision: str | Sequence[str] | None = "v0010_tournaments"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "reports",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("reporter_id", sa.Integer(), nullable=False),
        sa.Column("reported_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.Column("match_id", sa.String(length=128), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("note", sa.String(length=256), nullable=True),
        sa.Column("closed_by", sa.String(length=128), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["reporter_id"], ["accounts.id"],
                                name=op.f("fk_reports_reporter_id_accounts")),
        sa.ForeignKeyConstraint(["reported_id"], ["accounts.id"],
                                name=op.f("fk_reports_reported_id_accounts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reports")),
    )
    op.create_index(op.f("ix_reports_reported_id"), "reports", ["reported_id"])
    op.create_index(op.f("ix_reports_status"), "reports", ["status"])
    op.create_index("ix_reports_reporter_id_created_at", "reports", ["reporter_id", "created_at"])


def downgrade() -> None:
    op.drop_table("reports")
