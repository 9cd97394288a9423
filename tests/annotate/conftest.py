"""Store fixtures: a fresh SQLite file per test, and one fresh PostgreSQL database per session.

PostgreSQL is the server on 127.0.0.1:5432 (user postgres, trust authentication). When it is
unreachable the PostgreSQL tests fail under CI (``CI=true``) and are skipped elsewhere.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pandas as pd
import pytest

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


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """URL of a fresh PostgreSQL database for this test session, dropped at the end."""
    name = create_pg_database()
    try:
        yield PG_SERVER.format(database=name)
    finally:
        drop_pg_database(name)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request, tmp_path) -> str:
    """A database URL: a new SQLite file, or the session's PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def engine(db_url):
    """A migrated engine on ``db_url``, disposed after the test."""
    from annotate.db import open_engine

    engine = open_engine(db_url)
    yield engine
    engine.dispose()


def small_collection(n_topics: int = 2, n_docs: int = 3) -> dict[str, pd.DataFrame]:
    """Topics, documents and a pool of every (topic, doc): pool order = doc number."""
    topics = pd.DataFrame({"id": [f"t{i}" for i in range(n_topics)],
                           "title": [f"title {i}" for i in range(n_topics)],
                           "description": "desc", "narrative": "narr"})
    documents = pd.DataFrame({"id": [f"d{j}" for j in range(n_docs)],
                              "title": [f"doc {j}" for j in range(n_docs)],
                              "text": [f"text <b>{j}</b>" for j in range(n_docs)]})
    pool = pd.DataFrame([(f"t{i}", f"d{j}", j + 1, j + 1, "runA,runB")
                         for i in range(n_topics) for j in range(n_docs)],
                        columns=["topic", "doc", "order", "best_rank", "runs"])
    return {"topics": topics, "documents": documents, "pool": pool}


@pytest.fixture
def make_campaign(engine):
    """Create a uniquely named campaign: ``make_campaign(overlap=2, n_topics=…, …) -> name``."""
    from annotate.db import session_scope
    from annotate.records import LabelScale
    from annotate.store import create_campaign

    def make(*, overlap: int = 1, n_topics: int = 2, n_docs: int = 3, scale=None,
             assign_mode: str = "pair", order: str = "pool") -> str:
        name = f"c-{uuid.uuid4().hex[:8]}"
        with session_scope(engine) as session:
            create_campaign(session, name=name, scale=scale or LabelScale.binary(),
                            overlap=overlap, order=order, assign_mode=assign_mode,
                            **small_collection(n_topics, n_docs))
        return name

    return make


@pytest.fixture
def collection():
    """The :func:`small_collection` builder."""
    return small_collection


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def fresh_db_url(request, tmp_path) -> Iterator[str]:
    """An empty database of its own: a new SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.db'}"
        return
    name = create_pg_database("pooljudge_fresh")
    try:
        yield PG_SERVER.format(database=name)
    finally:
        drop_pg_database(name)
