"""The codes every conversion of a retrieval log starts from, computed once (:class:`LogIndex`:
each retrieval's run and topic as integer :class:`Codes`), each retrieval's run name
(:func:`run_names`), and the Arrow string-column helpers the conversions share.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from pooljudge.formats.logs import Logs
from pooljudge.kernels import string_hashes

__all__ = [
    "DEFAULT_CONFIG",
    "Codes",
    "LogIndex",
    "arrow_strings",
    "chunk_hashes",
    "run_names",
    "string_column",
    "strings_at",
]

DEFAULT_CONFIG = "default"


def run_names(retrievals: pd.DataFrame) -> pd.Series:
    """Each retrieval's run name: ``config@index_version``, ``config`` without an index
    version, ``default`` without a config."""
    return pd.Series(pd.arrays.ArrowExtensionArray(_run_names(retrievals)), copy=False,
                     index=retrievals.index)


def _run_names(retrievals: pd.DataFrame) -> pa.ChunkedArray:
    import pyarrow.compute as pc

    config = arrow_strings(retrievals["config"]).fill_null(DEFAULT_CONFIG)
    version = arrow_strings(retrievals["index_version"])
    return pc.binary_join_element_wise(config, version, "@", null_handling="skip")


@dataclass(frozen=True)
class Codes:
    """Integer codes of a string column: ``codes[i]`` indexes ``values`` (an Arrow array, in
    order of first appearance, or sorted); -1 for a missing value."""

    codes: np.ndarray
    values: pa.Array

    @classmethod
    def of(cls, column: pa.ChunkedArray, *, sort: bool = False) -> Codes:
        encoded = column.combine_chunks().dictionary_encode()
        codes = encoded.indices.fill_null(-1).to_numpy().astype(np.int32, copy=False)
        values = encoded.dictionary
        if sort and len(values):
            import pyarrow.compute as pc

            order = pc.sort_indices(values).to_numpy()
            rank = np.empty(len(order), dtype=np.int32)
            rank[order] = np.arange(len(order), dtype=np.int32)
            codes = np.where(codes < 0, codes, rank[np.maximum(codes, 0)])
            values = values.take(pa.array(order))
        return cls(codes, values)

    def texts(self) -> np.ndarray:
        """The values as a numpy array of Python strings."""
        return self.values.to_numpy(zero_copy_only=False)


@dataclass(frozen=True)
class LogIndex:
    """The codes every conversion starts from, computed once: each retrieval's run (names
    sorted) and topic (query ids sorted)."""

    runs: Codes
    topics: Codes

    @classmethod
    def of(cls, logs: Logs) -> LogIndex:
        return cls(Codes.of(_run_names(logs.retrievals), sort=True),
                   Codes.of(arrow_strings(logs.retrievals["query_id"]), sort=True))


def strings_at(values: pa.ChunkedArray, rows: np.ndarray) -> np.ndarray:
    """``values[rows]`` as a numpy array of Python strings (for a few rows)."""
    return values.take(pa.array(rows)).to_numpy()


def arrow_strings(column: pd.Series) -> pa.ChunkedArray:
    """A string column as Arrow chunks, without a copy when it is held in Arrow."""
    values = pa.array(column.array)
    return values if isinstance(values, pa.ChunkedArray) else pa.chunked_array([values])


def chunk_hashes(values: pa.ChunkedArray) -> np.ndarray:
    """:func:`string_hashes` chunk by chunk (no concatenation of the strings)."""
    if not values.num_chunks:
        return np.zeros(0, dtype=np.uint64)
    return np.concatenate([string_hashes(chunk) for chunk in values.chunks])


def string_column(values: pa.Array | pa.ChunkedArray) -> pd.Series:
    """An Arrow string array as a ``string[pyarrow]`` column, without a copy."""
    return pd.Series(pd.arrays.ArrowExtensionArray(values), copy=False)
