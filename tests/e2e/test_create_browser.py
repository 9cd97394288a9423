"""The New campaign page in Chromium: topics, documents and a ready pool file (as
``pooljudge pool`` writes it) uploaded through the browser's file inputs make the same pairs as
``pooljudge init`` with that pool; a refusal afterwards replaces the success at the top."""

from __future__ import annotations

import pytest
from pooljudge.annotate.ui import create, keys

from pooljudge.cli import main
from tests.support.browser import wait_idle
from tests.support.new_campaign import DOCS, RUNS, TOPICS, stored_pairs


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
    stored = stored_pairs(app.engine, "uploaded")
    assert stored == stored_pairs(app.engine, "fromcli") and len(stored) == 7

    page.locator(f".st-key-{keys.CREATE_SUBMIT} button").click()  # the same name: refused
    page.get_by_text("a campaign named 'uploaded' already exists").wait_for()
    wait_idle(page)
    assert page.get_by_text("Campaign uploaded created").count() == 0
    alert = page.locator('[data-testid="stAlert"]').first
    heading = page.get_by_role("heading", name="Label scale")
    assert "Nothing was created" in alert.inner_text()
    assert alert.bounding_box()["y"] < heading.bounding_box()["y"]  # the top message area
