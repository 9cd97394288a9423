"""Adaptive judging orders that learn from the judgments already made, one topic at a time.

Each run is an arm holding its pooled documents in rank order, with a pointer at its first
unjudged document; a pointer skips documents already judged (whoever judged them). Pulling a run
judges the document at its pointer. A run's statistics are the labels of the judged documents
its pointer has passed: ``r`` relevant (label ≥ ``rel``) out of ``m``.

``mtf``       Move-To-Front (Cormack, Palmer and Clarke 1998): every run starts with priority 0;
              the run of highest priority is pulled (ties: first in run-name order); a
              non-relevant judgment lowers that run's priority by one. A run thus keeps the turn
              while it finds relevant documents, and runs that find none are visited in turn.
``maxmean``   MaxMean (Losada, Parapar and Barreiro 2016/2017): pull the run of highest
              posterior mean ``(r + alpha) / (m + alpha + beta)``, Beta(alpha, beta) prior;
              ties broken uniformly at random with the seeded generator.
``thompson``  Thompson sampling: draw ``theta ~ Beta(r + alpha, m - r + beta)`` per run, pull the
              largest.

Each adaptive strategy of :data:`pooljudge.pooling.strategies.REGISTRY` (which declares its name,
help text,
parameters, their valid ranges and defaults, prior Beta(1, 1)) names one walk here.

Reproducibility: the generator of a topic is ``numpy.random.default_rng([seed, crc32(topic)])``,
created afresh for every walk. A policy's answer is a pure function of the judgments: it replays
its own walk from the start, taking known labels from the judgments, until it reaches a pair
nobody has judged. Pairs judged out of the policy's order are consumed, at no cost, when the walk
reaches them. Asked for a batch (``n > 1``), the walk continues past pending pairs as if they
were not relevant.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator, Mapping

import numpy as np
import pandas as pd
from pooljudge.pooling.policy import Pair, PolicyBase, truth_labels
from pooljudge.pooling.pool import Pool
from pooljudge.pooling.strategies import REGISTRY

from pooljudge.errors import InputError

__all__ = ["AdaptivePolicy", "walk_maxmean", "walk_mtf", "walk_thompson"]

Oracle = Callable[[int], "int | None"]
Walk = Iterator[tuple[int, "int | None"]]


class _Arms:
    """Per-run ranked lists of one topic, pointers past judged documents, per-run statistics."""

    def __init__(self, lists: list[list[int]], n_docs: int, rel: int) -> None:
        self.lists = lists
        self.rel = rel
        self.pointer = [0] * len(lists)
        self.judged: list[int | None] = [None] * n_docs
        self.is_judged = [False] * n_docs
        self.hits = [0] * len(lists)
        self.seen = [0] * len(lists)

    def head(self, run: int) -> int | None:
        """The run's first unjudged document, absorbing the labels of judged ones it passes."""
        docs, at = self.lists[run], self.pointer[run]
        while at < len(docs) and self.is_judged[docs[at]]:
            label = self.judged[docs[at]]
            self.hits[run] += label is not None and label >= self.rel
            self.seen[run] += 1
            at += 1
        self.pointer[run] = at
        return docs[at] if at < len(docs) else None

    def active(self) -> list[int]:
        """Runs that still have an unjudged document."""
        return [run for run in range(len(self.lists)) if self.head(run) is not None]

    def judge(self, doc: int, oracle: Oracle) -> int | None:
        label = oracle(doc)
        self.judged[doc] = label
        self.is_judged[doc] = True
        return label


def walk_mtf(arms: _Arms, oracle: Oracle, rng: np.random.Generator) -> Walk:
    """Move-To-Front: yields (document, label) in judging order."""
    priority = [0] * len(arms.lists)
    while active := arms.active():
        run = max(active, key=lambda r: (priority[r], -r))
        doc = arms.head(run)
        assert doc is not None  # an active run has an unjudged document
        label = arms.judge(doc, oracle)
        yield doc, label
        if label is None or label < arms.rel:
            priority[run] -= 1


def walk_maxmean(
    arms: _Arms, oracle: Oracle, rng: np.random.Generator, *, alpha: float, beta: float
) -> Walk:
    """MaxMean: the run of highest posterior mean relevance; random ties."""
    while active := arms.active():
        means = [(arms.hits[r] + alpha) / (arms.seen[r] + alpha + beta) for r in active]
        best = max(means)
        ties = [r for r, mean in zip(active, means, strict=True) if mean == best]
        run = ties[0] if len(ties) == 1 else ties[int(rng.integers(len(ties)))]
        doc = arms.head(run)
        assert doc is not None  # an active run has an unjudged document
        yield doc, arms.judge(doc, oracle)


def walk_thompson(
    arms: _Arms, oracle: Oracle, rng: np.random.Generator, *, alpha: float, beta: float
) -> Walk:
    """Thompson sampling with a Beta(alpha, beta) prior per run."""
    while active := arms.active():
        hits = np.array([arms.hits[r] for r in active], dtype=float)
        misses = np.array([arms.seen[r] for r in active], dtype=float) - hits
        run = active[int(np.argmax(rng.beta(hits + alpha, misses + beta)))]
        doc = arms.head(run)
        assert doc is not None  # an active run has an unjudged document
        yield doc, arms.judge(doc, oracle)


def _no_labels(doc: int) -> int | None:
    """The oracle of a planning run without truth: every document unjudged."""
    return None


def _labels_from(labels: list[int], start: int) -> Oracle:
    """The oracle reading a topic's labels from ``labels``, its documents from row ``start``."""
    return lambda doc: labels[start + doc]


class AdaptivePolicy(PolicyBase):
    """A policy that replays the walk of adaptive strategy ``name`` per topic (see the module
    docstring); parameters left out take their declared defaults. InputError for another name,
    a bad parameter or a negative seed."""

    def __init__(
        self, name: str, pool: Pool, *, seed: int = 0, rel: int = 1, **params: float
    ) -> None:
        strategy = REGISTRY.get(name)
        if strategy is None or strategy.kind != "adaptive":
            raise InputError(f"unknown adaptive order {name!r}")
        if seed < 0:
            raise InputError(f"seed must not be negative, got {seed}")
        self._params = strategy.arguments(params)
        super().__init__(name, pool, rel=rel)
        self.seed = seed
        self._walk_fn = strategy.load()
        self._lists = self._run_lists()

    def _run_lists(self) -> dict[str, list[list[int]]]:
        """Per topic, each retrieving run's pooled documents (local indices) in rank order."""
        entries = self.pool.entries
        codes = pd.Categorical(self.pool.pairs["topic"], categories=self._topics).codes
        starts = np.array([self._first_row[t] for t in self._topics], dtype=np.int64)
        pair = entries["pair"].to_numpy()
        topic = codes[pair]
        run = entries["run"].to_numpy()
        rows = np.lexsort((entries["rank"].to_numpy(), run, topic))
        topic, run, local = topic[rows], run[rows], (pair - starts[codes[pair]])[rows]
        cuts = np.flatnonzero((topic[1:] != topic[:-1]) | (run[1:] != run[:-1])) + 1
        lists: dict[str, list[list[int]]] = {t: [] for t in self._topics}
        for begin, end in zip(np.r_[0, cuts], np.r_[cuts, len(rows)], strict=True):
            if end > begin:
                lists[self._topics[topic[begin]]].append(local[begin:end].tolist())
        return lists

    def _walk(self, topic: str, oracle: Oracle) -> Walk:
        rng = np.random.default_rng([self.seed, zlib.crc32(topic.encode("utf-8"))])
        arms = _Arms(self._lists[topic], self._sizes[topic], self.rel)
        return self._walk_fn(arms, oracle, rng, **self._params)

    def _topic_next(self, topic: str, judged: Mapping[Pair, int], n: int) -> list[str]:
        docs = self.topic_docs(topic)
        found: list[str] = []
        for doc, label in self._walk(topic, lambda d: judged.get((topic, docs[d]))):
            if label is None:
                found.append(docs[doc])
                if len(found) == n:
                    break
        return found

    def plan(self, truth: pd.DataFrame | None = None) -> np.ndarray:
        labels = None if truth is None else truth_labels(self.pool, truth).tolist()
        order = np.zeros(len(self.pool.pairs), dtype=np.int64)
        for topic in self._topics:
            start = self._first_row[topic]
            oracle = _no_labels if labels is None else _labels_from(labels, start)
            for step, (doc, _) in enumerate(self._walk(topic, oracle), start=1):
                order[start + doc] = step
        return order
