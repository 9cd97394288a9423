"""Columnar fast readers behind :mod:`pooljudge.formats.trec` (its public entry point): runs and
qrels as checked Arrow/numpy arrays, without pandas.

The bytes are parsed by :mod:`pooljudge.formats._fields` (pyarrow's CSV reader in parallel
blocks; files normalised first only when their gaps are not single blanks or tabs; the exact
``path:line`` named only when parsing fails), materialising only the columns that are used (a
run's ``Q0``, rank and tag are checked for presence but never built). What is particular to runs
and qrels stays here: their fields, the check of a line's score or label, the ``+`` of qrels
labels, the encoding of the columns and the check that no (topic, doc) pair repeats. A run line
may carry fields after the run tag: they are ignored, as trec_eval does (qrels lines must have
exactly four fields). :func:`parse_run_bytes` and :func:`encode_run_table` parse and check
pieces of a run the same way (for :mod:`pooljudge.formats._run_blocks`), reporting a failure
instead of naming its line. ``clip``, ``parse`` and ``parse_bytes`` are re-exported from
:mod:`pooljudge.formats._fields`.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from pooljudge.formats._fields import clip, fail_at_row, parse, parse_bytes
from pooljudge.formats.files import PathLike
from pooljudge.kernels import (
    dictionary_encode,
    first_repeat,
    indices_nonzero,
    int_array,
    not_equal,
    numpy_of,
    pair_keys,
    string_hashes,
    surely_no_repeat,
    take,
)

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


class RunColumns(NamedTuple):
    """A checked run as arrays in file order: dictionary-encoded topic ids, doc ids, float scores.

    Read from a file, ``doc`` holds the ids as plain strings and ``doc_hash`` their
    :func:`~pooljudge.kernels.string_hashes` (all that scoring and pooling need); encoded
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


def parse_run_bytes(raw: bytes | bytearray) -> pa.Table | None:
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

    Doc ids stay strings: a repeated (topic, doc) pair is found by sorting each topic's 64-bit
    doc hashes (all pair keys when the topics are not grouped) and confirmed on the strings
    (:mod:`pooljudge.kernels`), with no string hash table.
    """
    topic = encode_grouped(table["topic"])
    doc = _array(table["doc"])
    doc_hash = string_hashes(doc)
    return RunColumns(topic, doc, numpy_of(table["score"]), doc_hash), _repeat(topic, doc,
                                                                             doc_hash)


def _repeat(topic: pa.DictionaryArray, doc: pa.Array, doc_hash: np.ndarray) -> int | None:
    """The row of the first (topic, doc) pair that repeats an earlier row, or None."""
    codes = numpy_of(topic.indices)
    if surely_no_repeat(codes, doc_hash):
        return None
    return first_repeat(pair_keys(codes, doc_hash), topic, doc)


def read_qrels_columns(path: PathLike) -> QrelsColumns:
    """Read and check qrels as arrays; InputError (``path:line``) as for runs, for a label that
    is not an integer and a document judged twice for one topic."""
    table = parse(path, QRELS_FIELDS, _QRELS_USED, {"label": pa.int64()}, _check_qrels_line,
                  prepare=_unsigned_labels)
    topic, doc = encode_grouped(table["topic"]), _array(table["doc"])
    doc_hash = string_hashes(doc)
    row = _repeat(topic, doc, doc_hash)
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


def _id(value: pa.Scalar) -> str:
    """An id for an error message: as it is, or clipped when long."""
    text = str(value)
    return text if len(text) <= 80 else clip(text)


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


def _array(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
