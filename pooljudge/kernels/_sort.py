"""Sorting rows by (segment, 32-bit key) fast: one short sort per segment, not one long sort.

A run's rows come in segments (the rows of one topic, a thousand or so); ranking them is a sort
by (topic, score key) whose keys are distinct across segments. One ``argsort`` of a block costs
``log2(rows)`` passes over every row; sorting each segment alone costs ``log2(segment)``, and
numpy sorts short rows of a 2-D array with its vectorised small-array sort: a block of the
benchmark's run (145,000 rows, 1,000 a topic) is ranked in about half the time of
``np.argsort`` of its packed keys (0.6 of a stable one), and a segment already in order (a run
written in rank order) costs one comparison per row.

Each grid cell packs ``key << bits | column`` into a uint64 (``bits`` = log2 of the row's width),
so the sort returns positions without an ``argsort``; rows with equal keys keep their order.
Segments of one length form the grid as they are; otherwise each power-of-two width class is
a grid padded with the largest uint64.
"""

from __future__ import annotations

import numpy as np

__all__ = ["segment_order", "segment_starts", "sorted_within"]

_PADDING = np.uint64(np.iinfo(np.uint64).max)  # sorts after every packed cell
_MAX_KEY_BITS = 32


def segment_order(segment: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Row positions sorted by ``segment`` ascending, then ``key`` (uint32) ascending; rows with
    equal (segment, key) stay in row order.

    ``segment`` is an int64 code per row. When each code's rows are contiguous (a block of a
    run grouped by topic) every segment is sorted alone (:func:`sorted_within`; nothing to do
    when the keys are in order already, as in a run written in rank order); otherwise one sort
    of the packed 64-bit keys is used.
    """
    segment = np.asarray(segment, dtype=np.int64)
    key = np.asarray(key, dtype=np.uint32)
    n = len(key)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = segment_starts(segment)
    lengths = np.diff(np.append(starts, n))
    by_code = np.argsort(segment[starts], kind="stable")
    codes = segment[starts][by_code]
    if not bool((codes[1:] > codes[:-1]).all()):  # a code comes back: not contiguous
        return _whole_order(segment, key)
    if not bool(((key[1:] < key[:-1]) & (segment[1:] == segment[:-1])).any()):
        rows = np.arange(n, dtype=np.int64)  # every segment in order already
    elif lengths.min() == lengths.max():  # segments of one length: a grid without padding
        rows = _equal_segments_order(key, starts, int(lengths[0]))
    else:
        bits = max(int(lengths.max() - 1).bit_length(), 1)
        within = np.arange(n, dtype=np.int64) - np.repeat(starts, lengths)
        packed = (key.astype(np.uint64) << np.uint64(bits)) | within.astype(np.uint64)
        ranked = sorted_within(packed, starts, lengths) & np.uint64((1 << bits) - 1)
        rows = np.arange(n, dtype=np.int64) - within + ranked.astype(np.int64)
    if bool((by_code[1:] > by_code[:-1]).all()):  # segments in code order already
        return rows
    return rows[_place(starts[by_code], lengths[by_code], n)]


def _equal_segments_order(key: np.ndarray, starts: np.ndarray, length: int) -> np.ndarray:
    """:func:`segment_order`'s rows for contiguous segments of one ``length`` in code order:
    ``key << bits | column`` as a grid of one segment a row, sorted row by row."""
    bits = max((length - 1).bit_length(), 1)
    grid = (key.reshape(-1, length).astype(np.uint64) << np.uint64(bits)) | np.arange(
        length, dtype=np.uint64)
    grid.sort(axis=1)
    grid &= np.uint64((1 << bits) - 1)
    return (grid.astype(np.int64) + starts[:, None]).ravel()


def segment_starts(segment: np.ndarray) -> np.ndarray:
    """The first row of each run of equal values (row 0 included; empty for no rows)."""
    if len(segment) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(([0], np.flatnonzero(segment[1:] != segment[:-1]) + 1))


def sorted_within(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``values`` (uint64) with each segment ``values[start:start + length]`` sorted; the
    segments lie one after another from row 0 and cover every row.

    The segments whose lengths round up to the same power of two 2**b are sorted as the rows of
    one grid of width 2**b, padded with the largest uint64 (which sorts last, so each row's
    first ``length`` cells are its sorted values): one short vectorised sort per row.
    """
    values = np.asarray(values, dtype=np.uint64)
    if len(lengths) and lengths.min() == lengths.max():  # one length: a grid without padding
        return np.sort(values.reshape(len(lengths), int(lengths[0])), axis=1).ravel()
    out = np.empty_like(values)
    bits = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64)
    classes = np.flatnonzero(np.bincount(bits))
    for width_bits in classes:
        these = np.arange(len(lengths)) if len(classes) == 1 else np.flatnonzero(
            bits == width_bits)
        width = 1 << int(width_bits)
        counts = lengths[these]
        rows = np.arange(len(values)) if len(classes) == 1 else _positions(starts[these], counts)
        slot = rows + np.repeat(np.arange(len(these), dtype=np.int64) * width - starts[these],
                                counts)
        grid = np.full(len(these) * width, _PADDING, dtype=np.uint64)
        grid[slot] = values[rows]
        grid.reshape(len(these), width).sort(axis=1)
        out[rows] = grid[slot]
    return out


def _place(starts: np.ndarray, lengths: np.ndarray, n: int) -> np.ndarray:
    """The rows of the segments (``starts``, ``lengths``) one after another, each in row order."""
    begins = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.arange(n, dtype=np.int64) + np.repeat(starts - begins, lengths)


def _positions(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The rows of the segments (``starts``, ``lengths``), segment after segment."""
    return _place(starts, lengths, int(lengths.sum()))


def _whole_order(segment: np.ndarray, key: np.ndarray) -> np.ndarray:
    """:func:`segment_order` for any row order: one sort of ``segment << 32 | key`` (rows packed
    into the low bits when they fit, else a stable argsort)."""
    codes = np.unique(segment, return_inverse=True)[1].astype(np.int64).ravel()
    packed = (codes << _MAX_KEY_BITS) | key.astype(np.int64)
    row_bits = max(int(len(key) - 1).bit_length(), 1)
    if int(packed.max()).bit_length() + row_bits <= 63:
        mask = (1 << row_bits) - 1
        return np.sort((packed << row_bits) | np.arange(len(key), dtype=np.int64)) & mask
    return np.argsort(packed, kind="stable")
