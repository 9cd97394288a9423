"""``pooljudge compare QRELS RUN... -m M [--baseline RUN]``: paired significance tests over topics.

Each run against the baseline (or every pair of runs): the paired t-test and a seeded paired
randomization test (scipy), Holm's correction across the comparisons of each measure, the mean
difference and Cohen's d for paired samples. Fewer than 25 topics draw a warning.
``--topic-groups FILE`` repeats the comparisons within each group of topics (column ``group``;
``all`` = every topic), so the means per group appear beside their tests, and checks for
regressions: a group whose mean fell significantly (paired t-test within the group,
Holm-adjusted over the groups, below ``--alpha``) is flagged in column ``regression`` and named
in a warning line, even when the overall mean rose.
"""

from __future__ import annotations

import argparse

from pooljudge.cli import Subcommands
from pooljudge.cli.inputs import read_runs
from pooljudge.cli.options import (
    add_compat_option,
    add_format_option,
    add_measure_option,
    add_qrels_runs,
    add_randomization_options,
    measures_from,
    open_unit,
    summary,
)
from pooljudge.cli.output import emit, render, warn
from pooljudge.errors import UsageError

HELP = "paired significance tests between runs (t-test, randomization, Holm, effect sizes)"
DEFAULT = ("AP",)
ALL = "all"


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("compare", help=HELP, description=summary(__doc__))
    add_qrels_runs(parser)
    add_measure_option(parser, DEFAULT)
    parser.add_argument("--baseline", metavar="RUN",
                        help="compare every run with this one (its name: file name without "
                             "folder and .gz); default: every pair of runs")
    parser.add_argument("--topic-groups", metavar="FILE",
                        help="'topic group' lines: also compare within each group")
    parser.add_argument("--alpha", type=open_unit, default=0.05,
                        help="with --topic-groups: level of the per-group regression check "
                             "(default 0.05)")
    add_compat_option(parser)
    add_randomization_options(parser)
    add_format_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pooljudge.formats.groups import read_topic_groups
    from pooljudge.metrics.compare import compare, compare_groups
    from pooljudge.metrics.eval_inputs import load_qrels
    from pooljudge.metrics.evaluate import score, tidy

    if args.resamples < 1:
        raise UsageError(f"--resamples must be at least 1, got {args.resamples}")
    measures = measures_from(args)
    groups = read_topic_groups(args.topic_groups) if args.topic_groups else None
    qrels = load_qrels(args.qrels)
    runs = dict(read_runs(args.runs))
    if len(runs) < 2:
        raise UsageError("compare needs at least two runs")
    if args.baseline is not None and args.baseline not in runs:
        raise UsageError(f"--baseline {args.baseline!r} is not among the runs: "
                         f"{', '.join(runs)}")
    per_topic = tidy([score(qrels, n, r, measures, compat=args.compat) for n, r in runs.items()],
                     per_topic=True)
    per_topic = per_topic[per_topic["topic"] != ALL]
    options = {"baseline": args.baseline, "n_resamples": args.resamples, "seed": args.seed}
    if groups is None:
        result, warnings = compare(per_topic, **options)
    else:
        result, warnings = compare_groups(per_topic, groups, alpha=args.alpha, **options)
    for message in warnings:
        warn("compare", message)
    emit(render(result, args.format), args.output)
    return 0
