"""Linearised standard errors (:mod:`pooljudge.metrics.linearised`): each estimator's gradient
against a
numerical finite difference, its delete-one influence against recomputing the estimator without
the row, statPrec@k's SE reproduced, the edge cases, and the ``method`` switch."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.estimators import inferred_ndcg_inputs, stat_ndcg_inputs
from pooljudge.metrics.eval_inputs import load_qrels
from pooljudge.metrics.join import join
from pooljudge.metrics.linearised import (
    gradient,
    hajek_variance,
    influence,
    ndcg_parts,
)
from pooljudge.metrics.prels import bind_prels
from pooljudge.metrics.registry import parse
from pooljudge.metrics.second_order import linearised_se
from pooljudge.metrics.uncertainty import standard_errors, stat_precision_se

from pooljudge import metrics
from pooljudge.cli import main
from pooljudge.errors import UsageError
from pooljudge.formats.trec import run_columns

ESTIMATORS = ["statP@10", "statAP", "xinfAP", "statNDCG", "infNDCG", "statNDCG@10",
              "infNDCG@10", "xinfAP(rel=2)", "statAP(rel=3)"]


def _case(seed: int, topics: int = 4, docs: int = 40):
    """Three strata per topic (10 judged whole, 10 at π ≈ 0.6, the rest at π ≈ 0.3, π varying
    within a stratum), labels 0-3, a run ranking 80% of the pool plus two unpooled documents."""
    rng = np.random.default_rng(seed)
    labels = rng.choice([0, 0, 0, 1, 2, 3], size=topics * docs)
    stratum = np.tile(np.repeat([1, 2, 3], [10, 10, docs - 20]), topics)
    inclusion = np.choose(stratum - 1, [1.0, 0.6, 0.3]) * np.where(
        stratum == 1, 1.0, rng.uniform(0.7, 1.0, topics * docs))
    judged = rng.random(topics * docs) < inclusion
    prels = pd.DataFrame({"topic": np.repeat([str(t) for t in range(topics)], docs),
                          "doc": [f"d{i}" for i in range(docs)] * topics,
                          "label": pd.array(np.where(judged, labels, 0), dtype="Int64"),
                          "stratum": stratum, "inclusion": inclusion})
    prels.loc[~judged, "label"] = pd.NA
    qrels = prels.assign(label=labels)[["topic", "doc", "label"]]
    run = qrels.sample(frac=0.8, random_state=seed)[["topic", "doc"]]
    run = pd.concat([run, pd.DataFrame({"topic": "0", "doc": ["zz1", "zz2"]})])
    run["score"] = rng.permutation(len(run)).astype(float)
    prepared = load_qrels(qrels)
    prels = bind_prels(prels, prepared)
    return join(prepared, run_columns(run), prels=prels), prels


def _at(r, p, weight):
    return dataclasses.replace(r, prels=p.reweighted(weight), _cache={})


def _sampled(p):
    return np.flatnonzero(p.judged & (p.weight > 0))


@pytest.mark.parametrize("name", ["statP@10", "statAP", "xinfAP", "xinfAP(rel=2)",
                                  "statAP(rel=3)"])
def test_gradient_matches_a_finite_difference(name):
    """∂θ̂/∂w_d against (θ̂(w + h e_d) − θ̂(w − h e_d)) / 2h, h = 1e-4 (xinfAP's ε makes a
    smaller step lose digits), for every judged row: its topic moves by z_d, no other."""
    r, p = _case(3)
    m = parse(name)
    z, h = gradient(r, m), 1e-4
    for d in _sampled(p):
        up, down = p.weight.copy(), p.weight.copy()
        up[d] += h
        down[d] -= h
        change = (m.spec.compute(_at(r, p, up), m) - m.spec.compute(_at(r, p, down), m)) / (2 * h)
        expected = np.zeros(p.n_topics)
        expected[p.topic[d]] = z[d]
        np.testing.assert_allclose(change, expected, rtol=0, atol=1e-7)


def _ideal(count: np.ndarray, levels: np.ndarray, cutoff: int | None) -> float:
    gains = np.concatenate([np.full(int(c), g) for g, c in zip(levels, count, strict=True)])
    gains = gains[:cutoff] if cutoff else gains
    return float((gains / np.log2(np.arange(2, len(gains) + 2))).sum())


@pytest.mark.parametrize("name", ["statNDCG", "infNDCG", "statNDCG@10", "infNDCG@10"])
def test_ndcg_gradient_parts(name):
    """DĈG's derivative against a finite difference; the ideal DCG's against Σ_l Δ_l ∂C_l/∂w_d,
    Δ_l = IDCG(C + e_l) − IDCG(C) from the ideal list built by hand, ∂C_l/∂w_d by a finite
    difference of the unrounded counts."""
    r, p = _case(5)
    m = parse(name)
    inputs = inferred_ndcg_inputs if m.name == "infNDCG" else stat_ndcg_inputs
    _, best, d_num, d_den = ndcg_parts(r, m)
    _, counts, row_gain = inputs(r, m)
    levels = np.unique(row_gain[row_gain > 0])[::-1]
    table = np.array([[np.floor(counts[(p.topic == t) & (row_gain == g)].sum() + 0.5)
                       for g in levels] for t in range(p.n_topics)])
    np.testing.assert_allclose([_ideal(row, levels, m.cutoff) for row in table], best)
    h = 1e-5
    for d in _sampled(p):
        up, down = p.weight.copy(), p.weight.copy()
        up[d] += h
        down[d] -= h
        t = p.topic[d]
        above, below = _at(r, p, up), _at(r, p, down)
        dcg = (ndcg_parts(above, m)[0] - ndcg_parts(below, m)[0]) / (2 * h)
        moved = (inputs(above, m)[1] - inputs(below, m)[1]) / (2 * h)
        step = [_ideal(table[t] + np.eye(len(levels))[j], levels, m.cutoff) - best[t]
                for j in range(len(levels))]
        slope = [moved[(p.topic == t) & (row_gain == g)].sum() for g in levels]
        assert dcg[t] == pytest.approx(d_num[d], abs=1e-7)
        assert np.abs(np.delete(dcg, t)).max() < 1e-7
        assert float(np.dot(step, slope)) == pytest.approx(d_den[d], abs=1e-6)


@pytest.mark.parametrize("seed", [3, 5])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_influence_is_the_change_without_the_row(name, seed):
    """z_d = θ̂(w) − θ̂(w − e_d) equals the estimator recomputed without row d, for every judged
    row of a cell with at least two (a cell with one adds 0 to the variance)."""
    r, p = _case(seed)
    m = parse(name)
    z, base = influence(r, m), m.spec.compute(r, m)
    for d in _sampled(p):
        if p.sampled[p.cell[d]] < 2:
            continue
        weight = p.weight.copy()
        weight[d] -= 1.0
        change = base - m.spec.compute(_at(r, p, weight), m)
        expected = np.zeros(p.n_topics)
        expected[p.topic[d]] = z[d]
        np.testing.assert_allclose(change, expected, rtol=0, atol=1e-10)


def test_stat_precision_se_is_the_linearised_se():
    """statPrec@k is linear in w: its gradient and influence are y_d/π_d, so its analytic SE is
    its linearised SE, bit for bit."""
    r, p = _case(3)
    for name in ["statP@10", "statPrec(rel=2)@5"]:
        m = parse(name)
        assert linearised_se(r, m).tobytes() == stat_precision_se(r, m).tobytes()
        t = np.where(p.judged & (p.weight > 0), gradient(r, m), 0.0)
        assert np.sqrt(hajek_variance(p, t, r.n_topics)).tobytes() == \
            stat_precision_se(r, m).tobytes()


def test_edge_cases_add_zero():
    """Topic 1: a stratum judged whole (π = 1) and a stratum with one judged document: SE 0.
    Topic 2: no relevant document sampled (R̂ = 0, every estimate 0): SE 0."""
    prels = pd.DataFrame({"topic": ["1"] * 4 + ["2"] * 4, "doc": list("abcdabcd"),
                          "label": pd.array([1, 0, 1, None, 0, 0, 0, None], dtype="Int64"),
                          "stratum": [1, 1, 2, 2, 1, 1, 1, 1],
                          "inclusion": [1, 1, .5, .5, .75, .75, .75, .75]})
    qrels = prels.assign(label=prels["label"].fillna(-1).astype(int))[["topic", "doc", "label"]]
    run = pd.DataFrame({"topic": ["1"] * 3 + ["2"] * 3, "doc": list("cabcab"),
                        "score": [3.0, 2, 1] * 2})
    frame = metrics.evaluate(qrels, {"r": run}, ["statAP", "xinfAP", "statNDCG", "infNDCG"],
                             prels=prels, se="linearised")
    per_topic = frame[frame["topic"] != "all"]
    assert per_topic["se"].tolist() == [0.0] * 8
    assert per_topic[per_topic["topic"] == "1"]["value"].gt(0).all()


def test_method_switch(tmp_path, capsys):
    r, _ = _case(3)
    measures = [parse("statAP"), parse("infNDCG")]
    linear = standard_errors(r, measures)  # read from the judged documents alone: the same
    for m in measures:
        np.testing.assert_allclose(linear[m], linearised_se(r, m), rtol=1e-12, atol=1e-15)
        assert linear[m].max() > 0
    booted = standard_errors(r, measures, method="bootstrap", replicates=50)
    assert all(not np.allclose(booted[m], linear[m]) for m in measures)
    with pytest.raises(UsageError, match="unknown standard-error method 'jackknife'"):
        standard_errors(r, measures, method="jackknife")
    from pooljudge.formats.trec import write_prels, write_qrels, write_run

    qrels = pd.DataFrame({"topic": "1", "doc": list("abcd"), "label": [1, 0, 1, -1]})
    prels = pd.DataFrame({"topic": "1", "doc": list("abcd"),
                          "label": pd.array([1, 0, 1, None], dtype="Int64"),
                          "stratum": 1, "inclusion": 0.75})
    write_qrels(qrels, tmp_path / "q")
    write_prels(prels, tmp_path / "p.tsv")
    write_run(pd.DataFrame({"topic": "1", "doc": list("abcd"), "score": [4.0, 3, 2, 1]}),
              tmp_path / "r")
    args = ["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "statAP", "--prels",
            str(tmp_path / "p.tsv"), "--format", "tsv", "--per-topic"]
    ses = {}
    for method in ("linearised", "bootstrap"):
        assert main([*args, "--se-method", method]) == 0
        ses[method] = capsys.readouterr().out.splitlines()[1].split("\t")[4]
    assert main([*args, "--se"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split("\t")[4] == ses["linearised"]
    assert ses["linearised"] != ses["bootstrap"]
