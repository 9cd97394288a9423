"""How system orderings change between two judgment sets: Kendall's tau, tau_AP and swaps.

Systems are ordered by their mean score, best first; equal means are ordered by run name so the
ordering is deterministic. Kendall's tau is scipy's tau-b over the two score vectors (ties count
as neither concordant nor discordant). tau_AP (Yilmaz, Aslam & Robertson, SIGIR 2008) weighs
disagreements near the top more:

    tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1)  -  1

where ``i`` runs over the positions of the *second* ordering and ``C(i)`` counts the systems above
position ``i`` there that are also above that system in the *first* (reference) ordering. It is
asymmetric: the first ordering is the truth. Both are 1 for identical orderings and -1 for
reversed ones; with fewer than two systems they are undefined (NaN).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from pooljudge.errors import InputError

__all__ = ["correlate", "kendall_tau", "ordering", "rank_changes", "swapped_pairs", "tau_ap"]


def ordering(scores: pd.Series) -> list[str]:
    """Run names by score descending, equal scores by name ascending."""
    frame = pd.DataFrame({"run": scores.index.astype(str), "score": scores.to_numpy(float)})
    return frame.sort_values(["score", "run"], ascending=[False, True], kind="stable")[
        "run"].tolist()


def tau_ap(reference: Sequence[str], estimate: Sequence[str]) -> float:
    """tau_AP of ``estimate`` against ``reference`` (both orderings of the same items, best first).

    Raises InputError when the two sequences do not hold the same distinct items.
    """
    if len(set(reference)) != len(reference) or set(reference) != set(estimate) or len(
            estimate) != len(reference):
        raise InputError("tau_AP needs two orderings of the same distinct items")
    n = len(reference)
    if n < 2:
        return float("nan")
    position = {item: i for i, item in enumerate(reference)}
    ref_pos = np.array([position[item] for item in estimate])
    # above[i, j]: item at estimate position j (< i) is also above item i in the reference.
    above = ref_pos[None, :] < ref_pos[:, None]
    correct = np.tril(above, k=-1).sum(axis=1)[1:]
    return float(2.0 / (n - 1) * np.sum(correct / np.arange(1, n)) - 1.0)


def kendall_tau(a: pd.Series, b: pd.Series) -> tuple[float, float]:
    """scipy's Kendall tau-b and its p-value between two score vectors aligned by run name."""
    a, b = a.align(b, join="inner")
    if len(a) < 2:
        return float("nan"), float("nan")
    result = stats.kendalltau(a.to_numpy(float), b.to_numpy(float))
    return float(result.statistic), float(result.pvalue)


def swapped_pairs(reference: Sequence[str], estimate: Sequence[str]) -> list[tuple[str, str]]:
    """Pairs (x, y) with x above y in ``reference`` but below y in ``estimate``."""
    position = {item: i for i, item in enumerate(estimate)}
    return [
        (x, y)
        for i, x in enumerate(reference)
        for y in reference[i + 1:]
        if position[x] > position[y]
    ]


def rank_changes(a: pd.Series, b: pd.Series) -> pd.DataFrame:
    """Per run: ``score_a, rank_a, score_b, rank_b, change`` (positive = moved up under B)."""
    a, b = a.align(b, join="inner")
    rank_a = {run: i + 1 for i, run in enumerate(ordering(a))}
    rank_b = {run: i + 1 for i, run in enumerate(ordering(b))}
    frame = pd.DataFrame({
        "run": list(rank_a),
        "score_a": [float(a[r]) for r in rank_a],
        "rank_a": list(rank_a.values()),
        "score_b": [float(b[r]) for r in rank_a],
        "rank_b": [rank_b[r] for r in rank_a],
    })
    frame["change"] = frame["rank_a"] - frame["rank_b"]
    return frame


def correlate(means_a: pd.DataFrame, means_b: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Compare run orderings measure by measure.

    ``means_a`` and ``means_b`` are tidy frames with columns ``run, measure, value`` (one mean
    per run and measure) under judgment sets A (the reference) and B. Returns a summary with
    ``measure, runs, kendall_tau, p_value, tau_ap, swaps`` and a frame of per-run rank changes
    with a ``measure`` column. Runs missing from either side are left out.
    """
    summary, changes = [], []
    for measure in pd.unique(means_a["measure"]):
        a = _series(means_a, measure)
        b = _series(means_b, measure)
        a, b = a.align(b, join="inner")
        tau, p_value = kendall_tau(a, b)
        ref, est = ordering(a), ordering(b)
        summary.append({
            "measure": measure, "runs": len(a), "kendall_tau": tau, "p_value": p_value,
            "tau_ap": tau_ap(ref, est) if ref else float("nan"),
            "swaps": len(swapped_pairs(ref, est)),
        })
        changes.append(rank_changes(a, b).assign(measure=measure))
    columns = ["measure", "run", "score_a", "rank_a", "score_b", "rank_b", "change"]
    changed = pd.concat(changes, ignore_index=True)[columns] if changes else pd.DataFrame(
        columns=columns)
    return pd.DataFrame(summary), changed


def _series(means: pd.DataFrame, measure: str) -> pd.Series:
    rows = means[means["measure"] == measure]
    return pd.Series(rows["value"].to_numpy(float), index=rows["run"].astype(str).to_numpy())
