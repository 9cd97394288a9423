"""The single join of a run with the qrels: per-topic ranked label arrays every measure reads.

Layout (trec_eval's, vectorised): the ranked documents of all qrels topics are concatenated,
topic by topic in the qrels' topic order; ``offsets[t]:offsets[t + 1]`` is topic ``t``'s
ranking. ``labels`` holds each ranked document's qrels label, or :data:`UNJUDGED` when the qrels
have no line for it. Negative labels are kept: they are judged for ``Judged@k`` (unjudged for
``Unjudged@k`` under trec_eval 10), never relevant, never a judged non-relevant document for
Bpref, and carry no gain. A qrels topic the run skipped has an empty ranking; run topics that
are not in the qrels are dropped and counted in ``run_only_topics``. The ranking order (score
precision) follows ``compat`` (:mod:`metrics.compat`), and measures that differ between
trec_eval releases read ``Ranking.compat``.

A run read in blocks of whole topics is joined block by block: :func:`label` (the qrels lookup)
and :func:`rank` (the ranking order) of each block, and :func:`merge` of the rankings of several
blocks into one. A topic's ranking, and so its values, are those of a join of the whole run.

With prels (:mod:`metrics.prels`, sampled judgments) the join also looks every run row up in
them: ``Ranking.prels_row`` holds, per ranked document, its prels row (-1 outside the pool),
which the estimators (:mod:`metrics.estimators`) read. Without prels nothing more is done.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, TypeVar

import numpy as np
import pyarrow as pa

from metrics.compat import DEFAULT_COMPAT, Compat
from pooljudge.formats.columnar import (
    all_same_strings,
    decode,
    index_in,
    int_array,
    numpy_of,
    pair_keys,
    sort_indices,
    string_hashes,
    take,
    unique,
)
from pooljudge.formats.ranking import byte_order_codes, rank_rows
from pooljudge.formats.trec import QrelsColumns, RunColumns

if TYPE_CHECKING:
    from metrics.prels import Prels

__all__ = [
    "UNJUDGED", "Labelled", "Qrels", "Ranking", "join", "label", "merge", "prepare_qrels", "rank",
]

UNJUDGED = np.iinfo(np.int64).min
T = TypeVar("T")


@dataclass(frozen=True)
class Qrels:
    """Qrels prepared once for any number of runs.

    ``topics`` are the distinct topic ids in byte order. The rows are grouped by topic:
    ``offsets[t]:offsets[t + 1]`` delimit topic ``t``'s rows in ``topic_of_row``, ``docs`` (plain
    strings), ``labels`` and ``doc_hash`` (:func:`~pooljudge.formats.columnar.string_hashes`), and
    in ``labels_by_topic``, which holds each topic's labels sorted descending (the ideal ranking for
    nDCG). ``hash_keys`` (sorted :func:`~pooljudge.formats.columnar.pair_keys` of the rows) and
    ``hash_rows`` (the row of each; None when that is the key's position, as it is unless topic
    codes are too large to lead the keys) find a (topic, doc) pair's row; ``hash_keys_unique``
    is False when two pairs share a key (then the exact path of :func:`_labels_exact` is taken).
    """

    topics: pa.Array
    topic_of_row: np.ndarray
    docs: pa.Array
    labels: np.ndarray
    offsets: np.ndarray
    labels_by_topic: np.ndarray
    doc_hash: np.ndarray
    hash_keys: np.ndarray
    hash_rows: np.ndarray | None
    hash_keys_unique: bool
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    def count(self, mask: np.ndarray) -> np.ndarray:
        """Per topic, how many qrels rows satisfy ``mask`` (a boolean array over rows)."""
        return np.bincount(self.topic_of_row[mask], minlength=self.n_topics)

    def num_rel(self, rel: int) -> np.ndarray:
        """Per topic, the number of relevant documents (label >= rel), retrieved or not."""
        return self.cached(("num_rel", rel), lambda: self.count(self.labels >= rel))

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, computed once per ``key`` for these qrels: arrays derived from the
        qrels alone, which a measure would otherwise rebuild for every ranking it is given (a
        run read in blocks is measured in several batches)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]


def prepare_qrels(columns: QrelsColumns) -> Qrels:
    """Sort topics in byte order, group the rows by topic, build the per-topic descending label
    lists and the 64-bit key index."""
    topic_rank = byte_order_codes(columns.topic)
    topics = take(columns.topic.dictionary, sort_indices(columns.topic.dictionary))
    doc_hash = columns.doc_hash if columns.doc_hash is not None else string_hashes(columns.doc)
    rows = np.argsort(pair_keys(topic_rank, doc_hash), kind="stable")
    if not bool((np.diff(topic_rank[rows]) >= 0).all()):  # codes too large to lead the keys
        rows = np.lexsort((pair_keys(topic_rank, doc_hash), topic_rank))
    topic_of_row, labels, doc_hash = topic_rank[rows], columns.label[rows], doc_hash[rows]
    docs = decode(take(columns.doc, int_array(rows)))
    counts = np.bincount(topic_of_row, minlength=len(topics))
    return Qrels(
        topics=topics, topic_of_row=topic_of_row, docs=docs, labels=labels,
        offsets=np.concatenate(([0], np.cumsum(counts))),
        labels_by_topic=labels[np.lexsort((-labels, topic_of_row))],
        doc_hash=doc_hash, **_hash_index(topic_of_row, doc_hash),
    )


def _hash_index(topic_of_row: np.ndarray, doc_hash: np.ndarray) -> dict:
    """``hash_keys``, ``hash_rows`` and ``hash_keys_unique`` of :class:`Qrels` (rows grouped by
    topic already give sorted keys, unless the topic codes are too large to lead the keys)."""
    keys = pair_keys(topic_of_row, doc_hash)
    rows = None
    if not bool((keys[1:] >= keys[:-1]).all()):
        rows = np.argsort(keys, kind="stable")
        keys = keys[rows]
    return {"hash_keys": keys, "hash_rows": rows,
            "hash_keys_unique": not bool((keys[1:] == keys[:-1]).any())}


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

    def per_topic(self, values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Sum ``values`` (array over ranked documents, or a scalar) per topic, where ``mask``."""
        topic = self.topic if mask is None else self.topic[mask]
        if np.ndim(values) == 0:
            return np.bincount(topic, minlength=self.n_topics).astype(np.float64) * values
        weights = values if mask is None else values[mask]
        return np.bincount(topic, weights=weights, minlength=self.n_topics)

    def top(self, k: int) -> np.ndarray:
        """Per ranked document, whether it is within the top ``k`` of its topic."""
        return self._cached(("top", k), lambda: self.rank <= k)

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
    labels = _labels(qrels, run, topic, topics)
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
    """Per run row, its prels row or -1 (``topic``/``topics`` as in :func:`_labels`): the
    qrels lookup, in the prels' key index whose labels are row numbers."""
    in_index = np.where(topic >= 0, prels.index_topic[np.maximum(topic, 0)], -1)
    present = np.sort(prels.index_topic[topics][prels.index_topic[topics] >= 0])
    found = _labels(prels.index, run, in_index, present)
    return np.where(found == UNJUDGED, -1, found)


def rank(qrels: Qrels, run: Labelled, *, judged_only: bool = False,
         compat: Compat = DEFAULT_COMPAT, prels: Prels | None = None) -> Ranking:
    """The second half of :func:`join`: the labelled rows in ranking order, over all qrels
    topics (those without rows here have an empty ranking).

    For a block of a run, ``run.topics`` get the values a join of the whole run would give them
    as long as no other block holds rows of them (and each measure computes a topic's value
    from that topic's ranking and judgments alone).
    """
    precision = "double" if compat == "10" else "single"
    order = rank_rows(run.topic, run.scores, run.docs, run.labels, precision=precision)
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


def _labels(qrels: Qrels, run: RunColumns, topic: np.ndarray, topics: np.ndarray
            ) -> np.ndarray:
    """Per run row, its qrels label or UNJUDGED (``topic``: qrels topic index, -1 for none;
    ``topics``: those present, sorted).

    Pairs are matched through 64-bit keys (:func:`_matches`, no string hashing) and every match
    is confirmed on the topic index and the doc string; after a key collision the exact path
    (:func:`_labels_exact`) decides instead.
    """
    labels = np.full(len(topic), UNJUDGED, dtype=np.int64)
    if len(qrels.hash_keys) == 0:
        return labels
    if not qrels.hash_keys_unique:
        return _labels_exact(qrels, run, topic)
    hashes = run.doc_hash if run.doc_hash is not None else string_hashes(run.doc)
    found, rows = _matches(qrels, pair_keys(topic, hashes), topics)
    confirmed = (np.array_equal(topic[found], qrels.topic_of_row[rows])
                 and all_same_strings(take(run.doc, int_array(found)),
                                      take(qrels.docs, int_array(rows))))
    if not confirmed:
        return _labels_exact(qrels, run, topic)
    labels[found] = qrels.labels[rows]
    return labels


def _matches(qrels: Qrels, keys: np.ndarray, topics: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """The positions of the ``keys`` found among the qrels' keys, and the qrels row of each.

    A sorted search; or, for a few of the qrels' topics (a block of a run), a hash lookup among
    the keys of those topics only, a third cheaper.
    """
    if qrels.hash_rows is None and 4 * len(topics) < qrels.n_topics:
        counts = np.diff(qrels.offsets)[topics]
        starts = np.concatenate(([0], np.cumsum(counts)))
        rows = np.arange(starts[-1]) + np.repeat(qrels.offsets[topics] - starts[:-1], counts)
        position = numpy_of(index_in(int_array(keys), int_array(qrels.hash_keys[rows])), fill=-1)
        found = np.flatnonzero(position >= 0)
        return found, rows[position[found]]
    position = np.minimum(np.searchsorted(qrels.hash_keys, keys), len(qrels.hash_keys) - 1)
    found = np.flatnonzero(qrels.hash_keys[position] == keys)
    position = position[found]
    return found, position if qrels.hash_rows is None else qrels.hash_rows[position]


def _labels_exact(qrels: Qrels, run: RunColumns, topic: np.ndarray) -> np.ndarray:
    """:func:`_labels` by coding every doc id as its position among the qrels' distinct doc ids
    and matching exact ``topic * distinct + doc code`` keys (only taken after a key collision)."""
    known = unique(qrels.docs)
    width = max(len(known), 1)
    if isinstance(run.doc, pa.DictionaryArray):
        of_entry = numpy_of(index_in(run.doc.dictionary, known), fill=-1)
        codes = of_entry.astype(np.int64)[numpy_of(run.doc.indices)]
    else:
        codes = numpy_of(index_in(run.doc, known), fill=-1).astype(np.int64)
    labels = np.full(len(codes), UNJUDGED, dtype=np.int64)
    matched = np.flatnonzero((codes >= 0) & (topic >= 0))
    if len(matched) == 0:
        return labels
    qrels_codes = numpy_of(index_in(qrels.docs, known)).astype(np.int64)
    qrels_keys = qrels.topic_of_row * width + qrels_codes
    by_key = np.argsort(qrels_keys)
    sorted_keys = qrels_keys[by_key]
    run_keys = topic[matched] * width + codes[matched]
    position = np.minimum(np.searchsorted(sorted_keys, run_keys), len(sorted_keys) - 1)
    found = sorted_keys[position] == run_keys
    labels[matched[found]] = qrels.labels[by_key[position[found]]]
    return labels
