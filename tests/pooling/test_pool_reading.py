"""Cutting runs early: top_candidates keeps every row of the true top k (single-precision ties
included), and the command line still checks the whole file before cutting."""

from __future__ import annotations

import random
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pooljudge.pooling import build_pool
from pooljudge.pooling.pool import top_candidates

from pooljudge.cli import main
from pooljudge.formats.trec import RunColumns
from pooljudge.kernels.ranking import byte_order_codes, rank_positions

ids = st.text(alphabet="abZ09é", min_size=1, max_size=3)
scores = st.sampled_from([0.0, -0.0, 2.5, 40.922120174018, 40.922120174019, 7.0, -1.0])


def _columns(rows: list[tuple[str, str, float]]) -> RunColumns:
    return RunColumns(pc.dictionary_encode(pa.array([t for t, _, _ in rows], pa.string())),
                      pc.dictionary_encode(pa.array([d for _, d, _ in rows], pa.string())),
                      np.array([s for _, _, s in rows], dtype=np.float64))


def _top(run: RunColumns, depth: int, precision: str = "double") -> set[tuple[str, str]]:
    """The (topic, doc) pairs of each topic's top ``depth`` in trec_eval order."""
    topic = byte_order_codes(run.topic)
    order = rank_positions(topic, byte_order_codes(run.doc), run.score, precision=precision)
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
    # 40.922120174018 and ...019 are one float32: under trec_eval 9 doc "z" ranks first (doc
    # ids descending), under trec_eval 10 (double) "a" does; the candidates serve both.
    run = _columns([("1", "a", 40.922120174019), ("1", "z", 40.922120174018), ("1", "m", 1.0)])
    cut = top_candidates(run, 1)
    assert sorted(cut.doc.dictionary_decode().to_pylist()) == ["a", "z"]
    assert _top(cut, 1, "single") == {("1", "z")}
    assert _top(cut, 1) == {("1", "a")}
    assert build_pool({"r": run}, 1).pairs["doc"].tolist() == ["a"]  # pools rank as eval does


def test_a_duplicate_below_the_depth_is_still_an_error(tmp_path, capsys):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n1 Q0 b 4 0.5 t\n")
    out = tmp_path / "pool.tsv"
    assert main(["pool", str(run), "--depth", "1", "-o", str(out)]) == 2
    assert "run.txt:4: document listed twice" in capsys.readouterr().err
    assert not out.exists()


def test_a_bad_run_cancels_reads_not_started_and_awaits_running_ones(tmp_path, monkeypatch):
    from pooljudge.cli import inputs
    from pooljudge.errors import InputError

    started, ended = [], []

    def read_one(path, depth):
        if path == "bad":
            raise InputError("broken", path=path, line=1)
        started.append(path)
        time.sleep(0.3)
        ended.append(path)
        return None

    monkeypatch.setattr(inputs, "_read_one", read_one)
    with pytest.raises(InputError, match="bad:1: broken"):
        list(inputs.read_runs(["bad", "g1", "g2", "g3", "g4", "g5"], workers=2))
    assert sorted(ended) == sorted(started) and len(started) <= 2


def _run_file(path, tag: str, topics: int = 50, depth: int = 200) -> None:
    rng = random.Random(tag)
    path.write_text("".join(f"{t} Q0 d{rng.randrange(10**6)}-{r} {r} {depth - r}.25 {tag}\n"
                            for t in range(1, topics + 1) for r in range(1, depth + 1)))


@pytest.mark.parametrize(("command", "times"), [("pool", 24), ("eval", 12)])
def test_a_bad_run_among_good_ones_always_exits_2_with_one_line(tmp_path, command, times):
    """Many processes (two at a time), each failing on a 5-column line while other reads are in
    flight: every one exits 2 with the one error line, none aborts (SIGABRT, status 134)."""
    bad = tmp_path / "bad"
    bad.write_text("1 Q0 a 1 2.5 t\n1 Q0 b 2 1.5\n")
    goods = [tmp_path / f"good{i}" for i in range(4)]
    for good in goods:
        _run_file(good, good.name)
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{t} 0 d{t} 1\n" for t in range(1, 51)))
    out = tmp_path / "out.tsv"
    files = [str(bad), *map(str, goods)]
    args = (["pool", *files, "--depth", "10"] if command == "pool"
            else ["eval", str(qrels), *files])
    argv = [sys.executable, "-m", "pooljudge", *args, "-o", str(out)]
    outcomes = []
    for _ in range(times // 2):
        pair = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for _ in range(2)]
        outcomes += [(p.wait(timeout=120), p.stderr.read()) for p in pair]
        for p in pair:
            p.stdout.close()
            p.stderr.close()
    expected = f"pooljudge: error: {bad}:2: expected 6 whitespace-separated fields, found 5"
    for status, err in outcomes:
        assert status == 2 and err.startswith(expected) and err.count("\n") == 1, (status, err)
    assert not out.exists()
