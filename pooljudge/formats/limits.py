"""What every reader refuses before parsing: a line longer than the cap, and an input that is
not a file that ends (a FIFO with no writer, a terminal, ``/dev/zero``).

The cap is ``$POOLJUDGE_MAX_LINE_BYTES`` (default 64 MiB, from 1 to 1 GiB, checked like an
option): a line (a record of JSON Lines) longer than that many bytes, its newline not counted,
is refused as ``path:line: line longer than N bytes`` as soon as the reader has read N + 1 bytes
of it, so memory stays within the cap plus one read.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import cast

from pooljudge.errors import InputError, UsageError

__all__ = ["DEFAULT_MAX_LINE", "MAX_LINE_ENV", "LineCap", "check_input_kind", "copy_stdin",
           "max_line_bytes", "open_input"]

MAX_LINE_ENV = "POOLJUDGE_MAX_LINE_BYTES"
DEFAULT_MAX_LINE = 64 << 20
_HIGHEST = 1 << 30  # pyarrow's block size is an int32: a block holds a whole line and more


def max_line_bytes() -> int:
    """The cap on a line's bytes: ``$POOLJUDGE_MAX_LINE_BYTES`` or 64 MiB; UsageError unless it
    is a whole number from 1 to 1 GiB."""
    text = os.environ.get(MAX_LINE_ENV)
    if text is None or text == "":
        return DEFAULT_MAX_LINE
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= _HIGHEST:
        raise UsageError(f"${MAX_LINE_ENV}: must be a whole number of bytes from 1 to "
                         f"{_HIGHEST}, got {text!r}")
    return int(text)


def check_input_kind(path: str | os.PathLike[str]) -> None:
    """InputError unless ``path`` is a regular file or a pipe a process writes to (``<(cmd)``,
    ``/dev/stdin`` on a pipe): a named FIFO could block forever waiting for a writer, and a
    device (``/dev/zero``, ``/dev/urandom``, a terminal) never ends. A missing path is left to
    the reader's own message."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    if stat.S_ISFIFO(mode) and _anonymous_pipe(path):
        return
    kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device")
    raise InputError(f"is {kind}, not a regular file (it might never end)", path=path)


def _anonymous_pipe(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (``/dev/fd/N``, ``/proc/self/fd/N``, ``/dev/stdin``) is an open pipe
    of this process, whose writer already exists, rather than a FIFO in the file system."""
    return Path(os.path.realpath(path)).name.startswith("pipe:")


class LineCap:
    """Counts lines in bytes fed in order and raises InputError at the first line longer than
    ``limit`` bytes (its newline not counted). ``lines`` is the number of newlines seen."""

    def __init__(self, path: str | os.PathLike[str], limit: int | None = None) -> None:
        self.path = path
        self.limit = max_line_bytes() if limit is None else limit
        self.lines = 0
        self._open = 0  # bytes of the line not yet ended

    def feed(self, data: bytes | bytearray, end: int | None = None) -> None:
        """Account for ``data[:end]``; InputError naming ``path:line`` when a line grows too
        long. Lines inside ``data`` are looked at one by one only when ``data`` is longer than
        the cap (never with the default cap and the readers' block sizes)."""
        end = len(data) if end is None else end
        first = data.find(b"\n", 0, end)
        if first < 0:
            self._open += end
            self._check(self._open, 0)
            return
        self._check(self._open + first, 0)
        last = data.rfind(b"\n", 0, end)
        if last - first - 1 > self.limit:
            self._scan(data, first, last)
        self.lines += data.count(b"\n", 0, end)
        self._open = end - last - 1
        self._check(self._open, 0)

    def _scan(self, data: bytes | bytearray, first: int, last: int) -> None:
        """Check every line between the first and last newline of ``data`` one by one."""
        start, passed = first + 1, 1
        while start <= last:
            end = data.find(b"\n", start)
            self._check(end - start, passed)
            start, passed = end + 1, passed + 1

    def _check(self, length: int, passed: int) -> None:
        if length > self.limit:
            raise InputError(f"line longer than {self.limit} bytes", path=self.path,
                             line=self.lines + passed + 1)


class CappedReader:
    """A binary stream that feeds every byte it returns to a :class:`LineCap`."""

    def __init__(self, handle: io.BufferedIOBase, cap: LineCap, *, gzipped: bool = False) -> None:
        self._handle = handle
        self.cap = cap
        self.gzipped = gzipped

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            return self._read_all()
        data = self._handle.read(size)
        self.cap.feed(data)
        return data

    def _read_all(self) -> bytes:
        out = bytearray()
        while chunk := self.read(1 << 20):
            out += chunk
        return bytes(out)

    def readinto(self, buffer: bytearray) -> int:
        count = self._handle.readinto(buffer)
        self.cap.feed(buffer, count)
        return count

    def readline(self, size: int = -1) -> bytes:
        """One line, read at most the cap plus one byte at a time, so a line without an end
        is refused before it fills memory."""
        line = self._handle.readline(self.cap.limit + 2 if size is None or size < 0 else size)
        self.cap.feed(line)
        return line

    def __iter__(self) -> Iterator[bytes]:
        while line := self.readline():
            yield line

    def close(self) -> None:
        self._handle.close()

    @property
    def closed(self) -> bool:
        return self._handle.closed

    def __enter__(self) -> CappedReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_input(path: str | os.PathLike[str], *, gunzip: bool = True) -> CappedReader:
    """``path`` opened for reading with the line cap (gunzipped as read when it starts with
    gzip's magic and ``gunzip``); InputError for a FIFO or device (:func:`check_input_kind`).
    The caller maps OSError (missing file, a directory) to its message."""
    check_input_kind(path)
    raw = open(path, "rb")  # noqa: SIM115 - returned open
    gzipped = gunzip and raw.peek(2)[:2] == b"\x1f\x8b"
    handle: io.BufferedIOBase = raw
    if gzipped:
        try:
            from isal import igzip
            handle = igzip.IGzipFile(fileobj=raw, mode="rb")
        except ImportError:  # pragma: no cover - isal ships wheels for the usual platforms
            import gzip
            handle = gzip.GzipFile(fileobj=raw, mode="rb")
    return CappedReader(handle, LineCap(path), gzipped=gzipped)


def copy_stdin(target: Path, name: str) -> None:
    """Standard input (gunzipped as read when it starts with gzip's magic) copied to
    ``target`` a megabyte at a time through the line cap, so input without end (``< /dev/zero``)
    is refused as ``name:1: line longer than N bytes`` with memory and disk bounded."""
    import gzip
    import shutil
    import zlib


    # typeshed says BinaryIO; the interpreter's binary stdin is a BufferedReader (it has peek)
    stdin = cast(io.BufferedReader, sys.stdin.buffer)
    source: io.BufferedIOBase = stdin
    if stdin.peek(2)[:2] == b"\x1f\x8b":
        source = gzip.GzipFile(fileobj=source, mode="rb")
    with open(target, "wb") as out:
        try:
            shutil.copyfileobj(CappedReader(source, LineCap(name)), out, 1 << 20)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise InputError(f"not a readable gzip stream ({exc})", path=name) from None
