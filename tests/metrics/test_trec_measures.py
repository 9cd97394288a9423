"""SetAP, SetRelP, Utility, NumNonRelJudgedRet, RelP@k, RprecMult, GMBpref, IPrec11 levels and
Success@k, computed by hand.

Topic 1: qrels a = 2, b = 1, c = 0, d = 1 (never retrieved), n = -1 (pooled, not judged); x, y
have no qrels line; R = 3 (a, b, d). Topic 2 has one relevant document the run never returns.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics import evaluate

QRELS = pd.DataFrame({"topic": ["1"] * 5 + ["2"], "doc": ["a", "b", "c", "d", "n", "e"],
                      "label": [2, 1, 0, 1, -1, 1]})


def _run(*docs: str) -> pd.DataFrame:
    return pd.DataFrame({"topic": "1", "doc": list(docs),
                         "score": np.arange(len(docs), 0, -1, dtype=float)})


def _values(measure: str, run: pd.DataFrame, **options) -> dict[str, float]:
    """Per topic ("1", "2") and "all"."""
    frame = evaluate(QRELS, {"r": run}, [measure], **options)
    return dict(zip(frame["topic"], frame["value"], strict=True))


def _topic1(measure: str, *docs: str, **options) -> float:
    return _values(measure, _run(*docs), **options)["1"]


@pytest.mark.parametrize(("measure", "docs", "expected"), [
    ("SetAP", ("b", "x", "a"), 2 * 2 / (3 * 3)),  # relret^2 / (retrieved * R)
    ("SetAP", ("b",), 1 / 3),
    ("SetAP(rel=2)", ("b", "x", "a"), 1 / 3),  # R = 1 (a)
    ("SetRelP", ("b", "x", "a"), 2 / 3),  # relret / min(retrieved, R)
    ("SetRelP", ("b",), 1.0),  # one returned, and relevant: the best possible
    ("SetRelP", ("b", "x", "a", "y", "c"), 2 / 3),
    ("NumNonRelJudgedRet", ("b", "x", "c", "a", "n"), 1.0),  # c only: x, n are unjudged
    ("NumNonRelJudgedRet(rel=2)", ("b", "x", "c", "a", "n"), 2.0),  # b is non-relevant at 2
    ("RelP@2", ("b", "x", "a"), 1 / 2),  # 1 relevant in the top 2, min(2, R) = 2
    ("RelP@5", ("b", "x", "a"), 2 / 3),  # 2 relevant, min(5, R) = 3: recall beyond R
    ("RelP(rel=2)@5", ("b", "x", "a"), 1.0),
    ("RprecMult(mult=0.2)", ("b", "x", "a"), 1.0),  # c = (long)(0.6 + 0.9) = 1
    ("RprecMult(mult=0.5)", ("b", "x", "a"), 1 / 2),  # c = (long)(1.5 + 0.9) = 2
    ("RprecMult", ("b", "x", "a"), 2 / 3),  # c = R = 3: Rprec
    ("RprecMult(mult=2.0)", ("b", "x", "a"), 2 / 6),  # c = 6 > 3 returned
    ("RprecMult(mult=0.0)", ("b", "x", "a"), 0.0),  # c = 0
    ("IPrec11(levels={0.25,0.5})", ("b", "x", "a"), (1 + 2 / 3) / 2),  # lround(.75), lround(1.5)
    ("IPrec11(levels={0.5,0.5,1})", ("b", "x", "a"), (2 / 3 + 2 / 3 + 0) / 3),  # repeats count
    ("Success@2", ("x", "y", "a"), 0.0),
    ("Success@3", ("x", "y", "a"), 1.0),
    ("Success@1000", ("x", "y", "a"), 1.0),
], ids=lambda v: str(v))
def test_by_hand(measure, docs, expected):
    assert _topic1(measure, *docs) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("compat", ["9", "10"])
def test_rprec_mult_rounds_with_0_9_in_both_releases(compat):
    """R = 3, mult 0.4: c = (long)(1.2 + 0.9) = 2 (lround, IPrec's rule in 10, would give 1)."""
    assert _topic1("RprecMult(mult=0.4)", "x", "b", "a", compat=compat) == 1 / 2


@pytest.mark.parametrize(("params", "expected"), [
    ("", 2 - 1),  # a * relret + b * (retrieved - relret)
    ("(a=2,b=-1,c=-0.5,d=0.01,docs=100)", 2 * 2 - 1 - 0.5 * (3 - 2) + 0.01 * (100 + 2 - 3 - 3)),
    ("(rel=2)", 1 - 2),
], ids=["default", "all-terms", "rel-2"])
def test_utility_by_hand(params, expected):
    assert _topic1(f"Utility{params}", "b", "x", "a") == pytest.approx(expected, abs=1e-12)


def test_utility_of_a_skipped_topic_counts_its_missed_relevant_documents():
    """Topic 2 (R = 1) is not in the run: c * R + d * (docs - R); averaged over topics."""
    values = _values("Utility(c=-2,d=0.5,docs=10)", _run("b", "x", "a"))
    topic1 = 2 - 1 - 2 * (3 - 2) + 0.5 * (10 + 2 - 3 - 3)
    assert values["2"] == pytest.approx(-2 * 1 + 0.5 * (10 - 1))
    assert values["1"] == pytest.approx(topic1)
    assert values["all"] == pytest.approx((topic1 + values["2"]) / 2)


def test_counts_are_summed_and_gmbpref_is_a_geometric_mean():
    """Bpref of topic 1 (b, x, a): both relevant documents have no judged non-relevant one
    above -> (1 + 1) / 3; topic 2: 0, floored at 1e-5."""
    values = _values("GMBpref", _run("b", "x", "a"))
    assert values["1"] == pytest.approx(2 / 3) and values["2"] == 1e-5
    assert values["all"] == pytest.approx(math.sqrt(2 / 3 * 1e-5), rel=1e-12)
    counts = _values("NumNonRelJudgedRet", _run("c", "b", "x", "a"))
    assert counts == {"1": 1.0, "2": 0.0, "all": 1.0}


def test_judged_only_drops_the_unjudged_before_ranking():
    """x, b, n, c, a; -J leaves b, c, a: SetAP 2^2 / (5 * 3) -> 2^2 / (3 * 3), RelP@3 (one of
    x, b, n relevant) 1/3 -> 2/3, NumNonRelJudgedRet unchanged."""
    docs = ("x", "b", "n", "c", "a")
    for measure, everything, judged in (("SetAP", 4 / 15, 4 / 9), ("RelP@3", 1 / 3, 2 / 3),
                                        ("NumNonRelJudgedRet", 1.0, 1.0)):
        assert _topic1(measure, *docs) == pytest.approx(everything)
        assert _topic1(measure, *docs, judged_only=True) == pytest.approx(judged)


@pytest.mark.parametrize("measure", ["SetAP", "SetRelP", "RelP@10", "RprecMult",
                                     "NumNonRelJudgedRet", "Success@2"])
def test_no_relevant_document_or_no_ranking_scores_0(measure):
    assert _values(measure, _run("b", "a"))["2"] == 0.0  # topic 2 skipped by the run
    no_relevant = QRELS.assign(label=[0, 0, 0, 0, -1, 0])
    frame = evaluate(no_relevant, {"r": _run("x", "n")}, [measure], per_topic=False)
    assert frame["value"].iat[0] == 0.0
