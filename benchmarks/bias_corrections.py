"""Can a delete-one jackknife remove the ratio estimators' bias? Measured on robust03.

statAP, statNDCG, xinfAP and infNDCG are ratios and biased (docs/guides/sampled-pools.md, "Why
the ratio estimators cannot be made unbiased"). This script measures how much of that bias the
stratified delete-one jackknife removes, by simulation with the real sampler, as the tests'
simulation does: the
depth-100 pool of the 17 robust03 runs (qrels topics), labelled by the qrels, each run's top
100, 20% of the pool judged, ``--draws`` seeded draws (seed 7) of each design.

Per draw, run and topic, with θ̂ the estimate and θ̂_(d) the estimate without judged pair d,
the rest of d's (topic, stratum) cell reweighted by n_c/(n_c − 1) (so the cell still stands for
its N_c pooled pairs; for xinfAP and infNDCG this is the package's own delete-one influence):

    θ̃ = θ̂ + Σ_c ((n_c − 1)/n_c) Σ_{d ∈ c} (θ̂ − θ̂_(d))      (the jackknife's bias estimate, less)

over the judged pairs of π < 1 in cells with at least two of them (a cell judged whole, or
pps's take-all pairs, adds 0). θ̂_(d) is computed by brute force: replicate j of a draw deletes
the j-th such pair of every topic at once (topics are independent), and every replicate is
estimated in one stacked call (:func:`pooljudge.metrics.uncertainty.stack_weights`).

Printed per design and estimator, plain and jackknife, over the 17 runs: the bias of the mean
over topics in SEs of the mean error (SE = sd / sqrt(draws); min, median, max), the runs within
3 SE, the bias relative to the true mean, the RMSE over the plain one's, and the median over
runs of the standard deviation over the draws over the plain one's.

    POOLJUDGE_SHARED_DATA=... .venv/bin/python benchmarks/bias_corrections.py [--draws 500]
        [--designs pps strata] [--estimators statAP xinfAP]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

import numpy as np
from pooljudge.metrics.eval_inputs import load_qrels
from pooljudge.metrics.join import Ranking, join
from pooljudge.metrics.prels import Prels, bind_prels
from pooljudge.metrics.registry import Measure, parse
from pooljudge.metrics.uncertainty import stack_weights, stacked_ranking
from pooljudge.pooling.pool import build_pool
from pooljudge.pooling.sampling import Plan, draw, parse_design, plan_sample

from pooljudge.formats.trec import read_qrels, read_run, run_columns
from pooljudge.ground.progress import progress
from pooljudge.kernels.ranking import rank_run

DEPTH, RATE, SEED = 100, 0.2, 7
EXACT = {"statAP": "AP", "statNDCG": "nDCG", "xinfAP": "AP", "infNDCG": "nDCG"}


def robust03(folder: Path) -> tuple:
    """(the depth-100 pool, its pairs labelled by the qrels (0 without a line), every run's top
    100) of the robust03 runs, restricted to the qrels topics."""
    qrels = read_qrels(folder / "qrels.txt")
    runs = {path.name: read_run(path) for path in sorted((folder / "runs").iterdir())}
    runs = {name: run[run["topic"].isin(set(qrels["topic"]))] for name, run in runs.items()}
    pool = build_pool(runs, depth=DEPTH)
    labels = pool.pairs[["topic", "doc"]].merge(qrels, on=["topic", "doc"], how="left")
    tops = [rank_run(run).query("rank <= @DEPTH")[["topic", "doc", "score"]]
            for run in runs.values()]
    return pool, labels.fillna({"label": 0}), tops


def design_of(kind: str, pool) -> str:
    """``pps(prior=ap)`` at RATE, or ``strata(10:1.0,100:r)`` with r such that RATE is judged."""
    if kind == "pps":
        return f"pps(prior=ap,depth={DEPTH},rate={RATE})"
    top = int((pool.pairs["best_rank"] <= 10).sum())
    rest = (RATE * len(pool.pairs) - top) / (len(pool.pairs) - top)
    return f"strata(10:1.0,{DEPTH}:{rest:.4f})"


def deletions(p: Prels) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(replicates × rows weights, the deleted rows, each one's replicate, (n_c − 1)/n_c): row d
    of a cell with n_c >= 2 judged rows of π < 1 is deleted in replicate j (d the j-th such row
    of its topic), the other rows of its cell weighted n_c/(n_c − 1)."""
    eligible = (p.weight > 0) & (p.inclusion < 1.0) & (p.topic >= 0)
    n = p.per_cell(eligible.astype(np.float64))
    rows = np.flatnonzero(eligible & (n[p.cell] > 1))
    rows = rows[np.argsort(p.topic[rows], kind="stable")]
    topic, cell = p.topic[rows], p.cell[rows]
    replicate = np.arange(len(rows)) - np.searchsorted(topic, topic)
    count = int(replicate.max()) + 1 if len(rows) else 0
    deleted_cell = np.full((count, p.n_topics), -1)
    deleted_cell[replicate, topic] = cell
    weights = np.repeat(p.weight[None, :], count, axis=0)
    scale = n[cell] / (n[cell] - 1)
    weights[:, rows] = np.where(deleted_cell[:, topic] == cell[None, :], scale[None, :], 1.0)
    weights[replicate, rows] = 0.0
    return weights, rows, replicate, (n[cell] - 1) / n[cell]


def jackknifed(ranking: Ranking, m: Measure, theta: np.ndarray, p: Prels, deleted: tuple
               ) -> np.ndarray:
    """Per topic θ̃ (module docstring) from the plain θ̂ and :func:`deletions`' output."""
    weights, rows, replicate, factor = deleted
    if not len(rows):
        return theta
    batch = stack_weights(p, weights)
    without = m.spec.compute(stacked_ranking(ranking, batch), m).reshape(len(weights), -1)
    topic = p.topic[rows]
    return theta + np.bincount(topic, weights=factor * (theta[topic] - without[replicate, topic]),
                               minlength=len(theta))


def simulate(kind: str, data: tuple, names: list[str], draws: int) -> dict[str, tuple]:
    """Per estimator: (true per-run means, plain and jackknife per-draw per-run means)."""
    pool, labels, tops = data
    plan: Plan = plan_sample(pool, parse_design(design_of(kind, pool)))
    prepared = load_qrels(labels)
    prels = bind_prels(labels.assign(label=labels["label"].astype("Int64"),
                                     stratum=plan.stratum, inclusion=plan.inclusion), prepared)
    rankings = [join(prepared, run_columns(top), prels=prels) for top in tops]
    measures = [parse(name) for name in names]
    truth = {m: np.array([parse(EXACT[m.name]).spec.compute(r, parse(EXACT[m.name])).mean()
                          for r in rankings]) for m in measures}
    plain = {m: np.empty((draws, len(rankings))) for m in measures}
    fixed = {m: np.empty((draws, len(rankings))) for m in measures}
    rng = np.random.default_rng(SEED)
    for index in progress(range(draws), desc=kind, unit="draw"):
        w = draw(plan, rng).astype(np.float64)
        p = dataclasses.replace(prels, label=np.where(w > 0, prels.label, prels.missing),
                                weight=w, _cache={})  # a pair not drawn is unjudged
        deleted = deletions(p)
        for run, ranking in enumerate(rankings):
            replica = dataclasses.replace(ranking, prels=p, _cache={})
            for m in measures:
                theta = m.spec.compute(replica, m)
                plain[m][index, run] = theta.mean()
                fixed[m][index, run] = jackknifed(replica, m, theta, p, deleted).mean()
    return {str(m): (truth[m], plain[m], fixed[m]) for m in measures}


def summary(truth: np.ndarray, plain: np.ndarray, fixed: np.ndarray) -> list[str]:
    """The plain and jackknife lines of one estimator (module docstring)."""
    lines = []
    plain_rmse, plain_sd = np.sqrt(((plain - truth) ** 2).mean(axis=0)), plain.std(axis=0, ddof=1)
    for name, values in (("plain", plain), ("jackknife", fixed)):
        error = values - truth
        bias, sd = error.mean(axis=0), error.std(axis=0, ddof=1)
        in_se = bias / (sd / np.sqrt(len(error)))
        relative = bias / truth
        rmse = np.sqrt((error ** 2).mean(axis=0)) / plain_rmse
        lines.append(f"    {name:10s} bias/SE {in_se.min():6.1f} {np.median(in_se):6.1f} "
                     f"{in_se.max():6.1f}  within 3 SE {int((abs(in_se) <= 3).sum()):2d}/"
                     f"{len(bias)}  bias/truth {relative.min():+.3f}..{relative.max():+.3f}  "
                     f"RMSE/plain {rmse.min():.2f}-{rmse.max():.2f}  "
                     f"sd/plain (median) {np.median(sd / plain_sd):.2f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("POOLJUDGE_SHARED_DATA"))
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--designs", nargs="+", choices=("pps", "strata"),
                        default=["pps", "strata"])
    parser.add_argument("--estimators", nargs="+", choices=sorted(EXACT),
                        default=["statAP", "xinfAP", "statNDCG", "infNDCG"])
    args = parser.parse_args(argv)
    if not args.data:
        parser.error("set POOLJUDGE_SHARED_DATA or --data to the shared data folder")
    if args.draws < 2:
        parser.error("--draws must be at least 2 (the SE of the mean error needs two)")
    data = robust03(Path(args.data) / "robust03")
    for kind in args.designs:
        print(f"{design_of(kind, data[0])}, {args.draws} draws (seed {SEED})")
        for name, (truth, plain, fixed) in simulate(kind, data, args.estimators,
                                                    args.draws).items():
            print(f"  {name}")
            print("\n".join(summary(truth, plain, fixed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
