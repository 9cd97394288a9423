"""Static judging orders: a fused score per pooled pair, computed once, before any judgment.

Each static strategy of :data:`pooljudge.pooling.strategies.REGISTRY` (which holds its name, help
text,
parameters and valid ranges) names one function here giving its fused score, lower = judged first;
:func:`static_order` checks the parameters against the registry before calling it.
Every order is computed from the runs' pooled entries only (each run's top k, ``rank`` 1-based in
trec_eval order); a run that did not retrieve a document in its top k contributes nothing to it.
Sums run over a pair's entries in run-name order, so floating-point results do not depend on the
order of the input. Within a topic, pairs are ordered by the fused score (best first), ties by
``best_rank`` ascending, then document id ascending.
"""

from __future__ import annotations

import numpy as np
from pooljudge.pooling.pool import Pool
from pooljudge.pooling.strategies import REGISTRY

from pooljudge.errors import InputError

__all__ = ["order_within_topics", "static_order"]


def _sum_by_pair(pool: Pool, weights: np.ndarray) -> np.ndarray:
    return np.bincount(pool.entry_column("pair"), weights=weights, minlength=pool.n_pairs)


def _max_by_pair(pool: Pool, weights: np.ndarray) -> np.ndarray:
    result = np.full(pool.n_pairs, -np.inf)
    np.maximum.at(result, pool.entry_column("pair"), weights)
    return result


def rrf(pool: Pool, *, k: float) -> np.ndarray:
    """Reciprocal rank fusion (Cormack, Clarke and Büttcher 2009): ``-sum 1/(k + rank)``."""
    return -_sum_by_pair(pool, 1.0 / (k + pool.entry_column("rank")))


def combsum(pool: Pool) -> np.ndarray:
    """CombSUM (Fox and Shaw 1994) over min-max normalised scores."""
    return -_sum_by_pair(pool, pool.entry_column("norm"))


def combmnz(pool: Pool) -> np.ndarray:
    """CombMNZ: CombSUM times the number of runs retrieving the document."""
    return combsum(pool) * pool.pair_column("n_runs")


def borda(pool: Pool) -> np.ndarray:
    """Borda count: each run gives ``depth - rank + 1`` points."""
    return -_sum_by_pair(pool, (pool.depth - pool.entry_column("rank") + 1).astype(float))


def _rbp_weights(pool: Pool, p: float) -> np.ndarray:
    return (1.0 - p) * p ** (pool.entry_column("rank") - 1.0)


def rbp_sum(pool: Pool, *, p: float) -> np.ndarray:
    """RBP-weighted sum (Moffat, Webber and Zobel 2007)."""
    return -_sum_by_pair(pool, _rbp_weights(pool, p))


def rbp_max(pool: Pool, *, p: float) -> np.ndarray:
    """RBP-weighted maximum: equivalent to best rank, ties broken by the order of the pool."""
    return -_max_by_pair(pool, _rbp_weights(pool, p))


def take(pool: Pool, *, n: int) -> np.ndarray:
    """Take@N round robin: the first (round, run, rank) at which a run offers the document."""
    rank = pool.entry_column("rank")
    slot = ((rank - 1) // n) * len(pool.run_names) + pool.entry_column("run")
    key = slot.astype(np.int64) * (pool.depth + 1) + rank
    first = np.full(pool.n_pairs, np.iinfo(np.int64).max)
    np.minimum.at(first, pool.entry_column("pair"), key)
    return first.astype(float)


def docid(pool: Pool) -> np.ndarray:
    """Document id ascending (pairs are already sorted by document within a topic)."""
    return np.arange(pool.n_pairs, dtype=float)


def order_within_topics(pool: Pool, key: np.ndarray) -> np.ndarray:
    """1-based judging order within each topic: ``key`` ascending, then best rank, then doc id."""
    topic_codes = pool.topic_codes()
    position = np.arange(pool.n_pairs)
    rows = np.lexsort((position, pool.pair_column("best_rank"), key, topic_codes))
    topic = topic_codes[rows]  # contiguous topics: a row's place is its offset in its topic
    first = np.maximum.accumulate(np.where(np.r_[True, topic[1:] != topic[:-1]][:len(topic)],
                                           position, 0))
    order = np.empty(pool.n_pairs, dtype=np.int64)
    order[rows] = position - first + 1
    return order


def static_order(pool: Pool, name: str, **params: float) -> np.ndarray:
    """The judging order of static strategy ``name`` (a REGISTRY name) for ``pool``; parameters
    left out take their declared defaults. InputError for another name or a bad parameter."""
    strategy = REGISTRY.get(name)
    if strategy is None or strategy.kind != "static":
        raise InputError(f"unknown static order {name!r}")
    return order_within_topics(pool, strategy.load()(pool, **strategy.arguments(params)))
