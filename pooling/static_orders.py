"""Static judging orders: a fused score per pooled pair, computed once, before any judgment.

``STATIC_ORDERS`` maps each static strategy of :data:`pooling.strategies.REGISTRY` (which holds
their names, help texts and default parameters) to its fused score, lower = judged first.
Every order is computed from the runs' pooled entries only (each run's top k, ``rank`` 1-based in
trec_eval order); a run that did not retrieve a document in its top k contributes nothing to it.
Sums run over a pair's entries in run-name order, so floating-point results do not depend on the
order of the input. Within a topic, pairs are ordered by the fused score (best first), ties by
``best_rank`` ascending, then document id ascending.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from pooling.pool import Pool
from pooling.strategies import strategy_defaults

__all__ = ["STATIC_ORDERS", "order_within_topics", "static_order"]


def _sum_by_pair(pool: Pool, weights: np.ndarray) -> np.ndarray:
    return np.bincount(pool.entries["pair"].to_numpy(), weights=weights, minlength=len(pool.pairs))


def _max_by_pair(pool: Pool, weights: np.ndarray) -> np.ndarray:
    result = np.full(len(pool.pairs), -np.inf)
    np.maximum.at(result, pool.entries["pair"].to_numpy(), weights)
    return result


def rrf(pool: Pool, *, k: float) -> np.ndarray:
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


def rbp_sum(pool: Pool, *, p: float) -> np.ndarray:
    """RBP-weighted sum (Moffat, Webber and Zobel 2007)."""
    return -_sum_by_pair(pool, _rbp_weights(pool, p))


def rbp_max(pool: Pool, *, p: float) -> np.ndarray:
    """RBP-weighted maximum: equivalent to best rank, ties broken by the order of the pool."""
    return -_max_by_pair(pool, _rbp_weights(pool, p))


def take(pool: Pool, *, n: int) -> np.ndarray:
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
    """The judging order of static strategy ``name`` (a key of STATIC_ORDERS) for ``pool``;
    parameters left out take their declared defaults."""
    if name not in STATIC_ORDERS:
        raise ValueError(f"unknown static order {name!r}")
    return order_within_topics(pool, STATIC_ORDERS[name](pool, **strategy_defaults(name, params)))
