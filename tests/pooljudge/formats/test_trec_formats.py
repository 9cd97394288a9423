"""pooljudge.formats.trec: write -> read round trips, whitespace variants, and the shared ranking
order."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pooljudge.errors import InputError
from pooljudge.formats import trec
from pooljudge.formats.trec import read_qrels, read_run, read_run_columns, write_qrels, write_run
from pooljudge.kernels.ranking import rank_run

ids = st.text(alphabet="abcXYZ019-_.:/é", min_size=1, max_size=6)
scores = st.floats(allow_nan=False, allow_infinity=False, width=64) | st.sampled_from([0.0, 1.5])


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.tuples(ids, ids), scores, min_size=1, max_size=40))
def test_run_round_trip(tmp_path_factory, entries):
    path = tmp_path_factory.mktemp("run") / "run.txt"
    run = pd.DataFrame([(t, d, s) for (t, d), s in entries.items()],
                       columns=["topic", "doc", "score"])
    write_run(run, path, tag="x")
    back = read_run(path)
    expected = rank_run(run)[["topic", "doc", "score"]]
    pd.testing.assert_frame_equal(back[["topic", "doc", "score"]], expected, check_dtype=False)
    assert (back["tag"] == "x").all()


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.tuples(ids, ids), st.integers(-3, 4), min_size=1, max_size=40))
def test_qrels_round_trip(tmp_path_factory, entries):
    path = tmp_path_factory.mktemp("qrels") / "qrels.txt"
    qrels = pd.DataFrame([(t, d, label) for (t, d), label in entries.items()],
                         columns=["topic", "doc", "label"])
    write_qrels(qrels, path)
    back = read_qrels(path).sort_values(["topic", "doc"]).reset_index(drop=True)
    expected = qrels.sort_values(["topic", "doc"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(back, expected, check_dtype=False)


@pytest.mark.parametrize("text", [
    "1 Q0 a 1 2.5 t\n01 Q0 b 2 1 t\n",
    "1\tQ0\ta\t1\t2.5\tt\r\n01  Q0 b 2 1 t  \n",
    "  # header comment\n1 Q0 a 1 2.5 t\n\n   \n01 Q0 b 2 1 t",
])
def test_whitespace_variants_read_the_same(tmp_path, text):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(text.encode()))
    run = read_run(path)
    assert run["topic"].tolist() == ["1", "01"]  # ids are strings: "01" is not "1"
    assert run["doc"].tolist() == ["a", "b"]
    assert run["score"].tolist() == [2.5, 1.0]


def test_columns_reader_agrees_with_the_frame_reader(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("2 Q0 x 1 1.0 t\n1 Q0 y 1 3.0 t\n1 Q0 x 2 3.0 t\n")
    columns = read_run_columns(path)
    assert columns.topic.to_pylist() == ["2", "1", "1"]
    assert columns.doc.to_pylist() == ["x", "y", "x"]
    assert np.array_equal(columns.score, [1.0, 3.0, 3.0])


def test_ranking_breaks_ties_by_doc_descending_in_the_chosen_precision():
    run = pd.DataFrame({"topic": ["1"] * 4, "doc": ["b", "a", "c", "B"],
                        "score": [40.922120174018, 40.922120174019, 1.0, 50.0]})
    # 40.922120174018 and ...19 are the same float32 (trec_eval 9's float sim): "b" > "a";
    # in double precision (trec_eval 10, the default) the higher score comes first.
    assert rank_run(run, precision="single")["doc"].tolist() == ["B", "b", "a", "c"]
    assert rank_run(run)["doc"].tolist() == ["B", "a", "b", "c"]


@pytest.mark.parametrize(("reader", "frame", "message"), [
    (trec.run_columns, pd.DataFrame({"topic": ["1", "1"], "doc": ["d", "d"], "score": [1.0, 2.0]}),
     "run: row 1: document listed twice for topic 1: d"),
    (trec.qrels_columns, pd.DataFrame({"topic": ["1", "1"], "doc": ["d", "d"], "label": [1, 0]}),
     "qrels: row 1: document judged twice for topic 1: d"),
], ids=["run", "qrels"])
def test_dataframe_inputs_refuse_a_repeated_pair(reader, frame, message) -> None:
    with pytest.raises(InputError) as caught:
        reader(frame)
    assert str(caught.value) == message


@pytest.mark.parametrize(("reader", "text", "message"), [
    (read_qrels, "1 0 a 1\n\n1 0 b 99999999999999999999999\n", "3: label is out of range"),
    (read_qrels, "1 0 a 1\n1 0 b -9223372036854775809\n", "2: label is out of range"),
    (read_run_columns, "1 Q0 a 1 2.0 t\n1 Q0 b 2 1_0 t\n", "2: cannot read the line"),
    (read_run_columns, "1 Q0 a 1 2.0 t\n# c\n1 Q0 b 2 1e400 t\n", "3: score is not a finite"),
    (trec.read_pool, "topic\tdoc\torder\tbest_rank\truns\n1\ta\t99999999999999999999\t1\tr\n",
     "2: order is out of range"),
], ids=["huge-label", "below-int64", "python-only-float", "overflowing-score", "huge-order"])
def test_a_value_pyarrow_refuses_is_named_with_its_line(tmp_path, reader, text, message):
    path = tmp_path / "f"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        reader(path)
    assert str(caught.value).startswith(f"{path}:{message}"), str(caught.value)


@pytest.mark.parametrize("reader", [read_qrels, read_run_columns, trec.read_pool])
def test_every_reader_accepts_a_byte_order_mark_and_crlf(tmp_path, reader):
    text = {read_qrels: "1 0 a 1\n1 0 b 0\n", read_run_columns: "1 Q0 a 1 2.0 t\n",
            trec.read_pool: "topic\tdoc\torder\tbest_rank\truns\n1\ta\t1\t1\tr\n"}[reader]
    plain, marked = tmp_path / "plain", tmp_path / "marked"
    plain.write_text(text)
    marked.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    a, b = reader(plain), reader(marked)
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    else:
        assert all(x.equals(y) if hasattr(x, "equals") else np.array_equal(x, y)
                   for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize(("text", "docs", "labels"), [
    ("1 0 d1 +1\n1 0 d2 0\n", ["d1", "d2"], [1, 0]),
    ("1 0 d+1 +2\r\n1\t0\t+d2\t-1\r\n", ["d+1", "+d2"], [2, -1]),  # ids keep their '+'
    ("1 0 d1 +3", ["d1"], [3]),  # no final line end
])
def test_a_qrels_label_with_a_plus_sign_reads_as_trec_eval_reads_it(tmp_path, text, docs,
                                                                     labels):
    path = tmp_path / "qrels"
    path.write_bytes(text.encode())
    frame = read_qrels(path)
    assert frame["doc"].tolist() == docs
    assert frame["label"].tolist() == labels


@pytest.mark.parametrize(("text", "line", "message"), [
    ("1 0 d1 1\n1 0 d2 ++1\n", 2, "label is not an integer"),
    ("1 0 d1 1\n1 0 d2 +1.5\n", 2, "label is not an integer"),
    ("1 0 d1 +\n", 1, "label is not an integer"),
])
def test_a_malformed_signed_label_is_named_with_its_line(tmp_path, text, line, message):
    path = tmp_path / "qrels"
    path.write_text(text)
    with pytest.raises(InputError, match=f"qrels:{line}: {message}"):
        read_qrels(path)
