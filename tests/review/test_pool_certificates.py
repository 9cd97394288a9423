"""Pool certificates (pure): the test and the estimate against the stopping module's own
functions, and the edge cases."""
from __future__ import annotations

import numpy as np
import pytest
from pooljudge.pooling.pool_certificates import certify_pool_topic
from pooljudge.pooling.stopping import hypergeometric_p, relevant_interval

from pooljudge.errors import UsageError


@pytest.mark.parametrize("seed", range(40))
def test_the_test_and_the_estimate_are_the_stopping_modules(seed):
    rng = np.random.default_rng(seed)
    pool = int(rng.integers(20, 3000))
    m = int(rng.integers(1, pool))
    labels = (rng.random(m) < np.linspace(0.6, 0.01, m)).astype(np.int64)
    target, alpha = float(rng.choice([0.8, 0.9, 0.95])), float(rng.choice([0.05, 0.1]))
    cert = certify_pool_topic("t", labels, pool, target=target, alpha=alpha)
    p = hypergeometric_p(labels, pool, target)
    assert cert.p_value == p and cert.certified == (p < alpha) and not cert.exhausted
    size = -(-m // 2)
    k = int(labels[m - size:].sum())
    estimate, low, high = relevant_interval(k, size, pool - (m - size), alpha)
    assert (cert.remaining, cert.remaining_low, cert.remaining_high) == (estimate - k, low - k,
                                                                          high - k)
    assert (cert.judged, cert.relevant_found, cert.pool) == (m, int(labels.sum()), pool)
    assert 0 <= cert.remaining_low <= cert.remaining <= cert.remaining_high


def test_a_long_dry_tail_certifies_and_a_short_one_does_not():
    found_then_dry = np.array([1] * 30 + [0] * 900)
    assert certify_pool_topic("t", found_then_dry, 1000).certified
    assert not certify_pool_topic("t", np.array([1] * 30 + [0] * 20), 1000).certified


def test_edges():
    nothing = certify_pool_topic("t", np.array([], dtype=np.int64), 10)
    assert (nothing.p_value, nothing.certified, nothing.remaining) == (1.0, False, None)
    everything = certify_pool_topic("t", np.array([1, 0, 0]), 3)
    assert everything.exhausted and everything.certified and everything.remaining == 0.0
    with pytest.raises(UsageError, match="4 pairs judged of a pool of 3"):
        certify_pool_topic("t", np.array([1, 0, 0, 0]), 3)
    with pytest.raises(UsageError, match="--target"):
        certify_pool_topic("t", np.array([1]), 3, target=1.0)
