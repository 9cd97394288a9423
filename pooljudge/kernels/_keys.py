"""64-bit keys for string ids, computed with numpy over Arrow's buffers: equality checks and
joins of millions of (topic, doc) pairs by sorting integers instead of hashing strings.

Hashing ids into an Arrow dictionary costs one random memory access per row into a table of
hundreds of thousands of entries; on a machine with slow memory that was 1.2 s for 2 million run
rows, against 0.1 s for :func:`string_hashes`, whose reads are sequential. Keys are only ever
used to *find candidates*: equal strings always get equal keys, and every match found through a
key is confirmed on the strings themselves, so a collision (about 1 in 10^8 for a million
distinct ids) costs a slower exact path, never a wrong number.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from pooljudge.kernels._arrow import all_true, decode, equal, take
from pooljudge.kernels._arrow_numpy import int_array, numpy_of
from pooljudge.kernels._sort import segment_starts, sorted_within

__all__ = [
    "all_same_strings", "first_repeat", "leading_words", "pair_keys", "string_hashes",
    "surely_no_repeat",
]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_TOPIC_LIMIT = 1 << 24
# _KEEP[n] keeps the first n bytes of a little-endian word (n = 8: all of it).
_KEEP = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def string_hashes(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A uint64 hash per string (``utf8``/``large_utf8``/binary, or dictionary-encoded ones).

    The bytes of each string are read 8 at a time (unaligned little-endian words straight from
    the Arrow data buffer), masked past the string's end, and folded with the SplitMix64
    finaliser; the length is mixed in first, so ``"a"`` and ``"a\\0"`` differ. A null slot
    hashes the bytes its offsets span (run and qrels columns never hold nulls).
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if isinstance(values, pa.DictionaryArray):
        return string_hashes(values.dictionary)[numpy_of(values.indices)]
    offsets, data = _buffers(values)
    starts, lengths = offsets[:-1], np.diff(offsets)
    end = int(offsets[-1]) if len(offsets) else 0
    hashes = (lengths.astype(np.uint64) + np.uint64(1)) * _GOLDEN
    rows: np.ndarray | None = None  # None: every row (the first word of each string)
    word = 0
    with np.errstate(over="ignore"):
        while True:
            left = (lengths if rows is None else lengths[rows]) - 8 * word
            first = starts if rows is None else starts[rows]
            chunk = _words_at(data, end, first + 8 * word) & _KEEP[np.clip(left, 0, 8)]
            folded = _finalise(((hashes if rows is None else hashes[rows]) ^ chunk) * _GOLDEN)
            if rows is None:
                hashes = folded
            else:
                hashes[rows] = folded
            longer = left > 8
            if not longer.any():
                return hashes
            rows = np.flatnonzero(longer) if rows is None else rows[longer]
            word += 1


def leading_words(values: pa.Array, rows: np.ndarray) -> np.ndarray:
    """Per row of ``rows`` (positions in the string array ``values``), the first 8 bytes of its
    string read big-endian, zero-padded past the end: a uint64 that orders like the strings'
    byte order wherever two of them differ (equal words: the strings share their first 8
    bytes, or differ only by trailing NUL bytes; compare them otherwise).
    """
    offsets, data = _buffers(values)
    rows = np.asarray(rows, dtype=np.int64)
    starts = offsets[rows]
    left = np.clip(offsets[rows + 1] - starts, 0, 8)
    words = _words_at(data, int(offsets[-1]) if len(offsets) else 0, starts) & _KEEP[left]
    return words.byteswap()


def pair_keys(topic_codes: np.ndarray, doc_hashes: np.ndarray) -> np.ndarray:
    """One uint64 per (topic code, doc hash): equal pairs give equal keys.

    For topic codes below 2**24 the key is ``topic << 40 | top 40 bits of the doc hash``, so
    sorted keys group by topic and lookups of a topic-grouped run stay within a small, cached
    stretch of the sorted keys; other codes are mixed into the hash. (A code of -1 gives a key
    no real topic has below 2**24 - 1; matches are confirmed on the strings anyway.)
    """
    codes = np.asarray(topic_codes).astype(np.uint64)
    with np.errstate(over="ignore"):
        if len(codes) == 0 or np.asarray(topic_codes).max() < _TOPIC_LIMIT:
            return (codes << np.uint64(40)) | (doc_hashes >> np.uint64(24))
        return _finalise(doc_hashes ^ ((codes + np.uint64(1)) * _MIX_1))


def all_same_strings(left: pa.Array, right: pa.Array) -> bool:
    """Whether two equally long string arrays (plain or dictionary) are equal row by row."""
    return all_true(equal(decode(left), decode(right)))


def surely_no_repeat(topic_codes: np.ndarray, doc_hashes: np.ndarray) -> bool:
    """True when no (topic, doc) pair can repeat: the topics come grouped (each code's rows
    contiguous) and no doc hash repeats within a topic. False means "maybe" (a topic comes back,
    or two hashes are equal): then :func:`first_repeat` decides.

    Each topic's hashes are sorted alone (:func:`~pooljudge.kernels._sort.sorted_within`),
    several times cheaper than sorting the pair keys of all rows.
    """
    codes = np.asarray(topic_codes)
    starts = segment_starts(codes)
    if len(starts) > 1 and not bool((codes[starts][1:] > codes[starts][:-1]).all()):
        return False  # codes come in first-appearance order: one went back
    lengths = np.diff(np.append(starts, len(codes)))
    ordered = sorted_within(doc_hashes, starts, lengths)
    equal = ordered[1:] == ordered[:-1]
    equal[starts[1:] - 1] = False  # across two topics
    return not bool(equal.any())


def first_repeat(keys: np.ndarray, topics: pa.Array, docs: pa.Array) -> int | None:
    """Row of the first (topic, doc) pair that repeats an earlier row, or None.

    ``keys`` are :func:`pair_keys` of the rows. Sorting them (no argsort) settles the common case
    of no repeat; otherwise only the rows whose keys repeat are compared as strings.
    """
    ordered = np.sort(keys)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if len(repeated) == 0:
        return None
    rows = np.flatnonzero(np.isin(keys, repeated))
    topic_ids = decode(take(topics, int_array(rows)))
    doc_ids = decode(take(docs, int_array(rows)))
    seen: set[tuple[str, str]] = set()
    for row, pair in zip(rows, zip(topic_ids.to_pylist(), doc_ids.to_pylist(), strict=True),
                         strict=True):
        if pair in seen:
            return int(row)
        seen.add(pair)
    return None


def _buffers(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(int64 offsets of the array's rows, uint8 view of its data buffer)."""
    kind = values.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)
            or pa.types.is_binary(kind) or pa.types.is_large_binary(kind)):
        raise TypeError(f"not a string array: {kind}")
    width = 8 if (pa.types.is_large_string(kind) or pa.types.is_large_binary(kind)) else 4
    _validity, offset_buffer, data_buffer = values.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=np.int32 if width == 4 else np.int64,
                            count=len(values) + 1, offset=values.offset * width)
    data = (np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None
            else np.zeros(0, dtype=np.uint8))
    return offsets.astype(np.int64), data


def _words_at(data: np.ndarray, end: int, positions: np.ndarray) -> np.ndarray:
    """The little-endian uint64 read at each byte position (bytes past ``end`` read as 0).

    Every position is read in one gather (those within 8 bytes of the end clamped), then the
    few near the end are read again from a zero-padded copy of the last 8 bytes.
    """
    tail_start = max(end - 8, 0)
    tail = np.zeros(16, dtype=np.uint8)
    tail[:end - tail_start] = data[tail_start:end]
    tail_words = np.ndarray(shape=(9,), dtype="<u8", buffer=tail, strides=(1,))
    if end < 8:
        return tail_words[np.clip(positions - tail_start, 0, 8)]
    words = np.ndarray(shape=(end - 7,), dtype="<u8", buffer=data, strides=(1,))
    out = words[np.minimum(positions, end - 8)]
    near_end = np.flatnonzero(positions > end - 8)
    if len(near_end):
        out[near_end] = tail_words[np.clip(positions[near_end] - tail_start, 0, 8)]
    return out


def _finalise(values: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: every input bit affects every output bit."""
    values = values ^ (values >> np.uint64(30))
    values *= _MIX_1
    values ^= values >> np.uint64(27)
    values *= _MIX_2
    values ^= values >> np.uint64(31)
    return values
