"""Student's t quantiles for whole degrees of freedom, without importing scipy.

A confidence interval of a mean over n topics needs one quantile, t(p; n - 1), computed here
(scipy is not imported for it: docs/performance.md) from the closed form of the t distribution
for a whole number of degrees of freedom (Abramowitz and Stegun 26.7.3-4), with
θ = atan(t / √ν) and c = cos²θ = ν / (ν + t²):

- ν odd:  P(|T| <= t) = (2/π) (θ + sinθ cosθ Σ_{k<(ν-1)/2} a_k c^k),
  a_0 = 1, a_k = a_{k-1} 2k/(2k+1) (for ν = 1 the sum is empty: the Cauchy distribution);
- ν even: P(|T| <= t) = sinθ Σ_{k<ν/2} b_k c^k,  b_0 = 1, b_k = b_{k-1} (2k-1)/(2k).

Every term is positive, so the sums lose no precision. The quantile solves
P(|T| <= t) = 2p - 1 by Newton's method from the normal quantile, which lies below the root for
p > 1/2; the function is concave there, so every step stays below the root and the iterates
rise to it, until a small step no longer shrinks (rounding). From ν = 1,000 on (a sum of 500
terms) the Cornish-Fisher expansion of t in z, the normal quantile, to order ν^-4 is used instead
(Abramowitz and Stegun 26.7.5; its error, of order z^11/ν^5, is below 1e-13 there for
p <= 0.9999). Agrees with ``scipy.special.stdtrit`` to 1e-12 relative for 1 - 1e-4 >= p >= 1e-4
(tested); in the far tails the sums' rounding makes it less exact.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

__all__ = ["t_quantile", "t_quantiles"]

_MAX_STEPS = 100
_EXPANDED_FROM = 1_000


def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with ``df`` (a whole number >= 1) degrees of freedom, for
    0 < p < 1; t(1 - p) = -t(p) and t(1/2) = 0. ValueError outside those ranges."""
    if df != int(df) or df < 1:
        raise ValueError(f"degrees of freedom must be a whole number >= 1, not {df}")
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must lie strictly between 0 and 1, not {p}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    df = int(df)
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    if df >= _EXPANDED_FROM:
        return _cornish_fisher(NormalDist().inv_cdf(p), df)
    return _newton(2 * p - 1, df)


def t_quantiles(p: float, df: np.ndarray) -> np.ndarray:
    """:func:`t_quantile` of each whole ``df`` (computed once per distinct value)."""
    df = np.asarray(df)
    distinct, where = np.unique(df, return_inverse=True)
    values = np.array([t_quantile(p, int(v)) for v in distinct], dtype=np.float64)
    return values[where].reshape(df.shape)


def _newton(target: float, df: int) -> float:
    """The t >= 0 with P(|T| <= t) = ``target`` (df >= 3)."""
    coefficients = _series(df)
    log_scale = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    t, last = NormalDist().inv_cdf((1 + target) / 2), math.inf
    for _ in range(_MAX_STEPS):
        density = 2 * math.exp(log_scale - (df + 1) / 2 * math.log1p(t * t / df))
        step = (target - _central(t, df, coefficients)) / density
        if abs(step) < 1e-9 * t and abs(step) >= last:  # rounding noise: converged
            break
        t, last = t + step, abs(step)
    return t


def _cornish_fisher(z: float, df: int) -> float:
    """t = z + g1/ν + g2/ν² + g3/ν³ + g4/ν⁴ (Abramowitz and Stegun 26.7.5)."""
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df


def _series(df: int) -> np.ndarray:
    """The coefficients a_k (ν odd) or b_k (ν even) of the module docstring, lowest first."""
    k = np.arange(1, (df - 1) // 2 if df % 2 else df // 2, dtype=np.float64)
    ratios = 2 * k / (2 * k + 1) if df % 2 else (2 * k - 1) / (2 * k)
    return np.concatenate(([1.0], np.cumprod(ratios)))


def _central(t: float, df: int, coefficients: np.ndarray) -> float:
    """P(|T| <= t) for t >= 0 by the closed form of the module docstring."""
    theta = math.atan(t / math.sqrt(df))
    c = df / (df + t * t)
    total = float(np.polynomial.polynomial.polyval(c, coefficients))
    if df % 2:
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)
    return math.sin(theta) * total
