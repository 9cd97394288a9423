"""The public face of the columnar fast paths (``_columns``, ``_keys``, ``_arrow``,
``_arrow_numpy``, ``_run_blocks``, ``_sort``), for the packages that join and rank millions of rows:
``metrics`` (the run–qrels join, streamed evaluation), ``pooling`` and ``trec_eval``'s command.

Nothing outside :mod:`pooljudge.formats` imports an underscore module; an import contract in the
test suite holds that. What is re-exported here:

- ``RunColumns``, ``QrelsColumns``: checked Arrow/numpy columns of a run and of qrels;
- ``encode_run``, ``parse_run``: the run reader's two halves (bytes → table → columns);
- ``RunBlocks``, ``NotStreamable``, ``BLOCK_BYTES``: a run read whole topic block by block;
- ``pair_keys``, ``string_hashes``, ``all_same_strings``: 64-bit keys of string ids;
- ``segment_order``: rows sorted by (topic, 32-bit key), each topic's rows sorted alone;
- ``numpy_of``, ``int_array``: Arrow ↔ numpy without copies and without pandas;
- ``decode``, ``dictionary_encode``, ``index_in``, ``sort_indices``, ``take``, ``unique``: Arrow
  kernels called without importing ``pyarrow.compute``.
"""
from __future__ import annotations

from pooljudge.formats._arrow import (
    decode,
    dictionary_encode,
    index_in,
    sort_indices,
    take,
    unique,
)
from pooljudge.formats._arrow_numpy import int_array, numpy_of
from pooljudge.formats._columns import QrelsColumns, RunColumns, encode_run, parse_run
from pooljudge.formats._keys import all_same_strings, pair_keys, string_hashes
from pooljudge.formats._run_blocks import BLOCK_BYTES, NotStreamable, RunBlocks
from pooljudge.formats._sort import segment_order

__all__ = [
    "BLOCK_BYTES",
    "NotStreamable",
    "QrelsColumns",
    "RunBlocks",
    "RunColumns",
    "all_same_strings",
    "decode",
    "dictionary_encode",
    "encode_run",
    "index_in",
    "int_array",
    "numpy_of",
    "pair_keys",
    "parse_run",
    "segment_order",
    "sort_indices",
    "string_hashes",
    "take",
    "unique",
]
