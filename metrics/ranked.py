"""Rank-based measures (trec_eval ``-c`` semantics), each vectorised over all topics.

Notation per topic: ``R`` = relevant documents in the qrels (label >= rel), ``rel_i`` = 1 when
the document at rank i is relevant, ``k`` = the cutoff. A topic the run skipped scores 0 on
every measure here; a topic with R = 0 scores 0 on every measure that divides by R.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pooljudge.metrics.compat import Compat
from pooljudge.metrics.gains import GAINS_PARAM, gain_of, ideal
from pooljudge.metrics.join import Ranking
from pooljudge.metrics.registry import (
    Measure,
    Param,
    SequenceOf,
    Spec,
    make,
    register,
    register_alias,
)

__all__: list[str] = []

GMAP_FLOOR = 1e-5
REL_PARAM = Param("rel", int, 1, lambda v: v >= 1, "rel must be a positive integer",
                  "the lowest label that counts as relevant (trec_eval's -l)")
ELEVEN_LEVELS = tuple(i / 10 for i in range(11))
LEVELS_PARAM = Param("levels", SequenceOf(float), ELEVEN_LEVELS,
                     lambda v: len(v) > 0 and all(0.0 <= x <= 1.0 for x in v),
                     "levels are recall levels in [0, 1], at least one",
                     "the recall levels averaged over (a level given twice counts twice)")


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    out = np.zeros(len(numerator), dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _hits(r: Ranking, m: Measure) -> np.ndarray:
    """Positions of the relevant documents within the cutoff (at any rank when the measure has
    none), in ranking order."""
    return r.hits(m["rel"], None if m.cutoff is None else int(m.cutoff))


def _relevant_count(r: Ranking, m: Measure) -> np.ndarray:
    """Per topic, the relevant documents within the cutoff (float64)."""
    return np.bincount(r.topic_of(_hits(r, m)), minlength=r.n_topics).astype(np.float64)


def precision(r: Ranking, m: Measure) -> np.ndarray:
    """P@k = (sum_{i<=k} rel_i) / k; k is the divisor even when fewer than k were returned."""
    return _relevant_count(r, m) / m.cutoff


def recall(r: Ranking, m: Measure) -> np.ndarray:
    """R@k = (sum_{i<=k} rel_i) / R; 0 when R = 0."""
    return safe_divide(_relevant_count(r, m), r.qrels.num_rel(m["rel"]))


def average_precision(r: Ranking, m: Measure) -> np.ndarray:
    """AP = sum_i rel_i * P@i / R over ranks i (<= k for AP@k); R counts unretrieved ones too.

    Summed over the relevant documents alone, in ranking order: the j-th relevant document of
    its topic (j relevant at its rank or above) adds j / rank."""
    hits = _hits(r, m)
    topics = r.topic_of(hits)
    first = np.concatenate(([True], topics[1:] != topics[:-1]))[: len(topics)]
    position = np.arange(len(hits))
    so_far = position - np.maximum.accumulate(np.where(first, position, 0)) + 1
    terms = np.bincount(topics, weights=so_far / r.rank_of(hits, topics), minlength=r.n_topics)
    return safe_divide(terms, r.qrels.num_rel(m["rel"]))


def geometric_ap(r: Ranking, m: Measure) -> np.ndarray:
    """Per topic max(AP, 1e-5); the summary over topics is their geometric mean (GMAP)."""
    return np.maximum(average_precision(r, m), GMAP_FLOOR)


def reciprocal_rank(r: Ranking, m: Measure) -> np.ndarray:
    """RR = 1 / (rank of the first relevant document), within k for RR@k; 0 when none."""
    hits = _hits(r, m)
    topics = r.topic_of(hits)
    first = np.concatenate(([True], topics[1:] != topics[:-1]))[: len(topics)]
    out = np.zeros(r.n_topics)
    out[topics[first]] = 1.0 / r.rank_of(hits[first], topics[first])
    return out


def success(r: Ranking, m: Measure) -> np.ndarray:
    """Success@k = 1 when a relevant document is in the top k, else 0."""
    return (_relevant_count(r, m) > 0).astype(np.float64)


def r_precision(r: Ranking, m: Measure) -> np.ndarray:
    """Rprec = precision at rank R = (relevant in the top R) / R; 0 when R = 0."""
    num_rel = r.qrels.num_rel(m["rel"])
    mask = r.relevant(m["rel"]) & (r.rank <= num_rel[r.topic])
    return safe_divide(r.per_topic(1.0, mask), num_rel)


def bpref(r: Ranking, m: Measure) -> np.ndarray:
    """trec_eval's Bpref = (1/R) * sum over retrieved relevant d of (1 - min(n_d, R) / min(R, N)).

    ``n_d`` counts judged non-relevant documents (0 <= label < rel) ranked above d, ``N`` those
    in the qrels; the term is 1 when n_d = 0. Unjudged and negative-label documents are skipped.
    """
    rel = m["rel"]
    nonrel = (r.labels >= 0) & (r.labels < rel)
    running = np.cumsum(nonrel)
    before_topic = np.concatenate(([0], running))[r.offsets[:-1]]
    nonrel_above = running - nonrel - before_topic[r.topic]
    num_rel = r.qrels.num_rel(rel)
    num_nonrel = r.qrels.count((r.qrels.labels >= 0) & (r.qrels.labels < rel))
    relevant = r.relevant(rel)
    topic = r.topic[relevant]
    above = nonrel_above[relevant]
    denominator = np.minimum(num_rel, num_nonrel)[topic]
    penalty = np.zeros(len(above))
    np.divide(np.minimum(above, num_rel[topic]), denominator, out=penalty, where=above > 0)
    terms = np.bincount(topic, weights=1.0 - penalty, minlength=r.n_topics)
    return safe_divide(terms, num_rel)


def geometric_bpref(r: Ranking, m: Measure) -> np.ndarray:
    """Per topic max(Bpref, 1e-5); the summary is their geometric mean (trec_eval's gm_bpref,
    which prints the summary only)."""
    return np.maximum(bpref(r, m), GMAP_FLOOR)


def relative_precision(r: Ranking, m: Measure) -> np.ndarray:
    """RelP@k = (sum_{i<=k} rel_i) / min(k, R): precision up to k = R, recall beyond; 0 when
    R = 0 (trec_eval's relative_P_k)."""
    num_rel = r.qrels.num_rel(m["rel"])
    return safe_divide(_relevant_count(r, m), np.minimum(num_rel, m.k))


def r_precision_mult(r: Ranking, m: Measure) -> np.ndarray:
    """RprecMult(mult=x) = (relevant in the top c) / c with c = (long)(x * R + 0.9) ranks, in
    double precision, in trec_eval 10 as in 9 (unlike IPrec, 10 kept this rounding). Ranks below
    the ranking count as non-relevant; 0 when c = 0 (e.g. R = 0). RprecMult = Rprec at x = 1.
    """
    num_rel = r.qrels.num_rel(m["rel"])
    cut = np.floor(float(m["mult"]) * num_rel.astype(np.float64) + 0.9).astype(np.int64)
    mask = r.relevant(m["rel"]) & (r.rank <= cut[r.topic])
    return safe_divide(r.per_topic(1.0, mask), cut)


def ndcg(r: Ranking, m: Measure) -> np.ndarray:
    """nDCG(@k) = DCG / ideal DCG with DCG = sum_{i<=k} gain_i / log2(i + 1).

    gain = the label, or ``gains[label]`` for a label the ``gains`` map lists (trec_eval's
    ``ndcg.1=3,2=9``; gains may be 0 or negative). Unjudged and negative labels have gain 0;
    ``rel`` does not apply. The ideal ranking sorts the positive gains of all judged documents of
    the topic descending (cut at k). 0 when the ideal DCG is 0.
    """
    gains = m["gains"]
    if m.cutoff is None:
        dcg = r.per_topic(gain_of(r.labels, gains) / np.log2(r.rank + 1.0))
    else:  # the top k of each topic alone
        rows = r.top_rows(int(m.cutoff))
        topics = r.topic_of(rows)
        discounted = gain_of(r.labels[rows], gains) / np.log2(r.rank_of(rows, topics) + 1.0)
        dcg = np.bincount(topics, weights=discounted, minlength=r.n_topics)
    best = ideal(r.qrels, gains)
    if m.cutoff is None:
        return safe_divide(dcg, best.full_dcg())
    k = np.full(r.n_topics, int(m.cutoff))
    return safe_divide(dcg, best.dcg_at(np.arange(r.n_topics), k))


def interpolated_precision(r: Ranking, m: Measure) -> np.ndarray:
    """IPrec@x = max over ranks whose recall reaches x of the precision there.

    "Reaches x" means at least c relevant documents, c = lround(x * R) (trec_eval 10: round half
    away from zero) or, under compat "9", c = (long)(x * R + 0.9) (trec_eval 9 / pytrec_eval),
    x * R in double precision: the value is max_{j >= max(c, 1)} j / rank_j over the retrieved
    relevant documents j; 0 when fewer than c were retrieved or none was.
    """
    return _iprec(r, m["rel"], float(m.required_cutoff))


def eleven_point(r: Ranking, m: Measure) -> np.ndarray:
    """The mean of IPrec at the recall ``levels`` (default 0.0, 0.1, ..., 1.0: 11pt_avg).

    A level listed twice counts twice (trec_eval averages over every level given).
    """
    total = np.zeros(r.n_topics)
    levels = m["levels"]
    for level in levels:  # elementwise, so a topic's value is independent
        total += _iprec(r, m["rel"], level)
    return total / len(levels)


def trec_pairs(text: str) -> list[tuple[str, str]]:
    """trec_eval's ``1=3,2=9`` parameter pairs as [("1", "3"), ("2", "9")]."""
    return [(key, value) for key, _, value in (item.partition("=") for item in text.split(","))]


def needed_relevant(level: float, num_rel: np.ndarray, compat: Compat) -> np.ndarray:
    """Per topic, the relevant documents a rank must hold to reach recall ``level``.

    Compat "10": lround(level * R), exact for the non-negative double (no ``+ 0.5`` rounding
    error); "9": (long)(level * R + 0.9).
    """
    target = level * num_rel.astype(np.float64)
    if compat == "9":
        return np.floor(target + 0.9).astype(np.int64)
    whole = np.floor(target)
    return (whole + (target - whole >= 0.5)).astype(np.int64)


def _iprec(r: Ranking, rel: int, level: float) -> np.ndarray:
    num_rel = r.qrels.num_rel(rel)
    needed = needed_relevant(level, num_rel, r.compat)
    relevant = r.relevant(rel)
    topic = r.topic[relevant]
    count = r.relevant_so_far(rel)[relevant]
    precision_at = count / r.rank[relevant]
    reaches = count >= np.maximum(needed, 1)[topic]
    out = np.zeros(r.n_topics)
    np.maximum.at(out, topic[reaches], precision_at[reaches])
    return out


def _register() -> None:
    cut: Literal["required"] = "required"
    opt: Literal["optional"] = "optional"
    rel = (REL_PARAM,)
    for spec in (
        Spec("P", precision, "precision at k", rel, cut),
        Spec("R", recall, "recall at k", rel, cut),
        Spec("AP", average_precision, "average precision", rel, opt),
        Spec("GMAP", geometric_ap, "geometric mean of AP", rel, summary="gmean"),
        Spec("RR", reciprocal_rank, "reciprocal rank", rel, opt),
        Spec("Success", success, "a relevant document in the top k", rel, cut),
        Spec("Rprec", r_precision, "precision at rank R", rel),
        Spec("Bpref", bpref, "binary preference (trec_eval)", rel),
        Spec("GMBpref", geometric_bpref, "geometric mean of Bpref", rel, summary="gmean"),
        Spec("RelP", relative_precision, "precision at k relative to the best possible", rel,
             cut),
        Spec("RprecMult", r_precision_mult, "precision at a multiple of R ranks",
             (REL_PARAM, Param("mult", float, 1.0, lambda v: v >= 0, "mult must be >= 0",
                                      "the multiple of R at which precision is read"))),
        Spec("nDCG", ndcg, "normalised discounted cumulative gain", (GAINS_PARAM,), opt),
        Spec("IPrec", interpolated_precision, "interpolated precision at recall", rel, cut,
             cutoff_kind=float, cutoff_valid=lambda x: 0.0 <= x <= 1.0),
        Spec("IPrec11", eleven_point, "interpolated precision averaged over recall levels",
             (REL_PARAM, LEVELS_PARAM)),
    ):
        register(spec)
    for pattern, build, example in (
        (r"P_(?P<k>\d+)", lambda g: make("P", g["k"]), "P_10"),
        (r"recall_(?P<k>\d+)", lambda g: make("R", g["k"]), "recall_100"),
        (r"map", lambda g: make("AP"), "map"),
        (r"map_cut_(?P<k>\d+)", lambda g: make("AP", g["k"]), "map_cut_10"),
        (r"gm_map", lambda g: make("GMAP"), "gm_map"),
        (r"recip_rank", lambda g: make("RR"), "recip_rank"),
        (r"success_(?P<k>\d+)", lambda g: make("Success", g["k"]), "success_10"),
        (r"bpref", lambda g: make("Bpref"), "bpref"),
        (r"ndcg", lambda g: make("nDCG"), "ndcg"),
        (r"ndcg_cut_(?P<k>\d+)", lambda g: make("nDCG", g["k"]), "ndcg_cut_10"),
        (r"iprec_at_recall_(?P<x>[0-9.]+)", lambda g: make("IPrec", g["x"]),
         "iprec_at_recall_0.30"),
        (r"11pt_avg", lambda g: make("IPrec11"), "11pt_avg"),
        (r"11pt_avg_(?P<x>[0-9.]+(?:,[0-9.]+)*)",
         lambda g: make("IPrec11", levels=g["x"].split(",")), "11pt_avg_.25,.5,.75"),
        (r"gm_bpref", lambda g: make("GMBpref"), "gm_bpref"),
        (r"relative_P_(?P<k>\d+)", lambda g: make("RelP", g["k"]), "relative_P_10"),
        (r"Rprec_mult_(?P<x>[0-9.]+)", lambda g: make("RprecMult", mult=g["x"]),
         "Rprec_mult_0.20"),
        (r"ndcg_(?P<gains>-?\d+=[^,=]+(?:,-?\d+=[^,=]+)*)",
         lambda g: make("nDCG", gains=trec_pairs(g["gains"])), "ndcg_1=3,2=9"),
    ):
        register_alias(pattern, build, example=example)


_register()
