"""trec_eval's experimental gain measures (G, BinG, RnDCG, nDCGRel) and its graded RBP.

Gains follow :mod:`pooljudge.metrics.gains`: ``gain(l) = gains.get(l, l)`` for a label l >= 0, 0
for an
unjudged document or a negative label; the ideal ranking lists the topic's positive gains in
decreasing order, I_1 >= I_2 >= ... >= I_M (M = ideal length). Per topic, with n documents
returned, g_i the gain at rank i, DCG@k = sum_{i<=k} g_i / log2(i + 1) and IDCG@k the same over
the ideal (positions beyond M add nothing). A topic the run skipped has n = 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pooljudge.metrics.gains import GAINS_PARAM, gain_of, ideal, prefix_at, prefix_sums
from pooljudge.metrics.join import Ranking
from pooljudge.metrics.ranked import REL_PARAM, safe_divide, trec_pairs
from pooljudge.metrics.registry import Measure, Param, Spec, make, register, register_alias
from pooljudge.metrics.residual import rbp_residual

__all__ = ["bin_g", "g", "graded_rbp", "ndcg_rel", "r_ndcg", "rbp_resid"]

TREC_P = Param("p", float, 0.9, lambda v: 0.0 < v < 1.0, "p must lie strictly between 0 and 1",
               "the persistence: the chance of reading on to the next rank")


def _sum_by(topic: np.ndarray, weights: np.ndarray, n_topics: int) -> np.ndarray:
    """Per topic, the sum of ``weights`` (float even when there are none)."""
    return np.bincount(topic, weights=weights, minlength=n_topics).astype(np.float64)


def _dcg_prefix(r: Ranking, gains: np.ndarray) -> np.ndarray:
    """Per ranked document, DCG at its rank."""
    return prefix_sums(gains / np.log2(r.rank + 1.0), r.offsets)


def _dcg_at(r: Ranking, prefix: np.ndarray, topic: np.ndarray, k: np.ndarray) -> np.ndarray:
    """DCG of ``topic`` at cutoff ``k`` (ranks beyond the ranking add nothing)."""
    return prefix_at(prefix, r.offsets, topic, np.minimum(k, r.returned[topic]))


def g(r: Ranking, m: Measure) -> np.ndarray:
    """G = (1 / sum_j I_j) * sum_{i<=n, g_i != 0} g_i / log2(2 + C_i - S_i) (trec_eval's G).

    S_i = g_1 + ... + g_i, the gain gathered by rank i; C_i = sum_{j<=i} max(I_j, 1) with I_j = 0
    beyond the ideal, the best possible gain by rank i with every rank costing at least 1. So a
    document found when little better gain was still missing is discounted little. 0 when the
    topic has no positive gain.
    """
    gains = gain_of(r.labels, m["gains"])
    best = ideal(r.qrels, m["gains"])
    cost = prefix_sums(np.maximum(best.gains, 1.0), best.offsets)
    inside = np.minimum(r.rank, best.count[r.topic])
    sum_cost = prefix_at(cost, best.offsets, r.topic, inside) + (r.rank - inside)
    gathered = prefix_sums(gains, r.offsets)
    found = gains != 0
    terms = np.zeros(len(gains))
    terms[found] = gains[found] / np.log2(2 + sum_cost[found] - gathered[found])
    return safe_divide(r.per_topic(terms), best.total_gain())


def bin_g(r: Ranking, m: Measure) -> np.ndarray:
    """BinG = (1/R) * sum over retrieved relevant d of 1 / log2(2 + n_d), n_d = documents above d
    that are not relevant (judged non-relevant or unjudged). 0 when R = 0 (trec_eval's binG)."""
    relevant = r.relevant(m["rel"])
    above = r.rank - r.relevant_so_far(m["rel"])
    terms = 1.0 / np.log2(2.0 + above[relevant])
    return safe_divide(_sum_by(r.topic[relevant], terms, r.n_topics), r.qrels.num_rel(m["rel"]))


def r_ndcg(r: Ranking, m: Measure) -> np.ndarray:
    """RnDCG = mean of DCG@min(c, n) / IDCG@c over the cutoffs c where the ideal gain drops.

    The cutoffs are every c with I_c > I_{c+1} (the last one is c = M), plus c = n when
    n >= M + 2 (trec_eval's Rndcg, "nDCG at the R levels", whose loop adds no point at n when
    n = M + 1). 0 when R = 0 (relevant at ``rel``) or the topic has no positive gain (where
    trec_eval prints 0/0).
    """
    best = ideal(r.qrels, m["gains"])
    prefix = _dcg_prefix(r, gain_of(r.labels, m["gains"]))
    drops = np.ones(len(best.gains), dtype=bool)
    drops[:-1] = best.gains[1:] != best.gains[:-1]
    drops[best.offsets[1:][best.count > 0] - 1] = True  # a topic's last ideal position
    topic, cut = best.topic[drops], best.position[drops]
    ratios = _dcg_at(r, prefix, topic, cut) / best.dcg[drops]
    longer = np.flatnonzero((r.returned >= best.count + 2) & (best.count > 0))
    tail = _dcg_at(r, prefix, longer, r.returned[longer]) / best.full_dcg()[longer]
    total = _sum_by(topic, ratios, r.n_topics) + _sum_by(longer, tail, r.n_topics)
    points = np.bincount(topic, minlength=r.n_topics) + np.bincount(longer, minlength=r.n_topics)
    out = safe_divide(total, points)
    out[r.qrels.num_rel(m["rel"]) == 0] = 0.0
    return out


def ndcg_rel(r: Ranking, m: Measure) -> np.ndarray:
    """nDCGRel = (1/M) * (sum over retrieved d with g_d > 0 of DCG@k_d / IDCG@k_d
    + (M - retrieved with g > 0) * DCG@n / IDCG@M), k_d = rank of d: nDCG averaged over the
    positive-gain documents, an unretrieved one counting the final nDCG (trec_eval's ndcg_rel).
    0 when M = 0, and 0 where the sum is not positive (trec_eval's rule, reached only with
    negative gains).
    """
    best = ideal(r.qrels, m["gains"])
    gains = gain_of(r.labels, m["gains"])
    prefix = _dcg_prefix(r, gains)
    found = gains > 0
    topic = r.topic[found]
    terms = prefix[found] / best.dcg_at(topic, r.rank[found])
    total = _sum_by(topic, terms, r.n_topics)
    topics = np.arange(r.n_topics)
    missed = (best.count - np.bincount(topic, minlength=r.n_topics)).astype(np.float64)
    final = safe_divide(missed * _dcg_at(r, prefix, topics, r.returned), best.full_dcg())
    total += final
    return np.where(total > 0, safe_divide(total, best.count), 0.0)


def graded_rbp(r: Ranking, m: Measure) -> np.ndarray:
    """RBPGraded = (1 - p) * sum_{i<=n (<=k)} g'_i * p^(i-1), trec_eval's rbp with its gain
    normalisation done right (Moffat & Zobel 2008 with graded gains in [0, 1]).

    The topic's gain table holds gain(l) for l = 0..(highest label >= 0 in its qrels) and every
    level ``gains`` lists. When a gain of the table lies outside [0, 1], every judged document's
    gain becomes g' = (g - min) / (max - min) over the table (0 when max = min); otherwise g' = g.
    Unjudged documents and negative labels have g' = 0. Default gains: g' = label / highest label
    when that exceeds 1, so binary qrels give binary RBP. 0 when nothing was returned.
    """
    p = float(m["p"])
    low, high = _table_bounds(r, m["gains"])
    scale = (low < 0) | (high > 1)
    gains = gain_of(r.labels, m["gains"])
    topic = r.topic
    judged = (r.labels >= 0) & scale[topic]
    spread = (high - low)[topic[judged]]
    normalised = np.zeros(len(spread))
    np.divide(gains[judged] - low[topic[judged]], spread, out=normalised, where=spread != 0)
    gains[judged] = normalised
    weights = np.power(p, r.rank - 1.0)
    mask = None if m.cutoff is None else r.top(int(m.cutoff))
    return (1.0 - p) * r.per_topic(gains * weights, mask)


def _table_bounds(r: Ranking, gains: tuple[tuple[int, float], ...]) -> tuple[np.ndarray,
                                                                                np.ndarray]:
    """Per topic, the least and greatest gain of its gain table (+inf/-inf when it is empty)."""
    qrels = r.qrels
    top = np.full(qrels.n_topics, -1)
    judged = qrels.labels >= 0
    np.maximum.at(top, qrels.topic_of_row[judged], qrels.labels[judged])
    listed = np.array([level for level, _ in gains], dtype=np.int64)
    highest, lowest = top.copy(), np.zeros(qrels.n_topics, dtype=np.int64)
    for _ in listed:  # step past listed levels: the extreme levels that keep gain = level
        highest = np.where(np.isin(highest, listed), highest - 1, highest)
        lowest = np.where(np.isin(lowest, listed), lowest + 1, lowest)
    low = np.where(lowest <= top, lowest, np.inf).astype(np.float64)
    high = np.where(highest >= 0, highest, -np.inf).astype(np.float64)
    for _, gain in gains:
        low, high = np.minimum(low, gain), np.maximum(high, gain)
    return low, high


def rbp_resid(r: Ranking, m: Measure) -> np.ndarray:
    """RBPResid = (1 - p) * sum_{i<=n} [document i unjudged or negative] * p^(i-1) + p^n: the most
    RBP could still rise if every unjudged document and every rank below the ranking had gain 1
    (Moffat & Zobel 2008). trec_eval's rbp_resid without its bug: it prints 0 when no returned
    document is unjudged, dropping the p^n tail. 1 when nothing was returned; p^n under
    judged-only, where no unjudged document is left."""
    return rbp_residual(r, m)


def _register() -> None:
    gains, rel = (GAINS_PARAM,), (REL_PARAM,)
    for spec in (
        Spec("G", g, "normalised gain (trec_eval's G)", gains),
        Spec("BinG", bin_g, "binary G", rel),
        Spec("RnDCG", r_ndcg, "nDCG averaged at the ideal's gain levels", (REL_PARAM, *gains)),
        Spec("nDCGRel", ndcg_rel, "nDCG averaged over the positive-gain documents", gains),
        Spec("RBPGraded", graded_rbp, "rank-biased precision with normalised graded gains",
             (TREC_P, *gains), "optional"),
        Spec("RBPResid", rbp_resid, "RBP residual: unjudged ranks plus the unseen tail",
             (TREC_P,)),
    ):
        register(spec)
    pair = r"(?P<pairs>(?:p|-?\d+)=[^,=]+(?:,(?:p|-?\d+)=[^,=]+)*)"
    for pattern, build, example in (
        (r"G", lambda m: make("G"), "G"),
        (rf"G_{pair}", lambda m: make("G", gains=trec_pairs(m["pairs"])), "G_1=3,2=9"),
        (r"binG", lambda m: make("BinG"), "binG"),
        (r"Rndcg", lambda m: make("RnDCG"), "Rndcg"),
        (rf"Rndcg_{pair}", lambda m: make("RnDCG", gains=trec_pairs(m["pairs"])), "Rndcg_1=3"),
        (r"ndcg_rel", lambda m: make("nDCGRel"), "ndcg_rel"),
        (rf"ndcg_rel_{pair}", lambda m: make("nDCGRel", gains=trec_pairs(m["pairs"])),
         "ndcg_rel_1=3"),
        (r"rbp", lambda m: make("RBPGraded"), "rbp"),
        (rf"rbp_{pair}", lambda m: _trec_rbp("RBPGraded", m["pairs"]), "rbp_p=0.8"),
        (r"rbp_resid", lambda m: make("RBPResid"), "rbp_resid"),
        (rf"rbp_resid_{pair}", lambda m: _trec_rbp("RBPResid", m["pairs"]), "rbp_resid_p=0.8"),
    ):
        register_alias(pattern, build, example=example)


def _trec_rbp(name: str, text: str) -> Measure:
    """trec_eval's ``rbp.p=0.8,2=3`` parameters: ``p`` and (for rbp) level=gain pairs."""
    given = dict(trec_pairs(text))
    p = given.pop("p", None)
    params: dict[str, Any] = {} if p is None else {"p": p}
    if given:
        params["gains"] = list(given.items())
    return make(name, **params)


_register()
