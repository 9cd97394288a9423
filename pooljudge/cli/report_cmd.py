"""``pooljudge report QRELS RUN... [--pool-depth K] -o report.html``: one self-contained page.

Per run: the means with unjudged rates and condensed (judged-only) variants, RBP intervals,
the pool-bias table (with ``--pool-depth``), precision–recall curves, per-topic scores and
warnings. The file embeds its plots and style: it opens offline and loads nothing.
"""

from __future__ import annotations

import argparse

from pooljudge.cli import Subcommands
from pooljudge.cli.inputs import read_runs
from pooljudge.cli.options import (
    MAX_DEPTH,
    add_compat_option,
    add_measure_option,
    add_qrels_runs,
    measures_from,
    open_unit,
    positive_int,
    summary,
)
from pooljudge.cli.output import emit
from pooljudge.defaults import DEFAULT_MEASURES
from pooljudge.errors import UsageError

HELP = "write a self-contained HTML evaluation report (scores, unjudged rates, bias, curves)"


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("report", help=HELP, description=summary(__doc__))
    add_qrels_runs(parser)
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
    add_compat_option(parser)
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the HTML file to write (atomically; - for standard output)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from metrics.report import collect, render_report
    from pooljudge.formats.trec import read_qrels, run_name

    if args.pool_depth is not None and args.pool_depth < 1:
        raise UsageError(f"--pool-depth must be at least 1, got {args.pool_depth}")
    if not 0.0 < args.rbp_p < 1.0:
        raise UsageError(f"--rbp-p must lie strictly between 0 and 1, got {args.rbp_p}")
    measures = [str(m) for m in measures_from(args)]
    qrels = read_qrels(args.qrels)
    runs = dict(read_runs(args.runs))
    meta = (f"qrels: {run_name(args.qrels)}",
            *(_automatic_lines(args.provenance, runs, args.compat) if args.provenance else ()))
    data = collect(qrels, runs, measures, pool_depth=args.pool_depth, rbp_p=args.rbp_p,
                   title=args.title, meta=meta,
                   compat=args.compat)
    emit(render_report(data), args.output)
    return 0


def _automatic_lines(provenance: str, runs, compat: str) -> tuple[str, ...]:
    """One line per run: its Automatic@10 (P@10 against the provenance's automatic marks)."""
    from annotate.ppi import AUTOMATIC_AT, automatic_qrels
    from metrics.evaluate import load_qrels, parse_all, score

    marks = load_qrels(automatic_qrels(provenance))
    measure = parse_all([f"P@{AUTOMATIC_AT}"])
    lines = []
    for name, run in runs.items():
        value = score(marks, name, run, measure, compat=compat).summary[measure[0]]
        lines.append(f"Automatic@{AUTOMATIC_AT} of {name}: {value:.4f} (share of the top "
                     f"{AUTOMATIC_AT} labelled by the automatic judge)")
    return tuple(lines)
