"""Evaluation on soft qrels: the expected value of each measure and a percentile interval,
by drawing qrels from the posterior (``pooljudge eval --soft-qrels FILE RUN...``).

Soft qrels give, per (topic, document), a probability for each label
(:mod:`pooljudge.formats.soft_qrels`). Treating the pairs as independent, a labelling ``L`` is
drawn with ``P(L) = prod_pairs p(pair, L(pair))``. For a measure ``M`` and a run the expected
value ``E[M] = sum_L P(L) M(L)`` is estimated by the mean over ``S`` seeded draws, and the
interval is the ``(alpha/2, 1 - alpha/2)`` percentiles of the ``S`` values (of the summary over
topics, or of one topic's value with ``per_topic``).

Vectorised: all ``S`` labellings are drawn at once (one uniform per draw and pair, compared with
each pair's cumulative probabilities), written as one qrels whose topic ``t`` of draw ``s`` is
named ``t#s``, with every run's topics copied the same way, and scored in one call of
:func:`pooljudge.metrics.evaluate.score_all` (for large inputs, one call per block of draws of
about ``BLOCK_ROWS`` rows, so memory stays bounded; the uniforms come from one seeded stream, so
the numbers do not depend on the blocks). The mean is taken as ``x_0 + mean(x_s - x_0)``,
so that a degenerate posterior (all mass on one label per pair) gives exactly the numbers of
plain evaluation on those hard qrels. Edge cases: a label of probability 0 is never drawn; a
run topic not in the soft qrels is ignored (as in plain eval).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pooljudge.metrics.evaluate import ALL_TOPICS, score_all
from pooljudge.metrics.registry import Measure

from pooljudge.errors import UsageError

__all__ = ["DEFAULT_SAMPLES", "SoftResult", "draw_labels", "soft_evaluate"]

DEFAULT_SAMPLES = 200
BLOCK_ROWS = 2_000_000  # qrels and run rows scored at once
SEPARATOR = "#"


@dataclass(frozen=True)
class SoftResult:
    """Rows ``run, topic, measure, expected, low, high`` (topic ``all``: the summary over
    topics; other topics only with ``per_topic``) and the number of draws."""

    frame: pd.DataFrame
    samples: int


def draw_labels(soft: pd.DataFrame, samples: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """The pairs (``topic, doc``, in first-seen order) and an ``(samples, pairs)`` array of
    labels drawn from each pair's distribution: ``label = first l with u < F(l)``, ``F`` the
    pair's cumulative probability normalised by its total, ``u ~ U[0, 1)``."""
    pairs, draw = _sampler(soft, samples)
    return pairs, draw(np.random.default_rng(seed), samples)


def _sampler(soft: pd.DataFrame, samples: int):
    """The pairs and ``draw(rng, n)``: ``n`` more labellings (the uniforms are taken from
    ``rng`` in order, so drawing in blocks gives the labels of drawing all at once)."""
    if samples < 1:
        raise UsageError(f"--samples must be at least 1, not {samples}")
    codes = soft.groupby(["topic", "doc"], sort=False).ngroup().to_numpy()
    first = np.unique(codes, return_index=True)[1]
    pairs = soft[["topic", "doc"]].iloc[first].reset_index(drop=True)
    order = np.argsort(codes, kind="stable")
    codes = codes[order]
    labels = soft["label"].to_numpy(np.int64)[order]
    prob = soft["probability"].to_numpy(float)[order]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    sizes = np.diff(np.r_[starts, len(codes)])
    totals = np.add.reduceat(prob, starts)
    cumulative = (np.cumsum(prob) - np.repeat(np.cumsum(prob)[starts] - prob[starts], sizes)
                  ) / np.repeat(totals, sizes)

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        u = rng.random((n, len(starts)))
        count = np.add.reduceat(cumulative[None, :] <= u[:, codes], starts, axis=1)
        return labels[starts[None, :] + np.minimum(count, sizes[None, :] - 1)]

    return pairs, draw


def soft_evaluate(soft: pd.DataFrame, runs: Mapping[str, pd.DataFrame],
                  measures: Sequence[Measure], *, samples: int = DEFAULT_SAMPLES,
                  seed: int = 0, per_topic: bool = False, alpha: float = 0.05,
                  block_rows: int = BLOCK_ROWS, **options: Any) -> SoftResult:
    """Expected values and percentile intervals of ``measures`` for each run (a frame
    ``topic, doc, score``) over ``samples`` qrels drawn from ``soft`` (module docstring);
    ``options`` go to :func:`score_all` (judged_only, compat). The draws are scored in blocks
    of about ``block_rows`` qrels and run rows (one block for small inputs); the numbers do
    not depend on the blocks."""
    pairs, draw = _sampler(soft, samples)
    known = set(pairs["topic"])
    runs = {name: run[run["topic"].astype(str).isin(known)] for name, run in runs.items()}
    per_draw = len(soft) + len(pairs) + sum(len(run) for run in runs.values())
    block = max(1, min(samples, block_rows // max(per_draw, 1)))
    topics = sorted(known)
    rng = np.random.default_rng(seed)
    grids: dict[str, dict[Measure, list[np.ndarray]]] = {name: {} for name in runs}
    for first in range(0, samples, block):
        n = min(block, samples - first)
        qrels = pd.DataFrame({
            "topic": _renamed(pairs["topic"].to_numpy(str), first, n),
            "doc": np.tile(pairs["doc"].to_numpy(object), n),
            "label": draw(rng, n).ravel(),
        })
        copies = {name: _copied(run, first, n) for name, run in runs.items()}
        for result in score_all(qrels, copies, measures, **options)[1]:
            where = {name: i for i, name in enumerate(result.topics)}
            index = np.array([[where[f"{t}{SEPARATOR}{s}"] for t in topics]
                              for s in range(first, first + n)])
            for measure, values in result.values.items():
                grids[result.name].setdefault(measure, []).append(values[index])
    frames = [_aggregate(name, {m: np.vstack(g) for m, g in by.items()}, topics, per_topic,
                         alpha) for name, by in grids.items()]
    return SoftResult(pd.concat(frames, ignore_index=True), samples)


def _renamed(topics: np.ndarray, first: int, n: int) -> np.ndarray:
    """``topics`` repeated once per draw ``s`` in ``first..first+n-1`` as ``topic#s``."""
    suffix = np.repeat(np.char.add(SEPARATOR, np.arange(first, first + n).astype(str)),
                       len(topics))
    return np.char.add(np.tile(topics, n), suffix).astype(object)


def _copied(run: pd.DataFrame, first: int, n: int) -> pd.DataFrame:
    """The run once per draw of the block, topics renamed."""
    return pd.DataFrame({
        "topic": _renamed(run["topic"].to_numpy(str), first, n),
        "doc": np.tile(run["doc"].to_numpy(object), n),
        "score": np.tile(run["score"].to_numpy(float), n),
    })


def _aggregate(name: str, grids: dict[Measure, np.ndarray], topics: list[str], per_topic: bool,
               alpha: float) -> pd.DataFrame:
    """Per measure, from its (samples, topics) values: each draw's summary (as plain eval
    computes it, over the topics in sorted order), their mean and percentiles."""
    from pooljudge.metrics.evaluate import _summarise

    rows = []
    for measure, grid in grids.items():
        summaries = np.array([_summarise(measure, row) for row in grid])
        rows.append((ALL_TOPICS, str(measure), *_expected(summaries, alpha)))
        if per_topic:
            rows += [(t, str(measure), *_expected(grid[:, j], alpha))
                     for j, t in enumerate(topics)]
    frame = pd.DataFrame(rows, columns=["topic", "measure", "expected", "low", "high"])
    frame.insert(0, "run", name)
    return frame


def _expected(values: np.ndarray, alpha: float) -> tuple[float, float, float]:
    """``x_0 + mean(x - x_0)`` (exact when all draws agree) and the two percentiles; NaN
    draws are left out (all NaN: NaN)."""
    values = values[~np.isnan(values)]
    if len(values) == 0:
        return float("nan"), float("nan"), float("nan")
    low, high = np.percentile(values, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(values[0] + np.mean(values - values[0])), float(low), float(high)
