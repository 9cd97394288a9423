"""pooljudge.trec: write -> read round trips, whitespace variants, and the shared ranking order."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pooljudge import trec
from pooljudge.errors import InputError
from pooljudge.ranking import rank_run
from pooljudge.trec import read_qrels, read_run, read_run_columns, write_qrels, write_run

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


def test_ranking_breaks_ties_by_doc_descending_in_single_precision():
    run = pd.DataFrame({"topic": ["1"] * 4, "doc": ["b", "a", "c", "B"],
                        "score": [40.922120174018, 40.922120174019, 1.0, 50.0]})
    # 40.922120174018 and ...19 are the same float32 (trec_eval's float sim): "b" > "a".
    assert rank_run(run)["doc"].tolist() == ["B", "b", "a", "c"]


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
