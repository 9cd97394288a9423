"""Admin pages in a real browser: every page renders without an exception, and the export
downloads the qrels decided from the stored judgments."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import keys

from tests.support.browser import DONE_TEXT, wait_idle, wait_keys_ready

EXPECTED = {"overview": "By annotator", "agreement": "Most disagreed pairs",
            "export": "Download qrels", "evaluate": "Current qrels: 6 judged pairs",
            "create": "Create campaign", "adjudicate": "disagreements wait for a decision"}
PEOPLE = (("boss", "admin"), ("a", "annotator"), ("b", "annotator"))


@pytest.fixture
def judged(app) -> tuple[str, dict[str, str]]:
    """A campaign (overlap 2) where a and b judged every pair and disagree on d2 and d5."""
    campaign, tokens = app.campaign(overlap=2, people=PEOPLE)
    docs = [f"d{i}" for i in range(1, 7)]
    labels = {"a": [1, 1, 0, 0, 1, 0], "b": [1, 0, 0, 0, 0, 0]}
    frame = pd.DataFrame([(n, "101", d, lab) for n, row in labels.items()
                          for d, lab in zip(docs, row, strict=True)],
                         columns=["annotator", "topic", "doc", "label"])
    with session_scope(app.engine) as session:
        store.import_judgments(session, campaign=campaign, frame=frame, source="human")
    return campaign, tokens


@pytest.mark.parametrize("path", ["overview", "agreement", "export", "evaluate", "create",
                                  "adjudicate"])
def test_admin_page_renders(app, page, judged, path: str) -> None:
    _, tokens = judged
    app.open_as(page, tokens["boss"], f"/{path}")
    page.wait_for_selector(f'[data-testid="stSidebarNav"] a[href$="/{path}"]')
    page.get_by_text(EXPECTED[path]).first.wait_for()
    wait_idle(page)
    body = page.inner_text("body")
    assert page.locator('[data-testid="stException"]').count() == 0, body
    assert "login link" not in body


def test_admin_export_downloads_the_qrels(app, page, judged) -> None:
    campaign, tokens = judged
    app.open_as(page, tokens["boss"], "/export")
    button = page.locator(f".st-key-{keys.DOWNLOAD_QRELS} button")
    with page.expect_download() as info:
        button.click()
    text = Path(info.value.path()).read_text(encoding="utf-8")
    # majority with ties to the lower label: d1 both 1; d2 and d5 tie (1 vs 0) -> 0.
    assert text == "".join(f"101 0 d{i} {lab}\n" for i, lab in
                           zip(range(1, 7), [1, 0, 0, 0, 0, 0], strict=True))
    assert info.value.suggested_filename == f"{campaign}.qrels"


def test_annotator_sees_no_admin_page(app, page, judged) -> None:
    _, tokens = judged
    app.open_as(page, tokens["a"], "/export")
    page.get_by_text(DONE_TEXT).wait_for()  # not an annotator's page: judging instead
    assert page.locator(f".st-key-{keys.DOWNLOAD_QRELS}").count() == 0
    assert page.locator('[data-testid="stSidebarNav"]').count() == 0


def test_adjudicator_sees_the_document_and_decides_with_a_key(app, page, judged) -> None:
    campaign, tokens = judged
    app.open_as(page, tokens["boss"], "/adjudicate")
    page.get_by_text("2 disagreements wait for a decision").first.wait_for()
    body = page.inner_text("body")
    # The first disagreement (d2) is shown with its topic and full document text, not only ids.
    assert "Body of document 2 about widgets." in body
    assert "Anything about widgets is relevant." in body
    assert "Fleiss" not in body
    wait_keys_ready(page)
    page.keyboard.press("1")
    page.get_by_text("1 disagreements wait for a decision").first.wait_for()
    wait_idle(page)
    decided = app.judgments(campaign)
    decided = decided[decided["kind"] == "adjudication"]
    assert list(zip(decided["doc"], decided["label"], strict=True)) == [("d2", 1)]


def test_agreement_overview_shows_coefficients_not_raw_json(app, page, judged) -> None:
    _, tokens = judged
    app.open_as(page, tokens["boss"], "/agreement")
    page.get_by_text("Most disagreed pairs").first.wait_for()
    wait_idle(page)
    metrics = page.locator('[data-testid="stMetric"]')
    metrics.nth(5).wait_for()
    assert metrics.count() == 6
    assert "α nominal" in page.inner_text("body")


def test_admin_export_states_the_undecided_pairs_and_leaves_them_out(app, page, judged) -> None:
    """d2 and d5 tie (1 vs 0): the page says so above the downloads, lists them, and leaving
    them out takes them out of the downloaded qrels."""
    campaign, tokens = judged
    app.open_as(page, tokens["boss"], "/export")
    page.get_by_text("2 undecided pairs: their most frequent labels tie").wait_for()
    body = page.inner_text("body")
    assert ("Pairs settled by each rule: unanimous: 4, majority: 0, "
            "majority tie → lower label: 2.") in body
    link = page.locator("a", has_text="Adjudicate them")  # an st.page_link, drawn after the text
    link.wait_for()
    assert link.count() == 1
    page.get_by_text("leave them out of the qrels").click()
    page.get_by_text("majority tie → left out: 2").wait_for()
    wait_idle(page)
    with page.expect_download() as info:
        page.locator(f".st-key-{keys.DOWNLOAD_QRELS} button").click()
    text = Path(info.value.path()).read_text(encoding="utf-8")
    assert text == "101 0 d1 1\n101 0 d3 0\n101 0 d4 0\n101 0 d6 0\n"
    assert info.value.suggested_filename == f"{campaign}.qrels"
