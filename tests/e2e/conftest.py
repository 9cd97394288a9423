"""Real-browser fixtures: one Streamlit server per test module on a temporary SQLite database,
Debian's Chromium driven by Playwright (never ``playwright install``).

Tests create their own campaigns and people directly through the store, in the same database
file the server reads, so every test starts from a state it controls. Chromium missing is a
failure, not a skip: CI installs it (``.ci/run``).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import open_engine, session_scope

from tests.support.browser import CHROMIUM, launch_chromium, start_app, stop_app, wait_idle
from tests.support.guidelines import acknowledge_for

TIMEOUT_MS = 20_000


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder is a real-browser test (``-m e2e`` selects them)."""
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


@dataclass
class App:
    """A running server and helpers to set up campaigns and read back what was stored."""

    url: str
    engine: object
    _names: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def campaign(self, *, docs: pd.DataFrame | None = None, overlap: int = 1, topics: int = 1,
                 people: tuple[tuple[str, str], ...] = (("ann", "annotator"),),
                 min_dwell_ms: int = 300, cannot_judge: bool = False
                 ) -> tuple[str, dict[str, str]]:
        """A fresh binary campaign over ``docs`` (six plain documents by default) for
        ``topics`` topics, pooled in document order; returns its name and tokens by person."""
        name = f"c{next(self._names)}"
        if docs is None:
            docs = pd.DataFrame({"id": [f"d{i}" for i in range(1, 7)],
                                 "title": [f"Document number {i}" for i in range(1, 7)],
                                 "text": [f"Body of document {i} about widgets." for i in
                                          range(1, 7)]})
        topic_ids = [str(100 + t) for t in range(1, topics + 1)]
        topic_frame = pd.DataFrame({"id": topic_ids, "title": [f"widgets {t}" for t in topic_ids],
                                    "description": "Find documents about widgets.",
                                    "narrative": "Anything about widgets is relevant."})
        pool = pd.DataFrame([(t, d, i + 1, i + 1, "runA") for t in topic_ids
                             for i, d in enumerate(docs["id"])],
                            columns=["topic", "doc", "order", "best_rank", "runs"])
        with session_scope(self.engine) as session:
            store.create_campaign(session, name=name, scale=LabelScale.binary(), overlap=overlap,
                                  topics=topic_frame, documents=docs, pool=pool,
                                  min_dwell_ms=min_dwell_ms, cannot_judge=cannot_judge)
            tokens = {person: store.add_annotator(session, campaign=name, name=person, role=role)
                      for person, role in people}
        return name, tokens

    def open_as(self, page, token: str, path: str = "/", *, read_guidelines: bool = True
                ) -> None:
        """Open ``path`` logged in with ``token``, as a person who has read the current
        guidelines unless ``read_guidelines`` is False (the gate's own tests)."""
        if read_guidelines:
            acknowledge_for(self.engine, token)
        page.goto(f"{self.url}{path}?token={token}")
        wait_idle(page)

    def judgments(self, campaign: str, *, latest_only: bool = False) -> pd.DataFrame:
        with session_scope(self.engine) as session:
            return store.judgments_frame(session, campaign=campaign, latest_only=latest_only)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    folder = tmp_path_factory.mktemp("e2e")
    db_url = f"sqlite:///{folder / 'app.db'}"
    engine = open_engine(db_url)
    base, process = start_app(db_url, folder / "streamlit.log")
    try:
        yield App(base, engine)
    finally:
        stop_app(process)
        engine.dispose()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = launch_chromium(playwright)
        yield instance
        instance.close()


@pytest.fixture
def page(browser) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    yield tab
    context.close()


@pytest.fixture
def laptop(browser) -> Iterator[object]:
    """A tab on a 1366x768 laptop screen (modules that try other sizes define their own)."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    tab = context.new_page()
    tab.set_default_timeout(20_000)
    yield tab
    context.close()
