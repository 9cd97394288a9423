"""Replay judging against known qrels and measure how fast each order finds relevant documents.

The truth is a qrels frame: a pooled pair it lacks counts as not relevant, and relevant means
label ≥ ``rel`` (default 1). Every policy judges the whole pool; its per-topic order is laid out
globally by :func:`pooljudge.pooling.policy.global_sequence` (the topic whose judged share is
smallest goes
next), so "x % of the pool" means about x % of every topic's pool. Shares are pooled over topics:
relevant documents found in all topics divided by all relevant documents in the pool.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pooljudge.pooling.factory import make_policy
from pooljudge.pooling.policy import global_sequence, truth_labels
from pooljudge.pooling.pool import Pool
from pooljudge.pooling.strategies import StrategySpec

__all__ = ["DEFAULT_SHARES", "Curve", "found_share", "needed_share", "simulate", "summary"]

DEFAULT_SHARES = (0.1, 0.2, 0.3, 0.5)


@dataclass(frozen=True)
class Curve:
    """``found[i]``: relevant documents found after the first ``i + 1`` judgments."""

    strategy: str
    found: np.ndarray
    total_relevant: int

    @property
    def pool_size(self) -> int:
        return len(self.found)


def simulate(
    pool: Pool,
    truth: pd.DataFrame,
    strategies: Iterable[StrategySpec | str],
    *,
    seed: int = 0,
    rel: int = 1,
) -> list[Curve]:
    """One :class:`Curve` per strategy, judging ``pool`` with ``truth`` as the oracle."""
    relevant = truth_labels(pool, truth) >= rel
    curves = []
    for spec in strategies:
        policy = make_policy(spec, pool, seed=seed, rel=rel)
        sequence = global_sequence(pool, policy.plan(truth))
        curves.append(Curve(policy.name, np.cumsum(relevant[sequence]), int(relevant.sum())))
    return curves


def found_share(curve: Curve, share: float) -> float:
    """Share of the pool's relevant documents found after ``round(share * pool size)`` judgments.

    NaN when the pool holds no relevant document.
    """
    if curve.total_relevant == 0:
        return float("nan")
    judged = int(np.floor(share * curve.pool_size + 0.5))
    return 0.0 if judged == 0 else float(curve.found[judged - 1]) / curve.total_relevant


def needed_share(curve: Curve, target: float = 0.9) -> float:
    """Smallest share of the pool whose judging finds ``target`` of the relevant documents."""
    if curve.total_relevant == 0:
        return float("nan")
    wanted = int(np.ceil(target * curve.total_relevant - 1e-9))
    if wanted <= 0:
        return 0.0
    return float(np.searchsorted(curve.found, wanted, side="left") + 1) / curve.pool_size


def summary(
    curves: Sequence[Curve], shares: Sequence[float] = DEFAULT_SHARES, target: float = 0.9
) -> pd.DataFrame:
    """One row per strategy: ``found@x%`` for each share and ``needed@y%`` for the target."""
    rows = []
    for curve in curves:
        row: dict[str, object] = {"strategy": curve.strategy}
        for share in shares:
            row[f"found@{share:.0%}"] = found_share(curve, share)
        row[f"needed@{target:.0%}"] = needed_share(curve, target)
        rows.append(row)
    return pd.DataFrame(rows)
