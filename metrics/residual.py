"""Measures that say how far a score can still move: RBP with its residual, and RecallDepth.

With weights w_i = (1 - p) * p^(i-1) over ranks i = 1..n of a ranking of n documents (cut at k
for ``@k``, so n becomes min(n, k)):

- ``RBP(p=…)``: sum of w_i over relevant documents (label >= ``rel``; binary gains). 0 when
  nothing was returned.
- ``RBPResidual(p=…)``: sum of w_i over documents with no judgment or a negative label, plus the
  tail p^n the ranking never reached; 1 for a topic the run did not return. Whatever the unjudged
  documents and the unseen tail turn out to be, the true RBP lies in [RBP, RBP + residual]
  (Moffat & Zobel, 2008). Judged non-relevant documents (0 <= label < rel) add to neither.
- ``RecallDepth(r=0.95)``: the first rank at which recall (relevant so far / R, in double
  precision) reaches r. No value (NaN) when the ranking never reaches it, including R = 0 and a
  topic the run skipped: the mean leaves those topics out; :func:`unreached` counts them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from pooljudge.metrics.join import Ranking
from pooljudge.metrics.registry import Measure, Param, Spec, register

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["rbp", "rbp_residual", "recall_depth", "unreached"]

_P = Param("p", float, 0.8, lambda v: 0.0 < v < 1.0, "p must lie strictly between 0 and 1",
           "the persistence: the chance of reading on to the next rank")
_REL = Param("rel", int, 1, lambda v: v >= 1, "rel must be a positive integer",
             "the lowest label that counts as relevant (trec_eval's -l)")
_R = Param("r", float, 0.95, lambda v: 0.0 < v <= 1.0, "r must lie in (0, 1]",
           "the share of the relevant documents to reach")


def _weights(r: Ranking, m: Measure) -> tuple[np.ndarray, np.ndarray | None]:
    """Per ranked document its RBP weight, and the cutoff mask (None without a cutoff)."""
    p = float(m["p"])
    weights = (1.0 - p) * np.power(p, r.rank - 1.0)
    return weights, None if m.cutoff is None else r.top(int(m.cutoff))


def rbp(r: Ranking, m: Measure) -> np.ndarray:
    """RBP = (1 - p) * sum_{i<=k} rel_i * p^(i-1) with rel_i = [label_i >= rel]."""
    weights, top = _weights(r, m)
    relevant = r.relevant(m["rel"])
    return r.per_topic(weights, relevant if top is None else relevant & top)


def rbp_residual(r: Ranking, m: Measure) -> np.ndarray:
    """(1 - p) * sum_{i<=k} [label_i unjudged or < 0] * p^(i-1) + p^min(n, k); 1 when n = 0."""
    weights, top = _weights(r, m)
    unjudged = r.labels < 0
    judged_part = r.per_topic(weights, unjudged if top is None else unjudged & top)
    depth = r.returned if m.cutoff is None else np.minimum(r.returned, int(m.cutoff))
    return judged_part + np.power(float(m["p"]), depth)


def recall_depth(r: Ranking, m: Measure) -> np.ndarray:
    """The smallest rank i with (relevant in the top i) / R >= r; NaN when none (or R = 0)."""
    num_rel = r.qrels.num_rel(m["rel"])
    relevant = r.relevant(m["rel"])
    topic = r.topic[relevant]
    recall = r.relevant_so_far(m["rel"])[relevant] / num_rel[topic]
    reached = recall >= float(m["r"])
    out = np.full(r.n_topics, np.nan)
    hit_topics = topic[reached]
    first = np.ones(len(hit_topics), dtype=bool)
    first[1:] = hit_topics[1:] != hit_topics[:-1]
    out[hit_topics[first]] = r.rank[relevant][reached][first]
    return out


def unreached(tidy: pd.DataFrame) -> dict[tuple[str, str], int]:
    """For every (run, RecallDepth measure) in a tidy per-topic frame, the topics with no value."""
    rows = tidy[tidy["measure"].astype(str).str.startswith("RecallDepth")
                & (tidy["topic"] != "all")]
    missing = rows[rows["value"].isna()].groupby(["run", "measure"], sort=False).size()
    return {(str(run), str(measure)): int(n) for (run, measure), n in missing.items()}


def _register() -> None:
    register(Spec("RBP", rbp, "rank-biased precision, binary gains (label >= rel)",
                  (_P, _REL), "optional"))
    register(Spec("RBPResidual", rbp_residual,
                  "RBP residual: weight of unjudged ranks plus the unseen tail p^n", (_P,),
                  "optional"))
    register(Spec("RecallDepth", recall_depth, "first rank where recall reaches r (NaN: never)",
                  (_R, _REL)))


_register()
