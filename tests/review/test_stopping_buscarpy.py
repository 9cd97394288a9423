"""The hypergeometric p-value against buscarpy 0.0.2's ``calculate_h0`` (a test dependency).

Deliberate difference: when an urn cannot hold the relevant documents H0 needs (K_n > N_n,
H0 impossible), scipy returns NaN for that urn and buscarpy's built-in ``min`` returns NaN
when that urn comes first; pooljudge sets such p_n to 0 (H0 rejected with certainty).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from pooljudge.pooling.stopping import hypergeometric_p

buscarpy = pytest.importorskip("buscarpy")


def _impossible(labels: np.ndarray, n_docs: int, target: float) -> bool:
    """Whether some urn of the test is too small for H0 (the case buscarpy reports as NaN)."""
    m, r = len(labels), int(labels.sum())
    n = np.arange(1, m + 1)
    need = math.floor(r / target) + 1 - (r - np.cumsum(labels[::-1]))
    return bool((need > n_docs - (m - n)).any())


def _vectors(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        m = int(rng.integers(1, 300))
        n_docs = m + int(rng.integers(0, 300))
        labels = (rng.random(m) < rng.uniform(0.0, 0.5)).astype(np.int64)
        if rng.random() < 0.25:  # no relevant document left in the sample
            labels[-int(rng.integers(1, m + 1)):] = 0
        yield labels, n_docs, float(rng.choice([0.8, 0.9, 0.95, 0.99]))


def test_equals_buscarpy_on_generated_vectors() -> None:
    compared = impossible = 0
    for labels, n_docs, target in _vectors(0, 1500):
        ours = hypergeometric_p(labels, n_docs, target)
        theirs = buscarpy.calculate_h0(labels, n_docs, recall_target=target)
        if math.isnan(theirs):
            assert _impossible(labels, n_docs, target)
            assert ours == 0.0
            impossible += 1
            continue
        assert ours == pytest.approx(theirs, abs=1e-9)
        compared += 1
    assert compared > 1400 and impossible > 0


@pytest.mark.parametrize("labels", [
    [0, 0, 0, 0, 0],  # nothing relevant seen
    [1, 1, 1, 0, 0, 0, 0, 0],  # no relevant left in the sample
    [1, 0, 1, 1, 0, 1, 0, 0],
    [1] * 10,
])
@pytest.mark.parametrize("extra", [0, 1, 7, 500])  # 0: the sample is the whole remainder
def test_edge_cases_equal_buscarpy(labels: list[int], extra: int) -> None:
    arr = np.asarray(labels, dtype=np.int64)
    n_docs = len(arr) + extra
    theirs = buscarpy.calculate_h0(arr, n_docs)
    ours = hypergeometric_p(arr, n_docs)
    if math.isnan(theirs):
        assert _impossible(arr, n_docs, 0.95) and ours == 0.0
    else:
        assert ours == pytest.approx(theirs, abs=1e-9)


def test_whole_remainder_reviewed_rejects() -> None:
    """Everything reviewed: recall is 1, H0 impossible, p = 0 in both."""
    arr = np.array([1, 0, 0, 1, 0, 0, 0, 0], dtype=np.int64)
    assert hypergeometric_p(arr, len(arr)) == 0.0
    assert buscarpy.calculate_h0(arr, len(arr)) == 0.0
