"""Puzzles (何切, 胡不胡): each account's first answers and its record per kind.

Revision ID: v0015_puzzles
Revises: v0014_tournament_start
Create Date: 2026-12-05

``puzzle_attempts`` holds an account's first answer to each puzzle (kind, profile, number):
the answer (a tile for a discard puzzle, yes or no for a win question) and whether it was
right; ``puzzle_stats`` its running record per kind (first answers, right ones, the current
and the best run of right answers), updated with each attempt.
Both go with the account when it is closed.  See ``store/puzzles.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0015_puzzles"
down_revision: str | Sequence[str] | None = "v0014_tournament_start"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "puzzle_attempts",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("profile", sa.String(length=16), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("answer", sa.String(length=4), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"],
                                name=op.f("fk_puzzle_attempts_account_id_accounts"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id", "kind", "profile", "number",
                                name=op.f("pk_puzzle_attempts")),
    )
    op.create_index("ix_puzzle_attempts_account_id_created_at", "puzzle_attempts",
                    ["account_id", "created_at"])
    op.create_table(
        "puzzle_stats",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("attempted", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("best_streak", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"],
                                name=op.f("fk_puzzle_stats_account_id_accounts"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id", "kind", name=op.f("pk_puzzle_stats")),
    )


def downgrade() -> None:
    op.drop_table("puzzle_stats")
    op.drop_table("puzzle_attempts")
