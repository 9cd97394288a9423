"""The per-group regression check: 3 categories, a regression injected in one of them while the
overall mean rises; Holm over the groups against statsmodels; the command line's column and
warning line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.compare import COLUMNS, REGRESSION_COLUMNS, compare_groups, flag_regressions
from scipy import stats
from statsmodels.stats.multitest import multipletests

from pooljudge import metrics
from pooljudge.cli import main
from pooljudge.errors import UsageError

CATEGORIES = ("news", "shopping", "support")


def _collection(tmp_path, *, regression: bool, seed: int = 3):
    """20 topics per category, 12 documents each (d0-d2 relevant); ``new`` lifts the relevant
    documents of news and shopping, and (with ``regression``) sinks those of support."""
    rng = np.random.default_rng(seed)
    topics = [(f"{c[:2]}{i:02d}", c) for c in CATEGORIES for i in range(20)]
    qrels, base, new = [], [], []
    for topic, category in topics:
        shift = {"news": 0.5, "shopping": 0.4, "support": -0.45 if regression else 0.0}[category]
        for d in range(12):
            relevant = d < 3
            qrels.append(f"{topic} 0 d{d} {int(relevant)}\n")
            score = rng.uniform()
            base.append(f"{topic} Q0 d{d} 0 {score:.6f} base\n")
            moved = score + (shift + rng.normal(0, 0.3) if relevant else 0.0)
            new.append(f"{topic} Q0 d{d} 0 {moved:.6f} new\n")
    (tmp_path / "qrels").write_text("".join(qrels))
    (tmp_path / "base").write_text("".join(base))
    (tmp_path / "new").write_text("".join(new))
    (tmp_path / "groups").write_text("topic group\n" + "".join(f"{t} {c}\n" for t, c in topics))
    return tmp_path


def _per_topic(folder):
    tidy = metrics.evaluate(folder / "qrels", [folder / "base", folder / "new"], ["AP", "P@5"])
    groups = pd.read_csv(folder / "groups", sep=" ", dtype=str)
    return tidy, groups


def test_a_group_that_fell_is_flagged_although_the_overall_mean_rose(tmp_path):
    tidy, groups = _per_topic(_collection(tmp_path, regression=True))
    table, warnings = compare_groups(tidy, groups, baseline="base", n_resamples=2000)
    assert list(table.columns) == ["group", *COLUMNS, *REGRESSION_COLUMNS]
    ap = table[table["measure"] == "AP"].set_index("group")
    assert ap.loc["all", "mean_diff"] > 0  # the overall mean rose...
    assert ap.loc["support", "mean_diff"] < 0  # ...while support fell
    assert ap["regression"].to_dict() == {"all": False, "news": False, "shopping": False,
                                          "support": True}
    assert np.isnan(ap.loc["all", "group_p_holm"])
    # The group's test is the paired t-test on its own topics, Holm-adjusted over the 3 groups.
    scores = tidy[(tidy["measure"] == "AP") & (tidy["topic"] != "all")].pivot(
        index="topic", columns="run", values="value")
    raw = []
    for category in CATEGORIES:
        topics = groups.loc[groups["group"] == category, "topic"]
        raw.append(stats.ttest_rel(scores.loc[topics, "new"], scores.loc[topics, "base"]).pvalue)
    assert ap.loc[list(CATEGORIES), "t_p"].tolist() == pytest.approx(raw, rel=1e-12)
    np.testing.assert_allclose(ap.loc[list(CATEGORIES), "group_p_holm"],
                               multipletests(raw, method="holm")[1], rtol=1e-12)
    flagged = [w for w in warnings if w.startswith("regression")]
    assert len(flagged) == table["regression"].sum() >= 1
    assert flagged[0].startswith("regression in group 'support' (measure AP, baseline base, "
                                 "run new): mean fell by ")
    assert "while over all topics it rose by" in flagged[0]


def test_no_injected_regression_no_flag(tmp_path):
    tidy, groups = _per_topic(_collection(tmp_path, regression=False))
    table, warnings = compare_groups(tidy, groups, baseline="base", n_resamples=500)
    assert not table["regression"].any()
    assert not any(w.startswith("regression") for w in warnings)


def test_flag_regressions_rules():
    table = pd.DataFrame({
        "group": ["all", "a", "b", "c", "all", "a"],
        "measure": ["AP"] * 4 + ["P@5"] * 2,
        "t_p": [0.001, 0.01, 0.02, 0.04, 0.5, 0.03],
        "perm_p": [0.5, 0.5, 0.001, 0.5, 0.5, 0.5],
        "mean_diff": [0.1, -0.2, 0.3, -0.1, 0.0, -0.1],
    })
    flagged = flag_regressions(table, ["measure"])
    # AP, Holm over a, b, c: 3 * 0.01, max(0.03, 2 * 0.02), max(0.04, 0.04); a and c fell.
    np.testing.assert_allclose(flagged["group_p_holm"].iloc[1:4], [0.03, 0.04, 0.04])
    assert flagged["regression"].tolist() == [False, True, False, True, False, True]
    strict = flag_regressions(table, ["measure"], alpha=0.035)
    assert strict["regression"].tolist() == [False, True, False, False, False, True]
    by_perm = flag_regressions(table, ["measure"], test="perm")
    assert by_perm["regression"].tolist() == [False] * 6  # b is significant but rose
    with pytest.raises(UsageError, match="unknown test"):
        flag_regressions(table, ["measure"], test="z")


def test_compare_cli_flags_the_regression(tmp_path, capsys):
    folder = _collection(tmp_path, regression=True)
    argv = ["compare", str(folder / "qrels"), str(folder / "base"), str(folder / "new"), "-m",
            "AP", "--baseline", "base", "--topic-groups", str(folder / "groups"),
            "--resamples", "500"]
    assert main([*argv, "--format", "tsv"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    header = lines[0].split("\t")
    assert header[-2:] == REGRESSION_COLUMNS
    rows = {r["group"]: r for r in (dict(zip(header, line.split("\t"), strict=True))
                                    for line in lines[1:])}
    assert {g: r["regression"] for g, r in rows.items()} == {
        "all": "False", "news": "False", "shopping": "False", "support": "True"}
    assert float(rows["all"]["mean_diff"]) > 0
    assert "pooljudge compare: warning: regression in group 'support'" in captured.err
    assert main([*argv, "--alpha", "1e-12"]) == 0
    assert "regression" not in capsys.readouterr().err
    assert main([*argv, "--alpha", "1"]) == 2
    assert "--alpha: must lie strictly between 0 and 1" in capsys.readouterr().err
