"""Pool statistics: size per topic, each run's contribution, run-to-run overlap.

All counts are of pooled (topic, document) pairs and are computed from the pool's entries (each
run's top k, after any exclusion or budget cut applied to the pool).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pooljudge.pooling.pool import Pool

__all__ = ["run_contributions", "run_overlap", "topic_sizes"]

_CHUNK = 1 << 17


def topic_sizes(pool: Pool) -> pd.DataFrame:
    """Columns ``topic, pooled``: pooled documents per topic, topics in canonical order."""
    sizes = pool.topic_sizes()
    return pd.DataFrame({"topic": sizes.index.to_numpy(dtype=object),
                         "pooled": sizes.to_numpy().astype(np.int64)})


def run_contributions(pool: Pool) -> pd.DataFrame:
    """Columns ``run, contributed, unique`` (one row per run, sorted by name).

    ``contributed``: pooled pairs in the run's top k; ``unique``: those no other run retrieved.
    """
    runs = pool.entries["run"].to_numpy()
    alone = pool.pairs["n_runs"].to_numpy()[pool.entries["pair"].to_numpy()] == 1
    size = len(pool.run_names)
    return pd.DataFrame(
        {
            "run": list(pool.run_names),
            "contributed": np.bincount(runs, minlength=size).astype(np.int64),
            "unique": np.bincount(runs[alone], minlength=size).astype(np.int64),
        }
    )


def run_overlap(pool: Pool) -> pd.DataFrame:
    """Square frame (runs x runs): pooled pairs both runs retrieved; the diagonal is
    ``contributed``. Computed as ``X^T X`` over a pairs x runs indicator, in chunks of pairs.
    """
    size = len(pool.run_names)
    counts = np.zeros((size, size), dtype=np.int64)
    pair = pool.entries["pair"].to_numpy()
    run = pool.entries["run"].to_numpy()
    for begin in range(0, len(pool.pairs), _CHUNK):
        inside = (pair >= begin) & (pair < begin + _CHUNK)
        block = np.zeros((min(_CHUNK, len(pool.pairs) - begin), size), dtype=np.float32)
        block[pair[inside] - begin, run[inside]] = 1.0
        counts += np.rint(block.T @ block).astype(np.int64)
    names = list(pool.run_names)
    return pd.DataFrame(counts, index=pd.Index(names, name="run"), columns=names)
