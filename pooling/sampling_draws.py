"""The arithmetic of sampled pools: sample sizes, inclusion probabilities and seeded draws.

Everything works on flat arrays over all cells at once (a cell is a topic, or a topic's stratum);
there is no Python loop per pair, per cell or per topic.

- :func:`bounded_shares`: real shares proportional to weights within groups, each held between
  a lower and an upper bound, by the usual iterative rule (a share beyond a bound is fixed at
  the bound and the rest of the group's total is split again over the others).
- :func:`largest_remainder`: those shares rounded to integers that keep each group's total
  (Hamilton's method; ties of remainder go to the earlier cell, so the result is deterministic).
- :func:`draw_srs`: a simple random sample without replacement of ``size[c]`` of each cell's
  units (all orders of a cell equally likely; π = n_c / N_c).
- :func:`draw_systematic`: a fixed-size sample with unequal probabilities π_i (Σ π_i = n per
  group): units with π = 1 are taken, the others are put in a random order and sampled
  systematically from one uniform start (Goodman and Kish 1950; Hartley and Rao 1962).
"""

from __future__ import annotations

import numpy as np

__all__ = ["bounded_shares", "draw_srs", "draw_systematic", "largest_remainder", "within"]

_EPS = 1e-9


def within(group: np.ndarray) -> np.ndarray:
    """0-based position of each element among the elements of its group before it (the groups
    need not be contiguous)."""
    order = np.argsort(group, kind="stable")
    sorted_group = group[order]
    starts = np.r_[True, sorted_group[1:] != sorted_group[:-1]] if len(group) else np.zeros(
        0, dtype=bool)
    first = np.maximum.accumulate(np.where(starts, np.arange(len(group)), 0))
    position = np.empty(len(group), dtype=np.int64)
    position[order] = np.arange(len(group)) - first
    return position


def bounded_shares(weights: np.ndarray, group: np.ndarray, totals: np.ndarray,
                   low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Shares ``s_i = R_g · w_i / Σ_free w`` summing to ``totals[g]`` within each group g, with
    ``low_i <= s_i <= high_i``.

    Repeatedly: the free elements over their upper bound are fixed at it (first), else those
    under their lower bound are fixed at it, and the rest ``R_g`` of the group's total is split
    again over the free ones. Every round fixes at least one element, so it ends. With
    ``low = 0, high = 1`` and totals n this is the take-all rule of πps sampling (π_i = 1 for
    the units too heavy for n·w_i/Σw <= 1). The caller makes sure that
    ``Σ low <= totals <= Σ high`` in every group and that free weights are positive.
    """
    weights = np.asarray(weights, dtype=np.float64)
    size = len(totals)
    fixed = np.zeros(len(weights), dtype=bool)
    share = np.zeros(len(weights), dtype=np.float64)
    while True:
        free = ~fixed
        rest = totals - np.bincount(group[fixed], share[fixed], minlength=size)
        mass = np.bincount(group[free], weights[free], minlength=size)
        split = np.divide(rest[group] * weights, mass[group], out=np.zeros_like(weights),
                          where=free & (mass[group] > 0))
        share = np.where(free, split, share)
        for bound, beyond in ((high, share > high + _EPS), (low, share < low - _EPS)):
            beyond &= free
            if beyond.any():
                share[beyond] = bound[beyond]
                fixed |= beyond
                break
        else:
            return share


def largest_remainder(shares: np.ndarray, group: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Integers ``n_i`` with ``floor(s_i) <= n_i <= ceil(s_i)`` and ``Σ_g n_i = totals[g]``: the
    floors, plus one for the ``totals[g] - Σ floor`` largest remainders of each group (ties to
    the earlier element). ``totals`` are integers equal to the groups' sums of shares."""
    base = np.floor(shares + _EPS)
    missing = np.asarray(totals) - np.bincount(group, base, minlength=len(totals))
    remainder = shares - base
    order = np.lexsort((np.arange(len(shares)), -remainder, group))
    rank = np.empty(len(shares), dtype=np.int64)
    rank[order] = within(group[order])
    return (base + (rank < np.rint(missing)[group])).astype(np.int64)


def draw_srs(cell: np.ndarray, size: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A simple random sample without replacement of ``size[c]`` units of every cell ``c``:
    the units of a cell are sorted by independent uniform keys and the first ``size[c]`` are
    taken. Returns the boolean mask of the sampled units."""
    keys = rng.random(len(cell))
    order = np.lexsort((keys, cell))
    taken = np.zeros(len(cell), dtype=bool)
    taken[order] = within(cell[order]) < size[cell[order]]
    return taken


def draw_systematic(group: np.ndarray, inclusion: np.ndarray, n_groups: int,
                    rng: np.random.Generator) -> np.ndarray:
    """A fixed-size sample with first-order inclusion probabilities exactly ``inclusion``.

    Units with π = 1 are taken. The others of each group g are put in a uniformly random order;
    with ``C_i`` the cumulative sum of their π in that order (``C_0 = 0``, the last set to the
    integer m_g = Σ π exactly) and one start ``u_g ~ U[0, 1)``, unit i is taken when an integer
    j has ``C_{i-1} <= u_g + j < C_i``, i.e. when ``ceil(C_i - u) > ceil(C_{i-1} - u)``. Each
    unit's interval has length π_i <= 1 and u is uniform, so P(i taken) = π_i whatever the order;
    exactly m_g units are taken. The random order makes every pair's joint probability depend
    on the whole group rather than on neighbours in a fixed list (second-order probabilities
    are not computed: estimators use first-order ones). Returns the boolean mask.
    """
    certain = inclusion >= 1.0
    keys = rng.random(len(group))
    starts = rng.random(n_groups)
    taken = certain.copy()
    rows = np.flatnonzero(~certain)
    if len(rows) == 0:
        return taken
    rows = rows[np.lexsort((keys[rows], group[rows]))]
    g, pi = group[rows], inclusion[rows]
    total = np.cumsum(pi)
    first = np.r_[True, g[1:] != g[:-1]]
    last = np.r_[g[1:] != g[:-1], True]
    offset = np.repeat(total[first] - pi[first], np.diff(np.r_[np.flatnonzero(first), len(g)]))
    end = total - offset
    target = np.rint(end[last])
    end = np.minimum(end, np.repeat(target, np.diff(np.r_[np.flatnonzero(first), len(g)])))
    end[last] = target
    begin = np.r_[0.0, end[:-1]]
    begin[first] = 0.0
    u = starts[g]
    taken[rows] = np.ceil(end - u) > np.ceil(begin - u)
    return taken
