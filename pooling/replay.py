"""Replay a CAL review against known labels and stop it by every rule of one trajectory.

The rules do not steer the ranking (CAL is trained on its own judgments only), so one
trajectory of :class:`pooljudge.pooling.cal.CalRanker` serves every rule of
:mod:`pooljudge.pooling.stopping`: after each batch each rule still running is checked, and
the loop ends when every rule has stopped (or the collection is exhausted). Per rule:

- ``hypergeometric``: :func:`hypergeometric_p` over the judged sequence below α.
- ``target`` and ``qbcb``: a uniform random permutation of the collection (one per seed,
  shared by both) is drawn until it holds r relevant documents (r = :func:`target_sample_size`
  for target, ``positives`` or :func:`qbcb_positives` for QBCB); the review stops once it has
  found j of them (j = r for target, :func:`qbcb_quota` for QBCB). Their effort is the union
  of sample and review (both are judged). A collection with fewer than r relevant documents
  is sampled whole: its effort is every document.
- ``knee``: :func:`knee_stop` over the judged sequence.
- ``quant`` / ``quantci``: :func:`quant_recall` with the current model's probabilities ≥ τ,
  from the third batch on (as tarexp does).

A rule that has not stopped before the last document is judged ends ``exhausted``: recall 1,
and no claim of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from pooljudge.pooling.cal import CalRanker, batch_sizes, best_unjudged
from pooljudge.pooling.stopping import (
    GUARANTEES,
    QUANTCI_STD,
    RULES,
    Certificate,
    check_level,
    hypergeometric_p,
    knee_stop,
    qbcb_positives,
    qbcb_quota,
    quant_recall,
    target_sample_size,
)

from pooljudge.errors import UsageError

__all__ = ["ReviewResult", "replay", "replay_rules"]

QUANT_FIRST_BATCH = 2  # Quant is checked once this many batches are judged


@dataclass(frozen=True)
class ReviewResult:
    """One replayed topic under one rule: effort, recall at the stop, and the certificate."""

    judged: int
    relevant_found: int
    relevant_total: int
    recall: float
    certificate: Certificate


@dataclass(frozen=True)
class _Sample:
    """A random-sample rule's draw (rows, in draw order) and quota of its relevant rows."""

    rows: np.ndarray
    relevant_rows: np.ndarray
    quota: int


def replay(features: sp.csr_matrix, topic: sp.csr_matrix, relevant: np.ndarray, *,
           rule: str = "hypergeometric", target: float = 0.95, alpha: float = 0.05,
           seed: int = 0, positives: int | None = None) -> ReviewResult:
    """:func:`replay_rules` for one rule."""
    return replay_rules(features, topic, relevant, (rule,), target=target, alpha=alpha,
                        seed=seed, positives=positives)[rule]


def replay_rules(features: sp.csr_matrix, topic: sp.csr_matrix, relevant: np.ndarray,
                 rules: Sequence[str], *, target: float = 0.95, alpha: float = 0.05,
                 seed: int = 0, positives: int | None = None) -> dict[str, ReviewResult]:
    """Replay CAL for one topic against ``relevant`` (0/1 over the rows); per rule, where it
    stopped. ``positives``: QBCB's r (default :func:`qbcb_positives`)."""
    for rule in rules:
        if rule not in RULES:
            raise UsageError(f"--stopping: one of {', '.join(RULES)}, got {rule!r}")
    check_level(target, alpha)
    relevant = np.asarray(relevant, dtype=np.int64)
    samples = _samples(rules, relevant, target, alpha, positives, seed)
    stops = _trajectory(CalRanker(features, topic, seed=seed), relevant, list(rules), samples,
                        target, alpha)
    return {rule: _result(rule, stops.get(rule), relevant, target, alpha, samples.get(rule))
            for rule in rules}


def _samples(rules: Sequence[str], relevant: np.ndarray, target: float, alpha: float,
             positives: int | None, seed: int) -> dict[str, _Sample]:
    """The random samples of ``target`` and ``qbcb`` (one permutation, cut at r relevant)."""
    wanted = {}
    if "target" in rules:
        t = target_sample_size(target, alpha)
        wanted["target"] = (t, t)
    if "qbcb" in rules:
        r = positives if positives is not None else qbcb_positives(target, alpha)
        quota = qbcb_quota(r, target, alpha)
        if quota is None:
            raise UsageError(f"--positives: {r} sample relevant documents cannot certify "
                             f"recall {target} at alpha {alpha}; need at least "
                             f"{target_sample_size(target, alpha)}")
        wanted["qbcb"] = (r, quota)
    if not wanted:
        return {}
    draw = np.random.default_rng(seed + 7919).permutation(len(relevant))
    found = np.cumsum(relevant[draw])
    out = {}
    for rule, (r, quota) in wanted.items():
        stop = int(np.searchsorted(found, r)) + 1 if found[-1] >= r else len(draw)
        rows = draw[:stop]
        relevant_rows = rows[relevant[rows] == 1]
        out[rule] = _Sample(rows, relevant_rows, min(quota, len(relevant_rows)))
    return out


def _trajectory(ranker: CalRanker, relevant: np.ndarray, running: list[str],
                samples: dict[str, _Sample], target: float, alpha: float
                ) -> dict[str, Certificate]:
    """Judge batch after batch until every rule in ``running`` has stopped; their stops."""
    n_docs = len(relevant)
    stops: dict[str, Certificate] = {}
    judged = np.empty(0, dtype=np.int64)
    for batch_number, size in enumerate(batch_sizes(n_docs)):
        decision, probabilities = ranker.fit(judged, relevant[judged])
        if batch_number >= QUANT_FIRST_BATCH:
            _check_quant(stops, running, judged, relevant, probabilities, target, alpha)
        if len(stops) == len(running):
            break
        judged = np.concatenate([judged, best_unjudged(decision, judged, size)])
        if len(judged) == n_docs:  # everything judged: the rules still running are exhausted
            break
        for rule in running:
            if rule not in stops and rule not in ("quant", "quantci"):
                certificate = _check(rule, judged, relevant, target, alpha, samples.get(rule))
                if certificate is not None:
                    stops[rule] = certificate
        if len(stops) == len(running):
            break
    return stops


def _check_quant(stops: dict[str, Certificate], running: list[str], judged: np.ndarray,
                 relevant: np.ndarray, probabilities: np.ndarray, target: float,
                 alpha: float) -> None:
    reviewed = np.zeros(len(relevant), dtype=bool)
    reviewed[judged] = True
    for rule, nstd in (("quant", 0.0), ("quantci", QUANTCI_STD)):
        if rule in running and rule not in stops:
            estimate = quant_recall(probabilities, reviewed, nstd)
            if estimate >= target:
                stops[rule] = Certificate(rule, False, target, alpha, len(judged),
                                          int(relevant[judged].sum()), recall_estimate=estimate)


def _check(rule: str, judged: np.ndarray, relevant: np.ndarray, target: float, alpha: float,
           sample: _Sample | None) -> Certificate | None:
    """The certificate if ``rule`` stops after ``judged`` (in judging order), else None."""
    labels = relevant[judged]
    found = int(labels.sum())
    if rule == "hypergeometric":
        p = hypergeometric_p(labels, len(relevant), target)
        if p < alpha:
            return Certificate(rule, True, target, alpha, len(judged), found, p_value=p,
                               recall_bound=target)
    elif rule in ("target", "qbcb") and sample is not None:
        hits = np.isin(sample.relevant_rows, judged).sum()
        if len(sample.relevant_rows) and hits >= sample.quota and len(judged) < len(relevant):
            union = np.union1d(judged, sample.rows)
            return Certificate(rule, True, target, alpha, len(union), int(relevant[union].sum()),
                               sample_size=len(sample.rows),
                               sample_relevant=len(sample.relevant_rows),
                               sample_quota=sample.quota, recall_bound=target)
    elif rule == "knee" and knee_stop(labels):
        return Certificate(rule, False, target, alpha, len(judged), found)
    return None


def _result(rule: str, certificate: Certificate | None, relevant: np.ndarray, target: float,
            alpha: float, sample: _Sample | None) -> ReviewResult:
    total = int(relevant.sum())
    if certificate is None:  # the whole collection judged
        certificate = Certificate(
            rule, rule in GUARANTEES, target, alpha, len(relevant), total, exhausted=True,
            sample_size=None if sample is None else len(sample.rows),
            sample_relevant=None if sample is None else len(sample.relevant_rows),
            sample_quota=None if sample is None else sample.quota)
    found = certificate.relevant_found
    return ReviewResult(certificate.judged, found, total, found / total if total else 1.0,
                        certificate)
