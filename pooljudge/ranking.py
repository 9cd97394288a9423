"""The ranking order every module shares (trec_eval's): score descending, ties by doc descending.

Document ids compare in byte order of their UTF-8 encoding, which for valid UTF-8 is the code point
order Python and Arrow use. The rank column of a run file is ignored.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["rank_order", "rank_run"]


def rank_order(topics: pd.Series, docs: pd.Series, scores: pd.Series | np.ndarray) -> np.ndarray:
    """Row positions sorted by topic (ascending), score (descending), doc (descending)."""
    topic_codes, _ = pd.factorize(topics, sort=True)
    doc_codes, _ = pd.factorize(docs, sort=True)
    score_values = np.asarray(scores, dtype=np.float64)
    # lexsort sorts by the last key first; negate to get descending score and doc order.
    return np.lexsort((-doc_codes, -score_values, topic_codes))


def rank_run(run: pd.DataFrame) -> pd.DataFrame:
    """The run sorted into ranking order with a 1-based ``rank`` column within each topic."""
    order = rank_order(run["topic"], run["doc"], run["score"])
    ranked = run.iloc[order].reset_index(drop=True)
    ranked["rank"] = ranked.groupby("topic", sort=False).cumcount().to_numpy() + 1
    return ranked
