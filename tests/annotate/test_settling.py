"""The pairs each rule settled (:func:`pooljudge.annotate.consensus.settle`) on hand-made votes:
exact counts per policy, the undecided pairs, and agreement with the provenance."""

from __future__ import annotations

import pandas as pd
import pytest
from pooljudge.annotate.consensus import Policy, consensus_qrels, settle
from pooljudge.annotate.settling import summary_text

GRADED = (0, 1, 2)
COLUMNS = ["annotator", "topic", "doc", "label", "kind", "created_at"]
DAY = pd.Timestamp("2024-01-01")

# t1/d1: 0 0 2 -> majority;  t1/d2: 1 2 -> tie;  t2/d3: 2 2 2 -> unanimous;  t2/d4: one vote;
# t2/d5: 0 2 -> tie, adjudicated 2 by ref;  t2/d6: 1 1 -> unanimous; robo (automatic) on all.
PEOPLE = [("ann", "t1", "d1", 0), ("bob", "t1", "d1", 0), ("cat", "t1", "d1", 2),
          ("ann", "t1", "d2", 1), ("bob", "t1", "d2", 2),
          ("ann", "t2", "d3", 2), ("bob", "t2", "d3", 2), ("cat", "t2", "d3", 2),
          ("cat", "t2", "d4", 1), ("ann", "t2", "d5", 0), ("bob", "t2", "d5", 2),
          ("ann", "t2", "d6", 1), ("bob", "t2", "d6", 1)]
FRAME = pd.DataFrame([(*row, "judgment", DAY) for row in PEOPLE]
                     + [("ref", "t2", "d5", 2, "adjudication", DAY)], columns=COLUMNS)


def counts(policy: str, frame: pd.DataFrame = FRAME, **options) -> dict[str, int]:
    rules = settle(frame, GRADED, Policy.parse(policy, **options)).rules
    return dict(zip(rules["rule"], rules["pairs"], strict=True))


@pytest.mark.parametrize(("policy", "options", "expected"), [
    ("majority", {}, {"unanimous": 2, "majority": 1, "single vote": 1,
                      "majority tie → lower label": 2}),
    ("majority", {"ties": "skip"}, {"unanimous": 2, "majority": 1, "single vote": 1,
                                    "majority tie → left out": 2}),
    ("adjudicated", {"ties": "higher"}, {"adjudicated": 1, "unanimous": 2, "majority": 1,
                                         "single vote": 1, "majority tie → higher label": 1}),
    ("mean", {}, {"unanimous": 2, "mean of differing votes": 3, "single vote": 1}),
    ("min", {"binarize": 1}, {"unanimous": 2, "lowest of differing votes": 3,
                              "single vote": 1}),
    ("annotator:cat", {}, {"annotator cat": 3, "left out: not judged by cat": 3}),
])
def test_each_rule_counts_its_pairs(policy, options, expected) -> None:
    assert counts(policy, **options) == expected
    # listed in a fixed order, zeros included where the policy could settle pairs that way
    assert list(counts(policy, **options)) == list(expected)


def test_the_summary_lists_zero_counts_in_order() -> None:
    unanimous = FRAME[FRAME["doc"].isin(["d3", "d6"])]
    rules = settle(unanimous, GRADED, Policy.parse("adjudicated")).rules
    assert summary_text(rules) == ("adjudicated: 0, unanimous: 2, majority: 0, "
                                   "majority tie → lower label: 0")


def test_the_undecided_pairs_are_the_ties_the_votes_left_open() -> None:
    majority = settle(FRAME, GRADED, Policy.parse("majority"))
    assert majority.undecided.to_numpy().tolist() == [["t1", "d2", "ann=1 bob=2"],
                                                      ["t2", "d5", "ann=0 bob=2"]]
    adjudicated = settle(FRAME, GRADED, Policy.parse("adjudicated"))
    assert adjudicated.undecided.to_numpy().tolist() == [["t1", "d2", "ann=1 bob=2"]]
    assert settle(FRAME, GRADED, Policy.parse("max")).undecided.empty


@pytest.mark.parametrize("policy", ["majority", "adjudicated", "mean", "annotator:ann",
                                    "human-else-automatic:robo", "ds"])
def test_settle_gives_the_qrels_and_provenance_of_consensus_qrels(policy) -> None:
    frame = pd.concat([FRAME, pd.DataFrame(
        [("robo", "t1", f"d{i}", i % 3, "judgment", DAY) for i in (1, 2)]
        + [("robo", "t3", "d7", 1, "judgment", DAY)], columns=COLUMNS)], ignore_index=True)
    frame["source"] = (frame["annotator"] == "robo").map({True: "automatic", False: "human"})
    settled = settle(frame, GRADED, Policy.parse(policy))
    qrels, provenance = consensus_qrels(frame, GRADED, Policy.parse(policy))
    pd.testing.assert_frame_equal(settled.qrels, qrels)
    pd.testing.assert_frame_equal(settled.provenance, provenance)
    assert int(settled.rules["pairs"].sum()) == len(provenance)


def test_people_and_the_automatic_judge_are_counted_apart() -> None:
    frame = pd.DataFrame([("ann", "t1", "d1", 1, "judgment", DAY, "human"),
                          ("bob", "t1", "d1", 2, "judgment", DAY, "human"),
                          ("ann", "t1", "d2", 0, "judgment", DAY, "human"),
                          ("robo", "t1", "d2", 2, "judgment", DAY, "automatic"),
                          ("robo", "t1", "d3", 2, "judgment", DAY, "automatic")],
                         columns=[*COLUMNS, "source"])
    assert counts("human-else-automatic:robo", frame) == {
        "automatic judge robo": 1, "people's majority": 1, "majority tie → lower label": 1}
    assert counts("ds", frame) == {"ds: highest posterior": 3}
