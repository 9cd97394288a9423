"""Alembic migrations of the judgment store (run by :func:`annotate.store.engine.open_engine`)."""
