"""``pooljudge simulate``: simulated annotators judge a campaign through the real claim path.

N annotators (``sim-01``…) are split over W processes; each process opens its own engine and,
round-robin over its annotators, claims the next pair (:func:`pooljudge.annotate.store.next_pair`)
and
records a label (:func:`pooljudge.annotate.store.record_judgment`), one transaction each, exactly
as the
browser does, until none of its annotators gets a pair. A label is the truth (pairs absent from
the truth qrels count as the scale's lowest label), replaced with probability E by another label
of the scale drawn uniformly.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING

from pooljudge.cli import Subcommands
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import add_db_option, positive_int, probability, seed, summary
from pooljudge.cli.output import print_frame
from pooljudge.errors import InputError, PoolJudgeError, UsageError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["MAX_ANNOTATORS", "MAX_WORKERS", "budget_option", "register", "simulate_designs_cmd",
           "simulate_worker"]

MAX_ANNOTATORS = 1000
MAX_WORKERS = 64


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "simulate", help="simulated annotators judge a campaign from true labels",
        description=summary(__doc__))
    parser.add_argument("--campaign", required=True, metavar="CAMPAIGN", help="the campaign's name")
    parser.add_argument("--truth", required=True, metavar="QRELS", help="true labels (qrels)")
    parser.add_argument("--annotators", type=positive_int(MAX_ANNOTATORS), default=2,
                        metavar="N", help="simulated annotators (at least the overlap; "
                                          f"default 2, at most {MAX_ANNOTATORS})")
    parser.add_argument("--workers", type=positive_int(MAX_WORKERS), default=1, metavar="W",
                        help=f"parallel processes (default 1, at most {MAX_WORKERS})")
    parser.add_argument("--error", type=probability, default=0.0, metavar="E",
                        help="probability that a label is replaced by another (default 0)")
    parser.add_argument("--seed", type=seed, default=0, help="random seed (default 0)")
    add_db_option(parser)
    parser.set_defaults(handler=_simulate)


def simulate_worker(url: str, annotator_ids: list[int], truth: dict[tuple[str, str], int],
                    values: list[int], error: float, seed: int) -> int:
    """Judge with ``annotator_ids`` in turn until none gets a pair; the judgments written."""
    import numpy as np

    from pooljudge.annotate.store import next_pair, open_engine, record_judgment, session_scope

    rng = np.random.default_rng(seed)
    engine = open_engine(url)
    active, written = list(annotator_ids), 0
    try:
        while active:
            for annotator in list(active):
                started = time.perf_counter()
                with session_scope(engine) as session:
                    view = next_pair(session, annotator_id=annotator)
                if view is None:
                    active.remove(annotator)
                    continue
                label = _label(truth.get((view.topic_id, view.doc_id), values[0]), values,
                               error, rng)
                with session_scope(engine) as session:
                    record_judgment(session, annotator_id=annotator, pair_id=view.pair_id,
                                    label=label, seconds=time.perf_counter() - started,
                                    source="automatic")
                written += 1
    finally:
        engine.dispose()
    return written


def _run_workers(jobs: list[tuple]) -> int:
    """Run :func:`simulate_worker` once per job, each in its own spawned process that dies with
    this one; the judgments written in all."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from pooljudge.lifetime import die_with_parent

    # Unlike multiprocessing.Pool, which waits forever for a worker that died, the executor
    # fails with BrokenProcessPool; judgments already written stay (each is its own commit).
    try:
        with ProcessPoolExecutor(len(jobs), mp_context=multiprocessing.get_context("spawn"),
                                 initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
            return sum(pool.map(simulate_worker, *zip(*jobs, strict=True)))
    except BrokenProcessPool:
        raise PoolJudgeError("a simulating process died; the judgments it had committed "
                             "stay, run simulate again to finish") from None


def _label(true: int, values: list[int], error: float, rng: np.random.Generator) -> int:
    if true not in values:
        true = min(values, key=lambda v: abs(v - true))
    if error > 0 and rng.random() < error and len(values) > 1:
        others = [v for v in values if v != true]
        return int(others[rng.integers(len(others))])
    return int(true)


def _simulate(args: argparse.Namespace) -> int:
    from pooljudge.annotate.store import database_url, get_campaign, progress, session_scope
    from pooljudge.formats.trec import read_qrels

    qrels = read_qrels(args.truth)
    truth = dict(zip(zip(qrels["topic"], qrels["doc"], strict=True),
                     qrels["label"].astype(int).tolist(), strict=True))
    url = database_url(args.db)
    with open_database(args) as engine, session_scope(engine) as session:
        campaign = get_campaign(session, name=args.campaign)
        if args.annotators < campaign.overlap:
            raise UsageError(f"--annotators: {args.annotators} cannot meet the overlap "
                             f"{campaign.overlap}")
        ids = [_ensure_annotator(session, args.campaign, i)
               for i in range(1, args.annotators + 1)]
    groups = [ids[w::args.workers] for w in range(args.workers) if ids[w::args.workers]]
    jobs = [(url, group, truth, list(campaign.scale.values), args.error, args.seed * 1000 + w)
            for w, group in enumerate(groups)]
    started = time.perf_counter()
    written = _run_workers(jobs)
    elapsed = time.perf_counter() - started
    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        per_topic = progress(session, campaign=args.campaign)
    print(f"{written} judgments by {len(ids)} simulated annotators in {len(jobs)} processes, "
          f"{elapsed:.1f} s ({written / max(elapsed, 1e-9):.0f}/s)", file=sys.stderr)
    print_frame(_totals(per_topic), "table")
    return 0


def _ensure_annotator(session, campaign: str, i: int) -> int:
    """The id of simulated annotator ``sim-NN``, created (or re-activated) when needed."""
    from pooljudge.annotate.store import add_annotator, annotator_id

    name = f"sim-{i:02d}"
    try:
        return annotator_id(session, campaign=campaign, name=name)
    except InputError:
        add_annotator(session, campaign=campaign, name=name)
        return annotator_id(session, campaign=campaign, name=name)


def _totals(per_topic: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd
    total = per_topic[["pairs", "judgments_needed", "judgments_done"]].sum()
    return pd.DataFrame([{"topics": len(per_topic), **total.to_dict()}])


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
    """``pooljudge pool simulate QRELS RUN... --sample DESIGN...``: estimates from seeded draws
    of each design × budget against complete qrels (:mod:`pooljudge.metrics.design_simulation`)."""
    from pooljudge.cli.inputs import read_runs
    from pooljudge.cli.output import records, render
    from pooljudge.formats.trec import read_qrels
    from pooljudge.metrics.design_simulation import DEFAULT_ESTIMATORS, simulate_designs
    from pooljudge.pooling import build_pool
    from pooljudge.pooling.sampling import parse_design

    if len(args.runs) < 3:
        raise UsageError("pool simulate needs QRELS and at least one RUN")
    designs = [parse_design(text, source="--sample").at_depth(args.depth)
               for text in args.sample]
    depths = {d.depth for d in designs}
    if len(depths) > 1:
        raise UsageError(f"the --sample designs disagree on the depth ({sorted(depths)}): "
                         "they are compared on one pool")
    depth = depths.pop()
    if args.explicit_depth is not None and depth != args.explicit_depth:
        raise UsageError(f"--depth {args.explicit_depth} disagrees with --sample {designs[0]}, "
                         f"of depth {depth}")
    measures = args.measure or list(DEFAULT_ESTIMATORS)
    truth = read_qrels(args.runs[1])
    runs = dict(read_runs(args.runs[2:]))
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

    from pooljudge.formats.files import atomic_writer

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
