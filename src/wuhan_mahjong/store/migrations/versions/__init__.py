"""Alembic revision scripts (``vNNNN_*.py``), oldest first."""
