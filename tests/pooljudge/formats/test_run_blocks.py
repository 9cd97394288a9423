"""Reading a run block by block: the blocks hold whole topics and together are the file, whatever
its layout and the block size; anything else stops the stream; no thread outlives the reader;
and ``pooljudge eval`` stays in flat memory on a large run, where the whole-file path does not.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pytest

from pooljudge.errors import InputError
from pooljudge.formats import _csv_blocks as csv_blocks
from pooljudge.formats._columns import read_run_columns
from pooljudge.formats._run_blocks import NotStreamable, RunBlocks
from tests.support.fresh import python_output

LINES = [f"{t} Q0 d{t}x{i} {i} {(i * 7) % 5}.5 run" for t in (3, 1, 22, 2, 10) for i in range(9)]
LAYOUTS = {
    "blanks": "\n".join(LINES) + "\n",
    "tabs": "\n".join(line.replace(" ", "\t") for line in LINES) + "\n",
    "mixed": "# a comment\r\n" + "\n".join(
        (f"  {line.replace(' ', chr(9), 2)}  extra field\r" if i % 4 == 0 else line)
        for i, line in enumerate(LINES)) + "\n\n",
    "no final newline": "\n".join(LINES),
    "byte-order mark": "\ufeff" + "\n".join(LINES) + "\n",
}


def _blocks(path: Path, block_bytes: int) -> list:
    with RunBlocks(path, block_bytes=block_bytes) as blocks:
        return list(blocks)


def _rows(columns) -> list[tuple[str, str, float]]:
    return list(zip(columns.topic.dictionary_decode().to_pylist(), columns.doc.to_pylist(),
                    columns.score.tolist(), strict=True))


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUTS)
@pytest.mark.parametrize("block_bytes", [1, 50, 333, 1 << 20])
@pytest.mark.parametrize("zipped", [False, True], ids=["plain", "gzip"])
def test_blocks_are_whole_topics_that_make_up_the_file(tmp_path, layout, block_bytes, zipped):
    path = tmp_path / "run"
    data = LAYOUTS[layout].encode()
    path.write_bytes(gzip.compress(data) if zipped else data)
    blocks = _blocks(path, block_bytes)
    assert [row for block in blocks for row in _rows(block)] == _rows(read_run_columns(path))
    topics = [block.topic.dictionary.to_pylist() for block in blocks]
    assert sorted(t for block in topics for t in block) == ["1", "10", "2", "22", "3"]
    if block_bytes == 1:
        assert len(blocks) == 5  # one topic each


def test_a_topic_longer_than_a_block_stays_whole(tmp_path):
    path = tmp_path / "run"
    path.write_text("".join(f"1 Q0 d{i} {i} 1.0 t\n" for i in range(500)) + "2 Q0 a 1 1 t\n")
    blocks = _blocks(path, 64)
    assert [len(block.score) for block in blocks] == [500, 1]


def test_a_line_longer_than_a_parse_piece_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(csv_blocks, "PIECE_BYTES", 1 << 16)
    path = tmp_path / "run"
    long_id = "x" * 100_000  # longer than a piece: pyarrow refuses the pieces, not the block
    lines = [f"1 Q0 d{i} {i} 1.0 t\n" for i in range(5000)]
    path.write_text("".join([*lines, f"1 Q0 {long_id} 1 2 t\n"]))
    (block,) = _blocks(path, 1 << 20)
    assert block.doc.to_pylist()[-1] == long_id and len(block.score) == 5001


STOPS = {  # file text -> why the stream stops; the whole-file reader then decides
    "ungrouped": ("1 Q0 a 1 1 t\n2 Q0 a 1 1 t\n1 Q0 b 2 0 t\n", "topic 1 comes back"),
    "twice": ("1 Q0 a 1 1 t\n1 Q0 a 2 0 t\n", "listed twice"),
    "fields": ("1 Q0 a 1 1 t\n1 Q0 b 2\n", "does not parse"),
    "empty field": ("1 Q0 a 1 1 t\n1 Q0  2 1 t\n", "does not parse"),
    "score": ("1 Q0 a 1 1 t\n1 Q0 b 2 inf t\n", "does not parse"),
    "comments only": ("# nothing\n\n", "no data lines"),
}


@pytest.mark.parametrize("case", STOPS, ids=STOPS)
def test_anything_but_a_clean_grouped_file_stops_the_stream(tmp_path, case):
    text, reason = STOPS[case]
    path = tmp_path / "run"
    path.write_text(text)
    with pytest.raises(NotStreamable, match=reason) as raised:
        _blocks(path, 1)
    assert (raised.value.ungrouped == "1") == (case == "ungrouped")


def test_an_empty_field_is_an_error_in_every_layout(tmp_path):
    """Splitting on whitespace sees five fields where one blank between fields would see six,
    one of them empty: the reader agrees with trec_eval, also on the fast path."""
    for text in ("1 Q0  1 2.0 t\n", "1\tQ0\t\t1\t2.0\tt\n"):
        path = tmp_path / "run"
        path.write_text(text)
        with pytest.raises(InputError, match="run:1: expected 6 whitespace-separated fields"):
            read_run_columns(path)


@pytest.mark.parametrize("content", [None, b"\x1f\x8b not gzip", b""],
                         ids=["missing", "corrupt gzip", "empty"])
def test_an_unreadable_file_stops_the_stream(tmp_path, content):
    path = tmp_path / "run"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(NotStreamable):
        _blocks(path, 1)


def _reader_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith(("run-blocks",
                                                                        "run-chunks"))]


def test_no_thread_outlives_the_reader(tmp_path):
    path = tmp_path / "run"
    path.write_text(LAYOUTS["blanks"])
    with RunBlocks(path, block_bytes=1) as blocks:
        next(iter(blocks))
        assert _reader_threads()
    assert _reader_threads() == []
    with pytest.raises(ZeroDivisionError), RunBlocks(path, block_bytes=1) as blocks:
        for _ in blocks:
            raise ZeroDivisionError  # the caller fails while the next block is being read
    assert _reader_threads() == []
    path.write_text("1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n3 Q0 c 1 x t\n")
    with pytest.raises(NotStreamable), RunBlocks(path, block_bytes=1) as blocks:
        list(blocks)
    assert _reader_threads() == []


def test_eval_to_tsv_does_not_build_pyarrow_compute(tmp_path):
    """``import pyarrow.compute`` costs 70 ms (a wrapper per kernel); eval calls the kernels
    without it (:mod:`pooljudge.kernels._arrow`)."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 2 t\n3 Q0 z 1 1 t\n2 Q0 c 1 1 t\n")
    code = ("import sys; from pooljudge.cli import main; "
            f"main(['eval', {str(tmp_path / 'q')!r}, {str(tmp_path / 'r')!r}, "
            "'--format', 'tsv', '-o', '/dev/null']); print('pyarrow.compute' in sys.modules)")
    done = python_output(code)
    assert done.split() == ["False"]


# --- memory -------------------------------------------------------------------------------------

PEAK = textwrap.dedent("""
    import sys
    from pooljudge.cli import main
    status = main(sys.argv[1:])
    peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
    print(int(peak.split()[1]) // 1024, status, file=sys.stderr)
""")


def _peak_mib(*args: Path) -> int:
    """The peak resident memory (MiB) of ``pooljudge eval`` in a child process.

    Read from the child's own VmHWM, which starts at exec: a child's ``ru_maxrss`` (os.wait4)
    also counts the memory of the parent it was forked from, here the whole test session.
    """
    command = [sys.executable, "-c", PEAK, "eval", *map(str, args), "-m", "P@10 nDCG@10 AP",
               "--format", "tsv", "-o", "/dev/null"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    peak, status = done.stderr.split()[-2:]
    assert status == "0", done.stderr
    return int(peak)


def _write_lines(path: Path, topic: np.ndarray, doc: pa.Array, score: np.ndarray) -> None:
    table = pa.table({"topic": topic, "q0": pa.repeat(pa.scalar("Q0"), len(topic)), "doc": doc,
                      "rank": np.ones(len(topic), dtype=np.int64), "score": score,
                      "tag": pa.repeat(pa.scalar("t"), len(topic))})
    pacsv.write_csv(table, path, write_options=pacsv.WriteOptions(
        include_header=False, delimiter=" ", quoting_style="none"))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_eval_memory_does_not_grow_with_the_run(tmp_path):
    """1.2M run lines: the block path stays within 180 MiB of a 1,000-line run's peak, where
    the whole-file path (the same lines with one topic out of place) needs more."""
    rng = np.random.default_rng(0)
    topics, per_topic = 60, 20_000
    topic = np.repeat(np.arange(topics), per_topic)
    ids = pc.cast(pa.array(rng.integers(0, 10**9, size=len(topic))), pa.string())
    doc = pc.binary_join_element_wise(pa.scalar("D"), ids, pa.scalar("-"),
                                      pc.cast(pa.array(np.arange(len(topic))), pa.string()), "")
    score = np.round(rng.random(len(topic)) * 10, 3)
    qrels = tmp_path / "qrels"
    judged = rng.choice(len(topic), size=3000, replace=False)
    qrels.write_text("".join(f"{topic[i]} 0 {doc[i]} {i % 3}\n" for i in judged))
    big, small, ungrouped = tmp_path / "big", tmp_path / "small", tmp_path / "ungrouped"
    _write_lines(big, topic, doc, score)
    _write_lines(small, topic[:1000], doc.slice(0, 1000), score[:1000])
    order = np.r_[1:len(topic), 0]  # the first line last: topic 0 comes back
    _write_lines(ungrouped, topic[order], doc.take(pa.array(order)), score[order])
    base = _peak_mib(qrels, small)
    streamed, whole = _peak_mib(qrels, big) - base, _peak_mib(qrels, ungrouped) - base
    assert streamed < 180 < whole, (base, streamed, whole)  # measured: about 110 and 250
