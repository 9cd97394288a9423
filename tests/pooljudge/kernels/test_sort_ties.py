"""ranking.sort_ties (tie groups ordered by their ids' first 8 bytes, Arrow's sort where those
do not decide) gives the full ranking order of rank_positions, whatever the ids look like."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from pooljudge.kernels._keys import leading_words
from pooljudge.kernels.ranking import (
    byte_order_codes,
    rank_positions,
    rank_rows,
    score_keys,
    sort_ties,
)

# Ids around the 8-byte word: shared 8-byte prefixes, trailing NULs, multi-byte characters.
ids = st.one_of(
    st.text(alphabet="ab\x00é", min_size=0, max_size=3),
    st.builds(lambda tail: "LA010189" + tail, st.text(alphabet="-0\x00", max_size=3)),
    st.text(alphabet="xyz", min_size=6, max_size=10),
)
scores = st.sampled_from([0.0, -0.0, 1.5, 40.922120174018, 40.922120174019, 7.0])


def _ties(rows: list[tuple[int, str, float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                       pa.Array]:
    """The rows' positions in single-precision ranking order and each one's tie group."""
    topic = np.array([t for t, _, _ in rows], dtype=np.int64)
    score = np.array([s for _, _, s in rows], dtype=np.float64)
    docs = pa.array([d for _, d, _ in rows], type=pa.string())
    keys = score_keys(topic, score)
    order = np.argsort(keys, kind="stable")
    group = np.cumsum(np.concatenate(([True], keys[order][1:] != keys[order][:-1])))
    return order, group, score, docs


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), ids, scores), min_size=1, max_size=70,
                unique_by=lambda row: (row[0], row[1])),
       st.sampled_from(["single", "double"]), st.booleans())
def test_sort_ties_is_the_ranking_order(rows, precision, encoded):
    order, group, score, docs = _ties(rows)
    topic = np.array([t for t, _, _ in rows], dtype=np.int64)
    expected = rank_positions(topic, byte_order_codes(pc.dictionary_encode(docs)), score,
                              precision=precision)
    given_docs = pc.dictionary_encode(docs) if encoded else docs
    assert sort_ties(order, group, score, given_docs, precision=precision).tolist() == (
        expected.tolist())
    assert rank_rows(topic, score, given_docs, precision=precision).tolist() == expected.tolist()


def test_large_groups_of_short_and_long_ids():
    """Groups larger than 2**b for every b the short ids leave free, and ids that only their
    ninth byte tells apart, in one call."""
    rng = np.random.default_rng(3)
    short = [f"D{n}" for n in rng.choice(10**6, size=3000, replace=False)]
    long = [f"clueweb09-{n:05d}" for n in range(40)]
    names = short + long
    rows = [(i % 2, name, 1.0) for i, name in enumerate(names)]
    order, group, score, docs = _ties(rows)
    topic = np.array([t for t, _, _ in rows], dtype=np.int64)
    expected = rank_positions(topic, byte_order_codes(pc.dictionary_encode(docs)), score)
    assert sort_ties(order, group, score, docs).tolist() == expected.tolist()


def test_leading_words_order_like_the_bytes():
    values = pa.array(["", "a", "a\x00", "ab", "abcdefgh", "abcdefghi", "b", "é"]).slice(1)
    words = leading_words(values, np.arange(len(values)))
    assert words.tolist() == sorted(words.tolist())
    assert words[0] == words[1]  # "a" and "a\0" differ only past their words' padding
