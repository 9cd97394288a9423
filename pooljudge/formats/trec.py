"""The one module that reads and writes TREC-style files: runs, qrels and pool files (and the
TSV of "I can't judge this" answers written beside exported qrels).

Fast path: the bytes are normalised (tabs, runs of blanks, CRLF, ``#`` comment lines) with C-speed
``bytes`` operations and parsed by pyarrow's CSV reader in parallel blocks
(:mod:`pooljudge.formats._csv_blocks`). Only when that fails, or a check on the parsed columns
fails, does a line-by-line scan run to name the exact ``path:line``; every reader accepts a UTF-8
byte-order mark.

Run lines are ``topic Q0 doc rank score tag``; qrels lines are ``topic iteration doc label``. Topic
and document ids are strings (``"01" != "1"``); the rank column is ignored, as trec_eval does.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

import numpy as np
import pyarrow as pa

from pooljudge.errors import InputError
from pooljudge.formats._columns import (
    QRELS_FIELDS,
    RUN_FIELDS,
    QrelsColumns,
    RunColumns,
    clip,
    encode,
    encode_run,
    first_duplicate,
    parse_run,
    read_qrels_columns,
    read_run_columns,
)
from pooljudge.formats.files import PathLike, atomic_writer, read_bytes, read_utf8
from pooljudge.formats.ids import check_id
from pooljudge.formats.pool_file import POOL_COLUMNS, SAMPLE_COLUMNS
from pooljudge.formats.prels import PRELS_COLUMNS, read_prels, write_prels
from pooljudge.formats.pyterrier import recognise_columns

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CANNOT_JUDGE_COLUMNS",
    "PRELS_COLUMNS",
    "QRELS_FIELDS",
    "RUN_FIELDS",
    "QrelsColumns",
    "RunColumns",
    "qrels_bytes",
    "qrels_columns",
    "read_pool",
    "read_prels",
    "read_provenance",
    "read_qrels",
    "read_qrels_columns",
    "read_run",
    "read_run_columns",
    "run_columns",
    "run_name",
    "write_cannot_judge",
    "write_pool",
    "write_prels",
    "write_qrels",
    "write_run",
]

CANNOT_JUDGE_COLUMNS = ("topic", "doc", "annotator", "reason")


def run_name(path: PathLike) -> str:
    """A run's name: its file name without folder and without a ``.gz`` suffix."""
    name = Path(path).name
    return name[:-3] if name.endswith(".gz") else name


def read_run(path: PathLike) -> pd.DataFrame:
    """Read a TREC run (plain or gzip) into columns ``topic, doc, score, tag``.

    Raises InputError naming ``path:line`` for a wrong column count, a score that is not a finite
    number, a document listed twice for one topic, undecodable bytes, or an empty file.
    """
    import pandas as pd

    table = parse_run(path, tag=True)
    columns = encode_run(table, path)
    return pd.DataFrame(
        {
            "topic": _strings(table["topic"]),
            "doc": _strings(table["doc"]),
            "score": columns.score,
            "tag": _strings(table["tag"]),
        }
    )


def read_qrels(path: PathLike) -> pd.DataFrame:
    """Read TREC qrels into columns ``topic, doc, label`` (label: int64, may be negative).

    Raises InputError naming ``path:line`` for a wrong column count, a label that is not an
    integer, a document judged twice for one topic, undecodable bytes, or an empty file.
    """
    import pandas as pd

    columns = read_qrels_columns(path)
    return pd.DataFrame({"topic": _decoded(columns.topic), "doc": _decoded(columns.doc),
                         "label": columns.label})


def run_columns(run: pd.DataFrame, *, name: str = "run") -> RunColumns:
    """Encode a run DataFrame (``topic, doc, score``) as checked arrays.

    PyTerrier's ``qid, docno`` and ir_measures' ``query_id, doc_id`` are recognised
    (:func:`pooljudge.formats.pyterrier.recognise_columns`); a ``rank`` column is ignored.

    Raises InputError naming ``name`` for a missing column, a non-finite score or a document
    listed twice for one topic.
    """
    import pandas as pd

    run = recognise_columns(run, ("topic", "doc", "score"), name=name)
    _require_columns(run, ("topic", "doc", "score"), name)
    score = pd.to_numeric(run["score"], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(score)
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(f"row {row}: score is not a finite number: {run['score'].iat[row]!r}",
                         path=name)
    topic, doc = _unique_pairs(run, name, "listed")
    return RunColumns(topic, doc, score)


def qrels_columns(qrels: pd.DataFrame, *, name: str = "qrels") -> QrelsColumns:
    """Encode a qrels DataFrame (``topic, doc, label``) as checked arrays (see run_columns;
    PyTerrier's ``qid, docno, label`` and ir_measures' ``query_id, doc_id, relevance`` too)."""
    import pandas as pd

    qrels = recognise_columns(qrels, ("topic", "doc", "label"), name=name)
    _require_columns(qrels, ("topic", "doc", "label"), name)
    labels = pd.to_numeric(qrels["label"], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(labels) | (labels != np.round(labels))
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(f"row {row}: label is not an integer: {qrels['label'].iat[row]!r}",
                         path=name)
    topic, doc = _unique_pairs(qrels, name, "judged")
    return QrelsColumns(topic, doc, labels.astype(np.int64))


def _unique_pairs(frame: pd.DataFrame, name: str, verb: str
                  ) -> tuple[pa.DictionaryArray, pa.DictionaryArray]:
    """The frame's topic and doc columns encoded; InputError naming the first repeated pair."""
    topic, doc = encode(_arrow_strings(frame["topic"])), encode(_arrow_strings(frame["doc"]))
    row = first_duplicate(topic, doc)
    if row is not None:
        raise InputError(f"row {row}: document {verb} twice for topic {topic[row]}: {doc[row]}",
                         path=name)
    return topic, doc


def write_run(run: pd.DataFrame, path: PathLike, *, tag: str | None = None) -> None:
    """Write ``topic Q0 doc rank score tag`` lines in ranking order (rank numbered from 1)."""
    from pooljudge.kernels.ranking import rank_run

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
    _write_lines(path, _qrels_lines(qrels))


def qrels_bytes(qrels: pd.DataFrame) -> bytes:
    """The bytes :func:`write_qrels` writes (UTF-8), for a download in the app."""
    return "".join(_qrels_lines(qrels)).encode("utf-8")


def _qrels_lines(qrels: pd.DataFrame) -> Iterator[str]:
    ordered = qrels.sort_values(["topic", "doc"], kind="stable")
    return (
        f"{t} 0 {d} {int(label)}\n"
        for t, d, label in zip(ordered["topic"].tolist(), ordered["doc"].tolist(),
                               ordered["label"].tolist(), strict=True)  # lists: fast to walk
    )


def write_cannot_judge(answers: pd.DataFrame, handle: IO[str]) -> None:
    """Write "I can't judge this" answers to the open text ``handle`` as TSV: the header
    ``topic doc annotator reason``, then one line per answer sorted by topic, document and
    annotator. Every field is one line of text: tabs and line breaks in it become spaces."""
    ordered = answers.sort_values(["topic", "doc", "annotator"], kind="stable")
    fields = [ordered[c].astype(str).str.replace(r"[\t\r\n]", " ", regex=True).tolist()
              for c in CANNOT_JUDGE_COLUMNS]
    handle.write("\t".join(CANNOT_JUDGE_COLUMNS) + "\n")
    handle.writelines("\t".join(row) + "\n" for row in zip(*fields, strict=True))


def read_provenance(path: PathLike) -> pd.DataFrame:
    """The provenance TSV ``pooljudge export`` writes beside qrels (a header, then one line per
    pair), every column as text, empty cells as ``""``; InputError naming ``path`` for a file
    that cannot be read or parsed (the caller checks the columns it needs)."""
    import pandas as pd

    raw = read_bytes(path)
    try:
        return pd.read_csv(io.BytesIO(raw), sep="\t", dtype=str, keep_default_na=False)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError,
            pd.errors.EmptyDataError) as exc:
        raise InputError(f"cannot read the provenance: {exc}", path=path) from None


def write_pool(pool: pd.DataFrame | pa.Table, path: PathLike) -> None:
    """Write a pool (a DataFrame or an Arrow table) as TSV with a header: ``topic doc order
    best_rank runs``, then a sampled pool's ``stratum inclusion sampled``
    (:data:`SAMPLE_COLUMNS`), then any extra columns.

    ``runs`` holds the comma-separated names of the runs that retrieved the document; floats
    (``inclusion``) are written with ``repr`` precision, so they read back exactly. ValueError
    for a missing column, or a sampled pool with some of its columns only or a value that
    :func:`read_pool` would refuse. The bytes are those of pandas' ``to_csv`` (built by
    :mod:`pooljudge.formats.pool_file` without pandas).
    """
    from pooljudge.formats.pool_file import write_pool_file

    write_pool_file(pool, path)


def read_pool(path: PathLike) -> pd.DataFrame:
    """Read a pool TSV written by :func:`write_pool`; extra columns are kept (as text).

    A sampled pool's ``stratum`` and ``sampled`` come back as int64, ``inclusion`` as float64.
    Raises InputError for a missing header column (a sampled pool needs all three of
    :data:`SAMPLE_COLUMNS`), a non-integer order or rank, a blank id, a stratum below 1, an
    inclusion probability outside (0, 1], a ``sampled`` other than 0 or 1, or a (topic, doc)
    pair listed twice, naming ``path:line``.
    """
    import pandas as pd

    text = read_utf8(path)
    rows = [line.split("\t") for line in text.splitlines()]
    header = rows[0]
    sample = [c for c in SAMPLE_COLUMNS if c in header]
    missing = [c for c in POOL_COLUMNS if c not in header]
    missing += [c for c in SAMPLE_COLUMNS if sample and c not in sample]
    if missing:
        raise InputError(f"header lacks column(s) {', '.join(missing)}", path=path, line=1)
    twice = sorted({c for c in header if header.count(c) > 1})
    if twice:
        raise InputError(f"header repeats column(s) {', '.join(twice)}", path=path, line=1)
    records = []
    for number, fields in enumerate(rows[1:], start=2):
        if fields == [""]:
            continue
        if len(fields) != len(header):
            raise InputError(f"expected {len(header)} tab-separated fields, found {len(fields)}",
                             path=path, line=number)
        record = dict(zip(header, fields, strict=True))
        for column in ("order", "best_rank"):
            _check_int64(record[column], column, path, number)
        if not record["topic"].strip() or not record["doc"].strip():
            raise InputError("blank topic or document id", path=path, line=number)
        check_id(record["topic"], "topic", path, number)
        check_id(record["doc"], "document", path, number)
        if sample:
            _check_sample_fields(record, path, number)
        records.append((number, record))
    frame = pd.DataFrame([r for _, r in records], columns=header)
    frame["order"] = frame["order"].astype(np.int64)
    frame["best_rank"] = frame["best_rank"].astype(np.int64)
    if sample:
        frame = frame.astype({"stratum": np.int64, "inclusion": np.float64,
                              "sampled": np.int64})
    dup = frame.duplicated(["topic", "doc"]).to_numpy()
    if dup.any():
        i = int(np.argmax(dup))
        raise InputError(f"pair listed twice: topic {frame['topic'].iat[i]}, doc "
                         f"{frame['doc'].iat[i]}", path=path, line=records[i][0])
    return frame


# --- internals ---------------------------------------------------------------------------------


def _check_int64(text: str, column: str, path: PathLike, line: int) -> None:
    """InputError at ``path:line`` unless ``text`` is an integer that fits in 64 bits."""
    if not text.strip().lstrip("-").isdigit():
        raise InputError(f"{column} is not an integer: {clip(text)}", path=path, line=line)
    if not -(1 << 63) <= int(text) < 1 << 63:
        raise InputError(f"{column} is out of range (a 64-bit integer): {clip(text)}", path=path,
                         line=line)


def _check_sample_fields(record: dict[str, str], path: PathLike, line: int) -> None:
    """InputError at ``path:line`` unless a sampled pool's line has a stratum >= 1, an inclusion
    probability in (0, 1] and ``sampled`` 0 or 1."""
    _check_int64(record["stratum"], "stratum", path, line)
    if int(record["stratum"]) < 1:
        raise InputError(f"stratum must be at least 1: {clip(record['stratum'])}", path=path,
                         line=line)
    try:
        inclusion = float(record["inclusion"])
    except ValueError:
        inclusion = float("nan")
    if not 0 < inclusion <= 1:
        raise InputError("inclusion probability is not a number in (0, 1]: "
                         f"{clip(record['inclusion'])}", path=path, line=line)
    if record["sampled"].strip() not in ("0", "1"):
        raise InputError(f"sampled must be 0 or 1: {clip(record['sampled'])}", path=path,
                         line=line)


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
    import pandas as pd

    return pd.Series(column.to_pandas(), copy=False).astype(object)


def _decoded(column: pa.Array) -> pd.Series:
    if isinstance(column, pa.DictionaryArray):
        column = column.dictionary_decode()
    return _strings(pa.chunked_array([column]))


def _write_lines(path: PathLike, lines: Iterable[str]) -> None:
    with atomic_writer(path) as handle:
        handle.writelines(lines)
