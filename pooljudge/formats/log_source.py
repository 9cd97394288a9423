"""The bytes of a log file as a stream: gunzipped when gzip (by magic number), a leading UTF-8
byte-order mark dropped, newlines counted as they go by (so a line count is exact for gzip
input too, without a second read). :class:`LogSource` is what the columnar reader reads;
:func:`raw_lines` gives the same bytes line by line for the slower pass that names a bad line.
"""

from __future__ import annotations

import gzip
import io
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import cast

from pooljudge.errors import InputError
from pooljudge.formats.files import PathLike, input_errors
from pooljudge.formats.limits import LineCap, check_input_kind, max_line_bytes

__all__ = ["LogSource", "byte_ranges", "raw_lines"]


def _read_errors() -> tuple[type[BaseException], ...]:
    """What reading a corrupt or truncated (gzip) stream raises: OSError, EOFError, ValueError,
    and ISA-L's IsalError (which derives from Exception only)."""
    errors: tuple[type[BaseException], ...] = (OSError, EOFError, ValueError)
    try:
        from isal.isal_zlib import IsalError
    except ImportError:
        return errors
    # isal's stub declares ``IsalError: Exception`` (an instance); it is a class
    return (*errors, cast(type[BaseException], IsalError))


_READ_ERRORS = _read_errors()

_BOM = b"\xef\xbb\xbf"
_GZIP = b"\x1f\x8b"
MIN_RANGE = 8 << 20  # bytes: a file is cut into ranges parsed at once only above this
# A line starting with one of these may be blank (the newline before included).
_LINE_START = re.compile(rb"\n[\n\r \t\x0b\x0c]")
# A line whose first byte after blanks is not "{" (the newline before included): not a record.
_NOT_OBJECT = re.compile(rb"\n[\r \t\x0b\x0c]*[^{\n\r \t\x0b\x0c]")
_BLANKS = re.compile(rb"[\r \t\x0b\x0c]*")




def _open(path: PathLike) -> io.BufferedIOBase:
    """The file opened for reading, through a gzip decoder when it starts with gzip's magic."""
    with input_errors(path):
        check_input_kind(path)
        handle = Path(path).open("rb")  # noqa: SIM115 - returned open
    if handle.peek(2)[:2] != _GZIP:
        return handle
    try:
        from isal import igzip  # 3-5x faster than zlib
        return igzip.IGzipFile(fileobj=handle, mode="rb")
    except ImportError:  # pragma: no cover - isal ships wheels for the usual platforms
        return gzip.GzipFile(fileobj=handle, mode="rb")


class LogSource:
    """A read-only byte stream over a log file, read in blocks by ``pooljudge.formats.logs``.

    After the last read, ``lines`` is the number of lines (a last one without a newline
    counts), and ``maybe_blank`` is False when no line can be blank: no line starts with a
    blank or a line break. A read error (a corrupt gzip stream, an I/O error) is raised as
    InputError. A line that does not start with ``{`` (after blanks) is no record: the stream
    ends before it and ``not_object`` is set, so that the columnar reader never sees it (a
    line holding a JSON ``null`` crashes pyarrow 26's JSON reader, a segmentation fault) and
    the line-by-line pass names it.
    """

    def __init__(self, path: PathLike, start: int = 0, end: int | None = None) -> None:
        self.path = path
        self._handle = _open(path)
        if start:
            self._handle.seek(start)
        self._left = None if end is None else end - start
        self._newlines = 0
        self._last = b"\n"
        self._first = start == 0
        self._start = start
        self._cap = LineCap(path)
        self.maybe_blank = False
        self._open_blanks: bytes | None = b""  # the blanks after the last newline, if only those
        self.not_object = False

    def read(self, size: int = -1) -> bytes:
        return b"" if self.not_object else self._read(size)

    def _read(self, size: int) -> bytes:
        if self._left is not None:
            size = self._left if size < 0 else min(size, self._left)
        try:
            data = self._handle.read(size)
            if self._left is not None:
                self._left -= len(data)
        except _READ_ERRORS as exc:  # gzip, zlib and ISA-L errors
            raise InputError(f"cannot read: {exc}", path=self.path) from None
        if self._first and data:
            self._first = False
            data = data.removeprefix(_BOM)
        try:
            self._cap.feed(data)
        except InputError as exc:  # number the line from the file's start, not the range's
            exc.line = (exc.line or 0) + _newlines_before(self.path, self._start)
            raise InputError(exc.message, path=exc.path, line=exc.line) from None
        data = self._up_to_a_non_object(data)
        if data:
            self._newlines += data.count(b"\n")
            if not self.maybe_blank:
                self.maybe_blank = bool(_LINE_START.search(self._last + data))
            self._last = data[-1:]
        return data

    def _up_to_a_non_object(self, data: bytes) -> bytes:
        """``data``, or its bytes before the first line that begins with a byte other than
        ``{`` after blanks (then ``not_object`` is set). A blank line passes (``maybe_blank``
        sends it to the line-by-line pass); a line cut between two reads is checked across
        the cut."""
        prefix = b"" if self._open_blanks is None else b"\n" + self._open_blanks
        joined = prefix + data
        bad = _NOT_OBJECT.search(joined)
        if bad:
            self.not_object = True
            return data[:max(0, bad.start() - len(prefix))]
        last = joined.rfind(b"\n")
        if last >= 0:
            after = joined[last + 1:]
            self._open_blanks = after if _BLANKS.fullmatch(after) else None
        return data

    @property
    def lines(self) -> int:
        return self._newlines + (self._last != b"\n")

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def writable(self) -> bool:
        return False

    @property
    def closed(self) -> bool:
        return self._handle.closed

    def close(self) -> None:
        self._handle.close()


def byte_ranges(path: PathLike, parts: int) -> list[tuple[int, int | None]]:
    """``parts`` byte ranges ``(start, end)`` of a plain file, each starting at a line start
    (so that each can be parsed apart); one range ``(0, None)`` for gzip, or for a file too
    small to be worth cutting (under ``MIN_RANGE`` bytes a range)."""
    handle = _open(path)
    try:
        if not isinstance(handle, io.BufferedReader):
            return [(0, None)]
        size = os.fstat(handle.fileno()).st_size
        parts = max(1, min(parts, size // MIN_RANGE))
        cuts = [0]
        for i in range(1, parts):
            handle.seek(max(size * i // parts, cuts[-1]))
            handle.readline(max_line_bytes() + 2)  # to the next line start (or past the cap)
            if handle.tell() >= size:
                break
            cuts.append(handle.tell())
        return [(a, b) for a, b in zip(cuts, [*cuts[1:], None], strict=True)]
    finally:
        handle.close()


def _newlines_before(path: PathLike, offset: int) -> int:
    """The number of newlines in a plain file's first ``offset`` bytes, read in pieces."""
    count = 0
    with Path(path).open("rb") as handle:
        while offset > 0 and (piece := handle.read(min(offset, 1 << 20))):
            count += piece.count(b"\n")
            offset -= len(piece)
    return count


def raw_lines(path: PathLike) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes without the newline) for every line, the byte-order mark dropped."""
    handle = _open(path)
    cap = LineCap(path)
    try:
        for number, line in enumerate(iter(lambda: handle.readline(cap.limit + 2), b""),
                                      start=1):
            cap.feed(line)
            if number == 1:
                line = line.removeprefix(_BOM)
            yield number, line.rstrip(b"\r\n")
    except (OSError, EOFError, ValueError) as exc:
        raise InputError(f"cannot read: {exc}", path=path) from None
    finally:
        handle.close()
