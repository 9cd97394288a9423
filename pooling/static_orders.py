"""Static judging orders: a fused score per pooled pair, computed once, before any judgment.

Every order is computed from the runs' pooled entries only (each run's top k, ``rank`` 1-based in
trec_eval order); a run that did not retrieve a document in its top k contributes nothing to it.
Sums run over a pair's entries in run-name order, so floating-point results do not depend on the
order of the input. Within a topic, pairs are ordered by the fused score (best first), ties by
``best_rank`` ascending, then document id ascending.

=============  ==========================================================================
``rrf``        reciprocal rank fusion: sum over runs of ``1 / (k + rank)``, k = 60
``combsum``    sum over runs of the min-max normalised score (per run and topic, over the
               run's top k: ``(s - min) / (max - min)``, 1.0 when all are equal)
``combmnz``    CombSUM times the number of runs that retrieved the document
``borda``      sum over runs of ``depth - rank + 1`` points (0 when not retrieved)
``rbp-sum``    sum over runs of the rank-biased precision weight ``(1 - p) p^(rank - 1)``,
               p = 0.8
``rbp-max``    the largest such weight over runs
``take``       take@N round robin: round b takes ranks ``b·N+1 .. (b+1)·N`` of every run in
               run-name order; a document is placed at its first appearance (N = 1 orders by
               best rank, then by run name)
``docid``      document id ascending: the baseline that ignores the runs
=============  ==========================================================================
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from pooling.pool import Pool

__all__ = ["STATIC_ORDERS", "order_within_topics", "static_order"]


def _sum_by_pair(pool: Pool, weights: np.ndarray) -> np.ndarray:
    return np.bincount(pool.entries["pair"].to_numpy(), weights=weights, minlength=len(pool.pairs))


def _max_by_pair(pool: Pool, weights: np.ndarray) -> np.ndarray:
    result = np.full(len(pool.pairs), -np.inf)
    np.maximum.at(result, pool.entries["pair"].to_numpy(), weights)
    return result


def rrf(pool: Pool, *, k: float = 60.0) -> np.ndarray:
    """Reciprocal rank fusion (Cormack, Clarke and Büttcher 2009): ``-sum 1/(k + rank)``."""
    if k < 0:
        raise ValueError(f"rrf needs k >= 0, got {k}")
    return -_sum_by_pair(pool, 1.0 / (k + pool.entries["rank"].to_numpy()))


def combsum(pool: Pool) -> np.ndarray:
    """CombSUM (Fox and Shaw 1994) over min-max normalised scores."""
    return -_sum_by_pair(pool, pool.entries["norm"].to_numpy())


def combmnz(pool: Pool) -> np.ndarray:
    """CombMNZ: CombSUM times the number of runs retrieving the document."""
    return combsum(pool) * pool.pairs["n_runs"].to_numpy()


def borda(pool: Pool) -> np.ndarray:
    """Borda count: each run gives ``depth - rank + 1`` points."""
    return -_sum_by_pair(pool, (pool.depth - pool.entries["rank"].to_numpy() + 1).astype(float))


def _rbp_weights(pool: Pool, p: float) -> np.ndarray:
    if not 0.0 < p < 1.0:
        raise ValueError(f"rbp needs 0 < p < 1, got {p}")
    return (1.0 - p) * p ** (pool.entries["rank"].to_numpy() - 1.0)


def rbp_sum(pool: Pool, *, p: float = 0.8) -> np.ndarray:
    """RBP-weighted sum (Moffat, Webber and Zobel 2007)."""
    return -_sum_by_pair(pool, _rbp_weights(pool, p))


def rbp_max(pool: Pool, *, p: float = 0.8) -> np.ndarray:
    """RBP-weighted maximum: equivalent to best rank, ties broken by the order of the pool."""
    return -_max_by_pair(pool, _rbp_weights(pool, p))


def take(pool: Pool, *, n: int = 1) -> np.ndarray:
    """Take@N round robin: the first (round, run, rank) at which a run offers the document."""
    if n < 1:
        raise ValueError(f"take needs n >= 1, got {n}")
    entries = pool.entries
    rank = entries["rank"].to_numpy()
    slot = ((rank - 1) // n) * len(pool.run_names) + entries["run"].to_numpy()
    key = slot.astype(np.int64) * (pool.depth + 1) + rank
    first = np.full(len(pool.pairs), np.iinfo(np.int64).max)
    np.minimum.at(first, entries["pair"].to_numpy(), key)
    return first.astype(float)


def docid(pool: Pool) -> np.ndarray:
    """Document id ascending (pairs are already sorted by document within a topic)."""
    return np.arange(len(pool.pairs), dtype=float)


STATIC_ORDERS: dict[str, Callable[..., np.ndarray]] = {
    "rrf": rrf,
    "combsum": combsum,
    "combmnz": combmnz,
    "borda": borda,
    "rbp-sum": rbp_sum,
    "rbp-max": rbp_max,
    "take": take,
    "docid": docid,
}


def order_within_topics(pool: Pool, key: np.ndarray) -> np.ndarray:
    """1-based judging order within each topic: ``key`` ascending, then best rank, then doc id."""
    pairs = pool.pairs
    topic_codes = pd.Categorical(pairs["topic"], categories=pool.topics).codes
    position = np.arange(len(pairs))
    rows = np.lexsort((position, pairs["best_rank"].to_numpy(), key, topic_codes))
    within = pd.Series(topic_codes[rows]).groupby(topic_codes[rows], sort=False).cumcount()
    order = np.empty(len(pairs), dtype=np.int64)
    order[rows] = within.to_numpy() + 1
    return order


def static_order(pool: Pool, name: str, **params: float) -> np.ndarray:
    """The judging order of static strategy ``name`` (a key of STATIC_ORDERS) for ``pool``."""
    if name not in STATIC_ORDERS:
        raise ValueError(f"unknown static order {name!r}")
    return order_within_topics(pool, STATIC_ORDERS[name](pool, **params))
