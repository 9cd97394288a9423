r"""Choosing a sampling design before judging: how well do its estimates track complete qrels?

Given complete qrels, runs, their depth-k pool and sampling designs
(:mod:`pooljudge.pooling.sampling`),
:func:`simulate_designs` plays each design × budget ``draws`` times with seeded draws of the
design itself (:func:`pooljudge.pooling.sampling.draw`). A draw is judged from the qrels: every
sampled
pair gets its qrels label, and **a sampled pair without a qrels line counts as non-relevant
(label 0)**; the pairs not drawn stay unjudged. Each run is then estimated by every estimator
(:mod:`pooljudge.metrics.estimators`; by default statAP, xinfAP and statPrec@10) and compared with
the
matching exact measure on the complete qrels: AP for statAP and xinfAP, P@k for statPrec@k,
nDCG(@k) for infNDCG and statNDCG (same parameters otherwise).

Per run r, estimator m and design × budget, over the R draws with estimates ê_1..ê_R of the
exact value e (both means over the qrels topics; a topic the run lacks scores 0):

- ``bias`` = mean(ê) − e, ``rmse`` = sqrt(mean((ê − e)²)), ``sd`` = the draws' standard
  deviation (ddof 0, so rmse² = bias² + sd²).
- ``pool_gap`` = e_k − e, where e_k is the exact measure on the judgments of the depth-k pool
  alone (what judging every pooled pair gives, and what every estimator gives at π = 1): the
  estimators never see relevant documents outside the pool, so ``pool_gap`` is a part of the
  bias that no design removes (on robust03 at depth 100, about +0.03 in MAP). bias − pool_gap
  is the design's own bias.

Per design × budget and estimator, the summary holds the runs' mean |bias|, the root of the
runs' mean squared error, and the mean over draws of Kendall's tau-b and of tau_AP
(Yilmaz, Aslam and Robertson 2008; :func:`pooljudge.metrics.correlate.tau_ap`, ties broken by run
name)
between the estimated and the exact system orderings (NaN with fewer than two runs).

Speed: each run is joined with the qrels and the prels once; a draw only changes the prels
row weights (0/1), so a batch of draws is stacked as one prels of batch × topics and every
estimator computes all of them in one vectorised call per run, as the bootstrap of
:mod:`pooljudge.metrics.uncertainty` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from pooljudge.metrics.correlate import kendall_tau, ordering, tau_ap
from pooljudge.metrics.estimators import needs_prels
from pooljudge.metrics.eval_inputs import load_qrels
from pooljudge.metrics.join import Ranking, join
from pooljudge.metrics.prels import Prels, bind_prels
from pooljudge.metrics.registry import Measure, parse
from pooljudge.metrics.uncertainty import estimates_under, stack_weights
from pooljudge.pooling.sampling import Design, Plan, draw, plan_sample

from pooljudge.errors import InputError, UsageError
from pooljudge.formats.trec import RunColumns

if TYPE_CHECKING:
    import pandas as pd
    from pooljudge.pooling.pool import Pool

__all__ = ["DEFAULT_ESTIMATORS", "EXACT_OF", "DesignSimulation", "exact_measure",
           "resolve_budget", "simulate_designs"]

DRAW_ROWS = 1_000_000  # stacked prels rows per batch of draws (bounds the memory)
DEFAULT_ESTIMATORS = ("statAP", "xinfAP", "statPrec@10")
EXACT_OF = {"statAP": "AP", "xinfAP": "AP", "statPrec": "P", "infNDCG": "nDCG",
            "statNDCG": "nDCG"}


@dataclass(frozen=True)
class DesignSimulation:
    """``runs``: one row per design, budget, measure and run (``design budget pairs measure
    exact run exact_value pool_gap mean bias sd rmse``); ``summary``: one row per design,
    budget and measure (``design budget pairs measure exact pool_gap mean_abs_bias rmse tau
    tau_ap``, pool_gap the runs' mean)."""

    runs: pd.DataFrame
    summary: pd.DataFrame


def exact_measure(measure: Measure) -> Measure:
    """The exact measure an estimator estimates (module docstring); UsageError otherwise."""
    if not needs_prels(measure):
        raise UsageError(f"{measure} is not an estimator from sampled judgments: choose among "
                         f"{', '.join(sorted(EXACT_OF))}")
    return parse(str(measure).replace(measure.name, EXACT_OF[measure.name], 1))


def resolve_budget(budget: int | float | None, population: int) -> int | None:
    """A budget in pairs: an int as is, a float in (0, 1] as that share of the pool's
    ``population`` pairs (rounded, at least 1), None (the design's own rates) as is."""
    if budget is None or isinstance(budget, int):
        return budget
    return max(1, int(np.floor(budget * population + 0.5)))


def simulate_designs(
    qrels: pd.DataFrame, runs: Mapping[str, RunColumns], pool: Pool,
    designs: Sequence[Design], budgets: Sequence[int | float | None], *, draws: int,
    seed: int, measures: Sequence[str | Measure] = DEFAULT_ESTIMATORS,
) -> DesignSimulation:
    """Simulate every design × budget ``draws`` times (module docstring).

    ``qrels``: complete judgments (topic, doc, label); ``runs``: name -> run columns (whole
    runs: the measures read beyond the pool depth); ``pool``: their depth-k pool; ``budgets``
    as :func:`resolve_budget`. Same inputs and ``seed`` give the same frames. Raises
    UsageError for fewer than one draw or a measure that is no estimator, InputError as
    :func:`pooljudge.pooling.sampling.plan_sample` (a design whose depth is not the pool's, a budget
    too small for a design).
    """
    import pandas as pd

    if draws < 1:
        raise UsageError(f"--draws must be at least 1, got {draws}")
    if not runs:
        raise InputError("a design simulation needs at least one run")
    chosen = [m if isinstance(m, Measure) else parse(m) for m in measures]
    exact = [exact_measure(m) for m in chosen]
    prepared = load_qrels(qrels)
    frame = _complete_prels(pool, qrels)
    base = bind_prels(frame, prepared)
    names = list(runs)
    rankings = [join(prepared, runs[name], prels=base) for name in names]
    truth = np.array([[_mean(e.spec.compute(r, e)) for r in rankings] for e in exact])
    pooled = load_qrels(frame[["topic", "doc", "label"]])
    gap = np.array([[_mean(e.spec.compute(join(pooled, runs[name]), e)) for name in names]
                    for e in exact]) - truth
    run_rows, summary_rows = [], []
    for d, design in enumerate(designs):
        for b, budget in enumerate(budgets):
            pairs = resolve_budget(budget, len(pool.pairs))
            plan = plan_sample(pool, design, budget=pairs)
            bound = bind_prels(frame.assign(stratum=plan.stratum, inclusion=plan.inclusion),
                               prepared)
            under = [replace(r, prels=bound, _cache={}) for r in rankings]  # same rows, strata
            estimates = _estimates(bound, plan, under, chosen, draws,
                                   np.random.default_rng([seed, d, b]))
            key = {"design": str(design), "budget": _budget_label(budget),
                   "pairs": int(plan.size.sum())}
            for k, (measure, reference) in enumerate(zip(chosen, exact, strict=True)):
                run_rows += _per_run(key, measure, reference, names, truth[k], gap[k],
                                     estimates[:, k])
                summary_rows.append(
                    {**key, "measure": str(measure), "exact": str(reference),
                     "pool_gap": float(gap[k].mean()),
                     **_agreement(names, truth[k], estimates[:, k])})
    return DesignSimulation(pd.DataFrame(run_rows), pd.DataFrame(summary_rows))


def _estimates(prels: Prels, plan: Plan, rankings: list[Ranking],
               measures: list[Measure], draws: int, rng: np.random.Generator) -> np.ndarray:
    """Draws × measures × runs: each measure's mean over topics per draw. The draws come one
    after another from ``rng`` (so a batch size never changes them) and are estimated a batch
    at a time, as one stacked ranking of batch × topics per run
    (:func:`pooljudge.metrics.uncertainty.stack_weights`)."""
    estimates = np.empty((draws, len(measures), len(rankings)))
    judged = max(int(np.count_nonzero(prels.judged)), 1)
    size = max(1, min(draws, DRAW_ROWS // judged))
    for first in range(0, draws, size):
        count = min(size, draws - first)
        weights = np.stack([draw(plan, rng) for _ in range(count)]).astype(np.float64)
        batch = stack_weights(prels, weights)
        for j, ranking in enumerate(rankings):
            values = estimates_under(ranking, measures, batch)
            for k, measure in enumerate(measures):
                estimates[first:first + count, k, j] = _row_means(values[measure])
    return estimates


def _row_means(values: np.ndarray) -> np.ndarray:
    """Per row (a draw), the mean over its topics with NaN topics left out (NaN when none
    has a value), as :func:`_mean`."""
    present = ~np.isnan(values)
    count = present.sum(axis=1)
    total = np.where(present, values, 0.0).sum(axis=1)
    return np.divide(total, count, out=np.full(len(values), np.nan), where=count > 0)


def _complete_prels(pool: Pool, qrels: pd.DataFrame) -> pd.DataFrame:
    """Every pooled pair with its qrels label (0 without a qrels line), stratum 1, π 1."""
    import pandas as pd

    pairs = pool.pairs[["topic", "doc"]].astype({"topic": str, "doc": str})
    labels = qrels.astype({"topic": str, "doc": str}).drop_duplicates(["topic", "doc"],
                                                                      keep="last")
    merged = pairs.merge(labels[["topic", "doc", "label"]], on=["topic", "doc"], how="left")
    return pd.DataFrame({"topic": merged["topic"], "doc": merged["doc"],
                         "label": merged["label"].fillna(0).astype(np.int64),
                         "stratum": 1, "inclusion": 1.0})


def _mean(values: np.ndarray) -> float:
    """Mean over topics (NaN topics left out; NaN when none has a value)."""
    values = values[~np.isnan(values)]
    return float(values.mean()) if len(values) else float("nan")


def _budget_label(budget: int | float | None) -> str:
    if budget is None:
        return "rates"
    return f"{100 * budget:g}%" if isinstance(budget, float) else str(budget)


def _per_run(key: dict, measure: Measure, reference: Measure, names: list[str],
             truth: np.ndarray, gap: np.ndarray, estimates: np.ndarray) -> list[dict]:
    """Rows of bias, SD and RMSE per run; ``estimates`` is draws × runs."""
    errors = estimates - truth[None, :]
    bias, sd = errors.mean(axis=0), estimates.std(axis=0)
    rmse = np.sqrt((errors ** 2).mean(axis=0))
    return [{**key, "measure": str(measure), "exact": str(reference), "run": name,
             "exact_value": truth[j], "pool_gap": gap[j], "mean": estimates[:, j].mean(),
             "bias": bias[j], "sd": sd[j], "rmse": rmse[j]} for j, name in enumerate(names)]


def _agreement(names: list[str], truth: np.ndarray, estimates: np.ndarray) -> dict:
    """Mean |bias| and RMSE over runs; mean tau and tau_AP over draws."""
    import pandas as pd

    errors = estimates - truth[None, :]
    reference = pd.Series(truth, index=names)
    taus, taps = [], []
    for row in estimates:
        estimate = pd.Series(row, index=names)
        taus.append(kendall_tau(reference, estimate)[0])
        taps.append(tau_ap(ordering(reference), ordering(estimate)))
    return {"mean_abs_bias": float(np.abs(errors.mean(axis=0)).mean()),
            "rmse": float(np.sqrt((errors ** 2).mean())),
            "tau": float(np.mean(taus)), "tau_ap": float(np.mean(taps))}
