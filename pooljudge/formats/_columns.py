"""Columnar fast readers behind :mod:`pooljudge.formats.trec` (its public entry point): runs and
qrels as checked Arrow/numpy arrays, without pandas.

The bytes are parsed by pyarrow's CSV reader in parallel blocks on threads that are joined before
any error propagates (:mod:`pooljudge.formats._csv_blocks`), materialising only the columns that
are used (a run's ``Q0``, rank and tag are checked for presence but never built). Files with one
blank or one tab between fields are parsed as they are; anything else (repeated or mixed blanks,
CRs, ``#`` comment lines) is normalised first with C-speed ``bytes`` operations. A run line may
carry fields after the run tag: they are ignored, as trec_eval does (qrels lines must have exactly
four fields). Only when parsing or a check on the columns fails does a line-by-line scan run, to
name the exact ``path:line``. :func:`parse_run_bytes` and :func:`encode_run_table` parse and
check pieces of a run the same way (for :mod:`pooljudge.formats._run_blocks`), reporting a failure
instead of naming its line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from pooljudge.errors import InputError
from pooljudge.formats._arrow import dictionary_encode, indices_nonzero, not_equal, take
from pooljudge.formats._arrow_numpy import int_array, numpy_of
from pooljudge.formats._csv_blocks import PARSE_ERRORS, first_failing_line, read_csv_blocks
from pooljudge.formats._keys import first_repeat, pair_keys, string_hashes
from pooljudge.formats.files import PathLike, read_bytes

__all__ = [
    "QRELS_FIELDS",
    "RUN_FIELDS",
    "QrelsColumns",
    "RunColumns",
    "clip",
    "encode",
    "encode_grouped",
    "encode_run",
    "encode_run_table",
    "first_duplicate",
    "int_array",
    "numpy_of",
    "parse",
    "parse_bytes",
    "parse_run",
    "parse_run_bytes",
    "read_qrels_columns",
    "read_run_columns",
]

RUN_FIELDS = ("topic", "q0", "doc", "rank", "score", "tag")
QRELS_FIELDS = ("topic", "iteration", "doc", "label")
_RUN_USED = ("topic", "doc", "score")
_QRELS_USED = ("topic", "doc", "label")
_RUN_TYPES = {"score": pa.float64()}
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_COMMENT_LINE = re.compile(rb"(?m)^[ \t]*#[^\n]*")


class RunColumns(NamedTuple):
    """A checked run as arrays in file order: dictionary-encoded topic ids, doc ids, float scores.

    Read from a file, ``doc`` holds the ids as plain strings and ``doc_hash`` their
    :func:`~pooljudge.formats._keys.string_hashes` (all that scoring and pooling need); encoded
    from a DataFrame, ``doc`` is dictionary-encoded and ``doc_hash`` None.
    """

    topic: pa.DictionaryArray
    doc: pa.Array
    score: np.ndarray
    doc_hash: np.ndarray | None = None


class QrelsColumns(NamedTuple):
    """Checked qrels as arrays in file order: dictionary-encoded topic ids, doc ids, int64 labels.

    As for :class:`RunColumns`, read from a file ``doc`` holds plain strings and ``doc_hash``
    their hashes; encoded from a DataFrame, ``doc`` is dictionary-encoded and ``doc_hash`` None.
    """

    topic: pa.DictionaryArray
    doc: pa.Array
    label: np.ndarray
    doc_hash: np.ndarray | None = None


def read_run_columns(path: PathLike) -> RunColumns:
    """Read and check a run (plain or gzip): :func:`parse_run`, then :func:`encode_run`."""
    return encode_run(parse_run(path), path)


def parse_run(path: PathLike, *, tag: bool = False) -> pa.Table:
    """A run's ``topic, doc, score`` (and ``tag``) columns in file order; all but duplicates
    checked. Fields after the tag are ignored (trec_eval's rule).

    Raises InputError naming ``path:line`` for fewer than six fields, a score that is not a
    finite number, undecodable bytes, or an empty file.
    """
    used = (*_RUN_USED, "tag") if tag else _RUN_USED
    table = parse(path, RUN_FIELDS, used, _RUN_TYPES, _check_run_line, extra_fields=True)
    row = _first_infinite(table)
    if row is not None:
        fail_at_row(path, row, "score is not a finite number")
    return table


def parse_run_bytes(raw: bytes) -> pa.Table | None:
    """:func:`parse_run` (without ``tag``) on whole lines of bytes: None when a line does not
    parse or a score is not finite (then :func:`parse_run` on the file names the line)."""
    table = parse_bytes(raw, RUN_FIELDS, _RUN_USED, _RUN_TYPES, extra_fields=True)
    return None if table is None or _first_infinite(table) is not None else table


def _first_infinite(table: pa.Table) -> int | None:
    """The first row whose score is not finite, or None."""
    bad = ~np.isfinite(numpy_of(table["score"]))
    return int(np.argmax(bad)) if bad.any() else None


def encode_run(table: pa.Table, path: PathLike) -> RunColumns:
    """Encode a parsed run; raises InputError (``path:line``) for a document twice in a topic."""
    columns, row = encode_run_table(table)
    if row is not None:
        doc = _id(columns.doc[row])
        fail_at_row(path, row, f"document listed twice for topic {columns.topic[row]}: {doc}")
    return columns


def encode_run_table(table: pa.Table) -> tuple[RunColumns, int | None]:
    """A parsed run encoded, and the row of the first document listed twice in a topic (None).

    Doc ids stay strings: a repeated (topic, doc) pair is found by sorting 64-bit pair keys and
    confirmed on the strings (:mod:`pooljudge.formats._keys`), with no string hash table.
    """
    topic = encode_grouped(table["topic"])
    doc = _array(table["doc"])
    doc_hash = string_hashes(doc)
    row = first_repeat(pair_keys(numpy_of(topic.indices), doc_hash), topic, doc)
    return RunColumns(topic, doc, numpy_of(table["score"]), doc_hash), row


def read_qrels_columns(path: PathLike) -> QrelsColumns:
    """Read and check qrels as arrays; InputError (``path:line``) as for runs, for a label that
    is not an integer and a document judged twice for one topic."""
    table = parse(path, QRELS_FIELDS, _QRELS_USED, {"label": pa.int64()}, _check_qrels_line,
                  prepare=_unsigned_labels)
    topic, doc = encode_grouped(table["topic"]), _array(table["doc"])
    doc_hash = string_hashes(doc)
    row = first_repeat(pair_keys(numpy_of(topic.indices), doc_hash), topic, doc)
    if row is not None:
        fail_at_row(path, row, f"document judged twice for topic {topic[row]}: {_id(doc[row])}")
    return QrelsColumns(topic, doc, numpy_of(table["label"]).astype(np.int64), doc_hash)


def encode(column: pa.ChunkedArray | pa.Array) -> pa.DictionaryArray:
    """Dictionary-encode a string column, codes in first-appearance order."""
    return dictionary_encode(_array(column))


def encode_grouped(column: pa.ChunkedArray | pa.Array) -> pa.DictionaryArray:
    """Dictionary-encode ids that mostly come in runs of equal values (a run's topics).

    Only the first row of each run of equal values is hashed; the codes equal those of
    ``pyarrow.compute.dictionary_encode`` (first-appearance order) for any row order. An
    ungrouped column simply has more, shorter runs.
    """
    column = _array(column)
    n = len(column)
    if n < 2:
        return dictionary_encode(column)
    change = not_equal(column.slice(1), column.slice(0, n - 1))
    heads = np.zeros(1 + change.true_count, dtype=np.int64)
    heads[1:] = numpy_of(indices_nonzero(change)) + 1
    encoded = dictionary_encode(take(column, int_array(heads)))
    indices = np.repeat(numpy_of(encoded.indices), np.diff(np.append(heads, n)))
    return pa.DictionaryArray.from_arrays(int_array(indices.astype(np.int32)), encoded.dictionary)


def first_duplicate(topic: pa.DictionaryArray, doc: pa.DictionaryArray) -> int | None:
    """Row of the first (topic, doc) pair that repeats an earlier row, or None.

    Sorting int64 pair keys is far cheaper than hashing the strings; the exact row is only
    looked up when a duplicate exists.
    """
    n_docs = max(len(doc.dictionary), 1)
    keys = numpy_of(topic.indices).astype(np.int64) * n_docs + numpy_of(doc.indices)
    ordered = np.sort(keys)
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    rows = np.argsort(keys, kind="stable")
    repeats = keys[rows][1:] == keys[rows][:-1]
    return int(rows[1:][repeats].min())


def parse(path: PathLike, fields: tuple[str, ...], used: tuple[str, ...], types: dict,
          check_line: Callable[[list[str]], str | None], *,
          extra_fields: bool = False,
          prepare: Callable[[bytes], bytes] | None = None) -> pa.Table:
    """Parse whitespace-separated ``fields`` fast, keeping the ``used`` ones; on failure locate
    the bad line and raise InputError. With ``extra_fields``, fields after the last of
    ``fields`` are dropped instead of making the line malformed. ``prepare`` rewrites the bytes
    first (it must keep every line where it is)."""
    raw = read_bytes(path)
    if prepare is not None:
        raw = prepare(raw)
    table = parse_bytes(raw, fields, used, types, extra_fields=extra_fields)
    if table is None or table.num_rows == 0:
        if next(iter(data_lines(raw)), None) is None:
            raise InputError("file has no data lines (only blanks and # comments)", path=path)
        _locate_bad_line(path, raw, len(fields), check_line, extra_fields=extra_fields)
        _bisect_bad_line(path, _normalise(raw), fields, used, types, extra_fields=extra_fields)
    return table


def parse_bytes(raw: bytes, fields: tuple[str, ...], used: tuple[str, ...], types: dict, *,
                extra_fields: bool = False) -> pa.Table | None:
    """:func:`parse` on whole lines of bytes, without error reporting: None when they do not
    parse. The table is the same for any cut of the lines into pieces.

    Bytes with one blank (or one tab) between fields and none around them are parsed as they
    are; anything else is :func:`_normalise`'d first.
    """
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


def _single_gaps(raw: bytes, gap: bytes, *, piece: int = 1 << 20) -> bool:
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


def _bisect_bad_line(path: PathLike, normalised: bytes, fields: tuple[str, ...],
                     used: tuple[str, ...], types: dict, *, extra_fields: bool) -> None:
    """Raise InputError at the first line pyarrow refuses though the line checks passed.

    :func:`_normalise` keeps every line where it was, so a line number in ``normalised`` is
    one in the file.
    """
    if extra_fields:
        normalised = _drop_extra_fields(normalised, len(fields))

    def parses(data: bytes) -> bool:
        return _read_table(data, fields, used, types, delimiter=" ") is not None

    line = first_failing_line(normalised, parses)
    if line is None:
        raise InputError("cannot parse the file", path=path)
    text = normalised.split(b"\n")[line - 1].decode("utf-8", "replace")
    raise InputError(f"cannot read the line: {clip(text)}", path=path, line=line)


def _id(value: pa.Scalar) -> str:
    """An id for an error message: as it is, or clipped when long."""
    text = str(value)
    return text if len(text) <= 80 else clip(text)


def clip(text: str, limit: int = 80) -> str:
    """``text`` quoted for an error message, cut to about ``limit`` characters."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}… ({len(text)} characters)"


def _read_table(data: bytes, fields: tuple[str, ...], used: tuple[str, ...], types: dict, *,
                delimiter: str) -> pa.Table | None:
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


def _normalise(raw: bytes) -> bytes:
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


def _drop_extra_fields(normalised: bytes, n_fields: int) -> bytes:
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


def _check_run_line(fields: list[str]) -> str | None:
    try:
        score = float(fields[4])
    except ValueError:
        return f"score is not a number: {clip(fields[4])}"
    return None if math.isfinite(score) else f"score is not a finite number: {clip(fields[4])}"


_PLUS_LABEL = re.compile(rb"([ \t])\+([0-9]+[ \t]*\r?(?:\n|\Z))")


def _unsigned_labels(raw: bytes) -> bytes:
    """Qrels bytes with a leading ``+`` dropped from labels (``+1`` is 1, as trec_eval's
    ``atol`` reads it); only a line's last field is touched, and lines stay where they are."""
    return _PLUS_LABEL.sub(rb"\1\2", raw) if b"+" in raw else raw


def _check_qrels_line(fields: list[str]) -> str | None:
    try:
        label = int(fields[3])
    except ValueError:
        return f"label is not an integer: {clip(fields[3])}"
    if not _INT64_MIN <= label <= _INT64_MAX:
        return f"label is out of range (a 64-bit integer): {clip(fields[3])}"
    return None


def fail_at_row(path: PathLike, row: int, message: str) -> None:
    """Raise InputError for the ``row``-th data line (0-based), naming its line number."""
    for index, (number, _line) in enumerate(data_lines(read_bytes(path))):
        if index == row:
            raise InputError(message, path=path, line=number)
    raise InputError(message, path=path)


def _array(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
