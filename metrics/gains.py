"""Graded gains, as trec_eval's gain measures (ndcg, G, Rndcg, ndcg_rel, rbp) define them.

A label ``l >= 0`` has gain ``gains.get(l, l)``: the label itself unless the ``gains`` parameter
(a map label -> gain, trec_eval's ``ndcg.1=3,2=9``) says otherwise; gains may be 0 or negative.
A document without a judgment, or with a negative label, has gain 0. The ideal ranking of a topic
lists the positive gains of all its judged documents (retrieved or not) in decreasing order.

trec_eval sorts its gain table with a comparator that truncates the difference of two gains to
an integer, so gains closer than 1 (``{1:0.5,2:0.7}``) can leave its "ideal" ranking out of
order; here the ideal is sorted exactly (identical for integer-spaced gains, e.g. the default).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pooljudge.metrics.qrels_lookup import Qrels
from pooljudge.metrics.registry import MapOf, Param

__all__ = ["GAINS_PARAM", "Ideal", "gain_of", "ideal", "prefix_at", "prefix_sums"]

GAINS_PARAM = Param("gains", MapOf(int, float), (),
                    lambda pairs: all(level >= 0 for level, _ in pairs),
                    "gains map labels >= 0 to gains, e.g. {1:3,2:9}",
                    "the gain of each listed label; a label not listed gains its own value")


def gain_of(labels: np.ndarray, gains: tuple[tuple[int, float], ...]) -> np.ndarray:
    """Per label its gain: ``gains`` where listed, else the label; 0 for labels < 0."""
    out = np.where(labels > 0, labels, 0).astype(np.float64)
    for level, gain in gains:  # one pass per listed level, never per document
        out[labels == level] = gain
    return out


def prefix_sums(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per element, the sum of its segment's values up to and including it (segments are
    ``offsets[t]:offsets[t + 1]``), added in order within the segment alone, as trec_eval's
    loops add: a segment's sums do not depend on the other segments (so scoring a run in blocks
    of topics gives the same bits). Segments of similar length share one zero-padded 2-D
    cumulative sum (rows at most twice as long as the segment: memory stays O(len(values)))."""
    out = np.zeros(len(values), dtype=np.float64)
    counts = np.diff(offsets)
    width = np.ceil(np.log2(np.maximum(counts, 1))).astype(np.int64)
    # the widths present, ascending (np.unique's first call imports numpy.ma: 40-60 ms)
    for bits in np.flatnonzero(np.bincount(width[counts > 0])):
        segments = np.flatnonzero((width == bits) & (counts > 0))
        columns = np.arange(1 << int(bits))
        inside = columns < counts[segments][:, None]
        index = (offsets[segments][:, None] + columns)[inside]
        grid = np.zeros(inside.shape)
        grid[inside] = values[index]
        out[index] = np.cumsum(grid, axis=1)[inside]
    return out


def prefix_at(prefix: np.ndarray, offsets: np.ndarray, segment: np.ndarray,
              count: np.ndarray) -> np.ndarray:
    """``prefix`` (from :func:`prefix_sums`) of each ``segment`` over its first ``count``
    elements: 0 where ``count`` is 0; ``count`` must not exceed the segment's length."""
    out = np.zeros(len(segment))
    some = count > 0
    out[some] = prefix[offsets[segment[some]] + count[some] - 1]
    return out


@dataclass(frozen=True)
class Ideal:
    """Each topic's ideal gains (positive, decreasing; ``offsets`` delimit topics) and their
    per-topic running sums: ``dcg`` of gain / log2(position + 1), ``total`` of the gains."""

    gains: np.ndarray
    offsets: np.ndarray
    dcg: np.ndarray
    total: np.ndarray

    @property
    def count(self) -> np.ndarray:
        """Per topic, the documents with a positive gain (trec_eval's ideal length)."""
        return np.diff(self.offsets)

    @property
    def topic(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.offsets) - 1), self.count)

    @property
    def position(self) -> np.ndarray:
        """Per ideal document, its 1-based position within its topic."""
        return np.arange(1, len(self.gains) + 1) - self.offsets[:-1][self.topic]

    def dcg_at(self, topic: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Ideal DCG of ``topic`` at cutoff ``k`` (positions beyond the ideal add nothing)."""
        return prefix_at(self.dcg, self.offsets, topic, np.minimum(k, self.count[topic]))

    def full_dcg(self) -> np.ndarray:
        """Per topic, the DCG of its whole ideal ranking."""
        return self.dcg_at(np.arange(len(self.offsets) - 1), self.count)

    def total_gain(self) -> np.ndarray:
        """Per topic, the sum of its positive gains."""
        return prefix_at(self.total, self.offsets, np.arange(len(self.offsets) - 1), self.count)


def ideal(qrels: Qrels, gains: tuple[tuple[int, float], ...]) -> Ideal:
    """The ideal ranking of every qrels topic under ``gains`` (see the module docstring), built
    once per qrels and gain map (a run read in blocks is measured in several batches)."""
    return qrels.cached(("ideal", gains), lambda: _build_ideal(qrels, gains))


def _build_ideal(qrels: Qrels, gains: tuple[tuple[int, float], ...]) -> Ideal:
    if gains:
        values = gain_of(qrels.labels, gains)
        order = np.lexsort((-values, qrels.topic_of_row))
        topic, values = qrels.topic_of_row[order], values[order]
    else:  # labels_by_topic is already sorted descending within each topic
        counts = np.diff(qrels.offsets)
        topic = np.repeat(np.arange(qrels.n_topics), counts)
        values = gain_of(qrels.labels_by_topic, ())
    keep = values > 0
    topic, values = topic[keep], values[keep]
    offsets = np.concatenate(([0], np.cumsum(np.bincount(topic, minlength=qrels.n_topics))))
    position = np.arange(1, len(values) + 1) - offsets[:-1][topic]
    return Ideal(values, offsets, prefix_sums(values / np.log2(position + 1.0), offsets),
                 prefix_sums(values, offsets))

