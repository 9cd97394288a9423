r"""Linearised standard errors of the estimators from sampled judgments
(:mod:`pooljudge.metrics.estimators`; Deville 1999; Särndal, Swensson and Wretman 1992, ch. 5).

Every estimator is a function θ̂(w) of the weights w_d of the judged prels rows (1 for a judged
row: :mod:`pooljudge.metrics.prels`). Its variance is Hájek's variance of a fixed-size πps sample
applied
to a linearised variable t_d = z_d of the judged rows (:func:`hajek_variance`), per (topic,
stratum) cell, summed over the topic's cells. Edge cases: a cell with one judged row adds 0;
rows of π = 1 add 0 (in every sample; a cell judged whole under a fixed-size design has π = 1
throughout); a topic with D̂ = 0 (no relevant document, or ideal DCG 0) has SE 0. The SE in
use (:func:`pooljudge.metrics.second_order.linearised_se`) is this delete-one variance less the
surplus
its pairs measure (Efron–Stein), for xinfAP and infNDCG with z scaled to the stratified
jackknife.

**z_d, the delete-one influence** (:func:`influence`, the one used): z_d = θ̂(w) − θ̂(w − e_d),
the change of the estimate without one unit of row d, computed exactly and vectorised (the
jackknife's pseudo-difference; Efron–Stein: conservative on average). For statPrec@k, linear in
w, it is y_d/π_d: exactly its analytic SE. Per judged row d of cell c (N_c pooled, n_c judged),
rank r_d (rows the run did not rank change only the denominator):

- **statAP**: N̂ and R̂ are linear in each w_d, so N̂' = N̂ − ∂N̂/∂w_d, R̂' = R̂ − ∂R̂/∂w_d
  (below).
- **statNDCG**: DĈG' = DĈG − g_d/(π_d log2(r_d + 1)) (d in the top k); the count of d's gain
  level C_l loses 1/π_d and is rounded again for the ideal DCG.
- **infNDCG**: cell c's scale N_c/n_c becomes N_c/(n_c − 1): DĈG' = DĈG + P_c/(n_c − 1)
  − N_c g_d/((n_c − 1) log2(r_d + 1)), P_c the cell's part of DĈG; every level's count
  C_l' = C_l + Q_{c,l}/(n_c − 1) − N_c [g_d = l]/(n_c − 1), Q_{c,l} the cell's part.
- **xinfAP**: N̂' = N̂ + S_c/(n_c − 1) − N_c rel_d E_d/(n_c − 1) + Σ_{k below d} s_k ΔE_k
  (1 + [k ∈ c]/(n_c − 1)), S_c the cell's part of N̂, s_k = w_k/p_{c(k)},
  ΔE_k = (A_c(k)/r_k)(f(r − 1, q) − f(r, q)) for a relevant d (f(r, q − 1) for a non-relevant
  one), f = (r + ε)/(r + q + 2ε) over the counts above k in d's stratum (rank 1: E = 1, no
  term); R̂' = R̂ + R̂_c/(n_c − 1) − N_c rel_d/(n_c − 1).

**z_d = ∂θ̂/∂w_d, the gradient** (:func:`gradient`, first-order Taylor; kept as the reference):
for a ratio θ̂ = N̂/D̂, z_d = (∂N̂/∂w_d − θ̂ ∂D̂/∂w_d)/D̂.

- **statAP**: g_k = w_k rel_k/π_k, A_d = Σ_{j above d} g_j; ∂N̂/∂w_d = (rel_d/π_d)
  [(1 + A_d)/r_d + Σ_{k below d} g_k/r_k] (a reverse cumulative sum within the topic),
  ∂R̂/∂w_d = rel_d/π_d for every judged relevant row, ranked or not.
- **xinfAP**: ∂N̂/∂w_d = rel_d E_d/p_c + Σ_{k below d} s_k (A_c(k)/r_k) ∂f_c(k)/∂w_d
  − (1/n_c) Σ_{k ∈ c} s_k E_k, ∂f/∂r = (q + ε)/D², ∂f/∂q = −(r + ε)/D², D = r + q + 2ε;
  ∂R̂/∂w_d = rel_d/p_c − R̂_c/n_c.
- **statNDCG**, **infNDCG**: ∂DĈG/∂w_d = g_d/(s_d log2(r_d + 1)) for d in the top k, s_d = π_d
  (stat) or p_c (inf, less (1/n_c) P_c). The ideal DCG reads rounded counts: its derivative is
  the finite difference Δ_l = IDCG(C + e_l) − IDCG(C) per topic and level, times
  ∂C_l/∂w_d = [g_d = l]/s_d (inf: less Q_{c,l}/n_c).

Why the influence and not the gradient: measured on robust03 at a 20% budget (500 draws), the
gradient's variance is 0.27–0.6 of the draws' for the ratio estimators (it is kept as the
corrected variance's floor): the denominators R̂ and IDĈG vary by 30–70% per topic, and one
judged relevant document of π ≈ 0.09 moves R̂ by 11; the derivative at the sample misses most
of that step, the one-unit difference takes it whole.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple, TypeVar

import numpy as np
from pooljudge.metrics.estimators import (
    Sample,
    _running,
    ideal_dcg,
    ideal_table,
    inferred_ndcg_inputs,
    pooled_above,
    prels_of,
    sample_of,
    stat_ndcg_inputs,
)
from pooljudge.metrics.gains import gain_of
from pooljudge.metrics.join import Ranking
from pooljudge.metrics.prels import Prels
from pooljudge.metrics.ranked import safe_divide
from pooljudge.metrics.registry import Measure
from pooljudge.metrics.sampled import INFAP_EPSILON

__all__ = ["GRADIENTS", "INFLUENCES", "NdcgPieces", "gradient", "hajek_variance", "influence",
           "ndcg_parts", "ndcg_pieces"]


def hajek_variance(p: Prels, t: np.ndarray, n_topics: int) -> np.ndarray:
    """Per topic, Σ over its cells of Hájek's variance of a fixed-size πps sample of the row
    values ``t``: v_c = n_c/(n_c − 1) Σ_{d ∈ S_c} (1 − π_d)(t_d − Â_c)², Â_c = Σ (1 − π_d) t_d
    / Σ (1 − π_d), over the judged rows of π < 1 (weights as multiplicities); 0 for n_c <= 1."""
    rows = p.cached("hajek_rows", lambda: np.flatnonzero(  # rows of weight 0 add exactly 0
        p.judged & (p.inclusion < 1.0) & (p.weight != 0)))  # π = 1: in every sample
    cell, weight, t = p.cell[rows], p.weight[rows], t[rows]
    c = 1.0 - p.inclusion[rows]  # the (1 - π_i) of Hájek's formula

    def per_cell(values: np.ndarray) -> np.ndarray:
        return np.bincount(cell, weights=values, minlength=len(p.pooled))

    n = per_cell(weight)
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = np.where(n > 0, per_cell(weight * c * t) / per_cell(weight * c), 0.0)
        centre = np.nan_to_num(centre)
        spread = per_cell(weight * c * (t - centre[cell]) ** 2)
        variance = np.where(n > 1, n / (n - 1) * spread, 0.0)
    kept = p.cell_topic >= 0
    return np.bincount(p.cell_topic[kept], weights=np.maximum(variance[kept], 0.0),
                       minlength=n_topics)


T = TypeVar("T")


def _kept(parts: Callable[[Ranking, Measure], T]) -> Callable[[Ranking, Measure], T]:
    """``parts(r, m)`` computed once per ranking, measure and prels: the influences, the
    gradients and the pair deletions (:mod:`pooljudge.metrics.pair_deletions`) of one SE share
    them."""
    @functools.wraps(parts)
    def kept(r: Ranking, m: Measure) -> T:
        prels, value = r._cached((parts.__name__, m, id(r.prels)), lambda: (r.prels, parts(r, m)))
        return value if prels is r.prels else parts(r, m)

    return kept


def gradient(r: Ranking, m: Measure) -> np.ndarray:
    """Per prels row, ∂θ̂/∂w_d of estimator ``m`` at the observed weights (0 for rows of topics
    the qrels lack)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return GRADIENTS[m.name](r, m)


def _rows(r: Ranking, values: np.ndarray) -> np.ndarray:
    """Per prels row, the sum of ``values`` (over ranked documents) of the documents on it."""
    p, row = prels_of(r)
    inside = row >= 0
    return np.bincount(row[inside], weights=values[inside], minlength=len(p.label))


def _below(r: Ranking, values: np.ndarray) -> np.ndarray:
    """Per ranked document, the sum of ``values`` strictly below it within its topic."""
    return r.per_topic(values)[r.topic] - _running(r, values)


def _ratio(p: Prels, num: np.ndarray, den: np.ndarray, d_num: np.ndarray, d_den: np.ndarray
           ) -> np.ndarray:
    """Per row, ∂(N̂/D̂)/∂w = (∂N̂ − θ̂ ∂D̂)/D̂ of its topic (0 where D̂ = 0 or no topic)."""
    theta = safe_divide(num, den)
    topic = np.maximum(p.topic, 0)
    ok = (p.topic >= 0) & (den[topic] > 0)
    return np.where(ok, (d_num - theta[topic] * d_den) / np.where(ok, den[topic], 1.0), 0.0)


def stat_precision_gradient(r: Ranking, m: Measure) -> np.ndarray:
    """statPrec@k: ∂θ̂/∂w_d = rel_d [d in the top k] / (k π_d)."""
    s = sample_of(r, m)
    top = np.where(s.label >= m["rel"], r.top(m.k) / m.cutoff, 0.0)
    return _rows(r, top) / s.prels.inclusion


@_kept
def _stat_ap_parts(r: Ranking, m: Measure
                   ) -> tuple[Prels, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """statAP's prels, per-topic N̂ and R̂, and per prels row ∂N̂/∂w_d and ∂R̂/∂w_d."""
    s = sample_of(r, m)
    p, rel = s.prels, m["rel"]
    inverse = np.where(s.label >= rel, 1.0 / s.inclusion, 0.0)
    y = s.weight * inverse
    above = _running(r, y) - y
    d_num = _rows(r, inverse * ((1.0 + above) / r.rank + _below(r, y / r.rank)))
    relevant = np.where(p.judged & (p.label >= rel) & (p.weight > 0), 1.0 / p.inclusion, 0.0)
    num, den = r.per_topic(y * (1.0 + above) / r.rank), p.per_topic(relevant * p.weight)
    return p, num, den, d_num, relevant


def stat_ap_gradient(r: Ranking, m: Measure) -> np.ndarray:
    """statAP (module docstring)."""
    p, num, den, d_num, relevant = _stat_ap_parts(r, m)
    return _ratio(p, num, den, d_num, relevant)


@_kept
def _xinf_parts(r: Ranking, m: Measure) -> tuple:
    """xinfAP's sample, prels, rel, per ranked row: judged, relevant, prels row (0 outside the
    pool), in the pool, stratum (0 outside), the cells' sampled fractions, w_d/p_c(d) for the
    judged relevant (scale) and scale/rank below rank 1 (coef)."""
    s = sample_of(r, m)
    p, rel = s.prels, m["rel"]
    judged = s.weight > 0
    relevant = judged & (s.label >= rel)
    at, pooled = np.maximum(s.row, 0), s.row >= 0
    stratum = np.where(pooled, p.stratum[at], 0)
    fraction = p.cell_fraction()
    scale = np.where(relevant, s.weight / fraction[at], 0.0)
    coef = np.where(r.rank > 1, scale / r.rank, 0.0)
    return s, p, rel, judged, relevant, at, pooled, stratum, fraction, scale, coef


@_kept
def _stratum_counts(r: Ranking, m: Measure) -> list[tuple[np.ndarray, ...]]:
    """xinfAP's per stratum L: its ranked rows (inside), the pooled documents of L above each
    rank, and the judged relevant (r_L) and non-relevant (q_L) weights above each rank."""
    s, p, _, judged, relevant, _, _, stratum, _, _, _ = _xinf_parts(r, m)

    def counts(level: int) -> tuple[np.ndarray, ...]:
        inside = stratum == level
        rel_w = np.where(inside & relevant, s.weight, 0.0)
        non_w = np.where(inside & judged & ~relevant, s.weight, 0.0)
        return (inside, pooled_above(r, level), _running(r, rel_w) - rel_w,
                _running(r, non_w) - non_w)

    return [counts(level) for level in p.cached("strata", lambda: np.unique(p.stratum))]


def inferred_ap_gradient(r: Ranking, m: Measure) -> np.ndarray:
    """xinfAP (module docstring)."""
    s, p, rel, judged, relevant, at, pooled, _stratum, fraction, scale, coef = _xinf_parts(r, m)
    n = p.sampled
    expected, d_num = np.zeros(len(s.row)), np.zeros(len(s.row))
    for inside, docs, rels, nons in _stratum_counts(r, m):
        spread = rels + nons + 2 * INFAP_EPSILON
        expected += docs * (rels + INFAP_EPSILON) / spread
        d_rel = _below(r, coef * docs * (nons + INFAP_EPSILON) / spread ** 2)
        d_non = _below(r, -coef * docs * (rels + INFAP_EPSILON) / spread ** 2)
        d_num += np.where(inside & judged, np.where(relevant, d_rel, d_non), 0.0)
    estimate = np.where(r.rank == 1, 1.0, (1.0 + expected) / r.rank)
    d_num += np.where(relevant, estimate / fraction[at], 0.0)
    terms = np.where(relevant, estimate * scale, 0.0)
    cell_terms = np.bincount(p.cell[at[pooled]], weights=terms[pooled], minlength=len(n))
    row_rel = np.where(p.judged & (p.label >= rel) & (p.weight > 0), p.weight / fraction, 0.0)
    cell_rel = p.per_cell(row_rel)
    d_den = np.where(row_rel > 0, 1.0 / fraction, 0.0) - (cell_rel / n)[p.cell]
    d_num_rows = _rows(r, d_num) - (cell_terms / n)[p.cell]
    return _ratio(p, r.per_topic(terms), p.per_topic(row_rel), d_num_rows, d_den)


def ndcg_parts(r: Ranking, m: Measure) -> tuple[np.ndarray, ...]:
    """statNDCG or infNDCG (module docstring): per topic DĈG and IDĈG, per prels row their
    derivatives ∂DĈG/∂w_d and ∂IDĈG/∂w_d."""
    inferred = m.name == "infNDCG"
    inputs = (inferred_ndcg_inputs if inferred else stat_ndcg_inputs)(r, m)
    s = sample_of(r, m)
    p = s.prels
    gain, counts, row_gain = inputs
    levels, table = ideal_table(r, m, counts, row_gain)
    best = ideal_dcg(levels, table, m.cutoff)
    step = np.zeros_like(table)
    for at in range(len(levels)):  # few gain levels
        more = table.copy()
        more[:, at] += 1.0
        step[:, at] = ideal_dcg(levels, more, m.cutoff) - best
    column = np.searchsorted(-levels, -row_gain)
    positive = (row_gain > 0) & (p.topic >= 0)
    row_step = np.zeros(len(row_gain))
    row_step[positive] = step[p.topic[positive], column[positive]]
    discount = 1.0 / np.log2(r.rank + 1.0)
    if m.cutoff is not None:
        discount = np.where(r.top(int(m.cutoff)), discount, 0.0)
    raw = np.where(s.weight > 0, gain_of(s.label, m["gains"]), 0.0) * discount
    at, pooled = np.maximum(s.row, 0), s.row >= 0
    if inferred:
        fraction, n = p.cell_fraction(), p.sampled
        d_num = _rows(r, raw / fraction[at])
        d_num -= (np.bincount(p.cell[at[pooled]], weights=(gain * discount)[pooled],
                              minlength=len(n)) / n)[p.cell]
        d_den = row_step / fraction - (p.per_cell(row_step * counts) / n)[p.cell]
    else:
        d_num, d_den = _rows(r, raw) / p.inclusion, row_step / p.inclusion
    return r.per_topic(gain * discount), best, d_num, d_den


def ndcg_gradient(r: Ranking, m: Measure) -> np.ndarray:
    """statNDCG or infNDCG: (∂DĈG − θ̂ ∂IDĈG)/IDĈG (module docstring)."""
    return _ratio(prels_of(r)[0], *ndcg_parts(r, m))


GRADIENTS = {"statPrec": stat_precision_gradient, "statAP": stat_ap_gradient,
             "xinfAP": inferred_ap_gradient, "statNDCG": ndcg_gradient,
             "infNDCG": ndcg_gradient}


# --- delete-one influence: z_d = θ̂(w) − θ̂(w − e_d), exact and vectorised ---------------------


def influence(r: Ranking, m: Measure) -> np.ndarray:
    """Per prels row, θ̂(w) − θ̂(w − e_d): the change of estimator ``m`` when one unit of row d's
    weight is removed (module docstring; 0 for rows of topics the qrels lack)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return INFLUENCES[m.name](r, m)


def _dropped(p: Prels, num: np.ndarray, den: np.ndarray, num_after: np.ndarray,
             den_after: np.ndarray) -> np.ndarray:
    """Per row, N̂/D̂ of its topic less N̂'/D̂' (its value without the row; 0 when D̂' <= 0)."""
    theta = safe_divide(num, den)
    topic = np.maximum(p.topic, 0)
    after = np.where(den_after > 1e-9 * den[topic], num_after / den_after, 0.0)
    return np.where(p.topic >= 0, theta[topic] - after, 0.0)


def stat_ap_influence(r: Ranking, m: Measure) -> np.ndarray:
    """statAP: N̂ and R̂ are linear in each w_d, so N̂' = N̂ − ∂N̂/∂w_d, R̂' = R̂ − ∂R̂/∂w_d."""
    p, num, den, d_num, relevant = _stat_ap_parts(r, m)
    topic = np.maximum(p.topic, 0)
    return _dropped(p, num, den, num[topic] - d_num, den[topic] - relevant)


def _counts_by_level(p: Prels, counts: np.ndarray, row_gain: np.ndarray, levels: np.ndarray
                     ) -> np.ndarray:
    """Per topic and level, the unrounded sum of ``counts`` (as :func:`ideal_table` sums)."""
    table = np.zeros((p.n_topics, len(levels)))
    for column, level in enumerate(levels):
        table[:, column] = p.per_topic(np.where(row_gain == level, counts, 0.0))
    return table


class NdcgPieces(NamedTuple):
    """statNDCG's or infNDCG's parts: the sample and prels; per ranked document its (scaled)
    gain, per prels row its count and gain; the positive gain levels and per topic and level the
    unrounded counts; per ranked document its discount (0 below the cutoff), per prels row its
    unscaled discounted gain (raw), per topic DĈG."""

    sample: Sample
    prels: Prels
    gain: np.ndarray
    counts: np.ndarray
    row_gain: np.ndarray
    levels: np.ndarray
    raw_counts: np.ndarray
    discount: np.ndarray
    raw: np.ndarray
    dcg: np.ndarray


@_kept
def ndcg_pieces(r: Ranking, m: Measure) -> NdcgPieces:
    """The parts statNDCG's or infNDCG's influences and pair deletions start from."""
    s = sample_of(r, m)
    p = s.prels
    inputs = inferred_ndcg_inputs if m.name == "infNDCG" else stat_ndcg_inputs
    gain, counts, row_gain = inputs(r, m)
    levels, _ = ideal_table(r, m, counts, row_gain)
    raw_counts = _counts_by_level(p, counts, row_gain, levels)
    discount = 1.0 / np.log2(r.rank + 1.0)
    if m.cutoff is not None:
        discount = np.where(r.top(int(m.cutoff)), discount, 0.0)
    raw = _rows(r, np.where(s.weight > 0, gain_of(s.label, m["gains"]), 0.0) * discount)
    return NdcgPieces(s, p, gain, counts, row_gain, levels, raw_counts, discount, raw,
                      r.per_topic(gain * discount))


def ndcg_influence(r: Ranking, m: Measure) -> np.ndarray:
    """statNDCG, infNDCG: DĈG' and the counts per level without one unit of row d, the ideal
    DCG recomputed from the counts rounded again (infNDCG: the cell's N_c/n_c becomes
    N_c/(n_c − 1), so every level of the cell changes)."""
    s, p, gain, counts, row_gain, levels, raw_counts, discount, raw, dcg = ndcg_pieces(r, m)
    inferred = m.name == "infNDCG"
    if not len(levels):  # no positive gain judged: every estimate 0
        return np.zeros(len(p.label))
    topic = np.maximum(p.topic, 0)
    mine = (row_gain[:, None] == levels[None, :]) & (p.judged & (p.weight > 0))[:, None]
    if inferred:
        at, pooled = np.maximum(s.row, 0), s.row >= 0
        n, size = p.sampled[p.cell], p.pooled[p.cell]
        part = np.bincount(p.cell[at[pooled]], weights=(gain * discount)[pooled],
                           minlength=len(p.pooled))[p.cell]
        keep = n > 1  # a cell with one unit left out vanishes: those rows add 0 anyway
        dcg_after = np.where(keep, dcg[topic] + part / (n - 1) - size / (n - 1) * raw, 0.0)
        share = np.stack([p.per_cell(np.where(row_gain == level, counts, 0.0))[p.cell]
                          for level in levels], axis=1)
        after = raw_counts[topic] + np.where(keep[:, None], (share - size[:, None] * mine)
                                             / (n - 1)[:, None], 0.0)
    else:
        dcg_after = dcg[topic] - raw / p.inclusion
        after = raw_counts[topic] - mine / p.inclusion[:, None]
    best = ideal_dcg(levels, np.floor(raw_counts + 0.5), m.cutoff)
    best_after = ideal_dcg(levels, np.floor(after + 0.5), m.cutoff)
    return _dropped(p, dcg, best, dcg_after, best_after)


def _f(rels: np.ndarray, nons: np.ndarray) -> np.ndarray:
    """xinfAP's (r + ε)/(r + q + 2ε)."""
    return (rels + INFAP_EPSILON) / (rels + nons + 2 * INFAP_EPSILON)


def inferred_ap_influence(r: Ranking, m: Measure) -> np.ndarray:
    """xinfAP: without one unit of row d (cell c, stratum L), the cell's N_c/n_c becomes
    N_c/(n_c − 1) and, below d, r_L or q_L drops by 1 in E[prec@k]."""
    s, p, rel, judged, relevant, at, pooled, _stratum, fraction, scale, coef = _xinf_parts(r, m)
    expected = np.zeros(len(s.row))
    change, same = np.zeros(len(s.row)), np.zeros(len(s.row))  # Σ below d of scale_k ΔE_k
    for inside, docs, rels, nons in _stratum_counts(r, m):
        now = _f(rels, nons)
        expected += docs * now
        for drop, mask in (((1.0, 0.0), relevant), ((0.0, 1.0), judged & ~relevant)):
            delta = coef * docs * (_f(rels - drop[0], nons - drop[1]) - now)
            hit = inside & mask
            change += np.where(hit, _below(r, delta), 0.0)
            same += np.where(hit, _below(r, np.where(inside, delta, 0.0)), 0.0)
    estimate = np.where(r.rank == 1, 1.0, (1.0 + expected) / r.rank)
    terms = np.where(relevant, estimate * scale, 0.0)
    n, size = p.sampled[p.cell], p.pooled[p.cell]
    cell_terms = np.bincount(p.cell[at[pooled]], weights=terms[pooled],
                             minlength=len(p.pooled))[p.cell]
    row_rel = np.where(p.judged & (p.label >= rel) & (p.weight > 0), p.weight / fraction, 0.0)
    cell_rel = p.per_cell(row_rel)[p.cell]
    num, den = r.per_topic(terms), p.per_topic(row_rel)
    topic = np.maximum(p.topic, 0)
    keep = n > 1  # a cell with one judged row adds 0
    num_after = np.where(keep, num[topic] + cell_terms / (n - 1) - size / (n - 1)
                         * _rows(r, np.where(relevant, estimate, 0.0)) + _rows(r, change)
                         + _rows(r, same) / (n - 1), 0.0)
    den_after = np.where(keep, den[topic] + cell_rel / (n - 1)
                         - size / (n - 1) * (row_rel > 0), 0.0)
    return _dropped(p, num, den, num_after, den_after)


INFLUENCES = {"statPrec": stat_precision_gradient, "statAP": stat_ap_influence,
              "xinfAP": inferred_ap_influence, "statNDCG": ndcg_influence,
              "infNDCG": ndcg_influence}
