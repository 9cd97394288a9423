"""The app served on PostgreSQL in real Chromium: log in by link, judge two pairs with the
keyboard, and find the judgments in PostgreSQL itself.

The server, its fresh database and the campaign belong to this module (the shared ``app``
fixture serves SQLite); the ``page`` fixture of conftest.py supplies the browser tab.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from pooljudge.annotate.store import open_engine

from tests.e2e.conftest import App
from tests.support.browser import (
    CHROMIUM,
    shown_doc,
    shown_pair,
    start_app,
    stop_app,
    wait_for_new_pair,
    wait_idle,
)
from tests.support.postgres import PG_SERVER, create_pg_database, drop_pg_database

pytestmark = pytest.mark.postgres





@pytest.fixture(scope="module")
def pg_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The app served on a fresh PostgreSQL database, dropped afterwards."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    name = create_pg_database("pooljudge_e2e")
    url = PG_SERVER.format(database=name)
    engine = open_engine(url)
    try:
        assert engine.dialect.name == "postgresql"
        base, process = start_app(url, tmp_path_factory.mktemp("pg-e2e") / "streamlit.log")
        try:
            yield App(base, engine)
        finally:
            stop_app(process)
    finally:
        engine.dispose()
        drop_pg_database(name)


def _stored_labels(app, campaign: str) -> list[tuple[str, str, int, int, str]]:
    """(annotator, doc, label, version, source) of every judgment row, read with plain SQL."""
    with app.engine.connect() as connection:
        rows = connection.exec_driver_sql(
            "SELECT a.name, d.key, j.label, j.version, j.source FROM judgment j "
            "JOIN pair p ON p.id = j.pair_id JOIN document d ON d.id = p.document_id "
            "JOIN annotator a ON a.id = j.annotator_id JOIN campaign c ON c.id = p.campaign_id "
            "WHERE c.name = %(campaign)s ORDER BY j.id", {"campaign": campaign}).all()
    return [tuple(row) for row in rows]


def test_keyboard_judgments_land_in_postgresql(pg_app, page) -> None:
    campaign, tokens = pg_app.campaign(people=(("pat", "annotator"),))
    pg_app.open_as(page, tokens["pat"])
    assert "pat · annotator" in page.inner_text("body")
    seen, pair = [], shown_pair(page)
    for digit in "10":
        seen.append(shown_doc(page))  # waits until the label shortcuts are bound
        page.keyboard.press(digit)
        pair = wait_for_new_pair(page, pair)
    wait_idle(page)
    assert seen[0] != seen[1]
    assert _stored_labels(pg_app, campaign) == [
        ("pat", seen[0], 1, 1, "human"), ("pat", seen[1], 0, 1, "human")]
    frame = pg_app.judgments(campaign)  # the store agrees, with the time spent on each
    assert frame[["doc", "label"]].values.tolist() == [[seen[0], 1], [seen[1], 0]]
    assert (frame["seconds"] > 0).all()
