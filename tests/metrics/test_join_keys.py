"""The qrels join through 64-bit keys: run files score exactly like frames and like pytrec_eval,
and a key collision on either side falls back to the exact string path with the same numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from pooljudge.metrics import evaluate

from pooljudge.formats.trec import write_qrels, write_run

MEASURES = ["P@5", "AP", "nDCG", "RR", "Bpref", "Judged@10", "NumRelRet"]
PYTREC = {"P@5": "P_5", "AP": "map", "nDCG": "ndcg", "RR": "recip_rank", "Bpref": "bpref",
          "NumRelRet": "num_rel_ret"}


def _collection(seed: int, *, one_judgment_per_topic: bool = False):
    """Qrels and two runs with ties, negative labels, run-only topics and ids of 1 to 40 bytes."""
    rng = np.random.default_rng(seed)
    pool = [f"D{i}" + "~" * int(rng.integers(0, 38)) for i in rng.permutation(3000)[:400]]
    rows = []
    for topic in [f"{t}" for t in range(1, 13)]:
        size = 1 if one_judgment_per_topic else int(rng.integers(2, 40))
        for doc in rng.choice(pool, size=size, replace=False):
            rows.append((topic, str(doc), int(rng.choice([-1, 0, 0, 1, 2]))))
    qrels = pd.DataFrame(rows, columns=["topic", "doc", "label"])
    runs = {}
    for name in ("runA", "runB"):
        rows = [(f"{t}", str(doc), float(rng.integers(0, 6)))
                for t in range(3, 16) for doc in rng.choice(pool, size=60, replace=False)]
        runs[name] = pd.DataFrame(rows, columns=["topic", "doc", "score"])
    return qrels, runs


def _files(tmp_path, qrels, runs):
    write_qrels(qrels, tmp_path / "qrels.txt")
    for name, run in runs.items():
        write_run(run, tmp_path / name)
    return tmp_path / "qrels.txt", [tmp_path / name for name in runs]


@pytest.mark.parametrize("seed", [1, 2])
def test_run_files_score_like_frames_and_like_pytrec_eval(tmp_path, seed):
    qrels, runs = _collection(seed)
    qrels_path, run_paths = _files(tmp_path, qrels, runs)
    from_files = evaluate(qrels_path, run_paths, MEASURES, compat="9")  # pytrec_eval: 9.0.8
    pd.testing.assert_frame_equal(from_files, evaluate(qrels, runs, MEASURES, compat="9"))
    qd: dict = {}
    for t, d, label in qrels.itertuples(index=False):
        qd.setdefault(t, {})[d] = int(label)
    values = from_files.set_index(["run", "topic", "measure"])["value"]
    for name, run in runs.items():
        rd: dict = {}
        for t, d, s in run.itertuples(index=False):
            rd.setdefault(t, {})[d] = float(s)
        expected = pytrec_eval.RelevanceEvaluator(qd, set(PYTREC.values())).evaluate(rd)
        for topic, scores in expected.items():
            for ours, theirs in PYTREC.items():
                assert values[(name, topic, ours)] == pytest.approx(scores[theirs], abs=1e-9)


def test_colliding_qrels_keys_use_the_exact_path(tmp_path, monkeypatch):
    import pooljudge.metrics.qrels_lookup as lookup

    qrels, runs = _collection(3)
    qrels_path, run_paths = _files(tmp_path, qrels, runs)
    expected = evaluate(qrels_path, run_paths, MEASURES)
    # Every document of a topic gets one key: the qrels' keys repeat.
    monkeypatch.setattr(lookup, "pair_keys", lambda topic, hashes: np.asarray(topic).astype(
        np.uint64) << np.uint64(40))
    pd.testing.assert_frame_equal(evaluate(qrels_path, run_paths, MEASURES), expected)


def test_a_run_key_matching_another_document_uses_the_exact_path(tmp_path, monkeypatch):
    import pooljudge.metrics.qrels_lookup as lookup

    qrels, runs = _collection(4, one_judgment_per_topic=True)
    qrels["label"] = 1
    runs = {name: pd.concat([run, qrels.assign(score=2.5)[["topic", "doc", "score"]]])
            .drop_duplicates(["topic", "doc"]) for name, run in runs.items()}
    qrels_path, run_paths = _files(tmp_path, qrels, runs)
    expected = evaluate(qrels_path, run_paths, MEASURES)
    assert expected.query("measure == 'NumRelRet' and topic == 'all'")["value"].min() > 0
    # One judged document per topic keeps the qrels' keys unique, while every run document of
    # a topic now matches its key: only the string check can tell them apart.
    monkeypatch.setattr(lookup, "pair_keys", lambda topic, hashes: np.asarray(topic).astype(
        np.uint64) << np.uint64(40))
    pd.testing.assert_frame_equal(evaluate(qrels_path, run_paths, MEASURES), expected)
