"""Players' statistics (战绩): how each seat fared in each recorded hand.

Revision ID: v0008_hand_stats
Revises: v0007_follows
Create Date: 2026-12-05

``hand_stats`` holds one row per seat of each hand record: the profile, the seat's
points, whether he won (on his own draw or not), dealt in, claimed a discard or escaped,
whether the hand was exhausted, and the big hands he won with.  ``store/stats.py`` adds
them up for the profile page and the public player page.  This revision also writes the
rows of the hands recorded before it, from their events
(``engine.records.record_outcome``), a batch of records at a time.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from wuhan_mahjong.store.stats import outcome_of, stat_values

revision: str = "v0008_hand_stats"
down_revision: str | Sequence[str] | None = "v0007_follows"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500

hand_records = sa.table("hand_records", sa.column("id", sa.BigInteger),
                        sa.column("events", sa.Text))
hand_seats = sa.table("hand_seats", sa.column("record_id", sa.BigInteger),
                      sa.column("seat", sa.Integer), sa.column("account_id", sa.Integer))


def upgrade() -> None:
    hand_stats = op.create_table(
        "hand_stats",
        sa.Column("record_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
                  nullable=False),  # as hand_records.id
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("profile", sa.String(length=32), nullable=False),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("self_drawn", sa.Boolean(), nullable=False),
        sa.Column("dealt_in", sa.Boolean(), nullable=False),
        sa.Column("claimed", sa.Boolean(), nullable=False),
        sa.Column("escaped", sa.Boolean(), nullable=False),
        sa.Column("exhausted", sa.Boolean(), nullable=False),
        sa.Column("big_hands", sa.String(length=160), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"],
                                name=op.f("fk_hand_stats_account_id_accounts")),
        sa.ForeignKeyConstraint(["record_id"], ["hand_records.id"],
                                name=op.f("fk_hand_stats_record_id_hand_records"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("record_id", "seat", name=op.f("pk_hand_stats")),
    )
    assert hand_stats is not None
    op.create_index("ix_hand_stats_account_id_profile", "hand_stats", ["account_id", "profile"])
    bind = op.get_bind()
    last = 0
    while True:
        batch = bind.execute(sa.select(hand_records.c.id, hand_records.c.events)
                             .where(hand_records.c.id > last)
                             .order_by(hand_records.c.id).limit(BATCH)).all()
        if not batch:
            break
        last = int(batch[-1][0])
        ids = [int(r[0]) for r in batch]
        seats: dict[int, dict[int, int]] = {}
        for record_id, seat, account_id in bind.execute(
                sa.select(hand_seats.c.record_id, hand_seats.c.seat, hand_seats.c.account_id)
                .where(hand_seats.c.record_id.in_(ids))):
            seats.setdefault(int(record_id), {})[int(seat)] = int(account_id)
        rows = []
        for record_id, events in batch:
            outcome = outcome_of(str(events))
            if outcome is not None:
                rows += stat_values(int(record_id), seats.get(int(record_id), {}), outcome)
        if rows:
            op.bulk_insert(hand_stats, rows)


def downgrade() -> None:
    op.drop_index("ix_hand_stats_account_id_profile", table_name="hand_stats")
    op.drop_table("hand_stats")
