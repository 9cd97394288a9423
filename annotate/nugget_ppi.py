"""Prediction-powered nugget scores: a model assigns every answer, people a random part of them,
and each run's mean score gets an interval that is valid and narrower than people's alone.

The unit is an answer (one per run and topic). For a run and one of nuggetizer's scores, ``f``
is the answer's score under the model's assignments (``model``, an assessor of the campaign),
known on every answer the model labelled completely; ``Y`` is its score under people's (the
other assessors' complete scores, averaged when several scored the answer), known on the
*labelled* answers. The estimate is :func:`pooljudge.annotate.ppi.ppi_mean` (PPI++ over the
answers), beside the human-only mean of the labelled answers (the same human budget,
:func:`pooljudge.annotate.ppi.classical_mean`). Valid only when the answers people assessed are
a uniform random sample of the model's (e.g. drawn at random before assessing).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pooljudge.annotate.ppi import classical_mean, ppi_mean
from pooljudge.metrics.nugget_scores import SCORES

from pooljudge.errors import UsageError

__all__ = ["PPI_COLUMNS", "ppi_run_scores"]

PPI_COLUMNS = ("run", "score", "labelled", "unlabelled", "lambda", "mean", "ci_low", "ci_high",
               "human_mean", "human_low", "human_high")


def ppi_run_scores(scores: pd.DataFrame, *, model: str,
                   confidence: float = 0.95) -> pd.DataFrame:
    """Per run and score (``scores`` as :func:`pooljudge.metrics.nugget_scores.answer_scores`
    gives them): :data:`PPI_COLUMNS`. UsageError when ``model`` scored no answer."""
    complete = scores[scores["missing"] == 0]
    auto = complete[complete["assessor"] == model]
    if auto.empty:
        raise UsageError(f"--ppi: assessor {model!r} labelled no answer completely")
    human = (complete[complete["assessor"] != model].groupby("answer")[list(SCORES)].mean()
             .add_suffix("_human"))
    joined = auto.join(human, on="answer").sort_values("run", kind="stable")
    runs, starts = np.unique(joined["run"].to_numpy(dtype=str), return_index=True)
    f_all = joined[list(SCORES)].to_numpy(np.float64)
    y_all = joined[[f"{s}_human" for s in SCORES]].to_numpy(np.float64)
    rows = []
    for run, start, stop in zip(runs, starts, [*starts[1:], len(joined)], strict=True):
        f, y = f_all[start:stop], y_all[start:stop]
        labelled = ~np.isnan(y[:, 0])
        for i, score in enumerate(SCORES):
            ppi = ppi_mean(y[labelled, i], f[labelled, i], f[~labelled, i],
                           confidence=confidence)
            alone = classical_mean(y[labelled, i], confidence=confidence)
            rows.append((run, score, ppi.n, ppi.N, ppi.lam, ppi.mean, ppi.low, ppi.high,
                         alone.mean, alone.low, alone.high))
    return pd.DataFrame(rows, columns=list(PPI_COLUMNS))
