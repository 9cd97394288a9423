"""Store fixtures: a fresh SQLite file per test, and one fresh PostgreSQL database per session
(made on the test server by :mod:`tests.support.postgres`)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pandas as pd
import pytest

from tests.support.postgres import (
    PG_SERVER,
    create_pg_database,
    drop_pg_database,
    fresh_database_url,
)

__all__ = ["small_collection"]

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
    from pooljudge.annotate.store import open_engine

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
    from pooljudge.annotate.records import LabelScale
    from pooljudge.annotate.store import create_campaign, session_scope

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
    with fresh_database_url(request.param, tmp_path, "pooljudge_fresh") as url:
        yield url
