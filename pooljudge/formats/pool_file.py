"""The pool file's columns (:data:`POOL_COLUMNS`, :data:`SAMPLE_COLUMNS`) and its writer
(:func:`pooljudge.formats.trec.write_pool`), column-wise with Arrow.

The bytes are exactly those of ``DataFrame.to_csv(sep="\\t", index=False, lineterminator="\\n")``:
a header, then one line per row; integers in decimal, booleans ``True``/``False``, float64 as
numpy's ``str`` (Python's ``repr``: shortest round-trip digits, ``1.0``, ``1e-05``), text as is.
Each column becomes one Arrow string array and the lines are joined by Arrow kernels: no Python
loop per row, and no pandas for a :class:`pyarrow.Table`. Floats are cast by Arrow where its
shortest digits print as ``repr`` does (non-integral, 1e-4 <= |x| < 1e9, checked against repr on
millions of values); the others (integral, tiny, huge, non-finite) are formatted by numpy, as
pandas does. Whatever this writer cannot reproduce itself (missing values, other types) is
written by pandas. Nothing is ever quoted (``csv.QUOTE_NONE``): an id with a quote is written as
it is, so :func:`~pooljudge.formats.trec.read_pool`, which splits at tabs, reads it back
unchanged; text with a tab or a line break cannot be written and raises ValueError (readers
refuse such ids, :mod:`pooljudge.formats.ids`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import pyarrow as pa

from pooljudge.formats.files import PathLike, atomic_writer
from pooljudge.kernels import call_function, int_array

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["POOL_COLUMNS", "SAMPLE_COLUMNS", "joined_names", "text_array", "write_pool_file"]

POOL_COLUMNS = ("topic", "doc", "order", "best_rank", "runs")
SAMPLE_COLUMNS = ("stratum", "inclusion", "sampled")  # a sampled pool's (pooling.sampling)
Column: TypeAlias = np.ndarray | pa.Array
_BLOCK = 1 << 18  # rows joined and written at a time


def text_array(values: Sequence[str]) -> pa.Array:
    """A short list of Python strings as an Arrow string array, built from buffers
    (``pa.array`` would import pandas on first use)."""
    encoded = [value.encode("utf-8") for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def joined_names(names: Sequence[str], index: np.ndarray, starts: np.ndarray) -> pa.Array:
    """Per group of the rows of ``index`` (contiguous groups beginning at ``starts``, the first
    at 0), the names ``names[i]`` of its rows joined by commas, in row order (large strings)."""
    pieces = call_function("take", [_large(text_array(names)), int_array(index)])
    offsets = np.append(starts, len(index)).astype(np.int64)
    listed = pa.LargeListArray.from_arrays(int_array(offsets), pieces)
    return call_function("binary_join", [listed, _scalar(",")])


def write_pool_file(pool: pd.DataFrame | pa.Table, path: PathLike) -> None:
    """Write ``pool`` (a DataFrame or an Arrow table) as the pool TSV; see ``write_pool``.

    ValueError for a missing column, or a sampled pool with some of its columns only or a
    value that ``read_pool`` would refuse (stratum < 1, inclusion outside (0, 1], sampled not
    0/1).
    """
    names = list(pool.column_names if isinstance(pool, pa.Table) else pool.columns)
    sampled = [c for c in SAMPLE_COLUMNS if c in names]
    missing = [c for c in POOL_COLUMNS if c not in names]
    missing += [c for c in SAMPLE_COLUMNS if sampled and c not in sampled]
    if missing:
        raise ValueError(f"pool lacks columns {missing}")
    first = [*POOL_COLUMNS, *sampled]
    names = first + [c for c in names if c not in first]
    columns = {name: _column(pool, name) for name in names}
    if sampled and not _valid_sample(*(columns[c] for c in SAMPLE_COLUMNS)):
        raise ValueError("a sampled pool needs stratum >= 1, inclusion in (0, 1], sampled 0/1")
    texts = _texts([str(name) for name in names], list(columns.values()))
    with atomic_writer(path) as handle:
        if texts is None:
            frame = pool.select(names).to_pandas() if isinstance(pool, pa.Table) else pool[names]
            _unquoted_csv(frame, handle)
            return
        handle.write("\t".join(str(name) for name in names) + "\n")
        for start in range(0, len(texts[0]), _BLOCK):
            handle.write(_lines([text.slice(start, _BLOCK) for text in texts]))


def _unquoted_csv(frame: pd.DataFrame, handle: Any) -> None:
    """pandas' TSV of ``frame`` with nothing quoted; ValueError for text with a tab or a line
    break, which no reader could split back."""
    import csv

    for name in frame.columns:
        column = frame[name]
        if column.dtype == object and column.map(
                lambda v: isinstance(v, str) and not _plain(v.encode("utf-8"))).any():
            raise ValueError(f"a pool field of column {name} holds a tab or a line break")
    try:
        frame.to_csv(handle, sep="\t", index=False, lineterminator="\n",
                     quoting=csv.QUOTE_NONE)
    except csv.Error as exc:
        raise ValueError(f"a pool field holds a tab or a line break: {exc}") from None


def _column(pool: Any, name: str) -> Column:
    """One column as numpy (a DataFrame's) or as one Arrow array (a table's)."""
    if isinstance(pool, pa.Table):
        chunked = pool.column(name)
        return chunked.chunk(0) if chunked.num_chunks == 1 else pa.concat_arrays(chunked.chunks)
    return pool[name].to_numpy()


def _numbers(values: Column) -> np.ndarray | None:
    """A numeric column as numpy (None for text or other types)."""
    if isinstance(values, np.ndarray):
        return values if values.dtype.kind in "iufb" else None
    if pa.types.is_integer(values.type) or pa.types.is_floating(values.type):
        from pooljudge.kernels import numpy_of

        return numpy_of(values, fill=0) if values.null_count == 0 else None
    return None


def _valid_sample(stratum: Column, inclusion: Column, sampled: Column) -> bool:
    """Whether a sampled pool's columns hold values ``read_pool`` accepts."""
    stratum, pi, sampled = (_numbers(c) for c in (stratum, inclusion, sampled))
    if stratum is None or pi is None or sampled is None:
        return False
    pi = pi.astype(np.float64)
    return bool((stratum >= 1).all() and ((pi > 0) & (pi <= 1)).all()
                and np.isin(sampled, (0, 1)).all())


def _texts(names: list[str], columns: list[Column]) -> list[pa.Array] | None:
    """Every column as Arrow strings; None when pandas must write the file: a name or a text
    field holds a tab or a line break (pandas refuses it), a value is missing, or a column has
    another type."""
    if not all(_plain(name.encode("utf-8")) for name in names):
        return None
    texts = [_text(column) for column in columns]
    return None if any(text is None for text in texts) else texts


def _plain(raw: bytes) -> bool:
    return not any(special in raw for special in (b"\t", b"\n", b"\r"))


def _plain_strings(values: pa.Array) -> bool:
    """Whether no field of a string array holds a tab or a line break (one scan of its
    bytes)."""
    data = values.buffers()[2]
    if not len(values) or data is None:
        return True
    large = pa.types.is_large_string(values.type)
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int64 if large else np.int32,
                            count=len(values) + 1, offset=values.offset * (8 if large else 4))
    return _plain(memoryview(data)[int(offsets[0]):int(offsets[-1])].tobytes())


def _lines(texts: list[pa.Array]) -> str:
    """The rows of these columns as tab-separated lines, each ending in a line break."""
    lines = call_function("binary_join_element_wise",
                          [*(_large(text) for text in texts), _scalar("\t")])
    listed = pa.LargeListArray.from_arrays(int_array(np.array([0, len(lines)], dtype=np.int64)),
                                           lines)
    return call_function("binary_join", [listed, _scalar("\n")])[0].as_py() + "\n"


def _scalar(text: str) -> pa.Scalar:
    """A large_string scalar (``pa.scalar`` would import pandas)."""
    return _large(text_array([text]))[0]


def _large(values: pa.Array) -> pa.Array:
    """A string array as a large_string one (64-bit offsets: a file may pass 2 GB)."""
    return values if pa.types.is_large_string(values.type) else _cast(values, pa.large_string())


def _cast(values: pa.Array, to: pa.DataType) -> pa.Array:
    from pyarrow._compute import CastOptions

    return call_function("cast", [values], CastOptions(to))


def _text(values: Column) -> pa.Array | None:
    """A column's fields as an Arrow string array; None when pandas must write it."""
    numbers = _numbers(values)
    if numbers is not None:
        return _number_text(numbers)
    if isinstance(values, np.ndarray):  # a DataFrame's: pandas is loaded
        if values.dtype.kind != "O":
            return None
        try:
            values = pa.array(values, type=pa.string(), from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return None
    text = pa.types.is_string(values.type) or pa.types.is_large_string(values.type)
    return values if text and not values.null_count and _plain_strings(values) else None


def _number_text(values: np.ndarray) -> pa.Array:
    """Integers in decimal, booleans as True/False, floats as numpy's ``str`` (= repr)."""
    if values.dtype.kind == "b":
        return call_function("if_else", [_bool_array(values), _scalar("True"),
                                         _scalar("False")])
    if values.dtype.kind in "iu":
        return _cast(int_array(values), pa.string())
    if values.dtype != np.float64:
        return text_array(_float_strings(values).tolist())
    return _double_text(values)


def _double_text(values: np.ndarray) -> pa.Array:
    """float64 as repr: Arrow's shortest digits where they print alike (non-integral, 1e-4 <=
    |x| < 1e9); integral 0 < |x| < 1e16 as the integer and ``.0``; the rest by numpy."""
    size = np.abs(values)
    integral = (values == np.trunc(values)) & (size > 0) & (size < 1e16)
    plain = (size >= 1e-4) & (size < 1e9) & ~integral
    text = _cast(int_array(values), pa.string())  # int_array takes any numeric dtype
    if integral.any():
        whole = _cast(int_array(values[integral].astype(np.int64)), pa.string())
        whole = call_function("binary_join_element_wise",
                              [_large(whole), _scalar(".0"), _scalar("")])
        text = call_function("replace_with_mask", [_large(text), _bool_array(integral), whole])
    rest = ~(plain | integral)
    if rest.any():
        fixed = _large(text_array(_float_strings(values[rest]).tolist()))
        text = call_function("replace_with_mask", [_large(text), _bool_array(rest), fixed])
    return text


def _float_strings(values: np.ndarray) -> np.ndarray:
    """numpy's ``str`` of each float, missing values as empty strings (pandas' ``na_rep``)."""
    return np.where(np.isnan(values), "", values.astype(str))


def _bool_array(mask: np.ndarray) -> pa.Array:
    bits = np.packbits(mask.astype(bool), bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(mask), [None, pa.py_buffer(bits)])
