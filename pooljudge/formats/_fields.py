"""Whitespace-separated field files (runs, qrels, unit maps) parsed by pyarrow's CSV reader, and
the bad line found and named when they do not parse (:mod:`pooljudge.formats._columns` keeps
what is particular to runs and qrels).

The bytes are parsed in parallel blocks on threads that are joined before any error propagates
(:mod:`pooljudge.formats._csv_blocks`), materialising only the columns that are used. Files with
one blank or one tab between fields are parsed as they are; anything else (repeated or mixed
blanks, CRs, ``#`` comment lines) is normalised first with C-speed ``bytes`` operations, keeping
every line where it is. Only when parsing fails does a line-by-line scan run (the caller's check
of each line's fields, then a bisection over pyarrow's own refusals) to name the exact
``path:line``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from pooljudge.errors import InputError
from pooljudge.formats._csv_blocks import PARSE_ERRORS, first_failing_line, read_csv_blocks
from pooljudge.formats.files import PathLike, read_bytes
from pooljudge.formats.ids import first_control_byte, refuse_control_bytes

__all__ = ["clip", "data_lines", "fail_at_row", "parse", "parse_bytes"]

_COMMENT_LINE = re.compile(rb"(?m)^[ \t]*#[^\n]*")


def parse(path: PathLike, fields: tuple[str, ...], used: tuple[str, ...], types: dict,
          check_line: Callable[[list[str]], str | None], *,
          extra_fields: bool = False,
          prepare: Callable[[bytes], bytes] | None = None) -> pa.Table:
    """Parse whitespace-separated ``fields`` fast, keeping the ``used`` ones; on failure locate
    the bad line and raise InputError. With ``extra_fields``, fields after the last of
    ``fields`` are dropped instead of making the line malformed. ``prepare`` rewrites the bytes
    first (it must keep every line where it is)."""
    raw = read_bytes(path)
    refuse_control_bytes(raw, path)
    if prepare is not None:
        raw = prepare(raw)
    table = parse_bytes(raw, fields, used, types, extra_fields=extra_fields, checked=True)
    if table is None or table.num_rows == 0:
        if next(iter(data_lines(raw)), None) is None:
            raise InputError("file has no data lines (only blanks and # comments)", path=path)
        _locate_bad_line(path, raw, len(fields), check_line, extra_fields=extra_fields)
        _bisect_bad_line(path, _normalise(raw), fields, used, types, extra_fields=extra_fields)
    return table


def parse_bytes(raw: bytes | bytearray, fields: tuple[str, ...], used: tuple[str, ...],
                types: dict, *, extra_fields: bool = False, checked: bool = False
                ) -> pa.Table | None:
    """:func:`parse` on whole lines of bytes, without error reporting: None when they do not
    parse, or (unless ``checked`` says the caller looked) hold a control byte an id cannot
    carry (:func:`~pooljudge.formats.ids.first_control_byte`). The table is the same for any
    cut of the lines into pieces.

    Bytes with one blank (or one tab) between fields and none around them are parsed as they
    are; anything else is :func:`_normalise`'d first.
    """
    if not checked and first_control_byte(raw) is not None:
        return None
    if b"#" not in raw and b"\r" not in raw:
        gap = b" " if b"\t" not in raw else b"\t" if b" " not in raw else None
        if gap is not None and _single_gaps(raw, gap):
            table = _read_table(raw, fields, used, types, delimiter=gap.decode())
            if table is not None:
                return table
    normalised = _normalise(raw)
    table = _read_table(normalised, fields, used, types, delimiter=" ")
    if table is None and extra_fields:
        normalised = _drop_extra_fields(normalised, len(fields))
        table = _read_table(normalised, fields, used, types, delimiter=" ")
    return table


def _single_gaps(raw: bytes | bytearray, gap: bytes, *, piece: int = 1 << 20) -> bool:
    """Whether fields are separated by exactly one ``gap`` (a blank or a tab, the only such
    byte in ``raw``) with none at a line's ends: an empty field would otherwise parse as an
    empty id, where whitespace splitting sees none. False also for a blank line or a control
    byte beside a gap. Checked with numpy, ``piece`` bytes at a time (``bytes`` searches for
    two bytes are slower)."""
    if raw.startswith(gap) or raw.endswith(gap):
        return False
    codes = np.frombuffer(raw, dtype=np.uint8)
    for start in range(0, len(codes), piece):  # pieces overlap by one byte
        separator = codes[start:start + piece + 1] <= ord(" ")  # gap, line end, control bytes
        if np.logical_and(separator[1:], separator[:-1]).any():
            return False
    return True


def _bisect_bad_line(path: PathLike, normalised: bytes | bytearray, fields: tuple[str, ...],
                     used: tuple[str, ...], types: dict, *, extra_fields: bool) -> None:
    """Raise InputError at the first line pyarrow refuses though the line checks passed.

    :func:`_normalise` keeps every line where it was, so a line number in ``normalised`` is
    one in the file.
    """
    if extra_fields:
        normalised = _drop_extra_fields(normalised, len(fields))

    def parses(data: bytes | bytearray) -> bool:
        return _read_table(data, fields, used, types, delimiter=" ") is not None

    line = first_failing_line(normalised, parses)
    if line is None:
        raise InputError("cannot parse the file", path=path)
    text = normalised.split(b"\n")[line - 1].decode("utf-8", "replace")
    raise InputError(f"cannot read the line: {clip(text)}", path=path, line=line)


def clip(text: str, limit: int = 80) -> str:
    """``text`` quoted for an error message, cut to about ``limit`` characters."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}… ({len(text)} characters)"


def _read_table(data: bytes | bytearray, fields: tuple[str, ...], used: tuple[str, ...],
                types: dict, *, delimiter: str) -> pa.Table | None:
    """pyarrow's CSV reader with one ``delimiter`` per field gap; None when the bytes do not fit.

    Every line must have exactly ``len(fields)`` fields, also when only ``used`` are built. Text
    is checked to be UTF-8 unless it is all ASCII (a fast test; the check costs a third).
    """
    column_types = {name: types.get(name, pa.string()) for name in used}
    try:
        return read_csv_blocks(
            data, column_names=list(fields),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                             ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=column_types,
                                                 include_columns=list(used),
                                                 null_values=[], strings_can_be_null=False,
                                                 check_utf8=not data.isascii()),
        )
    except PARSE_ERRORS:
        return None


def _normalise(raw: bytes | bytearray) -> bytes | bytearray:
    """Blank-separated fields, one space each; comment lines and CRs blanked out."""
    if b"#" in raw:
        raw = _COMMENT_LINE.sub(b"", raw)
    if b"\r" in raw:
        raw = raw.replace(b"\r", b"")
    if b"\t" in raw:
        raw = raw.replace(b"\t", b" ")
    while b"  " in raw:
        raw = raw.replace(b"  ", b" ")
    if b"\n " in raw:
        raw = raw.replace(b"\n ", b"\n")
    if b" \n" in raw:
        raw = raw.replace(b" \n", b"\n")
    return raw[1:] if raw.startswith(b" ") else raw


def _drop_extra_fields(normalised: bytes | bytearray, n_fields: int) -> bytes:
    """:func:`_normalise`'d bytes with every line cut after its ``n_fields``-th field."""
    line = re.compile(rb"(?m)^((?:[^ \n]+ ){%d}[^ \n]+) [^\n]*$" % (n_fields - 1))
    return line.sub(rb"\1", normalised)


def data_lines(raw: bytes) -> Iterable[tuple[int, bytes]]:
    """(line number, line) for every line that is neither blank nor a ``#`` comment."""
    for number, line in enumerate(raw.split(b"\n"), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith(b"#"):
            yield number, line


def _locate_bad_line(path: PathLike, raw: bytes, n_fields: int, check_line, *,
                     extra_fields: bool = False) -> None:
    """Scan line by line and raise InputError at the first line that cannot be read (with
    ``extra_fields``, more than ``n_fields`` fields is not an error)."""
    for number, line in data_lines(raw):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("not valid UTF-8", path=path, line=number) from None
        fields = text.split()
        if len(fields) < n_fields or (len(fields) > n_fields and not extra_fields):
            raise InputError(f"expected {n_fields} whitespace-separated fields, found "
                             f"{len(fields)}: {clip(text.strip())}", path=path, line=number)
        problem = check_line(fields)
        if problem:
            raise InputError(problem, path=path, line=number)


def fail_at_row(path: PathLike, row: int, message: str) -> None:
    """Raise InputError for the ``row``-th data line (0-based), naming its line number."""
    for index, (number, _line) in enumerate(data_lines(read_bytes(path))):
        if index == row:
            raise InputError(message, path=path, line=number)
    raise InputError(message, path=path)
