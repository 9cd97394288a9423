r"""Standard errors of the sampled-judgment estimates (:mod:`metrics.estimators`) and intervals
of their means over topics.

Per topic, an estimate's standard error is:

- **statPrec@k, analytic** (when π is constant within every stratum of the topic, as under
  sampling without replacement within strata): the Horvitz–Thompson variance of a stratified
  simple random sample, Var = (1/k²) Σ_c N_c² (1 - n_c/N_c) s_c² / n_c, with s_c² the sample
  variance (n_c - 1 in the divisor) over the judged documents of stratum c of y_d = rel_d ·
  [d in the top k]. A stratum with one judged document (no s_c²) or with all judged adds 0.
- **every other estimate, and statPrec@k under unequal π (PPS)**: a bootstrap within strata —
  the judged documents of each stratum resampled with replacement (their weights become their
  multiplicities, :meth:`metrics.prels.Prels.reweighted`), the estimate recomputed, ``replicates``
  times from the generator seeded with ``seed``; the SE is the standard deviation of the
  replicates (n - 1 in the divisor). A stratum with one judged document never varies, nor is
  a stratum judged whole resampled (no sampling error); otherwise no finite-population
  correction is applied, so with large sampling fractions the bootstrap SE is conservative.

Over topics: the mean's SE is sd / √n over the topic estimates (n - 1 in the divisor) and its
interval the t interval mean ± t_{n-1, (1+level)/2} · SE; NaN with fewer than two topics. This
interval counts both the sampling error and the spread of topics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from metrics.estimators import needs_prels, sample_of
from metrics.join import Ranking
from metrics.registry import Measure
from pooljudge.heap import reusing_freed_memory

if TYPE_CHECKING:
    from metrics.evaluate import RunResult

__all__ = ["BOOTSTRAP_REPLICATES", "error_columns", "mean_interval", "standard_errors",
           "stat_precision_se"]

BOOTSTRAP_REPLICATES = 200


def standard_errors(r: Ranking, measures: Sequence[Measure], *,
                    replicates: int = BOOTSTRAP_REPLICATES, seed: int = 0
                    ) -> dict[Measure, np.ndarray]:
    """Per estimator among ``measures``, its per-topic standard error (module docstring); other
    measures get none. The bootstrap replicates are shared by every measure."""
    wanted = [m for m in measures if needs_prels(m)]
    errors: dict[Measure, np.ndarray] = {}
    booted = []
    for measure in wanted:
        exact = stat_precision_se(r, measure) if measure.name == "statPrec" else None
        if exact is None:
            booted.append(measure)
        else:
            errors[measure] = exact
    if booted:
        draws = {m: np.empty((replicates, r.n_topics)) for m in booted}
        with reusing_freed_memory():  # many mid-sized temporaries
            for index, weight in enumerate(_resamples(r, replicates, seed)):
                replica = replace(r, prels=r.prels.reweighted(weight), _cache=dict(r._cache))
                for measure in booted:
                    draws[measure][index] = measure.spec.compute(replica, measure)
        for measure in booted:
            errors[measure] = draws[measure].std(axis=0, ddof=1)
    return errors


def stat_precision_se(r: Ranking, m: Measure) -> np.ndarray | None:
    """statPrec@k's analytic per-topic SE (module docstring), or None when π varies within a
    stratum (then the bootstrap decides)."""
    s = sample_of(r, m)
    p = s.prels
    mean = p.per_cell(p.inclusion) / p.pooled
    if np.any(np.abs(p.inclusion - mean[p.cell]) > 1e-12):
        return None
    in_top = np.zeros(len(p.label), dtype=bool)
    in_top[s.row[(s.row >= 0) & r.top(int(m.cutoff))]] = True
    weight = np.where(p.judged, p.weight, 0.0)
    y = np.where(in_top & (p.label >= m["rel"]), 1.0, 0.0) / m.cutoff
    n = p.per_cell(weight)
    total, squares = p.per_cell(weight * y), p.per_cell(weight * y * y)
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = np.where(n > 1, (squares - total * total / n) / (n - 1), 0.0)
        variance = np.where(n > 0, p.pooled ** 2 * (1 - n / p.pooled) * spread / n, 0.0)
    kept = p.cell_topic >= 0
    per_topic = np.bincount(p.cell_topic[kept], weights=np.maximum(variance[kept], 0.0),
                            minlength=r.n_topics)
    return np.sqrt(per_topic)


def _resamples(r: Ranking, replicates: int, seed: int):
    """Row weights of ``replicates`` bootstrap resamples within cells (module docstring)."""
    p = r.prels
    complete = p.sampled >= p.pooled  # a stratum judged whole has no sampling error
    rows = np.flatnonzero(p.judged & (p.weight > 0) & ~complete[p.cell])
    rows = rows[np.argsort(p.cell[rows], kind="stable")]
    cell = p.cell[rows]
    size = np.bincount(cell, minlength=len(p.pooled))
    start = np.concatenate(([0], np.cumsum(size)))[:-1]
    rng = np.random.default_rng(seed)
    for _ in range(replicates):
        picks = start[cell] + np.floor(rng.random(len(rows)) * size[cell]).astype(np.int64)
        weight = np.zeros(len(p.label))
        weight[rows] = np.bincount(picks, minlength=len(rows)) * p.weight[rows]
        yield weight


def mean_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """(SE of the mean, low, high): the t interval of the mean of the topic values (NaN values
    left out); NaN with fewer than two values."""
    from scipy import stats

    values = values[~np.isnan(values)]
    if len(values) < 2:
        return float("nan"), float("nan"), float("nan")
    mean = float(values.mean())
    se = float(values.std(ddof=1) / np.sqrt(len(values)))
    half = float(stats.t.ppf((1 + level) / 2, len(values) - 1)) * se
    return se, mean - half, mean + half


def error_columns(result: RunResult, per_topic: bool) -> dict[str, np.ndarray]:
    """``se``, ``ci_low``, ``ci_high`` in :func:`metrics.evaluate.tidy`'s row order (topics by
    measure, then the ``all`` rows): per topic the estimate's SE and no interval; on ``all`` the
    SE of the mean and its t interval; NaN for a measure without an SE."""
    measures = list(result.values)
    nan = np.full(len(result.topics), np.nan)
    columns = {}
    for position, name in enumerate(("se", "ci_low", "ci_high")):
        topics = (np.column_stack([result.errors.get(m, nan) if position == 0 else nan
                                   for m in measures]).ravel() if per_topic else np.zeros(0))
        summary = [result.intervals.get(m, (np.nan,) * 3)[position] for m in measures]
        columns[name] = np.concatenate((topics, np.asarray(summary, dtype=np.float64)))
    return columns
