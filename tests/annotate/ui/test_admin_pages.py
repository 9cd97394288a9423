"""AppTest (no browser): role routing and the logic of the admin and adjudication pages.

One small campaign (binary scale, topic 7, documents d1..d6, overlap 2) where ``ann1`` and
``ann2`` judged by a fixed table: they agree on d1, d4 and d5, disagree on d2 and d3, and only
``ann1`` judged d6. Every expected number below follows from that table.
"""

from __future__ import annotations

import zlib

import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.consensus import Policy, adjudication_queue, consensus_qrels
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import keys
from sklearn.metrics import cohen_kappa_score
from streamlit.testing.v1 import AppTest

ADMIN_PAGES = ("adjudicate", "overview", "agreement", "export", "evaluate", "create", "people",
               "terms")
# (annotator, doc, label): ann1 judged all six documents, ann2 the first five.
LABELS = [("ann1", f"d{i}", lab) for i, lab in enumerate([1, 1, 0, 0, 1, 0], start=1)] + \
         [("ann2", f"d{i}", lab) for i, lab in enumerate([1, 0, 1, 0, 1], start=1)]


@pytest.fixture
def judged(app_db) -> dict:
    engine = app_db
    ids = [f"d{i}" for i in range(1, 7)]
    docs = pd.DataFrame({"id": ids, "title": [f"Title {d}" for d in ids],
                         "text": [f"body of document {d} about widgets" for d in ids]})
    topics = pd.DataFrame({"id": ["7"], "title": ["widgets"], "description": "d",
                           "narrative": "n"})
    pool = pd.DataFrame({"topic": "7", "doc": ids, "order": range(1, 7),
                         "best_rank": range(1, 7), "runs": "r1"})
    with session_scope(engine) as session:
        store.create_campaign(session, name="c", scale=LabelScale.binary(), overlap=2,
                              topics=topics, documents=docs, pool=pool)
        tokens = {n: store.add_annotator(session, campaign="c", name=n, role=r)
                  for n, r in (("ann1", "annotator"), ("ann2", "annotator"),
                               ("referee", "adjudicator"), ("boss", "admin"))}
        frame = pd.DataFrame(LABELS, columns=["annotator", "doc", "label"]).assign(topic="7")
        store.import_judgments(session, campaign="c", frame=frame, source="human")
    return {"tokens": tokens, "engine": engine}


def _latest(engine) -> pd.DataFrame:
    with session_scope(engine, readonly=True) as session:
        return store.judgments_frame(session, campaign="c", latest_only=True)


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


# --- role routing -------------------------------------------------------------------------------

@pytest.mark.parametrize("page", ADMIN_PAGES)
def test_an_annotator_has_no_admin_page(judged, page, open_page) -> None:
    at = open_page(judged["tokens"]["ann1"])
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page(f"app_pages/{page}.py")


def test_an_admin_page_reopened_as_an_annotator_shows_no_admin_content(judged, open_page) -> None:
    at = open_page(judged["tokens"]["boss"], "overview")
    assert "Judgments done" in _metrics(at)
    at.query_params["token"] = judged["tokens"]["ann1"]
    at.run()
    assert not at.exception and not at.metric and not at.dataframe
    assert at.session_state[keys.USER].role == "annotator"
    # the judging page instead (ann1 judged every document, so it has nothing left for them)
    assert "Nothing left to judge" in at.success[0].value


def test_an_adjudicator_adjudicates_but_does_not_export(judged, open_page) -> None:
    at = open_page(judged["tokens"]["referee"], "adjudicate")
    assert "disagreements wait for a decision" in " ".join(h.value for h in at.get("html"))
    for page in ("export", "overview"):
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            at.switch_page(f"app_pages/{page}.py")


@pytest.mark.parametrize("page", ADMIN_PAGES)
def test_an_admin_opens_every_page(judged, page, open_page) -> None:
    at = open_page(judged["tokens"]["boss"], page)
    assert not at.error


# --- overview -----------------------------------------------------------------------------------

def test_overview_counts_the_imported_judgments(judged, open_page) -> None:
    metrics = _metrics(open_page(judged["tokens"]["boss"], "overview"))
    # 6 pairs x overlap 2 = 12 needed; 11 imported judgments, all within the same hour.
    assert metrics["Judgments done"] == f"{len(LABELS)} / 12"
    assert metrics["Complete"] == f"{len(LABELS) / 12:.0%}"
    assert metrics["Last active hour"] == str(len(LABELS))


# --- agreement ----------------------------------------------------------------------------------

def test_agreement_shows_six_cards_and_sklearn_kappa(judged, open_page) -> None:
    at = open_page(judged["tokens"]["boss"], "agreement")
    metrics = _metrics(at)
    assert len(metrics) == 6
    assert metrics["Judgments"] == str(len(LABELS)) and metrics["Annotators"] == "2"
    assert metrics["Pairs judged by 2+"] == "5"
    pairs = at.dataframe[0].value
    labels = pd.DataFrame(LABELS, columns=["annotator", "doc", "label"]).pivot(
        index="doc", columns="annotator", values="label").dropna()
    expected = cohen_kappa_score(labels["ann1"], labels["ann2"])
    assert pairs[["Annotator A", "Annotator B"]].to_numpy().tolist() == [["ann1", "ann2"]]
    assert float(pairs["Cohen's kappa"].iat[0]) == pytest.approx(expected, abs=1e-12)


# --- adjudication -------------------------------------------------------------------------------

def test_adjudication_shows_the_first_disagreement_and_stores_one_decision(
        judged, open_page) -> None:
    engine = judged["engine"]
    queue = adjudication_queue(_latest(engine), LabelScale.binary().values)
    topic, doc = str(queue["topic"].iat[0]), str(queue["doc"].iat[0])
    assert doc in {"d2", "d3"}
    at = open_page(judged["tokens"]["referee"], "adjudicate")
    html = " ".join(h.value for h in at.get("html"))
    assert f"body of document {doc} about" in html       # "widgets" is highlighted
    assert "2 disagreements wait for a decision" in html
    item = zlib.crc32(f"{topic}\t{doc}".encode())
    at.button(key=keys.adjudicate_key(item, 1)).click().run()
    decided = _latest(engine).query("kind == 'adjudication'")
    assert decided[["annotator", "topic", "doc", "label"]].to_numpy().tolist() == \
        [["referee", topic, doc, 1]]
    assert "1 disagreements wait for a decision" in " ".join(h.value for h in at.get("html"))


# --- export -------------------------------------------------------------------------------------

def test_export_offers_the_consensus_qrels(judged, downloads, open_page) -> None:
    at = open_page(judged["tokens"]["boss"], "export")
    assert at.selectbox(key=keys.EXPORT_POLICY).value == "majority"
    assert at.get("download_button")
    qrels, _ = consensus_qrels(_latest(judged["engine"]), LabelScale.binary().values,
                               Policy.parse("majority"))
    from_consensus = "".join(f"{t} 0 {d} {lab}\n" for t, d, lab in qrels.to_numpy())
    # majority, ties to the lower label: d1 and d5 agree on 1; d2, d3 tie -> 0; d6 single 0.
    expected = "".join(f"7 0 d{i} {lab}\n" for i, lab in
                       enumerate([1, 0, 0, 0, 1, 0], start=1))
    assert downloads["c.qrels"].decode() == from_consensus == expected


# --- evaluate -----------------------------------------------------------------------------------

def test_evaluate_without_runs_shows_the_qrels_summary(judged, open_page) -> None:
    at = open_page(judged["tokens"]["boss"], "evaluate")
    assert not at.error and not at.dataframe
    assert any("Current qrels: 6 judged pairs over 1 topics" in c.value for c in at.caption)
