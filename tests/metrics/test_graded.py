"""G, BinG, RnDCG, nDCGRel, nDCG with gains, RBPGraded and RBPResid, computed by hand.

One topic throughout: qrels a = 2, b = 1, c = 0, d = 1 (never retrieved), n = -1 (pooled, not
judged); x, y, z have no qrels line. Default gains are the labels, so the ideal ranking is
a, b, d with gains 2, 1, 1: M = 3 and IDCG@3 = 2 + 1/log2(3) + 1/2. R = 3 (a, b, d).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics import evaluate
from pooljudge.metrics.gains import prefix_sums

QRELS = pd.DataFrame({"topic": "1", "doc": ["a", "b", "c", "d", "n"], "label": [2, 1, 0, 1, -1]})
L3 = math.log2(3)
IDCG3 = 2 + 1 / L3 + 1 / 2


def _run(*docs: str, topic: str = "1") -> pd.DataFrame:
    """The ranking ``docs`` for ``topic``; none: topic 1 skipped (the run holds only topic 9)."""
    if not docs:
        return _run("zz", topic="9")
    return pd.DataFrame({"topic": topic, "doc": list(docs),
                         "score": np.arange(len(docs), 0, -1, dtype=float)})


def _value(measure: str, run: pd.DataFrame, qrels: pd.DataFrame = QRELS, **options) -> float:
    frame = evaluate(qrels, {"r": run}, [measure], per_topic=False, **options)
    return float(frame["value"].iat[0])


@pytest.mark.parametrize(("run", "expected"), [
    # b at 1: S = 1, C = max(2, 1) = 2 -> 1 / log2(2 + 2 - 1); a at 3: S = 3, C = 2 + 1 + 1 = 4
    # -> 2 / log2(2 + 4 - 3); normalised by the ideal's total gain 4.
    (("b", "x", "a"), (1 / L3 + 2 / L3) / 4),
    # Past the ideal every rank costs 1: a at 5 has C = 4 + 1 + 1, S = 2 -> 2 / log2(6).
    (("y", "z", "x", "c", "a"), 2 / math.log2(6) / 4),
    ((), 0.0),
], ids=["inside-ideal", "beyond-ideal", "nothing"])
def test_g_by_hand(run, expected):
    assert _value("G", _run(*run)) == pytest.approx(expected, abs=1e-12)


def test_bing_by_hand():
    """b at 1 has 0 non-relevant above -> 1/log2(2); a at 3 has x above -> 1/log2(3); / R."""
    assert _value("BinG", _run("b", "x", "a")) == pytest.approx((1 + 1 / L3) / 3, abs=1e-12)
    assert _value("BinG(rel=2)", _run("b", "x", "a")) == pytest.approx(1 / 2, abs=1e-12)


@pytest.mark.parametrize(("run", "expected"), [
    # The ideal gain drops after 1 (2 -> 1) and after 3 (the end): nDCG@1 and nDCG@3.
    (("b", "x", "a"), (1 / 2 + 2 / IDCG3) / 2),
    # n = M + 1 adds no point (trec_eval's loop) ...
    (("b", "x", "a", "y"), (1 / 2 + 2 / IDCG3) / 2),
    # ... n >= M + 2 adds nDCG@n = DCG@5 / IDCG@3.
    (("b", "x", "a", "y", "z"), (1 / 2 + 2 / IDCG3 + 2 / IDCG3) / 3),
    ((), 0.0),
], ids=["n=M", "n=M+1", "n=M+2", "nothing"])
def test_rndcg_by_hand(run, expected):
    assert _value("RnDCG", _run(*run)) == pytest.approx(expected, abs=1e-12)


def test_rndcg_is_0_without_relevant_documents_at_rel():
    only_ones = QRELS.assign(label=[1, 1, 0, 1, -1])
    assert _value("RnDCG", _run("b", "a"), only_ones) > 0
    assert _value("RnDCG(rel=2)", _run("b", "a"), only_ones) == 0.0


def test_ndcg_rel_by_hand():
    """nDCG at each retrieved positive-gain document (b at 1, a at 3), and the final nDCG for
    the one never retrieved (d), averaged over M = 3."""
    expected = (1 / 2 + 2 / IDCG3 + 2 / IDCG3) / 3
    assert _value("nDCGRel", _run("b", "x", "a")) == pytest.approx(expected, abs=1e-12)
    assert _value("nDCGRel", _run("x")) == 0.0


@pytest.mark.parametrize(("measure", "run", "expected"), [
    ("nDCG(gains={1:3,2:9})", ("b", "x", "a"), (3 + 9 / 2) / (9 + 3 / L3 + 3 / 2)),
    ("nDCG(gains={1:3,2:9})@2", ("b", "x", "a"), 3 / (9 + 3 / L3)),
    # a negative gain lowers DCG and leaves the ideal: ideal = a alone
    ("nDCG(gains={1:-1})", ("a", "b"), (2 - 1 / L3) / 2),
    ("nDCG(gains={1:-1})", ("b", "x", "a"), 0.0),
    # level 0 can earn: c's 0.5 joins the ideal after a, b, d
    ("nDCG(gains={0:0.5})", ("c", "a"), (0.5 + 2 / L3) / (2 + 1 / L3 + 1 / 2 + 0.5 / math.log2(5))),
    # unlisted levels keep gain = level: {2:2} is the default
    ("nDCG(gains={2:2})", ("b", "x", "a"), (1 + 2 / 2) / IDCG3),
    ("G(gains={1:3,2:9})", ("b", "x", "a"), (3 / math.log2(2 + 9 - 3) + 9 / math.log2(
        2 + 9 + 3 + 3 - 12)) / 15),
], ids=lambda v: str(v))
def test_gains_by_hand(measure, run, expected):
    assert _value(measure, _run(*run)) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("measure", "run", "expected"), [
    # highest label 2 > 1: gains become label / 2 -> b 0.5, a 1
    ("RBPGraded", ("b", "x", "a"), 0.1 * (0.5 + 0.81 * 1)),
    ("RBPGraded@2", ("b", "x", "a"), 0.1 * 0.5),
    ("RBPGraded(p=0.5)", ("b", "x", "a"), 0.5 * (0.5 + 0.25 * 1)),
    # table {0: 0, 1: 3, 2: 2}: min 0, max 3 -> b 1, a 2/3
    ("RBPGraded(gains={1:3})", ("b", "x", "a"), 0.1 * (1 + 0.81 * 2 / 3)),
    # table {0: -1, 1: 1, 2: 2}: (g + 1) / 3 -> c 0, b 2/3, a 1
    ("RBPGraded(gains={0:-1})", ("c", "b", "a"), 0.1 * (0 + 0.9 * 2 / 3 + 0.81)),
    # a listed level absent from the qrels still bounds the table: max 4 -> b 1/4, a 1/2
    ("RBPGraded(gains={5:4})", ("b", "x", "a"), 0.1 * (0.25 + 0.81 * 0.5)),
    # gains inside [0, 1] are kept as they are
    ("RBPGraded(gains={1:0.5,2:1})", ("b", "x", "a"), 0.1 * (0.5 + 0.81)),
    ("RBPGraded", ("n", "x"), 0.0),
    ("RBPGraded", (), 0.0),
], ids=lambda v: str(v))
def test_graded_rbp_by_hand(measure, run, expected):
    assert _value(measure, _run(*run)) == pytest.approx(expected, abs=1e-12)


def test_graded_rbp_is_binary_rbp_on_binary_qrels():
    binary = QRELS.assign(label=[1, 1, 0, 1, -1])
    run = _run("b", "x", "c", "a", "y", "d")
    assert _value("RBPGraded", run, binary) == pytest.approx(
        _value("RBP(p=0.9)", run, binary), abs=1e-15)


def test_graded_rbp_is_0_when_the_gain_table_has_no_spread():
    zeros = QRELS.assign(label=[0, 0, 0, 0, -1])
    assert _value("RBPGraded(gains={0:2})", _run("a", "b"), zeros) == 0.0


@pytest.mark.parametrize(("measure", "run", "options", "expected"), [
    # x (unjudged) at 2: (1 - p) p + the tail p^3
    ("RBPResid", ("b", "x", "a"), {}, 0.1 * 0.9 + 0.9 ** 3),
    ("RBPResid", ("b", "n", "a"), {}, 0.1 * 0.9 + 0.9 ** 3),  # a negative label too
    # nothing unjudged: the tail alone (trec_eval prints 0 here)
    ("RBPResid", ("b", "a"), {}, 0.9 ** 2),
    ("RBPResid", ("b", "x", "a"), {"judged_only": True}, 0.9 ** 2),
    ("RBPResid(p=0.5)", ("b", "x", "a"), {}, 0.5 * 0.5 + 0.5 ** 3),
    ("RBPResid", (), {}, 1.0),
], ids=lambda v: str(v))
def test_rbp_resid_by_hand(measure, run, options, expected):
    assert _value(measure, _run(*run), **options) == pytest.approx(expected, abs=1e-12)


def test_a_topic_the_run_skipped_or_with_only_negative_labels_scores_0():
    qrels = pd.concat([QRELS, pd.DataFrame({"topic": "2", "doc": ["a", "b"], "label": [-1, -1]})])
    run = pd.concat([_run("a", "b", topic="2"), _run("zz", topic="3")])
    measures = ["G", "BinG", "RnDCG", "nDCGRel", "RBPGraded", "nDCG(gains={1:3})"]
    frame = evaluate(qrels, {"r": run}, measures)
    values = frame[frame.topic != "all"].set_index(["topic", "measure"])["value"]
    assert (values == 0.0).all() and len(values) == 2 * len(measures)
    resid = evaluate(qrels, {"r": run}, ["RBPResid"]).set_index("topic")["value"]
    assert resid["1"] == 1.0 and resid["2"] == pytest.approx(0.1 * (1 + 0.9) + 0.81)


def test_prefix_sums_add_each_segment_alone_and_in_order():
    """Bit for bit a sequential sum per segment, whatever the other segments hold."""
    rng = np.random.default_rng(3)
    for _ in range(50):
        counts = rng.integers(0, 70, rng.integers(1, 20))
        offsets = np.concatenate(([0], np.cumsum(counts)))
        values = rng.random(offsets[-1]) * 10.0 ** rng.integers(-3, 6, offsets[-1])
        expected = []
        for start, end in itertools.pairwise(offsets):
            total = 0.0
            for value in values[start:end]:
                total += value
                expected.append(total)
        assert np.array_equal(prefix_sums(values, offsets), np.array(expected))


def test_a_topic_scores_the_same_bits_alone_or_among_others():
    rng = np.random.default_rng(4)
    qrels = pd.DataFrame({"topic": np.repeat(["1", "2", "3"], 40), "doc": [f"d{i}" for i in
                          range(40)] * 3, "label": rng.integers(-1, 4, 120)})
    run = pd.DataFrame({"topic": np.repeat(["1", "2", "3"], 30), "doc": [f"d{i}" for i in
                        rng.permutation(60)[:30]] * 3, "score": rng.random(90) * 1e3})
    measures = ["G", "RnDCG", "nDCGRel", "nDCG", "nDCG(gains={1:3.3,3:0.7})@10", "RBPGraded"]
    together = evaluate(qrels, {"r": run}, measures).set_index(["topic", "measure"])["value"]
    for topic in ("1", "2", "3"):
        alone = evaluate(qrels[qrels.topic == topic], {"r": run[run.topic == topic]}, measures)
        for measure, value in zip(alone["measure"], alone["value"], strict=True):
            if alone["topic"].iat[0] == topic:
                assert value == together[(topic, measure)], (topic, measure)
