"""Each stopping rule's record over replayed (topic × seed) runs: reliability with its interval.

A run *reached* the target when its recall ≥ τ. A rule's reliability is reached / runs, with
the exact (Clopper–Pearson) two-sided interval at ``confidence``:
low = Beta⁻¹(α/2; k, n − k + 1), high = Beta⁻¹(1 − α/2; k + 1, n − k) (low 0 at k = 0, high
1 at k = n), as ``scipy.stats.binomtest(k, n).proportion_ci(method="exact")``. Work saved is
1 − judged / documents, averaged over runs.
"""

from __future__ import annotations

import pandas as pd
from pooljudge.pooling.stopping import GUARANTEES

__all__ = ["COLUMNS", "reliability"]

COLUMNS = ["rule", "kind", "runs", "reached", "reliability", "low", "high", "mean_recall",
           "min_recall", "mean_judged", "saved"]


def reliability(runs: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """One row per rule (in first-seen order) from ``runs`` (columns rule, recall, met, judged,
    saved): runs, reached, reliability and its exact interval, recall, effort and work saved."""
    from scipy.stats import binomtest

    rows = []
    for rule, group in runs.groupby("rule", sort=False):
        reached, n = int(group["met"].sum()), len(group)
        interval = binomtest(reached, n).proportion_ci(confidence_level=confidence,
                                                        method="exact")
        rows.append({"rule": rule, "kind": "guarantee" if rule in GUARANTEES else "heuristic",
                     "runs": n, "reached": reached, "reliability": reached / n,
                     "low": float(interval.low), "high": float(interval.high),
                     "mean_recall": float(group["recall"].mean()),
                     "min_recall": float(group["recall"].min()),
                     "mean_judged": float(group["judged"].mean()),
                     "saved": float(group["saved"].mean())})
    return pd.DataFrame(rows, columns=COLUMNS)
