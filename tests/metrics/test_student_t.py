"""pooljudge.metrics.student_t: t quantiles for whole degrees of freedom against scipy's, and the
confidence intervals built on them importing no scipy."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pooljudge.metrics.student_t import t_quantile, t_quantiles
from scipy.special import stdtrit

LEVELS = [1e-4, 0.025, 0.05, 0.4, 0.51, 0.6, 0.75, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999, 0.9999]
DEGREES = [*range(1, 120), 199, 200, 499, 998, 999, 1000, 1001, 4999, 10_000, 123_456, 10**8]


@pytest.mark.parametrize("df", DEGREES)
def test_quantiles_agree_with_scipy(df):
    """Closed form + Newton below 1,000 degrees of freedom, Cornish-Fisher from there: every
    level within 1e-12 relative of scipy.special.stdtrit."""
    ours = np.array([t_quantile(p, df) for p in LEVELS])
    np.testing.assert_allclose(ours, stdtrit(df, np.array(LEVELS)), rtol=1e-12, atol=0)


@settings(max_examples=300, deadline=None)
@given(df=st.integers(1, 5000), p=st.floats(1e-4, 1 - 1e-4))
def test_any_level_and_degrees(df, p):
    expected = float(stdtrit(df, p))
    assert t_quantile(p, df) == pytest.approx(expected, rel=1e-12, abs=1e-13)


def test_exact_cases_and_symmetry():
    assert t_quantile(0.5, 7) == 0.0
    assert t_quantile(0.75, 1) == pytest.approx(1.0, rel=1e-15)  # Cauchy: tan(pi/4)
    assert t_quantile(0.975, 2) == pytest.approx(4.302652729749464, rel=1e-14)
    for df in (1, 2, 3, 10, 2000):
        assert t_quantile(0.1, df) == -t_quantile(0.9, df)


def test_many_degrees_at_once():
    df = np.array([[4, 9], [4, 1500]])
    np.testing.assert_array_equal(t_quantiles(0.975, df),
                                  [[t_quantile(0.975, 4), t_quantile(0.975, 9)],
                                   [t_quantile(0.975, 4), t_quantile(0.975, 1500)]])


@pytest.mark.parametrize(("p", "df"), [(0.0, 5), (1.0, 5), (-0.1, 5), (0.5, 0), (0.9, 2.5)])
def test_outside_the_domain_is_refused(p, df):
    with pytest.raises(ValueError):
        t_quantile(p, df)


@pytest.mark.parametrize("code", [
    "from pooljudge.metrics.uncertainty import mean_interval; mean_interval(np.arange(50.0))",
    "from pooljudge.metrics.groups import _t_interval; "
    "_t_interval(np.zeros(2), np.ones(2), np.array([3, 40]))",
])
def test_intervals_import_no_scipy(code):
    """Importing scipy for one quantile cost about 0.3 s of an ``eval --se`` process."""
    script = f"import sys, numpy as np; {code}; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"
