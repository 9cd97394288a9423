r"""Estimators from sampled judgments (prels, :mod:`pooljudge.metrics.prels`), one value per qrels
topic.

Notation per topic: the pool is the pooled pairs of the prels, split into cells (its strata);
a cell c has N_c pooled documents, n_c of them judged (the sample), p_c = n_c / N_c; a pooled
document d has inclusion probability π_d and is judged or not; rel_d = 1 when judged with
label >= rel. A ranked document outside the pool is never relevant (it only counts in the rank
k). Every estimate reads only the judged pooled documents, the ranking and the counts N_c.

Two families:

- **inferred** (Yilmaz, Kanoulas and Aslam, SIGIR 2008; NIST's ``sample_eval.pl``): ``xinfAP``,
  ``infNDCG``. Within each stratum the judged documents stand for the unjudged ones: a stratum's
  documents are estimated relevant at the rate of its judged ones, so they use p_c (the realised
  sample fraction, which equals π_d under sampling without replacement within the stratum).
- **Horvitz–Thompson** (Aslam, Pavlu and Yilmaz, SIGIR 2006; statAP of the TREC Million Query
  track): ``statPrec@k``, ``statAP``, ``statNDCG``. Every judged document is weighted 1/π_d, so
  the sums are unbiased for any design with known π (uniform, strata, PPS).

A judged document of weight w (1; a bootstrap replicate's multiplicity; 0 drops it) counts w
times in every sum. A topic whose sample holds no relevant document scores 0 on every estimator
(so does a qrels topic the prels lack; prels topics the qrels lack are ignored). A judged
document in a stratum with one judged document stands for the whole stratum (weight N_c).
With every pooled document judged (π = 1) each estimator is its exact measure: xinfAP = infAP
= AP (up to ε), statAP = AP, statPrec@k = P@k, infNDCG = statNDCG = nDCG.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np
from pooljudge.metrics.gains import GAINS_PARAM, gain_of
from pooljudge.metrics.join import Ranking
from pooljudge.metrics.prels import Prels
from pooljudge.metrics.qrels_lookup import UNJUDGED
from pooljudge.metrics.ranked import REL_PARAM, safe_divide
from pooljudge.metrics.registry import Measure, Spec, make, register, register_alias
from pooljudge.metrics.sampled import INFAP_EPSILON

from pooljudge.errors import UsageError

__all__ = ["NEEDS_PRELS", "check_prels", "needs_prels"]

NEEDS_PRELS = frozenset({"xinfAP", "infNDCG", "statAP", "statPrec", "statNDCG"})


def needs_prels(measure: Measure) -> bool:
    """Whether the measure estimates from sampled judgments (and so needs prels)."""
    return measure.name in NEEDS_PRELS


def check_prels(measures: Iterable[Measure], given: bool) -> None:
    """UsageError naming the option when an estimator is asked for without prels."""
    wanted = [str(m) for m in measures if needs_prels(m)]
    if wanted and not given:
        raise UsageError(f"{', '.join(wanted)} estimate(s) from sampled judgments: give their "
                         "prels with --prels FILE (Python: prels=)")


class Sample(NamedTuple):
    """Per ranked document: its prels row (-1 outside the pool), weight w (0 when not judged or
    outside the pool), label (UNJUDGED unless judged with w > 0), π (1 outside the pool)."""

    prels: Prels
    row: np.ndarray
    weight: np.ndarray
    label: np.ndarray
    inclusion: np.ndarray


def sample_of(r: Ranking, m: Measure) -> Sample:
    """The ranking's sample arrays; UsageError when the ranking was joined without prels."""
    if r.prels is None or r.prels_row is None:
        raise UsageError(f"measure {m} estimates from sampled judgments: give the prels "
                         "(pooljudge eval --prels FILE; "
                         "pooljudge.metrics.evaluate(..., prels=frame))")
    p, row = r.prels, r.prels_row

    def compute() -> Sample:
        weight, label, inclusion = p.cached("sample_rows", lambda: _sample_rows(p))
        return Sample(p, row, weight[row], label[row], inclusion[row])  # row -1: the last

    sample = r._cached(("sample", id(r.prels)), compute)
    return sample if sample.prels is r.prels else compute()


def prels_of(r: Ranking) -> tuple[Prels, np.ndarray]:
    """The ranking's prels and, per ranked document, its prels row (-1 outside the pool), for
    code reached after :func:`sample_of` checked them; ValueError for a ranking without."""
    if r.prels is None or r.prels_row is None:
        raise ValueError("the ranking was joined without prels")
    return r.prels, r.prels_row


def _sample_rows(p: Prels) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:class:`Sample`'s weight, label and π per prels row, then once more for a document
    outside the pool (0, UNJUDGED, 1), so that a ranking's arrays are one gather each."""
    weight = np.where(p.judged, p.weight, 0.0)
    label = np.where(weight > 0, p.label, UNJUDGED)
    return (np.append(weight, 0.0), np.append(label, UNJUDGED).astype(np.int64),
            np.append(p.inclusion, 1.0))


def _running(r: Ranking, values: np.ndarray) -> np.ndarray:
    """Per ranked document, the sum of ``values`` at its rank or above, within its topic."""
    running = np.cumsum(values, dtype=np.float64)
    before = np.concatenate(([0.0], running))[r.offsets[:-1]]
    return running - before[r.topic]


def _running_at(r: Ranking, values: np.ndarray, where: np.ndarray, rows: np.ndarray
                ) -> np.ndarray:
    """``_running(r, v)[rows]`` for ``v`` equal to ``values`` (>= 0) at the sorted positions
    ``where`` and 0 elsewhere, summed over ``where`` alone: adding 0.0 leaves a float sum as it
    is, so the result is bit for bit that of the whole array, in O(len(where) + len(rows))."""
    upto = np.concatenate(([0.0], np.cumsum(values, dtype=np.float64)))
    before = upto[np.searchsorted(where, r.offsets[:-1])]
    return upto[np.searchsorted(where, rows, side="right")] - before[r.topic[rows]]


def pooled_above(r: Ranking, level: int) -> np.ndarray:
    """Per ranked document, the pooled documents of stratum ``level`` ranked above it (A_c of
    xinfAP; cached per ranking, and given by a bootstrap's stacked ranking that drops the unjudged
    pooled documents)."""
    p, row = prels_of(r)

    def compute() -> np.ndarray:
        inside = (row >= 0) & (p.stratum[np.maximum(row, 0)] == level)
        return _running(r, inside) - inside

    return r._cached(("pooled_above", int(level)), compute)


def _row_relevant(p: Prels, rel: int) -> np.ndarray:
    """Per prels row, its weight when judged relevant (label >= rel), else 0."""
    return np.where(p.judged & (p.label >= rel), p.weight, 0.0)


def stat_precision(r: Ranking, m: Measure) -> np.ndarray:
    r"""statPrec@k = (1/k) Σ_{judged relevant d, rank <= k} w_d / π_d (Horvitz–Thompson).

    Unbiased for P@k over the pool; k is the divisor even when fewer were returned; 0 when no
    sampled relevant document is in the top k. All π = 1 gives P@k.
    """
    s = sample_of(r, m)
    relevant = s.label >= m["rel"]
    return r.per_topic(s.weight / s.inclusion, relevant & r.top(m.k)) / m.cutoff


def stat_ap(r: Ranking, m: Measure) -> np.ndarray:
    r"""statAP = (1/R̂) Σ_{judged relevant d at rank k} (w_d/π_d) (1/k) (1 + Σ_{judged relevant
    j above k} w_j/π_j), R̂ = Σ_{judged relevant pooled d} w_d/π_d.

    The ratio of Horvitz–Thompson estimates of the sum of precisions at relevant documents and
    of R, with the second-order π_dj taken as π_d π_j (exact for Poisson sampling, the usual
    approximation for sampling without replacement; Aslam, Pavlu and Yilmaz 2006). A ratio
    estimator: consistent, not exactly unbiased, and no estimator of AP from a fixed-size sample
    smaller than the pool can be (its expectation is a polynomial of degree <= n in the labels,
    AP is not one); the bias is the convexity of 1/R̂ (docs/guides/sampled-pools.md). 0 when
    R̂ = 0; all π = 1 gives AP.
    """
    s = sample_of(r, m)
    rows = np.flatnonzero(s.label >= m["rel"])  # y = w/π there, 0 elsewhere: only rows count
    y = s.weight[rows] / s.inclusion[rows]
    above = _running_at(r, y, rows, rows) - y
    terms = y * (1.0 + above) / r.rank[rows]
    total = s.prels.cached(("ht_relevant", m["rel"]), lambda: s.prels.per_topic(
        _row_relevant(s.prels, m["rel"]) / s.prels.inclusion))
    return safe_divide(np.bincount(r.topic[rows], weights=terms, minlength=r.n_topics), total)


def inferred_ap(r: Ranking, m: Measure) -> np.ndarray:
    r"""xinfAP = (1/R̂) Σ_{judged relevant d at rank k} (w_d / p_{c(d)}) E[prec@k].

    E[prec@1] = 1; for k >= 2, E[prec@k] = 1/k + (1/k) Σ_c A_c (r_c + ε) / (r_c + q_c + 2ε) over
    the strata c of the topic, where A_c counts the pooled documents of c above rank k and r_c,
    q_c the judged relevant and non-relevant ones among them (weighted), ε = 1e-5 (trec_eval's
    INFAP_EPSILON: a stratum with nothing judged above k counts at rate 1/2); documents outside
    the pool count only in k. R̂ = Σ_c N_c r_c / n_c over whole cells = Σ_{judged relevant}
    w / p_c. One stratum with every pooled document judged gives infAP and AP (up to ε); a
    stratum with one judged document stands for its whole stratum. 0 when R̂ = 0.
    """
    s = sample_of(r, m)
    p, rel = s.prels, m["rel"]
    judged = np.flatnonzero(s.weight > 0)  # judged rows are pooled: their stratum is known
    level_of, is_relevant = p.stratum[s.row[judged]], s.label[judged] >= rel
    rows = judged[is_relevant]  # the estimate is needed at the relevant rows only
    expected = np.zeros(len(rows))
    for level in p.cached("strata", lambda: np.unique(p.stratum)):  # one pass per stratum
        inside = level_of == level
        docs = pooled_above(r, level)[rows]
        at_rels, at_nons = judged[inside & is_relevant], judged[inside & ~is_relevant]
        rels = _running_at(r, s.weight[at_rels], at_rels, rows)
        rels -= np.where(inside[is_relevant], s.weight[rows], 0.0)
        nons = _running_at(r, s.weight[at_nons], at_nons, rows)
        expected += docs * (rels + INFAP_EPSILON) / (rels + nons + 2 * INFAP_EPSILON)
    rank = r.rank[rows]
    estimate = np.where(rank == 1, 1.0, (1.0 + expected) / rank)
    fraction = p.cell_fraction()
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = s.weight[rows] / fraction[s.row[rows]]
        total = p.cached(("inferred_relevant", rel), lambda: p.per_topic(
            np.where(_row_relevant(p, rel) > 0, _row_relevant(p, rel) / fraction, 0.0)))
    return safe_divide(np.bincount(r.topic[rows], weights=estimate * scale,
                                   minlength=r.n_topics), total)


def inferred_ndcg(r: Ranking, m: Measure) -> np.ndarray:
    r"""infNDCG = DĈG / IDĈG with DĈG = Σ_{judged ranked d (<= k)} (w_d / p_{c(d)}) g_d /
    log2(rank + 1): within each stratum the judged documents stand for the whole stratum
    (sum of gains scaled by N_c / n_c; Yilmaz, Kanoulas and Aslam 2008, section 4).

    The ideal ranking holds, per gain level g, round(Σ_c N_c n_{c,g} / n_c) documents, sorted by
    gain (cut at k). 0 when the ideal DCG is 0; every pooled document judged gives nDCG. Equal
    to statNDCG when π_d = n_c / N_c (sampling without replacement within strata).
    """
    return _ndcg(r, m, *inferred_ndcg_inputs(r, m))


def inferred_ndcg_inputs(r: Ranking, m: Measure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """infNDCG's (per ranked document its scaled gain, per prels row its count w/p_c and its
    gain) for :func:`_ndcg`."""
    s = sample_of(r, m)
    p, gains = s.prels, m["gains"]
    fraction = p.cell_fraction()
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(s.weight > 0, s.weight / fraction[np.maximum(s.row, 0)], 0.0)
        counts = np.where(p.judged & (p.weight > 0), p.weight / fraction, 0.0)
    gain = np.where(s.weight > 0, gain_of(s.label, gains), 0.0) * scale
    return gain, counts, np.where(p.judged, gain_of(p.label, gains), 0.0)


def stat_ndcg(r: Ranking, m: Measure) -> np.ndarray:
    r"""statNDCG = DĈG / IDĈG with DĈG = Σ_{judged ranked d (<= k)} (w_d/π_d) g_d / log2(rank+1).

    The ideal ranking holds, per gain level, round(Σ_{judged d at that level} w_d / π_d)
    documents (Horvitz–Thompson counts), sorted by gain (cut at k). 0 when the ideal DCG is 0;
    all π = 1 gives nDCG.
    """
    return _ndcg(r, m, *stat_ndcg_inputs(r, m))


def stat_ndcg_inputs(r: Ranking, m: Measure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """statNDCG's (per ranked document its gain w/π · g, per prels row its count w/π and its
    gain) for :func:`_ndcg`."""
    s = sample_of(r, m)
    p, gains = s.prels, m["gains"]
    row_gain = np.where(p.judged, gain_of(p.label, gains), 0.0)
    gain = np.where(s.weight > 0, gain_of(s.label, gains) * s.weight / s.inclusion, 0.0)
    counts = np.where(p.judged, p.weight / p.inclusion, 0.0)
    return gain, counts, row_gain


def _ndcg(r: Ranking, m: Measure, gain: np.ndarray, counts: np.ndarray, row_gain: np.ndarray
          ) -> np.ndarray:
    """DCG of the per-document ``gain`` over the ideal DCG of the estimated number of documents
    per gain level (``counts`` per prels row, summed per topic and level, rounded half up)."""
    rows = np.flatnonzero(gain)  # a zero gain adds nothing to a sum, bit for bit
    if m.cutoff is not None:
        rows = rows[r.rank[rows] <= int(m.cutoff)]
    dcg = np.bincount(r.topic[rows], weights=gain[rows] / np.log2(r.rank[rows] + 1.0),
                      minlength=r.n_topics)
    return safe_divide(dcg, ideal_dcg(*ideal_table(r, m, counts, row_gain), m.cutoff))


def ideal_table(r: Ranking, m: Measure, counts: np.ndarray, row_gain: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """(positive gain levels, descending; per topic and level the rounded sum of ``counts``),
    cached per prels and measure."""
    p, _ = prels_of(r)

    def ideal() -> tuple[np.ndarray, np.ndarray]:
        levels = np.unique(row_gain[row_gain > 0])[::-1]  # a column per positive gain, descending
        table = np.zeros((r.n_topics, len(levels)))
        for column, level in enumerate(levels):
            table[:, column] = p.per_topic(np.where(row_gain == level, counts, 0.0))
        return levels, np.floor(table + 0.5)

    return p.cached(("ideal", m.name, repr(m["gains"])), ideal)


def ideal_dcg(levels: np.ndarray, table: np.ndarray, cutoff: float | None) -> np.ndarray:
    """Per topic, the DCG of ``table[t, l]`` documents of gain ``levels[l]`` sorted by gain
    (cut at ``cutoff`` when given)."""
    end = np.cumsum(table, axis=1)
    start = end - table
    depth = int(end[:, -1].max()) if len(levels) else 0
    if cutoff is not None:
        end, start = np.minimum(end, cutoff), np.minimum(start, cutoff)
        depth = min(depth, int(cutoff))
    discount = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2, depth + 2)))))
    return (levels * (discount[end.astype(np.int64)] - discount[start.astype(np.int64)])
            ).sum(axis=1)


def _register() -> None:
    rel, gains = (REL_PARAM,), (GAINS_PARAM,)
    register(Spec("xinfAP", inferred_ap, "extended inferred AP (stratified sampled judgments)",
                  rel))
    register(Spec("infNDCG", inferred_ndcg, "inferred nDCG (stratified sampled judgments)",
                  gains, cutoff="optional"))
    register(Spec("statAP", stat_ap, "statAP: Horvitz-Thompson AP (sampled judgments)", rel))
    register(Spec("statPrec", stat_precision, "statPrec@k: Horvitz-Thompson P@k (sampled "
                  "judgments)", rel, cutoff="required"))
    register(Spec("statNDCG", stat_ndcg, "statNDCG: Horvitz-Thompson nDCG (sampled judgments)",
                  gains, cutoff="optional"))
    register_alias(r"statP@(?P<k>\d+)", lambda g: make("statPrec", g["k"]), example="statP@10")
    register_alias(r"statP_(?P<k>\d+)", lambda g: make("statPrec", g["k"]), example="statP_10")
    register_alias(r"infNDCG_(?P<k>\d+)", lambda g: make("infNDCG", g["k"]),
                   example="infNDCG_10")
    register_alias(r"statNDCG_(?P<k>\d+)", lambda g: make("statNDCG", g["k"]),
                   example="statNDCG_10")


_register()
