"""Nugget scores of RAG answers, per answer and per run, as nuggetizer defines them.

For an answer to topic q, scored against q's bank of n nuggets (v of them vital), with s(k) = 1
when nugget k is assigned ``support`` and p(k) = 1 when ``partial_support``:

- ``strict_vital`` = Σ_vital s / v,  ``strict_all`` = Σ s / n,
- ``vital`` = Σ_vital (s + p/2) / v,  ``all`` = Σ (s + p/2) / n,

and, as nuggetizer's ``calculate_nugget_scores`` does, a score whose denominator is 0 (a topic
without vital nuggets, or without nuggets) is 0.0. An answer is scored only when the assessor
labelled every nugget of its topic's bank: otherwise its scores are NaN and ``missing`` counts
the unlabelled nuggets (never silently read as ``not_support``).

A run's score is the mean over topics of its answers' scores (the mean of its answers to a
topic first, when it has several), with the t interval of that mean over topics
(:func:`pooljudge.metrics.uncertainty.mean_interval`; NaN with fewer than two topics). Topics
the run did not answer, and answers with missing labels, are left out of the mean and counted.

Two assessors agree on the runs when their labels rank the runs alike: :func:`run_rankings`
compares, per pair of assessors and score, the runs' means over the topics where both scored
every run (Kendall's tau-b and the symmetric tau_AP-b of :mod:`pooljudge.metrics.meta_eval`,
with its bootstrap intervals over topics).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pooljudge.metrics.meta_eval import bootstrap, kendall_tau_b, tau_ap_b
from pooljudge.metrics.uncertainty import mean_interval

__all__ = ["SCORES", "answer_scores", "run_rankings", "run_scores"]

SCORES = ("strict_vital", "strict_all", "vital", "all")
_CREDIT = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}


def answer_scores(nuggets: pd.DataFrame, answers: pd.DataFrame,
                  cells: pd.DataFrame) -> pd.DataFrame:
    """One row per (assessor, answer) with a label: ``assessor, answer, topic, run, nuggets,
    vital_nuggets, missing`` and the four :data:`SCORES`.

    ``nuggets``: the active banks (``topic, key, importance``); ``answers``: ``answer, topic,
    run``; ``cells``: the latest labels (``answer, nugget, assessor, label``), nuggets by key.
    Labels of nuggets outside the banks are ignored.
    """
    bank = nuggets[["topic", "key", "importance"]].rename(columns={"key": "nugget"})
    sizes = bank.assign(vital=bank["importance"].eq("vital")).groupby("topic").agg(
        nuggets=("nugget", "size"), vital_nuggets=("vital", "sum"))
    assessed = (cells[["assessor", "answer"]].drop_duplicates()
                .merge(answers[["answer", "topic", "run"]], on="answer", how="inner"))
    grid = assessed.merge(bank, on="topic", how="inner").merge(
        cells[["assessor", "answer", "nugget", "label"]], on=["assessor", "answer", "nugget"],
        how="left")
    vital = grid["importance"].eq("vital").to_numpy()
    credit = grid["label"].map(_CREDIT).to_numpy(dtype=np.float64)
    strict = grid["label"].eq("support").to_numpy(dtype=np.float64)
    grid = grid.assign(missing=np.isnan(credit).astype(np.int64),
                       s_vital=strict * vital, s_all=strict,
                       c_vital=np.nan_to_num(credit) * vital, c_all=np.nan_to_num(credit))
    sums = grid.groupby(["assessor", "answer"], sort=False)[
        ["missing", "s_vital", "s_all", "c_vital", "c_all"]].sum()
    rows = assessed.set_index(["assessor", "answer"]).join(sums, how="left")
    rows = rows.join(sizes, on="topic").fillna({"nuggets": 0, "vital_nuggets": 0, "missing": 0})
    rows = rows.fillna({c: 0.0 for c in ("s_vital", "s_all", "c_vital", "c_all")})
    complete = rows["missing"].to_numpy() == 0
    for score, numerator, denominator in (("strict_vital", "s_vital", "vital_nuggets"),
                                          ("strict_all", "s_all", "nuggets"),
                                          ("vital", "c_vital", "vital_nuggets"),
                                          ("all", "c_all", "nuggets")):
        size = rows[denominator].to_numpy(dtype=np.float64)
        value = np.divide(rows[numerator].to_numpy(dtype=np.float64), size,
                          out=np.zeros(len(rows)), where=size > 0)
        rows[score] = np.where(complete, value, np.nan)
    rows = rows.reset_index().astype({"nuggets": "int64", "vital_nuggets": "int64",
                                      "missing": "int64"})
    columns = ["assessor", "answer", "topic", "run", "nuggets", "vital_nuggets", "missing",
               *SCORES]
    return rows[columns].sort_values(["assessor", "run", "topic", "answer"],
                                     ignore_index=True)


def run_scores(scores: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per (assessor, run) and score: the mean over topics of :func:`answer_scores`' rows
    (complete answers only; a topic's answers averaged first), with ``topics``, ``se``,
    ``ci_low``, ``ci_high`` (t interval at ``level``) and ``incomplete`` (answers left out for
    missing labels). Columns ``assessor, run, score, topics, mean, se, ci_low, ci_high,
    incomplete``."""
    incomplete = scores["missing"].gt(0).groupby([scores["assessor"], scores["run"]]).sum()
    complete = scores[scores["missing"] == 0]
    per_topic = complete.groupby(["assessor", "run", "topic"])[list(SCORES)].mean()
    rows = []
    for (assessor, run), group in per_topic.groupby(level=["assessor", "run"]):
        for score in SCORES:
            values = group[score].to_numpy(dtype=np.float64)
            se, low, high = mean_interval(values, level)
            rows.append((assessor, run, score, len(values), float(values.mean()), se, low,
                         high, int(incomplete.get((assessor, run), 0))))
    for (assessor, run), count in incomplete.items():
        if (assessor, run) not in per_topic.index.droplevel("topic"):
            rows += [(assessor, run, score, 0, np.nan, np.nan, np.nan, np.nan, int(count))
                     for score in SCORES]
    columns = ["assessor", "run", "score", "topics", "mean", "se", "ci_low", "ci_high",
               "incomplete"]
    frame = pd.DataFrame(rows, columns=columns)
    order = {score: i for i, score in enumerate(SCORES)}
    return frame.sort_values(["assessor", "run", "score"], key=lambda c: c.map(order)
                             if c.name == "score" else c, ignore_index=True)


def run_rankings(scores: pd.DataFrame, *, replicates: int = 1000, seed: int = 0,
                 confidence: float = 0.95) -> pd.DataFrame:
    """Per pair of assessors (``a`` < ``b``) and score: Kendall's ``tau_b`` and the symmetric
    ``tau_ap_b`` between the run rankings their labels give, each with a bootstrap percentile
    interval over topics (``replicates`` resamples, seeded; none when 0).

    Compared: the runs with an answer both scored completely, on the ``topics`` where both
    scored every one of those runs (a topic's answers averaged first), so that each run's mean
    is over the same topics. NaN with fewer than two runs or no such topic (tau_b also when
    one side ties every run)."""
    complete = scores[scores["missing"] == 0]
    assessors = sorted(complete["assessor"].unique())
    rows = []
    for i, a in enumerate(assessors):
        for b in assessors[i + 1:]:
            both = complete[complete["assessor"] == a].merge(
                complete[complete["assessor"] == b], on=["answer", "topic", "run"],
                suffixes=("_a", "_b"))
            cells = both.groupby(["topic", "run"]).mean(numeric_only=True)
            for score in SCORES:
                grids = [cells[f"{score}_{side}"].unstack("run").dropna() for side in "ab"]
                rows.append((a, b, score, grids[0].shape[1], grids[0].shape[0],
                             *_correlations(grids[0].to_numpy(), grids[1].to_numpy(),
                                            replicates, seed, confidence)))
    return pd.DataFrame(rows, columns=["a", "b", "score", "runs", "topics", "tau_b",
                                       "tau_b_low", "tau_b_high", "tau_ap_b", "tau_ap_b_low",
                                       "tau_ap_b_high"])


def _correlations(a: np.ndarray, b: np.ndarray, replicates: int, seed: int,
                  confidence: float) -> tuple[float, ...]:
    """tau_b and tau_ap_b of two (topics, runs) grids with their bootstrap intervals."""
    if a.shape[0] == 0 or a.shape[1] < 2:
        return (np.nan,) * 6
    if replicates == 0:
        x, y = a.mean(axis=0), b.mean(axis=0)
        return (float(kendall_tau_b(x, y)), np.nan, np.nan, float(tau_ap_b(x, y)), np.nan,
                np.nan)
    found = bootstrap(a, b, replicates=replicates, seed=seed, alpha=1 - confidence)
    return (*found["kendall_tau"], *found["tau_ap_b"])
