"""Usernames unique by skeleton: rekey the accounts registered before (data only).

Revision ID: v0006_username_skeletons
Revises: v0005_published_hands
Create Date: 2026-12-01

``accounts.username_key`` was the NFKC + case-folded name; it is now the name's
look-alike skeleton (``store.accounts.username_skeleton``: Cyrillic ``а`` counts
as ``a``, ``l``/``I``/``1`` as one letter), so that a new name confusable with an
existing one is refused by the unique key.  This revision rewrites the keys of the
registered accounts.  Two old names that share a skeleton cannot both have it: the
older account (lowest id) gets it, the other keeps its old key (it still logs in,
by its exact name; ``docs/store.md``).  Guests and the house keep theirs.  No
schema change.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence

import sqlalchemy as sa
from alembic import op

from wuhan_mahjong.store.accounts import username_skeleton

revision: str = "v0006_username_skeletons"
down_revision: str | Sequence[str] | None = "v0005_published_hands"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

accounts = sa.table(
    "accounts",
    sa.column("id", sa.Integer),
    sa.column("username", sa.String),
    sa.column("username_key", sa.String),
    sa.column("is_guest", sa.Boolean),
    sa.column("is_house", sa.Boolean),
)


def _rekey(key_of: Callable[[str], str]) -> None:
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(accounts.c.id, accounts.c.username, accounts.c.username_key)
        .where(accounts.c.is_guest.is_(False), accounts.c.is_house.is_(False))
        .order_by(accounts.c.id)
    ).all()
    taken = set(bind.execute(sa.select(accounts.c.username_key)).scalars())
    for account_id, username, old in rows:
        new = key_of(username)
        if new == old or new in taken:
            continue
        bind.execute(sa.update(accounts).where(accounts.c.id == account_id).values(username_key=new))
        taken.discard(old)
        taken.add(new)


def upgrade() -> None:
    _rekey(username_skeleton)


def downgrade() -> None:
    _rekey(lambda name: unicodedata.normalize("NFKC", name).casefold())
