"""The ranking order every module shares (trec_eval's): score descending, ties by doc descending.

Document ids compare in byte order of their UTF-8 encoding (Arrow's string order), which for
valid UTF-8 is also the code point order Python uses. The rank column of a run file is ignored.

Scores compare in one of two precisions (:data:`Precision`). ``"double"`` (the default here, and
trec_eval 10.0's): 40.922120174018 and 40.922120174019 do not tie. ``"single"`` (trec_eval
9.0.8's ``float sim``, ``--compat 9``): they tie and the doc id decides. -0.0 and 0.0 tie in
both (as in C). Pools and written runs follow the default, so a pool's top k is the top k that
``pooljudge eval`` (and trec_eval 10) ranks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
import pyarrow as pa

from pooljudge.kernels._arrow import decode, dictionary_encode, sort_indices, take
from pooljudge.kernels._arrow_numpy import int_array, numpy_of
from pooljudge.kernels._keys import leading_words
from pooljudge.kernels._sort import segment_starts, sorted_within

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Precision", "byte_order_codes", "rank_order", "rank_positions", "rank_rows", "rank_run",
    "score_keys", "sort_ties",
]

Precision = Literal["single", "double"]


def byte_order_codes(values: pa.DictionaryArray) -> np.ndarray:
    """Per row, the rank (0-based) of its id among the distinct ids sorted in byte order."""
    order = numpy_of(sort_indices(values.dictionary))
    rank_of_entry = np.empty(len(order), dtype=np.int64)
    rank_of_entry[order] = np.arange(len(order), dtype=np.int64)
    return rank_of_entry[numpy_of(values.indices)]


def rank_positions(
    topic_codes: np.ndarray, doc_codes: np.ndarray, scores: np.ndarray, *,
    precision: Precision = "double",
) -> np.ndarray:
    """Row positions sorted by topic code ascending, score descending (compared in
    ``precision``), doc code descending.

    ``doc_codes`` must order like the document ids (see :func:`byte_order_codes`). The three keys
    are packed into one int64 (dense score ranks) and argsorted once; when they do not fit in
    63 bits, a slower three-key lexsort gives the same order.
    """
    topic_codes = np.asarray(topic_codes, dtype=np.int64)
    doc_codes = np.asarray(doc_codes, dtype=np.int64)
    if len(scores) == 0:
        return np.zeros(0, dtype=np.int64)
    compared = np.asarray(scores, dtype=np.float64)
    if precision == "single":
        with np.errstate(over="ignore"):  # beyond float32's range a score becomes +-inf, as in C
            compared = compared.astype(np.float32)
    distinct, score_codes = np.unique(compared, return_inverse=True)
    score_bits = _bits(len(distinct))
    doc_bits = _bits(int(doc_codes.max()) + 1)
    if _bits(int(topic_codes.max()) + 1) + score_bits + doc_bits > 63:
        return np.lexsort((-doc_codes, -score_codes, topic_codes))
    descending_score = len(distinct) - 1 - score_codes.astype(np.int64).ravel()
    descending_doc = (1 << doc_bits) - 1 - doc_codes
    keys = (topic_codes << (score_bits + doc_bits)) | (descending_score << doc_bits)
    # Keys are unique unless a (topic, doc) pair repeats, and such rows tie in every sort key.
    return np.argsort(keys | descending_doc)


def score_keys(topic_codes: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """One int64 per row that sorts by topic code ascending, then single-precision score
    descending: ``topic << 32 | ~sortable(float32 bits)``. Needs ``0 <= topic_codes < 2**31``.

    -0.0 and 0.0 get one key (they compare equal in C); beyond float32's range a score becomes
    +-inf, as in trec_eval.
    """
    with np.errstate(over="ignore"):
        single = np.asarray(scores, dtype=np.float64).astype(np.float32) + np.float32(0.0)
    bits = single.view(np.uint32)
    ascending = np.where(bits >> 31, ~bits, bits | np.uint32(0x80000000))
    descending = (~ascending).astype(np.int64)
    return (np.asarray(topic_codes, dtype=np.int64) << 32) | descending


def rank_rows(topic_codes: np.ndarray, scores: np.ndarray, docs: pa.Array,
              labels: np.ndarray | None = None, *, precision: Precision = "double") -> np.ndarray:
    """Row positions by topic code ascending, score descending (compared in ``precision``), doc
    id descending (byte order), like :func:`rank_positions` but without ranking all the doc ids.

    One int64 key per row (:func:`score_keys`, single precision) is argsorted; only inside tie
    groups (same topic and float32 score) are doc ids, and with ``"double"`` the exact scores,
    compared. Rounding to float32 keeps the order of distinct doubles or makes them tie, so
    double precision costs only that extra sort key inside tie groups. With ``labels`` (one per
    row), tie groups whose labels are all equal are left as they are: the label sequence is the
    same in any order, so the result is a ranking order up to permutations within such groups.
    ``docs`` may be dictionary-encoded.
    """
    if len(scores) == 0:
        return np.zeros(0, dtype=np.int64)
    keys = score_keys(topic_codes, scores)
    order = np.argsort(keys)
    ranked = keys[order]
    same = ranked[1:] == ranked[:-1]  # ranked row i + 1 ties with row i
    if not same.any():
        return order
    group = np.cumsum(np.concatenate(([True], ~same))) - 1
    if labels is not None:
        ranked_labels = np.asarray(labels)[order]
        same &= ranked_labels[1:] != ranked_labels[:-1]
    resolve = np.zeros(int(group[-1]) + 1, dtype=bool)
    resolve[group[1:][same]] = True
    rows = np.flatnonzero(resolve[group])
    if len(rows):
        order[rows] = sort_ties(order[rows], group[rows], scores, docs, precision=precision)
    return order


def sort_ties(tied: np.ndarray, group: np.ndarray, scores: np.ndarray, docs: pa.Array, *,
              precision: Precision = "double") -> np.ndarray:
    """``tied`` (row positions into ``scores`` and ``docs``, with ``group`` non-decreasing: the
    rows of tie groups one group after another) sorted by ``group``, then (``"double"`` only)
    exact score descending, then doc id descending (byte order).

    Each group is sorted alone (:func:`~pooljudge.kernels._sort.sorted_within`) by its ids'
    first 8 bytes (:func:`~pooljudge.kernels._keys.leading_words`) packed above the row's place
    in the group (the ``b`` low bits of a word give way to it, ``2**b`` >= the group's size).
    Only groups where two packed words are equal, or (``"double"``) exact scores differ, are
    sorted by Arrow's multi-key sort instead; so ids of up to 8 bytes cost no string sort.
    """
    tied = np.asarray(tied, dtype=np.int64)
    values, rows = _strings_at(docs, tied)
    if len(tied) < 2 or values is None:
        return _arrow_sort_ties(tied, group, scores, docs, precision)
    starts = segment_starts(np.asarray(group))
    lengths = np.diff(np.append(starts, len(tied)))
    first = np.repeat(starts, lengths)
    shift = np.repeat(np.maximum(np.ceil(np.log2(lengths)), 1).astype(np.uint64), lengths)
    place = (np.arange(len(tied)) - first).astype(np.uint64)
    packed = (~leading_words(values, rows) >> shift << shift) | place
    ordered = sorted_within(packed, starts, lengths)
    result = tied[first + (ordered & ((np.uint64(1) << shift) - np.uint64(1))).astype(np.int64)]
    high = ordered >> shift
    unsure = (high[1:] == high[:-1]) & (first[1:] == first[:-1])
    if precision == "double":
        exact = np.asarray(scores, dtype=np.float64)[tied]
        unsure |= (exact[1:] != exact[:-1]) & (first[1:] == first[:-1])
    if unsure.any():
        redo = np.zeros(len(starts) + 1, dtype=bool)
        redo[np.searchsorted(starts, np.flatnonzero(unsure), side="right")] = True
        again = np.flatnonzero(np.repeat(redo[1:], lengths))
        result[again] = _arrow_sort_ties(tied[again], np.asarray(group)[again], scores, docs,
                                         precision)
    return result


def _strings_at(docs: pa.Array, tied: np.ndarray) -> tuple[pa.Array | None, np.ndarray]:
    """The plain string array behind ``docs`` and the rows of ``tied`` in it (a dictionary's
    entries); None for ids that are not strings."""
    if isinstance(docs, pa.ChunkedArray):
        docs = docs.combine_chunks()
    rows = tied
    if isinstance(docs, pa.DictionaryArray):
        rows, docs = numpy_of(docs.indices).astype(np.int64)[tied], docs.dictionary
    kind = docs.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        return None, rows
    return docs, rows


def _arrow_sort_ties(tied: np.ndarray, group: np.ndarray, scores: np.ndarray, docs: pa.Array,
                     precision: Precision) -> np.ndarray:
    """:func:`sort_ties` by Arrow's multi-key sort of (group, exact score, doc id)."""
    ids = decode(take(docs, int_array(tied)))
    columns, keys = [int_array(group), ids], [("group", "ascending"), ("doc", "descending")]
    if precision == "double":
        exact = np.ascontiguousarray(np.asarray(scores, dtype=np.float64)[tied] + 0.0)  # no -0.0
        # from buffers, not pa.array: that would import pandas (half a second) to check inputs
        columns.insert(1, pa.Array.from_buffers(pa.float64(), len(exact),
                                                [None, pa.py_buffer(exact)]))
        keys.insert(1, ("score", "descending"))
    table = pa.Table.from_arrays(columns, names=[name for name, _ in keys])
    return tied[numpy_of(sort_indices(table, sort_keys=keys))]


def rank_order(topics: pd.Series, docs: pd.Series, scores: pd.Series | np.ndarray, *,
               precision: Precision = "double") -> np.ndarray:
    """Row positions sorted by topic (ascending), score (descending, compared in
    ``precision``), doc (descending)."""
    topic_codes = byte_order_codes(dictionary_encode(_arrow(topics)))
    doc_codes = byte_order_codes(dictionary_encode(_arrow(docs)))
    return rank_positions(topic_codes, doc_codes, np.asarray(scores, dtype=np.float64),
                          precision=precision)


def rank_run(run: pd.DataFrame, *, precision: Precision = "double") -> pd.DataFrame:
    """The run sorted into ranking order with a 1-based ``rank`` column within each topic."""
    order = rank_order(run["topic"], run["doc"], run["score"], precision=precision)
    ranked = run.iloc[order].reset_index(drop=True)
    ranked["rank"] = ranked.groupby("topic", sort=False).cumcount().to_numpy() + 1
    return ranked


def _bits(count: int) -> int:
    """Bits needed to store the integers 0 .. count - 1 (at least 1)."""
    return max(int(count - 1).bit_length(), 1)


def _arrow(values: pd.Series) -> pa.Array:
    import pandas as pd

    return pa.array(pd.Series(values).astype(str).to_numpy(dtype=object), type=pa.string())
