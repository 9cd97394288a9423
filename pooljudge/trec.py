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

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from pooljudge.errors import InputError
from pooljudge.fileio import PathLike, atomic_writer, read_bytes

__all__ = [
    "POOL_COLUMNS",
    "read_pool",
    "read_qrels",
    "read_run",
    "run_name",
    "write_pool",
    "write_qrels",
    "write_run",
]

RUN_FIELDS = ("topic", "q0", "doc", "rank", "score", "tag")
QRELS_FIELDS = ("topic", "iteration", "doc", "label")
POOL_COLUMNS = ("topic", "doc", "order", "best_rank", "runs")
_COMMENT_LINE = re.compile(rb"(?m)^#[^\n]*")


def run_name(path: PathLike) -> str:
    """A run's name: its file name without folder and without a ``.gz`` suffix."""
    name = Path(path).name
    return name[:-3] if name.endswith(".gz") else name


def read_run(path: PathLike) -> pd.DataFrame:
    """Read a TREC run (plain or gzip) into columns ``topic, doc, score, tag``.

    Raises InputError naming ``path:line`` for a wrong column count, a score that is not a finite
    number, a document listed twice for one topic, undecodable bytes, or an empty file.
    """
    table = _parse(path, RUN_FIELDS, {"score": pa.float64()}, _check_run_line)
    frame = pd.DataFrame(
        {
            "topic": _strings(table["topic"]),
            "doc": _strings(table["doc"]),
            "score": table["score"].to_numpy(),
            "tag": _strings(table["tag"]),
        }
    )
    bad = ~np.isfinite(frame["score"].to_numpy())
    if bad.any():
        _fail_at_row(path, int(np.argmax(bad)), "score is not a finite number")
    _refuse_duplicates(path, frame, "document listed twice for topic {topic}: {doc}")
    return frame


def read_qrels(path: PathLike) -> pd.DataFrame:
    """Read TREC qrels into columns ``topic, doc, label`` (label: int64, may be negative).

    Raises InputError naming ``path:line`` for a wrong column count, a label that is not an
    integer, a document judged twice for one topic, undecodable bytes, or an empty file.
    """
    table = _parse(path, QRELS_FIELDS, {"label": pa.int64()}, _check_qrels_line)
    frame = pd.DataFrame(
        {
            "topic": _strings(table["topic"]),
            "doc": _strings(table["doc"]),
            "label": table["label"].to_numpy().astype(np.int64),
        }
    )
    _refuse_duplicates(path, frame, "document judged twice for topic {topic}: {doc}")
    return frame


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
        raise InputError("not valid UTF-8", path=path, line=raw[: exc.start].count(b"\n") + 1) from None
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


def _parse(path: PathLike, fields: tuple[str, ...], types: dict, check_line) -> pa.Table:
    """Parse whitespace-separated ``fields`` fast; on failure locate the bad line and raise."""
    raw = read_bytes(path)
    normalised = _normalise(raw)
    column_types = {name: types.get(name, pa.string()) for name in fields}
    try:
        table = pacsv.read_csv(
            io.BytesIO(normalised),
            read_options=pacsv.ReadOptions(column_names=list(fields), block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False,
                                             ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=column_types,
                                                 strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        _locate_bad_line(path, raw, len(fields), check_line)
        raise InputError(f"cannot parse: {exc}", path=path) from None
    if table.num_rows == 0:
        raise InputError("file has no data lines", path=path)
    return table


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


def _refuse_duplicates(path: PathLike, frame: pd.DataFrame, template: str) -> None:
    topic_codes, _ = pd.factorize(frame["topic"])
    doc_codes, docs = pd.factorize(frame["doc"])
    keys = topic_codes.astype(np.int64) * max(len(docs), 1) + doc_codes
    dup = pd.Series(keys).duplicated().to_numpy()
    if dup.any():
        row = int(np.argmax(dup))
        message = template.format(topic=frame["topic"].iat[row], doc=frame["doc"].iat[row])
        _fail_at_row(path, row, message)


def _strings(column: pa.ChunkedArray) -> pd.Series:
    return pd.Series(column.to_pandas(), copy=False).astype(object)


def _write_lines(path: PathLike, lines: Iterable[str]) -> None:
    with atomic_writer(path) as handle:
        handle.writelines(lines)
