"""Prels: the estimators' input written beside the qrels of a sampled campaign (re-exported by
:mod:`pooljudge.formats.trec`, where the other TREC-style files are read and written).

A TSV with the header ``topic doc label stratum inclusion`` and one line per pooled pair: its
label (empty when the pair was not sampled or not judged), its stratum (an integer >= 1) and its
first-order inclusion probability π in (0, 1], written with ``repr`` precision.

Reading (:func:`read_prels_columns`, behind :func:`read_prels`) takes a fast path with pyarrow's
CSV reader for files as :func:`write_prels` writes them: labels and strata as plain integers
(no sign, no leading zero, no decimal point), no field starting with ``+``, no id blank or with
blanks around it, no line break but LF/CR/CRLF. Anything else, valid or not, is read by the
checking path (pandas, line by line), which gives the same values and names a bad line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from pooljudge.errors import InputError
from pooljudge.formats._columns import encode_grouped
from pooljudge.formats._csv_blocks import PARSE_ERRORS, read_csv_blocks
from pooljudge.formats._fields import clip
from pooljudge.formats.files import PathLike, atomic_writer, read_bytes, read_utf8
from pooljudge.kernels import (
    decode,
    first_repeat,
    int_array,
    numpy_of,
    pair_keys,
    string_hashes,
    surely_no_repeat,
    take,
)

try:
    from pyarrow._compute import CastOptions, call_function
except ImportError:  # pragma: no cover - only if pyarrow renames its compiled module
    from pyarrow.compute import CastOptions, call_function

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "PRELS_COLUMNS", "PrelsColumns", "prels_bytes", "prels_lines", "read_prels",
    "read_prels_columns", "write_prels",
]

PRELS_COLUMNS = ("topic", "doc", "label", "stratum", "inclusion")


def write_prels(prels: pd.DataFrame, path: PathLike) -> None:
    """Write prels (a sampled pool's estimator input) as TSV (:func:`prels_lines`), atomically."""
    with atomic_writer(path) as handle:
        handle.writelines(prels_lines(prels))


def prels_bytes(prels: pd.DataFrame) -> bytes:
    """The TSV text :func:`write_prels` writes, as UTF-8 bytes (the app's download)."""
    return "".join(prels_lines(prels)).encode("utf-8")


def prels_lines(prels: pd.DataFrame) -> list[str]:
    """The prels TSV's lines: the header ``topic doc label stratum inclusion``, then one line per
    pooled pair sorted by topic and document; ``label`` is empty for a pair not sampled or not
    judged (NA in the frame), ``inclusion`` is written with ``repr`` precision so that it reads
    back exactly."""
    import pandas as pd

    missing = [c for c in PRELS_COLUMNS if c not in prels.columns]
    if missing:
        raise ValueError(f"prels lack columns {missing}")
    ordered = prels.sort_values(["topic", "doc"], kind="stable")
    labels = ["" if pd.isna(v) else str(int(v)) for v in ordered["label"].tolist()]
    rows = zip(ordered["topic"].astype(str).tolist(), ordered["doc"].astype(str).tolist(), labels,
               ordered["stratum"].astype(int).tolist(), ordered["inclusion"].astype(float).tolist(),
               strict=True)
    return ["\t".join(PRELS_COLUMNS) + "\n",
            *(f"{t}\t{d}\t{lab}\t{s}\t{p!r}\n" for t, d, lab, s, p in rows)]


class PrelsColumns(NamedTuple):
    """Checked prels as arrays in file order: ``topic`` (dictionary-encoded), ``doc`` (strings)
    and its :func:`~pooljudge.kernels.string_hashes` ``doc_hash``, ``label`` (int64, 0
    where ``judged`` is False: an empty label), ``stratum`` (int64 >= 1), ``inclusion`` (π)."""

    topic: pa.DictionaryArray
    doc: pa.Array
    doc_hash: np.ndarray
    label: np.ndarray
    judged: np.ndarray
    stratum: np.ndarray
    inclusion: np.ndarray


def read_prels(path: PathLike) -> pd.DataFrame:
    """Read prels written by :func:`write_prels` into columns ``topic, doc`` (text), ``label``
    (nullable Int64: NA when empty), ``stratum`` (int64) and ``inclusion`` (float64).

    Raises InputError naming ``path:line`` for a header without the five columns, a wrong field
    count, a blank id, a label that is not an integer, a stratum that is not an integer >= 1, an
    inclusion probability that is not a number in (0, 1], or a (topic, doc) pair listed twice.
    """
    columns = _fast_columns(read_bytes(path))
    return _read_checked(path) if columns is None else _frame_of(columns)


def read_prels_columns(path: PathLike) -> PrelsColumns:
    """:func:`read_prels` as arrays (no pandas on the fast path); the same errors."""
    columns = _fast_columns(read_bytes(path))
    return _columns_of(_read_checked(path)) if columns is None else columns


_HEADER = "\t".join(PRELS_COLUMNS).encode()
# bytes the fast path leaves to the checking one: line breaks of str.splitlines other than
# LF/CR, separators Python strips as blanks, a field starting with + (pandas reads +0.1 apart)
_UNUSUAL_BYTES = (b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f")
_UNUSUAL_UTF8 = (b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9")
_STRINGS = pacsv.ConvertOptions(column_types=dict.fromkeys(PRELS_COLUMNS, pa.string()),
                                null_values=[], strings_can_be_null=False)
_TSV = pacsv.ParseOptions(delimiter="\t", quote_char=False, double_quote=False,
                          escape_char=False, newlines_in_values=False, ignore_empty_lines=True)
_EXACT = 1 << 53  # integers read the same through float64 (the checking path's type)


def _fast_columns(raw: bytes) -> PrelsColumns | None:
    """The columns of a file as :func:`write_prels` writes it (module docstring), or None."""
    if not raw.startswith(_HEADER) or raw[len(_HEADER):len(_HEADER) + 1] not in (b"\n", b"\r"):
        return None
    if _unusual(raw):
        return None
    body = raw[len(_HEADER):].lstrip(b"\r\n")
    if not body:  # no pair: left to the checking path
        return None
    try:
        table = read_csv_blocks(body, column_names=list(PRELS_COLUMNS), parse_options=_TSV,
                                convert_options=_STRINGS)
    except PARSE_ERRORS:
        return None
    if table.num_rows == 0:
        return None
    text = {c: table[c].combine_chunks() for c in PRELS_COLUMNS}
    if not (_plain_ids(text["topic"]) and _plain_ids(text["doc"])):
        return None
    judged = _lengths(text["label"]) > 0
    label = _plain_integers(take(text["label"], int_array(np.flatnonzero(judged))))
    stratum = _plain_integers(text["stratum"])
    inclusion = _probabilities(text["inclusion"])
    if label is None or stratum is None or inclusion is None or not (stratum >= 1).all():
        return None
    topic, doc = encode_grouped(text["topic"]), text["doc"]
    doc_hash = string_hashes(doc)
    codes = numpy_of(topic.indices)
    if not surely_no_repeat(codes, doc_hash) and first_repeat(
            pair_keys(codes, doc_hash), topic, doc) is not None:
        return None
    labels = np.zeros(len(judged), dtype=np.int64)
    labels[judged] = label
    return PrelsColumns(topic, doc, doc_hash, labels, judged, stratum, inclusion)


def _unusual(raw: bytes) -> bool:
    """Whether ``raw`` holds a byte or sequence of ``_UNUSUAL_*`` or a field starting with +
    (single bytes are found by ``memchr``; the longer searches run only when needed)."""
    return (any(unusual in raw for unusual in _UNUSUAL_BYTES)
            or (b"+" in raw and b"\t+" in raw)
            or (not raw.isascii() and any(unusual in raw for unusual in _UNUSUAL_UTF8)))


def _lengths(values: pa.Array) -> np.ndarray:
    """Per string, its length in bytes."""
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int32)[values.offset:]
    return np.diff(offsets[: len(values) + 1])


def _plain_ids(values: pa.Array) -> bool:
    """Whether no id is empty or has Unicode blanks around it."""
    trimmed = call_function("utf8_trim_whitespace", [values])
    return bool((_lengths(values) > 0).all()) and values.equals(trimmed)


def _plain_integers(values: pa.Array) -> np.ndarray | None:
    """The values as int64 when each is an integer below 2**53 in magnitude written plainly
    (its own ``str``), else None."""
    try:
        numbers = call_function("cast", [values], CastOptions.safe(pa.int64()))
    except PARSE_ERRORS:
        return None
    if not values.equals(call_function("cast", [numbers], CastOptions.safe(pa.string()))):
        return None
    result = numpy_of(numbers).astype(np.int64, copy=False)
    return result if bool((np.abs(result) < _EXACT).all()) else None


def _probabilities(values: pa.Array) -> np.ndarray | None:
    """The values as float64 when each is a number in (0, 1], else None."""
    try:
        numbers = numpy_of(call_function("cast", [values], CastOptions.safe(pa.float64())))
    except PARSE_ERRORS:
        return None
    return numbers if bool(((numbers > 0) & (numbers <= 1)).all()) else None


def _frame_of(columns: PrelsColumns) -> pd.DataFrame:
    """The frame :func:`read_prels` returns, from checked columns."""
    import pandas as pd

    def text(values: pa.Array) -> pd.Series:
        return pd.Series(values.to_numpy(zero_copy_only=False), dtype=object)

    return pd.DataFrame({
        "topic": text(decode(columns.topic)),
        "doc": text(columns.doc),
        "label": pd.arrays.IntegerArray(columns.label.copy(), ~columns.judged),
        "stratum": columns.stratum, "inclusion": columns.inclusion})


def _columns_of(frame: pd.DataFrame) -> PrelsColumns:
    """Checked columns from the frame of the checking path."""
    doc = pa.array(frame["doc"].tolist(), type=pa.string())
    judged = frame["label"].notna().to_numpy()
    return PrelsColumns(
        encode_grouped(pa.array(frame["topic"].tolist(), type=pa.string())), doc,
        string_hashes(doc), frame["label"].fillna(0).to_numpy(dtype=np.int64), judged,
        frame["stratum"].to_numpy(dtype=np.int64),
        frame["inclusion"].to_numpy(dtype=np.float64))


def _read_checked(path: PathLike) -> pd.DataFrame:
    """The checking path of :func:`read_prels`: every line split and checked with pandas."""
    import pandas as pd

    lines = read_utf8(path).lstrip("\ufeff").splitlines()
    if not lines or lines[0].split("\t") != list(PRELS_COLUMNS):
        raise InputError(f"the header must be {' '.join(PRELS_COLUMNS)} (tab-separated)",
                         path=path, line=1)
    numbers = [n for n, line in enumerate(lines[1:], start=2) if line.strip()]
    rows = [lines[n - 1].split("\t") for n in numbers]
    for number, fields in zip(numbers, rows, strict=True):
        if len(fields) != len(PRELS_COLUMNS):
            raise InputError(f"expected {len(PRELS_COLUMNS)} tab-separated fields, found "
                             f"{len(fields)}", path=path, line=number)
    frame = pd.DataFrame(rows, columns=list(PRELS_COLUMNS), dtype=object)
    line_of = np.asarray(numbers, dtype=np.int64)

    def fail(bad: np.ndarray, what: str, column: str) -> None:
        if bad.any():
            row = int(np.argmax(bad))
            raise InputError(f"{what}: {clip(str(frame[column].iat[row]))}", path=path,
                             line=int(line_of[row]))

    for column in ("topic", "doc"):
        fail((frame[column].str.strip() == "").to_numpy(), f"blank {column} id", column)
    label = pd.to_numeric(frame["label"].replace("", None), errors="coerce")
    fail(((frame["label"] != "") & ~(np.isfinite(label) & (label == np.round(label))))
         .to_numpy(), "label is not an integer", "label")
    fail((label.abs() >= 2.0**63).to_numpy(), "label is out of range (a 64-bit integer)", "label")
    stratum = pd.to_numeric(frame["stratum"], errors="coerce")
    fail((stratum >= 2.0**63).to_numpy(), "stratum is out of range (a 64-bit integer)",
         "stratum")
    fail(~(np.isfinite(stratum) & (stratum == np.round(stratum)) & (stratum >= 1)).to_numpy(),
         "stratum is not an integer >= 1", "stratum")
    inclusion = pd.to_numeric(frame["inclusion"], errors="coerce")
    fail(~((inclusion > 0) & (inclusion <= 1)).to_numpy(),
         "inclusion probability is not a number in (0, 1]", "inclusion")
    fail(frame.duplicated(["topic", "doc"]).to_numpy(), "pair listed twice", "doc")
    return pd.DataFrame({"topic": frame["topic"], "doc": frame["doc"],
                         "label": label.astype("Int64"), "stratum": stratum.astype(np.int64),
                         "inclusion": inclusion.astype(np.float64)})
