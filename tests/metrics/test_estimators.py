"""The estimators from sampled judgments: by hand on tiny cases, equal to the exact measures
when every pooled document is judged (π = 1), infAP against trec_eval 10, the CLI contract, and
unbiasedness by simulation on robust03 (500 seeded draws of the real sampler's
``pps(prior=ap)`` and ``strata(10:1.0,100:r)`` designs at 20% of the depth-100 pool)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.eval_inputs import load_qrels
from pooljudge.metrics.join import join
from pooljudge.metrics.prels import bind_prels
from pooljudge.metrics.registry import parse
from pooljudge.metrics.uncertainty import (
    stack_weights,
    stacked_ranking,
    standard_errors,
    stat_precision_se,
)
from pooljudge.pooling.sampling import draw, parse_design, plan_sample

from pooljudge import metrics
from pooljudge.cli import main
from pooljudge.errors import UsageError
from pooljudge.formats.trec import run_columns
from tests.support.benchmarks import load_benchmark

# Topic 1: pool a b c d, one stratum, d not sampled; π = 3/4 = p (3 of 4 judged).
QRELS = pd.DataFrame({"topic": "1", "doc": list("abcd"), "label": [1, 0, 1, -1]})
PRELS = pd.DataFrame({"topic": "1", "doc": list("abcd"),
                      "label": pd.array([1, 0, 1, None], dtype="Int64"),
                      "stratum": 1, "inclusion": 0.75})
RUN = pd.DataFrame({"topic": "1", "doc": list("abcdx"), "score": [5.0, 4, 3, 2, 1]})


def _values(measures, prels=PRELS, qrels=QRELS, run=RUN, se=False) -> dict[str, float]:
    frame = metrics.evaluate(qrels, {"r": run}, measures, prels=prels, per_topic=False, se=se)
    return dict(zip(frame["measure"], frame["value"], strict=True))


def test_stat_estimators_by_hand():
    """statP@2 = (1/2)(1/0.75) = 2/3. R̂ = 2/0.75 = 8/3.
    statAP: a at 1: (4/3)(1/1)(1 + 0) = 4/3; c at 3: (4/3)(1/3)(1 + 4/3) = 28/27;
    (36/27 + 28/27) / (8/3) = 8/9.
    statNDCG: DCG = (4/3)(1 + 1/log2 4) = 2; ideal: round(8/3) = 3 documents of gain 1,
    1 + 1/log2 3 + 1/2."""
    values = _values(["statP@2", "statAP", "statNDCG"])
    assert values["statPrec@2"] == pytest.approx(2 / 3, abs=1e-12)
    assert values["statAP"] == pytest.approx(8 / 9, abs=1e-12)
    assert values["statNDCG"] == pytest.approx(2 / (1.5 + 1 / np.log2(3)), abs=1e-12)


def test_inferred_estimators_by_hand():
    """p = 3/4, R̂ = 2/(3/4) = 8/3. xinfAP: a at 1: E = 1; c at 3: above are a (rel), b
    (non-rel): E = 1/3 + (1/3)·2·(1 + ε)/(2 + 2ε) = 2/3; (1 + 2/3)(4/3) / (8/3) = 5/6.
    infNDCG: judged gains scaled by N/n = 4/3: DCG = (4/3)(1 + 1/log2 4) = 2; ideal:
    round(8/3) = 3 documents of gain 1 (here π = p, so infNDCG = statNDCG)."""
    values = _values(["xinfAP", "infNDCG", "statNDCG"])
    assert values["xinfAP"] == pytest.approx(5 / 6, abs=1e-12)
    assert values["infNDCG"] == pytest.approx(2 / (1.5 + 1 / np.log2(3)), abs=1e-12)
    assert values["infNDCG"] == pytest.approx(values["statNDCG"], abs=1e-15)


def test_two_strata_by_hand():
    """Stratum 1 = {a, b} judged whole (p = 1); stratum 2 = {c, d, e, f}, c and e judged
    (p = 1/2): e relevant. Ranking e a c. R̂ = 1 (a) + 1/(1/2) (e) = 3.
    xinfAP: e at 1: E = 1, weight 2; a at 2: above e (stratum 2: 1 rel of 1 judged):
    E = 1/2 + (1/2)·1·(1 + ε)/(1 + 2ε) ≈ 1; weight 1 -> (2 + 1)/3 = 1 (up to ε).
    statAP with π = (1, 1, .5, .5, .5, .5): e: 2·(1/1)(1) = 2; a: 1·(1/2)(1 + 2) = 3/2;
    (2 + 3/2) / 3 = 7/6 (a ratio estimate may exceed 1)."""
    prels = pd.DataFrame({"topic": "1", "doc": list("abcdef"),
                          "label": pd.array([1, 0, 0, None, 1, None], dtype="Int64"),
                          "stratum": [1, 1, 2, 2, 2, 2], "inclusion": [1, 1, .5, .5, .5, .5]})
    qrels = pd.DataFrame({"topic": "1", "doc": list("abcdef"), "label": [1, 0, 0, -1, 1, -1]})
    run = pd.DataFrame({"topic": "1", "doc": ["e", "a", "c"], "score": [3.0, 2, 1]})
    values = _values(["xinfAP", "statAP"], prels, qrels, run)
    assert values["xinfAP"] == pytest.approx(1.0, abs=1e-4)
    assert values["statAP"] == pytest.approx(7 / 6, abs=1e-12)


def test_a_stratum_with_one_judged_document_stands_for_its_stratum():
    """Stratum 2 = {b, c, d}, only b judged (relevant): p = 1/3, so b counts 3 times in R̂ and
    in statP@2 = (1/2)(1 + 3) = 2 (an unbiased estimate may exceed 1); its analytic SE has
    no variance estimate from one document: that stratum adds 0, stratum 1 (judged whole) 0."""
    prels = pd.DataFrame({"topic": "1", "doc": list("abcd"),
                          "label": pd.array([1, 1, None, None], dtype="Int64"),
                          "stratum": [1, 2, 2, 2], "inclusion": [1, 1 / 3, 1 / 3, 1 / 3]})
    qrels = pd.DataFrame({"topic": "1", "doc": list("abcd"), "label": [1, 1, -1, -1]})
    run = pd.DataFrame({"topic": "1", "doc": ["a", "b"], "score": [2.0, 1]})
    frame = metrics.evaluate(qrels, {"r": run}, ["statP@2", "xinfAP", "statAP"], prels=prels,
                             se=True, per_topic=False)
    values = dict(zip(frame["measure"], frame["value"], strict=True))
    assert values["statPrec@2"] == pytest.approx(2.0, abs=1e-12)
    # xinfAP: R̂ = 1 + 3 = 4; a: 1; b at 2: 1/2 + (1/2)·(stratum 1 above: 1 rel) ≈ 1, ×3
    assert values["xinfAP"] == pytest.approx((1 + 3) / 4, abs=1e-4)
    assert values["statAP"] == pytest.approx((1 + 3 * (1 + 1) / 2) / 4, abs=1e-12)
    assert frame["se"].isna().all()  # one topic: no interval of the mean
    per_topic = metrics.evaluate(qrels, {"r": run}, ["statP@2"], prels=prels, se=True)
    assert per_topic["se"].iat[0] == 0.0


def test_no_sampled_relevant_document_scores_zero():
    prels = PRELS.assign(label=pd.array([0, 0, 0, None], dtype="Int64"))
    values = _values(["xinfAP", "statAP", "statP@2", "statNDCG", "infNDCG"], prels)
    assert set(values.values()) == {0.0}


def test_stat_precision_se_by_hand():
    """SRSWOR, N = 4, n = 3; y = rel·[top 2]/2 over judged a, b, c = (1/2, 0, 0): mean 1/6,
    s² = ((1/3)² + 2 (1/6)²) / 2 = 1/12; Var = N² (1 - n/N) s² / n = 16 (1/4)(1/12)/3 = 1/9."""
    frame = metrics.evaluate(QRELS, {"r": RUN}, ["statP@2"], prels=PRELS, se=True)
    assert frame["se"].iat[0] == pytest.approx(1 / 3, abs=1e-12)


@pytest.mark.parametrize("method", [True, "bootstrap"])
def test_se_is_seeded_and_zero_for_a_stratum_judged_whole(method):
    first = metrics.evaluate(QRELS, {"r": RUN}, ["statAP", "xinfAP"], prels=PRELS, se=method)
    again = metrics.evaluate(QRELS, {"r": RUN}, ["statAP", "xinfAP"], prels=PRELS, se=method)
    assert first["se"].iloc[:2].tolist() == again["se"].iloc[:2].tolist()
    assert (first["se"].iloc[:2] > 0).all()
    whole = PRELS.assign(label=pd.array([1, 0, 1, 0], dtype="Int64"), inclusion=1.0)
    frame = metrics.evaluate(QRELS, {"r": RUN}, ["statAP", "statP@2"], prels=whole, se=method)
    assert frame["se"].iloc[:2].tolist() == [0.0, 0.0]


def _random_case(seed: int = 3, topics: int = 6, docs: int = 40):
    rng = np.random.default_rng(seed)
    qrels = pd.DataFrame({"topic": np.repeat([str(t) for t in range(topics)], docs),
                          "doc": [f"d{i}" for i in range(docs)] * topics,
                          "label": rng.choice([0, 0, 0, 1, 2, 3], size=topics * docs)})
    run = qrels.sample(frac=0.7, random_state=seed)[["topic", "doc"]]
    run = pd.concat([run, pd.DataFrame({"topic": "0", "doc": ["zz1", "zz2"]})])
    run["score"] = rng.integers(0, 20, size=len(run)).astype(float)  # ties included
    return qrels, run


@pytest.mark.parametrize(("estimator", "exact", "tolerance"), [
    ("xinfAP", "AP", 1e-4), ("statAP", "AP", 1e-12), ("statP@5", "P@5", 1e-12),
    ("statPrec(rel=2)@10", "P(rel=2)@10", 1e-12), ("xinfAP(rel=2)", "infAP(rel=2)", 1e-12),
    ("infNDCG", "nDCG", 1e-12), ("statNDCG", "nDCG", 1e-12), ("infNDCG@10", "nDCG@10", 1e-12),
    ("statNDCG(gains={1:3,2:9})@5", "nDCG(gains={1:3,2:9})@5", 1e-12),
])
def test_every_pooled_document_judged_gives_the_exact_measure(estimator, exact, tolerance):
    qrels, run = _random_case()
    prels = qrels.assign(label=qrels["label"].astype("Int64"), stratum=1, inclusion=1.0)
    values = _values([estimator, exact], prels, qrels, run)
    assert values[str(parse(estimator))] == pytest.approx(values[str(parse(exact))],
                                                          abs=tolerance)


def test_names_round_trip_and_aliases():
    for name in ["xinfAP", "infNDCG@10", "statAP", "statPrec@10", "statNDCG(gains={1:3})"]:
        assert str(parse(name)) == name and parse(str(parse(name))) == parse(name)
    assert parse("statP@10") == parse("statPrec@10") == parse("statP_10")
    assert parse("infNDCG_20") == parse("infNDCG@20")


def test_an_estimator_without_prels_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(UsageError, match="--prels FILE"):
        metrics.evaluate(QRELS, {"r": RUN}, ["statAP"])
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 t\n")
    assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "xinfAP"]) == 2
    assert "xinfAP estimate(s) from sampled judgments: give their prels with --prels FILE" \
        in capsys.readouterr().err


def test_cli_prels_and_se_columns(tmp_path, capsys):
    from pooljudge.formats.trec import write_prels, write_qrels, write_run

    write_qrels(QRELS, tmp_path / "q")
    write_prels(PRELS, tmp_path / "p.tsv")
    write_run(RUN, tmp_path / "r")
    args = ["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "statP@2", "-m", "P@2",
            "--prels", str(tmp_path / "p.tsv"), "--se", "--format", "tsv", "--per-topic"]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "run\ttopic\tmeasure\tvalue\tse\tci_low\tci_high"
    run, topic, name, value, se, low, high = lines[1].split("\t")
    assert (run, topic, name, value, low, high) == ("r", "1", "statPrec@2", repr(2 / 3), "", "")
    assert float(se) == pytest.approx(1 / 3, abs=1e-12)
    assert lines[2] == "r\t1\tP@2\t0.5\t\t\t"


# --- infAP against trec_eval 10 ------------------------------------------------------------


@pytest.mark.parametrize("run", ["random", "ties_int", "short", "negexp"])
def test_infap_matches_trec_eval_10_on_the_edge_files(shared_data: Path, run: str):
    """Every infAP value trec_eval 10 printed for the edge qrels (labels -2..3: the -1/-2
    lines are pooled-but-unsampled documents) equals ours to 1e-9."""
    folder = shared_data / "trec_eval10" / "edge"
    expected = {}
    for line in (folder / f"{run}.all_trec").read_text().splitlines():
        name, topic, value = line.split("\t")
        if name.strip() == "infAP":
            expected[topic.strip()] = float(value)
    frame = metrics.evaluate(folder / "qrels.txt", {run: folder / f"{run}.run"}, ["infAP"])
    ours = dict(zip(frame["topic"], frame["value"], strict=True))
    assert len(expected) > 3
    for topic, value in expected.items():
        assert ours[topic] == pytest.approx(value, abs=1e-9), topic


def test_infap_of_one_edge_topic_by_hand(shared_data: Path):
    """Run ``short``, topic 100: d15 (judged non-relevant) then D15 (relevant); the qrels hold
    R = 21 labels >= 1 and 14 negative ones. D15 at rank 2: 1/2 + (1/2)(1/1)(ε / (1 + 2ε));
    infAP = that / 21 (trec_eval 10 printed 0.023809761900000097)."""
    folder = shared_data / "trec_eval10" / "edge"
    frame = metrics.evaluate(folder / "qrels.txt", {"short": folder / "short.run"}, ["infAP"])
    eps = 1e-5
    value = frame.set_index("topic")["value"]["100"]
    assert value == pytest.approx((0.5 + 0.5 * eps / (1 + 2 * eps)) / 21, abs=1e-15)
    assert value == pytest.approx(0.023809761900000097, abs=1e-9)


def test_se_without_prels_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 t\n")
    assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "--se"]) == 2
    assert "--se needs --prels FILE" in capsys.readouterr().err


# --- unbiasedness by simulation on robust03 --------------------------------------------------

BIAS_BENCH = load_benchmark("bias_corrections")
DRAWS = 500


@pytest.fixture(scope="module")
def robust(shared_data: Path):
    """The depth-100 pool of the robust03 runs (qrels topics), labelled by the qrels (0 where
    they lack a line), and every run's top 100 (all of it pooled, so every ranked document has a
    known π; and ten times less work than whole runs): the set-up of
    ``benchmarks/bias_corrections.py``, which measures the jackknife on it."""
    return BIAS_BENCH.robust03(shared_data / "robust03")


@pytest.fixture(scope="module", params=["pps", "strata"])
def simulated(request, robust):
    """Under the design (the real sampler's plan, :func:`pooljudge.pooling.sampling.plan_sample`,
    and
    DRAWS seeded draws of it): per estimator, the exact measure of each run over the whole
    labelled pool (P@10, AP, nDCG) and every draw's per-topic estimates; statPrec@30's analytic
    variance summed over draws. All draws of a batch are computed at once
    (:func:`pooljudge.metrics.uncertainty.stack_weights`)."""
    pool, labels, tops = robust
    design = BIAS_BENCH.design_of(request.param, pool)
    plan = plan_sample(pool, parse_design(design))
    frame = labels.assign(label=labels["label"].astype("Int64"), stratum=plan.stratum,
                          inclusion=plan.inclusion)
    prepared = load_qrels(labels)
    prels = bind_prels(frame, prepared)
    rankings = [join(prepared, run_columns(top), prels=prels) for top in tops]
    pairs = {"statPrec@30": "P@30", "statPrec@10": "P@10", "statAP": "AP", "statNDCG": "nDCG",
             "xinfAP": "AP", "infNDCG": "nDCG"}
    measures = [parse(name) for name in pairs]
    truth = {m: np.array([parse(pairs[str(m)]).spec.compute(r, parse(pairs[str(m)]))
                          for r in rankings]) for m in measures}
    estimates = {m: np.empty((DRAWS, len(rankings), prels.n_topics)) for m in measures}
    variance = np.zeros((len(rankings), prels.n_topics))
    rng, batch = np.random.default_rng(7), 100
    for first in range(0, DRAWS, batch):
        weights = np.stack([draw(plan, rng) for _ in range(batch)]).astype(np.float64)
        stacked = stack_weights(prels, weights)
        for index, ranking in enumerate(rankings):
            replica = stacked_ranking(ranking, stacked)
            for measure in measures:
                estimates[measure][first:first + batch, index] = measure.spec.compute(
                    replica, measure).reshape(batch, -1)
            se = stat_precision_se(replica, measures[0])
            variance[index] += (se ** 2).reshape(batch, -1).sum(axis=0)
    return request.param, design, measures, truth, estimates, variance


def _bias(simulated, name: str):
    """Per run: the bias of the mean over topics, its SE over the draws, and the RMSE."""
    _, _, measures, truth, estimates, _ = simulated
    (measure,) = (m for m in measures if str(m) == name)
    error = estimates[measure].mean(axis=2) - truth[measure].mean(axis=1)
    return (error.mean(axis=0), error.std(axis=0, ddof=1) / np.sqrt(DRAWS),
            np.sqrt((error ** 2).mean(axis=0)))


@pytest.mark.parametrize("name", ["statPrec@10", "statPrec@30"])
def test_stat_precision_is_unbiased_by_simulation(simulated, name):
    """Horvitz–Thompson: the mean error of statPrec@k's mean over topics is within 3 SE of 0 for
    every one of the 17 runs, under both designs (measured: at most 1.7 SE; under the strata
    design the top 10 is judged whole, so statPrec@10 is exact: bias and SE 0)."""
    bias, se, _ = _bias(simulated, name)
    assert np.all(np.abs(bias) <= 3 * se + 1e-12), bias / se


def test_stat_precision_variance_formula_matches_the_draws(simulated):
    """The mean over draws of statPrec@30's analytic variance (Hájek's; the stratified SRSWOR
    variance when π is constant within strata), summed over topics, against the empirical
    variance of the per-topic estimates over the draws, for every run (0 for a run whose
    estimate never varies): measured within 1.5% under strata, 2.1% under pps."""
    kind, _, measures, _, estimates, variance = simulated
    empirical = estimates[measures[0]].var(axis=0, ddof=1).sum(axis=1)
    analytic = variance.sum(axis=1) / DRAWS
    exact = empirical < 1e-20  # a run whose top 30 all lies in the stratum judged whole
    assert np.all(analytic[exact] == 0) and exact.sum() <= 1
    ratio = analytic[~exact] / empirical[~exact]
    assert np.all(np.abs(ratio - 1) < (0.02 if kind == "strata" else PPS_SPREAD)), ratio


PPS_SPREAD = 0.03


FRESH_DRAWS = 20
# Measured ratios of the mean SE² to the 500 draws' variance, per run. Bootstrap (seed 11; 20
# fresh draws; 100 replicates), pps: statAP 0.86-1.37 (16 of 17 runs within 20%), statNDCG
# 0.79-1.27 (15 of 17); strata (200 and 10 draws): 0.56-0.69, all four. Linearised (the
# delete-one variance less the pairs' surplus, pooljudge.metrics.second_order; over the fixture's
# first
# 100 draws), pps: statAP 0.99-1.07, statNDCG 0.99-1.05; strata: statAP 1.09-1.19, statNDCG
# 1.03-1.12, xinfAP 1.06-1.15, infNDCG 1.00-1.11: every run within 20% (over all 500 draws:
# 1.02-1.07, 1.00-1.05; 1.09-1.16, 1.02-1.11, 1.06-1.13, 0.99-1.10; the delete-one variance
# alone: 1.11-1.25, 1.10-1.15; 1.18-1.23, 1.10-1.20, 1.26-1.36, 1.13-1.24).
VARIANCE_RANGE = {
    ("bootstrap", "pps"): {"statAP": (0.8, 1.45), "statNDCG": (0.7, 1.35)},
    ("linearised", "pps"): {"statAP": (0.9, 1.15), "statNDCG": (0.9, 1.15)},
    ("linearised", "strata"): {"statAP": (1.0, 1.2), "statNDCG": (0.95, 1.2),
                               "xinfAP": (1.0, 1.2), "infNDCG": (0.95, 1.2)},
}
LINEARISED_DRAWS = 100


def _fresh_variance(simulated, robust, names, method: str, draws: int = FRESH_DRAWS,
                    seed: int = 11, **options) -> dict[str, np.ndarray]:
    """Per estimator of ``names`` and run: the mean over ``draws`` draws (seeded with ``seed``;
    7 gives the fixture's own first draws) of its SE² (``method``) summed over topics, over the
    empirical variance of the fixture's 500 draws."""
    _, design, measures, _, estimates, _ = simulated
    pool, labels, tops = robust
    plan = plan_sample(pool, parse_design(design))
    prepared = load_qrels(labels)
    prels = bind_prels(labels.assign(label=labels["label"].astype("Int64"),
                                     stratum=plan.stratum, inclusion=plan.inclusion), prepared)
    rankings = [join(prepared, run_columns(top), prels=prels) for top in tops]
    chosen = [m for m in measures if str(m) in names]
    mean = {m: np.zeros(len(rankings)) for m in chosen}
    rng = np.random.default_rng(seed)
    for index in range(draws):
        drawn = prels.reweighted(draw(plan, rng).astype(np.float64))
        for run, ranking in enumerate(rankings):
            replica = dataclasses.replace(ranking, prels=drawn, _cache={})
            errors = standard_errors(replica, chosen, seed=index, method=method, **options)
            for m in chosen:
                mean[m][run] += (errors[m] ** 2).sum() / draws
    return {str(m): mean[m] / estimates[m].var(axis=0, ddof=1).sum(axis=1) for m in chosen}


@pytest.mark.parametrize("method", ["linearised", "bootstrap"])
def test_variance_matches_the_draws(simulated, robust, method):
    """The SE² of the ratio estimators by ``method`` against the draws' variance
    (:func:`_fresh_variance`), for every run, within VARIANCE_RANGE. Linearised (the issue's
    criterion, under the designs each estimator was made for): the mean over the fixture's
    first LINEARISED_DRAWS draws within 20% of the variance over its 500, for every one of the
    17 runs. The bootstrap: 20 fresh draws, pps only (its take-all pairs never resampled; it has
    no finite-population correction; under strata it is 30-44% too small)."""
    ranges = VARIANCE_RANGE.get((method, simulated[0]))
    if ranges is None:
        pytest.skip("the bootstrap SE of the ratio estimators is checked under pps")
    if method == "bootstrap":
        ratios = _fresh_variance(simulated, robust, ranges, method, replicates=100)
    else:
        ratios = _fresh_variance(simulated, robust, ranges, method, LINEARISED_DRAWS, seed=7)
    for name, (low, high) in ranges.items():
        assert np.all((ratios[name] > low) & (ratios[name] < high)), (name, ratios[name])
        if method == "linearised":
            assert np.all(np.abs(ratios[name] - 1) <= 0.2), (name, ratios[name])


# Measured (500 draws, seed 7) upper bounds of bias / true mean, per design and estimator.
RATIO_BIAS = {"pps": {"statAP": 0.10, "statNDCG": 0.07},
              "strata": {"statAP": 0.22, "xinfAP": 0.22, "statNDCG": 0.12, "infNDCG": 0.12}}


def test_ratio_estimators_bias_is_measured_and_bounded(simulated):
    """statAP, statNDCG, xinfAP and infNDCG are ratios (an estimate of R, or of the ideal DCG,
    in the denominator): under the designs they were made for, drawn by the real sampler, they
    are biased HIGH, far beyond 3 SE (20 to 80 SE per run), by 4-9% of the true mean under
    pps(prior=ap) and 4-21% under strata(10:1.0,100:r) at a 20% budget. That bias is real (the
    numerators, statPrec@k, are unbiased above); what is asserted is its measured sign and
    bound, per run. (xinfAP and infNDCG under pps are not asserted: they assume π constant
    within a stratum.)"""
    kind, _, _, truth, _, _ = simulated
    for name, bound in RATIO_BIAS[kind].items():
        bias, se, _ = _bias(simulated, name)
        (measure,) = (m for m in truth if str(m) == name)
        relative = bias / truth[measure].mean(axis=1)
        assert np.all(bias > 3 * se), (name, bias / se)
        assert np.all(relative < bound), (name, relative)
