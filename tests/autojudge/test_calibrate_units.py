"""The statistics of ``pooljudge calibrate``: against scikit-learn, seeded bootstrap, PPI's
coverage and width, stratified samples, and the human-else-automatic export policy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.annotate.calibration import calibrate, paired_labels, stratified_sample
from pooljudge.annotate.consensus import consensus_qrels
from pooljudge.annotate.consensus_policies import Policy
from pooljudge.annotate.ppi import classical_mean, ppi_mean
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from pooljudge.errors import UsageError


def _pairs(rng: np.random.Generator, n: int, scale: tuple[int, ...], agree: float
           ) -> pd.DataFrame:
    human = rng.choice(scale, size=n, p=np.linspace(3, 1, len(scale)) / np.linspace(
        3, 1, len(scale)).sum())
    auto = np.where(rng.random(n) < agree, human, rng.choice(scale, size=n))
    return pd.DataFrame({"topic": [f"t{i % 7}" for i in range(n)],
                         "doc": [f"d{i}" for i in range(n)], "human": human, "auto": auto})


@pytest.mark.parametrize("scale", [(0, 1), (0, 1, 2), (0, 1, 2, 3)], ids=str)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kappa_and_confusion_equal_scikit_learn(scale, seed):
    pairs = _pairs(np.random.default_rng(seed), 300, scale, 0.6)
    result = calibrate(pairs, scale, resamples=0)
    h, a = pairs["human"], pairs["auto"]
    assert (result.confusion.to_numpy() == confusion_matrix(h, a, labels=scale)).all()
    values = result.statistics.set_index("statistic")["value"]
    assert values["kappa"] == pytest.approx(cohen_kappa_score(h, a, labels=scale))
    if len(scale) > 2:
        assert values["kappa_linear"] == pytest.approx(
            cohen_kappa_score(h, a, labels=scale, weights="linear"))
    else:
        assert "kappa_linear" not in values
    assert values["agreement"] == pytest.approx((h == a).mean())
    top = scale[-1]
    assert values[f"precision:{top}"] == pytest.approx(((h == top) & (a == top)).sum()
                                                       / (a == top).sum())
    assert values[f"recall:{top}"] == pytest.approx(((h == top) & (a == top)).sum()
                                                    / (h == top).sum())
    assert values["bias"] == pytest.approx((a >= scale[1]).mean() - (h >= scale[1]).mean())


def test_undefined_values_are_nan_not_zero():
    pairs = pd.DataFrame({"topic": ["t1", "t2"], "doc": ["a", "b"], "human": [0, 0],
                          "auto": [0, 0]})
    values = calibrate(pairs, (0, 1), resamples=50).statistics.set_index("statistic")
    assert np.isnan(values.loc["kappa", "value"]) and np.isnan(values.loc["precision:1", "value"])
    assert values.loc["agreement", "value"] == 1.0


def test_bootstrap_interval_is_reproducible_with_its_seed():
    pairs = _pairs(np.random.default_rng(5), 400, (0, 1, 2), 0.7)
    first = calibrate(pairs, (0, 1, 2), resamples=300, seed=7).statistics
    again = calibrate(pairs, (0, 1, 2), resamples=300, seed=7).statistics
    other = calibrate(pairs, (0, 1, 2), resamples=300, seed=8).statistics
    pd.testing.assert_frame_equal(first, again)
    assert not first[["ci_low", "ci_high"]].equals(other[["ci_low", "ci_high"]])
    row = first.set_index("statistic").loc["kappa"]
    assert row["ci_low"] < row["value"] < row["ci_high"]


def test_suggestion_subsets_split_on_pairs_shown_a_suggestion():
    human = pd.DataFrame({"topic": ["t"] * 4, "doc": list("abcd"), "label": [1, 0, 1, 0]})
    auto = human.assign(label=[1, 0, 0, 1])
    shown = pd.DataFrame({"topic": ["t", "t"], "doc": ["a", "b"],
                          "suggested": pd.array([1, 0], dtype="Int64")})
    subsets = calibrate(paired_labels(human, auto, shown), (0, 1), resamples=0).by_suggestion
    assert subsets.set_index("subset")["n"].to_dict() == {
        "all": 4, "no suggestion shown": 2, "suggestion shown": 2}
    assert subsets.set_index("subset")["agreement"].to_dict() == {
        "all": 0.5, "no suggestion shown": 0.0, "suggestion shown": 1.0}


def test_ppi_covers_the_true_mean_and_is_narrower_than_people_alone():
    """200 draws of 40 human-labelled and 2000 automatically labelled units, the judge noisy
    and biased: the PPI++ interval covers the true mean >= 90% of the time and is narrower than
    the interval of the 40 human values alone."""
    rng = np.random.default_rng(2024)
    truth, covered, narrower = 0.3, 0, 0
    for _ in range(200):
        y_all = rng.normal(truth, 0.2, size=2040)
        f_all = 0.9 * y_all + 0.08 + rng.normal(0, 0.05, size=2040)  # biased judge
        est = ppi_mean(y_all[:40], f_all[:40], f_all[40:])
        alone = classical_mean(y_all[:40])
        covered += est.low <= truth <= est.high
        narrower += est.width < alone.width
    assert covered >= 180
    assert narrower == 200


def test_ppi_with_a_useless_judge_is_as_wide_as_people_alone():
    rng = np.random.default_rng(3)
    y = rng.normal(0.5, 0.1, 50)
    est = ppi_mean(y, rng.random(50), rng.random(500))
    assert est.lam == pytest.approx(0.0, abs=0.2)
    assert est.width == pytest.approx(classical_mean(y).width, rel=0.25)


def test_stratified_sample_covers_rare_labels_equally_then_fills():
    candidates = pd.DataFrame({"pair_id": range(100), "label": [0] * 90 + [1] * 7 + [2] * 3})
    chosen = stratified_sample(candidates, 12, seed=1)
    labels = candidates.set_index("pair_id").loc[chosen, "label"]
    assert labels.value_counts().to_dict() == {0: 5, 1: 4, 2: 3}
    assert labels.iloc[:3].tolist() == [2, 1, 0]  # round-robin, rarest first
    assert len(set(chosen)) == 12
    assert (stratified_sample(candidates, 12, seed=1) == chosen).all()
    assert len(stratified_sample(candidates, 1000)) == 100


def test_human_else_automatic_policy_fills_unjudged_pairs_from_the_judge():
    judgments = pd.DataFrame({
        "annotator": ["ann", "bob", "llm", "llm", "llm"], "topic": ["1"] * 5,
        "doc": ["a", "a", "a", "b", "c"], "label": [2, 2, 0, 1, 0], "kind": "judgment",
        "source": ["human", "human", "automatic", "automatic", "automatic"]})
    qrels, provenance = consensus_qrels(judgments, (0, 1, 2),
                                        Policy.parse("human-else-automatic:llm"))
    assert qrels["label"].tolist() == [2, 1, 0]
    assert provenance["source"].tolist() == ["human", "automatic", "automatic"]
    with pytest.raises(UsageError, match="no judgments by an automatic judge named 'gpt'"):
        consensus_qrels(judgments, (0, 1, 2), Policy.parse("human-else-automatic:gpt"))
    with pytest.raises(UsageError, match="unknown policy"):
        Policy.parse("human-else-automatic")
