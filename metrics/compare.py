"""Paired significance tests over topics, Holm's correction and paired effect sizes.

For a pair (baseline A, run B) and one measure, with d_t = B_t - A_t over the shared topics:

- ``mean_diff`` = mean(d); ``cohens_d`` = mean(d) / sd(d) with sd the sample standard deviation
  (ddof=1), the paired-samples d (NaN when sd is 0);
- ``t_p``: two-sided paired t-test, ``scipy.stats.ttest_rel`` (NaN when every d_t is equal);
- ``perm_p``: two-sided paired randomization test, ``scipy.stats.permutation_test`` with
  ``permutation_type="samples"`` on the statistic mean(d), seeded (exact when 2^n is at most
  ``n_resamples``);
- ``t_p_holm`` / ``perm_p_holm``: Holm's step-down adjustment across all comparisons of the same
  measure and test.

Fewer than 25 topics draw a warning: too few to rank systems reliably.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from pooljudge.errors import UsageError

__all__ = ["MIN_TOPICS", "compare", "holm", "paired_test"]

MIN_TOPICS = 25
COLUMNS = ["measure", "baseline", "run", "topics", "baseline_mean", "run_mean", "mean_diff",
           "cohens_d", "t_stat", "t_p", "perm_p", "t_p_holm", "perm_p_holm"]


def holm(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values, in the input order; NaN entries stay NaN and are not counted.

    Sorted ascending p_(1) <= ... <= p_(m): adj_(i) = max_{j<=i} min(1, (m - j + 1) * p_(j)).
    """
    p = np.asarray(p_values, dtype=np.float64)
    adjusted = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    m = len(valid)
    if m == 0:
        return adjusted
    order = valid[np.argsort(p[valid], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def paired_test(a: np.ndarray, b: np.ndarray, *, n_resamples: int = 10_000,
                seed: int = 0) -> dict[str, float]:
    """Effect sizes and both tests for paired per-topic scores ``a`` (baseline) and ``b``."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    diff = b - a
    sd = float(np.std(diff, ddof=1)) if len(diff) > 1 else float("nan")
    constant = len(diff) < 2 or np.all(diff == diff[0])
    if constant:
        t_stat = t_p = float("nan")
    else:
        t = stats.ttest_rel(b, a)
        t_stat, t_p = float(t.statistic), float(t.pvalue)
    perm_p = float("nan")
    if len(diff) >= 2:
        perm = stats.permutation_test(
            (b, a), _mean_difference, permutation_type="samples", vectorized=True,
            n_resamples=n_resamples, alternative="two-sided", random_state=seed)
        perm_p = float(perm.pvalue)
    return {
        "topics": len(diff), "baseline_mean": float(a.mean()) if len(a) else float("nan"),
        "run_mean": float(b.mean()) if len(b) else float("nan"),
        "mean_diff": float(diff.mean()) if len(diff) else float("nan"),
        "cohens_d": float(diff.mean() / sd) if sd and np.isfinite(sd) else float("nan"),
        "t_stat": t_stat, "t_p": t_p, "perm_p": perm_p,
    }


def compare(per_topic: pd.DataFrame, *, baseline: str | None = None, n_resamples: int = 10_000,
            seed: int = 0) -> tuple[pd.DataFrame, list[str]]:
    """Test every run against ``baseline`` (or every pair of runs) for every measure.

    ``per_topic`` is tidy: ``run, topic, measure, value`` with one row per topic (rows with topic
    ``all`` are ignored). Only topics scored for both runs are paired. Returns the table (columns
    ``COLUMNS``) and warnings. Raises UsageError for an unknown baseline or fewer than two runs.
    """
    rows = per_topic[per_topic["topic"] != "all"]
    runs = list(pd.unique(rows["run"]))
    if baseline is not None and baseline not in runs:
        raise UsageError(f"baseline {baseline!r} is not among the runs: {', '.join(runs)}")
    if len(runs) < 2:
        raise UsageError("comparing needs at least two runs")
    pairs = ([(baseline, r) for r in runs if r != baseline] if baseline is not None
             else list(itertools.combinations(runs, 2)))
    records, warnings = [], []
    for measure in pd.unique(rows["measure"]):
        table = rows[rows["measure"] == measure].pivot(index="topic", columns="run",
                                                       values="value")
        for first, second in pairs:
            both = table[[first, second]].dropna()
            scores = paired_test(both[first].to_numpy(), both[second].to_numpy(),
                                 n_resamples=n_resamples, seed=seed)
            records.append({"measure": measure, "baseline": first, "run": second, **scores})
    result = pd.DataFrame.from_records(records, columns=COLUMNS[:-2])
    for test in ("t_p", "perm_p"):
        result[f"{test}_holm"] = result.groupby("measure", sort=False)[test].transform(
            lambda p: holm(p.to_numpy()))
    few = int(result["topics"].min()) if len(result) else 0
    if few < MIN_TOPICS:
        warnings.append(f"only {few} topics paired: fewer than {MIN_TOPICS} topics are too few "
                        "to rank systems reliably")
    return result[COLUMNS], warnings


def _mean_difference(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x - y, axis=axis)
