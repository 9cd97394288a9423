"""The one module that reads and writes TREC-style files: runs, qrels and pool files.

Fast path: the bytes are normalised (tabs, runs of blanks, CRLF, ``#`` comment lines) with C-speed
``bytes`` operations and parsed by pyarrow's multi-threaded CSV reader. Only when that fails, or a
check on the parsed columns fails, does a line-by-line scan run to name the exact ``path:line``.

Run lines are ``topic Q0 doc rank score tag``; qrels lines are ``topic iteration doc label``. Topic
and document ids are strings (``"01" != "1"``); the rank column is ignored, as trec_eval does.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from pooljudge.errors import InputError
from pooljudge.fileio import PathLike, atomic_writer, read_bytes

__all__ = [
    "POOL_COLUMNS",
    "QrelsColumns",
    "RunColumns",
    "qrels_columns",
    "read_pool",
    "read_qrels",
    "read_qrels_columns",
    "read_run",
    "read_run_columns",
    "run_columns",
    "run_name",
    "write_pool",
    "write_qrels",
    "write_run",
]

RUN_FIELDS = ("topic", "q0", "doc", "rank", "score", "tag")
QRELS_FIELDS = ("topic", "iteration", "doc", "label")
POOL_COLUMNS = ("topic", "doc", "order", "best_rank", "runs")
_COMMENT_LINE = re.compile(rb"(?m)^[ \t]*#[^\n]*")


def run_name(path: PathLike) -> str:
    """A run's name: its file name without folder and without a ``.gz`` suffix."""
    name = Path(path).name
    return name[:-3] if name.endswith(".gz") else name


class RunColumns(NamedTuple):
    """A checked run as arrays in file order: dictionary-encoded topic and doc ids, float scores."""

    topic: pa.DictionaryArray
    doc: pa.DictionaryArray
    score: np.ndarray


class QrelsColumns(NamedTuple):
    """Checked qrels as arrays in file order: dictionary-encoded ids, int64 labels."""

    topic: pa.DictionaryArray
    doc: pa.DictionaryArray
    label: np.ndarray


def read_run(path: PathLike) -> pd.DataFrame:
    """Read a TREC run (plain or gzip) into columns ``topic, doc, score, tag``.

    Raises InputError naming ``path:line`` for a wrong column count, a score that is not a finite
    number, a document listed twice for one topic, undecodable bytes, or an empty file.
    """
    table, columns = _read_run_table(path)
    return pd.DataFrame(
        {
            "topic": _strings(table["topic"]),
            "doc": _strings(table["doc"]),
            "score": columns.score,
            "tag": _strings(table["tag"]),
        }
    )


def read_run_columns(path: PathLike) -> RunColumns:
    """Read and check a run like :func:`read_run`, but return arrays (no pandas strings)."""
    return _read_run_table(path)[1]


def read_qrels(path: PathLike) -> pd.DataFrame:
    """Read TREC qrels into columns ``topic, doc, label`` (label: int64, may be negative).

    Raises InputError naming ``path:line`` for a wrong column count, a label that is not an
    integer, a document judged twice for one topic, undecodable bytes, or an empty file.
    """
    table = _parse(path, QRELS_FIELDS, {"label": pa.int64()}, _check_qrels_line)
    columns = _qrels_columns(table, path)
    return pd.DataFrame(
        {"topic": _strings(table["topic"]), "doc": _strings(table["doc"]), "label": columns.label}
    )


def read_qrels_columns(path: PathLike) -> QrelsColumns:
    """Read and check qrels like :func:`read_qrels`, but return arrays."""
    table = _parse(path, QRELS_FIELDS, {"label": pa.int64()}, _check_qrels_line)
    return _qrels_columns(table, path)


def run_columns(run: pd.DataFrame, *, name: str = "run") -> RunColumns:
    """Encode a run DataFrame (``topic, doc, score``) as checked arrays.

    Raises InputError naming ``name`` for a missing column, a non-finite score or a document
    listed twice for one topic.
    """
    _require_columns(run, ("topic", "doc", "score"), name)
    score = pd.to_numeric(run["score"], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(score)
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(f"row {row}: score is not a finite number: {run['score'].iat[row]!r}",
                         path=name)
    topic, doc = _encode(_arrow_strings(run["topic"])), _encode(_arrow_strings(run["doc"]))
    row = _first_duplicate(topic, doc)
    if row is not None:
        raise InputError(f"row {row}: document listed twice for topic {topic[row]}: {doc[row]}",
                         path=name)
    return RunColumns(topic, doc, score)


def qrels_columns(qrels: pd.DataFrame, *, name: str = "qrels") -> QrelsColumns:
    """Encode a qrels DataFrame (``topic, doc, label``) as checked arrays (see run_columns)."""
    _require_columns(qrels, ("topic", "doc", "label"), name)
    labels = pd.to_numeric(qrels["label"], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(labels) | (labels != np.round(labels))
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(f"row {row}: label is not an integer: {qrels['label'].iat[row]!r}",
                         path=name)
    topic, doc = _encode(_arrow_strings(qrels["topic"])), _encode(_arrow_strings(qrels["doc"]))
    row = _first_duplicate(topic, doc)
    if row is not None:
        raise InputError(f"row {row}: document judged twice for topic {topic[row]}: {doc[row]}",
                         path=name)
    return QrelsColumns(topic, doc, labels.astype(np.int64))


def write_run(run: pd.DataFrame, path: PathLike, *, tag: str | None = None) -> None:
    """Write ``topic Q0 doc rank score tag`` lines in ranking order (rank numbered from 1)."""
    from pooljudge.ranking import rank_run

    ranked = rank_run(run)
    tags = ranked["tag"] if tag is None and "tag" in ranked else [tag or "pooljudge"] * len(ranked)
    lines = (
        f"{t} Q0 {d} {r} {s!r} {g}\n"
        for t, d, r, s, g in zip(
            ranked["topic"], ranked["doc"], ranked["rank"], ranked["score"].astype(float), tags,
            strict=True,
        )
    )
    _write_lines(path, lines)


def write_qrels(qrels: pd.DataFrame, path: PathLike) -> None:
    """Write ``topic 0 doc label`` lines, sorted by topic then document."""
    ordered = qrels.sort_values(["topic", "doc"], kind="stable")
    lines = (
        f"{t} 0 {d} {int(label)}\n"
        for t, d, label in zip(ordered["topic"], ordered["doc"], ordered["label"], strict=True)
    )
    _write_lines(path, lines)


def write_pool(pool: pd.DataFrame, path: PathLike) -> None:
    """Write a pool as TSV with a header: ``topic doc order best_rank runs`` then any extra columns.

    ``runs`` holds the comma-separated names of the runs that retrieved the document.
    """
    missing = [c for c in POOL_COLUMNS if c not in pool.columns]
    if missing:
        raise ValueError(f"pool lacks columns {missing}")
    columns = list(POOL_COLUMNS) + [c for c in pool.columns if c not in POOL_COLUMNS]
    with atomic_writer(path) as handle:
        pool[columns].to_csv(handle, sep="\t", index=False, lineterminator="\n")


def read_pool(path: PathLike) -> pd.DataFrame:
    """Read a pool TSV written by :func:`write_pool`; extra columns are kept.

    Raises InputError for a missing header column, a non-integer order or rank, a blank id, or a
    (topic, doc) pair listed twice, naming ``path:line``.
    """
    raw = read_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError("not valid UTF-8", path=path, line=line) from None
    rows = [line.split("\t") for line in text.splitlines()]
    header = rows[0]
    missing = [c for c in POOL_COLUMNS if c not in header]
    if missing:
        raise InputError(f"header lacks column(s) {', '.join(missing)}", path=path, line=1)
    records = []
    for number, fields in enumerate(rows[1:], start=2):
        if fields == [""]:
            continue
        if len(fields) != len(header):
            raise InputError(f"expected {len(header)} tab-separated fields, found {len(fields)}",
                             path=path, line=number)
        record = dict(zip(header, fields, strict=True))
        for column in ("order", "best_rank"):
            if not record[column].strip().lstrip("-").isdigit():
                raise InputError(f"{column} is not an integer: {record[column]!r}", path=path,
                                 line=number)
        if not record["topic"].strip() or not record["doc"].strip():
            raise InputError("blank topic or document id", path=path, line=number)
        records.append((number, record))
    frame = pd.DataFrame([r for _, r in records], columns=header)
    frame["order"] = frame["order"].astype(np.int64)
    frame["best_rank"] = frame["best_rank"].astype(np.int64)
    dup = frame.duplicated(["topic", "doc"]).to_numpy()
    if dup.any():
        i = int(np.argmax(dup))
        raise InputError(f"pair listed twice: topic {frame['topic'].iat[i]}, doc "
                         f"{frame['doc'].iat[i]}", path=path, line=records[i][0])
    return frame


# --- parsing internals ------------------------------------------------------------------------


def _read_run_table(path: PathLike) -> tuple[pa.Table, RunColumns]:
    table = _parse(path, RUN_FIELDS, {"score": pa.float64()}, _check_run_line)
    score = table["score"].to_numpy()
    bad = ~np.isfinite(score)
    if bad.any():
        _fail_at_row(path, int(np.argmax(bad)), "score is not a finite number")
    topic, doc = _encode(table["topic"]), _encode(table["doc"])
    row = _first_duplicate(topic, doc)
    if row is not None:
        _fail_at_row(path, row, f"document listed twice for topic {topic[row]}: {doc[row]}")
    return table, RunColumns(topic, doc, score)


def _qrels_columns(table: pa.Table, path: PathLike) -> QrelsColumns:
    topic, doc = _encode(table["topic"]), _encode(table["doc"])
    row = _first_duplicate(topic, doc)
    if row is not None:
        _fail_at_row(path, row, f"document judged twice for topic {topic[row]}: {doc[row]}")
    return QrelsColumns(topic, doc, table["label"].to_numpy().astype(np.int64))


def _parse(path: PathLike, fields: tuple[str, ...], types: dict, check_line) -> pa.Table:
    """Parse whitespace-separated ``fields`` fast; on failure locate the bad line and raise.

    Files with a single blank or a single tab between fields (the usual cases) are parsed as they
    are; anything else (mixed or repeated separators, CRs, comments) is normalised first.
    """
    raw = read_bytes(path)
    table = None
    if b"#" not in raw and b"\r" not in raw:
        if b"\t" not in raw:
            table = _read_table(raw, fields, types, delimiter=" ")
        elif b" " not in raw:
            table = _read_table(raw, fields, types, delimiter="\t")
    if table is None:
        table = _read_table(_normalise(raw), fields, types, delimiter=" ")
    if table is None or table.num_rows == 0:
        if next(iter(_data_lines(raw)), None) is None:
            raise InputError("file has no data lines (only blanks and # comments)", path=path)
        _locate_bad_line(path, raw, len(fields), check_line)
        raise InputError("cannot parse the file", path=path)
    return table


def _read_table(
    data: bytes, fields: tuple[str, ...], types: dict, *, delimiter: str
) -> pa.Table | None:
    """pyarrow's CSV reader with one ``delimiter`` per field gap; None when the bytes do not fit."""
    column_types = {name: types.get(name, pa.string()) for name in fields}
    try:
        return pacsv.read_csv(
            io.BytesIO(data),
            read_options=pacsv.ReadOptions(column_names=list(fields), block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                             ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=column_types,
                                                 strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
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


def _data_lines(raw: bytes) -> Iterable[tuple[int, bytes]]:
    """(line number, line) for every line that is neither blank nor a ``#`` comment."""
    for number, line in enumerate(raw.split(b"\n"), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith(b"#"):
            yield number, line


def _locate_bad_line(path: PathLike, raw: bytes, n_fields: int, check_line) -> None:
    """Scan line by line and raise InputError at the first line that cannot be read."""
    for number, line in _data_lines(raw):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("not valid UTF-8", path=path, line=number) from None
        fields = text.split()
        if len(fields) != n_fields:
            raise InputError(f"expected {n_fields} whitespace-separated fields, found "
                             f"{len(fields)}: {text.strip()!r}", path=path, line=number)
        problem = check_line(fields)
        if problem:
            raise InputError(problem, path=path, line=number)


def _check_run_line(fields: list[str]) -> str | None:
    try:
        score = float(fields[4])
    except ValueError:
        return f"score is not a number: {fields[4]!r}"
    return None if math.isfinite(score) else f"score is not a finite number: {fields[4]!r}"


def _check_qrels_line(fields: list[str]) -> str | None:
    try:
        int(fields[3])
    except ValueError:
        return f"label is not an integer: {fields[3]!r}"
    return None


def _fail_at_row(path: PathLike, row: int, message: str) -> None:
    """Raise InputError for the ``row``-th data line (0-based), naming its line number."""
    for index, (number, _line) in enumerate(_data_lines(read_bytes(path))):
        if index == row:
            raise InputError(message, path=path, line=number)
    raise InputError(message, path=path)


def _encode(column: pa.ChunkedArray | pa.Array) -> pa.DictionaryArray:
    """Dictionary-encode a string column (codes in first-appearance order)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    return pc.dictionary_encode(column)


def _first_duplicate(topic: pa.DictionaryArray, doc: pa.DictionaryArray) -> int | None:
    """Row of the first (topic, doc) pair that repeats an earlier row, or None.

    Sorting int64 pair keys is far cheaper than hashing the strings; the exact row is only
    looked up when a duplicate exists.
    """
    n_docs = max(len(doc.dictionary), 1)
    keys = topic.indices.to_numpy().astype(np.int64) * n_docs + doc.indices.to_numpy()
    ordered = np.sort(keys)
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    return int(np.argmax(pd.Series(keys).duplicated().to_numpy()))


def _arrow_strings(column: pd.Series) -> pa.Array:
    """A pandas column of ids as an Arrow string array (numbers become their text)."""
    if column.isna().any():
        raise InputError(f"column {column.name!r} has missing values")
    return pa.array(column.astype(str).to_numpy(dtype=object), type=pa.string())


def _require_columns(frame: pd.DataFrame, columns: tuple[str, ...], name: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", path=name)
    if frame.empty:
        raise InputError("no rows", path=name)


def _strings(column: pa.ChunkedArray) -> pd.Series:
    return pd.Series(column.to_pandas(), copy=False).astype(object)


def _write_lines(path: PathLike, lines: Iterable[str]) -> None:
    with atomic_writer(path) as handle:
        handle.writelines(lines)
