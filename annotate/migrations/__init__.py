"""Alembic migrations of the judgment store (run by :func:`annotate.db.open_engine`)."""
