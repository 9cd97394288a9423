"""``pooljudge simulate orders`` and ``pooljudge simulate designs``: judging orders and sampling
designs compared on complete qrels.

``orders``: every ``--strategy`` judges the depth-k pool of the runs in its order, the qrels
giving the labels; it reports the share of the pool's relevant pairs found after judging
x% of the pool, and the share needed to find 90% (:func:`pooljudge.pooling.simulate`).

``designs`` (:mod:`pooljudge.metrics.design_simulation`): per design × budget (N pairs or P% of
the depth-k pool; the design's own rates without ``--budget``), R seeded draws are judged from
the qrels and every run is estimated (``-m``, default statAP xinfAP statPrec@10); it reports
per run the bias and RMSE against the exact measure, and Kendall's tau and tau_AP of the system
rankings.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from pooljudge.cli.inputs import read_runs
from pooljudge.errors import UsageError
from pooljudge.formats.files import atomic_writer

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DEFAULT_DRAWS", "DEFAULT_SIMULATE", "budget_option", "simulate_designs_cmd",
           "simulate_orders_cmd"]

DEFAULT_DRAWS = 100
DEFAULT_SIMULATE = ("docid", "take@1", "borda", "rrf", "combmnz", "rbp-sum", "mtf", "maxmean",
                    "thompson")


def _check(args: argparse.Namespace) -> None:
    if len(args.runs) < 1:
        raise UsageError(f"simulate {args.action} needs QRELS and at least one RUN")
    if args.seed < 0:
        raise UsageError(f"--seed must not be negative, got {args.seed}")


def simulate_orders_cmd(args: argparse.Namespace) -> int:
    """``pooljudge simulate orders QRELS RUN...``: found-relevant curves of each judging order."""
    from pooljudge.formats.trec import read_qrels
    from pooljudge.pooling import build_pool, simulate, summary
    from pooljudge.pooling.strategies import parse_strategy

    _check(args)
    specs = [parse_strategy(s, source="--strategy") for s in (args.strategy or DEFAULT_SIMULATE)]
    truth = read_qrels(args.qrels)
    pool = build_pool(read_runs(args.runs, depth=args.depth), args.depth)
    curves = simulate(pool, truth, specs, seed=args.seed, rel=args.rel)
    table = summary(curves)
    if args.plot:
        _plot(curves, args.plot, title=f"{len(pool.run_names)} runs, depth {args.depth}")
    if args.format == "tsv":
        table.to_csv(sys.stdout, sep="\t", index=False, lineterminator="\n")
    else:
        relevant = curves[0].total_relevant if curves else 0
        print(f"pool: {len(pool.pairs)} pairs, {relevant} relevant (label >= {args.rel}); "
              "share of them found after judging x% of the pool, and share needed for 90%")
        shown = table.copy()
        for column in shown.columns[1:]:
            shown[column] = shown[column].map(lambda v: f"{100 * v:.1f}%")
        print(shown.to_string(index=False))
    return 0


def _plot(curves, path: str, *, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    figure, axes = plt.subplots(figsize=(7, 5), dpi=120)
    for curve in curves:
        judged = np.arange(1, curve.pool_size + 1) / curve.pool_size
        axes.plot(judged, curve.found / max(curve.total_relevant, 1), label=curve.strategy,
                  linewidth=1.2)
    axes.set_xlabel("share of the pool judged")
    axes.set_ylabel("share of the pool's relevant documents found")
    axes.set_title(title)
    axes.grid(alpha=0.3)
    axes.legend(loc="lower right", fontsize="small")
    with atomic_writer(path, mode="wb") as handle:
        figure.savefig(handle, format="png", metadata={"Software": None})
    plt.close(figure)


def budget_option(text: str) -> int | float:
    """``--budget``: N pairs (an int from 1) or ``P%`` of the pool (a float share in (0, 1])."""
    from pooljudge.cli.options import MAX_COUNT, positive_int

    if not text.strip().endswith("%"):
        return positive_int(MAX_COUNT)(text)
    try:
        share = float(text.strip()[:-1]) / 100
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be N or P%, got {text!r}") from None
    if not 0.0 < share <= 1.0:
        raise argparse.ArgumentTypeError(f"a share must lie in (0%, 100%], got {text!r}")
    return share


def simulate_designs_cmd(args: argparse.Namespace) -> int:
    """``pooljudge simulate designs QRELS RUN... --sample DESIGN...``: estimates from seeded draws
    of each design × budget against complete qrels (:mod:`pooljudge.metrics.design_simulation`)."""
    from pooljudge.cli.output import records, render
    from pooljudge.formats.trec import read_qrels
    from pooljudge.metrics.design_simulation import DEFAULT_ESTIMATORS, simulate_designs
    from pooljudge.pooling import build_pool
    from pooljudge.pooling.sampling import parse_design

    _check(args)
    args.explicit_depth, args.depth = args.depth, args.depth or 100
    designs = [parse_design(text, source="--sample").at_depth(args.depth)
               for text in args.sample]
    depths = {d.depth for d in designs if d.depth is not None}  # at_depth: every one has one
    if len(depths) > 1:
        raise UsageError(f"the --sample designs disagree on the depth ({sorted(depths)}): "
                         "they are compared on one pool")
    depth = depths.pop()
    if args.explicit_depth is not None and depth != args.explicit_depth:
        raise UsageError(f"--depth {args.explicit_depth} disagrees with --sample {designs[0]}, "
                         f"of depth {depth}")
    measures = args.measure or list(DEFAULT_ESTIMATORS)
    truth = read_qrels(args.qrels)
    runs = dict(read_runs(args.runs))
    pool = build_pool(runs, depth)
    started = time.perf_counter()
    result = simulate_designs(truth, runs, pool, designs, args.budget or [None],
                              draws=args.draws, seed=args.seed, measures=measures)
    print(f"{len(designs)} design(s) x {len(args.budget or [None])} budget(s) x {args.draws} "
          f"draws, {len(runs)} runs, pool of {len(pool.pairs)} pairs (depth {depth}): "
          f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    if args.plot:
        _plot_rmse(result.summary, args.plot)
    if args.format == "json":
        import json
        print(json.dumps({"summary": records(result.summary), "runs": records(result.runs)},
                         indent=1))
    elif args.format == "tsv":
        print(render(result.runs.merge(
            result.summary[["design", "budget", "measure", "tau", "tau_ap"]],
            on=["design", "budget", "measure"]), "tsv"), end="")
    else:
        print(render(result.summary, "table"))
        print()
        print(render(result.runs, "table"))
    return 0


def _plot_rmse(summary: pd.DataFrame, path: str) -> None:
    """RMSE of the MAP estimates against the budget (pairs judged), one line per design and
    AP estimator; written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ap = summary[summary["exact"] == "AP"]
    if ap.empty:
        raise UsageError("--plot draws the RMSE of MAP: add -m statAP or -m xinfAP")
    figure, axes = plt.subplots(figsize=(7, 5), dpi=120)
    for (design, measure), lines in ap.groupby(["design", "measure"], sort=False):
        lines = lines.sort_values("pairs")
        axes.plot(lines["pairs"], lines["rmse"], marker="o", linewidth=1.2,
                  label=f"{measure}: {design}")
    axes.set_xlabel("sampled pairs judged (all topics)")
    axes.set_ylabel("RMSE of the MAP estimate")
    axes.grid(alpha=0.3)
    axes.legend(loc="upper right", fontsize="small")
    with atomic_writer(path, mode="wb") as handle:
        figure.savefig(handle, format="png", metadata={"Software": None})
    plt.close(figure)
