"""Measures for sampled judgments: infAP (Yilmaz and Aslam, CIKM 2006), as trec_eval computes it.

A qrels line with a negative label marks a document that was in the judgment pool but not
sampled for judging ("pooled, unjudged"); a document with no qrels line was never pooled.
"""

from __future__ import annotations

import numpy as np
from pooljudge.metrics.join import Ranking
from pooljudge.metrics.qrels_lookup import UNJUDGED
from pooljudge.metrics.ranked import REL_PARAM, safe_divide
from pooljudge.metrics.registry import Measure, Spec, register

__all__: list[str] = []

INFAP_EPSILON = 0.00001  # trec_eval's INFAP_EPSILON: keeps the ratio defined with no judgment


def _so_far(r: Ranking, flags: np.ndarray) -> np.ndarray:
    """Per ranked document, how many documents of its topic at its rank or above have ``flags``."""
    running = np.cumsum(flags)
    before_topic = np.concatenate(([0], running))[r.offsets[:-1]]
    return running - before_topic[r.topic]


def inferred_ap(r: Ranking, m: Measure) -> np.ndarray:
    """infAP = (1/R) Σ over retrieved relevant d of E[precision at d], trec_eval's estimate.

    For d at rank k = j + 1 (j ≥ 1), with r, n and u the relevant, judged non-relevant
    (0 ≤ label < rel) and pooled-but-unjudged (negative label) documents above it:
    E = 1/k + (j/k) · ((r + n + u) / j) · ((r + ε) / (r + n + 2ε)), ε = 1e-5; at rank 1, E = 1.
    Documents without a qrels line (never pooled) count only in k. R = relevant documents in the
    qrels; 0 when R = 0. With complete judgments (no negative label, every retrieved document
    judged) infAP equals AP up to ε.
    """
    rel = m["rel"]
    labels = r.labels
    relevant = labels >= rel
    nonrel = (labels >= 0) & (labels < rel)
    unsampled = (labels < 0) & (labels != UNJUDGED)
    topic, j = r.topic[relevant], (r.rank[relevant] - 1).astype(np.float64)
    above_rel = (_so_far(r, relevant)[relevant] - 1).astype(np.float64)
    above_nonrel = _so_far(r, nonrel)[relevant].astype(np.float64)
    above_unsampled = _so_far(r, unsampled)[relevant].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = (1.0 / (j + 1.0)
                    + (j / (j + 1.0)) * ((above_rel + above_nonrel + above_unsampled) / j)
                    * ((above_rel + INFAP_EPSILON)
                       / (above_rel + above_nonrel + 2 * INFAP_EPSILON)))
    estimate = np.where(j == 0, 1.0, estimate)
    total = np.bincount(topic, weights=estimate, minlength=r.n_topics)
    return safe_divide(total, r.qrels.num_rel(rel))


register(Spec("infAP", inferred_ap, "inferred average precision (sampled judgments)",
              (REL_PARAM,)))
