"""Estimates without two judged rows, θ̂_(de), for the second-order correction of the
delete-one variance (:mod:`pooljudge.metrics.second_order`): per estimator, the rows that change
it, its
per-topic estimates and a vectorised θ̂_(de) over arrays of row pairs (one topic per pair), in
closed form from the same parts as the delete-one influences
(:mod:`pooljudge.metrics.linearised`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from pooljudge.metrics.estimators import ideal_dcg, prels_of
from pooljudge.metrics.join import Ranking
from pooljudge.metrics.linearised import (
    _below,
    _f,
    _rows,
    _stat_ap_parts,
    _stratum_counts,
    _xinf_parts,
    ndcg_pieces,
)
from pooljudge.metrics.ranked import safe_divide
from pooljudge.metrics.registry import Measure

__all__ = ["PAIRS", "Pairs", "TwoDeleted"]

TwoDeleted = Callable[[np.ndarray, np.ndarray], np.ndarray]


class Pairs(NamedTuple):
    """An estimator's pairs: the prels ``rows`` that change it, which of them are ``anchor``
    (only pairs holding one enter), its per-topic estimates ``theta`` and ``deleted_two``."""

    rows: np.ndarray
    anchor: np.ndarray
    theta: np.ndarray
    deleted_two: TwoDeleted


def _after(num_after: np.ndarray, den_after: np.ndarray, den: np.ndarray) -> np.ndarray:
    """N̂'/D̂' of the estimate without two rows; 0 when D̂' is not above 1e-9 D̂ (as the
    delete-one influences take it)."""
    keep = den_after > 1e-9 * den
    return np.where(keep, num_after / np.where(keep, den_after, 1.0), 0.0)


def _stat_ap_pairs(r: Ranking, m: Measure) -> Pairs:
    """statAP's rows that change it (judged relevant), its estimates and its value without two
    rows: N̂ and R̂ are linear in each w_d and N̂'s cross term in (w_d, w_e) is
    1/(π_d π_e max(r_d, r_e)) for two ranked rows."""
    p, num, den, d_num, relevant = _stat_ap_parts(r, m)
    rank = np.zeros(len(p.label))
    _, prels_row = prels_of(r)
    inside = prels_row >= 0
    rank[prels_row[inside]] = r.rank[inside]

    def deleted_two(d: np.ndarray, e: np.ndarray) -> np.ndarray:
        t = p.topic[d]
        cross = np.where((rank[d] > 0) & (rank[e] > 0),
                         relevant[d] * relevant[e] / np.maximum(np.maximum(rank[d], rank[e]), 1),
                         0.0)
        return _after(num[t] - d_num[d] - d_num[e] + cross, den[t] - relevant[d] - relevant[e],
                      den[t])

    rows = np.flatnonzero(relevant > 0)
    return Pairs(rows, np.ones(len(rows), dtype=bool), safe_divide(num, den), deleted_two)


def _stat_ndcg_pairs(r: Ranking, m: Measure) -> Pairs:
    """statNDCG's rows that change it (positive gain), its estimates and its value without two
    rows: DĈG loses both rows' g/(π log2(r + 1)) (top k), each row's gain level 1/π, and the
    ideal DCG is recomputed from the counts rounded again."""
    _, p, _, _, row_gain, levels, raw_counts, _, raw, dcg = ndcg_pieces(r, m)
    best = ideal_dcg(levels, np.floor(raw_counts + 0.5), m.cutoff)
    column = np.searchsorted(-levels, -row_gain)
    rows = np.flatnonzero(p.judged & (p.weight > 0) & (row_gain > 0))

    def deleted_two(d: np.ndarray, e: np.ndarray) -> np.ndarray:
        t = p.topic[d]
        after = raw_counts[t]
        pair = np.arange(len(d))
        after[pair, column[d]] -= 1.0 / p.inclusion[d]
        after[pair, column[e]] -= 1.0 / p.inclusion[e]
        best_after = ideal_dcg(levels, np.floor(after + 0.5), m.cutoff)
        dcg_after = dcg[t] - raw[d] / p.inclusion[d] - raw[e] / p.inclusion[e]
        return _after(dcg_after, best_after, best[t])

    return Pairs(rows, np.ones(len(rows), dtype=bool), safe_divide(dcg, best), deleted_two)


def _inf_ndcg_pairs(r: Ranking, m: Measure) -> Pairs:
    """infNDCG's rows that change it (every judged row: its cell's scale N_c/n_c changes), its
    estimates and its value without two rows: a cell c that loses k of its n_c rows has its
    part P_c of DĈG (and Q_c,l of each level's count) replaced by N_c/(n_c − k) times what its
    remaining rows sum (0 when none remains); the ideal DCG is recomputed from the counts
    rounded again."""
    s, p, gain, counts, row_gain, levels, raw_counts, discount, raw, dcg = ndcg_pieces(r, m)
    best = ideal_dcg(levels, np.floor(raw_counts + 0.5), m.cutoff)
    at, pooled = np.maximum(s.row, 0), s.row >= 0
    n, size = p.sampled, p.pooled
    part = np.bincount(p.cell[at[pooled]], weights=(gain * discount)[pooled],
                       minlength=len(size))
    share = np.stack([p.per_cell(np.where(row_gain == level, counts, 0.0)) for level in levels],
                     axis=1)  # cells x levels
    with np.errstate(divide="ignore", invalid="ignore"):
        own = np.where(n > 0, n / size, 0.0)  # a cell's parts times n_c/N_c: its rows' sums
    mine = (row_gain[:, None] == levels[None, :]).astype(np.float64)

    def rescaled(cell: np.ndarray, k: float, gone: np.ndarray, gone_levels: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
        """The change of DĈG and of the level counts when ``cell`` loses k rows whose raw
        gains sum to ``gone`` (levels: ``gone_levels``)."""
        left = n[cell] - k
        scale = np.where(left > 0, size[cell] / np.where(left > 0, left, 1.0), 0.0)
        dcg_change = scale * (part[cell] * own[cell] - gone) - part[cell]
        count_change = (scale[:, None] * (share[cell] * own[cell][:, None] - gone_levels)
                        - share[cell])
        return dcg_change, count_change

    def deleted_two(d: np.ndarray, e: np.ndarray) -> np.ndarray:
        t, same = p.topic[d], p.cell[d] == p.cell[e]
        both = rescaled(p.cell[d], 2.0, raw[d] + raw[e], mine[d] + mine[e])
        first = rescaled(p.cell[d], 1.0, raw[d], mine[d])
        second = rescaled(p.cell[e], 1.0, raw[e], mine[e])
        dcg_after = dcg[t] + np.where(same, both[0], first[0] + second[0])
        after = raw_counts[t] + np.where(same[:, None], both[1], first[1] + second[1])
        best_after = ideal_dcg(levels, np.floor(after + 0.5), m.cutoff)
        return _after(dcg_after, best_after, best[t])

    rows = np.flatnonzero(p.judged & (p.weight > 0))
    return Pairs(rows, row_gain[rows] > 0, safe_divide(dcg, best), deleted_two)


DROPS = ((1, 0), (0, 1), (2, 0), (1, 1), (0, 2))  # (relevant, non-relevant) rows taken above k


def _xinf_ap_pairs(r: Ranking, m: Measure) -> Pairs:
    """xinfAP's rows that change it (every judged row), its estimates and its value without two
    rows d and e. Each of their cells c keeps λ_c = n_c/(n_c − k_c) times its terms and its R̂
    part (k_c of the two in c; 0 when none remains); d's and e's own terms go; a relevant k
    below the upper one, u, of stratum L_u has E[prec@k] moved by B_{L_u}^{(a,b)}(k) =
    (A_L(k)/r_k)(f(r_L − a, q_L − b) − f(r_L, q_L)) (one row of u's kind taken above k), and
    below both, when they share a stratum, by the joint drop (a, b) of both rows instead."""
    s, p, rel, _judged, relevant, at, pooled, stratum, fraction, scale, coef = _xinf_parts(r, m)
    levels = p.cached("strata", lambda: np.unique(p.stratum))
    counts = _stratum_counts(r, m)
    expected = sum((docs * _f(rels, nons) for _, docs, rels, nons in counts),
                   np.zeros(len(s.row)))
    estimate = np.where(r.rank == 1, 1.0, (1.0 + expected) / r.rank)
    terms = np.where(relevant, estimate * scale, 0.0)
    row_rel = np.where(p.judged & (p.label >= rel) & (p.weight > 0), p.weight / fraction, 0.0)
    num, den = r.per_topic(terms), p.per_topic(row_rel)
    cell_terms, cell_rel = p.per_cell(_rows(r, terms)), p.per_cell(row_rel)
    row_terms = _rows(r, terms)
    position = np.full(len(p.label), -1)
    position[at[pooled]] = np.flatnonzero(pooled)
    level = np.searchsorted(levels, p.stratum)
    kind = np.where(p.label >= rel, 0, 1)  # DROPS index of one row taken: relevant or not
    own_level = np.searchsorted(levels, stratum)
    strata = len(levels)
    # one row of width n + 1 (the last cell 0: "no ranked document") per (drop, L, M + 1): the
    # sums strictly below each ranked document of B_L^drop over the documents of stratum index
    # M (M = -1: every stratum); point: B_L^drop itself for one row taken (drop 0 or 1)
    width = len(s.row) + 1
    below: np.ndarray = np.zeros((len(DROPS) * strata * (strata + 1), width))
    point: np.ndarray = np.zeros((2 * strata, width))
    for drop, (a, b) in enumerate(DROPS):
        for at_level, (_, docs, rels, nons) in enumerate(counts):
            values = coef * docs * (_f(rels - a, nons - b) - _f(rels, nons))
            if drop < 2:
                point[drop * strata + at_level, :-1] = values
            first = (drop * strata + at_level) * (strata + 1)
            below[first, :-1] = _below(r, values)
            for only in range(strata):
                below[first + 1 + only, :-1] = _below(r, np.where(own_level == only, values, 0.0))
    below, point = below.ravel(), point.ravel()

    def weighted_below(drop, at_level, where, lam_u, extra_v, lu, lv):
        """Per pair, Σ over ranked k strictly below ``where`` (width - 1: none) of λ_c(k)
        B_{at_level}^drop(k): λ_u − 1 more in u's stratum, ``extra_v`` (λ_v − 1, 0 when they
        share the cell) more in v's."""
        at = (drop * strata + at_level) * (strata + 1) * width + where
        return (below[at] + (lam_u - 1) * below[at + (lu + 1) * width]
                + extra_v * below[at + (lv + 1) * width])

    def deleted_two(d: np.ndarray, e: np.ndarray) -> np.ndarray:
        t, n = p.topic[d], p.sampled
        d_first = (position[d] >= 0) & ((position[e] < 0) | (position[d] < position[e]))
        u, v = np.where(d_first, d, e), np.where(d_first, e, d)
        cu, cv = p.cell[u], p.cell[v]
        same_cell = cu == cv  # within a topic: the same stratum
        both = np.where(n[cu] > 2, n[cu] / (n[cu] - 2), 0.0)
        lam_u, lam_v = (np.where(same_cell, both, np.where(n[c] > 1, n[c] / (n[c] - 1), 0.0))
                        for c in (cu, cv))
        extra_v = np.where(same_cell, 0.0, lam_v - 1)
        num_after = (num[t] + (lam_u - 1) * cell_terms[cu] - lam_u * row_terms[u]
                     + extra_v * cell_terms[cv] - lam_v * row_terms[v])
        den_after = (den[t] + (lam_u - 1) * cell_rel[cu] - lam_u * row_rel[u]
                     + extra_v * cell_rel[cv] - lam_v * row_rel[v])
        lu, lv = level[u], level[v]
        pu, pv = np.where(position[u] >= 0, position[u], width - 1), np.where(
            position[v] >= 0, position[v], width - 1)
        args = (lam_u, extra_v, lu, lv)
        num_after += weighted_below(kind[u], lu, pu, *args)  # u's drop below u ...
        num_after -= lam_v * point[(kind[u] * strata + lu) * width + pv]  # ... but v goes
        # below v: in one stratum the joint drop replaces u's; else v's own drop adds
        num_after += weighted_below(np.where(same_cell, 2 + kind[u] + kind[v], 0), lu,
                                    np.where(same_cell, pv, width - 1), *args)
        num_after += np.where(same_cell, -1.0, 1.0) * weighted_below(
            np.where(same_cell, kind[u], kind[v]), np.where(same_cell, lu, lv), pv, *args)
        return _after(num_after, den_after, den[t])

    rows = np.flatnonzero(p.judged & (p.weight > 0))
    return Pairs(rows, p.label[rows] >= rel, safe_divide(num, den), deleted_two)


PAIRS = {"statAP": _stat_ap_pairs, "statNDCG": _stat_ndcg_pairs, "infNDCG": _inf_ndcg_pairs,
         "xinfAP": _xinf_ap_pairs}
