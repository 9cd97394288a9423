"""Qrels prepared once for any number of runs, and the lookup of a run's rows in them: each row's
label, or :data:`UNJUDGED`. :mod:`pooljudge.metrics.join` calls :func:`lookup_labels` for the
qrels (and, with prels, for the prels' key index, a :class:`Qrels` whose labels are row numbers).

A (topic, doc) pair is found through 64-bit keys (topic index, doc hash:
:func:`~pooljudge.kernels.pair_keys`) in an open-addressing table built once per qrels
(:func:`_key_table`: one random read per run row, about 5x cheaper than a sorted search) and
every match is confirmed on the topic index and the doc string; after a key collision an exact
path (doc ids coded as their position among the qrels' distinct doc ids) decides instead.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

import numpy as np
import pyarrow as pa

from pooljudge.formats.trec import QrelsColumns, RunColumns
from pooljudge.kernels import (
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
from pooljudge.kernels.ranking import byte_order_codes

__all__ = ["UNJUDGED", "Qrels", "lookup_labels", "prepare_qrels"]

UNJUDGED = np.iinfo(np.int64).min
T = TypeVar("T")
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_LARGE = 1 << 20  # rows past which the key table is kept at >= 2n slots, not 4n


@dataclass(frozen=True)
class Qrels:
    """Qrels prepared once for any number of runs.

    ``topics`` are the distinct topic ids in byte order. The rows are grouped by topic:
    ``offsets[t]:offsets[t + 1]`` delimit topic ``t``'s rows in ``topic_of_row``, ``docs`` (plain
    strings), ``labels`` and ``doc_hash`` (:func:`~pooljudge.kernels.string_hashes`), and
    in ``labels_by_topic``, which holds each topic's labels sorted descending (the ideal ranking for
    nDCG). ``hash_keys`` (sorted :func:`~pooljudge.kernels.pair_keys` of the rows) and
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


def lookup_labels(qrels: Qrels, run: RunColumns, topic: np.ndarray, topics: np.ndarray
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

    For a few of the qrels' topics (a block of a streamed run), a hash lookup among the keys of
    those topics only (small and cache-resident: a 2M-line run streamed took 1.1-1.3x the time
    through the whole table); otherwise the table (:func:`_key_table`).
    """
    if qrels.hash_rows is None and 4 * len(topics) < qrels.n_topics:
        counts = np.diff(qrels.offsets)[topics]
        starts = np.concatenate(([0], np.cumsum(counts)))
        rows = np.arange(starts[-1]) + np.repeat(qrels.offsets[topics] - starts[:-1], counts)
        position = numpy_of(index_in(int_array(keys), int_array(qrels.hash_keys[rows])), fill=-1)
        found = np.flatnonzero(position >= 0)
        return found, rows[position[found]]
    row = _probe(qrels.cached("key_table", lambda: _key_table(qrels)), keys)
    found = np.flatnonzero(row >= 0)
    return found, row[found].astype(np.int64)


class _KeyTable(NamedTuple):
    """Open addressing with linear probing: slot ``s`` holds ``keys[s]`` and its qrels row
    ``rows[s]`` (-1: empty); a key's first slot is ``(key * golden) >> shift``."""

    keys: np.ndarray
    rows: np.ndarray
    shift: np.uint64
    mask: int


def _key_table(qrels: Qrels) -> _KeyTable:
    """The qrels' (unique) keys in a table of 2**b >= 4n slots (>= 2n past 2**20 rows), filled
    in rounds: each round the first waiting key of every free slot takes it, the others move
    one slot on; so every key lies in its probe sequence before any empty slot."""
    keys = qrels.hash_keys
    n = len(keys)
    bits = max(3, (4 * n - 1 if n <= _LARGE else 2 * n - 1).bit_length())
    mask, shift = (1 << bits) - 1, np.uint64(64 - bits)
    table_keys = np.zeros(mask + 1, dtype=np.uint64)
    table_rows: np.ndarray = np.full(mask + 1, -1, dtype=np.int32 if n < (1 << 31) else np.int64)
    waiting, slot = np.arange(n), _first_slot(keys, shift)
    while len(waiting):
        free = table_rows[slot] < 0
        taken, first = np.unique(slot[free], return_index=True)
        winner = np.flatnonzero(free)[first]
        table_keys[taken], table_rows[taken] = keys[waiting[winner]], waiting[winner]
        left = np.ones(len(waiting), dtype=bool)
        left[winner] = False
        waiting, slot = waiting[left], (slot[left] + 1) & mask
    if qrels.hash_rows is not None:  # keys are sorted apart from the rows: store the rows
        occupied = table_rows >= 0
        table_rows[occupied] = qrels.hash_rows[table_rows[occupied]]
    return _KeyTable(table_keys, table_rows, shift, mask)


def _probe(table: _KeyTable, keys: np.ndarray) -> np.ndarray:
    """Per key, its row in ``table`` or -1: every key reads its first slot; only those that
    met another key there probe on, a shrinking set per round, until a match or an empty slot."""
    slot = _first_slot(keys, table.shift)
    rows = table.rows[slot]
    hit = (table.keys[slot] == keys) & (rows >= 0)
    found = np.where(hit, rows, -1)
    on = np.flatnonzero((rows >= 0) & ~hit)
    slot = slot[on]
    while len(on):
        slot = (slot + 1) & table.mask
        rows = table.rows[slot]
        hit = (table.keys[slot] == keys[on]) & (rows >= 0)
        found[on[hit]] = rows[hit]
        more = (rows >= 0) & ~hit
        on, slot = on[more], slot[more]
    return found


def _first_slot(keys: np.ndarray, shift: np.uint64) -> np.ndarray:
    """Fibonacci hashing: the top bits of ``key * golden`` (every bit of the key counts)."""
    with np.errstate(over="ignore"):
        return ((keys * _GOLDEN) >> shift).astype(np.intp)


def _labels_exact(qrels: Qrels, run: RunColumns, topic: np.ndarray) -> np.ndarray:
    """:func:`lookup_labels` by coding every doc id as its position among the qrels' distinct
    doc ids and matching exact ``topic * distinct + doc code`` keys (only taken after a key
    collision)."""
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
