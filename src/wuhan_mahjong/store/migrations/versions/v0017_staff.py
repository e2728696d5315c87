"""Staff: the players trusted with the staff pages (moderators and admins).

Revision ID: v0017_staff
Revises: v0016_clubs
Create Date: 2026-12-05

``staff`` holds each staff member's role (``moderator`` or ``admin``), who named him and
when.  See ``store/staff.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0017_staff"
down_revision: str | Sequence[str] | None = "v0016_clubs"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "staff",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("granted_by", sa.String(length=128), nullable=False),
        sa.Column("granted_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"],
                                name=op.f("fk_staff_account_id_accounts"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_staff")),
    )


def downgrade() -> None:
    op.drop_table("staff")
