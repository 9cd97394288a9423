"""Oracle tests: every measure pytrec_eval (trec_eval 9.0.8's C core) shares with us, per topic,
1e-9, under ``compat="9"`` (trec_eval 10, the default, is checked in test_trec_eval10.py).

Generated data has score ties, graded and negative labels, topics with no relevant document,
qrels topics missing from the run and run-only topics; the real robust03 runs are checked too.
ir_measures is the oracle for Judged@k, on tie-free data (it breaks ties the other way).
"""

from __future__ import annotations

import math

import ir_measures
import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from pooljudge.metrics import evaluate

from pooljudge.formats.trec import read_qrels, read_run

TOLERANCE = 1e-9
LEVELS = ["0.00", "0.10", "0.20", "0.30", "0.40", "0.50", "0.60", "0.70", "0.80", "0.90", "1.00"]


def _oracle_names(rel: int) -> dict[str, str]:
    """Our measure name -> pytrec_eval's key, at relevance level ``rel``."""
    r = "" if rel == 1 else f"(rel={rel})"
    pairs = {
        f"P{r}@5": "P_5", f"P{r}@10": "P_10", f"R{r}@10": "recall_10", f"R{r}@100": "recall_100",
        f"AP{r}": "map", f"AP{r}@10": "map_cut_10", f"RR{r}": "recip_rank",
        f"Rprec{r}": "Rprec", f"Bpref{r}": "bpref", f"Success{r}@1": "success_1",
        f"Success{r}@10": "success_10", f"IPrec11{r}": "11pt_avg", f"SetP{r}": "set_P",
        f"SetR{r}": "set_recall", f"SetF{r}": "set_F", f"NumRelRet{r}": "num_rel_ret",
        f"GMAP{r}": "gm_map", "NumRet": "num_ret", "NumQ": "num_q",
        "nDCG": "ndcg", "nDCG@5": "ndcg_cut_5", "nDCG@10": "ndcg_cut_10",
    }
    pairs.update({f"IPrec{r}@{float(x)!r}": f"iprec_at_recall_{x}" for x in LEVELS})
    if rel == 1:  # pytrec_eval ignores relevance_level for num_rel
        pairs["NumRel"] = "num_rel"
    return pairs


def _pytrec_request(keys) -> set[str]:
    return {k if not k.startswith("iprec_at_recall") else "iprec_at_recall" for k in keys}


def _generate(seed: int, *, ties: bool = True) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    rng = np.random.default_rng(seed)
    topics = [f"{t:03d}" for t in range(30)]
    # 000-002 are missing from the runs; 026-029 are only in the runs.
    qrels_topics, run_topics = topics[:26], topics[3:]
    qrels_rows, runs = [], {}
    pool = [f"D{rng.integers(0, 10**6):06d}{c}" for c in "abcdefghij" for _ in range(40)]
    labels = np.array([-2, -1, 0, 0, 0, 0, 1, 1, 2, 3])
    for topic in qrels_topics:
        judged = rng.choice(pool, size=rng.integers(5, 60), replace=False)
        none_relevant = topic == "005"
        for doc in judged:
            label = 0 if none_relevant else int(rng.choice(labels))
            qrels_rows.append((topic, doc, label))
    for name in ("runA", "runB", "runC"):
        rows = []
        for topic in run_topics:
            docs = rng.choice(pool, size=rng.integers(1, 120), replace=False)
            scores = rng.integers(0, 15, len(docs)) / 4 if ties else rng.permutation(len(docs))
            rows += [(topic, d, float(s)) for d, s in zip(docs, scores, strict=True)]
        runs[name] = pd.DataFrame(rows, columns=["topic", "doc", "score"])
    return pd.DataFrame(qrels_rows, columns=["topic", "doc", "label"]), runs


def _as_dicts(qrels: pd.DataFrame, run: pd.DataFrame):
    qd: dict = {}
    for t, d, label in zip(qrels["topic"], qrels["doc"], qrels["label"], strict=True):
        qd.setdefault(t, {})[d] = int(label)
    rd: dict = {}
    for t, d, s in zip(run["topic"], run["doc"], run["score"], strict=True):
        rd.setdefault(t, {})[d] = float(s)
    return qd, rd


def _ours(qrels, runs, names, judged_only=False) -> dict[tuple[str, str, str], float]:
    frame = evaluate(qrels, runs, names, judged_only=judged_only, compat="9")
    return {(r, t, m): v for r, t, m, v in frame.itertuples(index=False)}


def _compare(qrels, runs, rel: int, judged_only: bool) -> int:
    names = _oracle_names(rel)
    ours = _ours(qrels, runs, list(names), judged_only)
    checked = 0
    for run_name, run in runs.items():
        qd, rd = _as_dicts(qrels, run)
        evaluator = pytrec_eval.RelevanceEvaluator(
            qd, _pytrec_request(names.values()), relevance_level=rel,
            judged_docs_only_flag=judged_only)
        expected = evaluator.evaluate(rd)
        assert set(expected) == set(qd) & set(rd) or judged_only
        for topic, values in expected.items():
            for ours_name, key in names.items():
                want = math.exp(values[key]) if key == "gm_map" else values[key]
                got = ours[(run_name, topic, ours_name)]
                if math.isnan(want):  # trec_eval's 0/0 when -J leaves nothing; we report 0
                    assert judged_only and got == 0, (run_name, topic, ours_name)
                    continue
                assert got == pytest.approx(want, abs=TOLERANCE), (run_name, topic, ours_name)
                checked += 1
    return checked


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("rel", [1, 2])
@pytest.mark.parametrize("judged_only", [False, True], ids=["all", "judged-only"])
def test_generated_runs_match_pytrec_eval(seed, rel, judged_only):
    qrels, runs = _generate(seed)
    assert _compare(qrels, runs, rel, judged_only) > 1000


def test_qrels_topics_missing_from_the_run_score_zero_and_count():
    qrels, runs = _generate(4)
    frame = evaluate(qrels, {"runA": runs["runA"]}, ["AP", "P@10", "nDCG", "GMAP", "NumRel",
                                                     "NumQ", "Judged@10", "Unjudged@10"])
    values = frame.set_index(["topic", "measure"])["value"]
    for topic in ("000", "001", "002"):
        assert values[(topic, "AP")] == values[(topic, "P@10")] == values[(topic, "nDCG")] == 0
        assert values[(topic, "GMAP")] == 1e-5
        assert values[(topic, "Judged@10")] == values[(topic, "Unjudged@10")] == 0
        assert values[(topic, "NumRel")] == (qrels[qrels.topic == topic].label >= 1).sum()
    assert values[("all", "NumQ")] == 26  # every qrels topic, none of the run-only ones
    per_topic = frame[(frame.topic != "all") & (frame.measure == "AP")]["value"]
    assert values[("all", "AP")] == pytest.approx(per_topic.mean(), abs=1e-15)
    gm = frame[(frame.topic != "all") & (frame.measure == "GMAP")]["value"]
    assert values[("all", "GMAP")] == pytest.approx(math.exp(np.log(gm).mean()), rel=1e-12)


@pytest.mark.parametrize("k", [1, 5, 10, 100])
def test_judged_matches_ir_measures_on_tie_free_data(k):
    qrels, runs = _generate(5, ties=False)
    ours = _ours(qrels, runs, [f"Judged@{k}"])
    qrels_ir = qrels.rename(columns={"topic": "query_id", "doc": "doc_id", "label": "relevance"})
    measure = ir_measures.Judged @ k
    for name, run in runs.items():
        run_ir = run.rename(columns={"topic": "query_id", "doc": "doc_id"})
        expected = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels_ir, run_ir)}
        assert expected
        for topic, value in expected.items():
            assert ours[(name, topic, f"Judged@{k}")] == pytest.approx(value, abs=TOLERANCE)


@pytest.mark.slow
def test_robust03_runs_match_pytrec_eval(shared_data):
    folder = shared_data / "robust03"
    qrels = read_qrels(folder / "qrels.txt")
    runs = {p.name: read_run(p) for p in sorted((folder / "runs").glob("input.*.gz"))}
    assert len(runs) == 17
    names = {"P@10": "P_10", "AP": "map", "nDCG@10": "ndcg_cut_10", "nDCG": "ndcg",
             "RR": "recip_rank", "Bpref": "bpref", "Rprec": "Rprec", "R@100": "recall_100",
             "IPrec11": "11pt_avg", "IPrec@0.3": "iprec_at_recall_0.30", "NumRelRet": "num_rel_ret",
             "P(rel=2)@10": None}
    ours = _ours(folder / "qrels.txt", {n: r for n, r in runs.items()}, list(names))
    evaluator = pytrec_eval.RelevanceEvaluator(
        _as_dicts(qrels, next(iter(runs.values())))[0],
        _pytrec_request(v for v in names.values() if v))
    strict = pytrec_eval.RelevanceEvaluator(_as_dicts(qrels, qrels.assign(score=0.0))[0], {"P_10"},
                                            relevance_level=2)
    for name, run in runs.items():
        rd = _as_dicts(qrels, run)[1]
        for results, pairs in ((evaluator.evaluate(rd), names),
                               (strict.evaluate(rd), {"P(rel=2)@10": "P_10"})):
            for topic, values in results.items():
                for ours_name, key in pairs.items():
                    if key is None:
                        continue
                    got = ours[(name, topic, ours_name)]
                    where = (name, topic, ours_name)
                    assert got == pytest.approx(values[key], abs=TOLERANCE), where
