"""Arrow and numpy kernels that read no file: the fast paths under the readers of
:mod:`pooljudge.formats` and the joins of ``metrics`` and ``pooling``. Their own floor, between
the ground and the formats (docs/architecture.md): they import nothing of pooljudge's.

The private modules behind this face are imported only here (an import contract holds that):

- ``decode``, ``dictionary_encode``, ``index_in``, ``sort_indices``, ``take``, ``unique``,
  ``equal``, ``not_equal``, ``all_true``, ``indices_nonzero``, ``call_function``: Arrow kernels
  called without importing ``pyarrow.compute`` (``_arrow``);
- ``numpy_of``, ``int_array``: Arrow ↔ numpy without copies and without pandas
  (``_arrow_numpy``);
- ``pair_keys``, ``string_hashes``, ``all_same_strings``, ``surely_no_repeat``,
  ``first_repeat``: 64-bit keys of string ids and the repeated-pair check (``_keys``);
- ``segment_order``: rows sorted by (topic, 32-bit key), each topic's rows sorted alone
  (``_sort``).

:mod:`pooljudge.kernels.ranking` (trec_eval's order) is public on its own.
"""
from __future__ import annotations

from pooljudge.kernels._arrow import (
    all_true,
    call_function,
    decode,
    dictionary_encode,
    equal,
    index_in,
    indices_nonzero,
    not_equal,
    sort_indices,
    take,
    unique,
)
from pooljudge.kernels._arrow_numpy import int_array, numpy_of
from pooljudge.kernels._keys import (
    all_same_strings,
    first_repeat,
    pair_keys,
    string_hashes,
    surely_no_repeat,
)
from pooljudge.kernels._sort import segment_order

__all__ = [
    "all_same_strings",
    "all_true",
    "call_function",
    "decode",
    "dictionary_encode",
    "equal",
    "first_repeat",
    "index_in",
    "indices_nonzero",
    "int_array",
    "not_equal",
    "numpy_of",
    "pair_keys",
    "segment_order",
    "sort_indices",
    "string_hashes",
    "surely_no_repeat",
    "take",
    "unique",
]
