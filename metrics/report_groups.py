"""The report's "Per group" section: each run's mean per topic group with its 95% CI, and the
per-group regression check against a baseline run.

For every headline measure, one table with a row per (group, run): the topics with a value,
the mean and its t interval (:func:`pooljudge.metrics.groups.group_means`: mean ± t(0.975, n − 1) ·
s/√n,
none with fewer than two topics), and for every run but the baseline its paired change
``mean_diff`` = mean over the group's shared topics of (run − baseline), the p-value and the
``regression`` flag of :func:`pooljudge.metrics.compare.compare_groups`: the paired t-test within
the
group, Holm-adjusted over the groups of one comparison, flagged when the mean fell with an
adjusted p below ``alpha`` — whatever the overall mean did. The first row of each table is the
group ``all`` (every evaluated topic), whose p-value is the t-test's Holm-adjusted over the
comparisons of the measure, and which is never flagged.

The flagged regressions are returned as warnings, for the top of the page. Group and run names
are untrusted text: they are cells of the tables, which :mod:`pooljudge.metrics.report_html`
escapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pooljudge.metrics.compare import MIN_TOPICS, OVERALL, compare_groups, regression_messages
from pooljudge.metrics.groups import group_means
from pooljudge.metrics.report_html import Section

from pooljudge.errors import UsageError

__all__ = ["FLAG", "GROUP_TABLE_COLUMNS", "GroupReport", "group_report", "group_tables",
           "insert_after_means"]

FLAG = "▼ regression"
GROUP_TABLE_COLUMNS = ["group", "run", "topics", "mean", "95% CI low", "95% CI high",
                       "Δ vs baseline", "p (t, Holm)", "regression"]
KEYS = ["measure", "baseline", "run"]


@dataclass(frozen=True)
class GroupReport:
    """The section, and the warnings for the top of the page (regressions, ungrouped topics)."""

    section: Section
    warnings: tuple[str, ...]
    means: pd.DataFrame
    comparisons: pd.DataFrame | None


def group_report(per_topic: pd.DataFrame, groups: pd.DataFrame, measures: Sequence[str], *,
                 baseline: str | None = None, alpha: float = 0.05) -> GroupReport:
    """The "Per group" section from tidy per-topic scores (``run, topic, measure, value``) and
    ``topic, group`` pairs, for ``measures`` (each must be in ``per_topic``).

    ``baseline`` defaults to the first run; with one run there is no comparison. Raises
    UsageError for an unknown baseline, and for a group named ``all`` (the name of every topic's
    row, which a group may not take).
    """
    if (groups["group"] == OVERALL).any():
        raise UsageError(f"a topic group may not be named {OVERALL!r}: the report's row "
                         f"{OVERALL!r} is every evaluated topic")
    rows = per_topic[(per_topic["topic"] != OVERALL) & per_topic["measure"].isin(measures)]
    runs = list(pd.unique(rows["run"]))
    baseline = runs[0] if baseline is None else baseline
    if baseline not in runs:
        raise UsageError(f"--baseline {baseline!r} is not among the runs: {', '.join(runs)}")
    everything = pd.DataFrame({"topic": pd.unique(rows["topic"]), "group": OVERALL})
    overall, _ = group_means(rows, everything)
    by_group, warnings = group_means(rows, groups)  # ungrouped and unevaluated topics
    means = pd.concat([overall, by_group], ignore_index=True)
    comparisons = None
    if len(runs) > 1:
        # its other notes (few topics per group) are summed up in the section's note
        comparisons, _ = compare_groups(rows, groups, baseline=baseline, alpha=alpha,
                                        randomization=False)  # the section shows the t-test
        warnings += regression_messages(comparisons, KEYS)
    tables = group_tables(means, comparisons, measures, baseline)
    section = Section("groups", "Per group", _note(means, baseline, alpha, len(runs)),
                      tables=tables)
    return GroupReport(section, tuple(warnings), means, comparisons)


def group_tables(means: pd.DataFrame, comparisons: pd.DataFrame | None,
                 measures: Sequence[str], baseline: str) -> dict[str, pd.DataFrame]:
    """One table per measure (caption: the measure), columns :data:`GROUP_TABLE_COLUMNS`, rows
    by group (``all`` first, then the groups file's order), each group's runs baseline first."""
    view = means.rename(columns={"value": "mean", "ci_low": "95% CI low",
                                 "ci_high": "95% CI high"})
    view["_run"] = view["run"].map({r: i for i, r in enumerate(pd.unique(view["run"]))})
    view.loc[view["run"] == baseline, "_run"] = -1
    view["_group"] = view["group"].map({g: i for i, g in enumerate(pd.unique(view["group"]))})
    if comparisons is not None:
        tested = comparisons[comparisons["baseline"] == baseline].copy()
        tested["p (t, Holm)"] = tested["group_p_holm"].where(tested["group"] != OVERALL,
                                                              tested["t_p_holm"])
        tested = tested.rename(columns={"mean_diff": "Δ vs baseline"})
        view = view.merge(tested[["group", "measure", "run", "Δ vs baseline", "p (t, Holm)",
                                  "regression"]], on=["group", "measure", "run"], how="left")
    else:
        view = view.assign(**{"Δ vs baseline": np.nan, "p (t, Holm)": np.nan,
                              "regression": False})
    view["p (t, Holm)"] = [_p_text(p) for p in view["p (t, Holm)"]]
    flagged = view["regression"].fillna(False).astype(bool).to_numpy()
    view["regression"] = np.where(flagged, FLAG, "")
    view = view.sort_values(["_group", "_run"], kind="stable")
    return {str(measure): view[view["measure"] == str(measure)][GROUP_TABLE_COLUMNS]
            .set_index("group") for measure in measures}


def insert_after_means(parts: Sequence[Section], section: Section) -> list[Section]:
    """``parts`` with ``section`` placed after the means (and chunk/document levels) sections."""
    keys = [part.key for part in parts]
    at = max((i + 1 for i, key in enumerate(keys) if key in ("means", "levels")), default=0)
    return [*parts[:at], section, *parts[at:]]


def _p_text(p: float) -> str:
    """A p-value in two significant digits (``1.6e-08``, ``0.031``); ``–`` when none."""
    return "–" if pd.isna(p) else f"{p:.2g}"


def _note(means: pd.DataFrame, baseline: str, alpha: float, n_runs: int) -> str:
    """The section's explanation, with the groups too small for reliable comparisons."""
    note = ("Each run's mean per topic group with its 95% t interval over the group's topics "
            "(none with fewer than two). Row 'all': every evaluated topic.")
    if n_runs > 1:
        note += (f" Each run is compared with the baseline {baseline}: 'Δ vs baseline' is the "
                 "mean of the paired differences over the group's topics; 'p (t, Holm)' is the "
                 "paired t-test, Holm-adjusted over the groups (over the runs on the 'all' "
                 f"row). A group is flagged '{FLAG}' when its mean fell with p below {alpha:g}, "
                 "even when the overall mean rose.")
    else:
        note += " With one run there is nothing to compare."
    topics = means[means["group"] != OVERALL].groupby("group", sort=False)["topics"].max()
    small = [str(g) for g, n in topics.items() if n < MIN_TOPICS]
    if small:
        note += (f" {len(small)} group(s) have fewer than {MIN_TOPICS} topics (e.g. "
                 f"{small[0]}): their intervals are wide and only large changes are flagged.")
    return note
