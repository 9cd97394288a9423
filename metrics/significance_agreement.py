"""Do two judgment sets agree on which pairs of systems differ significantly? (Kutlu et al.,
CIKM 2018, "significance-aware" agreement; ``pooljudge correlate --significance``.)

Under each judgment set (A, the reference, e.g. people; B, e.g. an automatic judge) every pair of
runs is tested per measure with the paired t-test over topics and Holm's correction across the
pairs of that measure (:func:`pooljudge.metrics.compare.compare`, without the randomisation
test), over the topics both sets evaluate. A pair is *significant* under a set when its
Holm-adjusted p is below ``alpha``; its direction is the sign of the mean difference. Each pair
falls in one category (:data:`CATEGORIES`):

- ``both_same``: significant under both, same direction (active agreement);
- ``both_opposite``: significant under both, opposite directions (active disagreement);
- ``only_a`` / ``only_b``: significant under one set only;
- ``neither``: significant under neither (passive agreement).

Per measure: the counts, ``agreement`` = (both_same + neither) / pairs, and Cohen's κ of the
significant / not significant decision, ``κ = (p_o − p_e) / (1 − p_e)`` over the 2×2 table
(NaN when ``p_e = 1``: both sets made one and the same decision on every pair). A pair whose
t-test is undefined under a set (every per-topic difference equal) counts as not significant
there.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pooljudge.metrics.compare import compare

__all__ = ["CATEGORIES", "PAIR_COLUMNS", "SUMMARY_COLUMNS", "significance_agreement"]

CATEGORIES = ("both_same", "both_opposite", "only_a", "only_b", "neither")
PAIR_COLUMNS = ["measure", "run_1", "run_2", "diff_a", "p_holm_a", "diff_b", "p_holm_b",
                "category"]
SUMMARY_COLUMNS = ["measure", "pairs", *CATEGORIES, "agreement", "kappa"]


def significance_agreement(per_topic_a: pd.DataFrame, per_topic_b: pd.DataFrame, *,
                           alpha: float = 0.05) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per measure and pair of runs, one row per measure): see the module docstring.

    ``per_topic_*``: tidy ``run, topic, measure, value`` (rows of topic ``all`` ignored) of the
    same runs under A and B. ``diff_x`` = mean(run_2 − run_1) under set x.
    """
    a = per_topic_a[per_topic_a["topic"] != "all"]
    b = per_topic_b[per_topic_b["topic"] != "all"]
    topics = set(a["topic"]) & set(b["topic"])
    tested = [compare(x[x["topic"].isin(topics)], randomization=False)[0] for x in (a, b)]
    keys = ["measure", "baseline", "run"]
    both = tested[0][[*keys, "mean_diff", "t_p_holm"]].merge(
        tested[1][[*keys, "mean_diff", "t_p_holm"]], on=keys, suffixes=("_a", "_b"))
    both = both.rename(columns={"baseline": "run_1", "run": "run_2", "mean_diff_a": "diff_a",
                                "mean_diff_b": "diff_b", "t_p_holm_a": "p_holm_a",
                                "t_p_holm_b": "p_holm_b"})
    sig_a = both["p_holm_a"].fillna(1.0).to_numpy() < alpha
    sig_b = both["p_holm_b"].fillna(1.0).to_numpy() < alpha
    same = np.sign(both["diff_a"].to_numpy()) == np.sign(both["diff_b"].to_numpy())
    both["category"] = np.select(
        [sig_a & sig_b & same, sig_a & sig_b, sig_a, sig_b],
        list(CATEGORIES[:4]), default=CATEGORIES[4])
    return both[PAIR_COLUMNS], _summary(both, sig_a, sig_b)


def _summary(pairs: pd.DataFrame, sig_a: np.ndarray, sig_b: np.ndarray) -> pd.DataFrame:
    counts = pd.crosstab(pairs["measure"], pairs["category"]).reindex(
        columns=list(CATEGORIES), fill_value=0)
    counts = counts.reindex(pd.unique(pairs["measure"]), fill_value=0)
    table = counts.reset_index().rename(columns={"index": "measure"})
    table.insert(1, "pairs", counts.sum(axis=1).to_numpy())
    n = table["pairs"].to_numpy(float)
    table["agreement"] = (table["both_same"] + table["neither"]) / np.where(n > 0, n, np.nan)
    frame = pd.DataFrame({"measure": pairs["measure"], "a": sig_a, "b": sig_b})
    kappas = frame.groupby("measure", sort=False)[["a", "b"]].apply(
        lambda g: _kappa(g["a"].to_numpy(), g["b"].to_numpy()))
    table["kappa"] = table["measure"].map(kappas).astype(float)
    return table[SUMMARY_COLUMNS]


def _kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's κ of two boolean decisions (NaN when chance agreement is 1)."""
    if len(a) == 0:
        return float("nan")
    observed = float(np.mean(a == b))
    chance = float(a.mean() * b.mean() + (1 - a.mean()) * (1 - b.mean()))
    return (observed - chance) / (1 - chance) if chance < 1 else float("nan")
