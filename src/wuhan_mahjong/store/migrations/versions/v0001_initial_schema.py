"""Initial schema: accounts, sessions, silver ledger, settlements, match history, hand records.

Revision ID: 0001
Revises:
Create Date: 2026-11-29

Also creates the house account, which receives the service fees.
Migrations spell out their tables instead of importing the models, so that
they keep describing the schema of their own time.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
HOUSE_USERNAME = "#house"  # '#' is not allowed in usernames: no clash possible


def _time(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    accounts = op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=32), nullable=False),
        sa.Column("username_key", sa.String(length=32), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=True),
        sa.Column("is_guest", sa.Boolean(), nullable=False),
        sa.Column("is_house", sa.Boolean(), nullable=False),
        sa.Column("silver", sa.BigInteger(), nullable=False),
        sa.Column("points", sa.BigInteger(), nullable=False),
        _time("created_at"),
        sa.CheckConstraint("silver >= 0", name=op.f("ck_accounts_silver_not_negative")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("username_key", name=op.f("uq_accounts_username_key")),
    )
    op.create_table(
        "auth_sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        _time("created_at"),
        _time("expires_at", nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_auth_sessions_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_auth_sessions")),
    )
    op.create_index(op.f("ix_auth_sessions_account_id"), "auth_sessions", ["account_id"])
    op.create_table(
        "ledger",
        sa.Column("id", BigId, nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("delta", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("reference", sa.String(length=128), nullable=True),
        _time("created_at"),
        sa.CheckConstraint(
            "balance_after >= 0", name=op.f("ck_ledger_balance_after_not_negative")
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_ledger_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger")),
    )
    op.create_index("ix_ledger_account_id_id", "ledger", ["account_id", "id"])
    op.create_table(
        "settlements",
        sa.Column("game_id", sa.String(length=128), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("profile", sa.String(length=32), nullable=False),
        sa.Column("stake", sa.BigInteger(), nullable=True),
        sa.Column("fee", sa.BigInteger(), nullable=False),
        sa.Column("fees_collected", sa.BigInteger(), nullable=False),
        _time("settled_at"),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_settlements")),
    )
    op.create_table(
        "match_results",
        sa.Column("game_id", sa.String(length=128), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("profile", sa.String(length=32), nullable=False),
        sa.Column("points_delta", sa.BigInteger(), nullable=False),
        sa.Column("silver_delta", sa.BigInteger(), nullable=False),
        sa.Column("fee", sa.BigInteger(), nullable=False),
        sa.Column("escaped", sa.Boolean(), nullable=False),
        _time("finished_at"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_match_results_account_id_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["settlements.game_id"],
            name=op.f("fk_match_results_game_id_settlements"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "account_id", name=op.f("pk_match_results")),
    )
    op.create_index(
        "ix_match_results_account_id_finished_at", "match_results", ["account_id", "finished_at"]
    )
    op.create_table(
        "hand_records",
        sa.Column("id", BigId, nullable=False),
        sa.Column("match_id", sa.String(length=128), nullable=False),
        sa.Column("hand_no", sa.Integer(), nullable=False),
        sa.Column("commitment", sa.String(length=128), nullable=False),
        sa.Column("wall", sa.Text(), nullable=False),
        sa.Column("salt", sa.String(length=256), nullable=False),
        sa.Column("events", sa.Text(), nullable=False),
        _time("finished_at"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hand_records")),
        sa.UniqueConstraint(
            "match_id", "hand_no", name=op.f("uq_hand_records_match_id_hand_no")
        ),
    )
    op.create_table(
        "hand_seats",
        sa.Column("record_id", BigId, nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_hand_seats_account_id_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["record_id"],
            ["hand_records.id"],
            name=op.f("fk_hand_seats_record_id_hand_records"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("record_id", "seat", name=op.f("pk_hand_seats")),
        sa.UniqueConstraint(
            "record_id", "account_id", name=op.f("uq_hand_seats_record_id_account_id")
        ),
    )
    op.create_index(op.f("ix_hand_seats_account_id"), "hand_seats", ["account_id"])

    op.execute(
        accounts.insert().values(
            username=HOUSE_USERNAME,
            username_key=HOUSE_USERNAME,
            password_hash=None,
            is_guest=False,
            is_house=True,
            silver=0,
            points=0,
            created_at=sa.func.current_timestamp(),
        )
    )


def downgrade() -> None:
    op.drop_table("hand_seats")
    op.drop_table("hand_records")
    op.drop_index("ix_match_results_account_id_finished_at", table_name="match_results")
    op.drop_table("match_results")
    op.drop_table("settlements")
    op.drop_index("ix_ledger_account_id_id", table_name="ledger")
    op.drop_table("ledger")
    op.drop_index(op.f("ix_auth_sessions_account_id"), table_name="auth_sessions")
    op.drop_table("auth_sessions")
    op.drop_table("accounts")
