"""Admin tools and skill ratings: bans, the admin event log, server flags, ratings.

Revision ID: v0004_admin_ratings
Revises: v0002_match_log
Create Date: 2026-12-01

``account_bans`` holds the banned accounts (no login, no session, no seat);
``admin_actions`` is the event log of every ``wuhan-mahjong admin`` command;
``server_flags`` carries switches the running servers poll (``drain``).
``ratings`` is each player's openskill rating per profile and ``rated_results``
each rated match's changes (the weekly leaderboard).  See ``docs/operations.md``
and ``docs/store.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0004_admin_ratings"
down_revision: str | Sequence[str] | None = "v0002_match_log"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _time(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False)


def _account() -> sa.Column[object]:
    return sa.Column("account_id", sa.Integer(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "ratings",
        _account(),
        sa.Column("profile", sa.String(length=32), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        _time("updated_at"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"],
                                name=op.f("fk_ratings_account_id_accounts"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id", "profile", name=op.f("pk_ratings")),
    )
    op.create_index("ix_ratings_profile_ordinal", "ratings", ["profile", "ordinal"])
    op.create_table(
        "rated_results",
        sa.Column("match_id", sa.String(length=128), nullable=False),
        _account(),
        sa.Column("profile", sa.String(length=32), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        _time("rated_at"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"],
                                name=op.f("fk_rated_results_account_id_accounts"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("match_id", "account_id", name=op.f("pk_rated_results")),
    )
    op.create_index("ix_rated_results_profile_rated_at", "rated_results", ["profile", "rated_at"])
    op.create_table(
        "account_bans",
        _account(),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("actor", sa.String(length=128), nullable=False),
        _time("banned_at"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"],
                                name=op.f("fk_account_bans_account_id_accounts"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_account_bans")),
    )
    op.create_table(
        "admin_actions",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        _time("created_at"),
        sa.Column("actor", sa.String(length=128), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_admin_actions")),
    )
    op.create_table(
        "server_flags",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("value", sa.String(length=256), nullable=False),
        _time("updated_at"),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_server_flags")),
    )


def downgrade() -> None:
    op.drop_table("server_flags")
    op.drop_table("admin_actions")
    op.drop_table("account_bans")
    op.drop_index("ix_rated_results_profile_rated_at", table_name="rated_results")
    op.drop_table("rated_results")
    op.drop_index("ix_ratings_profile_ordinal", table_name="ratings")
    op.drop_table("ratings")
