"""Numeric Arrow arrays to numpy and back without copies, and without importing pandas.

``Array.to_numpy``, ``fill_null`` and ``pa.array`` would do, but each imports pandas (half a
second) on first use, which the ``eval`` path never needs.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["int_array", "numpy_of"]


def numpy_of(values: pa.Array | pa.ChunkedArray, *, fill: int | None = None) -> np.ndarray:
    """A numeric Arrow array as numpy (read-only, no copy for one chunk without nulls); nulls
    become ``fill``.

    ``Array.to_numpy`` and ``fill_null`` would do, but they import pandas (half a second) on
    first use. Raises TypeError for other types, ValueError for nulls without ``fill``.
    """
    if isinstance(values, pa.ChunkedArray):
        parts = [numpy_of(chunk, fill=fill) for chunk in values.chunks]
        return parts[0] if len(parts) == 1 else np.concatenate(parts or [np.zeros(0)])
    kind = ("f" if pa.types.is_floating(values.type) else
            "i" if pa.types.is_signed_integer(values.type) else
            "u" if pa.types.is_unsigned_integer(values.type) else None)
    if kind is None:
        raise TypeError(f"not a numeric array: {values.type}")
    dtype = np.dtype(f"{kind}{values.type.bit_width // 8}")
    data = np.frombuffer(values.buffers()[1], dtype=dtype, count=len(values),
                         offset=values.offset * dtype.itemsize)
    if not values.null_count:
        return data
    if fill is None:
        raise ValueError("array has nulls")
    bits = np.unpackbits(np.frombuffer(values.buffers()[0], dtype=np.uint8), bitorder="little")
    valid = bits[values.offset:values.offset + len(values)].astype(bool)
    return np.where(valid, data, fill)


def int_array(values: np.ndarray) -> pa.Array:
    """A numpy integer array as an Arrow array without a copy.

    ``pa.array`` would do, but it imports pandas (half a second) to check for pandas inputs.
    """
    values = np.ascontiguousarray(values)
    arrow_type = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(arrow_type, len(values), [None, pa.py_buffer(values)])
