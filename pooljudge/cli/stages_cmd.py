"""``pooljudge compare-stages QRELS --manifest FILE``: what reranking and context selection gained.

The manifest (tab-separated: ``run stage [pipeline] [configuration columns...]``; runs relative to
its folder) tags each run with its stage (retrieve, rerank, context) and pipeline. Per pipeline
and consecutive pair of stages, at cutoff ``-k``: the queries, the mean of each measure before
and after (P@k and nDCG@k by default), the mean gain, the paired t-test and randomization test
(Holm-adjusted over the steps), wins/losses/ties, the relevant items moved into and out of the
top k, NumRet and the queries with fewer than k results. ``--per-query`` lists, per query, the
relevant ids moved in and out; ``--topic-groups`` repeats the summary per group and flags a
group where a stage lost significantly.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pooljudge.cli import Subcommands
from pooljudge.cli.options import (
    MAX_DEPTH,
    QRELS_HELP,
    add_format_option,
    add_measure_option,
    add_randomization_options,
    int_range,
    measures_from,
    open_unit,
    positive_int,
    summary,
)
from pooljudge.cli.output import emit, render, warn
from pooljudge.errors import UsageError

if TYPE_CHECKING:
    import pandas as pd

HELP = "what each stage (retrieve, rerank, context) gained and lost: moves in the top k, tests"
COMMAND = "compare-stages"
TABLE_COLUMNS = ["pipeline", "step", "measure", "queries", "before", "after", "delta", "t_p",
                 "perm_p", "t_p_holm", "perm_p_holm", "wins", "losses", "ties", "rel_in",
                 "rel_out", "numret_before", "numret_after", "fewer_than_k_before",
                 "fewer_than_k_after"]


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(COMMAND, help=HELP, description=summary(__doc__))
    parser.add_argument("qrels", metavar="QRELS", help=QRELS_HELP)
    parser.add_argument("--manifest", metavar="FILE", required=True,
                        help="tab-separated 'run stage [pipeline] [config columns]' with a "
                             "header; run paths relative to the manifest's folder")
    parser.add_argument("-k", type=positive_int(MAX_DEPTH), default=10,
                        help="cutoff of the top k (default 10)")
    add_measure_option(parser, ("P@k", "nDCG@k"))
    parser.add_argument("--rel", type=int_range(1, 1_000_000), default=1,
                        help="an item is relevant when its label is at least this (default 1)")
    parser.add_argument("--per-query", action="store_true",
                        help="list each query's step: measures, relevant ids moved in and out")
    parser.add_argument("--topic-groups", metavar="FILE",
                        help="'topic group' lines: also summarise within each group and flag "
                             "groups where a stage lost significantly")
    parser.add_argument("--alpha", type=open_unit, default=0.05,
                        help="with --topic-groups: level of the regression check (default 0.05)")
    add_randomization_options(parser)
    add_format_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pooljudge.formats.groups import read_topic_groups
    from pooljudge.formats.manifest import read_manifest
    from pooljudge.metrics.stages import compare_stages, default_measures

    if args.per_query and args.topic_groups:
        raise UsageError("--per-query and --topic-groups cannot be combined: a query's row is "
                         "the same in every group; run once with each")
    args.default_measures = tuple(default_measures(args.k, args.rel))
    measures = measures_from(args)
    groups = read_topic_groups(args.topic_groups) if args.topic_groups else None
    manifest = read_manifest(args.manifest)
    result = compare_stages(args.qrels, manifest, k=args.k, measures=measures, rel=args.rel,
                            groups=groups, n_resamples=args.resamples, seed=args.seed,
                            alpha=args.alpha)
    for message in result.warnings:
        warn(COMMAND, message)
    if args.per_query:
        frame = per_query_view(result.per_query, result.moves, as_lists=args.format == "json")
    elif args.format == "table":
        extra = ["group_p_holm", "regression"] if groups is not None else []
        frame = result.summary[(["group"] if groups is not None else []) + TABLE_COLUMNS + extra]
    else:
        frame = result.summary
    emit(render(frame, args.format), args.output)
    return 0


def per_query_view(per_query: pd.DataFrame, moves: pd.DataFrame, *, as_lists: bool
                   ) -> pd.DataFrame:
    """One row per step and query: the counts, each measure's before/after/delta as columns,
    and the ids moved in (by their rank after) and out (by their rank before), space-separated
    (lists with ``as_lists``). Ids are printed as they are: literal text."""
    import pandas as pd

    keys = ["pipeline", "step", "topic"]
    counts = ["rel_in", "rel_out", "rel_kept", "numret_before", "numret_after",
              "fewer_than_k_before", "fewer_than_k_after"]
    wide = per_query.pivot_table(index=keys, columns="measure",
                                 values=["before", "after", "delta"], sort=False, dropna=False)
    measures = list(pd.unique(per_query["measure"]))
    wide.columns = [f"{m} {v}" for v, m in wide.columns]
    wide = wide[[f"{m} {v}" for m in measures for v in ("before", "after", "delta")]]
    base = per_query.drop_duplicates(keys).set_index(keys)[counts].join(wide)
    join = list if as_lists else " ".join
    for move in ("in", "out"):
        chosen = moves[moves["move"] == move]
        ids = chosen.groupby(keys, sort=False)["doc"].agg(join)
        empty = [] if as_lists else ""
        base[f"moved_{move}"] = ids.reindex(base.index).apply(
            lambda v, e=empty: e if not isinstance(v, (str, list)) else v)
    return base.reset_index()
