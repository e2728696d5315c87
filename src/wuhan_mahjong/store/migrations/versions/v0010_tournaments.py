"""Tournaments (比赛): rounds of matches, the players re-seated each round by standing.

Revision ID: v0010_tournaments
Revises: v0009_account_closing
Create Date: 2026-12-05

``tournaments`` (one row each: name, profile, hands per match, rounds, capacity, status,
the round being played, the secret seating seed, the creator), ``tournament_players`` (who
entered; ``withdrawn``) and ``tournament_tables`` (each round's tables: their players, the
node that claimed one to start it, and its match).  See ``store/tournaments.py`` and
``docs/store.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0010_tournaments"
down_revision: str | Sequence[str] | None = "v0009_account_closing"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("profile", sa.String(length=32), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("capacity", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("seed", sa.String(length=64), nullable=False),
        sa.Column("creator_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["creator_id"], ["accounts.id"],
                                name=op.f("fk_tournaments_creator_id_accounts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    op.create_index(op.f("ix_tournaments_status"), "tournaments", ["status"])
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("withdrawn", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"],
                                name=op.f("fk_tournament_players_account_id_accounts")),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"],
                                name=op.f("fk_tournament_players_tournament_id_tournaments"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("tournament_id", "account_id",
                                name=op.f("pk_tournament_players")),
    )
    op.create_index(op.f("ix_tournament_players_account_id"), "tournament_players",
                    ["account_id"])
    op.create_table(
        "tournament_tables",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("players", sa.String(length=256), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("owner", sa.String(length=128), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("match_id", sa.String(length=128), nullable=True),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"],
                                name=op.f("fk_tournament_tables_tournament_id_tournaments"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("tournament_id", "round", "table_no",
                                name=op.f("pk_tournament_tables")),
        sa.UniqueConstraint("match_id", name=op.f("uq_tournament_tables_match_id")),
    )
    op.create_index(op.f("ix_tournament_tables_status"), "tournament_tables", ["status"])


def downgrade() -> None:
    op.drop_index(op.f("ix_tournament_tables_status"), table_name="tournament_tables")
    op.drop_table("tournament_tables")
    op.drop_index(op.f("ix_tournament_players_account_id"), table_name="tournament_players")
    op.drop_table("tournament_players")
    op.drop_index(op.f("ix_tournaments_status"), table_name="tournaments")
    op.drop_table("tournaments")
