"""Expectations computed exactly, by enumerating every sample a design can draw, instead of by
simulation: the Horvitz–Thompson parts of the estimators are unbiased to the last bit, and no
estimator whatsoever of AP or nDCG from a fixed-size sample smaller than the pool is unbiased
(issue #16 asks for unbiasedness; this is why pooljudge reports the ratio estimators' measured
bias instead).

The impossibility, stated: under a design that always judges n of the N pooled documents, an
estimator's expectation Σ_S p(S) f(S, y_S) is, for every labelling y in {0,1}^N, a multilinear
polynomial in y of degree at most n (each term depends on n labels only). AP(y) = Σ_k y_k
prec@k / Σ y is a symmetric-denominator ratio whose multilinear form has a non-zero degree-N
coefficient, so no f makes the expectation equal AP for every y. The tests below solve the
linear system "expectation = measure for all 2^N labellings" in the values of f for every
(sample, labels) cell and find it inconsistent for AP and nDCG, consistent for P@k. (A design
whose sample size is random and can reach the whole pool, Poisson sampling say, does admit an
unbiased estimator: the Horvitz–Thompson estimate of each monomial of AP's multilinear form. Its
degree-d terms carry weights 1/π^d, about 10^7 at π = 0.2 and d = 10: useless in practice.)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

from pooljudge import metrics

POOL = 6  # documents a b c d e f, one topic, ranked in that order by the run (plus an unpooled x)
LABELS = [1, 0, 1, 1, 0, 1]  # the complete judgments of the pool
RUN = pd.DataFrame({"topic": "1", "doc": list("abcdefx"), "score": np.arange(7, 0, -1.0)})


def _estimates(sample: tuple[int, ...], inclusion: float) -> dict[str, float]:
    """The estimators on one sample: the sampled documents judged, the others pooled only."""
    label = pd.array([LABELS[i] if i in sample else None for i in range(POOL)], dtype="Int64")
    prels = pd.DataFrame({"topic": "1", "doc": list("abcdef"), "label": label,
                          "stratum": 1, "inclusion": inclusion})
    qrels = pd.DataFrame({"topic": "1", "doc": [list("abcdef")[i] for i in sample],
                          "label": [LABELS[i] for i in sample]})
    frame = metrics.evaluate(qrels, {"r": RUN}, ["statP@3", "statAP", "statNDCG@5"],
                             prels=prels, per_topic=False)
    return dict(zip(frame["measure"], frame["value"], strict=True))


def _exact() -> dict[str, float]:
    qrels = pd.DataFrame({"topic": "1", "doc": list("abcdef"), "label": LABELS})
    frame = metrics.evaluate(qrels, {"r": RUN}, ["P@3", "AP", "nDCG@5"], per_topic=False)
    return dict(zip(frame["measure"], frame["value"], strict=True))


@pytest.mark.parametrize("size", [2, 3, 5])
def test_every_sample_enumerated_horvitz_thompson_is_exactly_unbiased(size):
    """Simple random samples of ``size`` of the 6 pooled documents (π = size/6), every one of
    the C(6, size) samples: the mean of statPrec@3 equals P@3 to round-off; statAP and
    statNDCG@5 (ratios) do not equal AP and nDCG@5 (exact bias at sizes 2, 3, 5: statAP
    −0.229, −0.111, −0.022; statNDCG@5 +0.002, +0.013, −0.040)."""
    samples = list(itertools.combinations(range(POOL), size))
    values = pd.DataFrame([_estimates(s, size / POOL) for s in samples]).mean()
    exact = _exact()
    assert values["statPrec@3"] == pytest.approx(exact["P@3"], abs=1e-12)
    assert abs(values["statAP"] - exact["AP"]) > 1e-3
    assert abs(values["statNDCG@5"] - exact["nDCG@5"]) > 1e-3


def _ap(y: tuple[int, ...]) -> float:
    hits = np.cumsum(y)
    return float(np.sum(np.array(y) * hits / np.arange(1, len(y) + 1)) / max(hits[-1], 1))


def _ndcg(y: tuple[int, ...]) -> float:
    discount = 1.0 / np.log2(np.arange(2, len(y) + 2))
    ideal = np.sort(np.array(y))[::-1] @ discount
    return float(np.array(y) @ discount / ideal) if ideal else 0.0


def _p3(y: tuple[int, ...]) -> float:
    return sum(y[:3]) / 3


def _best_unbiased_residual(measure: Callable[[tuple[int, ...]], float], pool: int,
                            size: int) -> float:
    """Largest |E[f] − measure(y)| over all labellings y, for the least-squares best f on
    (sample, labels of the sample) under simple random sampling of ``size`` of ``pool``."""
    samples = list(itertools.combinations(range(pool), size))
    cell = {(s, p): i for i, (s, p) in enumerate(
        itertools.product(samples, itertools.product((0, 1), repeat=size)))}
    rows, target = [], []
    for y in itertools.product((0, 1), repeat=pool):
        row = np.zeros(len(cell))
        for s in samples:
            row[cell[s, tuple(y[i] for i in s)]] += 1.0 / len(samples)
        rows.append(row)
        target.append(measure(y))
    a, b = np.array(rows), np.array(target)
    solution = np.linalg.lstsq(a, b, rcond=None)[0]
    return float(np.abs(a @ solution - b).max())


@pytest.mark.parametrize(("name", "measure"), [("AP", _ap), ("nDCG", _ndcg)])
@pytest.mark.parametrize("size", [3, 4])
def test_no_estimator_of_a_ratio_measure_from_a_fixed_size_sample_is_unbiased(name, measure,
                                                                              size):
    """Judging ``size`` of 5 pooled documents: no function of the sample has expectation AP
    (or nDCG) for every labelling; the best one misses by more than 0.001 somewhere."""
    assert _best_unbiased_residual(measure, 5, size) > 1e-3, name


@pytest.mark.parametrize("size", [1, 3, 4])
def test_a_linear_measure_has_an_unbiased_estimator_at_any_sample_size(size):
    """The same system for P@3 (linear in the labels) is consistent: the check can tell."""
    assert _best_unbiased_residual(_p3, 5, size) < 1e-9
