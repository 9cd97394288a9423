"""``pooljudge pool``: merge TREC runs into an ordered judgment pool.

    pooljudge pool RUN... [--depth K] [--strategy NAME] [--budget N] [--floor J]
                          [--exclude QRELS] [--seed S] [-o pool.tsv] [--stats]
    pooljudge pool RUN... --sample DESIGN [--budget N] [--depth K] [--strategy NAME]
                          [--seed S] [-o pool.tsv] [--stats]

Judging orders and sampling designs are compared on complete qrels by ``pooljudge simulate
orders`` and ``pooljudge simulate designs`` (:mod:`pooljudge.cli.simulate_cmd`). The pool is a
TSV with ``topic doc order best_rank runs n_runs`` (order 1 = judge first, within the topic),
written atomically to ``-o`` (standard output by default). ``--stats`` prints pool size per
topic, each run's contribution and unique documents, and run-to-run overlap (to standard error
when the pool itself goes to standard output).

With ``--sample`` (:mod:`pooljudge.pooling.sampling`) the file lists every pair of the depth-k pool
with
``stratum inclusion sampled`` after ``runs``: the sampled pairs first (order 1..n in the
``--strategy`` order, a static one), then the others. ``--budget`` is then the number of
sampled pairs over all topics; ``--depth`` is the depth of a design that names none (it must
agree with one that does). ``--floor`` and ``--exclude`` do not apply: a run's top J are a
stratum of rate 1 (``strata(J:1.0,...)``), and leaving out judged pairs would change the
population the probabilities refer to. ``--stats`` prints population, sample size and π per
stratum.

With ``--units FILE`` (a ``chunk doc`` map) the runs may rank chunks: ``--level doc`` pools
documents, each chunk run read as a document run (a document at its best chunk's place, so a
depth-k pool holds each run's top k documents and ``best_rank`` is a document rank);
``--level chunk`` pools chunks (every run must rank chunks). Without ``--level``: chunk when
every run ranks chunks, else doc. ``--exclude`` qrels are moved to the same level; runs are
read whole (a document's place depends on all its chunks).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence

from pooljudge.cli import Subcommands
from pooljudge.cli.datasets import add_dataset_option, dataset_qrels, refuse_both
from pooljudge.cli.inputs import read_runs
from pooljudge.cli.options import (
    MAX_DEPTH,
    add_units_options,
    nonnegative_int,
    positive_int,
    summary,
)
from pooljudge.cli.options import seed as seed_option
from pooljudge.cli.output import warn
from pooljudge.cli.simulate_pools import budget_option
from pooljudge.errors import UsageError
from pooljudge.pooling.strategies import DEFAULT_STRATEGY, REGISTRY

__all__ = ["register"]

DEFAULT_DEPTH = 100
_USAGE = """
  pooljudge pool RUN... [--depth K] [--strategy NAME] [--budget N] [--floor J]
                 [--exclude QRELS] [--seed S] [-o FILE] [--stats]
  pooljudge pool RUN... --sample DESIGN [--budget N] [--depth K] [--strategy NAME]
                 [--seed S] [-o FILE] [--stats]"""
_KINDS = {"static": "static, fixed before any judgment",
          "adaptive": "adaptive, learning from the judgments (seeded by --seed)"}


def _epilog(width: int = 79) -> str:
    """The registry's strategies, their defaults and help, as lines of at most ``width``."""
    lines = textwrap.wrap("strategies: NAME or NAME(key=value,...); parameters left out take "
                          "the defaults shown; take@N is take(n=N)", width)
    column = max(len(s.signature) for s in REGISTRY.values()) + 6
    for kind, title in _KINDS.items():
        lines.append(f"  {title}:")
        for strategy in (s for s in REGISTRY.values() if s.kind == kind):
            lines += textwrap.wrap(
                strategy.help, width, initial_indent=f"    {strategy.signature:<{column - 4}}",
                subsequent_indent=" " * column)
    lines += textwrap.wrap("sampling designs (--sample): uniform(depth=K,rate=R) | "
                           "strata(A:r1,B:r2,...) by best rank, e.g. strata(10:1.0,30:0.5,100:0.1)"
                           " | pps(prior=ap|rrf|rbp,depth=K,rate=R); rate= is needed without "
                           "--budget (then N sampled pairs over all topics)", width)
    lines += textwrap.wrap("to compare judging orders or sampling designs on complete qrels: "
                           "pooljudge simulate orders|designs QRELS RUN...", width)
    return "\n".join(lines)


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "pool", help="pool runs into an ordered judgment pool, or sample it by a design",
        description=summary(__doc__), usage=_USAGE, epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="run files (plain or gzip)")
    parser.add_argument("--depth", type=positive_int(MAX_DEPTH),
                        help=f"pool depth k (default {DEFAULT_DEPTH})")
    parser.add_argument("--strategy", action="append", metavar="NAME",
                        help=f"judging order (default {DEFAULT_STRATEGY})")
    parser.add_argument("--budget", type=budget_option, action="append", metavar="N",
                        help="keep at most N pairs per topic (--sample: sample N pairs over all "
                        "topics)")
    parser.add_argument("--sample", metavar="DESIGN", action="append",
                        help="sample the pool by DESIGN, with inclusion probabilities")
    parser.add_argument("--floor", type=nonnegative_int(MAX_DEPTH), default=0,
                        help="every run's top J come first and are always kept (default 0)")
    parser.add_argument("--exclude", metavar="QRELS", help="leave out pairs already in QRELS")
    add_dataset_option(parser, "qrels whose pairs are left out (as --exclude)")
    parser.add_argument("--seed", type=seed_option, default=0, help="seed of randomised policies")
    parser.add_argument("-o", "--output", default="-", help="pool file (default: stdout)")
    parser.add_argument("--stats", action="store_true", help="print pool statistics")
    add_units_options(parser, "chunk when every run ranks chunks, else doc")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    args.explicit_depth, args.depth = args.depth, args.depth or DEFAULT_DEPTH
    for option in ("budget", "sample"):
        given = getattr(args, option)
        if given is not None and len(given) > 1:
            raise UsageError(f"pool takes one --{option} (simulate designs compares several)")
        setattr(args, option, given[0] if given else None)
    if isinstance(args.budget, float):
        raise UsageError("--budget P% is for simulate designs; give pool N pairs")
    if args.sample is not None:
        return _sample(args)
    return _pool(args)


def _check_common(args: argparse.Namespace) -> None:
    if args.depth < 1:
        raise UsageError(f"--depth must be at least 1, got {args.depth}")
    if args.seed < 0:
        raise UsageError(f"--seed must not be negative, got {args.seed}")


def _specs(args: argparse.Namespace, default: Sequence[str]):
    from pooljudge.pooling.strategies import parse_strategy

    return [parse_strategy(s, source="--strategy") for s in (args.strategy or default)]


def _pool(args: argparse.Namespace) -> int:
    import numpy as np

    from pooljudge.formats.trec import write_pool
    from pooljudge.pooling import build_pool, make_policy
    from pooljudge.pooling.pool import budget_rows, pool_table
    from pooljudge.pooling.static_orders import static_order
    from pooljudge.pooling.strategies import is_adaptive

    _check_common(args)
    specs = _specs(args, (DEFAULT_STRATEGY,))
    if len(specs) > 1:
        raise UsageError("pool takes one --strategy (simulate orders compares several)")
    if args.budget is not None and args.budget < 1:
        raise UsageError(f"--budget must be at least 1, got {args.budget}")
    if args.floor < 0:
        raise UsageError(f"--floor must not be negative, got {args.floor}")
    if args.budget is not None and is_adaptive(specs[0]):
        raise UsageError(f"--budget needs a static strategy: {specs[0]} chooses pairs from the "
                         "judgments as they arrive; pool everything and stop at the budget")
    runs, exclude = _pool_inputs(args, args.depth)
    pool = build_pool(runs, args.depth, exclude=exclude)
    if exclude is not None and pool.n_pairs == 0:
        warn("pool", f"every pooled pair is already judged in "
             f"{args.exclude or f'dataset {args.dataset}'}; the pool is empty")
    spec = specs[0]  # a static order is the plan of its policy, without making the policy
    order = (make_policy(spec, pool, seed=args.seed).plan() if is_adaptive(spec)
             else static_order(pool, spec.name, **dict(spec.params)))
    rows, ranks, _ = budget_rows(pool, order, budget=args.budget, floor=args.floor)
    write_pool(pool_table(pool, rows, ranks, n_runs=pool.pair_column("n_runs")[rows]),
               args.output)  # an Arrow table: no pandas unless a policy or --stats needs it
    if args.stats:
        kept = np.zeros(pool.n_pairs, dtype=bool)
        kept[rows] = True
        _print_stats(pool.subset(kept), sys.stderr if args.output == "-" else sys.stdout)
    return 0


def _sample(args: argparse.Namespace) -> int:
    from pooljudge.formats.trec import write_pool
    from pooljudge.kernels import numpy_of
    from pooljudge.pooling import build_pool
    from pooljudge.pooling.sampling import parse_design, sample_table, stratum_summary
    from pooljudge.pooling.static_orders import static_order
    from pooljudge.pooling.strategies import is_adaptive

    _check_common(args)
    if args.floor:
        raise UsageError(f"--floor does not apply to --sample: to judge every run's top "
                         f"{args.floor}, give that stratum rate 1, e.g. strata({args.floor}:1.0,"
                         f"{args.depth}:0.1)")
    if args.exclude is not None or args.dataset is not None:
        option = "--exclude" if args.exclude is not None else "--dataset"
        raise UsageError(f"{option} does not apply to --sample: the inclusion probabilities "
                         "refer to the whole pool; sample it, then judge the sampled pairs")
    specs = _specs(args, (DEFAULT_STRATEGY,))
    spec = specs[0]
    if len(specs) > 1 or is_adaptive(spec):
        raise UsageError("--sample orders the sampled pairs by one static --strategy (the "
                         "sample is fixed before any judgment)")
    design = parse_design(args.sample, source="--sample").at_depth(args.depth)
    if args.explicit_depth is not None and design.depth != args.explicit_depth:
        raise UsageError(f"--depth {args.explicit_depth} disagrees with --sample {design}, "
                         f"of depth {design.depth}")
    assert design.depth is not None  # at_depth gave it --depth's (which has a default)
    pool = build_pool(_pool_inputs(args, design.depth)[0], design.depth)
    if args.budget is not None and args.budget >= pool.n_pairs:
        warn("pool", f"--budget {args.budget} covers the whole pool ({pool.n_pairs} pairs): "
             "every pair is sampled")
    order = static_order(pool, spec.name, **dict(spec.params))
    table = sample_table(pool, design, budget=args.budget, seed=args.seed, order=order)
    write_pool(table, args.output)  # an Arrow table: no pandas on this path
    if args.stats:
        stream = sys.stderr if args.output == "-" else sys.stdout
        sampled = int(numpy_of(table.column("sampled")).sum())
        print(f"sampled pool: {design}, seed {args.seed}: {sampled} of "
              f"{table.num_rows} pairs, {len(pool.topics)} topics", file=stream)
        print(stratum_summary(table, design).to_string(index=False), file=stream)
    return 0


def _pool_inputs(args: argparse.Namespace, depth: int):
    """The runs to pool (name, run) and the ``--exclude`` qrels (or None), at the level of
    ``--units``/``--level``: without ``--units`` each run is cut to its top ``depth`` as it is
    read; with it runs are read whole, since a document's place depends on all its chunks."""
    from pooljudge.cli.units_inputs import load_units, qrels_at, run_levels, runs_at
    from pooljudge.formats.trec import read_qrels

    refuse_both(args, "--exclude", args.exclude, "qrels")
    units = load_units(args, "pool")
    exclude = read_qrels(args.exclude) if args.exclude else dataset_qrels(args)
    if units is None:
        return read_runs(args.runs, depth=depth), exclude
    level, runs = args.level, read_runs(args.runs)
    if level is None:  # every run's level decides: read them all first
        held = dict(runs)
        level = "chunk" if set(run_levels(held, units).values()) == {"chunk"} else "doc"
        runs = ((name, held.pop(name)) for name in list(held))
    if exclude is not None:
        exclude = qrels_at(exclude, units, level, path=args.exclude or f"dataset {args.dataset}",
                           command="pool")[0]
    return runs_at(runs, units, level), exclude


def _print_stats(pool, stream) -> None:
    from pooljudge.pooling.stats import run_contributions, run_overlap, topic_sizes

    sizes = topic_sizes(pool)
    print(f"pool: {len(pool.pairs)} pairs, {len(sizes)} topics, depth {pool.depth}",
          file=stream)
    print("\npool size per topic", file=stream)
    print(sizes.to_string(index=False), file=stream)
    print("\nrun contributions (pooled pairs; unique = retrieved by no other run)", file=stream)
    print(run_contributions(pool).to_string(index=False), file=stream)
    print("\nrun-to-run overlap (pooled pairs both runs retrieved)", file=stream)
    print(run_overlap(pool).to_string(), file=stream)
