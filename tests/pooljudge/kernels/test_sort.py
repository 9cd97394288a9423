"""Sorting rows segment by segment gives exactly the order of one stable sort of the whole."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pooljudge.kernels._keys import first_repeat, pair_keys, surely_no_repeat
from pooljudge.kernels._sort import segment_order, segment_starts, sorted_within


def _expected(segment: np.ndarray, key: np.ndarray) -> np.ndarray:
    return np.lexsort((np.arange(len(key)), key.astype(np.int64), segment))


def _grouped(lengths: list[int], codes: list[int], rng: np.random.Generator, top: int
             ) -> tuple[np.ndarray, np.ndarray]:
    segment = np.repeat(np.asarray(codes, dtype=np.int64), lengths)
    return segment, rng.integers(0, top, size=len(segment), dtype=np.uint64).astype(np.uint32)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 70), max_size=12), st.integers(0, 2**32 - 1),
       st.sampled_from([2, 50, 2**32]), st.booleans())
def test_grouped_segments_of_any_lengths_and_code_order(lengths, seed, top, shuffle_codes):
    rng = np.random.default_rng(seed)
    codes = list(range(len(lengths)))
    if shuffle_codes:
        rng.shuffle(codes)
    segment, key = _grouped(lengths, codes, rng, top)
    assert segment_order(segment, key).tolist() == _expected(segment, key).tolist()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 5)), max_size=60))
def test_interleaved_segments_fall_back_to_one_sort(rows):
    segment = np.asarray([s for s, _ in rows], dtype=np.int64)
    key = np.asarray([k for _, k in rows], dtype=np.uint32)
    assert segment_order(segment, key).tolist() == _expected(segment, key).tolist()


@pytest.mark.parametrize("length", [1, 2, 5, 64, 1000])
def test_segments_of_one_length_in_any_code_order(length):
    rng = np.random.default_rng(length)
    segment, key = _grouped([length] * 6, [4, 0, 5, 1, 3, 2], rng, 7)
    assert segment_order(segment, key).tolist() == _expected(segment, key).tolist()
    starts = np.arange(6) * length
    expected = np.sort(key.astype(np.uint64).reshape(6, length), axis=1).ravel()
    assert sorted_within(key.astype(np.uint64), starts, np.full(6, length)).tolist() == (
        expected.tolist())


def test_keys_in_order_and_extreme_keys():
    segment = np.repeat(np.array([3, 1, 2], dtype=np.int64), [4, 3, 5])
    key = np.concatenate([np.arange(4), [0, 0, 2**32 - 1], np.arange(5)]).astype(np.uint32)
    assert segment_order(segment, key).tolist() == _expected(segment, key).tolist()
    key[-1] = 0  # one segment out of order
    assert segment_order(segment, key).tolist() == _expected(segment, key).tolist()
    key = np.full(12, 2**32 - 1, dtype=np.uint32)  # ties everywhere at the largest key
    assert segment_order(segment, key).tolist() == _expected(segment, key).tolist()


def test_no_rows_and_one_row():
    assert segment_order(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint32)).size == 0
    assert segment_order(np.array([5]), np.array([7], dtype=np.uint32)).tolist() == [0]
    assert segment_starts(np.zeros(0)).size == 0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=10), st.integers(0, 2**32 - 1))
def test_sorted_within_sorts_each_segment_alone(lengths, seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 2**64 - 1, size=sum(lengths), dtype=np.uint64, endpoint=True)
    values[rng.random(len(values)) < 0.2] = np.iinfo(np.uint64).max  # equal to the padding
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    out = sorted_within(values, starts, np.asarray(lengths))
    expected = np.concatenate([np.sort(values[s:s + n]) for s, n in zip(starts, lengths,
                                                                         strict=True)])
    assert out.tolist() == expected.tolist()


@pytest.mark.parametrize(("codes", "hashes", "surely"), [
    ([0, 0, 1, 1], [1, 2, 1, 2], True),  # equal hashes in different topics are fine
    ([0, 0, 1, 1], [1, 2, 2, 3], True),  # also side by side across the topics' boundary
    ([0, 0, 1, 1], [1, 2, 3, 3], False),  # a hash twice in a topic
    ([0, 1, 0], [1, 2, 3], False),  # topic 0 comes back: unknown, the exact path decides
    ([], [], True),
])
def test_surely_no_repeat(codes, hashes, surely):
    codes = np.asarray(codes, dtype=np.int64)
    hashes = np.asarray(hashes, dtype=np.uint64)
    assert surely_no_repeat(codes, hashes) is surely


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 6)), max_size=40))
def test_surely_no_repeat_never_misses_a_repeat(rows):
    codes = np.asarray([t for t, _ in rows], dtype=np.int64)
    hashes = np.asarray([d for _, d in rows], dtype=np.uint64)
    repeated = len(set(rows)) < len(rows)
    if repeated:
        assert not surely_no_repeat(codes, hashes)
    import pyarrow as pa

    topics, docs = pa.array([str(t) for t, _ in rows]), pa.array([str(d) for _, d in rows])
    found = first_repeat(pair_keys(codes, hashes), topics, docs)
    assert (found is not None) == repeated
