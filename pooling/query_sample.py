"""Which logged queries to label: a stratified random sample of distinct queries.

``n`` queries are split over the strata (a category, a language, a tenant):

- ``proportional``: stratum h gets ``n · N_h / N`` (N_h: its queries, N: all);
- ``equal``: each of the H strata gets ``n / H``, except that a stratum with fewer queries than
  its share gives all of them and the rest is split again over the others (the bounded-share
  rule of :func:`pooljudge.pooling.sampling_draws.bounded_shares`), each such stratum named in a
  warning.

Shares are rounded to integers by largest remainder (ties to the earlier stratum), so the
counts add up to exactly ``n``; within each stratum the queries are a simple random sample
without replacement (:func:`pooljudge.pooling.sampling_draws.draw_srs`). Queries are taken in id
order
before drawing, so a seed gives the same sample whatever the order of the log lines. Queries
without a value for the stratifying field form their own stratum, ``(none)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pooljudge.pooling.sampling_draws import bounded_shares, draw_srs, largest_remainder

from pooljudge.errors import UsageError

__all__ = ["ALLOCATIONS", "MISSING_STRATUM", "sample_queries"]

ALLOCATIONS = {"proportional": "each stratum in proportion to its queries",
               "equal": "the same number from each stratum (a small one gives all it has)"}
MISSING_STRATUM = "(none)"
ALLOCATION_COLUMNS = ["stratum", "queries", "share", "sampled"]


def sample_queries(queries: pd.DataFrame, n: int, *, allocation: str = "proportional",
                   seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Draw ``n`` distinct queries from ``queries`` (columns ``query_id``, one row per query,
    and ``stratum``, NA for none).

    Returns the sample (``query_id, stratum``, by stratum in order of first appearance among
    the sorted ids, then by id), the allocation (``stratum, queries, share, sampled``; share:
    the real-valued share before rounding) and warnings. UsageError when ``n`` exceeds the
    number of queries or the allocation is unknown.
    """
    if allocation not in ALLOCATIONS:
        raise UsageError(f"--allocation: expected one of {', '.join(ALLOCATIONS)}, "
                         f"got {allocation!r}")
    if queries["query_id"].duplicated().any():
        raise ValueError("sample_queries needs one row per query")
    total = len(queries)
    if n > total:
        raise UsageError(f"--n: {n} queries asked for, but the logs hold only {total}")
    ordered = queries.sort_values("query_id", kind="stable", ignore_index=True)
    stratum = ordered["stratum"].astype(object).where(ordered["stratum"].notna(),
                                                      MISSING_STRATUM)
    codes, names = pd.factorize(stratum)
    sizes = np.bincount(codes, minlength=len(names)).astype(np.float64)
    weights = sizes if allocation == "proportional" else np.ones(len(names))
    group = np.zeros(len(names), dtype=np.int64)
    shares = bounded_shares(weights, group, np.array([float(n)]), np.zeros(len(names)), sizes)
    counts = largest_remainder(shares, group, np.array([n]))
    taken = draw_srs(codes, counts, np.random.default_rng(seed))
    warnings = [f"stratum {name!r} has {int(size)} queries, fewer than its share of "
                f"{n / len(names):.4g}: all are taken, the rest goes to the other strata"
                for name, size in zip(names, sizes, strict=True)
                if allocation == "equal" and size < n / len(names)]
    sample = pd.DataFrame({"query_id": ordered["query_id"].to_numpy()[taken],
                           "stratum": np.asarray(names, dtype=object)[codes[taken]],
                           "_code": codes[taken]})
    sample = sample.sort_values(["_code", "query_id"], kind="stable", ignore_index=True)
    table = pd.DataFrame({"stratum": np.asarray(names, dtype=object),
                          "queries": sizes.astype(np.int64), "share": shares,
                          "sampled": counts})
    return sample[["query_id", "stratum"]], table[ALLOCATION_COLUMNS], warnings
