"""The durable match log: running matches and their applied actions (write-ahead).

Revision ID: v0002_match_log
Revises: 0001
Create Date: 2026-12-01

``matches`` holds one row per match a table runs: what the table needs to go
on after a crash (the secret seed of its walls and salts, the rules and room
options, the seats), its status and the fencing ``epoch`` of the process that
runs it.  ``match_events`` is the ordered log of everything that changed the
game (actions, whoever chose them, escapes, auto-play switches), written
before any player sees the result.  See ``docs/store.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "v0002_match_log"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _time(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("match_id", sa.String(length=128), nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("seed", sa.String(length=128), nullable=False),
        sa.Column("config", sa.Text(), nullable=False),
        sa.Column("hands_done", sa.Integer(), nullable=False),
        sa.Column("totals", sa.String(length=256), nullable=False),
        sa.Column("next_seq", sa.Integer(), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(length=128), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        _time("created_at"),
        _time("updated_at"),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_matches")),
    )
    op.create_index(op.f("ix_matches_status"), "matches", ["status"])
    op.create_table(
        "match_events",
        sa.Column("match_id", sa.String(length=128), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("hand_no", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("data", sa.Text(), nullable=True),
        sa.Column("source", sa.String(length=16), nullable=True),
        _time("created_at"),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.match_id"],
            name=op.f("fk_match_events_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "seq", name=op.f("pk_match_events")),
    )


def downgrade() -> None:
    op.drop_table("match_events")
    op.drop_index(op.f("ix_matches_status"), table_name="matches")
    op.drop_table("matches")
