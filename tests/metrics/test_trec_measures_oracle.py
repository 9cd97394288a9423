"""pytrec_eval (trec_eval 9.0.8's C core) as the oracle of the measures added for -m all_trec,
per topic, 1e-9, under ``compat="9"``; trec_eval 10 is checked in test_trec_eval10.py.

Generated data: score ties, graded labels -2..3, a topic with no relevant document, a topic with
only negative labels, qrels topics missing from the run and run-only topics; relevance levels 1
and 2 (trec_eval's -l), with and without judged-only (-J). pytrec_eval cannot take gain pairs
(``ndcg.1=3`` aborts it), so gains are checked against trec_eval 10's suite and by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from pooljudge.metrics import evaluate

TOLERANCE = 1e-9
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
MULTS = tuple(x / 10 for x in range(2, 21, 2))


def _names(rel: int) -> dict[str, str]:
    """Our measure name -> pytrec_eval's key at relevance level ``rel`` (default parameters)."""
    r = "" if rel == 1 else f"rel={rel}"
    arg = f"({r})" if r else ""
    pairs = {
        f"GMBpref{arg}": "gm_bpref", f"BinG{arg}": "binG", f"RnDCG{arg}": "Rndcg", "G": "G",
        "nDCGRel": "ndcg_rel", f"SetAP{arg}": "set_map", f"SetRelP{arg}": "set_relative_P",
        f"Utility{arg}": "utility", f"NumNonRelJudgedRet{arg}": "num_nonrel_judged_ret",
    }
    pairs.update({f"RelP{arg}@{k}": f"relative_P_{k}" for k in CUTOFFS})
    pairs.update({f"RprecMult({r + ',' if r else ''}mult={x!r})": f"Rprec_mult_{x:.2f}"
                  for x in MULTS if x != 1.0})
    pairs[f"RprecMult{arg}"] = "Rprec_mult_1.00"
    return pairs


def _generate(seed: int) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    rng = np.random.default_rng(seed)
    topics = [f"t{t:02d}" for t in range(24)]
    qrels_topics, run_topics = topics[:20], topics[2:]  # t00, t01 missing; t20.. run-only
    pool = [f"doc{i:05d}" for i in rng.choice(10**5, 600, replace=False)]
    labels = np.array([-2, -1, 0, 0, 0, 0, 1, 1, 2, 3])
    qrels = []
    for topic in qrels_topics:
        for doc in rng.choice(pool, size=int(rng.integers(4, 70)), replace=False):
            label = int(rng.choice(labels))
            if topic == "t05":
                label = 0  # no relevant document
            elif topic == "t06":
                label = -1  # only negative labels
            qrels.append((topic, doc, label))
    runs = {}
    for name in ("runA", "runB", "runC"):
        rows = []
        for topic in run_topics:
            docs = rng.choice(pool, size=int(rng.integers(1, 150)), replace=False)
            scores = rng.integers(0, 12, len(docs)) / 4  # many ties
            rows += [(topic, d, float(s)) for d, s in zip(docs, scores, strict=True)]
        runs[name] = pd.DataFrame(rows, columns=["topic", "doc", "score"])
    return pd.DataFrame(qrels, columns=["topic", "doc", "label"]), runs


def _as_dicts(qrels: pd.DataFrame, run: pd.DataFrame) -> tuple[dict, dict]:
    qd: dict = {}
    for t, d, label in qrels.itertuples(index=False):
        qd.setdefault(t, {})[d] = int(label)
    rd: dict = {}
    for t, d, s in run.itertuples(index=False):
        rd.setdefault(t, {})[d] = float(s)
    return qd, rd


def _ours(qrels, runs, names, judged_only: bool) -> dict[tuple[str, str, str], float]:
    frame = evaluate(qrels, runs, names, judged_only=judged_only, compat="9")
    return {(r, t, m): v for r, t, m, v in frame.itertuples(index=False)}


def _check(qrels, runs, pairs: dict[str, str], request: set[str], rel: int,
           judged_only: bool) -> int:
    """Compare every (run, topic, measure) pytrec_eval returns; the number compared."""
    ours = _ours(qrels, runs, list(pairs), judged_only)
    checked = 0
    for run_name, run in runs.items():
        qd, rd = _as_dicts(qrels, run)
        expected = pytrec_eval.RelevanceEvaluator(
            qd, request, relevance_level=rel, judged_docs_only_flag=judged_only).evaluate(rd)
        assert expected
        for topic, values in expected.items():
            for name, key in pairs.items():
                want = math.exp(values[key]) if key == "gm_bpref" else values[key]
                got = ours[(run_name, topic, name)]
                if math.isnan(want):  # 0/0 in trec_eval (e.g. -J left nothing); we report 0
                    assert got == 0.0, (run_name, topic, name)
                    continue
                assert got == pytest.approx(want, abs=TOLERANCE), (run_name, topic, name, want)
                checked += 1
    return checked


@pytest.mark.parametrize("seed", [11, 12])
@pytest.mark.parametrize("rel", [1, 2])
@pytest.mark.parametrize("judged_only", [False, True], ids=["all", "judged-only"])
def test_all_trec_measures_match_pytrec_eval(seed, rel, judged_only):
    qrels, runs = _generate(seed)
    pairs = _names(rel)
    request = {"gm_bpref", "binG", "Rndcg", "G", "ndcg_rel", "set_map", "set_relative_P",
               "utility", "num_nonrel_judged_ret", "relative_P", "Rprec_mult"}
    assert _check(qrels, runs, pairs, request, rel, judged_only) > 1000


@pytest.mark.parametrize(("ours", "request_key", "key"), [
    ("IPrec11(levels={0.25,0.5,0.75})", "11pt_avg.0.25,0.5,0.75", "11pt_avg"),
    ("IPrec11(levels={0.2,0.5,0.8})", "11pt_avg.0.2,0.5,0.8", "11pt_avg"),
    ("Success@2", "success.2,7,1000", "success_2"),
    ("Success@7", "success.2,7,1000", "success_7"),
    ("Success@1000", "success.2,7,1000", "success_1000"),
    ("RelP@3", "relative_P.3,7", "relative_P_3"),
    ("RprecMult(mult=0.35)", "Rprec_mult.0.35,5.0", "Rprec_mult_0.35"),
    ("RprecMult(mult=5.0)", "Rprec_mult.0.35,5.0", "Rprec_mult_5.00"),
], ids=lambda v: str(v))
def test_measure_parameters_match_pytrec_eval(ours, request_key, key):
    qrels, runs = _generate(13)
    assert _check(qrels, runs, {ours: key}, {request_key}, 1, False) > 40


def test_the_generated_data_holds_the_edge_cases():
    qrels, runs = _generate(11)
    by_topic = qrels.groupby("topic")["label"]
    assert by_topic.max()["t05"] == 0 and by_topic.max()["t06"] < 0
    assert {"t00", "t01"}.isdisjoint(runs["runA"]["topic"])
    assert runs["runA"].duplicated(["topic", "score"]).any()
    assert set(qrels["label"]) == {-2, -1, 0, 1, 2, 3}
