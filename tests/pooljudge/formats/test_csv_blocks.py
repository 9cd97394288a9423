"""Parsing in blocks: same table as one read, nothing left running after a failure, and the
first line pyarrow refuses found by bisection."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

from pooljudge.errors import InputError
from pooljudge.formats import _csv_blocks as csv_blocks
from pooljudge.formats._columns import read_run_columns
from pooljudge.formats._csv_blocks import first_failing_line, read_csv_blocks

OPTIONS = {
    "column_names": ["topic", "q0", "doc", "rank", "score", "tag"],
    "parse_options": pacsv.ParseOptions(delimiter=" ", quote_char=False, ignore_empty_lines=True),
    "convert_options": pacsv.ConvertOptions(
        column_types={"topic": pa.string(), "doc": pa.string(), "score": pa.float64()},
        include_columns=["topic", "doc", "score"]),
}


def _run_lines(n: int, start: int = 0) -> bytes:
    return b"".join(b"%d Q0 d%d %d %d.25 tag\n" % (i // 1000, i, i % 1000, i)
                    for i in range(start, start + n))


@pytest.mark.parametrize("block", [64, 1000, 1 << 20], ids=["tiny", "small", "one"])
def test_blocks_give_the_table_of_one_read(monkeypatch, block: int) -> None:
    data = _run_lines(3000) + b"\n\n" + _run_lines(10, 5000)
    monkeypatch.setattr(csv_blocks, "BLOCK_BYTES", block)
    whole = pacsv.read_csv(pa.BufferReader(data),
                           read_options=pacsv.ReadOptions(column_names=OPTIONS["column_names"]),
                           parse_options=OPTIONS["parse_options"],
                           convert_options=OPTIONS["convert_options"])
    assert read_csv_blocks(data, **OPTIONS).equals(whole)


def test_a_line_longer_than_a_block_is_never_split(monkeypatch) -> None:
    monkeypatch.setattr(csv_blocks, "BLOCK_BYTES", 16)
    long_id = b"x" * 5000
    data = b"1 Q0 " + long_id + b" 1 2.0 t\n" + _run_lines(50)
    table = read_csv_blocks(data, **OPTIONS)
    assert table.num_rows == 51 and table["doc"][0].as_py() == long_id.decode()


def test_pyarrow_never_parses_on_its_own_threads(monkeypatch, tmp_path: Path) -> None:
    """pyarrow's threaded reader returns a failure while its pool still parses other blocks; a
    process exiting then aborts (SIGABRT, "terminate called without an active exception"). So
    every parse is serial, on threads that are joined before an error propagates."""
    calls = []
    real = pacsv.read_csv

    def spy(source, *, read_options, **kwargs):
        calls.append(read_options.use_threads)
        return real(source, read_options=read_options, **kwargs)

    monkeypatch.setattr(pacsv, "read_csv", spy)
    monkeypatch.setattr(csv_blocks, "BLOCK_BYTES", 1000)
    bad = tmp_path / "bad.run"
    bad.write_bytes(_run_lines(500) + b"1 Q0 d 1 2.0\n" + _run_lines(500, 600))
    with pytest.raises(InputError, match=r"bad.run:501: expected 6"):
        read_run_columns(bad)
    assert len(calls) > 1 and not any(calls)


def test_the_first_failing_line_is_found() -> None:
    lines = [b"1 Q0 d%d 1 2.0 t\n" % i for i in range(40)]

    def parses(data: bytes) -> bool:
        try:
            read_csv_blocks(data, **OPTIONS)
        except csv_blocks.PARSE_ERRORS:
            return False
        return True

    assert first_failing_line(b"".join(lines), parses) is None
    for bad in (0, 1, 17, 39):
        broken = list(lines)
        broken[bad] = b"1 Q0 d 1 1e99999x t\n"
        assert first_failing_line(b"".join(broken), parses) == bad + 1
    assert first_failing_line(b"".join(lines) + b"1 Q0 d 1 zz t", parses) == 41


def test_workers_are_bounded_by_the_cores(monkeypatch) -> None:
    monkeypatch.setattr(csv_blocks, "BLOCK_BYTES", 100)
    seen: set[int] = set()
    real = csv_blocks._read_block

    def spy(*args):
        seen.add(threading.get_ident())
        return real(*args)

    monkeypatch.setattr(csv_blocks, "_read_block", spy)
    assert read_csv_blocks(_run_lines(2000), **OPTIONS).num_rows == 2000
    assert 1 <= len(seen) <= (os.cpu_count() or 1)
