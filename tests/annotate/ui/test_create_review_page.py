"""AppTest: the New campaign page's review choice makes a review campaign, runs seeding it."""

from __future__ import annotations

from pooljudge.annotate import store
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import create_review, keys

from tests.annotate.ui.test_create_page import _create_page, _fill, _submit, app  # noqa: F401


def test_the_review_queue_makes_a_review_seeded_by_the_runs(app):  # noqa: F811
    at = _fill(_create_page(app["boss"]), name="rev", people="ann1")
    at.selectbox(key=keys.CREATE_QUEUE).select(create_review.REVIEW_QUEUE)
    at.number_input(key=keys.CREATE_OVERLAP).set_value(1)
    at.selectbox(key=create_review.CREATE_STOP).select("knee")
    at.number_input(key=create_review.CREATE_RECALL).set_value(0.9)
    at.number_input(key=create_review.CREATE_ALPHA).set_value(0.1)
    _submit(at)
    assert not at.error, [e.value for e in at.error]
    engine = app["engine"]
    with session_scope(engine) as session:
        campaign = store.get_campaign(session, name="rev")
        settings = store.review_settings(session, campaign_id=campaign.id)
        states = store.review_topics(session, campaign_id=campaign.id)
        first = store.next_pair(session, annotator_id=store.annotator_id(
            session, campaign="rev", name="ann1"))
        boss = store.authenticate(session, token=app["boss"])
        roles = store.campaign_roles(session, annotator_id=boss.id)
    assert (settings.rule, settings.target, settings.alpha) == ("knee", 0.9, 0.1)
    assert [(s.topic, s.phase, s.n_docs) for s in states] == [("1", "rank", 6), ("2", "rank", 6)]
    assert first.doc_id in {"d1", "d3", "d4", "d6"}  # a run's first document
    assert roles["rev"] == "admin"


def test_a_review_refuses_a_pool_file(app):  # noqa: F811
    app["files"][keys.CREATE_RUNS] = []
    at = _fill(_create_page(app["boss"]), name="rev")
    at.selectbox(key=keys.CREATE_QUEUE).select(create_review.REVIEW_QUEUE)
    app["files"]["create_pool"] = app["files"][keys.CREATE_TOPICS]
    _submit(at)
    assert "no pool file" in at.error[0].value
