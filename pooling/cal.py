"""Continuous active learning (CAL) in the style of Cormack & Grossman's BMI, and its replay.

Features are computed once per collection (:func:`collection_features`: tf-idf of the
documents' text, sublinear tf, l2-normalised; topics projected into the same space). Per
topic, :class:`CalRanker` trains a scikit-learn logistic regression on

- the topic's text as one pseudo-relevant document (label 1),
- every judged document (its label),
- ``negatives`` documents drawn at random from the unjudged ones, taken as not relevant
  (BMI's trick: at low prevalence a random document is almost surely not relevant),

(L2, C = 1, classes balanced, liblinear's dual solver: there are far fewer training rows than
features), then scores every document with one sparse product X·w and returns the best
unjudged ones.
Batch sizes grow as in BMI: b₁ = 1, b_{j+1} = b_j + ceil(b_j / 10).
:func:`replay` runs the loop against known labels (an oracle) and stops by a rule of
:mod:`pooljudge.pooling.stopping`. Pure: numpy, scipy, scikit-learn; no database.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from pooljudge.pooling.stopping import (
    RULES,
    Certificate,
    check_level,
    hypergeometric_p,
    knee_stop,
    target_sample_size,
)

from pooljudge.errors import UsageError

__all__ = ["CalRanker", "ReviewResult", "batch_sizes", "collection_features", "replay"]


def collection_features(documents: Sequence[str], topics: Sequence[str]
                        ) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """(document matrix, topic matrix): tf-idf fitted on the documents only, once."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=1,
                                 dtype=np.float32)
    docs = vectorizer.fit_transform(documents).tocsr()
    return docs, vectorizer.transform(topics).tocsr()


def batch_sizes(n_docs: int) -> list[int]:
    """BMI's batches, 1, 2, 3, …, b + ceil(b/10), cut so that they sum to ``n_docs``."""
    sizes, b, total = [], 1, 0
    while total < n_docs:
        sizes.append(min(b, n_docs - total))
        total += sizes[-1]
        b += math.ceil(b / 10)
    return sizes


class CalRanker:
    """One topic's CAL model over a fixed feature matrix (rows = documents)."""

    def __init__(self, features: sp.csr_matrix, topic: sp.csr_matrix, *, negatives: int = 100,
                 c: float = 1.0, seed: int = 0) -> None:
        self.features = features
        self.topic = topic
        self.negatives = negatives
        self.c = c
        self.rng = np.random.default_rng(seed)

    def next_batch(self, judged: np.ndarray, labels: np.ndarray, size: int) -> np.ndarray:
        """The ``size`` best-scored unjudged documents (row indices, best first).

        ``judged`` are row indices, ``labels`` their 0/1 labels. Without any judged relevant
        document the topic text alone is the positive class.
        """
        scores = self.scores(judged, labels)
        scores[judged] = -np.inf
        size = min(size, len(scores) - len(judged))
        if size <= 0:
            return np.empty(0, dtype=np.int64)
        top = np.argpartition(-scores, size - 1)[:size]
        return top[np.argsort(-scores[top], kind="stable")]

    def scores(self, judged: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """Retrain on the topic, the judgments and random presumed negatives; score all rows."""
        from sklearn.linear_model import LogisticRegression

        n_docs = self.features.shape[0]
        unjudged = np.setdiff1d(np.arange(n_docs), judged, assume_unique=True)
        drawn = self.rng.choice(unjudged, min(self.negatives, len(unjudged)), replace=False)
        rows = sp.vstack([self.topic, self.features[judged], self.features[drawn]]).tocsr()
        y = np.concatenate([[1], labels, np.zeros(len(drawn), dtype=np.int64)])
        if y.min() == y.max():  # one class only (nothing unjudged, all relevant)
            return np.asarray(self.features @ self.topic.T.toarray()).ravel()
        # the dual solver: far fewer rows (judged + negatives) than features, 30x faster
        model = LogisticRegression(C=self.c, solver="liblinear", dual=True,
                                   class_weight="balanced")
        model.fit(rows, y)
        return np.asarray(self.features @ model.coef_.ravel().astype(np.float32)).ravel()


@dataclass(frozen=True)
class ReviewResult:
    """One replayed topic: effort, recall at the stop, and the certificate."""

    judged: int
    relevant_found: int
    relevant_total: int
    recall: float
    certificate: Certificate


def replay(features: sp.csr_matrix, topic: sp.csr_matrix, relevant: np.ndarray, *,
           rule: str = "hypergeometric", target: float = 0.95, alpha: float = 0.05,
           seed: int = 0) -> ReviewResult:
    """Replay CAL for one topic against ``relevant`` (a 0/1 vector over the rows), stopping by
    ``rule``; without a stop the whole collection is judged (recall 1, ``exhausted``).

    ``target``: the target method first draws documents uniformly at random until it holds
    :func:`target_sample_size` relevant ones (or the collection is exhausted); the review
    stops once CAL has found all of them. Its effort counts the sample and the review (their
    union); its relevant found, the union's.
    """
    if rule not in RULES:
        raise UsageError(f"--stopping: one of {', '.join(RULES)}, got {rule!r}")
    check_level(target, alpha)
    relevant = np.asarray(relevant, dtype=np.int64)
    n_docs = len(relevant)
    ranker = CalRanker(features, topic, seed=seed)
    sample = _target_sample(relevant, target, alpha, seed) if rule == "target" else None
    order: list[np.ndarray] = []
    judged = np.empty(0, dtype=np.int64)
    certificate = None
    for size in batch_sizes(n_docs):
        batch = ranker.next_batch(judged, relevant[judged], size)
        order.append(batch)
        judged = np.concatenate(order)
        certificate = _check(rule, judged, relevant, n_docs, target, alpha, sample)
        if certificate is not None:
            break
    return _result(rule, judged, relevant, target, alpha, sample, certificate)


def _target_sample(relevant: np.ndarray, target: float, alpha: float, seed: int) -> np.ndarray:
    """Rows drawn at random until ``target_sample_size`` relevant ones are held (or all)."""
    draw = np.random.default_rng(seed + 7919).permutation(len(relevant))
    found = np.cumsum(relevant[draw])
    t = target_sample_size(target, alpha)
    stop = int(np.searchsorted(found, t)) + 1 if found[-1] >= t else len(draw)
    return draw[:stop]


def _check(rule: str, judged: np.ndarray, relevant: np.ndarray, n_docs: int, target: float,
           alpha: float, sample: np.ndarray | None) -> Certificate | None:
    """The certificate if ``rule`` stops after ``judged`` (in judging order), else None."""
    labels = relevant[judged]
    found = int(labels.sum())
    if rule == "hypergeometric":
        p = hypergeometric_p(labels, n_docs, target)
        if p < alpha:
            return Certificate("hypergeometric", True, target, alpha, len(judged), found,
                               p_value=p, recall_bound=target)
    elif rule == "target" and sample is not None:
        targets = sample[relevant[sample] == 1]
        if len(targets) and np.isin(targets, judged).all() and len(judged) < n_docs:
            union = np.union1d(judged, sample)
            return Certificate("target", True, target, alpha, len(union),
                               int(relevant[union].sum()), sample_size=len(sample),
                               sample_relevant=len(targets), recall_bound=target)
    elif rule == "knee" and knee_stop(labels):
        return Certificate("knee", False, target, alpha, len(judged), found)
    return None


def _result(rule: str, judged: np.ndarray, relevant: np.ndarray, target: float, alpha: float,
            sample: np.ndarray | None, certificate: Certificate | None) -> ReviewResult:
    total = int(relevant.sum())
    if certificate is None:  # the whole collection judged
        certificate = Certificate(
            rule, rule != "knee", target, alpha, len(judged), total, exhausted=True,
            sample_size=None if sample is None else len(sample),
            sample_relevant=None if sample is None else int(relevant[sample].sum()))
    found = certificate.relevant_found
    return ReviewResult(certificate.judged, found, total, found / total if total else 1.0,
                        certificate)
