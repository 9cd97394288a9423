"""Shared AppTest fixtures: a fresh SQLite database for the app, opening a page as a person,
and small two-topic collections."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import Engine
from streamlit.testing.v1 import AppTest

from annotate.db import open_engine

APP = str(Path(__file__).resolve().parents[3] / "annotate" / "app.py")


@pytest.fixture
def app_db(tmp_path, monkeypatch) -> Iterator[Engine]:
    """A migrated SQLite database in ``tmp_path``, the one the app opens ($POOLJUDGE_DB)."""
    url = f"sqlite:///{tmp_path / 'app.db'}"
    monkeypatch.setenv("POOLJUDGE_DB", url)
    engine = open_engine(url)
    yield engine
    engine.dispose()


@pytest.fixture
def open_page() -> Callable[..., AppTest]:
    """``open_page(token, page=None, timeout=30)``: the app logged in with ``token`` and, when
    ``page`` is given, switched to ``app_pages/<page>.py``; fails on any exception shown."""
    def open_(token: str, page: str | None = None, *, timeout: float = 30) -> AppTest:
        at = AppTest.from_file(APP, default_timeout=timeout)
        at.query_params["token"] = token
        at.run()
        if page is not None:
            at.switch_page(f"app_pages/{page}.py").run()
        assert not at.exception, [e.value for e in at.exception]
        return at
    return open_


def two_topic_collection(docs: Mapping[str, str], text: str) -> dict[str, pd.DataFrame]:
    """Topics 7 (widgets) and 8 (gadgets), documents ``docs`` (id -> topic) with titles
    ``Title <id>`` and texts ``<text> <id>``, and a pool in that order (run r1)."""
    ids = list(docs)
    documents = pd.DataFrame({"id": ids, "title": [f"Title {d}" for d in ids],
                              "text": [f"{text} {d}" for d in ids]})
    topics = pd.DataFrame({"id": ["7", "8"], "title": ["widgets", "gadgets"],
                           "description": "d", "narrative": "n"})
    pool = pd.DataFrame({"topic": list(docs.values()), "doc": ids,
                         "order": range(1, len(ids) + 1), "best_rank": range(1, len(ids) + 1),
                         "runs": "r1"})
    return {"topics": topics, "documents": documents, "pool": pool}


@pytest.fixture
def collection() -> Callable[[Mapping[str, str], str], dict[str, pd.DataFrame]]:
    """:func:`two_topic_collection`, for test modules (conftest functions are not importable)."""
    return two_topic_collection
