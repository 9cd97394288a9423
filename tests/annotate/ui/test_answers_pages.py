"""AppTest (no browser): "I can't judge this" on the admin pages: the New campaign form stores the
answer settings, Export counts the answers and offers them apart, Agreement lists them per
annotator (never as labels).

Campaign ``c`` (binary, overlap 2, topic 7 with d1..d3 and topic 8 with d4): ann1 labels d1 1
and d2 0 and cannot judge d3; ann2 labels d1 1, d2 1 and d3 0.
"""

from __future__ import annotations

import pytest
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui.create import CREATE_CANNOT_JUDGE, CREATE_RATIONALE

# The create page's fixture and form helpers (the record of downloads is conftest's).
from tests.annotate.ui.test_create_page import _create_page, _fill, _submit, app  # noqa: F401

DOCS = {"d1": "7", "d2": "7", "d3": "7", "d4": "8"}
ANSWERS = [("ann1", "d1", 1), ("ann1", "d2", 0), ("ann1", "d3", "paywalled\tsite"),
           ("ann2", "d1", 1), ("ann2", "d2", 1), ("ann2", "d3", 0)]


@pytest.fixture
def answered(app_db, collection) -> dict[str, str]:
    """Campaign ``c`` judged as the module says; the tokens by person (``boss``: admin)."""
    with session_scope(app_db) as session:
        store.create_campaign(session, name="c", scale=LabelScale.binary(), overlap=2,
                              cannot_judge=True, **collection(DOCS, "text of"))
        tokens = {n: store.add_annotator(session, campaign="c", name=n, role=r)
                  for n, r in (("ann1", "annotator"), ("ann2", "annotator"), ("boss", "admin"))}
    for person, doc, answer in ANSWERS:
        with session_scope(app_db) as session:
            me = store.annotator_id(session, campaign="c", name=person)
            pair = store.pair_by_key(session, campaign="c", topic=DOCS[doc], doc=doc).pair_id
            words = ({"label": answer} if isinstance(answer, int) else
                     {"label": None, "status": "cannot_judge", "rationale": answer})
            store.record_judgment(session, annotator_id=me, pair_id=pair, **words)
    return tokens


@pytest.mark.parametrize("ticked", [True, False], ids=["set", "default"])
def test_the_new_campaign_form_stores_the_answer_settings(app, ticked) -> None:  # noqa: F811
    at = _fill(_create_page(app["boss"]))
    assert at.multiselect(key=CREATE_RATIONALE).options == ["0 · Not relevant", "1 · Relevant"]
    if ticked:
        at.checkbox(key=CREATE_CANNOT_JUDGE).check()
        at.multiselect(key=CREATE_RATIONALE).select(1)
    assert not _submit(at).error
    with session_scope(app["engine"], readonly=True) as session:
        info = store.get_campaign(session, name="new")
    assert (info.cannot_judge, tuple(info.rationale_labels)) == ((True, (1,)) if ticked
                                                                 else (False, ()))


def test_export_counts_the_answers_and_offers_them_apart(answered, downloads,
                                                         open_page) -> None:
    at = open_page(answered["boss"], "export")
    assert any("3 judged pairs in the qrels" in c.value
               and "1 \"I can't judge this\" answers, not in the qrels" in c.value
               for c in at.caption)
    assert downloads["c.qrels"].decode() == "7 0 d1 1\n7 0 d2 0\n7 0 d3 0\n"
    assert downloads["c.cannot_judge.tsv"].decode() == (
        "topic\tdoc\tannotator\treason\n7\td3\tann1\tpaywalled site\n")


def test_agreement_lists_the_answers_per_annotator(answered, open_page) -> None:
    at = open_page(answered["boss"], "agreement")
    (counts,) = [d.value for d in at.dataframe if "I can't judge this" in d.value.columns]
    assert counts.to_dict("records") == [
        {"Annotator": "ann1", "Labels": 2, "I can't judge this": 1},
        {"Annotator": "ann2", "Labels": 3, "I can't judge this": 0}]
    judgments = next(m.value for m in at.metric if m.label == "Judgments")
    assert judgments == "5"                              # labels only: the answer is apart
