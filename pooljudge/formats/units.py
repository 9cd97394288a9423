"""The unit map: which document each chunk (or passage) belongs to, for evaluation units.

A line is ``chunk doc`` or ``chunk doc start end``: whitespace-separated fields (blanks or tabs),
``start`` and ``end`` the passage's character offsets in its document (integers, ``0 <= start
<= end``). Every line of a file has the same number of fields, 2 or 4. Blank lines and lines
starting with ``#`` are ignored; an optional first line ``chunk doc`` (or ``chunk doc start
end``, any case) is a header and skipped, so no chunk can be named ``chunk`` in a map whose
document ``doc`` comes first. Ids are literal text, compared byte for byte.

A chunk belongs to exactly one document: a chunk listed twice is an error, whether or not the
two lines agree. A document may have any number of chunks.

The bytes are parsed by pyarrow's CSV reader (as runs are, :mod:`pooljudge.formats._columns`);
only when that or a check on the columns fails does a line-by-line scan name the ``path:line``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

import numpy as np
import pyarrow as pa

from pooljudge.errors import InputError
from pooljudge.formats._fields import clip, data_lines, parse_bytes
from pooljudge.formats.files import PathLike, read_bytes
from pooljudge.formats.ids import refuse_control_bytes
from pooljudge.kernels import decode, dictionary_encode, numpy_of, string_hashes

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["UNIT_COLUMNS", "UnitColumns", "read_unit_columns", "read_units", "unit_columns"]

UNIT_COLUMNS = ("chunk", "doc", "start", "end")
_OFFSETS = UNIT_COLUMNS[2:]
# A problem's message, given how to name another row (its number to "row 3" or "line 4").
_Message: TypeAlias = Callable[[Callable[[int], str]], str]
_SHAPES = {2: UNIT_COLUMNS[:2], 4: UNIT_COLUMNS}
_OFFSET_TYPES = {"start": pa.int64(), "end": pa.int64()}


class UnitColumns(NamedTuple):
    """A checked unit map as Arrow arrays in file order: chunk ids (unique), their documents'
    ids, and the optional offsets (int64, all null when the map gives none)."""

    chunk: pa.Array
    doc: pa.Array
    start: pa.Array
    end: pa.Array

    @property
    def has_offsets(self) -> bool:
        return self.start.null_count < len(self.start)


def read_unit_columns(path: PathLike) -> UnitColumns:
    """Read and check a unit map (plain or gzip) as :class:`UnitColumns`.

    Raises InputError naming ``path:line`` for a line with other than 2 or 4 fields or another
    count than the first line, an offset that is not an integer, a negative offset, ``start``
    after ``end``, a chunk listed twice (named with both lines), undecodable bytes, or a file
    with no data line.
    """
    raw = read_bytes(path)
    refuse_control_bytes(raw, path)
    raw, fields = _drop_header(raw, path)
    table = parse_bytes(raw, fields, fields, _OFFSET_TYPES, checked=True)
    if table is None or table.num_rows == 0:
        _locate_bad_line(path, raw, fields)
        raise InputError("cannot parse the unit map", path=path)  # pragma: no cover - defensive
    n = table.num_rows
    offsets = [_array(table[c]) if c in fields else pa.nulls(n, pa.int64()) for c in _OFFSETS]
    columns = UnitColumns(_array(table["chunk"]), _array(table["doc"]), *offsets)
    problem = _check(columns)
    if problem is not None:
        _raise_at_line(path, raw, problem)
    return columns


def read_units(path: PathLike) -> pd.DataFrame:
    """:func:`read_unit_columns` as a DataFrame: ``chunk, doc`` (str) and ``start, end``
    (nullable Int64, ``<NA>`` when the map gives no offsets)."""
    return _frame(read_unit_columns(path))


def unit_columns(frame: pd.DataFrame, *, name: str = "units") -> UnitColumns:
    """Encode a unit map DataFrame (``chunk, doc`` and optionally ``start, end``) as checked
    columns; missing offsets (NaN, None) are nulls.

    Raises InputError naming ``name`` and the row for a missing column or id, offsets given
    for only one side, an offset that is not a non-negative integer, ``start`` after ``end``,
    or a chunk listed twice.
    """
    missing = [c for c in UNIT_COLUMNS[:2] if c not in frame.columns]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", path=name)
    if frame.empty:
        raise InputError("no rows", path=name)
    ids = []
    for column in UNIT_COLUMNS[:2]:
        values = frame[column]
        if values.isna().any():
            raise InputError(f"row {int(np.argmax(values.isna().to_numpy()))}: missing {column} "
                             "id", path=name)
        ids.append(pa.array(values.astype(str).to_numpy(dtype=object), type=pa.string()))
    offsets = [_offset_array(frame, column, name) if column in frame.columns
               else pa.nulls(len(frame), pa.int64()) for column in _OFFSETS]
    one_side = np.asarray(offsets[0].is_null()) != np.asarray(offsets[1].is_null())
    if one_side.any():
        raise InputError(f"row {int(np.argmax(one_side))}: start and end go together: give "
                         "both or neither", path=name)
    columns = UnitColumns(ids[0], ids[1], *offsets)
    problem = _check(columns)
    if problem is not None:
        row, message = problem
        raise InputError(f"row {row}: " + message(lambda other: f"row {other}"), path=name)
    return columns


# --- internals ---------------------------------------------------------------------------------


def _drop_header(raw: bytes, path: PathLike) -> tuple[bytes, tuple[str, ...]]:
    """The bytes without a header line (blanked, so lines keep their numbers) and the fields
    every line has, decided by the first data line."""
    first = _first_data_line(raw)
    if first is None:
        raise InputError("no 'chunk doc' lines (only blanks and # comments)", path=path)
    number, line = first
    words = line.split()
    if len(words) not in _SHAPES:
        raise InputError(f"expected 'chunk doc' or 'chunk doc start end', found {len(words)} "
                         f"field(s): {clip(line.decode('utf-8', 'replace').strip())}", path=path,
                         line=number)
    fields = _SHAPES[len(words)]
    if [w.lower() for w in words] == [f.encode() for f in fields]:
        start = _line_start(raw, number)
        raw = raw[:start] + raw[start + len(line):]
    return raw, fields


def _first_data_line(raw: bytes) -> tuple[int, bytes] | None:
    """(line number, line) of the first line neither blank nor a ``#`` comment, found without
    splitting the whole file."""
    position, number = 0, 1
    while position < len(raw):
        end = raw.find(b"\n", position)
        end = len(raw) if end < 0 else end
        line = raw[position:end]
        stripped = line.strip()
        if stripped and not stripped.startswith(b"#"):
            return number, line
        position, number = end + 1, number + 1
    return None


def _line_start(raw: bytes, number: int) -> int:
    """The byte offset where line ``number`` (1-based) starts."""
    position = 0
    for _ in range(number - 1):
        position = raw.index(b"\n", position) + 1
    return position


def _locate_bad_line(path: PathLike, raw: bytes, fields: tuple[str, ...]) -> None:
    """Raise InputError at the first line that is not a unit map line of ``fields``."""
    shape = " ".join(fields)
    for number, line in data_lines(raw):
        try:
            words = line.decode("utf-8").split()
        except UnicodeDecodeError:
            raise InputError("not valid UTF-8", path=path, line=number) from None
        if len(words) != len(fields):
            raise InputError(f"expected {len(fields)} fields ('{shape}', as on the first line), "
                             f"found {len(words)}: {clip(' '.join(words))}", path=path,
                             line=number)
        for name, word in zip(fields[2:], words[2:], strict=True):
            problem = _offset_problem(name, word)
            if problem:
                raise InputError(problem, path=path, line=number)
    if _first_data_line(raw) is None:
        raise InputError("no 'chunk doc' lines (only a header)", path=path)


def _offset_problem(name: str, word: str) -> str | None:
    try:
        value = int(word)
    except ValueError:
        return f"{name} is not an integer: {clip(word)}"
    if not -(1 << 63) <= value < 1 << 63:
        return f"{name} is out of range (a 64-bit integer): {clip(word)}"
    return None


def _check(columns: UnitColumns) -> tuple[int, _Message] | None:
    """The first row breaking a rule (offsets not negative and in order, each chunk listed
    once: reported at its second row) and its message, given how to name another row."""
    for name, values in zip(_OFFSETS, (columns.start, columns.end), strict=True):
        negative = numpy_of(values, fill=0) < 0
        if negative.any():
            row = int(np.argmax(negative))
            return row, lambda _, n=name, v=values[row]: f"{n} must not be negative: {v}"
    after = numpy_of(columns.start, fill=0) > numpy_of(columns.end, fill=0)
    if after.any():
        row = int(np.argmax(after))
        start, end = columns.start[row], columns.end[row]
        return row, lambda _: f"start {start} is after end {end}"
    if _surely_distinct(columns.chunk):
        return None
    codes = numpy_of(dictionary_encode(columns.chunk).indices)
    distinct, first_rows = np.unique(codes, return_index=True)
    first = np.empty(int(distinct[-1]) + 1 if len(distinct) else 0, dtype=np.int64)
    first[distinct] = first_rows
    repeated = first[codes] != np.arange(len(codes))
    if not repeated.any():
        return None
    row = int(np.argmax(repeated))
    earlier = int(first[codes[row]])
    chunk, doc, other = (clip(str(columns.chunk[row])), clip(str(columns.doc[row])),
                         clip(str(columns.doc[earlier])))
    if doc != other:
        return row, lambda where: (f"chunk {chunk} is mapped to two documents: {other} "
                                   f"({where(earlier)}) and {doc}")
    return row, lambda where: f"chunk {chunk} listed twice (first on {where(earlier)})"


def _surely_distinct(ids: pa.Array) -> bool:
    """True when no id repeats: their 64-bit hashes, sorted, are all different (a sort of
    numbers, several times cheaper than a hash table of the strings). False means "maybe"."""
    hashes = np.sort(string_hashes(ids))
    return not bool((hashes[1:] == hashes[:-1]).any())


def _raise_at_line(path: PathLike, raw: bytes, problem: tuple[int, _Message]
                   ) -> None:
    """Raise InputError for ``problem`` at the line of its data row."""
    lines = [number for number, _ in data_lines(raw)]
    row, message = problem
    raise InputError(message(lambda other: f"line {lines[other]}"), path=path, line=lines[row])


def _offset_array(frame: pd.DataFrame, column: str, name: str) -> pa.Array:
    """A frame's offset column as int64 with nulls; InputError for a non-integer value."""
    import pandas as pd

    values = frame[column]
    numbers = pd.to_numeric(values, errors="coerce")
    with np.errstate(invalid="ignore"):
        bad = ((numbers.isna() & values.notna())
               | (numbers.notna() & (numbers != np.round(numbers)))).to_numpy()
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(f"row {row}: {column} is not an integer: {clip(str(values.iat[row]))}",
                         path=name)
    return pa.array(numbers.astype("Int64"), type=pa.int64())


def _array(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def _frame(columns: UnitColumns) -> pd.DataFrame:
    import pandas as pd

    def strings(values: pa.Array) -> pd.Series:
        return pd.Series(decode(values).to_pandas(), copy=False).astype(object)

    def offsets(values: pa.Array) -> pd.Series:
        return pd.Series(values.to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get))

    return pd.DataFrame({"chunk": strings(columns.chunk), "doc": strings(columns.doc),
                         "start": offsets(columns.start), "end": offsets(columns.end)})
