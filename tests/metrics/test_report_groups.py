"""The report's "Per group" section: means with t intervals, the regression check against a
baseline (flagged even when the overall mean rose), escaping, and refused input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.compare import compare_groups
from pooljudge.metrics.report_groups import (
    FLAG,
    GROUP_TABLE_COLUMNS,
    group_report,
    insert_after_means,
)
from pooljudge.metrics.report_html import Section, render_page
from scipy import stats

from pooljudge.errors import UsageError

EVIL = "<b onmouseover=alert(1)>&\"x'"


def _per_topic(runs: dict[str, dict[str, float]], measure: str = "AP") -> pd.DataFrame:
    return pd.DataFrame([(run, topic, measure, value) for run, values in runs.items()
                         for topic, value in values.items()],
                        columns=["run", "topic", "measure", "value"])


def _scores(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """30 topics in groups a/b/c of 10; ``new`` beats ``base`` by 0.3 on b and c and loses 0.1
    on a (noise 0.01): the overall mean rises, group a regresses."""
    rng = np.random.default_rng(seed)
    topics = [f"t{i}" for i in range(30)]
    group = {t: "abc"[i // 10] for i, t in enumerate(topics)}
    base = {t: 0.4 + 0.05 * rng.standard_normal() for t in topics}
    new = {t: base[t] + (-0.1 if group[t] == "a" else 0.3) + 0.01 * rng.standard_normal()
           for t in topics}
    groups = pd.DataFrame({"topic": topics, "group": [group[t] for t in topics]}, dtype=object)
    return _per_topic({"base": base, "new": new}), groups


def test_a_group_that_fell_is_flagged_while_the_overall_mean_rose():
    per_topic, groups = _scores()
    report = group_report(per_topic, groups, ["AP"])
    table = report.section.tables["AP"].reset_index()
    assert list(table.columns) == GROUP_TABLE_COLUMNS
    assert list(table["group"]) == ["all", "all", "a", "a", "b", "b", "c", "c"]
    assert list(table["run"]) == ["base", "new"] * 4
    flagged = table[table["regression"] == FLAG]
    assert list(zip(flagged["group"], flagged["run"], strict=True)) == [("a", "new")]
    overall = table[(table["group"] == "all") & (table["run"] == "new")].iloc[0]
    assert overall["Δ vs baseline"] > 0.1 and overall["regression"] == ""
    [warning] = [w for w in report.warnings if "regression" in w]
    assert "group 'a'" in warning and "while over all topics it rose" in warning


def test_each_mean_and_interval_is_the_t_interval_over_the_groups_topics():
    per_topic, groups = _scores(seed=3)
    table = group_report(per_topic, groups, ["AP"]).section.tables["AP"].reset_index()
    row = table[(table["group"] == "b") & (table["run"] == "base")].iloc[0]
    values = per_topic[(per_topic["run"] == "base")
                       & per_topic["topic"].isin(groups.loc[groups["group"] == "b", "topic"])]
    x = values["value"].to_numpy()
    half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))
    assert row["topics"] == 10
    assert row["mean"] == pytest.approx(x.mean())
    assert (row["95% CI low"], row["95% CI high"]) == pytest.approx((x.mean() - half,
                                                                     x.mean() + half))
    row_new = table[(table["group"] == "b") & (table["run"] == "new")].iloc[0]
    by_run = per_topic.pivot(index="topic", columns="run", values="value")
    paired = (by_run["new"] - by_run["base"])[values["topic"]]
    assert row_new["Δ vs baseline"] == pytest.approx(paired.mean())
    assert row_new["regression"] == ""


def test_the_baseline_decides_the_direction():
    """Against ``new``, ``base`` fell in b and c (flagged) and rose in a (not flagged)."""
    per_topic, groups = _scores()
    table = group_report(per_topic, groups, ["AP"], baseline="new").section.tables["AP"]
    table = table.reset_index()
    assert list(table["run"][:2]) == ["new", "base"]  # the baseline first in each group
    flagged = set(table.loc[table["regression"] == FLAG, "group"])
    assert flagged == {"b", "c"}


def test_without_a_significant_fall_nothing_is_flagged():
    per_topic, groups = _scores()
    same = per_topic.copy()
    same.loc[same["run"] == "new", "value"] = same.loc[same["run"] == "base", "value"].to_numpy()
    same.loc[same["run"] == "new", "value"] += 0.001 * np.arange(30)
    report = group_report(same, groups, ["AP"])
    assert not (report.section.tables["AP"]["regression"] == FLAG).any()
    assert not any("regression" in w for w in report.warnings)


def test_one_run_has_means_and_intervals_but_no_comparison():
    per_topic, groups = _scores()
    report = group_report(per_topic[per_topic["run"] == "base"], groups, ["AP"])
    table = report.section.tables["AP"]
    assert report.comparisons is None and table["Δ vs baseline"].isna().all()
    assert (table["p (t, Holm)"] == "–").all() and "nothing to compare" in report.section.note


def test_ungrouped_and_unevaluated_topics_are_warned_about():
    per_topic, groups = _scores()
    groups = pd.concat([groups.iloc[1:], pd.DataFrame({"topic": ["t99"], "group": ["a"]})])
    warnings = group_report(per_topic, groups, ["AP"]).warnings
    assert any("belong to no group, e.g. t0" in w for w in warnings)
    assert any("not evaluated (not in the qrels), e.g. t99" in w for w in warnings)


def test_small_groups_are_named_in_the_note():
    per_topic, groups = _scores()
    note = group_report(per_topic, groups, ["AP"]).section.note
    assert "3 group(s) have fewer than 25 topics" in note


def test_names_are_literal_text_in_the_page():
    per_topic, groups = _scores()
    per_topic["run"] = per_topic["run"].replace({"new": EVIL})
    groups["group"] = groups["group"].replace({"a": EVIL})
    report = group_report(per_topic, groups, ["AP"])
    page = render_page("t", [], report.warnings, [report.section])
    assert "<b onmouseover" not in page and "&lt;b onmouseover=alert(1)&gt;" in page
    assert page.count(FLAG) >= 1


@pytest.mark.parametrize(("change", "message"), [
    ({"baseline": "nope"}, "--baseline 'nope' is not among the runs"),
    ({"group": "all"}, "may not be named 'all'"),
])
def test_bad_baseline_or_reserved_group_name_is_refused(change, message):
    per_topic, groups = _scores()
    if "group" in change:
        groups.loc[0, "group"] = change.pop("group")
    with pytest.raises(UsageError, match=message):
        group_report(per_topic, groups, ["AP"], **change)


def test_the_section_goes_after_the_means_and_levels():
    parts = [Section(key, key) for key in ("means", "levels", "rbp", "pr")]
    placed = insert_after_means(parts, Section("groups", "g"))
    assert [p.key for p in placed] == ["means", "levels", "groups", "rbp", "pr"]
    alone = insert_after_means(parts[2:], Section("groups", "g"))
    assert [p.key for p in alone] == ["groups", "rbp", "pr"]


def test_the_section_runs_only_the_test_it_shows():
    """The table shows the t-test's p: no randomization test is run for it (perm_p NaN), and
    the t-test's values are those compare_groups gives with the randomization test too."""
    per_topic, groups = _scores()
    shown = group_report(per_topic, groups, ["AP"]).comparisons
    assert shown["perm_p"].isna().all()
    full, _ = compare_groups(per_topic[per_topic["measure"] == "AP"], groups, baseline="base")
    pd.testing.assert_frame_equal(shown.drop(columns=["perm_p", "perm_p_holm"]),
                                  full.drop(columns=["perm_p", "perm_p_holm"]))


def test_a_randomization_regression_check_needs_the_randomization_test():
    per_topic, groups = _scores()
    with pytest.raises(UsageError, match="randomization=True"):
        compare_groups(per_topic, groups, test="perm", randomization=False)
