"""``pooljudge bias QRELS RUN... --depth K``: the leave-one-run-out pool-bias test (Zobel 1998).

For each run: with_run = its mean under the qrels restricted to the depth-K pool of all runs;
without_run = under the qrels restricted to the pool of the other runs; the difference, the
relevant documents only it contributed, and its Judged@10 without them. ``--group-prefix N`` or
``--group-map FILE`` leaves out whole groups of runs (a team's runs) instead.
"""

from __future__ import annotations

import argparse

from pooljudge.cli import Subcommands
from pooljudge.cli.inputs import read_runs
from pooljudge.cli.options import (
    MAX_DEPTH,
    add_compat_option,
    add_format_option,
    add_measure_option,
    add_qrels_runs,
    int_range,
    measures_from,
    positive_int,
    summary,
)
from pooljudge.cli.output import emit, render, warn
from pooljudge.errors import InputError, UsageError

HELP = "leave-one-run-out pool-bias test: scores with and without each run's pool share"
DEFAULT = ("AP", "P@10", "nDCG@10")


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("bias", help=HELP, description=summary(__doc__))
    add_qrels_runs(parser)
    parser.add_argument("--depth", type=positive_int(MAX_DEPTH), required=True, metavar="K",
                        help="pool depth K")
    add_measure_option(parser, DEFAULT)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--group-prefix", type=positive_int(), metavar="N",
                       help="leave out groups of runs sharing their first N characters")
    group.add_argument("--group-map", metavar="FILE",
                       help="leave out groups of runs given by 'run group' lines")
    parser.add_argument("--rel", type=int_range(), default=1,
                        help="unique relevant documents have label >= REL (default 1)")
    add_compat_option(parser)
    add_format_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pooljudge.formats.groups import read_run_groups
    from pooljudge.formats.trec import read_qrels
    from pooljudge.metrics.bias import group_by_prefix, leave_out

    if args.depth < 1:
        raise UsageError(f"--depth must be at least 1, got {args.depth}")
    if args.group_prefix is not None and args.group_prefix < 1:
        raise UsageError(f"--group-prefix must be at least 1, got {args.group_prefix}")
    measures = measures_from(args)
    qrels = read_qrels(args.qrels)
    runs = dict(read_runs(args.runs))
    groups = None
    if args.group_prefix is not None:
        groups = group_by_prefix(list(runs), args.group_prefix)
    elif args.group_map is not None:
        groups = read_run_groups(args.group_map)
        missing = sorted(set(runs) - set(groups))
        if missing:
            raise InputError(f"no group for run(s) {', '.join(missing)}", path=args.group_map)
    if len(runs) < 2 or (groups is not None and len(set(groups[r] for r in runs)) < 2):
        warn("bias", "leaving out the only run (or group) leaves an empty pool")
    table = leave_out(qrels, runs, args.depth, measures, groups=groups, rel=args.rel,
                      compat=args.compat)
    emit(render(table, args.format), args.output)
    return 0
