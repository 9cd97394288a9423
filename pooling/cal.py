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
:mod:`pooljudge.pooling.replay` runs the loop against known labels (an oracle) and stops by
the rules of :mod:`pooljudge.pooling.stopping`. Pure: numpy, scipy, scikit-learn; no database.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

__all__ = ["CalRanker", "batch_sizes", "best_unjudged", "collection_features"]


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
        return best_unjudged(self.scores(judged, labels), judged, size)

    def scores(self, judged: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """Retrain on the topic, the judgments and random presumed negatives; score all rows
        (the model's decision values w·x + b)."""
        return self.fit(judged, labels)[0]

    def fit(self, judged: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(decision values, probabilities of relevance) of every row under a model retrained
        on the topic, the judgments and random presumed negatives. The probabilities undo the
        balanced class weights: logit = w·x + b − ln(n₀ / n₁) over the training rows (King &
        Zeng's prior correction; balancing multiplies the odds by n₀ / n₁). With one class only
        (nothing unjudged, or everything relevant) the scores are the rows' similarity to the
        topic and the probabilities that class's constant."""
        from sklearn.linear_model import LogisticRegression

        n_docs = self.features.shape[0]
        unjudged = np.setdiff1d(np.arange(n_docs), judged, assume_unique=True)
        drawn = self.rng.choice(unjudged, min(self.negatives, len(unjudged)), replace=False)
        rows = sp.vstack([self.topic, self.features[judged], self.features[drawn]]).tocsr()
        y = np.concatenate([[1], labels, np.zeros(len(drawn), dtype=np.int64)])
        if y.min() == y.max():  # one class only (nothing unjudged, all relevant)
            similarity = np.asarray(self.features @ self.topic.T.toarray()).ravel()
            return similarity, np.full(n_docs, float(y[0]))
        # the dual solver: far fewer rows (judged + negatives) than features, 30x faster
        # liblinear shuffles with numpy's global state unless given a seed: fixed, so that a
        # replay with the same seed is the same replay
        model = LogisticRegression(C=self.c, solver="liblinear", dual=True,
                                   class_weight="balanced", random_state=0)
        model.fit(rows, y)
        decision = np.asarray(self.features @ model.coef_.ravel().astype(np.float32)).ravel()
        decision = decision + np.float32(model.intercept_[0])
        # balanced weights multiply the odds by n0/n1: undo it (prior correction) so the
        # probabilities are the training sample's, not a 50:50 world's
        positives = int(y.sum())
        logit = decision.astype(np.float64) - np.log((len(y) - positives) / positives)
        return decision, 1.0 / (1.0 + np.exp(-logit))


def best_unjudged(scores: np.ndarray, judged: np.ndarray, size: int) -> np.ndarray:
    """The ``size`` best-scored rows outside ``judged`` (row indices, best first; ties keep row
    order). ``scores`` is not modified."""
    scores = scores.copy()
    scores[judged] = -np.inf
    size = min(size, len(scores) - len(judged))
    if size <= 0:
        return np.empty(0, dtype=np.int64)
    top = np.argpartition(-scores, size - 1)[:size]
    return top[np.argsort(-scores[top], kind="stable")]
