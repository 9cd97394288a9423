"""RBP, RBPResidual and RecallDepth against a direct per-topic computation and trectools."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.residual import unreached

from pooljudge import metrics
from pooljudge.errors import InputError


def _generated(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Qrels (labels -1..2) over 12 topics and a run with score ties, skipped and run-only
    topics, and documents judged, unjudged and negatively labelled."""
    rng = np.random.default_rng(seed)
    qrels_rows, run_rows = [], []
    for t in range(12):
        topic = f"q{t:02d}"
        docs = [f"d{i:03d}" for i in rng.choice(300, size=40, replace=False)]
        for doc in docs[:25]:
            qrels_rows.append((topic, doc, int(rng.choice([-1, 0, 0, 1, 2]))))
        if t in (3, 7):
            continue  # qrels topics the run skipped
        n = int(rng.integers(1, 40))
        scores = rng.integers(0, 8, size=n).astype(float)  # many ties
        run_rows += [(topic, doc, s) for doc, s in zip(docs[:n], scores, strict=True)]
    run_rows += [("only-in-run", "d001", 1.0), ("only-in-run", "d002", 0.5)]
    qrels = pd.DataFrame(qrels_rows, columns=["topic", "doc", "label"])
    run = pd.DataFrame(run_rows, columns=["topic", "doc", "score"])
    return qrels, run


def _direct(qrels: pd.DataFrame, run: pd.DataFrame, p: float, rel: int, k: int | None,
            r: float) -> dict[str, tuple[float, float, float]]:
    """Per qrels topic: (RBP, residual, RecallDepth) computed one document at a time."""
    out = {}
    for topic, judged in qrels.groupby("topic"):
        labels = dict(zip(judged["doc"], judged["label"], strict=True))
        rows = run[run["topic"] == topic]
        # trec_eval order: score descending, ties by document id descending.
        ranked = sorted(zip(rows["score"], rows["doc"], strict=True), reverse=True)
        docs = [doc for _, doc in ranked][: k if k is not None else None]
        value = residual = 0.0
        for i, doc in enumerate(docs, start=1):
            weight = (1 - p) * p ** (i - 1)
            label = labels.get(doc)
            if label is None or label < 0:
                residual += weight
            elif label >= rel:
                value += weight
        residual += p ** len(docs)
        total_rel = sum(1 for v in labels.values() if v >= rel)
        depth, found = math.nan, 0
        full = [doc for _, doc in ranked]
        for i, doc in enumerate(full, start=1):
            found += labels.get(doc, -1) >= rel
            if total_rel and found / total_rel >= r:
                depth = float(i)
                break
        out[topic] = (value, residual, depth)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("p", "rel", "k", "r"), [(0.8, 1, None, 0.95), (0.5, 2, 10, 0.5),
                                                  (0.95, 1, 5, 1.0)])
def test_against_direct_computation(seed, p, rel, k, r):
    qrels, run = _generated(seed)
    cut = "" if k is None else f"@{k}"
    names = [f"RBP(p={p},rel={rel}){cut}", f"RBPResidual(p={p}){cut}",
             f"RecallDepth(r={r},rel={rel})"]
    tidy = metrics.evaluate(qrels, {"run": run}, names)
    tidy = tidy[tidy["topic"] != "all"]
    got = {m: tidy[tidy["measure"] == str(metrics.parse(m))].set_index("topic")["value"]
           for m in names}
    expected = _direct(qrels, run, p, rel, k, r)
    assert set(got[names[0]].index) == set(expected)  # every qrels topic, no run-only topic
    for topic, (value, residual, depth) in expected.items():
        assert got[names[0]][topic] == pytest.approx(value, abs=1e-12)
        assert got[names[1]][topic] == pytest.approx(residual, abs=1e-12)
        assert got[names[2]][topic] == pytest.approx(depth, nan_ok=True)


def test_skipped_topic_has_zero_rbp_and_residual_one_and_interval_holds():
    qrels, run = _generated(4)
    tidy = metrics.evaluate(qrels, {"run": run}, ["RBP", "RBPResidual"])
    wide = tidy[tidy["topic"] != "all"].pivot(index="topic", columns="measure", values="value")
    assert wide.loc["q03"].tolist() == [0.0, 1.0]
    assert ((wide["RBP"] + wide["RBPResidual"]) <= 1.0 + 1e-12).all()


def test_interval_contains_rbp_of_every_completion_of_the_judgments():
    # Any labelling of the unjudged documents keeps RBP inside [RBP, RBP + residual].
    qrels, run = _generated(5)
    base = metrics.evaluate(qrels, {"run": run}, ["RBP", "RBPResidual"], per_topic=False)
    low, width = base["value"].tolist()
    rng = np.random.default_rng(0)
    unjudged = run.merge(qrels, how="left", on=["topic", "doc"])
    for _ in range(5):
        completed = unjudged.assign(label=np.where(unjudged["label"].isna() | (
            unjudged["label"] < 0), rng.integers(0, 2, len(unjudged)), unjudged["label"]))
        full = pd.concat([qrels[~qrels.set_index(["topic", "doc"]).index.isin(
            completed.set_index(["topic", "doc"]).index)], completed[qrels.columns]])
        value = metrics.evaluate(full.astype({"label": int}), {"run": run}, ["RBP"],
                                 per_topic=False)["value"].iat[0]
        assert low - 1e-12 <= value <= low + width + 1e-12


def test_rbp_and_residual_match_trectools_on_tie_free_complete_rankings(tmp_path):
    # trectools' residual uses p^depth as the tail: equal to ours when every topic has exactly
    # `depth` documents; its ties are averaged unless average_ties=False.
    from trectools import TrecEval, TrecQrel, TrecRun

    rng = np.random.default_rng(9)
    depth, qrels_lines, run_lines = 20, [], []
    for t in range(1, 9):
        docs = [f"D{i}" for i in rng.choice(500, size=depth + 10, replace=False)]
        for doc in docs[5:]:
            qrels_lines.append(f"{t} 0 {doc} {int(rng.integers(0, 3))}")
        scores = rng.permutation(depth) + 1.0
        ranked = sorted(zip(docs[:depth], scores, strict=True), key=lambda x: -x[1])
        run_lines += [f"{t} Q0 {d} {i + 1} {s} r" for i, (d, s) in enumerate(ranked)]
    (tmp_path / "q").write_text("\n".join(qrels_lines) + "\n")
    (tmp_path / "r").write_text("\n".join(run_lines) + "\n")
    oracle = TrecEval(TrecRun(str(tmp_path / "r")), TrecQrel(str(tmp_path / "q")))
    value, residual = oracle.get_rbp(p=0.8, depth=depth, average_ties=False)
    ours = metrics.evaluate(str(tmp_path / "q"), [str(tmp_path / "r")],
                            [f"RBP(p=0.8)@{depth}", f"RBPResidual(p=0.8)@{depth}"],
                            per_topic=False)
    assert ours["value"].tolist() == pytest.approx([value, residual], abs=1e-12)


def test_recall_depth_unreached_counts_topics_without_value():
    qrels = pd.DataFrame({"topic": ["a", "a", "b", "c"], "doc": ["x", "y", "x", "x"],
                          "label": [1, 1, 0, 1]})
    run = pd.DataFrame({"topic": ["a", "a", "b", "c"], "doc": ["z", "x", "x", "w"],
                        "score": [3.0, 2.0, 1.0, 1.0]})
    tidy = metrics.evaluate(qrels, {"sys": run}, ["RecallDepth(r=0.5)", "RecallDepth"])
    per_topic = tidy[tidy["topic"] != "all"].set_index(["measure", "topic"])["value"]
    assert per_topic[("RecallDepth(r=0.5)", "a")] == 2.0
    assert np.isnan(per_topic[("RecallDepth", "a")])  # y never retrieved: 1/2 < 0.95
    assert np.isnan(per_topic[("RecallDepth(r=0.5)", "b")])  # no relevant document
    assert unreached(tidy) == {("sys", "RecallDepth(r=0.5)"): 2, ("sys", "RecallDepth"): 3}


@pytest.mark.parametrize("name", ["RBP(p=1.0)", "RBP(p=0)", "RBPResidual(p=1.5)",
                                  "RecallDepth(r=0)", "RecallDepth@10", "RBP(q=0.5)"])
def test_bad_parameters_are_input_errors(name):
    with pytest.raises(InputError, match=name.split("(")[0].split("@")[0]):
        metrics.parse(name)


def test_eval_cli_counts_topics_that_never_reach_the_recall(tmp_path, capsys):
    from pooljudge.cli import main

    (tmp_path / "qrels").write_text("a 0 x 1\na 0 y 1\nb 0 x 0\nc 0 x 1\n")
    (tmp_path / "sys").write_text("a Q0 z 1 3 s\na Q0 x 2 2 s\nb Q0 x 1 1 s\nc Q0 w 1 1 s\n")
    assert main(["eval", str(tmp_path / "qrels"), str(tmp_path / "sys"), "-m",
                 "RecallDepth(r=0.5)", "--per-topic", "--format", "tsv"]) == 0
    captured = capsys.readouterr()
    assert "sys\ta\tRecallDepth(r=0.5)\t2.0" in captured.out
    assert ("sys: 2 topic(s) never reach the recall of RecallDepth(r=0.5): no value"
            in captured.err)
