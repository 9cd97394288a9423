"""``correlate``'s meta-evaluation with uncertainty: tau-b, tau_AP, tau_AP-b, tau_GAP and top-k
tau between the two judgment sets' run means, each with a bootstrap-over-topics percentile
interval (:mod:`pooljudge.metrics.meta_eval`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pooljudge.cli.options import nonnegative_int, positive_int, seed
from pooljudge.cli.output import warn

if TYPE_CHECKING:
    import pandas as pd

    from pooljudge.metrics.results import RunResult

MAX_REPLICATES = 100_000


def add_interval_options(parser: argparse.ArgumentParser) -> None:
    """``--bootstrap N`` (0: no intervals), ``--seed S`` and ``--top-k K``."""
    parser.add_argument("--bootstrap", type=nonnegative_int(MAX_REPLICATES), default=1000,
                        metavar="N", help="bootstrap replicates over the topics for the 95%% "
                                          "intervals (default 1000; 0: none)")
    parser.add_argument("--seed", type=seed, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("--top-k", type=positive_int(), default=10, metavar="K",
                        help="top_k_tau: Kendall's tau-b over the K runs best under A "
                             "(default 10)")


def with_intervals(summary: pd.DataFrame, results_a: Sequence[RunResult],
                   results_b: Sequence[RunResult], args: argparse.Namespace) -> pd.DataFrame:
    """``summary`` with, per measure, ``tau_ap_b``, ``tau_gap``, ``top_k_tau`` and every
    coefficient's ``*_low``/``*_high`` (over the topics both judgment sets evaluate; runs in
    name order, which breaks ties in B's ordering). The point values are those of the means
    over those topics (kendall_tau and tau_ap stay those of the full means)."""
    import pandas as pd

    from pooljudge.metrics.meta_eval import bootstrap

    runs = sorted(r.name for r in results_a)
    common = sorted(set(results_a[0].topics) & set(results_b[0].topics)) if runs else []
    if runs and len(common) < max(len(results_a[0].topics), len(results_b[0].topics)):
        warn("correlate", f"intervals resample the {len(common)} topics both judgment sets "
                          "evaluate")
    extra = []
    for measure in summary["measure"]:
        matrices = [per_topic_matrix(results, measure, runs, common)
                    for results in (results_a, results_b)]
        row = {}
        if len(runs) >= 2 and common:
            found = bootstrap(*matrices, replicates=max(args.bootstrap, 1), seed=args.seed,
                              top_k=args.top_k)
            for name, (value, low, high) in found.items():
                if name not in ("kendall_tau", "tau_ap"):
                    row[name] = value
                if args.bootstrap:
                    row[f"{name}_low"], row[f"{name}_high"] = low, high
        extra.append(row)
    added = pd.DataFrame(extra, index=summary.index).reindex(columns=_columns(args.bootstrap))
    return pd.concat([summary, added.astype(float)], axis=1)


def _columns(replicates: int) -> list[str]:
    names = ["kendall_tau", "tau_ap", "tau_ap_b", "tau_gap", "top_k_tau"]
    points = names[2:]
    if not replicates:
        return points
    return [*points, *(f"{n}_{side}" for n in names for side in ("low", "high"))]


def per_topic_matrix(results: Sequence[RunResult], measure: str, runs: list[str],
                     topics: list[str]):
    """Per-topic values, shape (topics, runs)."""
    import numpy as np

    by_name = {r.name: r for r in results}
    columns = []
    for run in runs:
        result = by_name[run]
        values = next(v for m, v in result.values.items() if str(m) == measure)
        where = {t: i for i, t in enumerate(result.topics)}
        columns.append(values[[where[t] for t in topics]])
    return np.column_stack(columns) if columns else np.empty((len(topics), 0))
