"""The estimators from sampled judgments: by hand on tiny cases, equal to the exact measures
when every pooled document is judged (π = 1), infAP against trec_eval 10, the CLI contract, and
unbiasedness by simulation on robust03 (a seeded SRSWOR of 20% per topic of the depth-100 pool,
500 draws)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.evaluate import load_qrels
from metrics.join import join
from metrics.prels import bind_prels
from metrics.registry import parse
from metrics.uncertainty import stat_precision_se
from pooljudge.cli import main
from pooljudge.errors import UsageError
from pooljudge.formats.ranking import rank_run
from pooljudge.formats.trec import read_qrels, read_run, run_columns
from pooljudge.heap import reusing_freed_memory

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


def test_bootstrap_se_is_seeded_and_zero_for_a_stratum_judged_whole():
    first = metrics.evaluate(QRELS, {"r": RUN}, ["statAP", "xinfAP"], prels=PRELS, se=True)
    again = metrics.evaluate(QRELS, {"r": RUN}, ["statAP", "xinfAP"], prels=PRELS, se=True)
    assert first["se"].iloc[:2].tolist() == again["se"].iloc[:2].tolist()
    assert (first["se"].iloc[:2] > 0).all()
    whole = PRELS.assign(label=pd.array([1, 0, 1, 0], dtype="Int64"), inclusion=1.0)
    frame = metrics.evaluate(QRELS, {"r": RUN}, ["statAP", "statP@2"], prels=whole, se=True)
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

DRAWS, RATE, DEPTH = 500, 0.2, 100


@pytest.fixture(scope="module")
def robust(shared_data: Path):
    """The depth-100 pool of the robust03 runs, judged whole by its qrels (label 0 where the
    qrels lack a line), bound as prels of π = n/N per topic, and every run's top 100 (all of it
    pooled, so every ranked document has a known π; and ten times less work than whole runs)
    joined once."""
    folder = shared_data / "robust03"
    qrels = read_qrels(folder / "qrels.txt")
    runs = {path.name: read_run(path) for path in sorted((folder / "runs").iterdir())}
    tops = [rank_run(run).query("rank <= @DEPTH") for run in runs.values()]
    pool = pd.concat([top[["topic", "doc"]] for top in tops]).drop_duplicates()
    pool = pool[pool["topic"].isin(set(qrels["topic"]))]
    pool = pool.merge(qrels, on=["topic", "doc"], how="left").fillna({"label": 0})
    pooled = pool.groupby("topic")["doc"].transform("size").to_numpy()
    pool["sampled"] = np.floor(RATE * pooled + 0.5).astype(int)
    prels_frame = pool.assign(label=pool["label"].astype("Int64"), stratum=1,
                              inclusion=pool["sampled"] / pooled)
    prepared = load_qrels(pool[["topic", "doc", "label"]])
    prels = bind_prels(prels_frame[["topic", "doc", "label", "stratum", "inclusion"]], prepared)
    rankings = [join(prepared, run_columns(top[["topic", "doc", "score"]]), prels=prels)
                for top in tops]
    return prels, rankings, prels_frame["sampled"].to_numpy()


def _draws(prels, sampled: np.ndarray, seed: int = 7):
    """DRAWS row weights: per topic a uniform SRSWOR of n of its N pooled documents."""
    rng = np.random.default_rng(seed)
    topic = prels.topic
    for _ in range(DRAWS):
        order = np.lexsort((rng.random(len(topic)), topic))
        position = np.empty(len(topic), dtype=np.int64)
        starts = np.searchsorted(topic[order], topic[order])
        position[order] = np.arange(len(topic)) - starts
        yield (position < sampled).astype(np.float64)


@pytest.fixture(scope="module")
def simulated(robust):
    """Per estimator, the true MAP of each run (P@10 and AP on the whole pool's labels), every
    draw's per-topic estimates, and statPrec@10's analytic variance summed over draws."""
    prels, rankings, sampled = robust
    measures = [parse("statPrec@10"), parse("statAP"), parse("xinfAP")]
    exact = {measures[0]: parse("P@10"), measures[1]: parse("AP"), measures[2]: parse("AP")}
    truth = {m: np.array([exact[m].spec.compute(r, exact[m]) for r in rankings])
             for m in measures}
    estimates = {m: np.empty((DRAWS, len(rankings), prels.n_topics)) for m in measures}
    variance = np.zeros((len(rankings), prels.n_topics))
    with reusing_freed_memory():  # many mid-sized temporaries: no mmap/munmap for each
        for draw, weight in enumerate(_draws(prels, sampled)):
            replica = prels.reweighted(weight)
            for index, ranking in enumerate(rankings):
                ranking = dataclasses.replace(ranking, prels=replica, _cache=dict(ranking._cache))
                for measure in measures:
                    estimates[measure][draw, index] = measure.spec.compute(ranking, measure)
                variance[index] += stat_precision_se(ranking, measures[0]) ** 2
    return measures, truth, estimates, variance


def _bias(simulated, name: str):
    """Per run: the bias of the mean over topics, its SE over the draws, and the RMSE."""
    measures, truth, estimates, _ = simulated
    (measure,) = (m for m in measures if str(m) == name)
    error = estimates[measure].mean(axis=2) - truth[measure].mean(axis=1)
    return (error.mean(axis=0), error.std(axis=0, ddof=1) / np.sqrt(DRAWS),
            np.sqrt((error ** 2).mean(axis=0)))


def test_stat_precision_is_unbiased_by_simulation(simulated):
    """Horvitz–Thompson: the mean error of statPrec@10's mean over topics is within 3 SE of 0
    for every one of the 17 runs."""
    bias, se, _ = _bias(simulated, "statPrec@10")
    assert np.all(np.abs(bias) <= 3 * se), bias / se
    print(f"statPrec@10: max |bias|/SE over runs {np.max(np.abs(bias) / se):.2f}")


def test_stat_precision_variance_formula_matches_the_draws(simulated):
    """The mean over draws of the analytic variance, summed over topics, is within 20% of the
    empirical variance of the per-topic estimates over the draws, for every run."""
    measures, _, estimates, variance = simulated
    empirical = estimates[measures[0]].var(axis=0, ddof=1).sum(axis=1)
    ratio = variance.sum(axis=1) / DRAWS / empirical
    assert np.all(np.abs(ratio - 1) < 0.2), ratio
    print(f"statPrec@10 variance formula / empirical: {ratio.min():.3f}..{ratio.max():.3f}")


@pytest.mark.parametrize("name", ["statAP", "xinfAP"])
def test_ratio_estimators_bias_is_measured_and_bounded(simulated, name):
    """statAP and xinfAP are ratios (an estimate of R in the denominator) and are biased low at a
    20% sample: a topic whose sample holds no relevant document scores 0 (about a fifth of the
    estimates here). Measured (500 draws): the bias of the MAP of each run is far beyond 3 SE
    and close to its RMSE, but within 20% of the true MAP; per topic it stays below the RMSE.
    Those two facts are asserted; the bias itself is reported, not hidden."""
    measures, truth, estimates, _ = simulated
    bias, _, _ = _bias(simulated, name)
    (measure,) = (m for m in measures if str(m) == name)
    assert np.all(np.abs(bias) < 0.2 * truth[measure].mean(axis=1)), bias
    error = estimates[measure] - truth[measure]
    topic_bias, topic_rmse = error.mean(axis=0), np.sqrt((error ** 2).mean(axis=0))
    assert np.all(np.abs(topic_bias) <= topic_rmse), np.max(np.abs(topic_bias) / topic_rmse)
    print(f"{name}: bias of MAP per run {np.round(bias, 4)}; max |bias|/SE "
          f"{np.max(np.abs(bias) / _bias(simulated, name)[1]):.1f}; max |bias|/RMSE "
          f"{np.max(np.abs(bias) / _bias(simulated, name)[2]):.3f}")
