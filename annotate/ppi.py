"""Prediction-powered estimates of a mean: few human values, many automatic ones, a valid CI.

Setting: ``Y`` is the value we want the mean of (a metric under people's labels), known only
on ``n`` *labelled* units; ``f`` is an automatic stand-in for it (the same metric under an
automatic judge's labels), known on the ``n`` labelled units and on ``N`` *unlabelled* ones.
The labelled units must be a uniform random sample of all units (otherwise no estimate here is
unbiased). PPI (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, "Prediction-powered
inference", Science 2023) corrects the automatic mean with the error measured where both are
known; PPI++ (Angelopoulos, Duchi & Zrnic, "PPI++: Efficient prediction-powered inference",
2023) weighs the automatic values by ``lambda``, so a useless judge costs nothing:

    theta  = lambda * mean(f_unlabelled) + mean(Y - lambda * f_labelled)
    var    = Var(Y - lambda * f) / n  +  lambda^2 * Var(f_unlabelled) / N
    lambda = Cov(Y, f) / ((1 + n / N) * Var(f)),  clipped to [0, 1]

and the 95% interval is ``theta ± z_{0.975} * sqrt(var)`` (normal approximation; sample
variances with ddof=1). ``lambda = 1`` is plain PPI, ``lambda = 0`` the human-only mean. For
IR evaluation the same estimator is used by Boyeau, Angelopoulos, Yosef, Malik & Jordan,
"AutoEval done right: using synthetic data for model evaluation" (2024).

Why not the ``ppi-python`` package: it installs numba (and its LLVM) for estimators that are,
for a mean, the few lines above; the formula is implemented here instead, with the reference
test of coverage in the test-suite.

Systems (:func:`system_estimates`): the unit is a topic. A topic is *labelled* when people
labelled every pair of its pool, so its metric under people's labels is known exactly; the
others have only the judge's. Per run the estimate is PPI++ over topics (Y: the metric under
people's qrels, f: under the judge's), beside the human-only mean of the labelled topics (the
same human budget) and the plain means under each source. For an unbiased estimate the
labelled topics must be a random subset of the topics (e.g. judge whole topics, drawn at
random). Rankings of the runs are compared with :mod:`pooljudge.metrics.correlate`'s Kendall's tau
and
tau_AP, people's labels (all topics they judged) being the reference.

Undefined values are NaN: an interval with fewer than two labelled units, or (PPI) fewer
than two unlabelled ones; ``lambda`` is 0 when the automatic values do not vary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from pooljudge.errors import InputError, UsageError

__all__ = ["AUTOMATIC_AT", "Estimate", "automatic_qrels", "classical_mean", "labelled_topics",
           "ppi_mean", "system_estimates", "tuned_lambda"]


@dataclass(frozen=True)
class Estimate:
    """A mean with its two-sided interval at ``confidence``; ``lam`` is PPI++'s weight
    (None for the classical mean); ``n`` labelled and ``N`` unlabelled units."""

    mean: float
    low: float
    high: float
    n: int
    N: int = 0
    lam: float | None = None
    confidence: float = 0.95

    @property
    def width(self) -> float:
        return self.high - self.low


def _z(confidence: float) -> float:
    """The two-sided normal quantile z with P(|Z| <= z) = ``confidence``; UsageError outside
    (0, 1)."""
    if not 0.0 < confidence < 1.0:
        raise UsageError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    return float(norm.ppf(0.5 + confidence / 2))


def _var(values: np.ndarray) -> float:
    return float(np.var(values, ddof=1)) if len(values) >= 2 else float("nan")


def classical_mean(y: np.ndarray, *, confidence: float = 0.95) -> Estimate:
    """The mean of the labelled values alone with its normal interval (human only)."""
    y = np.asarray(y, dtype=float)
    mean = float(y.mean()) if len(y) else float("nan")
    half = _z(confidence) * np.sqrt(_var(y) / len(y)) if len(y) else float("nan")
    return Estimate(mean, mean - half, mean + half, len(y), confidence=confidence)


def tuned_lambda(y: np.ndarray, f_labelled: np.ndarray, f_unlabelled: np.ndarray) -> float:
    """PPI++'s variance-minimising weight of the automatic values, clipped to [0, 1]."""
    n, big_n = len(y), len(f_unlabelled)
    f_all = np.concatenate([f_labelled, f_unlabelled])
    var_f = _var(f_all)
    if n < 2 or not np.isfinite(var_f) or var_f == 0.0:
        return 0.0
    cov = float(np.cov(y, f_labelled, ddof=1)[0, 1])
    return float(np.clip(cov / ((1.0 + n / max(big_n, 1)) * var_f), 0.0, 1.0))


def ppi_mean(y: np.ndarray, f_labelled: np.ndarray, f_unlabelled: np.ndarray, *,
             confidence: float = 0.95, lam: float | None = None) -> Estimate:
    """The PPI++ estimate of the mean of Y (``lam`` None: tuned; 1: plain PPI).

    ``y`` and ``f_labelled`` are aligned (one value each per labelled unit). InputError when
    they differ in length.
    """
    y, f_lab = np.asarray(y, dtype=float), np.asarray(f_labelled, dtype=float)
    f_unl = np.asarray(f_unlabelled, dtype=float)
    if len(y) != len(f_lab):
        raise InputError("y and f_labelled must have one value per labelled unit each")
    if len(y) == 0 or len(f_unl) == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), len(y), len(f_unl), lam,
                        confidence)
    weight = tuned_lambda(y, f_lab, f_unl) if lam is None else float(lam)
    mean = float(weight * f_unl.mean() + (y - weight * f_lab).mean())
    variance = _var(y - weight * f_lab) / len(y) + weight**2 * _var(f_unl) / len(f_unl)
    if weight == 0.0 and len(f_unl) < 2:
        variance = _var(y) / len(y)
    half = _z(confidence) * np.sqrt(variance)
    return Estimate(mean, mean - half, mean + half, len(y), len(f_unl), weight, confidence)


def labelled_topics(human: pd.DataFrame, pool_sizes: pd.Series) -> list[str]:
    """Topics whose every pooled pair has a label from people: ``human`` (topic, doc, label)
    against ``pool_sizes`` (pairs per topic, indexed by topic)."""
    counts = human.groupby("topic").size()
    sizes = pool_sizes.reindex(counts.index)
    return sorted(str(t) for t in counts.index[(counts >= sizes).to_numpy()])


def _per_topic(qrels: pd.DataFrame, runs: Sequence[str], measure: str) -> pd.DataFrame:
    """runs × topics of ``measure`` (topics of the qrels; empty qrels: no column)."""
    from pooljudge.metrics.evaluate import evaluate

    if qrels.empty:
        return pd.DataFrame(index=pd.Index([], name="run"))
    tidy = evaluate(qrels[["topic", "doc", "label"]], list(runs), [measure], per_topic=True)
    tidy = tidy[tidy["topic"] != "all"]
    return tidy.pivot_table(index="run", columns="topic", values="value", sort=False)


def system_estimates(human: pd.DataFrame, auto: pd.DataFrame, runs: Sequence[str],
                     measure: str, *, pool_sizes: pd.Series, confidence: float = 0.95
                     ) -> tuple[pd.DataFrame, dict[str, float | None]]:
    """Per run (rows in the runs' order): ``run, human, automatic, human_only, human_only_low,
    human_only_high, ppi, ppi_low, ppi_high, lambda, labelled_topics, topics``; and the
    rank correlations ``{tau, tau_ap, tau_ppi, tau_ap_ppi}`` against people's ordering.

    ``human``: mean over the topics people judged (unjudged pairs count as not relevant, as
    in an export of people's labels only); ``automatic``: mean over every topic under the
    judge's labels. InputError (from the evaluator) for a bad run file or measure name.
    """
    from pooljudge.metrics.correlate import kendall_tau, ordering, tau_ap

    y, f = _per_topic(human, runs, measure), _per_topic(auto, runs, measure)
    chosen = [t for t in labelled_topics(human, pool_sizes) if t in f.columns]
    others = [t for t in f.columns if t not in chosen]
    rows = []
    for name in f.index:
        yl = y.loc[name, chosen].to_numpy(float) if chosen else np.zeros(0)
        own = classical_mean(yl, confidence=confidence)
        est = ppi_mean(yl, f.loc[name, chosen].to_numpy(float), f.loc[name, others].to_numpy(
            float), confidence=confidence)
        rows.append({"run": name,
                     "human": float(y.loc[name].mean()) if name in y.index else float("nan"),
                     "automatic": float(f.loc[name].mean()), "human_only": own.mean,
                     "human_only_low": own.low, "human_only_high": own.high, "ppi": est.mean,
                     "ppi_low": est.low, "ppi_high": est.high, "lambda": est.lam,
                     "labelled_topics": len(chosen), "topics": f.shape[1]})
    table = pd.DataFrame(rows)
    ranks: dict[str, float | None] = {}
    if len(table) >= 2 and table["human"].notna().all():
        people = table.set_index("run")["human"]
        for suffix, column in (("", "automatic"), ("_ppi", "ppi")):
            other = table.set_index("run")[column]
            if other.notna().all():
                ranks[f"tau{suffix}"] = kendall_tau(people, other)[0]
                ranks[f"tau_ap{suffix}"] = tau_ap(ordering(people), ordering(other))
    return table, {k: (None if v is None or not np.isfinite(v) else float(v))
                   for k, v in ranks.items()}


AUTOMATIC_AT = 10  # the depth of Automatic@k beside Unjudged@k in eval and report


def automatic_qrels(path: str) -> pd.DataFrame:
    """Qrels (``topic, doc, label``) marking with 1 the lines an export's provenance ``path``
    says came from an automatic judge (``source`` automatic), 0 the others (people's).

    P@k of a run against them is the share of its top k that is labelled automatically
    (Automatic@k, divided by k like Unjudged@k). Lines without a label (left out of the
    qrels) are dropped. InputError (naming ``path``) for an unreadable file or one without
    the columns ``topic, doc, label, source`` (an export by ``human-else-automatic``).
    """
    from pooljudge.formats.trec import read_provenance

    frame = read_provenance(path)
    missing = [c for c in ("topic", "doc", "label", "source") if c not in frame.columns]
    if missing:
        raise InputError(f"no {', '.join(missing)} column: not the provenance of an export "
                         "with --policy human-else-automatic:NAME", path=path)
    frame = frame[frame["label"] != ""]
    return pd.DataFrame({"topic": frame["topic"].to_numpy(), "doc": frame["doc"].to_numpy(),
                         "label": (frame["source"] == "automatic").to_numpy(np.int64)})
