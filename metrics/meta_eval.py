"""Rank correlations between two judgment sets' system scores, vectorised over bootstrap
replicates, each with a bootstrap-over-topics percentile interval (``pooljudge correlate``).

Every function takes ``a`` (the reference, e.g. people's scores) and ``b`` as arrays of shape
``(..., n)``: the same ``n`` systems, in a fixed order (``correlate`` uses run-name order, which
breaks ties in a predicted ordering), higher = better; the leading axes are replicates.

- ``kendall_tau_b``: ``(C - D) / sqrt((n0 - T_a)(n0 - T_b))``, ``n0 = n(n-1)/2``, ``T`` the
  pairs tied in one vector (tied pairs count as neither concordant nor discordant); NaN when a
  vector is constant.
- ``tau_ap_b`` (Yilmaz et al. 2008, the tie-aware form of pyircore / autojudge-evaluate):
  the mean of ``t(a, b)`` and ``t(b, a)``, ``t(x, y) = 2 / m * sum_{i: p_i > 0} c_i / p_i - 1``
  where ``p_i`` counts the systems strictly above ``i`` in ``y``, ``c_i`` those also strictly
  above ``i`` in ``x``, and ``m`` the systems with ``p_i > 0`` (``t = 0`` when ``m = 0``: all
  tied in ``y``). Without ties ``t(a, b)`` is tau_AP with ``a`` the truth.
- ``tau_gap`` (Gao & Oard, SIGIR 2015): ``b`` orders the systems (decreasing, ties by position);
  for each position ``i >= 2`` with a non-zero gap mass above it, the share
  ``sum_{j<i} [a_j > a_i] |a_j - a_i| / sum_{j<i} |a_j - a_i|``; ``tau_GAP = 2 / m * sum - 1``
  over the ``m`` such positions (NaN when there is none: ``a`` constant).
- ``top_k_tau``: Kendall's tau-b over the ``k`` systems ranked highest by ``a`` (ties by
  position); with ``n <= k`` it is tau-b over all.

:func:`bootstrap` resamples the topics (rows of per-topic score matrices) with replacement,
seeded, takes each replicate's per-system means and gives the ``(alpha/2, 1 - alpha/2)``
percentiles of every coefficient over the replicates (NaN replicates left out).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["COEFFICIENTS", "bootstrap", "kendall_tau_b", "paired_judges", "tau_ap_b", "tau_gap",
           "top_k_tau"]


def _signs(x: np.ndarray) -> np.ndarray:
    """``sign(x_j - x_i)`` for every pair, shape ``(..., n, n)`` (row i, column j)."""
    return np.sign(x[..., None, :] - x[..., :, None])


def kendall_tau_b(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Kendall's tau-b over the last axis (module docstring)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    sa, sb = _signs(a), _signs(b)
    upper = np.triu(np.ones(a.shape[-1:] * 2, dtype=bool), k=1)
    s = (sa * sb)[..., upper].sum(axis=-1)
    na, nb = (sa != 0)[..., upper].sum(axis=-1), (sb != 0)[..., upper].sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return s / np.sqrt(na.astype(float) * nb)


def _tau_ap_one_way(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    above_y = _signs(y) > 0  # [i, j]: j strictly above i in y
    p = above_y.sum(axis=-1)
    c = (above_y & (_signs(x) > 0)).sum(axis=-1)
    used = p > 0
    m = used.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.where(used, c / np.where(used, p, 1), 0.0).sum(axis=-1)
        return np.where(m > 0, 2.0 / np.maximum(m, 1) * total - 1.0, 0.0)


def tau_ap_b(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The symmetric, tie-aware tau_AP-b over the last axis (module docstring)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return (_tau_ap_one_way(a, b) + _tau_ap_one_way(b, a)) / 2


def _by_b(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a`` reordered by ``b`` decreasing, ties by position."""
    order = np.argsort(-b, axis=-1, kind="stable")
    return np.take_along_axis(a, order, axis=-1)


def tau_gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """tau_GAP with the gaps of ``a`` and the ordering of ``b`` (module docstring)."""
    t = _by_b(np.asarray(a, float), np.asarray(b, float))
    n = t.shape[-1]
    gap = t[..., None, :] - t[..., :, None]  # [i, j] = t_j - t_i
    before = np.tril(np.ones((n, n), dtype=bool), k=-1)  # j < i
    gaps = np.where(before, np.abs(gap), 0.0).sum(axis=-1)
    correct = np.where(before & (gap > 0), gap, 0.0).sum(axis=-1)
    used = gaps > 0
    m = used.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.where(used, correct / np.where(used, gaps, 1.0), 0.0).sum(axis=-1)
        return np.where(m > 0, 2.0 / m * total - 1.0, np.nan)


def top_k_tau(a: np.ndarray, b: np.ndarray, k: int = 10) -> np.ndarray:
    """Kendall's tau-b over the ``k`` systems highest under ``a`` (module docstring)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape[-1] <= k:
        return kendall_tau_b(a, b)
    top = np.argsort(-a, axis=-1, kind="stable")[..., :k]
    return kendall_tau_b(np.take_along_axis(a, top, axis=-1),
                         np.take_along_axis(b, top, axis=-1))


def tau_ap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """tau_AP of ``b``'s ordering against ``a``'s (ties by position): ``t(a, b)`` above."""
    order = np.argsort(-np.asarray(b, float), axis=-1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(order.shape[-1]), axis=-1)
    return _tau_ap_one_way(np.asarray(a, float), -rank.astype(float))


COEFFICIENTS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "kendall_tau": kendall_tau_b, "tau_ap": tau_ap, "tau_ap_b": tau_ap_b,
    "tau_gap": tau_gap, "top_k_tau": top_k_tau,
}


def bootstrap(per_topic_a: np.ndarray, per_topic_b: np.ndarray, *, replicates: int = 1000,
              seed: int = 0, alpha: float = 0.05, top_k: int = 10
              ) -> dict[str, tuple[float, float, float]]:
    """Per coefficient: its value on the topic means and the bootstrap percentile interval.
    ``per_topic_*``: ``(topics, systems)`` arrays over the same topics and systems."""
    a, b = np.asarray(per_topic_a, float), np.asarray(per_topic_b, float)
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, a.shape[0], size=(replicates, a.shape[0]))
    boot_a, boot_b = a[rows].mean(axis=1), b[rows].mean(axis=1)
    result = {}
    for name, function in COEFFICIENTS.items():
        options = {"k": top_k} if name == "top_k_tau" else {}
        point = float(function(a.mean(axis=0), b.mean(axis=0), **options))
        values = function(boot_a, boot_b, **options)
        values = values[~np.isnan(values)]
        low, high = (np.percentile(values, [100 * alpha / 2, 100 * (1 - alpha / 2)])
                     if len(values) else (np.nan, np.nan))
        result[name] = (point, float(low), float(high))
    return result



def paired_judges(per_topic_ref: np.ndarray, per_topic_a: np.ndarray, per_topic_b: np.ndarray,
                  *, replicates: int = 1000, seed: int = 0, alpha: float = 0.05,
                  top_k: int = 10) -> dict[str, tuple[float, float, float, float, float, float]]:
    """Does judge A agree with the reference (people) better than judge B? Per coefficient:
    ``(c_a, c_b, d, low, high, p)``.

    - ``c_x`` = coefficient(ref, x) on the topic means, ``d = c_a - c_b``;
    - ``(low, high)``: percentile interval of ``d`` over a paired bootstrap: each replicate
      resamples the topics once, with replacement, and recomputes both coefficients on that
      same resample (NaN replicates left out);
    - ``p``: two-sided p-value of H0 "A and B are exchangeable within each topic" (so
      ``c_a = c_b``) by paired randomization: each replicate swaps A's and B's scores on each
      topic with probability 1/2 and recomputes ``d``; ``p = (1 + #{|d*| >= |d|}) / (1 + R)``
      (valid at any ``R``; conservative where the coefficient takes few values, as tau-b
      over few systems does).
      Why not the bootstrap's own p-value: resampled means are noisier than the sample's, so
      both coefficients shrink on a resample and the bootstrap distribution of ``d`` is wider
      than its sampling distribution and pulled towards 0; in simulation its p-value rejected
      a true H0 in 0–2% of draws at 5%, where the randomization holds its size
      (``tests/metrics/test_paired_judges.py``).

    ``per_topic_*``: ``(topics, systems)`` arrays over the same topics and systems; NaN
    entries where a coefficient is undefined.
    """
    ref, a, b = (np.asarray(x, float) for x in (per_topic_ref, per_topic_a, per_topic_b))
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, ref.shape[0], size=(replicates, ref.shape[0]))
    boot = [x[rows].mean(axis=1) for x in (ref, a, b)]
    swap = rng.random((replicates, ref.shape[0], 1)) < 0.5
    fixed = np.broadcast_to(ref.mean(axis=0), (replicates, ref.shape[1]))
    swapped = np.where(swap, b, a).mean(axis=1), np.where(swap, a, b).mean(axis=1)
    result = {}
    for name, function in COEFFICIENTS.items():
        def coefficient(x, y, f=function, k={"k": top_k} if name == "top_k_tau" else {}):
            return f(x, y, **k)
        c_a = float(coefficient(ref.mean(axis=0), a.mean(axis=0)))
        c_b = float(coefficient(ref.mean(axis=0), b.mean(axis=0)))
        d = c_a - c_b
        stars = coefficient(boot[0], boot[1]) - coefficient(boot[0], boot[2])
        stars = stars[~np.isnan(stars)]
        nulls = coefficient(fixed, swapped[0]) - coefficient(fixed, swapped[1])
        nulls = np.abs(nulls[~np.isnan(nulls)])
        if not len(stars) or not len(nulls) or np.isnan(d):
            result[name] = (c_a, c_b, d, np.nan, np.nan, np.nan)
            continue
        low, high = np.percentile(stars, [100 * alpha / 2, 100 * (1 - alpha / 2)])
        p = (1 + np.count_nonzero(nulls >= abs(d) - 1e-12)) / (1 + len(nulls))
        result[name] = (c_a, c_b, d, float(low), float(high), float(min(p, 1.0)))
    return result
