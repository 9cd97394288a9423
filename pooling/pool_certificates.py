"""Certify a pooled topic as done: the hypergeometric test over the order it was judged in.

A pooled topic has a pool of N pairs; m of them are judged, in ``labels`` order (0/1, 1 =
relevant), r relevant. The same test as a review's (:func:`hypergeometric_p`, Callaghan &
Müller-Hansen 2020) rejects H0 "recall within the pool < τ" when p < α: the topic is
certified. Its reading of the judging order: the last n judged pairs are taken as a uniform
random sample of what was unjudged before them. That is exact when the campaign's order is
random, and a conservative assumption for an adaptive order that judges likely-relevant pairs
first (its tail is richer in relevant pairs than the unjudged rest); for an order that judges
likely-relevant pairs *last* it is wrong, and the certificate says which order it read.

Relevant pairs left unjudged: the second half of the judged sequence (its last ⌈m/2⌉ pairs,
k of them relevant) is read as a sample of the urn U = N − ⌊m/2⌋ it was drawn from; K̂ =
k·U/⌈m/2⌉ with the exact 1 − α interval of :func:`relevant_interval`, less the k found in the
sample: remaining K̂ − k (low − k, high − k). Nothing judged → no estimate; every pair judged →
0 remaining, certified (``exhausted``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from pooljudge.pooling.stopping import check_level, hypergeometric_p, relevant_interval

from pooljudge.errors import UsageError

__all__ = ["PoolCertificate", "certify_pool_topic"]


@dataclass(frozen=True)
class PoolCertificate:
    """One pooled topic: the test's verdict and the estimate of relevant pairs left."""

    topic: str
    pool: int
    judged: int
    relevant_found: int
    target: float
    alpha: float
    p_value: float | None
    certified: bool
    exhausted: bool
    remaining: float | None
    remaining_low: int | None
    remaining_high: int | None

    def as_dict(self) -> dict:
        """The certificate as a plain dict (JSON-ready)."""
        return asdict(self)


def certify_pool_topic(topic: str, labels: np.ndarray, pool: int, *, target: float = 0.95,
                       alpha: float = 0.05) -> PoolCertificate:
    """The certificate of ``topic`` after judging ``labels`` (in judging order) of ``pool``
    pairs (see the module docstring)."""
    check_level(target, alpha)
    labels = np.asarray(labels, dtype=np.int64)
    m, found = len(labels), int(labels.sum())
    if m > pool:
        raise UsageError(f"topic {topic}: {m} pairs judged of a pool of {pool}")
    if m == pool:
        return PoolCertificate(topic, pool, m, found, target, alpha, None, True, True,
                               0.0, 0, 0)
    p = hypergeometric_p(labels, pool, target) if m else 1.0
    remaining: tuple[float | None, int | None, int | None] = (None, None, None)
    if m:
        size = -(-m // 2)
        k = int(labels[m - size:].sum())
        estimate, low, high = relevant_interval(k, size, pool - (m - size), alpha)
        remaining = (estimate - k, low - k, high - k)
    return PoolCertificate(topic, pool, m, found, target, alpha, p, p < alpha, False,
                           *remaining)
