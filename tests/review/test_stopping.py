"""Stopping rules: hand-computed cases and scipy.stats.hypergeom as the oracle."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pooljudge.pooling.stopping import hypergeometric_p, knee_stop, target_sample_size
from scipy.stats import hypergeom

from pooljudge.errors import UsageError


def brute_force_p(labels: list[int], n_docs: int, target: float) -> float:
    """Callaghan & Müller-Hansen's p, one sample size at a time, straight from the paper."""
    r, m, best = sum(labels), len(labels), 1.0
    for n in range(1, m + 1):
        k = sum(labels[m - n:])
        urn = n_docs - (m - n)
        need = math.floor(r / target) + 1 - (r - k)
        p = 0.0 if need > urn else hypergeom.cdf(k, urn, need, n)
        best = min(best, p)
    return best


def test_hand_computed_case():
    # 10 documents, 4 judged: 1 1 0 0; target 0.5. r = 2: H0 needs a total >= floor(2/0.5)+1 = 5,
    # so K_n = 5 - (relevant seen before the last n) relevant in an urn of 10 - (4 - n).
    # n=1: urn 7, K 3, 1 draw, 0 relevant: C(4,1)/C(7,1) = 4/7
    # n=2: urn 8, K 3, 2 draws, 0 relevant: C(5,2)/C(8,2) = 10/28
    # n=3: urn 9, K 4, 3 draws, <= 1 relevant: [C(5,3) + C(4,1)C(5,2)]/C(9,3) = 50/84
    # n=4: urn 10, K 5, 4 draws, <= 2 relevant: [C(5,4) + 5 C(5,3) + C(5,2)^2]/C(10,4) = 155/210
    expected = min(4 / 7, 10 / 28, 50 / 84, 155 / 210)
    assert hypergeometric_p(np.array([1, 1, 0, 0]), 10, 0.5) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_equals_scipy_oracle_on_generated_sequences(seed):
    rng = np.random.default_rng(seed)
    n_docs = int(rng.integers(5, 400))
    m = int(rng.integers(1, n_docs + 1))
    labels = (rng.random(m) < rng.uniform(0, 0.6) * np.linspace(1, 0, m)).astype(int).tolist()
    target = float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99]))
    got = hypergeometric_p(np.array(labels), n_docs, target)
    assert got == pytest.approx(brute_force_p(labels, n_docs, target), abs=1e-9)


def test_edges():
    assert hypergeometric_p(np.array([], dtype=int), 10) == 1.0
    # the sample is the whole remainder: with the last document as the sample (an urn of 1),
    # H0 needs floor(1/0.95)+1-1 = 1 relevant in it, and it was not relevant -> p = 0
    assert hypergeometric_p(np.array([1, 0, 0]), 3, 0.95) == 0.0
    # no relevant seen, long run of non-relevant: small p but not zero
    p = hypergeometric_p(np.zeros(50, dtype=int), 100, 0.95)
    assert 0.0 < p == pytest.approx(hypergeom.cdf(0, 100, 1, 50))
    # a relevant document just found keeps p high
    assert hypergeometric_p(np.array([0] * 5 + [1]), 1000, 0.95) > 0.5
    with pytest.raises(UsageError):
        hypergeometric_p(np.ones(5, dtype=int), 4)


def test_p_falls_as_non_relevant_accumulate():
    base = [1] * 20
    ps = [hypergeometric_p(np.array(base + [0] * z), 2000, 0.95) for z in (10, 100, 400)]
    assert ps[0] > ps[1] > ps[2]


@pytest.mark.parametrize(("target", "alpha", "t"), [(0.95, 0.05, 59), (0.9, 0.05, 29),
                                                     (0.5, 0.25, 2), (0.5, 0.5, 1),
                                                     (0.7, 0.1, 7)])
def test_target_sample_size(target, alpha, t):
    # t is the least integer with target**t <= alpha
    assert target**t <= alpha < target ** (t - 1)
    assert target_sample_size(target, alpha) == t


def test_target_rejects_levels():
    with pytest.raises(UsageError, match="--target"):
        target_sample_size(1.0, 0.05)
    with pytest.raises(UsageError, match="--alpha"):
        target_sample_size(0.9, 0.0)


def test_knee():
    steep = np.array([1] * 30 + [0] * 300)  # all relevant early, then a long flat tail
    assert knee_stop(steep)
    assert not knee_stop(steep[:149])  # before rank 150
    assert not knee_stop(np.zeros(400, dtype=int))  # nothing relevant
    flat = (np.arange(400) % 5 == 0).astype(int)  # steady gain: no knee
    assert not knee_stop(flat)
    # hand-computed: 10 relevant then 140 non-relevant: knee at 10, ratio (10/10)/(1/140)=140
    # >= 156 - 10 = 146? no; with 146 after the knee: 146 >= 146 -> stop
    assert not knee_stop(np.array([1] * 10 + [0] * 140))
    assert knee_stop(np.array([1] * 10 + [0] * 146))
