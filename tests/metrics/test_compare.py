"""Paired tests against scipy directly, Holm against statsmodels, effect sizes, warnings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.compare import COLUMNS, MIN_TOPICS, compare, holm, paired_test
from scipy import stats
from statsmodels.stats.multitest import multipletests

from pooljudge.errors import UsageError


def _tidy(scores: dict[str, np.ndarray], measure: str = "AP") -> pd.DataFrame:
    frames = [pd.DataFrame({"run": run, "topic": [f"t{i:03d}" for i in range(len(v))],
                            "measure": measure, "value": v}) for run, v in scores.items()]
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_holm_matches_statsmodels(seed):
    p = np.random.default_rng(seed).uniform(0, 0.2, size=12)
    p[3] = p[5]  # a tie
    expected = multipletests(p, method="holm")[1]
    np.testing.assert_allclose(holm(p), expected, rtol=0, atol=1e-15)


def test_holm_hand_computed_and_nan_excluded():
    # m = 3 valid: sorted 0.01, 0.03, 0.04 -> 0.03, max(0.03, 0.06), max(0.06, 0.04)
    adjusted = holm([0.04, np.nan, 0.01, 0.03])
    assert np.isnan(adjusted[1])
    np.testing.assert_allclose(adjusted[[0, 2, 3]], [0.06, 0.03, 0.06])
    assert holm([0.9, 0.8]).tolist() == [1.0, 1.0]
    assert holm([]).shape == (0,)


def test_paired_test_against_scipy_directly():
    rng = np.random.default_rng(11)
    a = rng.uniform(size=40)
    b = np.clip(a + rng.normal(0.05, 0.1, size=40), 0, 1)
    result = paired_test(a, b, n_resamples=2000, seed=5)
    t = stats.ttest_rel(b, a)
    perm = stats.permutation_test((b, a), lambda x, y, axis: np.mean(x - y, axis=axis),
                                  permutation_type="samples", vectorized=True, n_resamples=2000,
                                  random_state=5)
    diff = b - a
    assert result["t_stat"] == pytest.approx(t.statistic)
    assert result["t_p"] == pytest.approx(t.pvalue)
    assert result["perm_p"] == pytest.approx(perm.pvalue)
    assert result["mean_diff"] == pytest.approx(diff.mean())
    assert result["cohens_d"] == pytest.approx(diff.mean() / diff.std(ddof=1))
    assert result["topics"] == 40
    # Same seed, same answer; the randomization p-value is close to the t-test's here.
    assert paired_test(a, b, n_resamples=2000, seed=5)["perm_p"] == result["perm_p"]
    assert abs(result["perm_p"] - result["t_p"]) < 0.02


def test_small_samples_use_the_exact_randomization_distribution():
    a = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    b = a + np.array([0.1, 0.2, 0.05, 0.3, 0.15])
    # All 2^5 sign flips: only the observed signs and their mirror reach |mean diff| -> 2/32.
    assert paired_test(a, b)["perm_p"] == pytest.approx(2 / 32)


def test_identical_runs_give_undefined_t_and_effect_but_perm_one():
    a = np.array([0.2, 0.4, 0.6])
    result = paired_test(a, a.copy())
    assert np.isnan(result["t_p"]) and np.isnan(result["cohens_d"])
    assert result["perm_p"] == pytest.approx(1.0)
    assert result["mean_diff"] == 0.0


def test_compare_baseline_holm_and_warning():
    rng = np.random.default_rng(3)
    base = rng.uniform(size=30)
    scores = {"base": base, "better": np.clip(base + 0.1, 0, 1),
              "same": base + rng.normal(0, 0.01, 30), "worse": base * 0.5}
    table, warnings = compare(_tidy(scores), baseline="base", n_resamples=500)
    assert list(table.columns) == COLUMNS
    assert table["run"].tolist() == ["better", "same", "worse"]
    assert set(table["baseline"]) == {"base"}
    np.testing.assert_allclose(table["t_p_holm"], multipletests(table["t_p"], method="holm")[1])
    np.testing.assert_allclose(table["perm_p_holm"],
                               multipletests(table["perm_p"], method="holm")[1])
    assert warnings == []
    row = table.set_index("run").loc["worse"]
    assert row["mean_diff"] == pytest.approx(-(base * 0.5).mean())
    assert row["baseline_mean"] == pytest.approx(base.mean())


def test_compare_all_pairs_per_measure_and_topic_all_ignored():
    scores = {"x": np.array([0.1, 0.5, 0.3]), "y": np.array([0.2, 0.4, 0.6]),
              "z": np.array([0.0, 0.1, 0.2])}
    tidy = pd.concat([_tidy(scores, "AP"), _tidy(scores, "P@10"),
                      pd.DataFrame({"run": ["x"], "topic": ["all"], "measure": ["AP"],
                                    "value": [0.3]})], ignore_index=True)
    table, warnings = compare(tidy, n_resamples=100)
    assert table[["baseline", "run"]].drop_duplicates().values.tolist() == [
        ["x", "y"], ["x", "z"], ["y", "z"]]
    assert len(table) == 6 and set(table["topics"]) == {3}
    assert len(warnings) == 1 and f"fewer than {MIN_TOPICS}" in warnings[0]


def test_compare_pairs_only_shared_topics_and_rejects_bad_baseline():
    tidy = _tidy({"x": np.array([0.1, 0.2, 0.3, 0.4])})
    tidy = pd.concat([tidy, _tidy({"y": np.array([0.3, 0.2, 0.5])})], ignore_index=True)
    table, _ = compare(tidy, baseline="x", n_resamples=100)
    assert table["topics"].tolist() == [3]
    assert table["mean_diff"].iloc[0] == pytest.approx((0.2 + 0.0 + 0.2) / 3)
    with pytest.raises(UsageError, match="baseline 'nope'"):
        compare(tidy, baseline="nope")
    with pytest.raises(UsageError, match="at least two runs"):
        compare(_tidy({"x": np.array([0.1, 0.2])}))


def test_an_undefined_t_p_value_left_out_of_holm_is_reported():
    """b equals a plus a constant on every topic: no t-test p-value; Holm adjusts c alone
    (m = 1) and a warning names the comparison left out."""
    topics = [str(t) for t in range(30)]
    rng = np.random.default_rng(5)
    a = rng.integers(0, 8, 30) / 8  # exact in binary: b - a is 0.125 on every topic
    values = {"a": a, "b": a + 0.125, "c": rng.random(30)}
    per_topic = pd.DataFrame([(run, t, "AP", float(v[i])) for run, v in values.items()
                              for i, t in enumerate(topics)],
                             columns=["run", "topic", "measure", "value"])
    result, warnings = compare(per_topic, baseline="a", n_resamples=50)
    rows = result.set_index("run")
    assert np.isnan(rows.loc["b", "t_p"]) and np.isnan(rows.loc["b", "t_p_holm"])
    assert rows.loc["c", "t_p_holm"] == pytest.approx(rows.loc["c", "t_p"])  # m = 1
    assert warnings == ["AP: 1 comparison(s) have no t-test p-value (equal differences on "
                        "every topic, or fewer than 2 topics; e.g. a vs b): left out of Holm's "
                        "correction over the other 1"]
