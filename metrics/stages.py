"""What each stage of a retrieval pipeline gained and lost: retrieve → rerank → context.

A manifest (:mod:`pooljudge.formats.manifest`) tags runs with a stage and a pipeline. Within a
pipeline each pair of consecutive stages present (retrieve → rerank, rerank → context; or
retrieve → context when a pipeline has no rerank run) is a **step**, compared at a cutoff k:

- per query, the relevant items (qrels label >= ``rel``) **moved into** the top k (in the
  after-stage's top k, not in the before-stage's), **moved out** of it, and **kept** (in both);
  each move keeps the item's rank in both stages (missing: not retrieved by that stage);
- per query and measure, the value before and after (``delta = after - before``), computed by
  :func:`pooljudge.metrics.evaluate.score` (any registry measure; P@k and nDCG@k by default);
- per query, NumRet of each stage and whether it returned fewer than k items (under the fixed-k
  convention unfilled positions earn nothing, so a filter or a retrieval failure shows here).

Queries are the qrels topics, as in ``pooljudge eval``: a query a stage returned nothing for
scores 0 there (and is reported in a warning). The top k follows trec_eval's order (score
descending, ties by document id descending), the order every measure reads.

Over the queries of a step (:func:`summarise`): the mean before and after, the mean gain
``delta``, the paired t-test and the seeded paired randomization test of
:func:`pooljudge.metrics.compare.paired_test`, both Holm-adjusted over the steps of each measure,
wins /
losses / ties (delta > 0, < 0, = 0; |delta| <= 1e-12 counts as a tie), and the totals of moved
items, NumRet and queries with fewer than k. With topic groups the summary is repeated within
each group, and a group whose step lost significantly is flagged
(:func:`pooljudge.metrics.compare.flag_regressions`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pooljudge.metrics.compare import (
    MIN_TOPICS,
    OVERALL,
    flag_regressions,
    holm,
    paired_test,
    regression_messages,
    undefined_p_values,
)
from pooljudge.metrics.eval_inputs import QrelsInput, load_qrels, load_runs, parse_all
from pooljudge.metrics.evaluate import score
from pooljudge.metrics.groups import group_coverage
from pooljudge.metrics.join import label
from pooljudge.metrics.qrels_lookup import Qrels
from pooljudge.metrics.registry import Measure

from pooljudge.errors import InputError
from pooljudge.formats.manifest import STAGES, Manifest, manifest_frame, read_manifest
from pooljudge.formats.trec import RunColumns
from pooljudge.kernels import decode, int_array, take
from pooljudge.kernels.ranking import rank_rows

__all__ = [
    "MOVE_COLUMNS", "PER_QUERY_COLUMNS", "STEP_COLUMNS", "SUMMARY_COLUMNS", "StageComparison",
    "compare_stages", "default_measures", "steps", "summarise",
]

STEP_COLUMNS = ["pipeline", "step", "before_stage", "after_stage", "before_run", "after_run"]
COUNT_COLUMNS = ["rel_in", "rel_out", "rel_kept", "numret_before", "numret_after",
                 "fewer_than_k_before", "fewer_than_k_after"]
PER_QUERY_COLUMNS = [*STEP_COLUMNS, "topic", "measure", "before", "after", "delta",
                     *COUNT_COLUMNS]
MOVE_COLUMNS = [*STEP_COLUMNS, "topic", "doc", "label", "move", "rank_before", "rank_after"]
SUMMARY_COLUMNS = [*STEP_COLUMNS, "measure", "queries", "before", "after", "delta", "cohens_d",
                   "t_p", "perm_p", "t_p_holm", "perm_p_holm", "wins", "losses", "ties",
                   *COUNT_COLUMNS]
TIE = 1e-12
MOVES = ("in", "out", "kept")


@dataclass(frozen=True)
class StageComparison:
    """The tidy results: ``per_query`` (:data:`PER_QUERY_COLUMNS`, one row per step, query and
    measure), ``moves`` (:data:`MOVE_COLUMNS`, one row per relevant item moved in, out or kept),
    ``summary`` (:func:`summarise`) and the warnings."""

    per_query: pd.DataFrame
    moves: pd.DataFrame
    summary: pd.DataFrame
    warnings: list[str]


@dataclass(frozen=True)
class _Stage:
    """One run scored once: measure values and NumRet per qrels topic, and its relevant items
    with their ranks (``topic`` index, ``doc``, ``label``, ``rank``)."""

    values: dict[Measure, np.ndarray]
    returned: np.ndarray
    relevant: pd.DataFrame
    run_only_topics: int


def default_measures(k: int, rel: int = 1) -> list[str]:
    """P@k and nDCG@k (``P(rel=r)@k`` when ``rel`` is not 1)."""
    return [f"P@{k}" if rel == 1 else f"P(rel={rel})@{k}", f"nDCG@{k}"]


def steps(manifest: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The steps of every pipeline (:data:`STEP_COLUMNS`), pipelines in the order of their
    first row, stages in chain order; and a warning per pipeline with a single stage."""
    order = {stage: i for i, stage in enumerate(STAGES)}
    records, warnings = [], []
    for pipeline, rows in manifest.groupby("pipeline", sort=False):
        chain = rows.assign(_at=rows["stage"].map(order)).sort_values("_at")
        if len(chain) < 2:
            warnings.append(f"pipeline {pipeline!r} has only a {chain['stage'].iat[0]} run: "
                            "nothing to compare")
        pairs = zip(chain.iloc[:-1].itertuples(), chain.iloc[1:].itertuples(), strict=True)
        records += [{"pipeline": pipeline, "step": f"{a.stage}->{b.stage}",
                     "before_stage": a.stage, "after_stage": b.stage, "before_run": a.run,
                     "after_run": b.run} for a, b in pairs]
    return pd.DataFrame.from_records(records, columns=STEP_COLUMNS), warnings


def compare_stages(
    qrels: QrelsInput | Qrels,
    manifest: str | os.PathLike[str] | Manifest | pd.DataFrame,
    runs: Mapping[str, RunColumns | pd.DataFrame | str | os.PathLike[str]] | None = None,
    *,
    k: int = 10,
    measures: Sequence[str | Measure] | None = None,
    rel: int = 1,
    groups: pd.DataFrame | None = None,
    n_resamples: int = 10_000,
    seed: int = 0,
    alpha: float = 0.05,
) -> StageComparison:
    """Compare consecutive stages of every pipeline of ``manifest`` (module docstring).

    ``qrels``: a path, a DataFrame (topic, doc, label) or prepared qrels. ``manifest``: a path,
    a DataFrame or a read :class:`~pooljudge.formats.manifest.Manifest`. ``runs``: runs by the
    manifest's ``run`` names (RunColumns, DataFrames ``topic, doc, score``, or paths); runs not
    given are read from the manifest's files. ``groups``: ``topic, group`` for per-group
    summaries. Raises InputError for bad input, a k or rel below 1, an unknown measure, or a
    manifest without any pipeline of two stages.
    """
    if k < 1 or rel < 1:
        raise InputError(f"k and rel must be at least 1, got k={k}, rel={rel}")
    given = dict(runs or {})
    manifest = _as_manifest(manifest, given)
    prepared = qrels if isinstance(qrels, Qrels) else load_qrels(qrels)
    parsed = parse_all(measures if measures is not None else default_measures(k, rel))
    table, warnings = steps(manifest.frame)
    if table.empty:
        raise InputError("no pipeline has two stages: nothing to compare (a chain is named by "
                         "the pipeline column, or else by equal configuration columns)",
                         path=manifest.source)
    scored = {}
    for run, columns in _runs(dict.fromkeys([*table["before_run"], *table["after_run"]]),
                              given, manifest):
        scored[run] = _stage(prepared, columns, parsed, rel)
        warnings += _coverage(run, prepared, scored[run])
    per_query, moves = _per_query(prepared, table, scored, k)
    summary, notes = summarise(per_query, groups=groups, n_resamples=n_resamples, seed=seed,
                               alpha=alpha)
    return StageComparison(per_query, moves, summary, warnings + notes)


def _as_manifest(manifest: str | os.PathLike[str] | Manifest | pd.DataFrame,
                 given: Mapping) -> Manifest:
    if isinstance(manifest, Manifest):
        return manifest
    if isinstance(manifest, pd.DataFrame):
        return manifest_frame(manifest, names=given.keys())
    return read_manifest(manifest, names=given.keys())


def _runs(needed: Iterable[str], given: Mapping, manifest: Manifest
          ) -> Iterator[tuple[str, RunColumns]]:
    """Each needed run once, as checked columns: given in memory, else read from its file."""
    for run in needed:
        source = given.get(run, manifest.paths.get(run))
        if isinstance(source, RunColumns):
            yield run, source
        else:
            yield from load_runs({run: source})


def _stage(qrels: Qrels, run: RunColumns, measures: Sequence[Measure], rel: int) -> _Stage:
    """Score ``run`` once and list its relevant items with their ranks (trec_eval's order)."""
    labelled = label(qrels, run)
    # score's join takes a labelled run as it is (pooljudge.metrics.join.join): the run is labelled
    # once
    result = score(qrels, "stage", labelled, measures)
    order = rank_rows(labelled.topic, labelled.scores, labelled.docs)
    keep = np.flatnonzero(labelled.labels[order] >= rel)  # ranked positions of relevant items
    rows = order[keep]
    topic = labelled.topic[rows]
    counts = np.bincount(labelled.topic, minlength=qrels.n_topics)
    first = np.cumsum(counts) - counts  # each topic's first ranked position
    docs = decode(take(labelled.docs, int_array(rows))).to_numpy(zero_copy_only=False)
    relevant = pd.DataFrame({"topic": topic, "doc": docs, "label": labelled.labels[rows],
                             "rank": keep - first[topic] + 1})
    return _Stage(result.values, result.returned, relevant, result.run_only_topics)


def _coverage(run: str, qrels: Qrels, stage: _Stage) -> list[str]:
    """Warnings: qrels topics the run returned nothing for; run topics not in the qrels."""
    notes = []
    empty = np.flatnonzero(stage.returned == 0)
    if len(empty):
        notes.append(f"run {run}: nothing returned for {len(empty)} qrels topic(s), e.g. "
                     f"{qrels.topics[int(empty[0])].as_py()}: they score 0 for this stage")
    if stage.run_only_topics:
        notes.append(f"run {run}: {stage.run_only_topics} topic(s) not in the qrels, ignored")
    return notes


def _per_query(qrels: Qrels, table: pd.DataFrame, scored: Mapping[str, _Stage], k: int
               ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-query and move frames of every step."""
    topics = np.asarray(qrels.topics.to_pylist(), dtype=object)
    rows, moves = [], []
    for step in table.to_dict("records"):
        before, after = scored[step["before_run"]], scored[step["after_run"]]
        moved = _moves(before.relevant, after.relevant, k)
        counts = {f"rel_{m}": np.bincount(moved.loc[moved["move"] == m, "topic"],
                                          minlength=len(topics)) for m in MOVES}
        common = {**counts, "numret_before": before.returned, "numret_after": after.returned,
                  "fewer_than_k_before": before.returned < k,
                  "fewer_than_k_after": after.returned < k}
        for measure in before.values:
            rows.append(pd.DataFrame({
                **step, "topic": topics, "measure": str(measure),
                "before": before.values[measure], "after": after.values[measure],
                "delta": after.values[measure] - before.values[measure], **common}))
        moves.append(moved.assign(**step, topic=topics[moved["topic"].to_numpy()]))
    per_query = (pd.concat(rows, ignore_index=True) if rows
                 else pd.DataFrame(columns=PER_QUERY_COLUMNS))
    moved = (pd.concat(moves, ignore_index=True) if moves
             else pd.DataFrame(columns=MOVE_COLUMNS))
    return per_query[PER_QUERY_COLUMNS], moved[MOVE_COLUMNS]


def _moves(before: pd.DataFrame, after: pd.DataFrame, k: int) -> pd.DataFrame:
    """Relevant items moved ``in``to, ``out`` of, or ``kept`` in the top k: ``topic`` (index),
    ``doc``, ``label``, ``move``, ``rank_before``, ``rank_after`` (<NA>: not retrieved), by
    topic, then move (in, out, kept), then rank."""
    both = before.merge(after, on=["topic", "doc"], how="outer", suffixes=("_before", "_after"))
    rank_before = both["rank_before"].to_numpy(dtype=np.float64, na_value=np.nan)
    rank_after = both["rank_after"].to_numpy(dtype=np.float64, na_value=np.nan)
    was, now = rank_before <= k, rank_after <= k
    move = np.select([now & ~was, was & ~now, was & now], [0, 1, 2], default=-1)
    chosen = move >= 0
    result = pd.DataFrame({
        "topic": both["topic"].to_numpy()[chosen], "doc": both["doc"].to_numpy()[chosen],
        "label": both["label_before"].fillna(both["label_after"]).to_numpy()[chosen],
        "_move": move[chosen],
        "rank_before": pd.array(both["rank_before"].to_numpy()[chosen], dtype="Int64"),
        "rank_after": pd.array(both["rank_after"].to_numpy()[chosen], dtype="Int64"),
        "_rank": np.where(move == 1, rank_before, rank_after)[chosen],
    }).sort_values(["topic", "_move", "_rank"], kind="stable")
    result["label"] = result["label"].astype(np.int64)
    result["move"] = np.asarray(MOVES, dtype=object)[result["_move"].to_numpy()]
    return result.drop(columns=["_move", "_rank"]).reset_index(drop=True)


def summarise(per_query: pd.DataFrame, *, groups: pd.DataFrame | None = None,
              n_resamples: int = 10_000, seed: int = 0, alpha: float = 0.05
              ) -> tuple[pd.DataFrame, list[str]]:
    """One row per step and measure (:data:`SUMMARY_COLUMNS`; module docstring); with
    ``groups`` (``topic, group``) one per group too, after a ``group`` column (``all``: every
    query) and followed by ``group_p_holm`` and ``regression``. Also the warnings."""
    subsets = {OVERALL: per_query}
    warnings = []
    if groups is not None:
        warnings = group_coverage(per_query["topic"], groups)
        for name, topics in groups.groupby("group", sort=False)["topic"]:
            subsets[str(name)] = per_query[per_query["topic"].isin(set(topics))]
    tables = []
    for name, rows in subsets.items():
        if rows.empty and name != OVERALL:
            warnings.append(f"topic group {name!r}: none of its topics is a qrels topic")
            continue
        table = _summary(rows, n_resamples, seed)
        few = int(table["queries"].min()) if len(table) else MIN_TOPICS
        if few < MIN_TOPICS:
            where = "" if name == OVERALL else f"group {name!r}: "
            warnings.append(f"{where}only {few} queries paired: fewer than {MIN_TOPICS} are too "
                            "few to tell stages apart reliably")
        where = "" if name == OVERALL else f"group {name!r}: "
        warnings += [where + line for line in undefined_p_values(table, ("pipeline", "step"),
                                                                 " ")]
        tables.append(table.assign(group=name))
    summary = pd.concat(tables, ignore_index=True)
    if groups is None:
        return summary[SUMMARY_COLUMNS], warnings
    keys = ["pipeline", "step", "measure"]
    summary = flag_regressions(summary[["group", *SUMMARY_COLUMNS]], keys, alpha=alpha,
                               diff="delta")
    return summary, warnings + regression_messages(summary, keys, diff="delta")


def _summary(rows: pd.DataFrame, n_resamples: int, seed: int) -> pd.DataFrame:
    """:data:`SUMMARY_COLUMNS` of one set of queries; Holm over the steps of each measure."""
    records = []
    for (_, _, measure), group in rows.groupby(["pipeline", "step", "measure"], sort=False):
        valid = group[group["before"].notna() & group["after"].notna()]
        test = paired_test(valid["before"].to_numpy(), valid["after"].to_numpy(),
                           n_resamples=n_resamples, seed=seed)
        delta = valid["delta"].to_numpy()
        first = group.iloc[0]
        records.append({
            **{c: first[c] for c in STEP_COLUMNS}, "measure": measure,
            "queries": test["topics"], "before": test["baseline_mean"],
            "after": test["run_mean"], "delta": test["mean_diff"], "cohens_d": test["cohens_d"],
            "t_p": test["t_p"], "perm_p": test["perm_p"],
            "wins": int((delta > TIE).sum()), "losses": int((delta < -TIE).sum()),
            "ties": int((np.abs(delta) <= TIE).sum()),
            **{c: int(group[c].sum()) for c in COUNT_COLUMNS},
        })
    table = pd.DataFrame.from_records(records, columns=[c for c in SUMMARY_COLUMNS
                                                        if not c.endswith("_holm")])
    for column in ("t_p", "perm_p"):
        table[f"{column}_holm"] = table.groupby("measure", sort=False)[column].transform(
            lambda p: holm(p.to_numpy()))
    return table[SUMMARY_COLUMNS]
