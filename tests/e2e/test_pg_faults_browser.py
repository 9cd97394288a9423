"""A PostgreSQL server that keeps dropping the app's connections (``pg_terminate_backend`` in a
loop, as a restart or a failover does) while three annotators judge in Chromium through the real
``pooljudge serve``: no page ever shows an exception, every annotator keeps progressing without
a reload, and the stored labels are exactly those the pages acknowledged (nothing lost, nothing
twice)."""

from __future__ import annotations

import threading
import time

import pandas as pd
import psycopg
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import open_engine, session_scope

from tests.support.browser import start_serve, stop_app, wait_keys_ready
from tests.support.guidelines import acknowledge_for
from tests.support.keyboard import Keyboard
from tests.support.postgres import PG_SERVER, create_pg_database, drop_pg_database

PEOPLE = ("ann", "bob", "cy")
LABELS_EACH = 6
EXCEPTION = '[data-testid="stException"]'

pytestmark = pytest.mark.postgres


@pytest.fixture
def served(tmp_path):
    name = create_pg_database("pooljudge_faults")
    url = PG_SERVER.format(database=name)
    engine = open_engine(url)
    docs = pd.DataFrame({"id": [f"d{i}" for i in range(30)], "title": "A document",
                         "text": "Widgets and more widgets."})
    topics = pd.DataFrame({"id": ["1"], "title": "widgets", "description": "Widgets.",
                           "narrative": "Anything about widgets."})
    pool = pd.DataFrame({"topic": "1", "doc": docs["id"], "order": range(1, 31),
                         "best_rank": range(1, 31), "runs": "r"})
    with session_scope(engine) as session:
        store.create_campaign(session, name="f", scale=LabelScale.binary(), overlap=3,
                              topics=topics, documents=docs, pool=pool)
        tokens = {p: store.add_annotator(session, campaign="f", name=p) for p in PEOPLE}
    for token in tokens.values():
        acknowledge_for(engine, token)
    base, process = start_serve(url, tmp_path / "serve.log")
    try:
        yield base, engine, name, tokens
    finally:
        stop_app(process)
        engine.dispose()
        drop_pg_database(name)


def _terminator(database: str, stop: threading.Event, killed: list[int]) -> None:
    """Every 3 s, end every connection to ``database`` (the app's and the test's): a server
    restarting again and again while people judge."""
    with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=postgres",
                         autocommit=True) as admin:
        while not stop.wait(3.0):
            rows = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                 "WHERE datname = %s AND pid <> pg_backend_pid()",
                                 (database,)).fetchall()
            killed.append(len(rows))


def _press_when_ready(page, keyboard: Keyboard) -> str | None:
    """Press 1 on the pair on screen once the pane takes keys; the document labelled when the
    page moved on to another pair (the label acknowledged), None when it did not."""
    wait_keys_ready(page)
    shown = keyboard.on_screen()
    before = shown["pair"]
    keyboard.hold("1", 0.02)
    page.wait_for_function(
        "(before) => { const g = window.__pooljudgeGate; const app = document.querySelector("
        "'[data-testid=\"stApp\"]'); return g && !g.pending && app.getAttribute("
        "'data-test-script-state') === 'notRunning'; }", arg=before, timeout=60_000)
    wait_keys_ready(page)
    after = keyboard.on_screen()["pair"]
    return shown["doc"] if after not in (None, before) else None


def test_dropped_connections_show_no_exception_and_lose_nothing(served, browser):
    base, engine, database, tokens = served
    stop, killed = threading.Event(), []
    pages = {}
    for person, token in tokens.items():
        page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
        page.set_default_timeout(60_000)
        page.goto(f"{base}/judge?token={token}")
        pages[person] = page
    acknowledged = {p: [] for p in PEOPLE}
    terminator = threading.Thread(target=_terminator, args=(database, stop, killed))
    terminator.start()
    try:
        deadline = time.monotonic() + 400
        while min(map(len, acknowledged.values())) < LABELS_EACH:
            assert time.monotonic() < deadline, acknowledged
            for person, page in pages.items():
                if len(acknowledged[person]) < LABELS_EACH:
                    moved = _press_when_ready(page, Keyboard(page))
                    if moved is not None:
                        acknowledged[person].append(moved)
                assert page.locator(EXCEPTION).count() == 0, person
    finally:
        stop.set()
        terminator.join(10)
    assert sum(killed) > 0  # the app's connections really were dropped meanwhile
    with session_scope(engine, readonly=True) as session:
        stored = store.judgments_frame(session, campaign="f")
    for person in PEOPLE:
        mine = stored[stored["annotator"] == person]
        assert len(mine) == len(set(mine["doc"]))  # nothing twice
        # every acknowledged label is stored (a label the page did not acknowledge may be
        # stored too: the write committed, the answer was lost with the connection)
        assert set(acknowledged[person]) <= set(mine["doc"]), person
    for page in pages.values():
        page.context.close()
