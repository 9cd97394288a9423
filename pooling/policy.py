"""The judging-policy protocol shared by static and adaptive orders.

A policy answers one question for the annotation app: *which pair next, given these judgments?*

``policy.next_pairs(judged, n=1) -> list[(topic, doc)]``
    ``judged`` maps (topic, doc) to the label given (any label counts as judged; labels of at
    least ``rel``, default 1, are relevant). Returns up to ``n`` distinct pooled pairs not in
    ``judged``, best first; fewer (possibly none) when the pool is exhausted. The answer is a
    pure function of ``judged`` (and the policy's seed): no hidden state changes between calls,
    so several app processes can share one policy safely.
``policy.plan(truth=None) -> np.ndarray``
    The full judging order (1 = first, within each topic) aligned with ``pool.pairs``, as the
    policy would judge the whole pool if ``truth`` (a qrels frame; pairs absent from it count as
    not relevant) gave the labels. Static orders ignore ``truth``; with ``truth=None`` an adaptive
    policy returns its plan before any judgment (every pending pair assumed not relevant).

Topics are interleaved the same way in both: the next pair goes to the topic whose share of its
pool already judged (or handed out) is smallest, ties to the topic first in canonical order. The
``i``-th pair (0-based) of a topic of ``n_t`` pairs therefore sits at global key ``(i / n_t,
topic)``; :func:`global_sequence` sorts by that key, so simulated budgets spread over topics in
proportion to their pool size.
"""

from __future__ import annotations

import heapq
from abc import ABC, abstractmethod
from collections.abc import Mapping

import numpy as np
import pandas as pd
from pooljudge.pooling.pool import Pool

__all__ = ["JudgingPolicy", "PolicyBase", "StaticPolicy", "global_sequence", "truth_labels"]

Pair = tuple[str, str]


class JudgingPolicy(ABC):
    """Interface of every judging policy (see the module docstring)."""

    name: str

    @abstractmethod
    def next_pairs(self, judged: Mapping[Pair, int], n: int = 1) -> list[Pair]:
        """Up to ``n`` unjudged pooled pairs to judge next, best first."""

    @abstractmethod
    def plan(self, truth: pd.DataFrame | None = None) -> np.ndarray:
        """The judging order within each topic, aligned with ``pool.pairs``."""


class PolicyBase(JudgingPolicy):
    """Topic interleaving for ``next_pairs``; subclasses order pairs within one topic."""

    def __init__(self, name: str, pool: Pool, *, rel: int = 1) -> None:
        self.name = name
        self.pool = pool
        self.rel = rel
        sizes = pool.topic_sizes()
        self._topics: list[str] = list(sizes.index)
        self._topic_rank: dict[str, int] = {t: i for i, t in enumerate(self._topics)}
        self._sizes: dict[str, int] = {t: int(s) for t, s in sizes.items()}
        self._first_row: dict[str, int] = dict(
            zip(self._topics, np.r_[0, np.cumsum(sizes.to_numpy())][:-1].tolist(), strict=True)
        )
        self._docs: dict[str, set[str]] = {
            t: set(group) for t, group in pool.pairs.groupby("topic", sort=False)["doc"]
        }

    def topic_docs(self, topic: str) -> np.ndarray:
        """The topic's pooled document ids (sorted), indexed by local position."""
        start = self._first_row[topic]
        return self.pool.pairs["doc"].to_numpy()[start : start + self._sizes[topic]]

    def next_pairs(self, judged: Mapping[Pair, int], n: int = 1) -> list[Pair]:
        if n < 1:
            return []
        done = dict.fromkeys(self._topics, 0)
        for topic, doc in judged:
            if doc in self._docs.get(topic, ()):
                done[topic] += 1
        wanted = self._allocate(done, n)
        chosen: list[tuple[int, int, Pair]] = []
        for topic, count in wanted.items():
            for i, doc in enumerate(self._topic_next(topic, judged, count)):
                chosen.append((done[topic] + i, self._topic_rank[topic], (topic, doc)))
        chosen.sort(key=lambda c: (c[0] / self._sizes[c[2][0]], c[1]))
        return [pair for _, _, pair in chosen]

    def _allocate(self, done: dict[str, int], n: int) -> dict[str, int]:
        """How many pairs each topic gets: repeatedly the topic with the smallest judged share."""
        heap = [(d / self._sizes[t], i, t) for i, (t, d) in enumerate(done.items())
                if d < self._sizes[t]]
        heapq.heapify(heap)
        wanted: dict[str, int] = {}
        for _ in range(n):
            if not heap:
                break
            _, i, topic = heapq.heappop(heap)
            wanted[topic] = wanted.get(topic, 0) + 1
            taken = done[topic] + wanted[topic]
            if taken < self._sizes[topic]:
                heapq.heappush(heap, (taken / self._sizes[topic], i, topic))
        return wanted

    @abstractmethod
    def _topic_next(self, topic: str, judged: Mapping[Pair, int], n: int) -> list[str]:
        """Up to ``n`` unjudged documents of ``topic`` to judge next, best first."""


class StaticPolicy(PolicyBase):
    """A fixed order: ``next_pairs`` returns the first unjudged pairs of each topic's order."""

    def __init__(self, name: str, pool: Pool, order: np.ndarray, *, rel: int = 1) -> None:
        super().__init__(name, pool, rel=rel)
        self._order = np.asarray(order, dtype=np.int64)
        by_order = np.lexsort((self._order, pd.Categorical(
            pool.pairs["topic"], categories=self._topics).codes))
        docs = pool.pairs["doc"].to_numpy()[by_order]
        self._ranked: dict[str, list[str]] = {
            t: docs[self._first_row[t] : self._first_row[t] + self._sizes[t]].tolist()
            for t in self._topics
        }

    def plan(self, truth: pd.DataFrame | None = None) -> np.ndarray:
        return self._order.copy()

    def _topic_next(self, topic: str, judged: Mapping[Pair, int], n: int) -> list[str]:
        found: list[str] = []
        for doc in self._ranked[topic]:
            if (topic, doc) not in judged:
                found.append(doc)
                if len(found) == n:
                    break
        return found


def truth_labels(pool: Pool, truth: pd.DataFrame | None) -> np.ndarray:
    """Labels aligned with ``pool.pairs`` from a qrels frame; pairs it lacks get 0."""
    if truth is None:
        return np.zeros(len(pool.pairs), dtype=np.int64)
    merged = pool.pairs[["topic", "doc"]].merge(
        truth[["topic", "doc", "label"]], on=["topic", "doc"], how="left", sort=False
    )
    return merged["label"].fillna(0).to_numpy().astype(np.int64)


def global_sequence(pool: Pool, order: np.ndarray) -> np.ndarray:
    """Rows of ``pool.pairs`` in global judging order: key ``((order - 1) / n_topic, topic)``."""
    pairs = pool.pairs
    topics = pool.topics
    codes = pd.Categorical(pairs["topic"], categories=topics).codes
    sizes = pool.topic_sizes().to_numpy()[codes]
    share = (np.asarray(order, dtype=np.float64) - 1.0) / sizes
    return np.lexsort((codes, share))
