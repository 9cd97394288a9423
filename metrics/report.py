"""The evaluation report: per-run means with unjudged rates, condensed (judged-only) variants,
RBP intervals, the pool-bias table, precision–recall curves, per-topic scores and warnings.
The means table also counts what each run returned (NumRet, short@k:
:mod:`pooljudge.metrics.returned`);
with a unit map, :func:`with_levels` adds chunk- and document-level means side by side.

:func:`collect` computes everything from qrels and runs into a :class:`ReportData`;
:func:`sections` turns it into small DataFrames and matplotlib figures (the app's evaluation page
renders the same views); :func:`render_report` makes one self-contained HTML page of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from pooljudge.metrics.bias import leave_out
from pooljudge.metrics.compat import DEFAULT_COMPAT, Compat, check_compat
from pooljudge.metrics.eval_inputs import load_qrels, parse_all
from pooljudge.metrics.evaluate import score, tidy
from pooljudge.metrics.registry import Measure, make, parse
from pooljudge.metrics.report_html import Section, render_page
from pooljudge.metrics.residual import unreached
from pooljudge.metrics.results import RunResult
from pooljudge.metrics.returned import count_names, cutoffs, num_ret, short_warning, with_counts
from pooljudge.metrics.units import LEVEL_NAMES
from pooljudge.pooling.pool import topic_order

from pooljudge.formats.trec import RunColumns, run_columns
from pooljudge.ground.defaults import DEFAULT_MEASURES

__all__ = [
    "RECALL_LEVELS",
    "REPORT_MEASURES",
    "ReportData",
    "bias_view",
    "bias_warnings",
    "collect",
    "levels_table",
    "literal_label",
    "means_table",
    "per_topic_table",
    "pr_figure",
    "pr_table",
    "rbp_table",
    "render_report",
    "report_warnings",
    "sections",
    "summarise",
    "with_levels",
]

RECALL_LEVELS = tuple(round(0.1 * i, 1) for i in range(11))
REPORT_MEASURES: tuple[str, ...] = DEFAULT_MEASURES  # eval's; Judged@10 becomes coverage
JUDGED = "Judged@10"
MIN_TOPICS = 25
UNJUDGED_WARNING = 0.9  # warn when less than this share of a run's top 10 is judged
BIAS_WARNING = 0.05  # warn when a run loses more than this share of its score when left out


@dataclass(frozen=True)
class ReportData:
    """Everything a report shows, as tidy ``run, topic, measure, value`` frames.

    ``per_topic`` holds the headline measures, the unjudged rate, RBP and its residual and the
    interpolated precisions (names in ``iprec``); ``condensed`` the headline measures on
    judged-only rankings; ``bias`` the leave-one-run-out table (or None when not computed).
    ``counts`` names the count rows of ``per_topic`` (NumRet, short@k); ``levels`` is the
    side-by-side table of :func:`levels_table` (None without a unit map).
    """

    title: str
    measures: tuple[str, ...]
    judged: str
    rbp: str
    residual: str
    iprec: tuple[str, ...]
    per_topic: pd.DataFrame
    condensed: pd.DataFrame
    bias: pd.DataFrame | None = None
    meta: tuple[str, ...] = ()
    warnings: tuple[str, ...] = field(default_factory=tuple)
    counts: tuple[str, ...] = ()
    levels: pd.DataFrame | None = None


def summarise(tidy: pd.DataFrame) -> pd.DataFrame:
    """Run × measure summaries: the ``all`` rows (means, sums for counts, GMAP's geometric
    mean); where one is missing or NaN, the mean over the topics that have a value (NaN is a
    measure's "no value", as RecallDepth's for a topic that never reaches the recall)."""
    runs = list(pd.unique(tidy["run"]))
    measures = list(pd.unique(tidy["measure"]))
    rows = tidy[tidy["topic"] != "all"]
    means = rows.groupby(["run", "measure"], sort=False)["value"].mean().unstack()
    summary = tidy[tidy["topic"] == "all"].pivot(index="run", columns="measure", values="value")
    table = summary.reindex(index=runs, columns=measures)
    return table.fillna(means.reindex(index=runs, columns=measures))


def collect(
    qrels: pd.DataFrame,
    runs: Mapping[str, pd.DataFrame | RunColumns],
    measures: Sequence[str] = REPORT_MEASURES,
    *,
    pool_depth: int | None = None,
    rbp_p: float = 0.8,
    title: str = "Evaluation report",
    meta: Sequence[str] = (),
    compat: Compat = DEFAULT_COMPAT,
) -> ReportData:
    """Score every run once per view and gather the warnings a reader must see.

    ``qrels``: ``topic, doc, label``; ``runs``: name -> a frame (``topic, doc, score``) or
    RunColumns. ``pool_depth`` adds the leave-one-run-out table over depth-K pools. ``compat``
    ("10" or "9") is the trec_eval release reproduced (:mod:`pooljudge.metrics.compat`). Raises
    InputError for an unknown measure, a bad ``compat`` or bad input.
    """
    compat = check_compat(compat)
    headline = [m for m in parse_all(measures) if str(m) != JUDGED]
    extra = parse_all([JUDGED, str(make("RBP", p=rbp_p)), str(make("RBPResidual", p=rbp_p)),
                       *(f"IPrec@{level}" for level in RECALL_LEVELS)])
    encoded = {name: run_columns(run, name=name) if isinstance(run, pd.DataFrame) else run
               for name, run in runs.items()}
    prepared = load_qrels(qrels)
    counted = num_ret([*headline, *extra])[len(headline) + len(extra):]
    full = [with_counts(score(prepared, n, r, [*headline, *extra, *counted], compat=compat),
                        cutoffs(headline))
            for n, r in encoded.items()]
    condensed = [score(prepared, n, r, headline, judged_only=True, compat=compat)
                 for n, r in encoded.items()]
    bias = None
    if pool_depth is not None:
        bias = leave_out(qrels, encoded, pool_depth, [str(m) for m in headline], compat=compat)
    per_topic = tidy(full, per_topic=True)
    return ReportData(
        title=title, measures=tuple(str(m) for m in headline), judged=JUDGED,
        rbp=str(extra[1]), residual=str(extra[2]), iprec=tuple(str(m) for m in extra[3:]),
        per_topic=per_topic, condensed=tidy(condensed, per_topic=True), bias=bias,
        meta=(*meta, f"{prepared.n_topics} topics, {len(encoded)} runs"
                     + (f", pool depth {pool_depth}" if pool_depth else "")),
        warnings=tuple(report_warnings(full, per_topic, bias, JUDGED, headline=headline,
                                       pool_depth=pool_depth)),
        counts=tuple(count_names(headline)),
    )


def report_warnings(results: Sequence[RunResult], per_topic: pd.DataFrame,
                    bias: pd.DataFrame | None, judged: str, *,
                    headline: Sequence[Measure] = (), pool_depth: int | None = None
                    ) -> list[str]:
    """Plain-language warnings: few topics, skipped or extra topics, topics where a run
    returned fewer than k documents (k the largest cutoff of ``headline``, as ``eval`` says),
    unjudged tops, recall never reached, and runs the pool favours (:func:`bias_warnings`)."""
    warnings = []
    n_topics = len(results[0].topics) if results else 0
    if n_topics < MIN_TOPICS:
        warnings.append(f"only {n_topics} topics: fewer than {MIN_TOPICS} are too few to rank "
                        "systems reliably")
    for result in results:
        if result.run_only_topics:
            warnings.append(f"{result.name}: {result.run_only_topics} topic(s) not in the qrels "
                            "were ignored")
        skipped = int((result.returned == 0).sum())
        if skipped:
            warnings.append(f"{result.name}: returned nothing for {skipped} qrels topic(s), "
                            "which score 0")
        short = short_warning(result, headline)
        if short:
            warnings.append(short)
    coverage = summarise(per_topic)[judged]
    for run, share in coverage.items():
        if share < UNJUDGED_WARNING:
            warnings.append(f"{run}: only {share:.0%} of the top 10 is judged; its scores are "
                            "lower bounds (see the condensed columns and RBP intervals)")
    for (run, measure), count in unreached(per_topic).items():
        warnings.append(f"{run}: {count} topic(s) never reach the recall of {measure}; they "
                        "are left out of its mean")
    if bias is not None:
        warnings += bias_warnings(bias, summarise(per_topic), pool_depth)
    return warnings


def bias_warnings(bias: pd.DataFrame, means: pd.DataFrame, pool_depth: int | None
                  ) -> list[str]:
    """One line per run and measure losing more than :data:`BIAS_WARNING` of its value
    without its own pool contribution. Both numbers are the bias table's: computed on the
    qrels restricted to the depth-``pool_depth`` pool (with / without the run's unique
    documents), so the line says so and gives the means table's value (every qrel) beside
    them, which generally differs."""
    depth = f"depth-{pool_depth} pool" if pool_depth else "pool"
    drops = bias[bias["difference"] < -BIAS_WARNING * bias["with_run"].abs()]
    lines = []
    for row in drops.itertuples(index=False):
        table = means[row.measure].get(row.run) if row.measure in means else None
        full = "" if table is None else f"; on all the qrels (means table) {table:.4f}"
        lines.append(f"{row.run}: {row.measure} on the qrels restricted to the {depth} falls "
                     f"from {row.with_run:.4f} to {row.without_run:.4f} without its own pool "
                     f"contribution{full}")
    return lines


def means_table(data: ReportData) -> pd.DataFrame:
    """Per run: the headline means, the counts (NumRet, short@k, as integers), the unjudged
    share of the top 10, the condensed means."""
    full = summarise(data.per_topic)
    table = full[list(data.measures)].copy()
    for count in data.counts:
        table[count] = full[count].round().astype("int64")
    table[_unjudged(data)] = 1.0 - full[data.judged]
    condensed = summarise(data.condensed)
    for measure in data.measures:
        table[f"{measure} condensed"] = condensed[measure].reindex(table.index)
    table.index.name = "run"
    return table


def levels_table(by_level: Mapping[str, ReportData]) -> pd.DataFrame:
    """Per run, each headline mean, count and unjudged share at every level, side by side:
    columns ``P@10 chunk``, ``P@10 document``, ..., ``NumRet chunk``, ``NumRet document``...
    Every level's data must cover the same runs and measures."""
    tables = {level: means_table(data) for level, data in by_level.items()}
    first = next(iter(by_level.values()))
    columns = [*first.measures, *first.counts, _unjudged(first)]
    view = pd.DataFrame(index=next(iter(tables.values())).index)
    for column in columns:
        for level, table in tables.items():
            view[f"{column} {LEVEL_NAMES.get(level, level)}"] = table[column].reindex(view.index)
    return view


def with_levels(data: ReportData, by_level: Mapping[str, ReportData]) -> ReportData:
    """``data`` (one level's report) with the side-by-side table of every level."""
    return dataclasses.replace(data, levels=levels_table(by_level))


def _unjudged(data: ReportData) -> str:
    return f"unjudged share of top 10 (1 − {data.judged})"


def rbp_table(data: ReportData) -> pd.DataFrame:
    """Per run: mean RBP, mean residual, and the interval [RBP, RBP + residual]."""
    means = summarise(data.per_topic)
    table = pd.DataFrame({"RBP": means[data.rbp], "residual": means[data.residual]})
    table["low"] = table["RBP"]
    table["high"] = table["RBP"] + table["residual"]
    table.index.name = "run"
    return table


def pr_table(data: ReportData) -> pd.DataFrame:
    """Per run: the mean interpolated precision at recall 0.0, 0.1, …, 1.0 (columns = recall)."""
    means = summarise(data.per_topic)[list(data.iprec)]
    means.columns = [f"{level:.1f}" for level in RECALL_LEVELS[: len(data.iprec)]]
    means.index.name = "run"
    return means


def literal_label(text: object) -> str:
    """``text`` for a matplotlib label, shown literally: every ``$`` becomes ``\\$``, so no
    run name is parsed as mathtext (``a$\\frac{$b`` would raise, ``x$y$`` render as math).

    Matplotlib reads a string as math only when it holds an even, non-zero number of unescaped
    ``$``; with all of them escaped it shows the text with each ``\\$`` turned back into ``$``,
    which restores the name exactly (a backslash of the name stays)."""
    return str(text).replace("$", r"\$")


def pr_figure(curves: pd.DataFrame) -> Figure:
    """Interpolated precision–recall curves, one line per run (rendered with the Agg canvas)."""
    figure = Figure(figsize=(7.5, 4.8))
    axes = figure.add_subplot()
    recall = [float(c) for c in curves.columns]
    styles = ("-", "--", ":", "-.")
    lines = [axes.plot(recall, values.to_numpy(float), marker="o", markersize=3,
                       linestyle=styles[(i // 10) % len(styles)])[0]
             for i, (_, values) in enumerate(curves.iterrows())]
    axes.set_xlabel("recall")
    axes.set_ylabel("interpolated precision")
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.grid(alpha=0.3)
    # explicit handles: an automatic legend would drop runs whose name starts with "_"
    axes.legend(lines, [literal_label(run) for run in curves.index], fontsize="x-small",
                loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return figure


def rbp_figure(intervals: pd.DataFrame) -> Figure:
    """Horizontal bars from RBP to RBP + residual per run: how far the score could still move."""
    figure = Figure(figsize=(7.5, 0.3 * len(intervals) + 1.2))
    axes = figure.add_subplot()
    positions = np.arange(len(intervals))[::-1]
    axes.barh(positions, intervals["residual"], left=intervals["low"], color="#c7d7ef",
              edgecolor="#4a6fa5")
    axes.plot(intervals["low"], positions, "|", color="#1d3f6e", markersize=12)
    axes.set_yticks(positions, [literal_label(run) for run in intervals.index],
                    fontsize="small")
    axes.set_xlabel("RBP interval [RBP, RBP + residual]")
    axes.set_xlim(0, 1)
    return figure


def bias_view(bias: pd.DataFrame) -> pd.DataFrame:
    """The bias table one row per run: per measure with / without / difference, then the
    left-out group, its unique relevant documents and the run's Judged@10 without it."""
    wide = bias.pivot(index="run", columns="measure",
                      values=["with_run", "without_run", "difference"])
    measures = list(pd.unique(bias["measure"]))
    view = pd.DataFrame(index=pd.Index(pd.unique(bias["run"]), name="run"))
    for measure in measures:
        for column, label in (("with_run", "with"), ("without_run", "without"),
                              ("difference", "difference")):
            view[f"{measure} {label}"] = wide[(column, measure)]
    first = bias.drop_duplicates("run").set_index("run")
    view["left out"] = first["left_out"]
    view["unique relevant"] = first["unique_relevant"]
    view["Judged@10 without"] = first["judged_without"]
    return view


def per_topic_table(tidy: pd.DataFrame, measure: str) -> pd.DataFrame:
    """Topic × run values of one measure, topics in numeric-aware order."""
    rows = tidy[(tidy["measure"] == measure) & (tidy["topic"] != "all")]
    table = rows.pivot(index="topic", columns="run", values="value")
    table = table.reindex(index=topic_order(table.index), columns=list(pd.unique(rows["run"])))
    table.index.name = "topic"
    table.columns.name = None
    return table


def sections(data: ReportData) -> list[Section]:
    """The report's sections in display order; each holds DataFrames and figures."""
    intervals = rbp_table(data)
    curves = pr_table(data)
    parts = [
        Section("means", "Means per run", _MEANS_NOTE.format(judged=data.judged),
                tables={"": means_table(data)}),
        *([Section("levels", "Chunk and document levels", _LEVELS_NOTE,
                   tables={"": data.levels})] if data.levels is not None else []),
        Section("rbp", f"RBP intervals (p={parse(data.rbp)['p']})", _RBP_NOTE,
                tables={"": intervals},
                figures={"RBP intervals per run": rbp_figure(intervals)}),
    ]
    if data.bias is not None:
        parts.append(Section("bias", "Pool bias (leave one run out)", _BIAS_NOTE,
                             tables={"": bias_view(data.bias)}))
    parts.append(Section("pr", "Precision–recall curves", _PR_NOTE, tables={"": curves},
                         figures={"Interpolated precision–recall": pr_figure(curves)}))
    per_topic = {measure: per_topic_table(data.per_topic, measure)
                 for measure in (*data.measures, data.judged, data.rbp, data.residual)}
    parts.append(Section("topics", "Per-topic scores", "One table per measure; open to read.",
                         tables=per_topic, collapsed=True))
    return parts


def render_report(data: ReportData) -> str:
    """The self-contained HTML page of :func:`sections`."""
    return render_page(data.title, data.meta, data.warnings, sections(data))


_MEANS_NOTE = (
    "Means over every topic in the qrels. The unjudged share is 1 − {judged}: the share of the "
    "top 10 returned documents that has no judgment for the topic. 'condensed' columns score "
    "the rankings with unjudged documents removed first (trec_eval -J): a large gap between a "
    "measure and its condensed variant means the number rests on unjudged documents. NumRet: "
    "documents returned, summed over topics; short@k: topics where the run returned fewer than "
    "k (a topic missing from the run counts), the ranks that earn nothing under a fixed k."
)
_LEVELS_NOTE = (
    "The same runs and qrels at both evaluation units of the unit map. At document level a "
    "chunk run ranks each document at its best chunk (its later chunks dropped) and chunk "
    "qrels give a document the highest label of its judged chunks; at chunk level document "
    "qrels give every chunk its document's label (an assumption). The other sections are at "
    "the level named above."
)
_RBP_NOTE = (
    "Rank-biased precision with binary gains. The residual is the weight of the ranks whose "
    "document is unjudged plus the tail beyond the ranking, so the true RBP lies in "
    "[RBP, RBP + residual] whatever the unjudged documents turn out to be."
)
_BIAS_NOTE = (
    "with_run: the run's mean under the qrels restricted to the pool of all runs; without_run: "
    "under the qrels restricted to the pool of the other runs (its unique documents unjudged). "
    "A large negative difference means the collection favours runs that were pooled."
)
_PR_NOTE = "Mean interpolated precision at recall 0.0, 0.1, …, 1.0 over all topics."
