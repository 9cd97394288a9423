"""Cutting runs early: top_candidates keeps every row of the true top k (single-precision ties
included), and the command line still checks the whole file before cutting."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from pooling import build_pool
from pooling.pool import top_candidates
from pooljudge.cli import main
from pooljudge.ranking import byte_order_codes, rank_positions
from pooljudge.trec import RunColumns

ids = st.text(alphabet="abZ09é", min_size=1, max_size=3)
scores = st.sampled_from([0.0, -0.0, 2.5, 40.922120174018, 40.922120174019, 7.0, -1.0])


def _columns(rows: list[tuple[str, str, float]]) -> RunColumns:
    return RunColumns(pc.dictionary_encode(pa.array([t for t, _, _ in rows], pa.string())),
                      pc.dictionary_encode(pa.array([d for _, d, _ in rows], pa.string())),
                      np.array([s for _, _, s in rows], dtype=np.float64))


def _top(run: RunColumns, depth: int) -> set[tuple[str, str]]:
    """The (topic, doc) pairs of each topic's top ``depth`` in trec_eval order."""
    topic = byte_order_codes(run.topic)
    order = rank_positions(topic, byte_order_codes(run.doc), run.score)
    ranked = topic[order]
    first = np.searchsorted(ranked, ranked)  # index of each topic's first ranked row
    keep = order[np.arange(len(order)) - first < depth]
    topics, docs = run.topic.dictionary_decode(), run.doc.dictionary_decode()
    return {(topics[i].as_py(), docs[i].as_py()) for i in keep}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "01", "b"]), ids, scores), min_size=1,
                max_size=60, unique_by=lambda row: (row[0], row[1])),
       st.integers(1, 6))
def test_candidates_contain_the_top_k_and_rank_the_same(rows, depth):
    run = _columns(rows)
    cut = top_candidates(run, depth)
    assert _top(cut, depth) == _top(run, depth)
    again = top_candidates(cut, depth)
    assert len(again.score) == len(cut.score)
    full = build_pool({"r": run}, depth).pairs
    early = build_pool({"r": cut}, depth).pairs
    assert full.equals(early)


def test_a_single_precision_tie_at_the_cut_is_kept():
    # 40.922120174018 and ...019 are one float32: doc "z" ranks first (doc ids descending).
    run = _columns([("1", "a", 40.922120174019), ("1", "z", 40.922120174018), ("1", "m", 1.0)])
    cut = top_candidates(run, 1)
    assert sorted(cut.doc.dictionary_decode().to_pylist()) == ["a", "z"]
    assert _top(cut, 1) == {("1", "z")}


def test_a_duplicate_below_the_depth_is_still_an_error(tmp_path, capsys):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n1 Q0 b 4 0.5 t\n")
    out = tmp_path / "pool.tsv"
    assert main(["pool", str(run), "--depth", "1", "-o", str(out)]) == 2
    assert "run.txt:4: document listed twice" in capsys.readouterr().err
    assert not out.exists()
