"""Latency per run from retrieval logs, and beside precision for ``pooljudge report``.

:func:`latency_table`: per run (``config@index_version``), the queries, retrievals, timed
retrievals (``latency_ms`` logged), and the mean, p50, p95 and p99 of their latency in
milliseconds, percentiles by linear interpolation between order statistics (numpy's default);
NaN when no retrieval of the run was timed. Every retrieval counts, repeats included: latency
is about traffic, not topics. ``logs import`` writes it as ``latency.tsv`` (read back by
:func:`pooljudge.formats.log_files.read_latency`); :func:`latency_beside` joins it to the runs'
mean scores and :func:`latency_section` is the report section that shows it.

Latency is measured per run (``config@index_version``), like the scores, so the join is on the
run name. A run that has scores but no latency row (or the reverse) keeps its row, with the
missing side empty (NaN), and is named in a warning: a regression in speed and one in quality
are read side by side, never silently dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from pooljudge.metrics.log_index import LogIndex

from pooljudge.formats.logs import Logs

if TYPE_CHECKING:
    from pooljudge.metrics.report_html import Section

__all__ = ["LATENCY_COLUMNS", "LATENCY_SHOWN", "latency_beside", "latency_section",
           "latency_table"]

LATENCY_COLUMNS = ["run", "queries", "retrievals", "timed", "mean_ms", "p50_ms", "p95_ms",
                   "p99_ms"]

LATENCY_SHOWN = ["p50_ms", "p95_ms", "p99_ms", "mean_ms", "timed"]


def latency_table(logs: Logs, index: LogIndex | None = None) -> pd.DataFrame:
    """Per run (sorted by name): queries, retrievals, timed, mean_ms, p50_ms, p95_ms, p99_ms."""
    index = index or LogIndex.of(logs)
    runs, topics = index.runs, index.topics
    latency = logs.retrievals["latency_ms"].to_numpy(dtype=np.float64)
    width = len(topics.values) + 1
    distinct = pd.unique(runs.codes.astype(np.int64) * width + topics.codes)
    queries = np.bincount(distinct // width, minlength=len(runs.values))
    order = np.argsort(runs.codes, kind="stable")
    bounds = np.searchsorted(runs.codes[order], np.arange(len(runs.values) + 1))
    rows = []
    for i, name in enumerate(runs.texts()):  # one iteration per run
        values = latency[order[bounds[i]:bounds[i + 1]]]
        timed = values[~np.isnan(values)]
        stats = np.percentile(timed, [50, 95, 99]) if len(timed) else [np.nan] * 3
        rows.append((name, int(queries[i]), len(values), len(timed),
                     float(timed.mean()) if len(timed) else np.nan, *map(float, stats)))
    return pd.DataFrame(rows, columns=LATENCY_COLUMNS)


def latency_beside(latency: pd.DataFrame, means: pd.DataFrame) -> tuple[pd.DataFrame,
                                                                         list[str]]:
    """One row per run: its mean score for each measure (``means``: tidy ``run, measure,
    value``, as ``pooljudge.metrics.evaluate.tidy(..., per_topic=False)`` gives) and its latency
    columns
    (:data:`LATENCY_SHOWN`); runs in the order of ``means``, then latency-only runs. A run
    named ``X.run`` (``logs import`` writes ``runs/config@version.run``, and a run is named by
    its file) matches the latency row ``X``. Returns the frame and warnings naming the runs
    found on one side only."""
    known = set(latency["run"])
    means = means.assign(run=[r[:-4] if r.endswith(".run") and r[:-4] in known
                              and r not in known else r for r in means["run"]])
    scores = means.pivot_table(index="run", columns="measure", values="value", sort=False)
    scores = scores.reindex(columns=pd.unique(means["measure"]))
    timing = latency.set_index("run")[LATENCY_SHOWN]
    order = list(pd.unique(means["run"])) + [r for r in timing.index if r not in set(
        means["run"])]
    table = scores.join(timing, how="outer").reindex(order)
    table["timed"] = table["timed"].astype("Int64")  # a count: 119, not 119.0000; NA unmatched
    table.index.name = "run"
    warnings = []
    untimed = [r for r in pd.unique(means["run"]) if r not in timing.index]
    if untimed:
        warnings.append(f"{len(untimed)} run(s) have no latency row (e.g. {untimed[0]})")
    unscored = [r for r in timing.index if r not in set(means["run"])]
    if unscored:
        warnings.append(f"{len(unscored)} latency row(s) name no evaluated run (e.g. "
                        f"{unscored[0]})")
    return table.reset_index(), warnings


def latency_section(latency: pd.DataFrame, means: pd.DataFrame) -> Section:
    """The report section "Latency and precision": :func:`latency_beside` as one table, its
    warnings in the note."""
    from pooljudge.metrics.report_html import Section

    table, warnings = latency_beside(latency, means)
    note = ("Retrieval latency per run from the production logs (milliseconds; p50, p95 and "
            "p99 by linear interpolation; 'timed': retrievals that logged a latency), beside "
            "the mean scores.")
    if warnings:
        note += " " + " ".join(f"Warning: {w}." for w in warnings)
    return Section(key="latency", title="Latency and precision", note=note,
                   tables={"latency per run": table.set_index("run")})
