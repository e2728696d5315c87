"""Clubs (亲友圈): groups of players under an owner, their members and their matches.

Revision ID: v0016_clubs
Revises: v0015_puzzles
Create Date: 2026-12-05

``clubs`` holds each club (a 6-digit number, its name, owner, notice and the rules its
tables are played by); ``club_members`` each account's role in a club (owner, admin,
member, or pending: asked to join); ``club_matches`` the matches played at a club's
tables, written in the transaction that opens each.  See ``store/clubs.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0016_clubs"
down_revision: str | Sequence[str] | None = "v0015_puzzles"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "clubs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("profile", sa.String(length=32), nullable=False),
        sa.Column("preset", sa.Text(), nullable=False),
        sa.Column("notice", sa.String(length=800), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["owner_id"], ["accounts.id"],
                                name=op.f("fk_clubs_owner_id_accounts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_clubs")),
        sa.UniqueConstraint("number", name=op.f("uq_clubs_number")),
    )
    op.create_index(op.f("ix_clubs_owner_id"), "clubs", ["owner_id"])
    op.create_table(
        "club_members",
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"],
                                name=op.f("fk_club_members_club_id_clubs"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"],
                                name=op.f("fk_club_members_account_id_accounts"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("club_id", "account_id", name=op.f("pk_club_members")),
    )
    op.create_index(op.f("ix_club_members_account_id"), "club_members", ["account_id"])
    op.create_table(
        "club_matches",
        sa.Column("match_id", sa.String(length=128), nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"],
                                name=op.f("fk_club_matches_club_id_clubs"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_club_matches")),
    )
    op.create_index("ix_club_matches_club_id_created_at", "club_matches",
                    ["club_id", "created_at"])


def downgrade() -> None:
    op.drop_table("club_matches")
    op.drop_table("club_members")
    op.drop_table("clubs")
