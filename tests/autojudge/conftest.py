"""Autojudge fixtures: a database (SQLite file or PostgreSQL), a small campaign with a known
truth, and the OpenAI-compatible test server answering from that truth.

``tests/support`` is imported from the repository root (pytest's ``pythonpath`` setting in
pyproject.toml puts it on ``sys.path``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.annotate.conftest import small_collection
from tests.support.openai_server import FakeOpenAI
from tests.support.postgres import fresh_database_url

KEY_VAR = "POOLJUDGE_TEST_LLM_KEY"
KEY = "sk-test-3f9c2a7d41b8e6"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request, tmp_path) -> Iterator[str]:
    """An empty database of its own: a new SQLite file, or a new PostgreSQL database."""
    with fresh_database_url(request.param, tmp_path, "pooljudge_autojudge") as url:
        yield url


@pytest.fixture
def engine(db_url):
    from pooljudge.annotate.store import open_engine

    engine = open_engine(db_url)
    yield engine
    engine.dispose()


@dataclass
class Campaign:
    """A campaign of ``topics × docs`` pairs on a 0–2 scale, and its truth."""

    url: str
    name: str
    truth: dict[tuple[str, str], int]


def truth_of(n_topics: int, n_docs: int) -> dict[tuple[str, str], int]:
    """A known label per pair, all three grades present."""
    return {(f"t{i}", f"d{j}"): (i + 2 * j) % 3 for i in range(n_topics) for j in range(n_docs)}


@pytest.fixture
def make_campaign(engine, db_url):
    """``make_campaign(n_topics, n_docs, overlap=1) -> Campaign`` (a graded 0–2 scale)."""
    from pooljudge.annotate.records import LabelScale
    from pooljudge.annotate.store import create_campaign, session_scope

    def make(n_topics: int = 3, n_docs: int = 6, *, overlap: int = 1) -> Campaign:
        name = f"c-{uuid.uuid4().hex[:8]}"
        with session_scope(engine) as session:
            create_campaign(session, name=name, scale=LabelScale.range(0, 2), overlap=overlap,
                            order="pool", assign_mode="pair",
                            guidelines="Judge the document's topical relevance.",
                            **small_collection(n_topics, n_docs))
        return Campaign(db_url, name, truth_of(n_topics, n_docs))

    return make


@pytest.fixture
def server_for():
    """``server_for(campaign, **options) -> FakeOpenAI`` started; all stopped at the end."""
    started: list[FakeOpenAI] = []

    def start(campaign: Campaign, **options) -> FakeOpenAI:
        options.setdefault("values", (0, 1, 2))
        server = FakeOpenAI(campaign.truth, **options).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def api_key(monkeypatch) -> str:
    """The test key in :data:`KEY_VAR` (read by ``--api-key-env``)."""
    monkeypatch.setenv(KEY_VAR, KEY)
    return KEY
