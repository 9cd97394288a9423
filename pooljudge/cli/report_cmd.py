"""``pooljudge report QRELS RUN... [--pool-depth K] -o report.html``: one self-contained page.

Per run: the means with unjudged rates and condensed (judged-only) variants, RBP intervals,
the pool-bias table (with ``--pool-depth``), precision–recall curves, per-topic scores and
warnings. The file embeds its plots and style: it opens offline and loads nothing.

With ``--units FILE`` (a ``chunk doc`` map) and chunk runs, the report shows chunk-level and
document-level means side by side, the other sections at the qrels' level; ``--level`` keeps one
level only (and is needed when a run ranks documents: ``--level doc``).

With ``--topic-groups FILE`` a "Per group" section shows each run's mean per group with its 95%
CI and, against ``--baseline`` (default: the first run), the per-group regression check: a group
whose mean fell significantly (paired t-test, Holm over the groups, below ``--alpha``) is
flagged in its row and named in a warning at the top of the page, even when the overall mean
rose.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pooljudge.cli import Subcommands
from pooljudge.cli.datasets import add_dataset_option, qrels_frame_and_runs, qrels_name
from pooljudge.cli.inputs import read_runs
from pooljudge.cli.options import (
    MAX_DEPTH,
    add_compat_option,
    add_measure_option,
    add_qrels_runs,
    add_units_options,
    measures_from,
    open_unit,
    positive_int,
    summary,
)
from pooljudge.cli.output import emit
from pooljudge.errors import UsageError
from pooljudge.ground.defaults import DEFAULT_MEASURES

if TYPE_CHECKING:
    import pandas as pd

    from pooljudge.formats.trec import RunColumns
    from pooljudge.metrics.compat import Compat
    from pooljudge.metrics.report import ReportData
    from pooljudge.metrics.report_groups import GroupReport
    from pooljudge.metrics.units import Level, Units

HELP = "write a self-contained HTML evaluation report (scores, unjudged rates, bias, curves)"


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("report", help=HELP, description=summary(__doc__))
    add_qrels_runs(parser, dataset=True)
    add_dataset_option(parser, "qrels (every positional is then a run)")
    add_measure_option(parser, DEFAULT_MEASURES)
    parser.add_argument("--pool-depth", type=positive_int(MAX_DEPTH), metavar="K",
                        help="add the leave-one-run-out table over depth-K pools")
    parser.add_argument("--rbp-p", type=open_unit, default=0.8, metavar="P",
                        help="RBP persistence for the intervals (default 0.8)")
    parser.add_argument("--title", default="Evaluation report", help="the page's title")
    parser.add_argument("--provenance", metavar="FILE",
                        help="the export's provenance TSV (--policy human-else-automatic:NAME): "
                             "also state each run's Automatic@10, the share of its top 10 "
                             "labelled by the automatic judge")
    parser.add_argument("--latency", metavar="FILE",
                        help="latency.tsv of 'pooljudge logs import': each run's latency "
                             "p50/p95/p99 beside its mean scores (runs matched by name)")
    parser.add_argument("--topic-groups", metavar="FILE",
                        help="'topic group' lines: add each run's mean per group with its 95%% "
                             "CI and the per-group regression check against --baseline")
    parser.add_argument("--baseline", metavar="RUN",
                        help="with --topic-groups: the run the others are checked against (its "
                             "name: file name without folder and .gz; default: the first run)")
    parser.add_argument("--alpha", type=open_unit, default=0.05,
                        help="with --topic-groups: level of the per-group regression check "
                             "(default 0.05)")
    add_units_options(parser, "both levels side by side, the sections at the qrels' level")
    add_compat_option(parser)
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the HTML file to write (atomically; - for standard output)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pooljudge.cli.units_inputs import load_units
    from pooljudge.metrics.report import collect

    if args.pool_depth is not None and args.pool_depth < 1:
        raise UsageError(f"--pool-depth must be at least 1, got {args.pool_depth}")
    if not 0.0 < args.rbp_p < 1.0:
        raise UsageError(f"--rbp-p must lie strictly between 0 and 1, got {args.rbp_p}")
    measures = [str(m) for m in measures_from(args)]
    units = load_units(args, "report")
    if units is not None and args.provenance:
        raise UsageError("--provenance cannot be combined with --units: its marks are (topic, "
                         "id) pairs of one level; report that level without --units")
    latency = None
    if args.latency is not None:
        from pooljudge.formats.log_files import read_latency

        latency = read_latency(args.latency)
    groups = _topic_groups(args)
    qrels, paths = qrels_frame_and_runs(args)
    runs = dict(read_runs(paths))
    if args.baseline is not None and args.baseline not in runs:
        raise UsageError(f"--baseline {args.baseline!r} is not among the runs: "
                         f"{', '.join(runs)}")
    meta = (f"qrels: {qrels_name(args)}",
            *(_automatic_lines(args.provenance, runs, args.compat) if args.provenance else ()))
    options = {"rbp_p": args.rbp_p, "title": args.title, "compat": args.compat}
    if units is None:
        data = collect(qrels, runs, measures, pool_depth=args.pool_depth, meta=meta, **options)
    else:
        data = _by_level(args, units, qrels, runs, measures, meta, options)
    grouped = None
    if groups is not None:
        from pooljudge.metrics.report_groups import group_report

        grouped = group_report(data.per_topic, groups, data.measures, baseline=args.baseline,
                               alpha=args.alpha)
    emit(_page(data, latency, grouped), args.output)
    return 0


def _topic_groups(args: argparse.Namespace) -> pd.DataFrame | None:
    """The ``--topic-groups`` pairs (None without it); --baseline and a group named ``all``
    (the row of every topic) refused."""
    if args.topic_groups is None:
        if args.baseline is not None:
            raise UsageError("--baseline needs --topic-groups FILE: the report compares runs "
                             "per group")
        return None
    from pooljudge.errors import InputError
    from pooljudge.formats.groups import read_topic_groups
    from pooljudge.metrics.compare import OVERALL

    groups = read_topic_groups(args.topic_groups)
    if (groups["group"] == OVERALL).any():
        raise InputError(f"a topic group may not be named {OVERALL!r}: the report's row "
                         f"{OVERALL!r} is every evaluated topic", path=args.topic_groups)
    return groups


def _page(data: ReportData, latency: pd.DataFrame | None, grouped: GroupReport | None) -> str:
    """The report's HTML: the per-group section after the means (its regressions first among
    the warnings), the latency section last."""
    from pooljudge.metrics.report import sections, summarise
    from pooljudge.metrics.report_html import render_page

    parts = sections(data)
    warnings = data.warnings
    if grouped is not None:
        from pooljudge.metrics.report_groups import insert_after_means

        parts = insert_after_means(parts, grouped.section)
        warnings = (*grouped.warnings, *warnings)
    if latency is not None:
        from pooljudge.metrics.latency import latency_section

        headline = summarise(data.per_topic)[list(data.measures)]  # not RBP, IPrec...
        means = headline.reset_index().melt(id_vars="run", var_name="measure",
                                             value_name="value")
        parts.append(latency_section(latency, means))
    return render_page(data.title, data.meta, warnings, parts)


def _by_level(args: argparse.Namespace, units: Units, qrels: pd.DataFrame,
              runs: dict[str, RunColumns], measures: list[str], meta: tuple[str, ...],
              options: dict) -> ReportData:
    """The report at each level asked for (both by default: then every run must rank chunks):
    the sections at ``--level`` or the qrels' own level, the levels side by side."""
    import dataclasses

    from pooljudge.cli.units_inputs import ASSUMPTION, qrels_at, run_at, run_levels
    from pooljudge.metrics.report import collect, with_levels
    from pooljudge.metrics.units import LEVEL_NAMES, level_of

    own = run_levels(runs, units)
    documents = [name for name, level in own.items() if level == "doc"]
    if args.level is None and documents:
        raise UsageError(f"run {documents[0]} ranks documents: chunk-level numbers need chunk "
                         "runs; give --level doc for a document-level report")
    own_qrels = level_of(qrels["doc"], units, what=f"the qrels {_qrels_path(args)}")
    main = args.level or own_qrels
    by_level: dict[str, ReportData] = {}
    levels: list[Level] = [args.level] if args.level else ["chunk", "doc"]
    for level in levels:
        moved, _ = qrels_at(qrels, units, level, path=_qrels_path(args),
                             command="report")
        at_level = {name: run_at(name, run, units, level)
                    for name, run in runs.items()}
        notes = (f"level: {LEVEL_NAMES[level]} (--units {args.units})",)
        by_level[level] = collect(moved, at_level, measures,
                                  pool_depth=args.pool_depth if level == main else None,
                                  meta=(*meta, *notes), **options)
    data = by_level[main]
    if len(by_level) > 1:
        data = with_levels(data, by_level)
    if "chunk" in by_level and own_qrels == "doc":
        data = dataclasses.replace(data, warnings=(*data.warnings, ASSUMPTION))
    return data


def _qrels_path(args: argparse.Namespace) -> str:
    """The qrels file as messages name it (its path), or ``dataset ID``."""
    return qrels_name(args) if args.dataset else args.qrels


def _automatic_lines(provenance: str, runs: dict[str, RunColumns], compat: Compat
                     ) -> tuple[str, ...]:
    """One line per run: its Automatic@10 (P@10 against the provenance's automatic marks)."""
    from pooljudge.annotate.ppi import AUTOMATIC_AT, automatic_qrels
    from pooljudge.metrics.eval_inputs import load_qrels, parse_all
    from pooljudge.metrics.evaluate import score

    marks = load_qrels(automatic_qrels(provenance))
    measure = parse_all([f"P@{AUTOMATIC_AT}"])
    lines = []
    for name, run in runs.items():
        value = score(marks, name, run, measure, compat=compat).summary[measure[0]]
        lines.append(f"Automatic@{AUTOMATIC_AT} of {name}: {value:.4f} (share of the top "
                     f"{AUTOMATIC_AT} labelled by the automatic judge)")
    return tuple(lines)
