"""The hypergeometric test restricted to a random sample's windows, and the exact interval of
the relevant documents in an urn (the review certificates' estimate), against brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pooljudge.pooling.stopping import hypergeometric_p, relevant_interval
from scipy.stats import hypergeom

from pooljudge.errors import UsageError


def brute_window_p(labels: list[int], n_docs: int, target: float, window: int) -> float:
    r, m, best = sum(labels), len(labels), 1.0
    for n in range(1, min(window, m) + 1):
        k = sum(labels[m - n:])
        urn = n_docs - (m - n)
        need = math.floor(r / target) + 1 - (r - k)
        best = min(best, 0.0 if need > urn else hypergeom.cdf(k, urn, need, n))
    return best


@pytest.mark.parametrize("seed", range(25))
def test_window_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_docs = int(rng.integers(5, 300))
    m = int(rng.integers(1, n_docs + 1))
    labels = (rng.random(m) < 0.2).astype(int).tolist()
    window = int(rng.integers(0, m + 2))
    got = hypergeometric_p(np.array(labels), n_docs, 0.9, window=window)
    assert got == pytest.approx(brute_window_p(labels, n_docs, 0.9, window), abs=1e-12)


def test_window_edges():
    labels = np.array([1, 1, 0, 0])
    assert hypergeometric_p(labels, 10, 0.5, window=0) == 1.0
    assert hypergeometric_p(labels, 10, 0.5, window=4) == hypergeometric_p(labels, 10, 0.5)
    assert hypergeometric_p(labels, 10, 0.5, window=1) == pytest.approx(4 / 7, abs=1e-12)


def brute_interval(found: int, size: int, urn: int, alpha: float) -> tuple[int, int]:
    ks = [k for k in range(urn + 1)
          if k >= found and urn - k >= size - found
          and hypergeom.sf(found - 1, urn, k, size) > alpha / 2
          and hypergeom.cdf(found, urn, k, size) > alpha / 2]
    return min(ks), max(ks)


@pytest.mark.parametrize(("found", "size", "urn"), [(0, 10, 50), (3, 10, 50), (10, 10, 50),
                                                     (2, 50, 1000), (0, 1, 1), (1, 1, 3)])
def test_interval_equals_brute_force(found, size, urn):
    estimate, low, high = relevant_interval(found, size, urn, 0.05)
    assert estimate == found * urn / size
    assert (low, high) == brute_interval(found, size, urn, 0.05)


def test_interval_edges():
    assert relevant_interval(4, 20, 20, 0.05) == (4.0, 4, 4)  # the whole urn drawn
    estimate, low, high = relevant_interval(0, 0, 30, 0.05)
    assert math.isnan(estimate) and (low, high) == (0, 30)
    # hand-computed: urn 10, 5 drawn, none relevant. K = 3: P(X = 0) = C(7,5)/C(10,5) =
    # 21/252 = 0.083 > 0.025, K = 4: C(6,5)/C(10,5) = 6/252 = 0.024 <= 0.025 -> high 3
    assert relevant_interval(0, 5, 10, 0.05) == (0.0, 0, 3)
    with pytest.raises(UsageError):
        relevant_interval(3, 2, 10, 0.05)
