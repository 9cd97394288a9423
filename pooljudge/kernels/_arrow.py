"""The Arrow compute kernels pooljudge's readers and joins use, without ``pyarrow.compute``.

Importing ``pyarrow.compute`` builds a Python wrapper, with its docstring, for each of some 300
kernels: 70 ms, a tenth of ``pooljudge eval`` on a small run. The functions here call the same
kernels with the same default options through ``call_function`` (which ``pyarrow.compute``
re-exports from the compiled module it is built on). Array methods such as ``Array.take`` and
``DictionaryArray.dictionary_decode`` import ``pyarrow.compute`` on first use: use :func:`take`
and :func:`decode` instead.
"""

from __future__ import annotations

import pyarrow as pa

try:
    from pyarrow._compute import SetLookupOptions, SortOptions, call_function
except ImportError:  # pragma: no cover - only if pyarrow renames its compiled module
    from pyarrow.compute import SetLookupOptions, SortOptions, call_function

__all__ = [
    "all_true", "decode", "dictionary_encode", "equal", "index_in", "indices_nonzero", "not_equal",
    "sort_indices", "take", "unique",
]


def take(values: pa.Array, indices: pa.Array) -> pa.Array:
    """``values[indices]`` (``pyarrow.compute.take``, bounds checked)."""
    return call_function("take", [values, indices])


def decode(values: pa.Array) -> pa.Array:
    """A dictionary-encoded array as a plain one (other arrays as they are)."""
    if isinstance(values, pa.DictionaryArray):
        return take(values.dictionary, values.indices)
    return values


def dictionary_encode(values: pa.Array) -> pa.DictionaryArray:
    return call_function("dictionary_encode", [values])


def index_in(values: pa.Array, value_set: pa.Array) -> pa.Array:
    """Per value, its position in ``value_set``; null when absent."""
    return call_function("index_in", [values], SetLookupOptions(value_set))


def sort_indices(values: pa.Array | pa.Table,
                 sort_keys: list[tuple[str, str]] | None = None) -> pa.Array:
    """The positions that sort ``values`` (ascending), or a table by ``sort_keys``."""
    return call_function("sort_indices", [values],
                         None if sort_keys is None else SortOptions(sort_keys))


def equal(left: pa.Array, right: pa.Array | pa.Scalar) -> pa.Array:
    return call_function("equal", [left, right])


def not_equal(left: pa.Array, right: pa.Array | pa.Scalar) -> pa.Array:
    return call_function("not_equal", [left, right])


def all_true(values: pa.Array) -> bool:
    """Whether every value is true (nulls skipped; true for no values)."""
    return len(values) == 0 or bool(call_function("all", [values]).as_py())


def indices_nonzero(values: pa.Array) -> pa.Array:
    return call_function("indices_nonzero", [values])


def unique(values: pa.Array) -> pa.Array:
    return call_function("unique", [values])
