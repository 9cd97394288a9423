"""A review campaign in a real browser: judged by keyboard (the pane saying when the queue is
a random sample) until the server's background thread certifies the topic; the certificate on
the Overview page, and its counts equal to the stored judgments it rests on."""

from __future__ import annotations

import time

import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate import store
from pooljudge.annotate.campaigns import CampaignSettings
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.review import create_review
from pooljudge.annotate.store import session_scope

from tests.support.browser import DONE_TEXT, shown_doc, shown_pair, wait_for_new_pair, wait_idle

RELEVANT = {"d03", "d07", "d11"}


def _review(app) -> tuple[str, int, dict[str, str]]:
    docs = pd.DataFrame({"id": [f"d{i:02d}" for i in range(1, 13)], "title": "",
                         "text": [("Widgets gears and sprockets." if f"d{i:02d}" in RELEVANT
                                   else f"Notes on gardening, item {i}.") for i in range(1, 13)]})
    topics = pd.DataFrame({"id": ["401"], "title": ["widgets"],
                           "description": ["gears and sprockets"], "narrative": [""]})
    settings = CampaignSettings(name="review1", scale=LabelScale.binary(), min_dwell_ms=0,
                                people=(("ann", "annotator"), ("boss", "admin")))
    created = create_review(app.engine, settings, topics=topics, documents=docs, rule="target",
                            recall=0.5, alpha=0.5)
    tokens = {person.name: person.token for person in created.people}
    return created.info.name, created.info.id, tokens


def _certificates(app, campaign_id: int) -> list:
    with session_scope(app.engine, readonly=True) as session:
        return store.certificates(session, campaign_id=campaign_id)


def test_a_review_is_judged_by_keyboard_until_its_certificate_appears(app, page) -> None:
    name, campaign_id, tokens = _review(app)
    app.open_as(page, tokens["ann"])
    pair = shown_pair(page)
    assert "Topic 401: Random sample" in page.inner_text("body")  # the target rule's sample
    deadline = time.monotonic() + 120
    while pair is not None and time.monotonic() < deadline:
        page.keyboard.press("1" if shown_doc(page) in RELEVANT else "0")
        pair = wait_for_new_pair(page, pair, allow_done=True)
    assert pair is None and DONE_TEXT in page.inner_text("body")
    for _ in range(100):  # the server's thread certifies after the label that ends the sample
        certificates = _certificates(app, campaign_id)
        if certificates:
            break
        time.sleep(0.1)
    [cert] = certificates
    with app.engine.connect() as connection:
        rows = connection.execute(sa.text(
            "SELECT j.id, j.label FROM judgment j JOIN pair p ON p.id = j.pair_id "
            "JOIN campaign c ON c.id = p.campaign_id WHERE c.name = :n"), {"n": name}).all()
    stored = dict(rows)
    assert set(cert.judgments) <= set(stored)
    assert cert.reviewed == len(cert.judgments) and not cert.stale
    assert cert.relevant_found == sum(stored[i] for i in cert.judgments)
    assert cert.sample_size >= 1 and cert.sample_relevant == 1
    # at most the one pair claimed before the queue closed was judged after the certificate
    assert len(stored) - len(cert.judgments) <= 1 and len(stored) < 12
    app.open_as(page, tokens["boss"], "/overview")
    page.wait_for_selector("text=Review and certificates")
    wait_idle(page)
    body = page.inner_text("body")
    assert "1 of 1 topics certified" in body and "Stopping rule target" in body
