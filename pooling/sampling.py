"""Sampled pools: a seeded sample of the depth-k pool with known inclusion probabilities.

A design is written in :mod:`pooljudge.ground.grammar` (:func:`parse_design`):

- ``uniform(depth=K,rate=R)``: a simple random sample without replacement of n_t of the N_t
  pooled pairs of each topic; π = n_t / N_t (the design of infAP, Yilmaz and Aslam 2006).
- ``strata(A:r1,B:r2,...)``: strata by best rank (1..A, A+1..B, ...; the last bound is the
  depth), each sampled without replacement: n_h = round(r_h · N_h), at least 1 (and at most
  N_h) in a non-empty stratum; π = n_h / N_h (the design of xinfAP, Yilmaz et al. 2008).
- ``pps(prior=ap|rrf|rbp,depth=K,rate=R)``: probability proportional to a fused prior w_i,
  fixed size n_t per topic, π_i = min(1, ...) by the take-all rule
  (:func:`pooljudge.pooling.sampling_draws.bounded_shares`), drawn by systematic sampling in a
  random
  order (:func:`~pooljudge.pooling.sampling_draws.draw_systematic`), which gives the first-order π
  exactly, takes exactly n_t pairs and needs no rejection loop (Sampford's design would also
  give exact π, but rejects whole samples, slowly when some π are near 1). Priors: ``ap``,
  statAP's AP-prior, Σ_runs (1/K)(1 + H_K − H_r) for a document at rank r (H the harmonic
  numbers); ``rrf`` (Σ 1/(60 + r)) and ``rbp`` (Σ 0.2 · 0.8^(r−1)), the static orders' scores.

Sample sizes: with a ``budget`` (sampled pairs over all topics) the budget is split over topics
in proportion to their pool sizes N_t, and for strata within a topic in proportion to
r_h · N_h, each rounded by largest remainder (deterministic), every topic and non-empty stratum
getting at least one pair; the rates are then only relative weights (and ``rate=`` of uniform
and pps is not needed). Without a budget, n = round(rate · N) in every topic (or stratum),
at least 1. So every pooled pair has π in (0, 1]. Draws use ``numpy.random.default_rng(seed)``:
the same pool, design, budget and seed give the same sample.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import pairwise
from os import PathLike
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pyarrow as pa
from pooljudge.pooling.pool import Pool, pool_table
from pooljudge.pooling.sampling_draws import (
    bounded_shares,
    draw_srs,
    draw_systematic,
    largest_remainder,
    within,
)

from pooljudge.errors import InputError
from pooljudge.formats.pool_file import POOL_COLUMNS, SAMPLE_COLUMNS
from pooljudge.ground.grammar import format_name, parse_name
from pooljudge.kernels import numpy_of

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DESIGNS", "PRIORS", "SAMPLED_POOL", "Design", "Plan", "draw", "parse_design",
           "plan_sample", "sample_pool", "sample_table", "stratum_summary"]

DESIGNS = ("uniform", "strata", "pps")
PRIORS = ("ap", "rrf", "rbp")
SAMPLED_POOL = (*POOL_COLUMNS, *SAMPLE_COLUMNS)  # the columns of sample_pool's frame
Fault = Callable[[str], InputError]
_PARAMS = {"uniform": ("depth", "rate"), "pps": ("prior", "depth", "rate"), "strata": ()}


@dataclass(frozen=True)
class Design:
    """A sampling design: ``kind`` one of :data:`DESIGNS`; ``depth`` None takes the pool's;
    ``strata`` holds (last rank, rate) per stratum (its last rank is ``depth``)."""

    kind: str
    depth: int | None = None
    rate: float | None = None
    prior: str = "ap"
    strata: tuple[tuple[int, float], ...] = ()

    def __str__(self) -> str:
        if self.kind == "strata":
            return f"strata({','.join(f'{b}:{r!r}' for b, r in self.strata)})"
        params = [("prior", self.prior)] if self.kind == "pps" else []
        params += [(k, repr(v)) for k, v in (("depth", self.depth), ("rate", self.rate))
                   if v is not None]
        return format_name(self.kind, params)

    def at_depth(self, depth: int) -> Design:
        """The design with ``depth`` when it names none (strata always name theirs)."""
        return self if self.depth is not None else replace(self, depth=depth)


def parse_design(text: str, *, source: str | PathLike[str] | None = None) -> Design:
    """Parse ``uniform(...)``, ``strata(A:r1,...)`` or ``pps(...)`` (see the module docstring;
    ``parse_design(str(d)) == d``). InputError, naming ``source`` first, for another name, an
    unknown parameter, a depth that is not a positive integer, a rate outside (0, 1], strata
    bounds that do not increase, or an unknown prior."""
    parsed = parse_name(text, what="sampling design", source=source, separators="=:")
    kind = parsed.name.lower()

    def fault(message: str) -> InputError:
        return InputError(f"sampling design {text.strip()}: {message}", path=source)

    if kind not in DESIGNS:
        raise InputError(f"unknown sampling design {parsed.name!r}; known: "
                         f"{', '.join(DESIGNS)}", path=source)
    if parsed.cutoff is not None:
        raise fault("a design takes no @cutoff")
    if kind == "strata":
        return _strata(parsed.params, fault)
    values = dict(parsed.params)
    unknown = sorted(set(values) - set(_PARAMS[kind]))
    if unknown:
        raise fault(f"no parameter {unknown[0]!r}; {kind} takes {', '.join(_PARAMS[kind])}")
    prior = values.get("prior", "ap").lower()
    if prior not in PRIORS:
        raise fault(f"unknown prior {values['prior']!r}; known: {', '.join(PRIORS)}")
    depth = None if "depth" not in values else _rank(values["depth"], "depth", fault)
    rate = None if "rate" not in values else _rate(values["rate"], fault)
    return Design(kind, depth, rate, prior)


def _rank(raw: str, what: str, fault: Fault) -> int:
    if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
        raise fault(f"{what} must be a positive integer, got {raw!r}")
    return int(raw)


def _rate(raw: str, fault: Fault) -> float:
    try:
        rate = float(raw)
    except ValueError:
        rate = float("nan")
    if not 0 < rate <= 1:
        raise fault(f"a rate must be a number in (0, 1], got {raw!r}")
    return rate


def _strata(params: tuple[tuple[str, str], ...], fault: Fault) -> Design:
    if not params:
        raise fault("give the strata as last-rank:rate, e.g. strata(10:1.0,100:0.1)")
    strata = tuple((_rank(b, "a stratum bound", fault), _rate(r, fault)) for b, r in params)
    bounds = [b for b, _ in strata]
    if any(b >= a for b, a in pairwise(bounds)):
        raise fault("stratum bounds must increase")
    return Design("strata", bounds[-1], strata=strata)


class Plan(NamedTuple):
    """What a design fixes before any draw, aligned with the population's pairs: ``stratum``
    (1-based), ``inclusion`` (π), ``cell`` (0-based id of the pair's topic or topic × stratum),
    ``size`` (pairs to draw per cell) and whether the draw is ``systematic`` (pps) or simple
    random within cells."""

    stratum: np.ndarray
    inclusion: np.ndarray
    cell: np.ndarray
    size: np.ndarray
    systematic: bool


def plan_sample(pool: Pool, design: Design, *, budget: int | None = None) -> Plan:
    """Strata, sample sizes and inclusion probabilities of ``design`` over ``pool``.

    InputError when the design's depth is not the pool's, for a budget below 1 or below the
    number of cells (every topic, and every non-empty stratum, needs a pair), or for uniform or
    pps without a rate nor a budget. A budget of at least the pool's size takes every pair.
    """
    design = design.at_depth(pool.depth)
    if design.depth != pool.depth:
        raise InputError(f"the design {design} needs a pool of depth {design.depth}, "
                         f"not {pool.depth}")
    if budget is not None and budget < 1:
        raise InputError(f"the budget must be at least 1 pair, got {budget}")
    if budget is None and design.kind != "strata" and design.rate is None:
        raise InputError(f"the design {design} needs rate=R or a budget")
    topic = pool.topic_codes()
    bounds = np.array([b for b, _ in design.strata] or [pool.depth])
    rates = np.array([r for _, r in design.strata] or [design.rate or 1.0])
    stratum = np.searchsorted(bounds, pool.pair_column("best_rank"), side="left")
    cells, cell = np.unique(topic * len(bounds) + stratum, return_inverse=True)
    population = np.bincount(cell, minlength=len(cells))
    cell_topic, cell_rate = cells // len(bounds), rates[cells % len(bounds)]
    if budget is None:
        size = np.clip(np.floor(cell_rate * population + 0.5), 1, population).astype(np.int64)
    else:
        size = _split_budget(budget, cell_topic, population, cell_rate)
    if design.kind == "pps":
        weights = _prior(pool, design.prior)
        inclusion = np.minimum(1.0, bounded_shares(weights, cell, size.astype(np.float64),
                                                   np.zeros(len(cell)), np.ones(len(cell))))
    else:
        inclusion = size[cell] / population[cell]
    return Plan(stratum + 1, inclusion, cell, size, design.kind == "pps")


def _split_budget(budget: int, cell_topic: np.ndarray, population: np.ndarray,
                  rate: np.ndarray) -> np.ndarray:
    """Pairs per cell: the budget over topics in proportion to their sizes, then within each
    topic over its cells in proportion to rate × size; at least 1 and at most N per cell."""
    if budget < len(population):
        raise InputError(f"a budget of {budget} pairs is too small for this design: every "
                         f"topic and stratum needs one, {len(population)} in all")
    first = np.diff(cell_topic, prepend=-1) != 0  # cells are sorted by topic
    topic_of = np.cumsum(first) - 1
    size_t = np.bincount(topic_of, population)
    total = np.array([float(min(budget, population.sum()))])
    one = np.zeros(int(first.sum()), dtype=np.int64)
    per_topic = largest_remainder(
        bounded_shares(size_t, one, total, np.bincount(topic_of).astype(float), size_t),
        one, total)
    shares = bounded_shares(rate * population, topic_of, per_topic.astype(np.float64),
                            np.ones(len(population)), population.astype(np.float64))
    return largest_remainder(shares, topic_of, per_topic)


def _prior(pool: Pool, prior: str) -> np.ndarray:
    """The fused prior weight of every pooled pair (positive for every pair)."""
    from pooljudge.pooling.static_orders import rbp_sum, rrf
    from pooljudge.pooling.strategies import REGISTRY

    if prior == "ap":
        harmonic = np.cumsum(1.0 / np.arange(1, pool.depth + 1))
        rank = pool.entry_column("rank")
        weights = (1.0 + harmonic[-1] - harmonic[rank - 1]) / pool.depth
        weights = np.bincount(pool.entry_column("pair"), weights, minlength=pool.n_pairs)
    elif prior == "rrf":
        weights = -rrf(pool, **REGISTRY["rrf"].defaults)
    else:
        weights = -rbp_sum(pool, **REGISTRY["rbp-sum"].defaults)
    if len(weights) and not (np.isfinite(weights).all() and weights.min() > 0):
        raise InputError(f"the {prior} prior gives some pooled pair no weight")
    return weights


def draw(plan: Plan, rng: np.random.Generator) -> np.ndarray:
    """One seeded draw of ``plan``: the boolean mask of the sampled pairs."""
    if plan.systematic:
        return draw_systematic(plan.cell, plan.inclusion, len(plan.size), rng)
    return draw_srs(plan.cell, plan.size, rng)


def sample_pool(pool: Pool, design: Design, *, budget: int | None, seed: int,
                order: np.ndarray | None = None) -> pd.DataFrame:
    """The sampled pool file's frame: every pooled pair with ``topic doc order best_rank runs
    stratum inclusion sampled`` (:data:`SAMPLED_POOL`), by topic (canonical order) then
    ``order``: the sampled pairs first, numbered 1..n in judging order, then the others.

    ``order`` is a judging order within topics aligned with ``pool.pairs`` (default: the
    static ``rrf`` order). InputError as :func:`plan_sample`, or for a negative seed.
    """
    import pandas as pd

    table = sample_table(pool, design, budget=budget, seed=seed, order=order)
    return pd.DataFrame({name: table.column(name).to_numpy() for name in SAMPLED_POOL})


def sample_table(pool: Pool, design: Design, *, budget: int | None, seed: int,
                 order: np.ndarray | None = None) -> pa.Table:
    """:func:`sample_pool`'s rows as an Arrow table (text as Arrow strings), made without
    pandas: what ``pooljudge pool --sample`` writes."""
    if seed < 0:
        raise InputError(f"the seed must not be negative, got {seed}")
    plan = plan_sample(pool, design, budget=budget)
    sampled = draw(plan, np.random.default_rng(seed))
    if order is None:
        from pooljudge.pooling.static_orders import static_order

        order = static_order(pool, "rrf")
    topic = pool.topic_codes()
    rows = np.lexsort((np.asarray(order), ~sampled, topic))
    return pool_table(pool, rows, within(topic[rows]) + 1, stratum=plan.stratum[rows],
                      inclusion=plan.inclusion[rows], sampled=sampled[rows].astype(np.int64))


def stratum_summary(sample: pd.DataFrame | pa.Table, design: Design) -> pd.DataFrame:
    """Per stratum of a sampled pool's frame (or table): its ranks, the population (pairs over
    all topics), the pairs sampled, and the smallest, mean and largest π. ValueError for a
    design that names no depth (give ``design.at_depth(pool.depth)``)."""
    if design.depth is None:
        raise ValueError(f"the design {design} names no depth")
    if isinstance(sample, pa.Table):
        import pandas as pd

        sample = pd.DataFrame({c: numpy_of(sample.column(c)) for c in SAMPLE_COLUMNS})
    bounds = [b for b, _ in design.strata] or [design.depth]
    groups = sample.groupby("stratum", sort=True)
    table = groups.agg(population=("sampled", "size"), sampled=("sampled", "sum"),
                       pi_min=("inclusion", "min"), pi_mean=("inclusion", "mean"),
                       pi_max=("inclusion", "max")).reset_index()
    lows = [1, *(b + 1 for b in bounds[:-1])]
    table.insert(1, "ranks", [f"{lows[s - 1]}-{bounds[s - 1]}" for s in table["stratum"]])
    return table
