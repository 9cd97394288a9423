"""Disagreements, the adjudication queue and qrels policies on hand-made votes."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pooljudge.annotate.consensus import Policy, adjudication_queue, consensus_qrels, disagreements

from pooljudge.errors import InputError, UsageError

GRADED = (0, 1, 2)
COLUMNS = ["annotator", "topic", "doc", "label", "kind", "created_at"]


def votes(*rows: tuple) -> pd.DataFrame:
    """Rows ``(annotator, topic, doc, label[, kind[, created_at]])``."""
    defaults = ("judgment", pd.Timestamp("2024-01-01"))
    return pd.DataFrame([(*row, *defaults[len(row) - 4:]) for row in rows], columns=COLUMNS)


# t1/d1: 0 0 2 -> majority 0;  t1/d2: 1 2 -> tie;  t2/d3: 2 2 1 -> majority 2;  t2/d4: one vote 1
HAND = votes(("ann", "t1", "d1", 0), ("bob", "t1", "d1", 0), ("cat", "t1", "d1", 2),
             ("ann", "t1", "d2", 1), ("bob", "t1", "d2", 2),
             ("ann", "t2", "d3", 2), ("bob", "t2", "d3", 2), ("cat", "t2", "d3", 1),
             ("cat", "t2", "d4", 1))


def decide(frame: pd.DataFrame, policy: str, **options) -> dict[tuple[str, str], int]:
    qrels, _ = consensus_qrels(frame, GRADED, Policy.parse(policy, **options))
    return {(t, d): int(label) for t, d, label in qrels.itertuples(index=False)}


@pytest.mark.parametrize(("policy", "options", "expected"), [
    ("majority", {"ties": "lower"}, {"d1": 0, "d2": 1, "d3": 2, "d4": 1}),
    ("majority", {"ties": "higher"}, {"d1": 0, "d2": 2, "d3": 2, "d4": 1}),
    ("majority", {"ties": "skip"}, {"d1": 0, "d3": 2, "d4": 1}),
    ("mean", {}, {"d1": 1, "d2": 2, "d3": 2, "d4": 1}),  # 2/3 -> 1, 1.5 -> 2 (half up), 5/3 -> 2
    ("max", {}, {"d1": 2, "d2": 2, "d3": 2, "d4": 1}),
    ("min", {}, {"d1": 0, "d2": 1, "d3": 1, "d4": 1}),
    ("annotator:bob", {}, {"d1": 0, "d2": 2, "d3": 2}),
    ("majority", {"binarize": 2}, {"d1": 0, "d2": 0, "d3": 1, "d4": 0}),
    ("max", {"binarize": 1}, {"d1": 1, "d2": 1, "d3": 1, "d4": 1}),
], ids=["majority-lower", "majority-higher", "majority-skip", "mean", "max", "min",
        "annotator", "binarize-majority", "binarize-max"])
def test_policies_on_hand_made_votes(policy, options, expected):
    got = decide(HAND, policy, **options)
    assert {doc: label for (_, doc), label in got.items()} == expected


def test_qrels_are_judged_pairs_only_sorted_with_int_labels():
    qrels, provenance = consensus_qrels(HAND, GRADED, Policy.parse("majority", ties="skip"))
    assert list(qrels.columns) == ["topic", "doc", "label"]
    assert qrels["label"].dtype == np.int64
    assert qrels[["topic", "doc"]].values.tolist() == [["t1", "d1"], ["t2", "d3"], ["t2", "d4"]]
    assert len(provenance) == 4


def test_provenance_names_votes_and_the_deciding_rule():
    _, provenance = consensus_qrels(HAND, GRADED, Policy.parse("majority", ties="skip"))
    rows = {row.doc: row for row in provenance.itertuples()}
    assert rows["d1"].votes == "ann=0 bob=0 cat=2"
    assert rows["d1"].n_votes == 3 and rows["d1"].rule == "majority"
    assert rows["d2"].rule == "majority tie, skipped"
    assert rows["d2"].decided is pd.NA and rows["d2"].label is pd.NA
    _, binarized = consensus_qrels(HAND, GRADED, Policy.parse("mean", binarize=2))
    row = binarized.set_index("doc").loc["d1"]
    assert (row["decided"], row["label"]) == (1, 0)
    assert row["rule"] == "mean grade 0.6667, rounded half up; binarized: >= 2 -> 1"


def test_annotator_policy_explains_missing_pairs_and_refuses_unknown_names():
    _, provenance = consensus_qrels(HAND, GRADED, Policy.parse("annotator:bob"))
    assert provenance.set_index("doc").loc["d4", "rule"] == "not judged by bob"
    with pytest.raises(UsageError, match="no judgments by an annotator named 'zed'"):
        consensus_qrels(HAND, GRADED, Policy.parse("annotator:zed"))


def test_adjudicated_uses_the_latest_adjudication_else_majority():
    frame = pd.concat([HAND, votes(
        ("judge", "t1", "d2", 0, "adjudication", pd.Timestamp("2024-02-02")),
        ("boss", "t1", "d2", 2, "adjudication", pd.Timestamp("2024-02-01")),
        ("judge", "t3", "d9", 1, "adjudication", pd.Timestamp("2024-02-03")),
    )], ignore_index=True)
    qrels, provenance = consensus_qrels(frame, GRADED, Policy.parse("adjudicated", ties="skip"))
    got = {doc: label for _, doc, label in qrels.itertuples(index=False)}
    assert got == {"d1": 0, "d2": 0, "d3": 2, "d4": 1, "d9": 1}
    rules = provenance.set_index("doc")["rule"]
    assert rules["d2"] == "adjudicated by judge"
    assert rules["d1"] == "no adjudication; majority"
    assert provenance.set_index("doc").loc["d9", "votes"] == ""
    # Adjudications are not votes for the other policies.
    assert decide(frame, "max")["t1", "d2"] == 2 and ("t3", "d9") not in decide(frame, "max")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=9))
def test_mean_rounds_half_up_exactly(labels):
    frame = votes(*[(f"a{i}", "t", "d", label) for i, label in enumerate(labels)])
    qrels, _ = consensus_qrels(frame, (0, 1, 2, 3, 4), Policy.parse("mean"))
    mean = Fraction(sum(labels), len(labels))
    assert qrels["label"].iloc[0] == int(mean + Fraction(1, 2)) // 1


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=9))
def test_majority_is_a_most_frequent_label(labels):
    frame = votes(*[(f"a{i}", "t", "d", label) for i, label in enumerate(labels)])
    counts = {v: labels.count(v) for v in set(labels)}
    top = [v for v, c in counts.items() if c == max(counts.values())]
    for ties, expected in (("lower", min(top)), ("higher", max(top))):
        qrels, _ = consensus_qrels(frame, GRADED, Policy.parse("majority", ties=ties))
        assert qrels["label"].tolist() == [expected]


def test_disagreements_binary_any_difference_graded_two_grades():
    binary = votes(("a", "t", "d1", 0), ("b", "t", "d1", 1), ("a", "t", "d2", 1),
                   ("b", "t", "d2", 1))
    assert disagreements(binary, (0, 1))["doc"].tolist() == ["d1"]
    graded = disagreements(HAND, GRADED)
    assert graded["doc"].tolist() == ["d1"]  # 0 vs 2; d2 (1 vs 2) and d3 (1 vs 2) are one apart
    assert graded.loc[0, "spread"] == 2
    assert disagreements(HAND, GRADED, min_spread=1)["doc"].tolist() == ["d1", "d2", "d3"]


def test_queue_drops_adjudicated_pairs_and_keeps_single_votes_out():
    adjudicated = pd.concat([HAND, votes(("judge", "t1", "d1", 0, "adjudication"))],
                            ignore_index=True)
    assert adjudication_queue(HAND, GRADED)["doc"].tolist() == ["d1"]
    assert adjudication_queue(adjudicated, GRADED).empty
    found = disagreements(adjudicated, GRADED)
    assert (found.loc[0, "adjudicator"], found.loc[0, "adjudicated"]) == ("judge", 0)


@pytest.mark.parametrize("text", ["median", "annotator:", "majority:x", ""])
def test_unknown_policies_are_usage_errors(text):
    with pytest.raises(UsageError, match="unknown policy"):
        Policy.parse(text)


def test_bad_ties_option_is_a_usage_error():
    with pytest.raises(UsageError, match="--ties"):
        Policy.parse("majority", ties="random")


def test_a_label_outside_the_scale_is_refused():
    with pytest.raises(InputError, match="not in the scale"):
        consensus_qrels(votes(("a", "t", "d", 5)), GRADED, Policy())
