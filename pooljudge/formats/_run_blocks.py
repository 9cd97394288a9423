"""A run file read topic block by topic block, in memory that does not grow with the file.

The file (plain or gzip, decompressed as it is read) is cut at line ends into chunks of about
``block_bytes``, and each chunk is parsed as :func:`~pooljudge.formats._columns.read_run_columns`
parses a whole file. The rows of a chunk's last topic wait for the next chunk, so every block
holds whole topics: the run's lines must come grouped by topic, as trec_eval writes them. Two
threads this module owns work ahead of the caller: one reads and parses the next
:data:`PARSED_AHEAD` chunks, one makes the next block (and prepares it); both are shut down
before :class:`RunBlocks` returns or raises, and pyarrow parses only serially on them.

Anything but a clean, grouped file stops the stream with :class:`NotStreamable`: a line that does
not parse, a score that is not finite, a document twice in a topic, an unreadable or empty file,
or a topic that comes back after other topics. The caller then reads the whole file with
:func:`~pooljudge.formats._columns.read_run_columns`, which names the ``path:line`` of an error or
accepts a run whose topics are interleaved.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pyarrow as pa

from pooljudge.errors import InputError
from pooljudge.formats._columns import RunColumns, encode_run_table, parse_run_bytes
from pooljudge.formats.files import PathLike
from pooljudge.formats.limits import open_input
from pooljudge.kernels import all_true, equal, indices_nonzero, not_equal

__all__ = ["BLOCK_BYTES", "NotStreamable", "RunBlocks"]

BLOCK_BYTES = 4 << 20
PARSED_AHEAD = 6  # chunks parsed ahead of the block being made: the qrels may still load
_BOM = b"\xef\xbb\xbf"


class NotStreamable(Exception):
    """The run cannot be read block by block; ``ungrouped`` names a topic that came back after
    other topics (None when the reason is anything else, e.g. bad input)."""

    def __init__(self, reason: str, *, ungrouped: str | None = None) -> None:
        super().__init__(reason)
        self.ungrouped = ungrouped


class RunBlocks:
    """Iterate a run file's blocks of whole topics as checked :class:`RunColumns`, or as what
    ``prepare`` makes of each (called on the block thread, e.g. to join it with the qrels).

    Use as a context manager: reading starts on entering; leaving (normally or by an exception)
    stops the threads and closes the file. Iterating raises :class:`NotStreamable` (see the
    module docstring); a block is never empty, and every topic is in exactly one block.
    """

    def __init__(self, path: PathLike, *, block_bytes: int = BLOCK_BYTES,
                 prepare: Callable[[RunColumns], Any] | None = None) -> None:
        self._path = path
        self._prepare = prepare
        self._block_bytes = max(int(block_bytes), 1)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-blocks")
        self._parser = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-chunks")
        self._parsed: deque[Future] = deque()
        self._chunks = _chunks(path, self._block_bytes)
        self._carry: list[pa.Table] = []  # rows of one topic waiting for the next chunk
        self._carry_topic: str | None = None
        self._seen: set[str] = set()
        self._rows = 0
        self._pending: Future | None = None

    def __enter__(self) -> RunBlocks:
        self._pending = self._executor.submit(self._next_block)  # reading starts now
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._parser.shutdown(wait=True, cancel_futures=True)
        self._chunks.close()

    def __iter__(self) -> Iterator[Any]:
        """The blocks in file order; the next one is prepared while the caller uses one."""
        if self._pending is None:
            self._pending = self._executor.submit(self._next_block)
        while True:
            block = self._pending.result()
            if block is None:
                return
            self._pending = self._executor.submit(self._next_block)
            yield block

    def _next_block(self) -> Any:
        """The next block (after ``prepare``); None after the last."""
        block = self._next_columns()
        return block if block is None or self._prepare is None else self._prepare(block)

    def _next_columns(self) -> RunColumns | None:
        """The next block of whole topics, checked; None after the last."""
        while True:
            table = self._next_table()
            if table is None:
                if not self._carry:
                    if self._rows == 0:
                        raise NotStreamable("no data lines")
                    return None
                return self._encode(self._take_carry([]))
            if table.num_rows:
                tables = self._split(table)
                if tables:
                    return self._encode(tables)

    def _next_table(self) -> pa.Table | None:
        """The next chunk parsed, None after the last; the :data:`PARSED_AHEAD` chunks after it
        are read and parsed meanwhile, in order, on a thread of their own."""
        while len(self._parsed) <= PARSED_AHEAD:
            self._parsed.append(self._parser.submit(self._parse_next))
        return self._parsed.popleft().result()

    def _parse_next(self) -> pa.Table | None:
        chunk = next(self._chunks, None)
        if chunk is None:
            return None
        table = parse_run_bytes(chunk)
        if table is None:
            raise NotStreamable("a line does not parse")
        return table

    def _split(self, table: pa.Table) -> list[pa.Table]:
        """Tables of the rows now known to be complete topics (may be none); the rows of the
        chunk's last topic become the carry."""
        self._rows += table.num_rows
        topics = table["topic"].combine_chunks()
        last = topics[-1]  # pa.scalar(...) would import pandas
        cut = _last_run(topics, last)
        if cut == 0 and last.as_py() == self._carry_topic:
            self._carry.append(table)
            return []
        done = self._take_carry([table.slice(0, cut)] if cut else [])
        self._carry, self._carry_topic = [table.slice(cut)], last.as_py()
        return done

    def _take_carry(self, tables: list[pa.Table]) -> list[pa.Table]:
        carried, self._carry, self._carry_topic = self._carry, [], None
        return carried + tables

    def _encode(self, tables: list[pa.Table]) -> RunColumns:
        """The block's rows as checked columns; NotStreamable for a document listed twice or a
        topic seen in an earlier block."""
        columns, twice = encode_run_table(pa.concat_tables(tables))
        if twice is not None:
            raise NotStreamable("a document is listed twice")
        topics = columns.topic.dictionary.to_pylist()
        again = next((t for t in topics if t in self._seen), None)
        if again is not None:
            raise NotStreamable(f"topic {again} comes back after other topics", ungrouped=again)
        self._seen.update(topics)
        return columns


def _last_run(topics: pa.Array, last: pa.Scalar) -> int:
    """Where the run of rows equal to ``last`` (the final row's topic) starts.

    Bisects as if the topics were grouped, checks the run it finds, and compares every row only
    when that check fails (the lines are not grouped).
    """
    low, high = 0, len(topics) - 1
    while low < high:
        middle = (low + high) // 2
        if topics[middle] == last:
            high = middle
        else:
            low = middle + 1
    if (low == 0 or topics[low - 1] != last) and all_true(equal(topics.slice(low), last)):
        return low
    others = indices_nonzero(not_equal(topics, last))
    return others[-1].as_py() + 1


def _chunks(path: PathLike, size: int) -> Generator[bytearray, None, None]:
    """The file's bytes (gunzipped, without a byte-order mark) in pieces of about ``size`` that
    end at a line end (but the last); NotStreamable when it cannot be read.

    A piece is read into one buffer and completed up to the next line end in place, with no
    copy of the piece.
    """
    try:
        handle = open_input(path)
    except Exception as exc:  # the whole-file reader names the problem
        raise NotStreamable(f"cannot read: {exc}") from None
    with handle:
        first = True
        while True:
            chunk = bytearray(size)
            try:
                del chunk[handle.readinto(chunk):]
                if chunk and not chunk.endswith(b"\n"):
                    chunk += handle.readline()
            except InputError:  # a line longer than the cap
                raise
            except Exception as exc:  # corrupt gzip data (zlib's, gzip's, ISA-L's types), I/O
                raise NotStreamable(f"cannot read: {exc}") from None
            if first and chunk.startswith(_BOM):
                del chunk[:len(_BOM)]
            first = False
            if not chunk:
                return
            yield chunk
