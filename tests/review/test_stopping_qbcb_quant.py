"""QBCB's quota against the binomial law summed exactly, and Quant / QuantCI against tarexp's
``QuantStoppingRule`` (tarexp 0.1.4, a test dependency) on the same probabilities."""
from __future__ import annotations

from fractions import Fraction
from math import comb
from types import SimpleNamespace

import numpy as np
import pytest
from pooljudge.pooling.stopping import (
    QUANTCI_STD,
    qbcb_positives,
    qbcb_quota,
    quant_recall,
    target_sample_size,
)

from pooljudge.errors import UsageError

stopping = pytest.importorskip("tarexp.component.stopping")


def _upper_tail(r: int, j: int, target: Fraction) -> Fraction:
    """P(Binomial(r, target) >= j), exactly."""
    return sum((comb(r, i) * target**i * (1 - target) ** (r - i) for i in range(j, r + 1)),
               Fraction(0))


@pytest.mark.parametrize(("target", "alpha"), [("0.95", "0.05"), ("0.8", "0.05"),
                                               ("0.9", "0.1"), ("0.7", "0.01")])
@pytest.mark.parametrize("r", [1, 5, 14, 22, 30, 59, 60, 93, 120])
def test_qbcb_quota_is_the_smallest_j_the_binomial_allows(r, target, alpha):
    t, a = Fraction(target), Fraction(alpha)
    allowed = [j for j in range(1, r + 1) if _upper_tail(r, j, t) <= a]
    assert qbcb_quota(r, float(target), float(alpha)) == (allowed[0] if allowed else None)


@pytest.mark.parametrize(("target", "alpha"), [(0.95, 0.05), (0.8, 0.05), (0.9, 0.1)])
def test_the_target_method_is_qbcb_with_j_equal_r(target, alpha):
    t = target_sample_size(target, alpha)
    assert qbcb_quota(t, target, alpha) == t
    assert qbcb_quota(t - 1, target, alpha) is None


@pytest.mark.parametrize(("target", "alpha"), [(0.95, 0.05), (0.8, 0.05), (0.9, 0.1)])
def test_qbcb_default_sample_is_the_fewest_that_allows_one_miss(target, alpha):
    r = qbcb_positives(target, alpha)
    assert qbcb_quota(r, target, alpha) <= r - 1
    assert qbcb_quota(r - 1, target, alpha) in (None, r - 1)


def test_qbcb_default_at_95_per_cent():
    assert qbcb_positives(0.95, 0.05) == 93 and qbcb_quota(93, 0.95, 0.05) == 92


def test_qbcb_refuses_an_empty_sample():
    with pytest.raises(UsageError, match="at least one"):
        qbcb_quota(0, 0.9, 0.05)


def _tarexp_stops(probabilities, reviewed, target, nstd) -> bool:
    ledger = SimpleNamespace(n_rounds=3, annotated=reviewed)
    workflow = SimpleNamespace(latest_scores=probabilities)
    rule = stopping.QuantStoppingRule(target_recall=target, nstd=nstd)
    return bool(rule.checkStopping(ledger, workflow))


@pytest.mark.parametrize("nstd", [0.0, QUANTCI_STD])
def test_quant_recall_equals_tarexps_rule(nstd):
    """tarexp answers "estimate >= target"; ours gives the estimate: tarexp must say yes just
    below it and no just above it, on 200 generated score vectors."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(5, 3000))
        probabilities = rng.beta(rng.uniform(0.1, 2), rng.uniform(0.5, 20), n)
        reviewed = rng.random(n) < rng.uniform(0.05, 0.95)
        estimate = quant_recall(probabilities, reviewed, nstd)
        assert _tarexp_stops(probabilities, reviewed, estimate - 1e-9, nstd)
        assert not _tarexp_stops(probabilities, reviewed, estimate + 1e-9, nstd)


def test_quant_edges():
    p = np.array([0.9, 0.5, 0.0])
    assert quant_recall(p, np.array([True, True, True])) == 1.0
    assert quant_recall(p, np.array([False, False, False])) == 0.0
    assert quant_recall(np.zeros(3), np.array([True, False, False])) == 0.0  # no mass at all
    assert quant_recall(p, np.array([True, False, False]), QUANTCI_STD) < 0.9 / 1.4
