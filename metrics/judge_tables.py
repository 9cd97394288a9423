"""Several judges against one reference (people), as tidy tables (``pooljudge correlate
--judge``).

Inputs are per-topic score matrices ``(topics, systems)`` over the same topics and systems (run
order fixed by the caller), one for the reference and one per judge, for one measure.

- :func:`correlation_table`: one row per judge and coefficient of
  :data:`pooljudge.metrics.meta_eval.COEFFICIENTS`: ``value`` (on the topic means) and the
  bootstrap-over-topics percentile interval ``low``, ``high`` (:func:`~.meta_eval.bootstrap`).
- :func:`paired_table`: one row per pair of judges (in the given order) and coefficient:
  ``value_a``, ``value_b``, ``difference`` = a − b, its paired-bootstrap interval and the
  paired-randomisation p-value of H0 "the two judges agree with the reference equally"
  (:func:`~.meta_eval.paired_judges`).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

import numpy as np
import pandas as pd
from pooljudge.metrics.meta_eval import bootstrap, paired_judges

__all__ = ["CORRELATION_COLUMNS", "PAIRED_COLUMNS", "correlation_table", "paired_table"]

CORRELATION_COLUMNS = ["judge", "measure", "coefficient", "value", "low", "high"]
PAIRED_COLUMNS = ["measure", "coefficient", "judge_a", "judge_b", "value_a", "value_b",
                  "difference", "low", "high", "p"]


def correlation_table(reference: np.ndarray, judges: Mapping[str, np.ndarray], *, measure: str,
                      replicates: int = 1000, seed: int = 0, top_k: int = 10,
                      alpha: float = 0.05) -> pd.DataFrame:
    """Rows judge × coefficient (columns :data:`CORRELATION_COLUMNS`)."""
    rows = []
    for judge, matrix in judges.items():
        found = bootstrap(reference, matrix, replicates=replicates, seed=seed, alpha=alpha,
                          top_k=top_k)
        rows += [(judge, measure, name, *values) for name, values in found.items()]
    return pd.DataFrame(rows, columns=CORRELATION_COLUMNS)


def paired_table(reference: np.ndarray, judges: Mapping[str, np.ndarray], *, measure: str,
                 replicates: int = 1000, seed: int = 0, top_k: int = 10,
                 alpha: float = 0.05) -> pd.DataFrame:
    """Rows (pair of judges) × coefficient (columns :data:`PAIRED_COLUMNS`)."""
    rows = []
    for (name_a, a), (name_b, b) in combinations(judges.items(), 2):
        found = paired_judges(reference, a, b, replicates=replicates, seed=seed, alpha=alpha,
                              top_k=top_k)
        rows += [(measure, name, name_a, name_b, *values) for name, values in found.items()]
    return pd.DataFrame(rows, columns=PAIRED_COLUMNS)
