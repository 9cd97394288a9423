"""Paired significance tests over topics, Holm's correction and paired effect sizes.

For a pair (baseline A, run B) and one measure, with d_t = B_t - A_t over the shared topics:

- ``mean_diff`` = mean(d); ``cohens_d`` = mean(d) / sd(d) with sd the sample standard deviation
  (ddof=1), the paired-samples d (NaN when sd is 0);
- ``t_p``: two-sided paired t-test, ``scipy.stats.ttest_rel`` (NaN when every d_t is equal);
- ``perm_p``: two-sided paired randomization test, ``scipy.stats.permutation_test`` with
  ``permutation_type="samples"`` on the statistic mean(d), seeded (exact when 2^n is at most
  ``n_resamples``);
- ``t_p_holm`` / ``perm_p_holm``: Holm's step-down adjustment across all comparisons of the same
  measure and test.

Fewer than 25 topics draw a warning: too few to rank systems reliably.

Per topic group (:func:`compare_groups`: categories, languages, tenants) the comparisons are
repeated within each group, and a **regression check** runs across the groups: for each
comparison and measure, the groups' p-values (t-test by default) are Holm-adjusted over the
groups (``group_p_holm``), and a group is flagged (``regression``) when its mean fell
(``mean_diff < 0``) with ``group_p_holm < alpha`` (0.05) — whatever the overall mean did, so a
regression hidden by an overall gain is reported.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd
from pooljudge.metrics.groups import group_coverage
from scipy import stats

from pooljudge.errors import UsageError

__all__ = [
    "MIN_TOPICS", "OVERALL", "REGRESSION_COLUMNS", "compare", "compare_groups", "flag_regressions",
    "holm", "paired_test", "regression_messages", "undefined_p_values",
]

MIN_TOPICS = 25
COLUMNS = ["measure", "baseline", "run", "topics", "baseline_mean", "run_mean", "mean_diff",
           "cohens_d", "t_stat", "t_p", "perm_p", "t_p_holm", "perm_p_holm"]
OVERALL = "all"  # the group of every topic
REGRESSION_COLUMNS = ["group_p_holm", "regression"]
TESTS = {"t": "t_p", "perm": "perm_p"}


def holm(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values, in the input order; NaN entries stay NaN and are not counted.

    Sorted ascending p_(1) <= ... <= p_(m): adj_(i) = max_{j<=i} min(1, (m - j + 1) * p_(j)).
    """
    p = np.asarray(p_values, dtype=np.float64)
    adjusted = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    m = len(valid)
    if m == 0:
        return adjusted
    order = valid[np.argsort(p[valid], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def paired_test(a: np.ndarray, b: np.ndarray, *, n_resamples: int = 10_000,
                seed: int = 0, randomization: bool = True) -> dict[str, float]:
    """Effect sizes and both tests for paired per-topic scores ``a`` (baseline) and ``b``;
    without ``randomization`` only the t-test (``perm_p`` NaN)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    diff = b - a
    sd = float(np.std(diff, ddof=1)) if len(diff) > 1 else float("nan")
    constant = len(diff) < 2 or np.all(diff == diff[0])
    if constant:
        t_stat = t_p = float("nan")
    else:
        t = stats.ttest_rel(b, a)
        t_stat, t_p = float(t.statistic), float(t.pvalue)
    perm_p = float("nan")
    if randomization and len(diff) >= 2:
        perm = stats.permutation_test(
            (b, a), _mean_difference, permutation_type="samples", vectorized=True,
            n_resamples=n_resamples, alternative="two-sided", random_state=seed)
        perm_p = float(perm.pvalue)
    return {
        "topics": len(diff), "baseline_mean": float(a.mean()) if len(a) else float("nan"),
        "run_mean": float(b.mean()) if len(b) else float("nan"),
        "mean_diff": float(diff.mean()) if len(diff) else float("nan"),
        "cohens_d": float(diff.mean() / sd) if sd and np.isfinite(sd) else float("nan"),
        "t_stat": t_stat, "t_p": t_p, "perm_p": perm_p,
    }


def compare(per_topic: pd.DataFrame, *, baseline: str | None = None, n_resamples: int = 10_000,
            seed: int = 0, randomization: bool = True) -> tuple[pd.DataFrame, list[str]]:
    """Test every run against ``baseline`` (or every pair of runs) for every measure.

    ``per_topic`` is tidy: ``run, topic, measure, value`` with one row per topic (rows with topic
    ``all`` are ignored). Only topics scored for both runs are paired. Returns the table (columns
    ``COLUMNS``) and warnings; without ``randomization`` the randomization test is not run
    (``perm_p`` and ``perm_p_holm`` NaN: a caller that shows only the t-test). Raises
    UsageError for an unknown baseline or fewer than two runs.
    """
    rows = per_topic[per_topic["topic"] != "all"]
    runs = list(pd.unique(rows["run"]))
    if baseline is not None and baseline not in runs:
        raise UsageError(f"baseline {baseline!r} is not among the runs: {', '.join(runs)}")
    if len(runs) < 2:
        raise UsageError("comparing needs at least two runs")
    pairs = ([(baseline, r) for r in runs if r != baseline] if baseline is not None
             else list(itertools.combinations(runs, 2)))
    records, warnings = [], []
    for measure in pd.unique(rows["measure"]):
        table = rows[rows["measure"] == measure].pivot(index="topic", columns="run",
                                                       values="value")
        for first, second in pairs:
            both = table[[first, second]].dropna()
            scores = paired_test(both[first].to_numpy(), both[second].to_numpy(),
                                 n_resamples=n_resamples, seed=seed,
                                 randomization=randomization)
            records.append({"measure": measure, "baseline": first, "run": second, **scores})
    result = pd.DataFrame.from_records(records, columns=COLUMNS[:-2])
    for test in ("t_p", "perm_p"):
        result[f"{test}_holm"] = result.groupby("measure", sort=False)[test].transform(
            lambda p: holm(p.to_numpy()))
    few = int(result["topics"].min()) if len(result) else 0
    if few < MIN_TOPICS:
        warnings.append(f"only {few} topics paired: fewer than {MIN_TOPICS} topics are too few "
                        "to rank systems reliably")
    warnings += undefined_p_values(result)
    return result[COLUMNS], warnings


def undefined_p_values(result: pd.DataFrame, names: tuple[str, str] = ("baseline", "run"),
                       joiner: str = " vs ") -> list[str]:
    """One line per measure with comparisons whose t-test p-value is undefined (every paired
    difference equal, or fewer than two topics): they are left out of Holm's correction (the
    others are adjusted over the remaining m) and shown with t_p and t_p_holm empty. The
    example comparison is named by the columns ``names`` joined by ``joiner``."""
    lines = []
    for measure, rows in result.groupby("measure", sort=False):
        undefined = rows[rows["t_p"].isna()]
        if len(undefined):
            first = undefined.iloc[0]
            lines.append(f"{measure}: {len(undefined)} comparison(s) have no t-test p-value "
                         f"(equal differences on every topic, or fewer than 2 topics; e.g. "
                         f"{first[names[0]]}{joiner}{first[names[1]]}): left out of Holm's "
                         f"correction over the other {len(rows) - len(undefined)}")
    return lines


def compare_groups(per_topic: pd.DataFrame, groups: pd.DataFrame, *,
                   baseline: str | None = None, n_resamples: int = 10_000, seed: int = 0,
                   alpha: float = 0.05, test: str = "t", randomization: bool = True
                   ) -> tuple[pd.DataFrame, list[str]]:
    """:func:`compare` over every topic (group ``all``) and within each group of ``groups``
    (``topic, group``), with the regression check of the module docstring (``test="perm"``
    needs ``randomization``).

    Returns ``group``, :data:`COLUMNS`, :data:`REGRESSION_COLUMNS` (NaN / False on ``all``
    rows), groups in the order of their first appearance; and the warnings: each group's
    (prefixed with its name), the coverage lines of
    :func:`~pooljudge.metrics.groups.group_coverage`, a group none of whose topics was scored,
    and one line per flagged regression (:func:`regression_messages`).
    """
    if test == "perm" and not randomization:
        raise UsageError("the randomization test's p-values need randomization=True")
    rows = per_topic[per_topic["topic"] != OVERALL]
    subsets = {OVERALL: rows}
    for name, topics in groups.groupby("group", sort=False)["topic"]:
        subsets[str(name)] = rows[rows["topic"].isin(set(topics))]
    tables, warnings = [], group_coverage(rows["topic"], groups)
    for name, subset in subsets.items():
        if subset.empty:
            warnings.append(f"topic group {name!r}: none of its topics was evaluated")
            continue
        table, notes = compare(subset, baseline=baseline, n_resamples=n_resamples, seed=seed,
                               randomization=randomization)
        warnings += [note if name == OVERALL else f"group {name!r}: {note}" for note in notes]
        tables.append(table.assign(group=name))
    result = pd.concat(tables, ignore_index=True)
    result = flag_regressions(result[["group", *COLUMNS]], ["measure", "baseline", "run"],
                              alpha=alpha, test=test)
    warnings += regression_messages(result, ["measure", "baseline", "run"])
    return result, warnings


def flag_regressions(table: pd.DataFrame, keys: Sequence[str], *, alpha: float = 0.05,
                     test: str = "t", diff: str = "mean_diff") -> pd.DataFrame:
    """``table`` (one row per group and comparison, column ``group``; ``keys`` name a
    comparison) with ``group_p_holm``: the ``test`` p-value (``t`` or ``perm``) Holm-adjusted
    over the groups of one comparison (the ``all`` rows excluded, and NaN there); and
    ``regression``: ``diff < 0`` and ``group_p_holm < alpha``."""
    if test not in TESTS:
        raise UsageError(f"unknown test {test!r} (tests: {', '.join(TESTS)})")
    table = table.copy()
    grouped = (table["group"] != OVERALL).to_numpy()
    adjusted = np.full(len(table), np.nan)
    if grouped.any():
        within = table[grouped].groupby(list(keys), sort=False)[TESTS[test]]
        adjusted[grouped] = within.transform(lambda p: holm(p.to_numpy())).to_numpy()
    table["group_p_holm"] = adjusted
    table["regression"] = grouped & (table[diff].to_numpy() < 0) & (adjusted < alpha)
    return table


def regression_messages(table: pd.DataFrame, keys: Sequence[str], *,
                        diff: str = "mean_diff") -> list[str]:
    """One line per flagged row of :func:`flag_regressions`'s table, with the overall change
    of the same comparison beside it (when the table has its ``all`` row)."""
    overall = table[table["group"] == OVERALL].set_index(list(keys))[diff]
    messages = []
    for row in table[table["regression"]].to_dict("records"):
        key = tuple(row[k] for k in keys)
        what = ", ".join(f"{k} {row[k]}" for k in keys)
        text = (f"regression in group {row['group']!r} ({what}): mean fell by "
                f"{-row[diff]:.4f} (Holm-adjusted p = {row['group_p_holm']:.3g} over groups)")
        change = overall.get(key if len(keys) > 1 else key[0])
        if change is not None and np.isfinite(change):
            text += f" while over all topics it {_direction(change)}"
        messages.append(text)
    return messages


def _direction(change: float) -> str:
    if change == 0:
        return "did not change"
    return f"{'rose' if change > 0 else 'fell'} by {abs(change):.4f}"


def _mean_difference(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x - y, axis=axis)
