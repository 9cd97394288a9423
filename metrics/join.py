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
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.compat import DEFAULT_COMPAT, Compat
from pooljudge.ranking import byte_order_codes, rank_rows
from pooljudge.string_keys import all_same_strings, pair_keys, string_hashes
from pooljudge.trec import QrelsColumns, RunColumns
from pooljudge.trec_columns import int_array, numpy_of

__all__ = ["UNJUDGED", "Qrels", "Ranking", "join", "prepare_qrels"]

UNJUDGED = np.iinfo(np.int64).min


@dataclass(frozen=True)
class Qrels:
    """Qrels prepared once for any number of runs.

    ``topics`` are the distinct topic ids in byte order; ``labels_by_topic`` holds each topic's
    labels sorted descending (``offsets`` delimit topics), the ideal ranking for nDCG.
    ``hash_keys`` (sorted :func:`~pooljudge.string_keys.pair_keys` of the rows) and
    ``hash_rows`` (the row of each) find a (topic, doc) pair's row; ``hash_keys_unique`` is False
    when two pairs share a key (then the exact path of :func:`_labels_exact` is taken).
    """

    topics: pa.Array
    topic_of_row: np.ndarray
    docs: pa.DictionaryArray
    labels: np.ndarray
    offsets: np.ndarray
    labels_by_topic: np.ndarray
    hash_keys: np.ndarray
    hash_rows: np.ndarray
    hash_keys_unique: bool

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    def count(self, mask: np.ndarray) -> np.ndarray:
        """Per topic, how many qrels rows satisfy ``mask`` (a boolean array over rows)."""
        return np.bincount(self.topic_of_row[mask], minlength=self.n_topics)

    def num_rel(self, rel: int) -> np.ndarray:
        """Per topic, the number of relevant documents (label >= rel), retrieved or not."""
        return self.count(self.labels >= rel)


def prepare_qrels(columns: QrelsColumns) -> Qrels:
    """Sort topics in byte order and build the per-topic descending label lists."""
    topic_rank = byte_order_codes(columns.topic)
    topics = pc.take(columns.topic.dictionary, pc.sort_indices(columns.topic.dictionary))
    order = np.lexsort((-columns.label, topic_rank))
    counts = np.bincount(topic_rank, minlength=len(topics))
    hashed = pair_keys(topic_rank, string_hashes(columns.doc))
    by_hash = np.argsort(hashed)
    hash_keys = hashed[by_hash]
    return Qrels(
        topics=topics,
        topic_of_row=topic_rank,
        docs=columns.doc,
        labels=columns.label,
        offsets=np.concatenate(([0], np.cumsum(counts))),
        labels_by_topic=columns.label[order],
        hash_keys=hash_keys,
        hash_rows=by_hash,
        hash_keys_unique=not bool((hash_keys[1:] == hash_keys[:-1]).any()),
    )


@dataclass(frozen=True)
class Ranking:
    """One run joined with the qrels: ranked labels per topic (see the module docstring)."""

    qrels: Qrels
    offsets: np.ndarray
    labels: np.ndarray
    run_only_topics: int
    compat: Compat = DEFAULT_COMPAT
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


def join(qrels: Qrels, run: RunColumns, *, judged_only: bool = False,
         compat: Compat = DEFAULT_COMPAT) -> Ranking:
    """Rank the run (score descending, doc id descending) and attach qrels labels.

    Scores compare in double precision under compat ``"10"``, in single precision under
    ``"9"``. With ``judged_only`` the documents without a judgment, or with a negative label,
    are removed before ranks are counted (trec_eval -J: a condensed list).
    """
    topic_of_entry = pc.index_in(run.topic.dictionary, value_set=qrels.topics)
    topic_of_entry = numpy_of(topic_of_entry, fill=-1).astype(np.int64)
    topic = topic_of_entry[numpy_of(run.topic.indices)]
    kept = topic >= 0
    run_only = int(np.count_nonzero(topic_of_entry < 0))
    labels = _labels(qrels, run, topic)
    docs, scores = run.doc, run.score
    if not kept.all():
        rows = np.flatnonzero(kept)
        topic, labels, scores = topic[rows], labels[rows], scores[rows]
        docs = docs.take(int_array(rows))
    precision = "double" if compat == "10" else "single"
    order = rank_rows(topic, scores, docs, labels, precision=precision)
    topic, labels = topic[order], labels[order]
    if judged_only:
        judged = labels >= 0
        topic, labels = topic[judged], labels[judged]
    counts = np.bincount(topic, minlength=qrels.n_topics)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    return Ranking(qrels=qrels, offsets=offsets, labels=labels, run_only_topics=run_only,
                   compat=compat)


def _labels(qrels: Qrels, run: RunColumns, topic: np.ndarray) -> np.ndarray:
    """Per run row, its qrels label or UNJUDGED (``topic``: qrels topic index, -1 for none).

    Pairs are matched through 64-bit keys (one sorted search, no string hashing) and every match
    is confirmed on the topic index and the doc string; after a key collision the exact path
    (:func:`_labels_exact`) decides instead.
    """
    labels = np.full(len(topic), UNJUDGED, dtype=np.int64)
    if len(qrels.hash_keys) == 0:
        return labels
    if not qrels.hash_keys_unique:
        return _labels_exact(qrels, run, topic)
    hashes = run.doc_hash if run.doc_hash is not None else string_hashes(run.doc)
    keys = pair_keys(topic, hashes)
    position = np.minimum(np.searchsorted(qrels.hash_keys, keys), len(qrels.hash_keys) - 1)
    found = np.flatnonzero(qrels.hash_keys[position] == keys)
    rows = qrels.hash_rows[position[found]]
    confirmed = (np.array_equal(topic[found], qrels.topic_of_row[rows])
                 and all_same_strings(run.doc.take(int_array(found)),
                                      qrels.docs.take(int_array(rows))))
    if not confirmed:
        return _labels_exact(qrels, run, topic)
    labels[found] = qrels.labels[rows]
    return labels


def _labels_exact(qrels: Qrels, run: RunColumns, topic: np.ndarray) -> np.ndarray:
    """:func:`_labels` by looking every run doc id up in the qrels' doc dictionary and matching
    exact ``topic * len(dictionary) + doc code`` keys (only taken after a key collision)."""
    known = qrels.docs.dictionary
    width = max(len(known), 1)
    if isinstance(run.doc, pa.DictionaryArray):
        of_entry = numpy_of(pc.index_in(run.doc.dictionary, value_set=known), fill=-1)
        codes = of_entry.astype(np.int64)[numpy_of(run.doc.indices)]
    else:
        codes = numpy_of(pc.index_in(run.doc, value_set=known), fill=-1).astype(np.int64)
    labels = np.full(len(codes), UNJUDGED, dtype=np.int64)
    matched = np.flatnonzero((codes >= 0) & (topic >= 0))
    if len(matched) == 0:
        return labels
    qrels_keys = qrels.topic_of_row * width + numpy_of(qrels.docs.indices)
    by_key = np.argsort(qrels_keys)
    sorted_keys = qrels_keys[by_key]
    run_keys = topic[matched] * width + codes[matched]
    position = np.minimum(np.searchsorted(sorted_keys, run_keys), len(sorted_keys) - 1)
    found = sorted_keys[position] == run_keys
    labels[matched[found]] = qrels.labels[by_key[position[found]]]
    return labels
