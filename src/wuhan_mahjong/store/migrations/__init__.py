"""Alembic migrations of the store, applied by :func:`wuhan_mahjong.store.open_store`."""
