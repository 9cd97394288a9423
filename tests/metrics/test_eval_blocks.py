"""A run file scored block by block gives exactly the numbers of the whole-file path.

Generated data has score ties, graded and negative labels, qrels topics missing from the run,
run-only topics and topics whose documents are all unjudged (empty under ``judged_only``). Tiny
blocks and measure batches make every run span many blocks and several batches. An ungrouped run
falls back to the whole file with a note; bad input in a later block is reported at its
``path:line`` with nothing written.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.estimators import NEEDS_PRELS
from pooljudge.metrics.evaluate import score_all, tidy
from pooljudge.metrics.registry import make, names

from pooljudge.cli import main
from pooljudge.errors import InputError
from pooljudge.formats._run_blocks import RunBlocks
from pooljudge.formats.trec import write_qrels

evaluate_module = importlib.import_module("pooljudge.metrics.evaluate")  # the package re-exports
BLOCK_BYTES = 3000  # a few topics per block


def _every_measure() -> list:
    """Every registered measure, without a cut-off and with one where it takes one (but the
    estimators, which need prels and read runs whole: tests/metrics/test_estimators.py)."""
    measures = []
    for name in sorted(set(names()) - NEEDS_PRELS):
        for cutoff in (None, 5, 0.3):
            try:
                measures.append(make(name, cutoff))
            except InputError:  # a cut-off it needs, refuses, or of the other kind
                continue
    return list(dict.fromkeys(measures))


MEASURES = _every_measure()


def _collection(tmp_path: Path, seed: int) -> tuple[Path, list[tuple[str, str, float]]]:
    """Qrels on disk and run rows, grouped by topic in a shuffled topic order."""
    rng = np.random.default_rng(seed)
    topics = [f"{t:03d}" for t in range(36)]
    pool = [f"D{i}" + "x" * int(rng.integers(0, 12)) for i in range(4000)]
    qrels = []
    for topic in topics[:30]:  # 030-035 are only in the run
        for doc in rng.choice(pool, size=int(rng.integers(3, 60)), replace=False):
            qrels.append((topic, str(doc), int(rng.choice([-2, -1, 0, 0, 1, 1, 2, 3]))))
    path = tmp_path / "qrels.txt"
    write_qrels(pd.DataFrame(qrels, columns=["topic", "doc", "label"]), path)
    run = []
    order = rng.permutation(topics[4:])  # 000-003 are missing from the run
    for topic in order:
        unjudged = topic == order[1]  # nothing judged: an empty ranking under judged_only
        docs = [f"U{i}" for i in range(50)] if unjudged else rng.choice(pool, size=int(
            rng.integers(1, 250)), replace=False)
        run += [(str(topic), str(doc), float(rng.integers(0, 12)) / 4) for doc in docs]  # ties
    return path, run


def _write_run(path: Path, rows: list[tuple[str, str, float]]) -> Path:
    path.write_text("".join(f"{t} Q0 {d} {i} {s!r} tag\n" for i, (t, d, s) in enumerate(rows)))
    return path


def _frames(qrels: Path, runs: list[Path], **options) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The tidy results of the whole-file path and of the block path."""
    whole = score_all(qrels, runs, MEASURES, block_bytes=None, **options)[1]
    blocks = score_all(qrels, runs, MEASURES, **options)[1]
    return tidy(whole, per_topic=True), tidy(blocks, per_topic=True)


@pytest.fixture
def small_batches(monkeypatch):
    """Tiny blocks and batches, also for the command line (which passes no block size)."""
    monkeypatch.setattr(evaluate_module, "BATCH_ROWS", 1)  # a batch per qrels' size of rows
    monkeypatch.setitem(score_all.__kwdefaults__, "block_bytes", BLOCK_BYTES)


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("compat", ["10", "9"])
def test_blocks_score_exactly_like_the_whole_file(tmp_path, small_batches, seed, judged_only,
                                                  compat):
    qrels, rows = _collection(tmp_path, seed)
    run = _write_run(tmp_path / "run.txt", rows)
    with RunBlocks(run, block_bytes=BLOCK_BYTES) as blocks:
        assert len(list(blocks)) > 10
    whole, blocks = _frames(qrels, [run], judged_only=judged_only, compat=compat)
    assert len(set(whole["measure"])) == len(MEASURES) > 40
    pd.testing.assert_frame_equal(blocks, whole)  # exact: same floats, same NaNs


def test_results_have_the_whole_file_fields(tmp_path, small_batches):
    qrels, rows = _collection(tmp_path, 3)
    run = _write_run(tmp_path / "run.txt", rows)
    options = {"judged_only": True}
    (whole,) = score_all(qrels, [run], MEASURES[:5], block_bytes=None, **options)[1]
    (blocks,) = score_all(qrels, [run], MEASURES[:5], **options)[1]
    assert blocks.topics == whole.topics and blocks.run_only_topics == whole.run_only_topics == 6
    np.testing.assert_array_equal(blocks.returned, whole.returned)
    assert blocks.returned.dtype == whole.returned.dtype
    assert blocks.summary == whole.summary
    assert {m: v.dtype for m, v in blocks.values.items()} == {
        m: v.dtype for m, v in whole.values.items()}


def test_an_ungrouped_run_is_read_whole_with_a_note(tmp_path, small_batches, capsys):
    qrels, rows = _collection(tmp_path, 4)
    topic = rows[-1][0]
    # The last topic's first line moves to the front: it comes back after all other topics.
    first = next(i for i, row in enumerate(rows) if row[0] == topic)
    moved = [rows[first], *rows[:first], *rows[first + 1:]]
    ungrouped = _write_run(tmp_path / "ungrouped.txt", moved)
    grouped = _write_run(tmp_path / "grouped.txt", rows)
    notes: list[str] = []
    whole = score_all(qrels, [grouped], MEASURES, block_bytes=None)[1]
    fallen = score_all(qrels, [ungrouped], MEASURES, note=notes.append)[1]
    expected = tidy(whole, per_topic=True).assign(run="ungrouped.txt")
    pd.testing.assert_frame_equal(tidy(fallen, per_topic=True), expected)
    assert notes == [f"{ungrouped}: the run's topics are not grouped (topic {topic} comes back "
                     "after other topics): read whole, in memory that grows with the file"]
    assert main(["eval", str(qrels), str(ungrouped), "-m", "P@5", "--format", "tsv"]) == 0
    assert f"pooljudge: note: {ungrouped}: the run's topics are not grouped" in (
        capsys.readouterr().err)


def test_a_document_twice_across_blocks_of_an_ungrouped_run_is_an_error(tmp_path, small_batches):
    qrels, rows = _collection(tmp_path, 5)
    topic, doc, _ = rows[0]
    run = _write_run(tmp_path / "run.txt", [*rows, (topic, doc, 9.0)])  # topic comes back
    notes: list[str] = []
    with pytest.raises(InputError) as raised:
        score_all(qrels, [run], MEASURES[:3], note=notes.append)
    assert str(raised.value) == (f"{run}:{len(rows) + 1}: document listed twice for topic "
                                 f"{topic}: {doc}")
    assert notes == []  # no note about grouping when the whole file is bad


BAD_LATER = {  # (line text, message), the line put near the end of the run
    "fields": ("{t} Q0 {d} 1 2.5", "expected 6 whitespace-separated fields, found 5"),
    "score": ("{t} Q0 {d} 1 high tag", "score is not a number: 'high'"),
    "nan": ("{t} Q0 {d} 1 nan tag", "score is not a finite number"),
    "twice": ("{t} Q0 {d} 1 2.5 tag", "document listed twice for topic {t}: {d}"),
}


@pytest.mark.parametrize("case", BAD_LATER, ids=BAD_LATER)
def test_bad_input_in_a_later_block_names_its_line(tmp_path, small_batches, case, capsys):
    qrels, rows = _collection(tmp_path, 6)
    good = _write_run(tmp_path / "good.txt", rows)
    line = len(rows) - 2  # near the end, many blocks after the first
    topic, doc, _ = rows[line - 2]  # the line before, of the same topic
    text, message = (part.format(t=topic, d=doc) for part in BAD_LATER[case])
    lines = good.read_text().splitlines(keepends=True)
    bad = tmp_path / "bad.txt"
    bad.write_text("".join([*lines[:line - 1], text + "\n", *lines[line - 1:]]))
    with RunBlocks(good, block_bytes=BLOCK_BYTES) as blocks:
        assert len(list(blocks)) > 10
    with pytest.raises(InputError) as raised:
        score_all(qrels, [good, bad], MEASURES[:3])
    assert str(raised.value).startswith(f"{bad}:{line}: {message}")
    out = tmp_path / "out.tsv"
    assert main(["eval", str(qrels), str(good), str(bad), "--format", "tsv", "-o", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    *warnings, error = captured.err.splitlines()  # warnings about the good run come first
    assert error.startswith(f"pooljudge: error: {bad}:{line}: {message}")
    assert all(w.startswith("pooljudge eval: warning: good.txt") for w in warnings)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt", "good.txt", "qrels.txt"]


@pytest.mark.parametrize("one_judgment", [False, True])
def test_key_collisions_in_blocks_take_the_exact_path(tmp_path, small_batches, monkeypatch,
                                                      one_judgment):
    """Every pair of a topic gets one key: the qrels' keys repeat (several judgments a topic),
    or stay unique while each run document matches its topic's key (one judgment a topic)."""
    import pooljudge.metrics.qrels_lookup as lookup

    qrels, rows = _collection(tmp_path, 7)
    if one_judgment:
        lines = qrels.read_text().splitlines(keepends=True)
        qrels.write_text("".join({line.split()[0]: line for line in lines}.values()))
    run = _write_run(tmp_path / "run.txt", rows)
    expected = tidy(score_all(qrels, [run], MEASURES, block_bytes=None)[1], per_topic=True)
    monkeypatch.setattr(lookup, "pair_keys", lambda topic, hashes: np.asarray(topic).astype(
        np.uint64) << np.uint64(40))
    got = tidy(score_all(qrels, [run], MEASURES)[1], per_topic=True)
    pd.testing.assert_frame_equal(got, expected)
