"""Prels: the TSV reader and writer (round trip, every bad line named), their binding to the
qrels and the join that carries each ranked document's prels row only when prels are given."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.eval_inputs import load_qrels
from pooljudge.metrics.join import join
from pooljudge.metrics.prels import bind_prels

from pooljudge.errors import InputError
from pooljudge.formats.trec import read_prels, run_columns, write_prels

HEADER = "topic\tdoc\tlabel\tstratum\tinclusion\n"
PRELS = pd.DataFrame({
    "topic": ["1", "1", "1", "2"], "doc": ["a", "b", "c", "a"],
    "label": pd.array([1, None, 0, 2], dtype="Int64"), "stratum": [1, 2, 2, 1],
    "inclusion": [1.0, 0.1 + 0.2, 1 / 3, 0.5],
})


def test_round_trip_keeps_empty_labels_and_exact_probabilities(tmp_path):
    path = tmp_path / "x.prels.tsv"
    write_prels(PRELS.iloc[::-1], path)
    text = path.read_text()
    assert text.splitlines()[0] == HEADER.strip()
    assert "1\tb\t\t2\t0.30000000000000004" in text
    back = read_prels(path)
    pd.testing.assert_frame_equal(back, PRELS, check_dtype=False)
    assert (str(back["label"].dtype), back["inclusion"].dtype) == ("Int64", np.float64)


@pytest.mark.parametrize(("line", "message"), [
    pytest.param("1\ta\t1\t1\t0", "inclusion probability is not a number in (0, 1]: '0'",
                 id="inclusion-zero"),
    pytest.param("1\ta\t1\t1\t1.5", "inclusion probability is not a number in (0, 1]: '1.5'",
                 id="inclusion-above-one"),
    pytest.param("1\ta\t1\t1\tnan", "inclusion probability is not a number in (0, 1]: 'nan'",
                 id="inclusion-nan"),
    pytest.param("1\ta\t1.5\t1\t0.5", "label is not an integer: '1.5'", id="label-fraction"),
    pytest.param("1\ta\tyes\t1\t0.5", "label is not an integer: 'yes'", id="label-text"),
    pytest.param("1\ta\t1\t0\t0.5", "stratum is not an integer >= 1: '0'", id="stratum-zero"),
    pytest.param("1\ta\t1\tx\t0.5", "stratum is not an integer >= 1: 'x'", id="stratum-text"),
    pytest.param("1\tb\t1\t1\t0.5", "pair listed twice: 'b'", id="duplicate"),
    pytest.param("1\tc\t1\t1", "expected 5 tab-separated fields, found 4", id="short-line"),
    pytest.param(" \tc\t1\t1\t0.5", "blank topic id: ' '", id="blank-topic"),
])
def test_bad_line_is_named_with_path_and_line(tmp_path, line, message):
    path = tmp_path / "p.tsv"
    path.write_text(HEADER + "1\tb\t\t1\t0.5\n\n" + line + "\n")
    with pytest.raises(InputError) as caught:
        read_prels(path)
    assert str(caught.value) == f"{path}:4: {message}"


def test_a_wrong_header_is_line_one(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("topic\tdoc\tlabel\n1\ta\t1\n")
    with pytest.raises(InputError, match=r":1: the header must be topic doc label stratum"):
        read_prels(path)


def _qrels():
    return load_qrels(pd.DataFrame({"topic": ["1", "1", "2", "3"], "doc": ["a", "c", "a", "z"],
                                    "label": [1, 0, 2, 1]}))


def test_binding_maps_rows_to_qrels_topics_and_cells():
    prels = bind_prels(PRELS.assign(topic=["1", "1", "1", "9"]), _qrels())
    assert prels.topic.tolist() == [0, 0, 0, -1]  # topic 9 is not in the qrels
    assert prels.judged.tolist() == [True, False, True, True]
    assert prels.pooled.tolist() == [1.0, 1.0, 2.0]  # cells (9,1), (1,1), (1,2)
    assert prels.sampled.tolist() == [1.0, 1.0, 1.0]
    assert prels.cell_fraction().tolist() == [1.0, 0.5, 0.5, 1.0]


def test_join_carries_prels_rows_only_with_prels():
    qrels = _qrels()
    run = run_columns(pd.DataFrame({"topic": ["1", "1", "1", "2", "4"],
                                    "doc": ["x", "b", "a", "a", "a"],
                                    "score": [3.0, 2.0, 1.0, 1.0, 1.0]}))
    plain = join(qrels, run)
    assert plain.prels is None and plain.prels_row is None
    joined = join(qrels, run, prels=bind_prels(PRELS, qrels))
    assert joined.prels_row.tolist() == [-1, 1, 0, 3]  # x outside the pool; topic 4 dropped
    assert joined.labels.tolist() == plain.labels.tolist()


def test_prels_rows_survive_judged_only_and_block_merges():
    from pooljudge.metrics.join import label, merge, rank

    qrels = _qrels()
    prels = bind_prels(PRELS, qrels)
    run = run_columns(pd.DataFrame({"topic": ["1", "1", "2"], "doc": ["c", "b", "a"],
                                    "score": [2.0, 1.0, 1.0]}))
    condensed = join(qrels, run, judged_only=True, prels=prels)
    assert condensed.prels_row.tolist() == [2, 3]  # b has no qrels line: dropped by -J
    whole = join(qrels, run, prels=prels)
    labelled = label(qrels, run, prels=prels)
    parts = [rank(qrels, labelled._replace(
        topic=labelled.topic[keep], labels=labelled.labels[keep], scores=labelled.scores[keep],
        docs=labelled.docs.filter(keep), prels_row=labelled.prels_row[keep]), prels=prels)
        for keep in (labelled.topic == 0, labelled.topic == 1)]
    assert np.array_equal(merge(parts).prels_row, whole.prels_row)


def test_a_pair_twice_in_a_frame_is_an_input_error():
    with pytest.raises(InputError, match="twice"):
        bind_prels(pd.concat([PRELS, PRELS.iloc[:1]]), _qrels())
