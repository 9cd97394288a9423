r"""The standard errors of the estimators from sampled judgments: the delete-one (jackknife)
variance less its second-order surplus (Efron and Stein 1981; the chaos expansion of a function
of independent inclusion indicators).

For an estimator θ̂ of independent inclusions I_d ~ Bernoulli(π_d), Var θ̂ = Σ_d π_d(1 − π_d)
(E D_d)² + Σ_{d<e} π_d(1 − π_d) π_e(1 − π_e) (E D_de)² + …, where D_d is the change of θ̂ when
d leaves the sample and D_de the second difference. The delete-one variance
Σ_{d ∈ S} (1 − π_d) z_d² (Hájek's form, :func:`pooljudge.metrics.linearised.hajek_variance`)
estimates
Σ π_d(1 − π_d) E[D_d²], which counts every second-order term twice (Efron–Stein: a jackknife is
high on average). The surplus is estimated from the pairs of the sample, per topic t:

    U_t = Σ_{d<e ∈ S_t} (1 − π_d)(1 − π_e) Δ̃_de²,
    Δ_de = θ̂ − θ̂_(d) − θ̂_(e) + θ̂_(de) = θ̂_(de) − θ̂ + z_d + z_e,

θ̂_(de) the estimate without one unit of rows d and e (:mod:`pooljudge.metrics.pair_deletions`,
exact and
vectorised), over the rows of topic t with π < 1 in cells of two or more judged rows, and Δ̃ the
differences centred within cells with the weights (1 − π): under a fixed-size design
Σ_{d ∈ c} (I_d − π_d) = 0, so a difference that is a sum of one-row parts, Δ_de = a_d + a_e,
varies nothing. The SE² is the delete-one variance less U_t, kept between the first-order
(derivative) variance, which the chaos expansion says the variance exceeds, and the delete-one
variance. For xinfAP and infNDCG, whose deletion reweights the rest of the cell by
n_c/(n_c − 1), the influences are scaled by (n_c − 1)/n_c in the delete-one variance: the
stratified jackknife (JKn), exactly the stratified variance for a total (unscaled, it was
(n_c/(n_c − 1))² too large).

Which pairs: statAP's and statNDCG's pairs of judged relevant (positive-gain) rows, every other
pair having Δ_de = 0; xinfAP's and infNDCG's pairs holding at least one relevant (positive-gain)
row, the pairs of two non-relevant rows (Δ_de from the cell's rescaling and xinfAP's second
difference of f in q) left out: with every pair, xinfAP measured 1.01–1.26 instead of 1.03–1.26
and infNDCG 0.98–1.19 either way (20 draws), at 3–10 times the pairs. The centring is summed
in closed form, never as an n × n matrix:

    Σ_{d,e} w_d w_e Δ̃_de² = Σ w_d w_e Δ_de² − 2 Σ_{c,e} w_e u_ce² / W_c
                              + Σ_{c,c'} T_cc'² / (W_c W_c'),

w = 1 − π, W_c = Σ_{d ∈ c} w_d, u_ce = Σ_{d ∈ c} w_d Δ_de, T_cc' = Σ_{d ∈ c, e ∈ c'} w_d w_e Δ_de;
U_t is that sum less its diagonal, halved.

Measured on robust03 at a 20% budget (the mean SE² over the 500 draws of the real sampler
against the variance over them, per run, all 17 runs; in brackets the previous default, the
delete-one variance alone with xinfAP's and infNDCG's influences unscaled): under pps(prior=ap)
statAP 1.02–1.07 (1.11–1.25), statNDCG 1.00–1.05 (1.10–1.15); under strata(10:1.0,100:r)
statAP 1.09–1.16 (1.18–1.23), statNDCG 1.02–1.11 (1.10–1.20), xinfAP 1.06–1.13 (1.26–1.36),
infNDCG 0.99–1.10 (1.13–1.24). A mean over 20 draws alone is noisy (SE² is heavy-tailed): it
put a few runs at 1.26–1.32. A topic whose only relevant row of π < 1 is alone has no pair:
its delete-one variance stands.

Pairs are made topic by topic in chunks of at most :data:`PAIRS_PER_CHUNK`, so the memory stays
bounded whatever a topic's number of judged rows (the work grows with relevant × judged rows).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from pooljudge.metrics.estimators import sample_of
from pooljudge.metrics.join import Ranking
from pooljudge.metrics.linearised import gradient, hajek_variance, influence
from pooljudge.metrics.pair_deletions import PAIRS, Pairs
from pooljudge.metrics.prels import Prels
from pooljudge.metrics.registry import Measure

__all__ = ["PAIRS_PER_CHUNK", "delete_one_variance", "first_order_variance", "linearised_se",
           "pair_surplus", "pairs_by_topic"]

PAIRS_PER_CHUNK = 32_768  # 256 KB a float array: a chunk's temporaries stay in the L2 cache


def pairs_by_topic(topic: np.ndarray, anchor: np.ndarray | None = None,
                   limit: int = PAIRS_PER_CHUNK) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Chunks of position pairs (a, b), a < b, of the entries of ``topic`` (sorted) that share a
    topic, a being an ``anchor`` entry (all by default; sort each topic's anchors first to get
    every pair that holds one); each chunk holds the pairs of whole first positions, at most
    ``limit`` unless one position alone has more partners."""
    n = len(topic)
    if n < 2:
        return
    end = np.searchsorted(topic, topic, side="right")  # one past each entry's topic
    partners = end - np.arange(n) - 1
    if anchor is not None:
        partners = np.where(anchor, partners, 0)
    total = np.cumsum(partners)
    first = 0
    while first < n:
        last = max(int(np.searchsorted(total, (total[first - 1] if first else 0) + limit,
                                       side="right")), first + 1)
        counts = partners[first:last]
        a = np.repeat(np.arange(first, last), counts)
        starts = np.cumsum(counts) - counts
        b = a + 1 + np.arange(int(counts.sum())) - np.repeat(starts, counts)
        if len(a):
            yield a, b
        first = last


def pair_surplus(p: Prels, pairs: Pairs, z: np.ndarray) -> np.ndarray:
    """Per topic, U_t (module docstring) over the pairs of ``pairs.rows`` (prels rows that
    change θ̂) that hold an anchor row; ``z`` the per-row delete-one influences,
    ``pairs.theta`` the per-topic estimates and ``pairs.deleted_two(d, e)`` the estimates
    without rows d and e (arrays of prels rows, one topic per pair)."""
    theta, deleted_two = pairs.theta, pairs.deleted_two
    weighted = (p.judged & (p.inclusion < 1.0) & (p.weight > 0) & (p.topic >= 0)
                & (p.sampled[p.cell] > 1))  # a cell with one row adds 0 (its z is not used)
    w = np.where(weighted, (1.0 - p.inclusion) * p.weight, 0.0)
    kept = weighted[pairs.rows]
    rows, anchor = pairs.rows[kept], pairs.anchor[kept]
    order = np.lexsort((~anchor, p.topic[rows]))  # by topic, its anchors first
    rows, anchor = rows[order], anchor[order]
    cell_weight = p.per_cell(w)
    local, cell_at = _local_cells(p)  # a cell's index within its topic, and back
    width = cell_at.shape[1]
    squares = np.zeros(p.n_topics)
    u_dense = np.zeros(len(p.label) * width)  # u[row, local cell]
    t_dense = np.zeros(len(p.pooled) * width)  # T[cell, local cell]
    for a, b in pairs_by_topic(p.topic[rows], anchor, PAIRS_PER_CHUNK):
        d, e = rows[a], rows[b]
        with np.errstate(divide="ignore", invalid="ignore"):
            delta = deleted_two(d, e) - theta[p.topic[d]] + z[d] + z[e]
        both = w[d] * w[e] * delta
        squares += np.bincount(p.topic[d], weights=both * delta, minlength=p.n_topics)
        u_dense += np.bincount(np.concatenate((e * width + local[p.cell[d]],
                                               d * width + local[p.cell[e]])),
                               weights=np.concatenate((w[d] * delta, w[e] * delta)),
                               minlength=len(u_dense))
        t_dense += np.bincount(np.concatenate((p.cell[d] * width + local[p.cell[e]],
                                               p.cell[e] * width + local[p.cell[d]])),
                               weights=np.concatenate((both, both)), minlength=len(t_dense))
    u_key, t_key = np.flatnonzero(u_dense), np.flatnonzero(t_dense)
    if not len(u_key):
        return squares
    u, t = u_dense[u_key], t_dense[t_key]
    u_row = u_key // width
    u_cell = cell_at[p.topic[u_row], u_key % width]
    t_from = t_key // width
    t_to = cell_at[p.cell_topic[t_from], t_key % width]
    total = 2 * squares  # both orders of every pair
    total -= 2 * _by_topic(p, u_cell, w[u_row] * u ** 2 / cell_weight[u_cell])
    total += _by_topic(p, t_from, t ** 2 / (cell_weight[t_from] * cell_weight[t_to]))
    return np.maximum(total - _diagonal(p, w, cell_weight, u_row, u_cell, u, t_from, t_to, t),
                      0.0) / 2


def _local_cells(p: Prels) -> tuple[np.ndarray, np.ndarray]:
    """(per cell its index among its topic's cells, per topic and index the cell or -1)."""
    kept = np.flatnonzero(p.cell_topic >= 0)
    kept = kept[np.argsort(p.cell_topic[kept], kind="stable")]
    topic = p.cell_topic[kept]
    first = np.searchsorted(topic, topic)
    local = np.zeros(len(p.cell_topic), dtype=np.int64)
    local[kept] = np.arange(len(kept)) - first
    width = int(local.max()) + 1 if len(kept) else 1
    cell_at = np.full((p.n_topics, width), -1, dtype=np.int64)
    cell_at[topic, local[kept]] = kept
    return local, cell_at


def _by_topic(p: Prels, cell: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.bincount(p.cell_topic[cell], weights=values, minlength=p.n_topics)


def _diagonal(p: Prels, w: np.ndarray, cell_weight: np.ndarray, u_row: np.ndarray,
              u_cell: np.ndarray, u: np.ndarray, t_from: np.ndarray, t_to: np.ndarray,
              t: np.ndarray) -> np.ndarray:
    """Per topic, Σ_d w_d² Δ̃_dd² over the weighted rows: Δ̃_dd = T_cc/W_c² − 2 u_cd/W_c for
    row d of cell c (u_cd = 0 for a row in no pair)."""
    own = u_cell == p.cell[u_row]  # u of a row's own cell
    row, cell, mine = u_row[own], u_cell[own], u[own]
    same = t_from == t_to
    t_cell = np.zeros(len(cell_weight))
    t_cell[t_from[same]] = t[same]
    with np.errstate(divide="ignore", invalid="ignore"):
        level = np.where(cell_weight > 0, t_cell / cell_weight ** 2, 0.0)
        sq_weight = p.per_cell(w ** 2)
        # Σ_d w_d² (level_c − 2 u_d/W_c)²: the level for every row, then each pair row's share
        total = level ** 2 * sq_weight
        shift = w[row] ** 2 * (4 * mine ** 2 / cell_weight[cell] ** 2
                               - 4 * level[cell] * mine / cell_weight[cell])
    per_cell = total + np.bincount(cell, weights=shift, minlength=len(cell_weight))
    kept = p.cell_topic >= 0
    return np.bincount(p.cell_topic[kept], weights=per_cell[kept], minlength=p.n_topics)


def delete_one_variance(r: Ranking, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """(per topic Hájek's variance of the delete-one influences, per row the influences z):
    for xinfAP and infNDCG, whose deletion reweights the cell's other rows by n_c/(n_c − 1),
    the influences are scaled by (n_c − 1)/n_c in the variance (the stratified jackknife, JKn:
    exactly the stratified variance for a total); z is returned unscaled."""
    p = sample_of(r, m).prels
    z = np.where(p.judged & (p.weight > 0), influence(r, m), 0.0)
    scaled = z
    if m.name in ("xinfAP", "infNDCG"):
        n = p.sampled[p.cell]
        scaled = z * np.where(n > 1, (n - 1) / np.where(n > 1, n, 1.0), 0.0)
    return hajek_variance(p, scaled, r.n_topics), z


def first_order_variance(r: Ranking, m: Measure) -> np.ndarray:
    """Per topic, Hájek's variance of the derivatives ∂θ̂/∂w_d (:func:`gradient`)."""
    p = sample_of(r, m).prels
    return hajek_variance(p, np.where(p.judged & (p.weight > 0), gradient(r, m), 0.0),
                          r.n_topics)


def linearised_se(r: Ranking, m: Measure) -> np.ndarray:
    """Per topic, the SE of estimator ``m``: the delete-one variance
    (:func:`delete_one_variance`) less the pairs' surplus U_t (module docstring), kept between
    the first-order variance and the delete-one variance (statPrec@k, linear: the delete-one
    variance, its analytic one)."""
    variance, z = delete_one_variance(r, m)
    pairs = PAIRS.get(m.name)
    if pairs is None:
        return np.sqrt(variance)
    corrected = variance - pair_surplus(sample_of(r, m).prels, pairs(r, m), z)
    return np.sqrt(np.minimum(variance, np.maximum(corrected, first_order_variance(r, m))))
