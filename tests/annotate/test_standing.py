"""Where each annotator stands (:mod:`pooljudge.annotate.standing` over the store's rows): counts
by latest
version, today, median seconds, label shares, pairs left from the counters, agreement with the
others, drift; both backends."""

from __future__ import annotations

import uuid
from datetime import datetime

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.standing import annotator_statistics, pairs_left, standing
from pooljudge.annotate.store import (
    add_annotator,
    annotator_id,
    create_campaign,
    import_judgments,
    pair_by_key,
    progress,
    record_judgment,
    session_scope,
)
from sklearn.metrics import cohen_kappa_score

from pooljudge.errors import UsageError
from tests.annotate.conftest import small_collection

NOW = datetime(2026, 5, 2, 15, 0)
TODAY, YESTERDAY = "2026-05-02T09:00:00Z", "2026-05-01T23:59:59Z"
PEOPLE = ("ann", "bob", "cy")


@pytest.fixture
def campaign(engine):
    """Binary, overlap 3, topics t0 and t1 with d0..d3 each, "I can't judge this" offered;
    ann, bob and cy: (name, ids)."""
    name = f"c-{uuid.uuid4().hex[:8]}"
    with session_scope(engine) as session:
        create_campaign(session, name=name, scale=LabelScale.binary(), overlap=3,
                        cannot_judge=True, **small_collection(n_topics=2, n_docs=4))
        for person in PEOPLE:
            add_annotator(session, campaign=name, name=person)
    with session_scope(engine) as session:
        return name, {p: annotator_id(session, campaign=name, name=p) for p in PEOPLE}


def _import(engine, name: str, rows: list[tuple]) -> None:
    """Rows (annotator, topic, doc, label, time[, seconds]) through the bulk path, as if judged
    in the page (source human)."""
    frame = pd.DataFrame([(*r[:5], str(r[5]) if len(r) > 5 else "") for r in rows],
                         columns=["annotator", "topic", "doc", "label", "time", "seconds"])
    frame["label"] = frame["label"].astype(str)
    with session_scope(engine) as session:
        import_judgments(session, campaign=name, frame=frame, source="human")


def _change(engine, name: str, aid: int, topic: str, doc: str, version: int, **values) -> None:
    """Append ``version`` of the annotator's judgment of (topic, doc): a label, or a status."""
    with session_scope(engine) as session:
        pair = pair_by_key(session, campaign=name, topic=topic, doc=doc).pair_id
        record_judgment(session, annotator_id=aid, pair_id=pair, expected_version=version,
                        **{"label": None, **values})


def _stats(engine, name: str, **options):
    with session_scope(engine, readonly=True) as session:
        return annotator_statistics(session, campaign=name, now=NOW, **options)


def _standing(engine, name: str, aid: int, **options):
    with session_scope(engine, readonly=True) as session:
        frame = progress(session, campaign=name, annotator_id=aid)
        return standing(session, annotator_id=aid, scale=LabelScale.binary(),
                        progress_frame=frame, now=NOW, **options)


def test_counts_follow_the_latest_version_of_each_pair(engine, campaign) -> None:
    name, ids = campaign
    _import(engine, name, [("ann", "t0", f"d{i}", 1, TODAY, 2 + i) for i in range(4)]
            + [("ann", "t1", "d0", 0, YESTERDAY, 30)])
    _change(engine, name, ids["ann"], "t0", "d0", 2, label=0, seconds=99.0)   # relabel
    _change(engine, name, ids["ann"], "t0", "d1", 2, status="withdrawn")      # undo
    _change(engine, name, ids["ann"], "t0", "d2", 2, status="cannot_judge",
            rationale="not in a language I read")
    summary = _stats(engine, name).summary.set_index("annotator")
    ann = summary.loc["ann"]
    # labelled: t0/d0 (0, relabelled now), t0/d3 (1), t1/d0 (0, yesterday)
    assert (ann["judgments"], ann["cannot_judge"]) == (3, 1)
    assert ann["judged_today"] == 2                     # the relabel and t0/d3; not yesterday's
    assert ann["median_seconds"] == 4.0                 # version 1 only: 2, 3, 4, 5, 30
    assert summary.loc["bob", "judgments"] == 0 and pd.isna(summary.loc["bob", "median_seconds"])
    shares = _stats(engine, name).labels
    mine = shares.loc[shares["annotator"] == "ann"].set_index("label")
    assert mine["judgments"].to_dict() == {0: 2, 1: 1}
    assert mine["share"].to_dict() == pytest.approx({0: 2 / 3, 1: 1 / 3})
    assert mine["name"].tolist() == [lab.name for lab in LabelScale.binary().labels]
    assert shares.loc[shares["annotator"] == "bob", "share"].tolist() == [0.0, 0.0]


def test_the_judging_page_figures_equal_the_admin_ones(engine, campaign) -> None:
    name, ids = campaign
    _import(engine, name, [("bob", t, f"d{i}", i % 2, TODAY if t == "t1" else YESTERDAY, i + 1)
                           for t in ("t0", "t1") for i in range(4)])
    _change(engine, name, ids["bob"], "t1", "d3", 2, status="cannot_judge", rationale="broken")
    admin = _stats(engine, name).summary.set_index("annotator").loc["bob"]
    for recent in (200, 3):   # 3: every row read is from today, so today is counted apart
        mine = _standing(engine, name, ids["bob"], recent=recent)
        assert (mine.judged_today, mine.cannot_judge_today) == (3, 1)
        assert mine.pairs_left == admin["pairs_left"]
    full = _standing(engine, name, ids["bob"])
    assert full.judged_today == admin["judged_today"] == 3
    assert full.median_seconds == admin["median_seconds"] == 2.5
    assert full.labels == {0: 4, 1: 3} and full.window == 7  # pairs, not versions
    assert full.shares == pytest.approx({0: 4 / 7, 1: 3 / 7})
    assert _standing(engine, name, ids["cy"]) == type(full)(0, 0, None, {0: 0, 1: 0}, 0, 8)


def test_pairs_left_come_from_the_counters_and_match_a_recount(engine, campaign) -> None:
    name, ids = campaign
    _import(engine, name, [(p, "t0", f"d{i}", 1, TODAY) for p in ("ann", "bob", "cy")
                           for i in range(3)] + [("ann", "t1", "d0", 0, TODAY)])
    summary = _stats(engine, name).summary.set_index("annotator")
    with session_scope(engine, readonly=True) as session:
        recount = dict(session.execute(sa.text(
            "SELECT a.name, COUNT(p.id) FROM annotator a JOIN pair p "
            "ON p.campaign_id = a.campaign_id AND p.judged < 3 AND NOT EXISTS (SELECT 1 FROM "
            "judgment j WHERE j.pair_id = p.id AND j.annotator_id = a.id) "
            "WHERE a.id IN (:a, :b, :c) GROUP BY a.name"),
            {"a": ids["ann"], "b": ids["bob"], "c": ids["cy"]}).all())
    assert summary["pairs_left"].to_dict() == recount == {"ann": 4, "bob": 5, "cy": 5}


def test_pairs_left_is_an_upper_bound_per_topic() -> None:
    frame = pd.DataFrame({"topic": ["a", "b"], "pairs": [4, 4], "judgments_needed": [8, 8],
                          "judgments_done": [7, 2], "annotator_done": [0, 4]})
    assert pairs_left(frame) == 1 + 0
    assert pairs_left(frame.iloc[:0]) == 0


def test_agreement_is_the_mean_of_cohens_kappa_with_each_other(engine, campaign) -> None:
    name, _ = campaign
    rng = np.random.default_rng(3)
    labels = {p: rng.integers(0, 2, size=8) for p in PEOPLE}
    labels["bob"][:6] = labels["ann"][:6]
    _import(engine, name, [(p, f"t{i // 4}", f"d{i % 4}", int(labels[p][i]), TODAY)
                           for p in PEOPLE for i in range(8 if p != "cy" else 5)])
    summary = _stats(engine, name).summary.set_index("annotator")

    def kappa(a: str, b: str, n: int = 8) -> float:
        return cohen_kappa_score(labels[a][:n], labels[b][:n], labels=[0, 1])

    expected = {"ann": (kappa("ann", "bob") + kappa("ann", "cy", 5)) / 2,
                "bob": (kappa("ann", "bob") + kappa("bob", "cy", 5)) / 2,
                "cy": (kappa("ann", "cy", 5) + kappa("bob", "cy", 5)) / 2}
    assert summary["kappa"].astype(float).to_dict() == pytest.approx(expected)
    assert summary["co_judged"].to_dict() == {"ann": 8, "bob": 8, "cy": 5}


def test_an_undefined_kappa_is_missing_not_zero(engine, campaign) -> None:
    name, _ = campaign
    _import(engine, name, [(p, "t0", f"d{i}", 1, TODAY) for p in ("ann", "bob")
                           for i in range(3)] + [("cy", "t1", "d0", 0, TODAY)])
    summary = _stats(engine, name).summary.set_index("annotator")
    assert summary["kappa"].isna().all()
    assert summary["co_judged"].to_dict() == {"ann": 3, "bob": 3, "cy": 0}


def test_drift_is_the_relevant_share_per_block_in_the_order_written(engine, campaign) -> None:
    name, _ = campaign
    times = [f"2026-05-0{1 + i // 4}T1{i % 4}:00:00Z" for i in range(8)]
    order = [1, 1, 1, 0, 0, 0, 0, 1]                   # the labels in the order written
    _import(engine, name, [("cy", f"t{i % 2}", f"d{i // 2}", order[i], times[i])
                           for i in range(8)][::-1])   # imported newest first
    drift = _stats(engine, name, block=3).drift
    assert drift["annotator"].tolist() == ["cy"] * 3
    assert drift["block"].tolist() == [1, 2, 3]
    assert drift["judgments"].tolist() == [3, 3, 2]
    assert drift["relevant_share"].tolist() == pytest.approx([1.0, 0.0, 0.5])
    assert drift["until"].tolist() == [pd.Timestamp(times[i].rstrip("Z")) for i in (2, 5, 7)]
    assert _stats(engine, name).drift["judgments"].tolist() == [8]   # block 50: one block


def test_a_campaign_without_judgments_has_rows_of_zeros(engine, campaign) -> None:
    name, _ = campaign
    stats = _stats(engine, name)
    assert stats.summary["annotator"].tolist() == list(PEOPLE)
    counts = stats.summary[["judgments", "cannot_judge", "judged_today", "co_judged"]]
    assert (counts == 0).all().all()
    assert stats.summary["pairs_left"].tolist() == [8, 8, 8]
    assert stats.drift.empty and len(stats.labels) == 6
    with pytest.raises(UsageError, match="block"):
        _stats(engine, name, block=0)
