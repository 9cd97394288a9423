"""The New campaign page in Chromium: topics, documents and a ready pool file (as
``pooljudge pool`` writes it) uploaded through the browser's file inputs make the same pairs as
``pooljudge init`` with that pool; a refusal afterwards replaces the success at the top."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.store.models import Campaign, Document, Pair, Topic
from pooljudge.annotate.ui import create, keys

from pooljudge.cli import main
from tests.support.browser import wait_idle

TOPICS = "id\ttitle\tdescription\tnarrative\n1\twidgets\tabout widgets\tn\n2\tgadgets\tg\tn\n"
DOCS = "".join(json.dumps({"id": f"d{i}", "title": f"T{i}", "text": f"text {i}"}) + "\n"
               for i in range(1, 7))
RUNS = {"runA": "1 Q0 d1 1 9 A\n1 Q0 d2 2 8 A\n1 Q0 d3 3 7 A\n2 Q0 d4 1 9 A\n2 Q0 d5 2 8 A\n",
        "runB": "1 Q0 d3 1 9 B\n1 Q0 d4 2 8 B\n1 Q0 d1 3 7 B\n2 Q0 d6 1 9 B\n2 Q0 d4 2 8 B\n"}


def _pairs(engine, campaign: str) -> list[tuple]:
    query = (sa.select(Topic.key, Document.key, Pair.pool_order, Pair.best_rank, Pair.runs)
             .join(Topic, Topic.id == Pair.topic_id).join(Document, Document.id == Pair.document_id)
             .join(Campaign, Campaign.id == Pair.campaign_id).where(Campaign.name == campaign)
             .order_by(Topic.key, Pair.pool_order))
    with session_scope(engine, readonly=True) as session:
        return [tuple(row) for row in session.execute(query).all()]


@pytest.fixture
def files(tmp_path, monkeypatch):
    """topics.tsv, docs.jsonl and pool.tsv (``pooljudge pool`` of two runs) in ``tmp_path``."""
    for name, text in [*RUNS.items(), ("topics.tsv", TOPICS), ("docs.jsonl", DOCS)]:
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["pool", "runA", "runB", "--depth", "2", "--strategy", "borda",
                 "-o", "pool.tsv"]) == 0
    return tmp_path


def _upload(page, key: str, path) -> None:
    page.locator(f".st-key-{key} input[type=file]").set_input_files(str(path))
    page.locator(f".st-key-{key}").get_by_text(path.name).wait_for()


def test_a_pool_file_uploaded_in_the_browser_makes_the_pairs_of_init(app, page, files) -> None:
    _, tokens = app.campaign(people=(("boss", "admin"),))
    assert main(["init", "fromcli", "--topics", "topics.tsv", "--docs", "docs.jsonl",
                 "--pool", "pool.tsv", "--db", str(app.engine.url)]) == 0
    app.open_as(page, tokens["boss"], "/create")
    page.get_by_role("heading", name="New campaign").wait_for()
    page.locator(f".st-key-{keys.CREATE_NAME} input").fill("uploaded")
    _upload(page, keys.CREATE_TOPICS, files / "topics.tsv")
    _upload(page, keys.CREATE_DOCS, files / "docs.jsonl")
    _upload(page, create.CREATE_POOL, files / "pool.tsv")
    page.locator(f".st-key-{keys.CREATE_SUBMIT} button").click()
    page.get_by_text("Campaign uploaded created").wait_for()
    wait_idle(page)
    stored = _pairs(app.engine, "uploaded")
    assert stored == _pairs(app.engine, "fromcli") and len(stored) == 7

    page.locator(f".st-key-{keys.CREATE_SUBMIT} button").click()  # the same name: refused
    page.get_by_text("a campaign named 'uploaded' already exists").wait_for()
    wait_idle(page)
    assert page.get_by_text("Campaign uploaded created").count() == 0
    alert = page.locator('[data-testid="stAlert"]').first
    heading = page.get_by_role("heading", name="Label scale")
    assert "Nothing was created" in alert.inner_text()
    assert alert.bounding_box()["y"] < heading.bounding_box()["y"]  # the top message area
