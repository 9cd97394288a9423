"""Nugget scores equal nuggetizer's ``calculate_nugget_scores`` (0.0.5), per answer and as the
mean over answers; run intervals are the t interval over topics."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.nugget_scores import SCORES, answer_scores, run_rankings, run_scores
from scipy import stats

metrics = pytest.importorskip("nuggetizer.core.metrics")
LABELS = ("support", "partial_support", "not_support")


def _campaign(seed: int):
    """Generated banks (some topics without vital nuggets, one without nuggets), answers of
    three runs, and one assessor's labels of every cell."""
    rng = np.random.default_rng(seed)
    nuggets, answers, cells = [], [], []
    for t in range(int(rng.integers(3, 9))):
        topic = f"t{t}"
        size = 0 if t == 0 else int(rng.integers(1, 8))
        vital_share = 0.0 if t % 3 == 1 else rng.random()
        for k in range(size):
            nuggets.append((topic, f"{topic}-{k}",
                            "vital" if rng.random() < vital_share else "okay"))
        for run in ("r1", "r2", "r3"):
            answer = f"{run}/{topic}"
            answers.append((answer, topic, run))
            cells += [(answer, f"{topic}-{k}", "a", LABELS[int(rng.integers(3))])
                      for k in range(size)]
    return (pd.DataFrame(nuggets, columns=["topic", "key", "importance"]),
            pd.DataFrame(answers, columns=["answer", "topic", "run"]),
            pd.DataFrame(cells, columns=["answer", "nugget", "assessor", "label"]))


def _nuggetizer(nuggets, answers, cells):
    """nuggetizer's records, one per answer: its topic's nuggets with their assignments."""
    label = {(a, n): lab for a, n, _, lab in cells.itertuples(index=False)}
    return {answer: {"qid": topic, "nuggets": [
        {"importance": imp, "assignment": label[answer, key]}
        for _, key, imp in nuggets[nuggets["topic"] == topic].itertuples(index=False)]}
        for answer, topic, _ in answers.itertuples(index=False)}


@pytest.mark.parametrize("seed", range(12))
def test_answer_scores_equal_nuggetizer(seed):
    nuggets, answers, cells = _campaign(seed)
    records = _nuggetizer(nuggets, answers, cells)
    ours = answer_scores(nuggets, answers, cells).set_index("answer")
    labelled = [a for a, r in records.items() if r["nuggets"]]  # an empty topic has no cells
    assert sorted(ours.index) == sorted(labelled)
    assert not (nuggets.groupby("topic")["importance"].apply(lambda s: (s == "okay").all())
                .loc[lambda s: s].empty)  # some topic has no vital nugget
    for answer in labelled:
        expected = metrics.calculate_nugget_scores(records[answer]["qid"],
                                                   records[answer]["nuggets"])
        assert ours.loc[answer, "missing"] == 0
        for score in SCORES:
            assert ours.loc[answer, score] == getattr(expected, f"{score}_score"), score
    for run in ("r1", "r2", "r3"):
        mean = metrics.calculate_global_metrics(
            [records[a] for a in labelled if a.startswith(run + "/")])
        ours_run = run_scores(answer_scores(nuggets, answers, cells)).query("run == @run")
        for score in SCORES:
            value = ours_run.loc[ours_run["score"] == score, "mean"].item()
            assert value == pytest.approx(mean[f"{score}_score"], abs=1e-15)


def test_run_interval_is_the_t_interval_over_topics():
    nuggets, answers, cells = _campaign(3)
    scores = answer_scores(nuggets, answers, cells)
    row = run_scores(scores, level=0.9).query("run == 'r2' and score == 'all'").iloc[0]
    values = scores.query("run == 'r2'")["all"].to_numpy()
    low, high = stats.t.interval(0.9, len(values) - 1, loc=values.mean(),
                                 scale=stats.sem(values))
    assert (row["topics"], row["incomplete"]) == (len(values), 0)
    assert row["mean"] == pytest.approx(values.mean())
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low), pytest.approx(high))


def test_an_answer_with_unlabelled_nuggets_is_not_scored_and_is_counted():
    nuggets = pd.DataFrame([("t1", "n1", "vital"), ("t1", "n2", "okay"), ("t2", "m1", "okay")],
                           columns=["topic", "key", "importance"])
    answers = pd.DataFrame([("A", "t1", "r"), ("B", "t2", "r"), ("C", "t1", "s")],
                           columns=["answer", "topic", "run"])
    cells = pd.DataFrame([("A", "n1", "x", "support"), ("B", "m1", "x", "partial_support"),
                          ("C", "n1", "x", "support"), ("C", "n2", "x", "partial_support"),
                          ("C", "gone", "x", "support")],
                         columns=["answer", "nugget", "assessor", "label"])
    scores = answer_scores(nuggets, answers, cells).set_index("answer")
    assert scores.loc["A", "missing"] == 1 and math.isnan(scores.loc["A", "all"])
    assert scores.loc["B", ["strict_vital", "vital", "strict_all", "all"]].tolist() == [
        0.0, 0.0, 0.0, 0.5]
    assert scores.loc["C", ["strict_vital", "strict_all", "vital", "all"]].tolist() == [
        1.0, 0.5, 1.0, 0.75]
    runs = run_scores(answer_scores(nuggets, answers, cells)).set_index(["run", "score"])
    assert runs.loc[("r", "all"), ["topics", "mean", "incomplete"]].tolist() == [1, 0.5, 1]
    assert math.isnan(runs.loc[("r", "all"), "ci_low"])  # one topic: no interval


def test_run_rankings_are_kendall_tau_over_the_answers_both_scored():
    nuggets, answers, cells = _campaign(5)
    answers = pd.concat([answers, answers.assign(
        answer=answers["answer"].str.replace("r1/", "r4/"), run="r4")], ignore_index=True)
    cells = pd.concat([cells, cells.assign(answer=cells["answer"].str.replace("r1/", "r4/"))],
                      ignore_index=True)
    rng = np.random.default_rng(1)
    other = cells.assign(assessor="b", label=[LABELS[i] for i in rng.integers(3, size=len(cells))])
    other = other[~other["answer"].str.endswith("/t2")]  # b left topic t2 out
    scores = answer_scores(nuggets, answers, pd.concat([cells, other], ignore_index=True))
    row = run_rankings(scores).query("score == 'strict_all'").iloc[0]
    shared = scores[scores["topic"] != "t2"]
    means = shared.pivot_table(index="run", columns="assessor", values="strict_all")
    assert (row["a"], row["b"], row["runs"]) == ("a", "b", 4)
    assert row["topics"] == scores["topic"].nunique() - 1
    assert row["tau_b"] == pytest.approx(stats.kendalltau(means["a"], means["b"]).statistic)
    assert row["tau_b_low"] <= row["tau_b"] <= row["tau_b_high"]
    assert row["tau_ap_b_low"] <= row["tau_ap_b"] <= row["tau_ap_b_high"]
    again = run_rankings(scores, replicates=0).query("score == 'strict_all'").iloc[0]
    assert again["tau_b"] == row["tau_b"] and np.isnan(again["tau_b_low"])
