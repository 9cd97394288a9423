"""``pooljudge simulate orders|designs|annotators|review|collection``: what-ifs on complete
qrels.

``orders`` compares judging orders and ``designs`` sampling designs on complete qrels
(:mod:`pooljudge.cli.simulate_pools`); ``review`` replays CAL with stopping rules
(:mod:`pooljudge.cli.simulate_review_cmd`); ``collection`` generates a review collection
(:mod:`pooljudge.cli.simulate_collection`). ``annotators``: simulated annotators judge a campaign
through the real claim path. N annotators (``sim-01``…) are split over W processes; each
process opens its own engine and, round-robin over its annotators, claims the next pair
(:func:`pooljudge.annotate.store.next_pair`) and records a label
(:func:`pooljudge.annotate.store.record_judgment`), one transaction each, exactly as the
browser does, until none of its annotators gets a pair. A label is the truth (pairs absent
from the truth qrels count as the scale's lowest label), replaced with probability E by
another label of the scale drawn uniformly.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING

from pooljudge.cli import Subcommands
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import (
    MAX_COUNT,
    MAX_DEPTH,
    add_db_option,
    int_range,
    positive_int,
    probability,
    seed,
    summary,
)
from pooljudge.cli.output import print_frame
from pooljudge.cli.simulate_collection import register_collection
from pooljudge.cli.simulate_pools import (
    DEFAULT_DRAWS,
    DEFAULT_SIMULATE,
    budget_option,
    simulate_designs_cmd,
    simulate_orders_cmd,
)
from pooljudge.cli.simulate_review_cmd import register_review
from pooljudge.errors import InputError, PoolJudgeError, UsageError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["MAX_ANNOTATORS", "MAX_WORKERS", "register", "simulate_worker"]

MAX_ANNOTATORS = 1000
MAX_WORKERS = 64


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "simulate", help="compare judging orders or sampling designs on complete qrels, or "
                         "judge a campaign by simulated annotators",
        description=summary(__doc__))
    actions = parser.add_subparsers(title="actions", metavar="ACTION", dest="action",
                                    parser_class=type(parser))
    actions.required = True
    _register_orders(actions)
    _register_designs(actions)
    _register_annotators(actions)
    register_review(actions)
    register_collection(actions)


def _add_pool_inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", metavar="QRELS", help="complete qrels: the true labels")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run files (plain or gzip)")
    parser.add_argument("--seed", type=seed, default=0, help="seed of the draws (default 0)")
    parser.add_argument("--plot", metavar="FILE", help="write the plot as PNG")


def _register_orders(actions: Subcommands) -> None:
    parser = actions.add_parser(
        "orders", help="judging orders: share of the relevant pairs found as the pool is judged",
        description="Judge the depth-k pool of the runs in each --strategy order, labels "
                    "from QRELS: the share of the pool's relevant pairs found after judging "
                    "x%% of the pool, and the share needed to find 90%%. Strategies: "
                    "pooljudge pool --help.")
    _add_pool_inputs(parser)
    parser.add_argument("--depth", type=positive_int(MAX_DEPTH), default=100,
                        help="pool depth k (default 100)")
    parser.add_argument("--strategy", action="append", metavar="NAME",
                        help=f"judging order (may repeat; default {' '.join(DEFAULT_SIMULATE)})")
    parser.add_argument("--rel", type=int_range(), default=1,
                        help="relevant means label >= R (default 1)")
    parser.add_argument("--format", choices=("table", "tsv"), default="table",
                        help="report format (default table)")
    parser.set_defaults(handler=simulate_orders_cmd)


def _register_designs(actions: Subcommands) -> None:
    parser = actions.add_parser(
        "designs", help="sampling designs: bias and RMSE of the estimates, from seeded draws",
        description="Per --sample design x --budget, R seeded draws are judged from QRELS and "
                    "every run is estimated: per run the bias and RMSE against the exact "
                    "measure, and Kendall's tau and tau_AP of the system rankings. Designs: "
                    "pooljudge pool --help.")
    _add_pool_inputs(parser)
    parser.add_argument("--sample", metavar="DESIGN", action="append", required=True,
                        help="a sampling design (may repeat)")
    parser.add_argument("--budget", type=budget_option, action="append", metavar="N",
                        help="N sampled pairs over all topics or P%% of the pool (may repeat; "
                             "default: the design's own rates)")
    parser.add_argument("--depth", type=positive_int(MAX_DEPTH),
                        help="pool depth of designs that name none (default 100)")
    parser.add_argument("--draws", type=positive_int(MAX_COUNT), default=DEFAULT_DRAWS,
                        metavar="R", help=f"seeded draws per design and budget "
                                          f"(default {DEFAULT_DRAWS})")
    parser.add_argument("-m", "--measure", action="append", metavar="ESTIMATOR",
                        help="estimator (may repeat; default statAP xinfAP statPrec@10)")
    parser.add_argument("--format", choices=("table", "tsv", "json"), default="table",
                        help="report format (default table)")
    parser.set_defaults(handler=simulate_designs_cmd)


def _register_annotators(actions: Subcommands) -> None:
    parser = actions.add_parser(
        "annotators", help="simulated annotators judge a campaign from true labels",
        description="N simulated annotators (sim-01...) judge the campaign through the real "
                    "claim path, split over W processes; a label is the truth, replaced with "
                    "probability E by another label of the scale.")
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

    from pooljudge.ground.lifetime import die_with_parent

    # Unlike multiprocessing.Pool, which waits forever for a worker that died, the executor
    # fails with BrokenProcessPool; judgments already written stay (each is its own commit).
    try:
        with ProcessPoolExecutor(len(jobs), mp_context=multiprocessing.get_context("spawn"),
                                 initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
            return sum(pool.map(simulate_worker, *zip(*jobs, strict=True)))
    except BrokenProcessPool:
        raise PoolJudgeError("a simulating process died; the judgments it had committed "
                             "stay, run simulate annotators again to finish") from None


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
