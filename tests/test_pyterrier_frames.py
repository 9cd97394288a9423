"""PyTerrier's frames (``qid, docno, score, rank``; qrels ``qid, docno, label``) and
ir_measures' (``query_id, doc_id, relevance``) in pooljudge.metrics.evaluate and
pooling.build_pool, and
the export to PyTerrier's names (pooljudge.formats.pyterrier)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from pooljudge.metrics.evaluate import evaluate
from pooljudge.pooling.pool import build_pool

from pooljudge.errors import InputError
from pooljudge.formats.pyterrier import (
    recognise_columns,
    to_pyterrier_pool,
    to_pyterrier_qrels,
    to_pyterrier_run,
    to_pyterrier_topics,
)
from pooljudge.formats.trec import read_qrels, read_run, run_name

MEASURES = ["map", "P@5", "nDCG@10", "recip_rank", "bpref", "NumRet", "NumRelRet"]


def _trec_frames(seed: int = 7) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Qrels over 4 topics and 3 runs with tied scores, as pooljudge's frames."""
    rng = np.random.default_rng(seed)
    docs = [f"D{i:03d}" for i in range(60)]
    qrels = pd.DataFrame([(f"{t}", d, int(rng.integers(0, 3)))
                          for t in (401, 402, 403, 404) for d in rng.choice(docs, 25, False)],
                         columns=["topic", "doc", "label"])
    runs = {}
    for name in ("bm25", "dense", "hybrid"):
        rows = [(f"{t}", d, float(rng.integers(0, 8)))  # few distinct scores: many ties
                for t in (401, 402, 403) for d in rng.choice(docs, 30, False)]
        runs[name] = pd.DataFrame(rows, columns=["topic", "doc", "score"])
    return qrels, runs


def _pyterrier_run(run: pd.DataFrame) -> pd.DataFrame:
    """A run as PyTerrier hands it over: qid, docid (its index's integer), docno, score, rank
    (from 0, PyTerrier's own order: score descending) and the query, rows shuffled."""
    frame = run.rename(columns={"topic": "qid", "doc": "docno"})
    frame = frame.sort_values(["qid", "score"], ascending=[True, False], kind="stable")
    frame["rank"] = frame.groupby("qid").cumcount()
    frame["docid"] = pd.factorize(frame["docno"])[0]
    frame["query"] = "a query"
    return frame.sample(frac=1.0, random_state=3)[["qid", "docid", "docno", "score", "rank",
                                                    "query"]]


def _pyterrier_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    frame = qrels.rename(columns={"topic": "qid", "doc": "docno"})
    return frame.assign(iteration="0")


def test_pyterrier_frames_score_exactly_like_trec_frames():
    qrels, runs = _trec_frames()
    expected = evaluate(qrels, runs, MEASURES)
    got = evaluate(_pyterrier_qrels(qrels), {n: _pyterrier_run(r) for n, r in runs.items()},
                   MEASURES)
    pdt.assert_frame_equal(got, expected)
    assert expected.loc[expected["measure"] == "map", "value"].gt(0).all()


def test_a_single_pyterrier_frame_is_one_run_named_run():
    qrels, runs = _trec_frames()
    got = evaluate(_pyterrier_qrels(qrels), _pyterrier_run(runs["dense"]), MEASURES)
    expected = evaluate(qrels, {"run": runs["dense"]}, MEASURES)
    pdt.assert_frame_equal(got, expected)


def test_ir_measures_names_score_exactly_like_trec_frames():
    qrels, runs = _trec_frames(11)
    measured = qrels.rename(columns={"topic": "query_id", "doc": "doc_id", "label": "relevance"})
    run = runs["bm25"].rename(columns={"topic": "query_id", "doc": "doc_id"})
    pdt.assert_frame_equal(evaluate(measured, {"bm25": run}, MEASURES),
                           evaluate(qrels, {"bm25": runs["bm25"]}, MEASURES))


def test_the_rank_column_is_ignored_as_trec_eval_ignores_ranks():
    qrels, runs = _trec_frames()
    frame = _pyterrier_run(runs["hybrid"])
    frame["rank"] = frame["rank"].to_numpy()[::-1]  # nonsense ranks: the scores decide
    pdt.assert_frame_equal(evaluate(_pyterrier_qrels(qrels), {"h": frame}, MEASURES),
                           evaluate(qrels, {"h": runs["hybrid"]}, MEASURES))


def test_build_pool_takes_pyterrier_runs_and_excludes_pyterrier_qrels():
    qrels, runs = _trec_frames(5)
    judged = qrels[qrels["topic"] == "401"]
    expected = build_pool(runs, 10, exclude=judged)
    got = build_pool({n: _pyterrier_run(r) for n, r in runs.items()}, 10,
                     exclude=_pyterrier_qrels(judged))
    pdt.assert_frame_equal(got.pairs, expected.pairs)
    pdt.assert_frame_equal(got.entries, expected.entries)
    assert len(expected.pairs) < len(build_pool(runs, 10).pairs)  # the exclusion did work


def test_our_own_names_win_over_an_alias_and_two_aliases_are_refused():
    frame = pd.DataFrame({"topic": ["1"], "qid": ["9"], "doc": ["a"], "score": [1.0]})
    assert recognise_columns(frame, ("topic", "doc", "score")) is frame
    both = pd.DataFrame({"qid": ["1"], "query_id": ["1"], "docno": ["a"], "score": [1.0]})
    with pytest.raises(InputError, match="qid and query_id could both be the topic column"):
        evaluate(pd.DataFrame({"topic": ["1"], "doc": ["a"], "label": [1]}), {"r": both})


@pytest.mark.parametrize("call", [
    lambda frame: evaluate(pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1]}),
                           {"r": frame}),
    lambda frame: build_pool({"r": frame}, 5),
])
def test_a_pyterrier_frame_without_scores_names_what_is_missing(call):
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rank": [0, 1]})
    with pytest.raises(InputError, match=r"missing column.*score"):
        call(frame)


def test_runs_export_to_pyterrier_in_trec_eval_order_ranked_from_zero():
    run = pd.DataFrame({"topic": ["2", "1", "1", "1"], "doc": ["x", "a", "c", "b"],
                        "score": [1.0, 0.5, 0.9, 0.5], "tag": "t"})
    frame = to_pyterrier_run(run)
    assert list(frame.columns) == ["qid", "docno", "score", "rank", "tag"]
    assert list(frame["docno"]) == ["c", "b", "a", "x"]  # ties: doc id descending
    assert list(frame["rank"]) == [0, 1, 2, 0]


def test_exported_frames_evaluate_to_the_same_numbers():
    qrels, runs = _trec_frames(3)
    exported = {n: to_pyterrier_run(r) for n, r in runs.items()}
    pt_qrels = to_pyterrier_qrels(qrels)
    assert list(pt_qrels.columns) == ["qid", "docno", "label"]
    assert pt_qrels["label"].dtype == np.int64
    pdt.assert_frame_equal(evaluate(pt_qrels, exported, MEASURES),
                           evaluate(qrels, runs, MEASURES))


def test_topics_and_pools_export_to_pyterrier_names():
    topics = pd.DataFrame({"id": [301, 302], "title": ["crime", "polio"],
                           "description": ["d1", "d2"], "narrative": ["n1", "n2"]})
    queries = to_pyterrier_topics(topics)
    assert list(queries.columns) == ["qid", "query", "description", "narrative"]
    assert list(queries["qid"]) == ["301", "302"] and list(queries["query"]) == ["crime", "polio"]
    _, runs = _trec_frames()
    pool = build_pool(runs, 3)
    frame = to_pyterrier_pool(pool.pairs)
    assert list(frame.columns[:2]) == ["qid", "docno"]
    assert list(frame["docno"]) == list(pool.pairs["doc"].astype(str))


def test_robust03_runs_as_pyterrier_frames_give_the_same_numbers(shared_data):
    folder = shared_data / "robust03"
    qrels = read_qrels(folder / "qrels.txt")
    paths = sorted((folder / "runs").iterdir())[:2]
    runs = {run_name(p): read_run(p) for p in paths}
    frames = {n: _pyterrier_run(r.drop(columns="tag")) for n, r in runs.items()}
    expected = evaluate(folder / "qrels.txt", paths, MEASURES)
    got = evaluate(_pyterrier_qrels(qrels), frames, MEASURES)
    pdt.assert_frame_equal(got.reset_index(drop=True), expected.reset_index(drop=True))
