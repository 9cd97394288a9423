"""Property tests: bounds of the measures, and a run's line order never changes a score."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from pooljudge.metrics import evaluate, parse

BOUNDED = ["P@5", "R@10", "AP", "nDCG", "nDCG@5", "RR", "Bpref", "Rprec", "IPrec11", "SetF",
           "Judged@5", "Unjudged@5", "P(rel=2)@3"]

docs = st.sampled_from([f"d{i}" for i in range(12)])
topics = st.sampled_from(["1", "2", "01", "3"])


@st.composite
def collections(draw):
    """Qrels and a run over a few topics: ties, graded, negative and unjudged documents."""
    qrels = draw(st.dictionaries(st.tuples(topics, docs), st.integers(-2, 3), min_size=1))
    run = draw(st.dictionaries(st.tuples(topics, docs), st.sampled_from([0.0, 0.5, 1.0, 2.5]),
                               min_size=1))
    q = pd.DataFrame([(t, d, label) for (t, d), label in qrels.items()],
                     columns=["topic", "doc", "label"])
    r = pd.DataFrame([(t, d, s) for (t, d), s in run.items()], columns=["topic", "doc", "score"])
    return q, r


@settings(max_examples=60, deadline=None)
@given(collections(), st.booleans())
def test_measures_stay_within_zero_and_one(data, judged_only):
    qrels, run = data
    values = evaluate(qrels, {"r": run}, BOUNDED, judged_only=judged_only)["value"]
    assert ((values >= 0) & (values <= 1)).all()


@settings(max_examples=40, deadline=None)
@given(collections(), st.randoms(use_true_random=False))
def test_line_order_never_changes_a_score(data, random):
    qrels, run = data
    order = list(range(len(run)))
    random.shuffle(order)
    shuffled = run.iloc[order].reset_index(drop=True)
    first = evaluate(qrels, {"r": run}, BOUNDED)
    second = evaluate(qrels.sample(frac=1, random_state=1), {"r": shuffled}, BOUNDED)
    pd.testing.assert_frame_equal(first, second)


@settings(max_examples=40, deadline=None)
@given(collections())
def test_counts_add_up(data):
    qrels, run = data
    frame = evaluate(qrels, {"r": run}, ["NumQ", "NumRel", "NumRet", "NumRelRet"])
    summary = frame[frame.topic == "all"].set_index("measure")["value"]
    assert summary["NumQ"] == qrels["topic"].nunique()
    assert summary["NumRel"] == (qrels["label"] >= 1).sum()
    assert summary["NumRet"] == run["topic"].isin(set(qrels["topic"])).sum()
    assert summary["NumRelRet"] <= min(summary["NumRel"], summary["NumRet"])


MEASURE_NAMES = [
    "P@10", "P(rel=2)@10", "R@100", "AP", "AP@10", "AP(rel=3)@5", "GMAP", "RR", "RR@5", "nDCG",
    "nDCG@10", "Rprec", "Bpref(rel=2)", "Success@5", "IPrec@0.3", "IPrec@0.0", "IPrec@1.0",
    "IPrec11", "SetP", "SetR", "SetF", "SetF(beta=0.5)", "SetF(rel=2,beta=2.0)", "NumQ",
    "NumRel(rel=2)", "NumRet", "NumRelRet", "Judged@10", "Unjudged@20",
]


def test_parse_str_round_trip():
    for name in MEASURE_NAMES:
        measure = parse(name)
        assert str(measure) == name
        assert parse(str(measure)) == measure


def test_vectorised_results_do_not_depend_on_other_topics():
    rng = np.random.default_rng(0)
    qrels = pd.DataFrame({"topic": ["a"] * 5 + ["b"] * 5, "doc": [f"x{i}" for i in range(10)],
                          "label": rng.integers(0, 3, 10)})
    run = pd.DataFrame({"topic": ["a"] * 10 + ["b"] * 10, "doc": [f"x{i}" for i in range(20)],
                        "score": rng.random(20)})
    both = evaluate(qrels, {"r": run}, BOUNDED).set_index(["topic", "measure"])["value"]
    alone = evaluate(qrels[qrels.topic == "a"], {"r": run[run.topic == "a"]}, BOUNDED)
    alone = alone.set_index(["topic", "measure"])["value"]
    for measure in BOUNDED:
        assert both[("a", measure)] == alone[("a", measure)]
