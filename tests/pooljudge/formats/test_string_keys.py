"""64-bit string keys: equal strings always share a key, and every use survives collisions."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pooljudge.errors import InputError
from pooljudge.formats._columns import read_run_columns
from pooljudge.kernels._keys import all_same_strings, first_repeat, pair_keys, string_hashes

TRICKY = ["", "a", "a\x00", "\x00", "abcdefg", "abcdefgh", "abcdefghi", "abcdefgh\x00",
          "x" * 16, "x" * 17, "x" * 15, "é", "e\u0301", "FBIS3-10082", "LA010189-0001",
          "clueweb09-en0000-00-00000", "clueweb09-en0000-00-00001"]


def _same_iff_equal(values: list[str], hashes: np.ndarray) -> None:
    for i, left in enumerate(values):
        for j, right in enumerate(values):
            assert (hashes[i] == hashes[j]) == (left == right), (left, right)


def test_tricky_ids_hash_apart_and_equal_ids_together():
    values = TRICKY + TRICKY[::-1]
    _same_iff_equal(values, string_hashes(pa.array(values)))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(max_size=30), max_size=40), st.integers(0, 5))
def test_every_layout_of_the_same_strings_hashes_alike(values, cut):
    plain = pa.array(values, type=pa.string())
    expected = string_hashes(plain)
    _same_iff_equal(values, expected)
    assert string_hashes(pa.array(values, type=pa.large_string())).tolist() == expected.tolist()
    assert string_hashes(pc.dictionary_encode(plain)).tolist() == expected.tolist()
    cut = min(cut, len(values))
    assert string_hashes(plain.slice(cut)).tolist() == expected[cut:].tolist()
    chunked = pa.chunked_array([plain.slice(0, cut), plain.slice(cut)], type=pa.string())
    assert string_hashes(chunked).tolist() == expected.tolist()


def test_string_hashes_refuse_numbers_and_take_empty_arrays():
    assert len(string_hashes(pa.array([], type=pa.string()))) == 0
    with pytest.raises(TypeError):
        string_hashes(pa.array([1, 2]))


def test_pair_keys_separate_topics_and_agree_on_equal_pairs():
    hashes = string_hashes(pa.array(["d1", "d2", "d1", "d1"]))
    keys = pair_keys(np.array([0, 0, 0, 1]), hashes)
    assert keys[0] == keys[2] and len({keys[0], keys[1], keys[3]}) == 3
    many = np.array([0, 1 << 24, 0])  # codes too large for the grouped layout are mixed in
    mixed = pair_keys(many, string_hashes(pa.array(["d", "d", "d"])))
    assert mixed[0] == mixed[2] != mixed[1]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from(["d1", "d2", "d3", "d4"])),
                max_size=12), st.booleans())
def test_first_repeat_is_exact_even_when_every_key_collides(pairs, collide):
    topics = pa.array([t for t, _ in pairs], type=pa.string())
    docs = pa.array([d for _, d in pairs], type=pa.string())
    seen, expected = set(), None
    for row, pair in enumerate(pairs):
        if pair in seen:
            expected = row
            break
        seen.add(pair)
    codes = np.frombuffer(pc.dictionary_encode(topics).indices.buffers()[1], dtype=np.int32,
                          count=len(pairs)) if pairs else np.zeros(0, dtype=np.int32)
    keys = (np.zeros(len(pairs), dtype=np.uint64) if collide
            else pair_keys(codes, string_hashes(docs)))
    assert first_repeat(keys, topics, docs) == expected


def test_all_same_strings_compares_plain_and_encoded_arrays():
    plain = pa.array(["a", "b", "c"])
    assert all_same_strings(plain, pc.dictionary_encode(plain))
    assert not all_same_strings(plain, pa.array(["a", "b", "d"]))
    assert all_same_strings(plain.slice(3), plain.slice(3))


def test_run_reading_names_the_repeated_line_when_keys_collide(tmp_path, monkeypatch):
    import pooljudge.formats._columns as columns

    monkeypatch.setattr(columns, "pair_keys", lambda codes, hashes: np.zeros(len(codes), np.uint64))
    path = tmp_path / "run.txt"
    path.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 a 1 3 t\n")
    assert len(read_run_columns(path).score) == 3  # collisions alone are no duplicate
    path.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 a 1 3 t\n1 Q0 b 3 1 t\n")
    with pytest.raises(InputError, match=r"run\.txt:4: document listed twice for topic 1: b"):
        read_run_columns(path)
