"""The public face of the columnar readers (``_columns``, ``_run_blocks``), for the packages
that join and rank millions of rows: ``metrics`` (the run–qrels join, streamed evaluation),
``pooling`` and ``trec_eval``'s command.

Nothing outside :mod:`pooljudge.formats` imports an underscore module; an import contract in the
test suite holds that. What is re-exported here:

- ``RunColumns``, ``QrelsColumns``: checked Arrow/numpy columns of a run and of qrels;
- ``encode_run``, ``parse_run``: the run reader's two halves (bytes → table → columns);
- ``RunBlocks``, ``NotStreamable``, ``BLOCK_BYTES``: a run read whole topic block by block.

The kernels under them (keys, sorts, Arrow ↔ numpy) are :mod:`pooljudge.kernels`.
"""
from __future__ import annotations

from pooljudge.formats._columns import QrelsColumns, RunColumns, encode_run, parse_run
from pooljudge.formats._run_blocks import BLOCK_BYTES, NotStreamable, RunBlocks

__all__ = [
    "BLOCK_BYTES",
    "NotStreamable",
    "QrelsColumns",
    "RunBlocks",
    "RunColumns",
    "encode_run",
    "parse_run",
]
