"""The test PostgreSQL server: fresh databases made and dropped by the tests that need them.

The server is the one on 127.0.0.1:5432 (user postgres, trust authentication). When it is
unreachable the PostgreSQL tests fail under CI (``CI=true``) and are skipped elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["PG_SERVER", "create_pg_database", "drop_pg_database", "fresh_database_url"]

PG_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432/{database}"


def _admin_connect():
    import psycopg

    return psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=postgres",
                           autocommit=True, connect_timeout=5)


def create_pg_database(prefix: str = "pooljudge_test") -> str:
    """Create a uniquely named empty database; its name. Fails or skips when unreachable."""
    import psycopg

    name = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    try:
        with _admin_connect() as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as exc:
        message = f"PostgreSQL on 127.0.0.1:5432 is unreachable: {exc}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return name


def drop_pg_database(name: str) -> None:
    """Drop a database made by :func:`create_pg_database` (closing its connections)."""
    with _admin_connect() as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def fresh_database_url(backend: str, folder: Path, prefix: str) -> Iterator[str]:
    """An empty database of its own for ``backend`` (``sqlite``: a new file in ``folder``;
    ``postgresql``: a new database named after ``prefix``, dropped afterwards)."""
    if backend == "sqlite":
        yield f"sqlite:///{folder / f'{prefix}.db'}"
        return
    name = create_pg_database(prefix)
    try:
        yield PG_SERVER.format(database=name)
    finally:
        drop_pg_database(name)
