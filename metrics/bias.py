"""Pool bias: the leave-one-run-out (and leave-one-group-out) test of Zobel (SIGIR 1998).

Would a run have scored the same had it not contributed to the pool? With P the depth-K pool of
all given runs and P_-g the depth-K pool of the runs outside the left-out group g (a group of one
run in leave-one-run-out):

- ``with_run`` = the run's mean under the qrels restricted to P;
- ``without_run`` = its mean under the qrels restricted to P_-g (its unique contributions become
  unjudged);
- ``difference`` = without_run - with_run (negative: the run gains from having been pooled);
- ``unique_relevant`` = relevant (label >= ``rel``) judged documents in P but not in P_-g, summed
  over topics;
- ``judged_without`` = Judged@10 of the run under the restricted qrels of P_-g.

Every run is scored over every topic of the qrels, in both conditions: a topic that loses all
its judgments to a restriction still counts (nothing in it is relevant any more), so the two
means always average the same topics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
from pooljudge.metrics.compat import DEFAULT_COMPAT, Compat, check_compat
from pooljudge.metrics.eval_inputs import parse_all
from pooljudge.metrics.evaluate import score
from pooljudge.metrics.qrels_lookup import Qrels, prepare_qrels
from pooljudge.metrics.registry import Measure, parse
from pooljudge.metrics.results import RunResult
from pooljudge.pooling.pool import Pool, build_pool

from pooljudge.errors import InputError, UsageError
from pooljudge.formats.trec import QrelsColumns, RunColumns, qrels_columns, run_columns
from pooljudge.ground.progress import progress

__all__ = ["BIAS_COLUMNS", "DEFAULT_BIAS_MEASURES", "group_by_prefix", "leave_out",
           "pairs_only_from"]

BIAS_COLUMNS = ["run", "left_out", "measure", "with_run", "without_run", "difference",
                "unique_relevant", "judged_without"]
JUDGED_MEASURE = "Judged@10"
DEFAULT_BIAS_MEASURES: tuple[str, ...] = ("AP", "P@10", "nDCG@10")
# A document id no TREC file can hold (ids never contain blanks): keeps a topic in the qrels.
NO_DOCUMENT = " no document "


def group_by_prefix(runs: Sequence[str], length: int) -> dict[str, str]:
    """Map each run name to its first ``length`` characters. Raises UsageError for length < 1."""
    if length < 1:
        raise UsageError(f"prefix length must be at least 1, got {length}")
    return {run: run[:length] for run in runs}


def pairs_only_from(pool: Pool, members: Sequence[str]) -> np.ndarray:
    """Boolean mask over ``pool.pairs``: pairs retrieved (in the top K) only by ``members``."""
    codes = [pool.run_names.index(name) for name in members]
    entries = pool.entries
    inside = np.isin(entries["run"].to_numpy(), codes)
    count = np.bincount(entries["pair"].to_numpy()[inside], minlength=len(pool.pairs))
    return count == pool.pairs["n_runs"].to_numpy()


def leave_out(
    qrels: pd.DataFrame,
    runs: Mapping[str, pd.DataFrame | RunColumns],
    depth: int,
    measures: Sequence[str | Measure] = DEFAULT_BIAS_MEASURES,
    *,
    groups: Mapping[str, str] | None = None,
    rel: int = 1,
    compat: Compat = DEFAULT_COMPAT,
) -> pd.DataFrame:
    """The leave-one-run-out table (leave-one-group-out when ``groups`` maps run -> group).

    ``qrels``: ``topic, doc, label``; ``runs``: name -> a frame with ``topic, doc, score`` or
    :class:`~pooljudge.formats.trec.RunColumns`. Returns one row per run and measure with the
    columns :data:`BIAS_COLUMNS` (``left_out`` names the run itself or its group). Scores follow
    ``compat`` (:mod:`pooljudge.metrics.compat`); the pools stay in :mod:`pooling`'s order. Raises
    InputError for depth < 1, no runs, a run missing from ``groups`` or a bad ``compat``.
    """
    compat = check_compat(compat)
    parsed = parse_all(measures)
    judged = parse(JUDGED_MEASURE)
    scored = list(dict.fromkeys([*parsed, judged]))
    members = _members(list(runs), groups)
    encoded = {name: run_columns(run, name=name) if isinstance(run, pd.DataFrame) else run
               for name, run in runs.items()}
    pool = build_pool(encoded, depth)
    judgments = _Judgments(qrels, pool)
    with_qrels = judgments.prepare(judgments.pooled)
    rows = []
    for group, names in progress(members.items(), total=len(members), desc="leave out"):
        lost = judgments.pooled & pairs_only_from(pool, names)[judgments.pair_of_row]
        unique_relevant = int((judgments.labels[lost] >= rel).sum())
        without_qrels = judgments.prepare(judgments.pooled & ~lost)
        for name in names:
            with_run = _summary(score(with_qrels, name, encoded[name], scored, compat=compat))
            without = _summary(score(without_qrels, name, encoded[name], scored, compat=compat))
            rows += [{"run": name, "left_out": group, "measure": str(m),
                      "with_run": with_run[m], "without_run": without[m],
                      "difference": without[m] - with_run[m],
                      "unique_relevant": unique_relevant, "judged_without": without[judged]}
                     for m in parsed]
    return pd.DataFrame(rows, columns=BIAS_COLUMNS)


def _members(runs: list[str], groups: Mapping[str, str] | None) -> dict[str, list[str]]:
    """Group name -> its runs (each run alone without ``groups``); InputError for a run
    without a group."""
    if groups is None:
        return {name: [name] for name in runs}
    missing = sorted(set(runs) - set(groups))
    if missing:
        raise InputError(f"no group for run(s) {', '.join(missing)}")
    members: dict[str, list[str]] = {}
    for name in runs:
        members.setdefault(groups[name], []).append(name)
    return members


def _summary(result: RunResult) -> dict[Measure, float]:
    """The result's summaries; a NaN mean (some topics have no value, as RecallDepth's) becomes
    the mean over the topics that have one."""
    out = {}
    for measure, value in result.summary.items():
        values = result.values[measure]
        if np.isnan(value) and measure.spec.summary == "mean" and not np.isnan(values).all():
            value = float(np.nanmean(values))
        out[measure] = value
    return out


class _Judgments:
    """The qrels encoded once, with each row's pool pair, restricted by row masks cheaply.

    So that every topic of the qrels stays evaluated, a topic whose rows are all masked out
    keeps one judged non-relevant :data:`NO_DOCUMENT` that no run can retrieve: it then counts
    as a topic with nothing relevant instead of silently leaving the mean.
    """

    def __init__(self, qrels: pd.DataFrame, pool: Pool) -> None:
        topics = pd.unique(qrels["topic"])
        filler = pd.DataFrame({"topic": topics, "doc": NO_DOCUMENT, "label": 0})
        self.columns = qrels_columns(pd.concat([qrels[["topic", "doc", "label"]], filler],
                                               ignore_index=True))
        self.n_rows, self.n_topics = len(qrels), len(topics)
        self.topic_code = pd.Categorical(qrels["topic"], categories=topics).codes
        self.labels = qrels["label"].to_numpy()
        pairs = pool.pairs[["topic", "doc"]].assign(pair=np.arange(len(pool.pairs)))
        found = qrels[["topic", "doc"]].merge(pairs, on=["topic", "doc"], how="left")["pair"]
        self.pooled = found.notna().to_numpy()
        self.pair_of_row = found.fillna(0).to_numpy(dtype=np.int64)

    def prepare(self, keep: np.ndarray) -> Qrels:
        """Prepared qrels of the rows where ``keep`` is true (plus fillers for empty topics)."""
        kept = np.bincount(self.topic_code[keep], minlength=self.n_topics)
        mask = pa.array(np.concatenate([keep, kept == 0]))
        columns = QrelsColumns(self.columns.topic.filter(mask), self.columns.doc.filter(mask),
                               self.columns.label[mask.to_numpy(zero_copy_only=False)])
        return prepare_qrels(columns)
