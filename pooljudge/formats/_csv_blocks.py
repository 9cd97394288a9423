"""pyarrow's CSV reader on threads this module owns, and the first line it cannot parse.

``pyarrow.csv.read_csv`` with ``use_threads=True`` parses on pyarrow's own thread pool and, when
one block fails, returns the error while other blocks are still being parsed; a process that
then exits tears the pool down under running threads and aborts ("terminate called without an
active exception", exit status 134). Here the bytes are cut at line ends into blocks, each
parsed serially (``use_threads=False``, from an in-memory buffer) by a Python thread pool that
is shut down before any error propagates: when :func:`read_csv_blocks` returns or raises, no
parsing is left running.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

__all__ = ["BLOCK_BYTES", "first_failing_line", "read_csv_blocks"]

BLOCK_BYTES = 8 << 20
PIECE_BYTES = 1 << 20
PARSE_ERRORS = (pa.ArrowInvalid, pa.ArrowTypeError)


def read_csv_blocks(data: bytes | bytearray, *, column_names: list[str],
                    parse_options: pacsv.ParseOptions, convert_options: pacsv.ConvertOptions
                    ) -> pa.Table:
    """``data`` as one table (a chunk per block); raises what ``read_csv`` raises.

    Blocks of about :data:`BLOCK_BYTES` end at a newline, so a line is never split (a line longer
    than a block makes its block longer). The blocks are views of ``data``, not copies.
    """
    def one(block: memoryview) -> pa.Table:
        return _read_block(block, column_names, parse_options, convert_options)

    blocks = _blocks(data)
    if len(blocks) == 1:
        return one(blocks[0])
    workers = min(len(blocks), os.cpu_count() or 1)
    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="csv-block")
    futures: list[Future] = []
    try:
        futures = [executor.submit(one, block) for block in blocks]
        return pa.concat_tables([future.result() for future in futures])
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def first_failing_line(data: bytes | bytearray, parses: Callable[[bytes | bytearray], bool]
                       ) -> int | None:
    """The 1-based number of the first line of ``data`` that ``parses`` refuses, or None.

    Bisects on line prefixes: ``parses`` must accept every prefix that ends before the bad line
    and refuse every prefix that contains it (true of per-line errors: field counts, values that
    do not convert, undecodable text). Costs about log2(lines) parses; for error paths only.
    """
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n")) + 1
    ends = np.append(ends, len(data)) if not len(ends) or ends[-1] != len(data) else ends
    if parses(data):
        return None
    low, high = 0, len(ends) - 1  # the answer is the smallest k whose prefix ends[k] fails
    while low < high:
        middle = (low + high) // 2
        if parses(data[: ends[middle]]):
            low = middle + 1
        else:
            high = middle
    return low + 1


def _read_block(block: memoryview, column_names: list[str], parse_options: pacsv.ParseOptions,
                convert_options: pacsv.ConvertOptions) -> pa.Table:
    """One block, parsed serially in pieces of :data:`PIECE_BYTES` (pieces that stay in the CPU
    cache parse about a quarter faster than one piece); a line longer than a piece makes
    pyarrow refuse them, and then the block is parsed as one piece."""
    def read(piece: int) -> pa.Table:
        read_options = pacsv.ReadOptions(column_names=column_names, use_threads=False,
                                         block_size=piece)
        return pacsv.read_csv(pa.BufferReader(pa.py_buffer(block)), read_options=read_options,
                              parse_options=parse_options, convert_options=convert_options)

    whole = max(len(block) + 1, 1 << 16)
    if whole <= PIECE_BYTES:
        return read(whole)
    try:
        return read(PIECE_BYTES)
    except PARSE_ERRORS:
        return read(whole)


def _blocks(data: bytes | bytearray) -> list[memoryview]:
    """``data`` cut into pieces of about BLOCK_BYTES, each ending at a newline (but the last)."""
    view = memoryview(data)
    blocks, start = [], 0
    while start < len(data):
        cut = data.find(b"\n", start + BLOCK_BYTES)
        end = len(data) if cut < 0 else cut + 1
        blocks.append(view[start:end])
        start = end
    return blocks
