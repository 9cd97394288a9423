"""Agreement statistics against their library oracles and hand-made cases."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pooljudge.annotate.agreement import BootstrapSpec, agreement_report, kappa_from_tables
from pooljudge.annotate.judgment_codes import co_judgment_tables, code_judgments
from scipy.stats import bootstrap
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from pooljudge.errors import InputError

NO_CI = None


def frame_of(labels: dict[str, list[int | None]], topics: list[str] | None = None) -> pd.DataFrame:
    """Judgments from {annotator: labels per item}; None = not judged; item i is doc d{i}."""
    n_items = len(next(iter(labels.values())))
    topics = topics or ["t1"] * n_items
    rows = [(name, topics[i], f"d{i}", label) for name, values in labels.items()
            for i, label in enumerate(values) if label is not None]
    return pd.DataFrame(rows, columns=["annotator", "topic", "doc", "label"])


def random_frame(seed: int, *, annotators: int = 4, items: int = 60, topics: int = 5,
                 scale=(0, 1, 2), coverage: float = 0.8) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.choice(scale, size=items)
    labels = {}
    for a in range(annotators):
        noisy = np.where(rng.random(items) < 0.7, truth, rng.choice(scale, size=items))
        labels[f"ann{a}"] = [int(x) if rng.random() < coverage else None for x in noisy]
    return frame_of(labels, [f"t{i % topics}" for i in range(items)])


def pair_arrays(frame: pd.DataFrame, a: str, b: str) -> tuple[np.ndarray, np.ndarray]:
    wide = frame.pivot(index=["topic", "doc"], columns="annotator", values="label")
    both = wide[[a, b]].dropna()
    return both[a].to_numpy(int), both[b].to_numpy(int)


# --- Cohen's kappa ----------------------------------------------------------------------------

@pytest.mark.parametrize("scale", [(0, 1), (0, 1, 2), (-1, 0, 1, 2, 3)],
                         ids=["binary", "0-2", "-1-3"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pairwise_kappas_match_sklearn(scale, seed):
    frame = random_frame(seed, scale=scale)
    pairs = agreement_report(frame, scale, spec=NO_CI).pairs
    assert len(pairs) == 6
    for row in pairs.itertuples():
        y1, y2 = pair_arrays(frame, row.a, row.b)
        assert row.n == len(y1)
        assert row.agreement == pytest.approx(np.mean(y1 == y2))
        assert row.cohen_kappa == pytest.approx(cohen_kappa_score(y1, y2, labels=list(scale)))
        if len(scale) > 2:
            for weights in ("linear", "quadratic"):
                expected = cohen_kappa_score(y1, y2, labels=list(scale), weights=weights)
                assert getattr(row, f"weighted_kappa_{weights}") == pytest.approx(expected)
    assert ("weighted_kappa_linear" in pairs.columns) == (len(scale) > 2)


def test_weights_follow_position_in_the_full_scale_with_an_unused_grade():
    # Grade 2 of the 0-3 scale is never used: 3 is still three steps from 0, not two.
    a = [0, 0, 1, 3, 3, 1, 0, 3]
    b = [0, 1, 1, 3, 1, 0, 0, 3]
    pairs = agreement_report(frame_of({"a": a, "b": b}), (0, 1, 2, 3), spec=NO_CI).pairs
    full = cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights="linear")
    used_only = cohen_kappa_score(a, b, labels=[0, 1, 3], weights="linear")
    assert full != pytest.approx(used_only)
    assert pairs.loc[0, "weighted_kappa_linear"] == pytest.approx(full)
    assert pairs.loc[0, "weighted_kappa_quadratic"] == pytest.approx(
        cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights="quadratic"))


@pytest.mark.parametrize("label", [0, 1])
def test_one_class_used_by_both_is_undefined_not_zero(label):
    frame = frame_of({"a": [label] * 5, "b": [label] * 5})
    report = agreement_report(frame, (0, 1, 2), spec=BootstrapSpec(n_resamples=50))
    row = report.pairs.iloc[0]
    for column in ("cohen_kappa", "weighted_kappa_linear", "weighted_kappa_quadratic",
                   "kappa_ci_low", "kappa_ci_high"):
        assert row[column] is pd.NA
    assert row["agreement"] == 1.0
    assert report.overall["fleiss_kappa"] is None
    assert report.overall["krippendorff_alpha_nominal"] is None
    assert report.overall["fleiss_kappa_note"] == "undefined: only one label was used"
    exported = report.to_json()["pairs"][0]
    assert exported["cohen_kappa"] is None and exported["weighted_kappa_linear"] is None
    assert "null" in json.dumps(report.to_json(), allow_nan=False)


def test_two_different_single_classes_give_a_defined_kappa_of_zero():
    pairs = agreement_report(frame_of({"a": [1] * 4, "b": [0] * 4}), (0, 1), spec=NO_CI).pairs
    assert pairs.loc[0, "cohen_kappa"] == pytest.approx(cohen_kappa_score([1] * 4, [0] * 4))
    assert pairs.loc[0, "cohen_kappa"] == 0.0


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 5).flatmap(lambda v: st.tuples(
    st.just(v), st.lists(st.integers(0, 6), min_size=v * v, max_size=v * v))),
    st.sampled_from([None, "linear", "quadratic"]))
def test_vectorised_kernel_equals_sklearn(case, weights):
    width, cells = case
    table = np.array(cells).reshape(width, width)
    labels = np.arange(width)
    y1 = np.repeat(np.repeat(labels, width), table.ravel())
    y2 = np.repeat(np.tile(labels, width), table.ravel())
    got = kappa_from_tables(table[None], weights)[0]
    one_label = len(set(y1) | set(y2)) < 2
    if len(y1) == 0 or one_label:
        assert np.isnan(got)
    else:
        assert got == pytest.approx(cohen_kappa_score(y1, y2, labels=labels, weights=weights),
                                    abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=2, max_size=30).filter(lambda x: len(set(x)) > 1))
def test_perfect_agreement_gives_kappa_one(labels):
    report = agreement_report(frame_of({"a": labels, "b": labels}), (0, 1, 2), spec=NO_CI)
    row = report.pairs.iloc[0]
    assert row["cohen_kappa"] == pytest.approx(1.0)
    assert row["weighted_kappa_quadratic"] == pytest.approx(1.0)
    assert row["agreement"] == 1.0
    assert report.overall["krippendorff_alpha_nominal"] == pytest.approx(1.0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=30))
def test_statistics_are_symmetric_in_the_two_annotators(pairs_of_labels):
    first = [x for x, _ in pairs_of_labels]
    second = [y for _, y in pairs_of_labels]
    forward = agreement_report(frame_of({"a": first, "b": second}), (0, 1, 2), spec=NO_CI).pairs
    backward = agreement_report(frame_of({"a": second, "b": first}), (0, 1, 2), spec=NO_CI).pairs
    stats = forward.columns.drop(["a", "b"])
    pd.testing.assert_frame_equal(forward[stats], backward[stats], check_exact=False)


# --- specific agreement and prevalence ----------------------------------------------------------

def test_specific_agreement_and_prevalence_by_hand():
    # a = 3 both relevant, b + c = 1 + 2 discordant, d = 4 both non-relevant; n = 10.
    a = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    b = [1, 1, 1, 0, 1, 1, 0, 0, 0, 0]
    row = agreement_report(frame_of({"x": a, "y": b}), (0, 1), spec=NO_CI).pairs.iloc[0]
    assert row["positive_agreement"] == pytest.approx(6 / 9)
    assert row["negative_agreement"] == pytest.approx(8 / 11)
    assert row["prevalence"] == pytest.approx(9 / 20)
    assert row["agreement"] == pytest.approx(7 / 10)


def test_graded_labels_are_collapsed_at_the_relevance_threshold():
    a = [0, 1, 2, 2, 0]
    b = [0, 2, 1, 0, 1]
    frame = frame_of({"x": a, "y": b})
    default = agreement_report(frame, (0, 1, 2), spec=NO_CI).pairs.iloc[0]
    # positive from 1: both positive on items 1, 2 -> a = 2; discordant items 3, 4; d = 1.
    assert default["positive_agreement"] == pytest.approx(4 / 6)
    assert default["negative_agreement"] == pytest.approx(2 / 4)
    strict = agreement_report(frame, (0, 1, 2), relevant=2, spec=NO_CI).pairs.iloc[0]
    # positive from 2: x says 2 on items 2, 3; y on item 1 -> a = 0, discordant 3, d = 2.
    assert strict["positive_agreement"] == 0.0
    assert strict["negative_agreement"] == pytest.approx(4 / 7)
    assert strict["prevalence"] == pytest.approx(3 / 10)


def test_no_positive_label_leaves_positive_agreement_undefined():
    row = agreement_report(frame_of({"x": [0, 0], "y": [0, 0]}), (0, 1), spec=NO_CI).pairs.iloc[0]
    assert row["positive_agreement"] is pd.NA
    assert row["negative_agreement"] == 1.0
    assert row["prevalence"] == 0.0


# --- several annotators ---------------------------------------------------------------------------

def test_fleiss_kappa_matches_statsmodels_when_every_pair_has_equal_labels():
    frame = random_frame(7, annotators=3, coverage=1.0)
    report = agreement_report(frame, (0, 1, 2), spec=NO_CI)
    wide = frame.pivot(index=["topic", "doc"], columns="annotator", values="label")
    table, _ = aggregate_raters(wide.to_numpy(int), n_cat=3)
    assert report.overall["fleiss_kappa"] == pytest.approx(fleiss_kappa(table, method="fleiss"))
    assert report.overall["fleiss_kappa_note"] is None


def test_fleiss_kappa_is_not_computed_for_unequal_numbers_of_labels():
    frame = frame_of({"a": [0, 1, 1], "b": [0, 1, 0], "c": [None, 1, 0]})
    overall = agreement_report(frame, (0, 1), spec=NO_CI).overall
    assert overall["fleiss_kappa"] is None
    assert "2 to 3 labels" in overall["fleiss_kappa_note"]
    assert overall["krippendorff_alpha_nominal"] is not None


@pytest.mark.parametrize("seed", [11, 12])
@pytest.mark.parametrize("scale", [(0, 1), (0, 1, 2, 3)], ids=["binary", "0-3"])
def test_krippendorff_alpha_matches_reliability_data_oracle(seed, scale):
    frame = random_frame(seed, annotators=5, coverage=0.6, scale=scale)
    overall = agreement_report(frame, scale, spec=NO_CI).overall
    wide = frame.pivot(index=["topic", "doc"], columns="annotator", values="label")
    reliability = wide.to_numpy(dtype=float).T  # raters × units, NaN = missing
    for level in ("nominal", "ordinal"):
        expected = krippendorff.alpha(reliability_data=reliability, value_domain=list(scale),
                                      level_of_measurement=level)
        assert overall[f"krippendorff_alpha_{level}"] == pytest.approx(expected)


# --- bootstrap over topics -----------------------------------------------------------------------

def test_kappa_interval_is_scipy_percentile_bootstrap_over_topics():
    frame = random_frame(5, annotators=2, items=80, topics=8, coverage=1.0)
    spec = BootstrapSpec(n_resamples=300, seed=42)
    row = agreement_report(frame, (0, 1, 2), spec=spec).pairs.iloc[0]
    by_topic = [pair_arrays(group, "ann0", "ann1") for _, group in frame.groupby("topic")]

    def sklearn_kappa(topic_index):
        y1 = np.concatenate([by_topic[int(i)][0] for i in topic_index])
        y2 = np.concatenate([by_topic[int(i)][1] for i in topic_index])
        return cohen_kappa_score(y1, y2, labels=[0, 1, 2])

    oracle = bootstrap((np.arange(len(by_topic)),), sklearn_kappa, vectorized=False,
                       n_resamples=300, method="percentile",
                       rng=np.random.default_rng([42, 0]))
    assert row["kappa_ci_low"] == pytest.approx(oracle.confidence_interval.low)
    assert row["kappa_ci_high"] == pytest.approx(oracle.confidence_interval.high)
    assert row["kappa_ci_low"] <= row["cohen_kappa"] <= row["kappa_ci_high"]


def test_bootstrap_is_seeded_and_needs_two_topics():
    frame = random_frame(3, annotators=2, topics=4, coverage=1.0)
    first = agreement_report(frame, (0, 1, 2), spec=BootstrapSpec(seed=9)).pairs
    again = agreement_report(frame, (0, 1, 2), spec=BootstrapSpec(seed=9)).pairs
    pd.testing.assert_frame_equal(first, again)
    one_topic = agreement_report(frame.assign(topic="t"), (0, 1, 2)).pairs.iloc[0]
    assert one_topic["kappa_ci_low"] is pd.NA and one_topic["kappa_ci_high"] is pd.NA


# --- per topic, inputs, JSON ---------------------------------------------------------------------

def test_per_topic_rows_match_sklearn_on_each_topic():
    frame = random_frame(21, annotators=3, topics=3)
    report = agreement_report(frame, (0, 1, 2), per_topic=True, spec=NO_CI)
    assert set(report.per_topic_overall["topic"]) == {"t0", "t1", "t2"}
    for row in report.per_topic_pairs.itertuples():
        y1, y2 = pair_arrays(frame[frame["topic"] == row.topic], row.a, row.b)
        assert row.n == len(y1)
        expected = cohen_kappa_score(y1, y2, labels=[0, 1, 2], weights="quadratic")
        if np.isnan(expected):
            assert row.weighted_kappa_quadratic is pd.NA
        else:
            assert row.weighted_kappa_quadratic == pytest.approx(expected)
    for row in report.per_topic_overall.itertuples():
        sub = frame[frame["topic"] == row.topic]
        wide = sub.pivot(index="doc", columns="annotator", values="label").to_numpy(float).T
        expected = krippendorff.alpha(reliability_data=wide, value_domain=[0, 1, 2],
                                      level_of_measurement="ordinal")
        assert row.krippendorff_alpha_ordinal == pytest.approx(expected)
    per_topic = report.to_json()["per_topic"]
    assert [entry["topic"] for entry in per_topic] == ["t0", "t1", "t2"]
    assert all({"a", "b", "n", "cohen_kappa"} <= set(p) for e in per_topic for p in e["pairs"])


def test_adjudications_are_not_votes():
    frame = frame_of({"a": [0, 1, 1], "b": [0, 1, 0]}).assign(kind="judgment")
    adjudication = pd.DataFrame([("c", "t1", "d0", 1, "adjudication")], columns=frame.columns)
    with_adjudication = pd.concat([frame, adjudication], ignore_index=True)
    report = agreement_report(with_adjudication, (0, 1), spec=NO_CI)
    assert report.pairs[["a", "b"]].values.tolist() == [["a", "b"]]
    assert report.overall["judgments"] == 6


def test_annotators_without_shared_pairs_have_no_row():
    frame = frame_of({"a": [0, 1, None, None], "b": [0, 0, None, None], "c": [None, None, 1, 0]})
    pairs = agreement_report(frame, (0, 1), spec=NO_CI).pairs
    assert pairs[["a", "b"]].values.tolist() == [["a", "b"]]


@pytest.mark.parametrize(("change", "message"), [
    (lambda f: f.assign(label=f["label"].replace(2, 7)), "label 7 .* not in the scale"),
    (lambda f: pd.concat([f, f.iloc[:1]]), "judged topic .* more than once"),
    (lambda f: f.drop(columns="doc"), "lack column"),
])
def test_bad_judgment_frames_are_refused(change, message):
    frame = frame_of({"a": [0, 1, 2], "b": [2, 1, 0]})
    with pytest.raises(InputError, match=message):
        agreement_report(change(frame), (0, 1, 2))


def test_co_judgment_tables_count_every_pair_of_annotators_once():
    frame = random_frame(4, annotators=4, items=40, topics=3)
    coded = code_judgments(frame, (0, 1, 2))
    tables = co_judgment_tables(coded)
    wide = frame.pivot(index=["topic", "doc"], columns="annotator", values="label")
    shared = sum(int(wide[[a, b]].notna().all(axis=1).sum())
                 for i, a in enumerate(wide.columns) for b in wide.columns[i + 1:])
    assert tables.counts.sum() == shared
    assert (tables.a < tables.b).all()


def test_empty_judgments_give_an_empty_report():
    empty = pd.DataFrame(columns=["annotator", "topic", "doc", "label"]).astype({"label": int})
    report = agreement_report(empty, (0, 1), per_topic=True)
    assert report.pairs.empty and report.overall["judgments"] == 0
    assert report.overall["fleiss_kappa"] is None
    assert report.to_json()["pairs"] == []


# --- real data ------------------------------------------------------------------------------------

@pytest.mark.slow
def test_robust03_qrels_against_a_noisy_copy_match_the_oracles(shared_data):
    """The real TREC 2003 Robust qrels (graded 0-2, 95% non-relevant) as one annotator, and a
    copy with 5% of labels redrawn as another (plus a third on every other pair)."""
    from pooljudge.formats.trec import read_qrels

    qrels = read_qrels(shared_data / "robust03" / "qrels.txt")
    rng = np.random.default_rng(3)
    noisy = np.where(rng.random(len(qrels)) < 0.05, rng.integers(0, 3, len(qrels)),
                     qrels["label"].to_numpy())
    third = qrels.iloc[::2].assign(annotator="third", label=noisy[::2][::-1])
    frame = pd.concat([qrels.assign(annotator="nist"), qrels.assign(annotator="noisy",
                                                                   label=noisy), third])
    report = agreement_report(frame, (0, 1, 2), spec=BootstrapSpec(n_resamples=200))
    row = report.pairs.set_index(["a", "b"]).loc[("nist", "noisy")]
    truth = qrels["label"].to_numpy()
    assert row["n"] == len(qrels) and row["topics"] == qrels["topic"].nunique()
    assert row["cohen_kappa"] == pytest.approx(cohen_kappa_score(truth, noisy, labels=[0, 1, 2]))
    assert row["weighted_kappa_quadratic"] == pytest.approx(
        cohen_kappa_score(truth, noisy, labels=[0, 1, 2], weights="quadratic"))
    assert row["kappa_ci_low"] < row["cohen_kappa"] < row["kappa_ci_high"]
    assert row["prevalence"] == pytest.approx(((truth > 0).sum() + (noisy > 0).sum())
                                              / (2 * len(truth)))
    wide = frame.pivot(index=["topic", "doc"], columns="annotator", values="label")
    expected = krippendorff.alpha(reliability_data=wide.to_numpy(float).T,
                                  value_domain=[0, 1, 2], level_of_measurement="ordinal")
    assert report.overall["krippendorff_alpha_ordinal"] == pytest.approx(expected)
    assert report.overall["fleiss_kappa"] is None  # 2 labels on half the pairs, 3 on the rest
