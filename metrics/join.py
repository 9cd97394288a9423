"""The single join of a run with the qrels: per-topic ranked label arrays every measure reads.

Layout (trec_eval's, vectorised): the ranked documents of all qrels topics are concatenated,
topic by topic in the qrels' topic order; ``offsets[t]:offsets[t + 1]`` is topic ``t``'s
ranking. ``labels`` holds each ranked document's qrels label, or :data:`UNJUDGED` when the qrels
have no line for it. Negative labels are kept: they are judged for ``Judged@k`` (unjudged for
``Unjudged@k`` under trec_eval 10), never relevant, never a judged non-relevant document for
Bpref, and carry no gain. A qrels topic the run skipped has an empty ranking; run topics that
are not in the qrels are dropped and counted in ``run_only_topics``. The ranking order (score
precision) follows ``compat`` (:mod:`pooljudge.metrics.compat`), and measures that differ between
trec_eval releases read ``Ranking.compat``.

A run read in blocks of whole topics is joined block by block: :func:`label` (the qrels lookup)
and :func:`rank` (the ranking order) of each block, and :func:`merge` of the rankings of several
blocks into one. A topic's ranking, and so its values, are those of a join of the whole run.

The qrels side, :class:`Qrels` prepared once (:func:`prepare_qrels`) and the lookup of a run's
rows in them by 64-bit keys confirmed on the strings, lives in
:mod:`pooljudge.metrics.qrels_lookup`.

With prels (:mod:`pooljudge.metrics.prels`, sampled judgments) the join also looks every run row up
in
them: ``Ranking.prels_row`` holds, per ranked document, its prels row (-1 outside the pool),
which the estimators (:mod:`pooljudge.metrics.estimators`) read. Without prels nothing more is done.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pyarrow as pa
from pooljudge.metrics.compat import DEFAULT_COMPAT, Compat
from pooljudge.metrics.qrels_lookup import UNJUDGED, Qrels, lookup_labels

from pooljudge.formats.trec import RunColumns
from pooljudge.kernels import index_in, int_array, numpy_of, segment_order, take
from pooljudge.kernels.ranking import Precision, score_keys, sort_ties

if TYPE_CHECKING:
    from pooljudge.metrics.prels import Prels

__all__ = ["Labelled", "Ranking", "join", "label", "merge", "rank"]

_LOW_32 = (1 << 32) - 1


@dataclass(frozen=True)
class Ranking:
    """One run joined with the qrels: ranked labels per topic (see the module docstring)."""

    qrels: Qrels
    offsets: np.ndarray
    labels: np.ndarray
    run_only_topics: int
    compat: Compat = DEFAULT_COMPAT
    prels: Prels | None = None
    prels_row: np.ndarray | None = None
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_topics(self) -> int:
        return self.qrels.n_topics

    @property
    def returned(self) -> np.ndarray:
        """Per topic, the number of ranked documents."""
        return np.diff(self.offsets)

    @property
    def topic(self) -> np.ndarray:
        """Per ranked document, its topic's index."""
        return self._cached("topic", lambda: np.repeat(np.arange(self.n_topics), self.returned))

    @property
    def rank(self) -> np.ndarray:
        """Per ranked document, its 1-based rank within its topic."""
        return self._cached(
            "rank", lambda: np.arange(1, len(self.labels) + 1) - self.offsets[:-1][self.topic]
        )

    def relevant(self, rel: int) -> np.ndarray:
        """Per ranked document, whether its label is >= rel (never for unjudged or negative)."""
        return self._cached(("relevant", rel), lambda: self.labels >= rel)

    def relevant_so_far(self, rel: int) -> np.ndarray:
        """Per ranked document, the relevant documents at its rank or above (within the topic)."""
        def compute() -> np.ndarray:
            running = np.cumsum(self.relevant(rel))
            before_topic = np.concatenate(([0], running))[self.offsets[:-1]]
            return running - before_topic[self.topic]

        return self._cached(("so_far", rel), compute)

    def per_topic(self, values: np.ndarray | float, mask: np.ndarray | None = None
                  ) -> np.ndarray:
        """Sum ``values`` (array over ranked documents, or a scalar) per topic, where ``mask``."""
        topic = self.topic if mask is None else self.topic[mask]
        if np.ndim(values) == 0:
            return np.bincount(topic, minlength=self.n_topics).astype(np.float64) * values
        array = np.asarray(values)  # an array already: no copy
        return np.bincount(topic, weights=array if mask is None else array[mask],
                           minlength=self.n_topics)

    def top(self, k: int) -> np.ndarray:
        """Per ranked document, whether it is within the top ``k`` of its topic."""
        return self._cached(("top", k), lambda: self.rank <= k)

    def top_rows(self, k: int) -> np.ndarray:
        """The positions of the ranked documents within the top ``k`` of their topic, in order
        (``flatnonzero(top(k))``, built from the offsets without a pass over every document)."""
        def compute() -> np.ndarray:
            counts = np.minimum(self.returned, k)
            begins = np.concatenate(([0], np.cumsum(counts)[:-1]))
            return np.arange(int(counts.sum())) + np.repeat(self.offsets[:-1] - begins, counts)

        return self._cached(("top_rows", k), compute)

    def topic_of(self, rows: np.ndarray) -> np.ndarray:
        """The topic index of the ranked documents at positions ``rows``."""
        return np.searchsorted(self.offsets, rows, side="right") - 1

    def rank_of(self, rows: np.ndarray, topics: np.ndarray | None = None) -> np.ndarray:
        """The 1-based rank of the ranked documents at positions ``rows`` (whose topics are
        ``topics``, when known)."""
        return rows - self.offsets[self.topic_of(rows) if topics is None else topics] + 1

    def hits(self, rel: int, k: int | None = None) -> np.ndarray:
        """The positions, in order, of the relevant documents (label >= rel) ranked within the
        top ``k`` of their topic (at any rank when ``k`` is None)."""
        def compute() -> np.ndarray:
            if k is None:
                return np.flatnonzero(self.relevant(rel))
            rows = self.top_rows(k)
            return rows[self.labels[rows] >= rel]

        return self._cached(("hits", rel, k), compute)

    def _cached(self, key, compute):
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]


class Labelled(NamedTuple):
    """A run (or a block of one) joined with the qrels but not ranked yet: its rows of qrels
    topics with their qrels topic index and label (:data:`UNJUDGED` without one)."""

    topic: np.ndarray
    labels: np.ndarray
    scores: np.ndarray
    docs: pa.Array
    topics: np.ndarray  # the qrels topics with rows here, sorted
    run_only_topics: int
    prels_row: np.ndarray | None = None  # per row, its prels row (-1: not pooled); with prels


def join(qrels: Qrels, run: RunColumns | Labelled, *, judged_only: bool = False,
         compat: Compat = DEFAULT_COMPAT, prels: Prels | None = None) -> Ranking:
    """Rank the run (score descending, doc id descending) and attach qrels labels: :func:`rank`
    of :func:`label` (a run already labelled is only ranked).

    Scores compare in double precision under compat ``"10"``, in single precision under
    ``"9"``. With ``judged_only`` the documents without a judgment, or with a negative label,
    are removed before ranks are counted (trec_eval -J: a condensed list). With ``prels`` (bound
    to ``qrels``) each ranked document also gets its prels row (``Ranking.prels_row``).
    """
    labelled = run if isinstance(run, Labelled) else label(qrels, run, prels=prels)
    return rank(qrels, labelled, judged_only=judged_only, compat=compat, prels=prels)


def label(qrels: Qrels, run: RunColumns, *, prels: Prels | None = None) -> Labelled:
    """The first half of :func:`join`: every run row's qrels label (and prels row, with
    ``prels``); rows of topics not in the qrels are dropped and those topics counted."""
    of_entry = index_in(run.topic.dictionary, qrels.topics)
    of_entry = numpy_of(of_entry, fill=-1).astype(np.int64)
    topic = of_entry[numpy_of(run.topic.indices)]
    topics = np.sort(of_entry[of_entry >= 0])
    labels = lookup_labels(qrels, run, topic, topics)
    rows_in_prels = None if prels is None else _prels_rows(prels, run, topic, topics)
    docs, scores = run.doc, run.score
    kept = topic >= 0
    if not kept.all():
        rows = np.flatnonzero(kept)
        topic, labels, scores = topic[rows], labels[rows], scores[rows]
        docs = take(docs, int_array(rows))
        rows_in_prels = None if rows_in_prels is None else rows_in_prels[rows]
    return Labelled(topic, labels, scores, docs, topics, int(np.count_nonzero(of_entry < 0)),
                    rows_in_prels)


def _prels_rows(prels: Prels, run: RunColumns, topic: np.ndarray, topics: np.ndarray
                ) -> np.ndarray:
    """Per run row, its prels row or -1 (``topic``/``topics`` as in
    :func:`~pooljudge.metrics.qrels_lookup.lookup_labels`): the
    qrels lookup, in the prels' key index whose labels are row numbers."""
    in_index = np.where(topic >= 0, prels.index_topic[np.maximum(topic, 0)], -1)
    present = np.sort(prels.index_topic[topics][prels.index_topic[topics] >= 0])
    found = lookup_labels(prels.index, run, in_index, present)
    return np.where(found == UNJUDGED, -1, found)


def rank(qrels: Qrels, run: Labelled, *, judged_only: bool = False,
         compat: Compat = DEFAULT_COMPAT, prels: Prels | None = None) -> Ranking:
    """The second half of :func:`join`: the labelled rows in ranking order, over all qrels
    topics (those without rows here have an empty ranking).

    For a block of a run, ``run.topics`` get the values a join of the whole run would give them
    as long as no other block holds rows of them (and each measure computes a topic's value
    from that topic's ranking and judgments alone).
    """
    order = _ranking_order(run, "double" if compat == "10" else "single")
    topic, labels = run.topic[order], run.labels[order]
    rows = None if run.prels_row is None else run.prels_row[order]
    if judged_only:
        judged = labels >= 0
        topic, labels = topic[judged], labels[judged]
        rows = None if rows is None else rows[judged]
    counts = np.bincount(topic, minlength=qrels.n_topics)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    return Ranking(qrels=qrels, offsets=offsets, labels=labels,
                   run_only_topics=run.run_only_topics, compat=compat,
                   prels=prels if rows is not None else None, prels_row=rows)


def _ranking_order(run: Labelled, precision: Precision) -> np.ndarray:
    """:func:`~pooljudge.kernels.ranking.rank_rows` of the labelled rows, sorting each topic's
    rows alone (:func:`~pooljudge.kernels.segment_order`, by single-precision score),
    then ordering only the tie groups whose labels differ
    (:func:`~pooljudge.kernels.ranking.sort_ties`)."""
    keys = score_keys(run.topic, run.scores)
    order = segment_order(run.topic, (keys & _LOW_32).astype(np.uint32))
    ranked = keys[order]
    same = ranked[1:] == ranked[:-1]  # ranked row i + 1 ties with row i
    labels = run.labels[order]
    differ = np.flatnonzero(same & (labels[1:] != labels[:-1]))
    if len(differ) == 0:
        return order
    group = np.cumsum(np.concatenate(([True], ~same)))  # tie group of each ranked row
    resolve = np.zeros(int(group[-1]) + 1, dtype=bool)
    resolve[group[differ]] = True
    rows = np.flatnonzero(resolve[group])
    order[rows] = sort_ties(order[rows], group[rows], run.scores, run.docs, precision=precision)
    return order


def merge(rankings: Sequence[Ranking]) -> Ranking:
    """One Ranking of rankings over the same qrels that rank disjoint sets of topics (a topic
    ranked in one of them keeps that ranking; ``run_only_topics`` add up)."""
    first = rankings[0]
    if len(rankings) == 1:
        return first
    counts = np.sum([r.returned for r in rankings], axis=0)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    labels = np.empty(offsets[-1], dtype=np.int64)
    rows = None if first.prels_row is None else np.empty(offsets[-1], dtype=np.int64)
    for ranking in rankings:  # one vectorised scatter per ranking
        at = np.arange(len(ranking.labels)) + np.repeat(offsets[:-1] - ranking.offsets[:-1],
                                                        ranking.returned)
        labels[at] = ranking.labels
        if rows is not None:
            rows[at] = ranking.prels_row
    return Ranking(qrels=first.qrels, offsets=offsets, labels=labels,
                   run_only_topics=sum(r.run_only_topics for r in rankings), compat=first.compat,
                   prels=first.prels, prels_row=rows)
