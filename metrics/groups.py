"""Means per topic group (category, language, tenant) from tidy per-topic scores.

A group's value summarises its evaluated topics the way the whole evaluation does: the mean
(topics without a value left out), the sum for counts (NumRel...) and the geometric mean for
GMAP; so a group holding every topic reproduces the ``all`` row. A topic in several groups
counts in each. Topics that no group names, and grouped topics that were not evaluated, are
reported as warnings.

Each group's value comes with a 95% confidence interval (``ci_low``, ``ci_high``) over its
topics, the topics being a sample of the group's queries: for a mean, the t interval
mean ± t(0.975, n - 1) · s / √n (s the sample standard deviation, n the topics with a value);
for GMAP, the same interval on the logarithms, exponentiated (an interval of the geometric
mean); for a count (summed, NumRel...), none. NaN with fewer than two topics.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
from pooljudge.metrics.registry import parse
from pooljudge.metrics.student_t import t_quantiles

from pooljudge.errors import InputError

__all__ = ["GROUP_COLUMNS", "group_coverage", "group_means"]

GROUP_COLUMNS = ["run", "group", "measure", "topics", "value", "ci_low", "ci_high"]
LEVEL = 0.95


def group_means(per_topic: pd.DataFrame, groups: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Per (run, group, measure): the number of topics with a value and their summary.

    ``per_topic``: tidy ``run, topic, measure, value`` (rows with topic ``all`` are ignored);
    ``groups``: ``topic, group`` as read by ``pooljudge.formats.groups.read_topic_groups``.
    Groups keep the order of their first appearance in the groups file. Returns the table and
    warnings.
    """
    rows = per_topic[per_topic["topic"] != "all"]
    warnings = group_coverage(rows["topic"], groups)
    joined = rows.merge(groups, on="topic", how="inner")
    order = {g: i for i, g in enumerate(pd.unique(groups["group"]))}
    table = _aggregate(joined)
    table["_order"] = table["group"].map(order)
    runs = {r: i for i, r in enumerate(pd.unique(rows["run"]))}
    table["_run"] = table["run"].map(runs)
    table = table.sort_values(["_run", "_order"], kind="stable")
    return table[GROUP_COLUMNS].reset_index(drop=True), warnings


def group_coverage(evaluated: Iterable[str], groups: pd.DataFrame) -> list[str]:
    """The warnings every ``--topic-groups`` command gives (eval, report, compare,
    compare-stages): evaluated topics (the qrels topics) that no group names, and grouped
    topics that were not evaluated (absent from the qrels). Each names the count and the
    smallest id; none when the groups cover exactly the evaluated topics."""
    topics = set(evaluated)
    named = set(groups["topic"])
    warnings = []
    ungrouped = topics - named
    if ungrouped:
        warnings.append(f"{len(ungrouped)} evaluated topic(s) belong to no group, e.g. "
                        f"{min(ungrouped)}")
    unknown = named - topics
    if unknown:
        warnings.append(f"{len(unknown)} grouped topic(s) were not evaluated (not in the "
                        f"qrels), e.g. {min(unknown)}")
    return warnings


def _aggregate(joined: pd.DataFrame) -> pd.DataFrame:
    """``run, group, measure, topics, value, ci_low, ci_high`` with each measure's own summary
    (module docstring)."""
    keys = ["run", "group", "measure"]
    table = joined.groupby(keys, sort=False)["value"].agg(
        topics="count", value="mean", total="sum", sd="std").reset_index()
    kinds = table["measure"].map({m: _summary_kind(m) for m in pd.unique(table["measure"])})
    table["value"] = table["value"].where(kinds != "sum", table["total"])
    low, high = _t_interval(table["value"].to_numpy(), table["sd"].to_numpy(),
                            table["topics"].to_numpy())
    gmean = (kinds == "gmean").to_numpy()
    if gmean.any():
        logs = joined.assign(value=np.log(joined["value"].where(joined["value"] > 0)))
        by_group = logs.groupby(keys, sort=False)["value"].agg(["mean", "std", "count"])
        aligned = by_group.reindex(pd.MultiIndex.from_frame(table[keys]))
        table.loc[gmean, "value"] = np.exp(aligned["mean"].to_numpy()[gmean])
        log_low, log_high = _t_interval(*(aligned[c].to_numpy() for c in ("mean", "std", "count")))
        low[gmean], high[gmean] = np.exp(log_low[gmean]), np.exp(log_high[gmean])
    counts = (kinds == "sum").to_numpy()
    low[counts] = high[counts] = np.nan
    return table.assign(ci_low=low, ci_high=high)


def _t_interval(mean: np.ndarray, sd: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The t interval mean ± t(0.975, n - 1) · sd / √n of each row; NaN where n < 2."""
    n = np.asarray(n, dtype=np.float64)
    enough = n >= 2
    quantile = np.full(len(n), np.nan)
    quantile[enough] = t_quantiles((1 + LEVEL) / 2, n[enough].astype(np.int64) - 1)
    half = quantile * np.asarray(sd, dtype=np.float64) / np.sqrt(np.where(enough, n, 1.0))
    return mean - half, mean + half


def _summary_kind(measure: str) -> str:
    """``mean``, ``sum`` or ``gmean`` for a registered measure name (``mean`` for others)."""
    try:
        return parse(measure).spec.summary
    except InputError:
        return "mean"
