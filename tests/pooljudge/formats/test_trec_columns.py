"""pooljudge.formats._columns and ranking.rank_rows: the pandas-free fast paths agree with the plain
ones (dictionary encoding, tie order, duplicate check) and keep naming ``path:line``."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pooljudge.errors import InputError
from pooljudge.formats._columns import (
    encode_grouped,
    first_duplicate,
    read_qrels_columns,
    read_run_columns,
)
from pooljudge.ground.progress import progress
from pooljudge.kernels import int_array, numpy_of
from pooljudge.kernels.ranking import byte_order_codes, rank_positions, rank_rows
from tests.support.fresh import python_output

ids = st.text(alphabet="abAB01é-", min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(st.lists(ids, min_size=0, max_size=60))
def test_grouped_encoding_equals_dictionary_encode_in_any_order(values):
    column = pa.array(values, type=pa.string())
    expected = pc.dictionary_encode(column)
    got = encode_grouped(column)
    assert got.dictionary.equals(expected.dictionary)
    assert numpy_of(got.indices).tolist() == numpy_of(expected.indices).tolist()


def test_numpy_and_arrow_conversions_round_trip():
    values = np.array([3, -1, 7], dtype=np.int64)
    assert numpy_of(int_array(values)).tolist() == [3, -1, 7]
    assert numpy_of(pa.chunked_array([int_array(values), int_array(values[:1])])).tolist() == [
        3, -1, 7, 3]
    assert numpy_of(int_array(values).slice(1)).tolist() == [-1, 7]
    with pytest.raises(TypeError):
        numpy_of(pa.array(["a"]))
    with pytest.raises(ValueError):
        numpy_of(pa.array([1, None]))
    with_nulls = pa.array([None, 4, None, 5, 6, 7, 8, 9, None, 2]).slice(1)
    assert numpy_of(with_nulls, fill=-1).tolist() == [4, -1, 5, 6, 7, 8, 9, -1, 2]


# Scores with exact ties, float32 ties (differ only beyond single precision) and signed zeros.
tie_scores = st.sampled_from([0.0, -0.0, 1.5, 40.922120174018, 40.922120174019, -2.0, 1e39])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), ids, tie_scores), min_size=0, max_size=50,
                unique_by=lambda row: (row[0], row[1])))
def test_rank_rows_is_the_full_ranking_order(rows):
    topic = np.array([t for t, _, _ in rows], dtype=np.int64)
    docs = pa.array([d for _, d, _ in rows], type=pa.string())
    score = np.array([s for _, _, s in rows], dtype=np.float64)
    expected = rank_positions(topic, byte_order_codes(pc.dictionary_encode(docs)), score)
    assert rank_rows(topic, score, docs).tolist() == expected.tolist()
    assert rank_rows(topic, score, pc.dictionary_encode(docs)).tolist() == expected.tolist()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), ids, tie_scores, st.integers(-1, 2)), min_size=1,
                max_size=50, unique_by=lambda row: (row[0], row[1])))
def test_rank_rows_with_labels_gives_the_same_label_sequence(rows):
    topic = np.array([r[0] for r in rows], dtype=np.int64)
    docs = pa.array([r[1] for r in rows], type=pa.string())
    score = np.array([r[2] for r in rows], dtype=np.float64)
    labels = np.array([r[3] for r in rows], dtype=np.int64)
    expected = rank_positions(topic, byte_order_codes(pc.dictionary_encode(docs)), score)
    got = rank_rows(topic, score, docs, labels)
    assert sorted(got.tolist()) == list(range(len(rows)))
    assert labels[got].tolist() == labels[expected].tolist()
    assert topic[got].tolist() == topic[expected].tolist()


def test_first_duplicate_is_the_earliest_repeating_row():
    topic = pc.dictionary_encode(pa.array(["1", "1", "2", "1", "2", "2"]))
    doc = pc.dictionary_encode(pa.array(["a", "b", "a", "c", "a", "b"]))
    assert first_duplicate(topic, doc) == 4
    assert first_duplicate(topic, pc.dictionary_encode(pa.array(list("abcdef")))) is None


@pytest.mark.parametrize(("text", "line"), [
    ("1 Q0 a 1 3 t\n2 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n", 4),  # ungrouped topics
    ("# c\n1\tQ0\ta\t1\t3\tt\n\n1\tQ0\ta\t2\t2\tt\n", 4),  # tabs, comment and blank lines
    ("1  Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 b 3 1 t\n", 3),  # repeated blanks
])
def test_duplicate_documents_name_their_line(tmp_path, text, line):
    path = tmp_path / "run.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=f"run.txt:{line}: document listed twice"):
        read_run_columns(path)


def test_unused_columns_are_still_counted(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("1 0 a 1\n1 a 1\n")
    with pytest.raises(InputError, match=r"qrels\.txt:2: expected 4 whitespace-separated fields"):
        read_qrels_columns(path)


def test_ungrouped_run_reads_like_a_grouped_one(tmp_path):
    grouped, ungrouped = tmp_path / "g.txt", tmp_path / "u.txt"
    grouped.write_text("7 Q0 a 1 3 t\n7 Q0 b 2 2 t\n5 Q0 a 1 9 t\n")
    ungrouped.write_text("7 Q0 a 1 3 t\n5 Q0 a 1 9 t\n7 Q0 b 2 2 t\n")
    for path in (grouped, ungrouped):
        run = read_run_columns(path)
        assert run.topic.dictionary.to_pylist() == ["7", "5"]
    run = read_run_columns(ungrouped)
    assert run.topic.dictionary_decode().to_pylist() == ["7", "5", "7"]
    assert run.score.tolist() == [3.0, 9.0, 2.0]


def test_progress_off_a_terminal_is_silent_and_iterates():
    bar = progress([1, 2], total=2)
    assert list(bar) == [1, 2]
    bar.update(1)
    bar.close()


def test_eval_to_tsv_does_not_import_pandas(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 2 t\n")
    code = ("import sys; from pooljudge.cli import main; "
            f"main(['eval', {str(tmp_path / 'q.txt')!r}, {str(tmp_path / 'r.txt')!r}, "
            "'-m', 'P@1', '--format', 'tsv']); print('pandas' in sys.modules)")
    out = python_output(code)
    # Doc b ties with a and sorts first (doc ids descending): P@1 = 0; NumRet and short@1
    # (topics with fewer than 1 returned) are in every table.
    assert out.splitlines() == ["run\ttopic\tmeasure\tvalue", "r.txt\tall\tP@1\t0.0",
                                "r.txt\tall\tNumRet\t2.0", "r.txt\tall\tshort@1\t0.0",
                                "False"]
