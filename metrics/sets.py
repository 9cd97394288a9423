"""Set-based measures, counts, and judgment coverage (Judged@k, Unjudged@k).

Counts (NumQ, NumRel, NumRet, NumRelRet, NumNonRelJudgedRet) are summed over topics in the
summary row, as trec_eval does; everything else (Utility included) is averaged. A topic the run
skipped has 0 returned documents: its SetP, SetR, SetF, SetAP, SetRelP, Judged@k and Unjudged@k
are 0, its Utility c * R + d * (docs - R).
"""

from __future__ import annotations

import math

import numpy as np
from pooljudge.metrics.join import Ranking
from pooljudge.metrics.qrels_lookup import UNJUDGED
from pooljudge.metrics.ranked import REL_PARAM, safe_divide
from pooljudge.metrics.registry import Measure, Param, Spec, make, register, register_alias

__all__: list[str] = []


def _rel_ret(r: Ranking, m: Measure) -> np.ndarray:
    return r.per_topic(1.0, r.relevant(m["rel"]))


def set_precision(r: Ranking, m: Measure) -> np.ndarray:
    """SetP = relevant retrieved / retrieved (the whole ranking); 0 when nothing was returned."""
    return safe_divide(_rel_ret(r, m), r.returned)


def set_recall(r: Ranking, m: Measure) -> np.ndarray:
    """SetR = relevant retrieved / R; 0 when R = 0."""
    return safe_divide(_rel_ret(r, m), r.qrels.num_rel(m["rel"]))


def set_f(r: Ranking, m: Measure) -> np.ndarray:
    """SetF = (1 + b^2) * SetP * SetR / (b^2 * SetP + SetR) with b = beta; 0 when both are 0."""
    beta2 = float(m["beta"]) ** 2
    p, q = set_precision(r, m), set_recall(r, m)
    return safe_divide((1.0 + beta2) * p * q, beta2 * p + q)


def set_ap(r: Ranking, m: Measure) -> np.ndarray:
    """SetAP = relret^2 / (retrieved * R) = SetP * SetR (trec_eval's set_map); 0 when nothing
    was returned or R = 0."""
    rel_ret = _rel_ret(r, m)
    return safe_divide(rel_ret * rel_ret, r.returned * r.qrels.num_rel(m["rel"]).astype(float))


def set_relative_precision(r: Ranking, m: Measure) -> np.ndarray:
    """SetRelP = relret / min(retrieved, R): SetP relative to the best possible for that many
    documents; 0 when nothing was returned or R = 0."""
    return safe_divide(_rel_ret(r, m), np.minimum(r.returned, r.qrels.num_rel(m["rel"])))


def utility(r: Ranking, m: Measure) -> np.ndarray:
    """Utility = a * relret + b * (retrieved - relret) + c * (R - relret)
    + d * (docs + relret - retrieved - R), trec_eval's utility with p1..p4 = a, b, c, d and
    ``docs`` its ``-N`` (documents in the collection; only the d term reads it). Unjudged
    retrieved documents count as retrieved non-relevant. Averaged over topics like trec_eval."""
    rel_ret, retrieved = _rel_ret(r, m), r.returned.astype(np.float64)
    num_rel = r.qrels.num_rel(m["rel"]).astype(np.float64)
    return (m["a"] * rel_ret + m["b"] * (retrieved - rel_ret) + m["c"] * (num_rel - rel_ret)
            + m["d"] * (m["docs"] + rel_ret - retrieved - num_rel))


def num_q(r: Ranking, m: Measure) -> np.ndarray:
    """NumQ = 1 per evaluated topic (every qrels topic); summed in the summary."""
    return np.ones(r.n_topics)


def num_rel(r: Ranking, m: Measure) -> np.ndarray:
    """NumRel = R, the relevant documents in the qrels (label >= rel); summed."""
    return r.qrels.num_rel(m["rel"]).astype(np.float64)


def num_ret(r: Ranking, m: Measure) -> np.ndarray:
    """NumRet = documents the run returned for the topic; summed."""
    return r.returned.astype(np.float64)


def num_rel_ret(r: Ranking, m: Measure) -> np.ndarray:
    """NumRelRet = relevant documents the run returned; summed."""
    return _rel_ret(r, m)


def num_nonrel_judged_ret(r: Ranking, m: Measure) -> np.ndarray:
    """NumNonRelJudgedRet = returned documents judged non-relevant (0 <= label < rel); summed.
    Unjudged documents and negative labels are not counted."""
    return r.per_topic(1.0, (r.labels >= 0) & (r.labels < m["rel"]))


def judged(r: Ranking, m: Measure) -> np.ndarray:
    """Judged@k = judged documents in the top min(k, returned) / min(k, returned) (ir_measures).

    Any qrels line counts as a judgment, negative labels included; 0 when nothing was returned.
    """
    k = m.k
    count = r.per_topic(1.0, r.top(k) & (r.labels != UNJUDGED))
    return safe_divide(count, np.minimum(r.returned, k))


def unjudged(r: Ranking, m: Measure) -> np.ndarray:
    """Unjudged@k = unjudged documents in the top k / k (k even if fewer were returned).

    Unjudged (trec_eval 10's ``unj_k``): no qrels line, or a negative label. Under compat "9",
    only documents without any qrels line count. So with k documents returned, Judged@k +
    Unjudged@k = 1 exactly when no negative label is in the top k (always under compat "9").
    """
    k = m.k
    unjudged = r.labels == UNJUDGED if r.compat == "9" else r.labels < 0
    return r.per_topic(1.0, r.top(k) & unjudged) / k


def _register() -> None:
    beta = Param("beta", float, 1.0, lambda v: v >= 0, "beta must be >= 0",
                 "the weight of recall against precision (1: the harmonic mean)")
    weights = tuple(Param(name, float, value, math.isfinite, f"{name} must be finite", what)
                    for name, value, what in (
                        ("a", 1.0, "the gain of a relevant document retrieved"),
                        ("b", -1.0, "the gain of a non-relevant document retrieved"),
                        ("c", 0.0, "the gain of a relevant document not retrieved"),
                        ("d", 0.0, "the gain of a non-relevant document not retrieved")))
    docs = Param("docs", int, 0, lambda v: v >= 0, "docs must be >= 0",
                 "documents in the collection (trec_eval's -N); only the d term reads it")
    for spec in (
        Spec("SetP", set_precision, "precision of the whole ranking", (REL_PARAM,)),
        Spec("SetR", set_recall, "recall of the whole ranking", (REL_PARAM,)),
        Spec("SetF", set_f, "F-measure of SetP and SetR", (REL_PARAM, beta)),
        Spec("SetAP", set_ap, "SetP * SetR (unranked average precision)", (REL_PARAM,)),
        Spec("SetRelP", set_relative_precision, "SetP relative to the best possible",
             (REL_PARAM,)),
        Spec("Utility", utility, "linear utility of the retrieved set",
             (REL_PARAM, *weights, docs)),
        Spec("NumNonRelJudgedRet", num_nonrel_judged_ret,
             "judged non-relevant documents returned", (REL_PARAM,), summary="sum"),
        Spec("NumQ", num_q, "number of topics", summary="sum"),
        Spec("NumRel", num_rel, "relevant documents in the qrels", (REL_PARAM,), summary="sum"),
        Spec("NumRet", num_ret, "documents returned", summary="sum"),
        Spec("NumRelRet", num_rel_ret, "relevant documents returned", (REL_PARAM,), summary="sum"),
        Spec("Judged", judged, "share of the top k that has a judgment", (), "required"),
        Spec("Unjudged", unjudged, "unjudged documents in the top k, divided by k", (),
             "required"),
    ):
        register(spec)
    for pattern, build, example in (
        (r"set_P", lambda g: make("SetP"), "set_P"),
        (r"set_recall", lambda g: make("SetR"), "set_recall"),
        (r"set_F", lambda g: make("SetF"), "set_F"),
        (r"set_map", lambda g: make("SetAP"), "set_map"),
        (r"set_relative_P", lambda g: make("SetRelP"), "set_relative_P"),
        (r"utility", lambda g: make("Utility"), "utility"),
        (r"utility_(?P<a>[^,]+),(?P<b>[^,]+),(?P<c>[^,]+),(?P<d>[^,]+)",
         lambda g: make("Utility", a=g["a"], b=g["b"], c=g["c"], d=g["d"]), "utility_2,-1,0,0"),
        (r"num_nonrel_judged_ret", lambda g: make("NumNonRelJudgedRet"), "num_nonrel_judged_ret"),
        (r"num_q", lambda g: make("NumQ"), "num_q"),
        (r"num_rel", lambda g: make("NumRel"), "num_rel"),
        (r"num_ret", lambda g: make("NumRet"), "num_ret"),
        (r"num_rel_ret", lambda g: make("NumRelRet"), "num_rel_ret"),
        (r"unj_(?P<k>\d+)", lambda g: make("Unjudged", g["k"]), "unj_10"),
    ):
        register_alias(pattern, build, example=example)


_register()
