"""An automatic judge measured against people: agreement, bias, and calibration samples.

Input is the campaign's judgments frame (``annotator, topic, doc, label, kind, source``, latest
versions). *People* are every annotator except the automatic judge and except rows written by
any automatic judge (source ``automatic``): participants and imported human label sources.
Their labels are decided per pair by an export policy (:mod:`pooljudge.annotate.consensus`); the
judge's
label is its own. Only pairs labelled by both are compared.

Statistics (people's label is the reference, rows of the confusion matrix; the judge's label
the columns; labels by their position in the ascending scale):

- ``agreement``: the share of pairs where both gave the same label;
- ``kappa``: Cohen's kappa; on a graded scale also ``kappa_linear``, kappa with linear weights
  |i - j| (TREC grades are ordered and roughly evenly spaced, so a 0-vs-2 error costs twice a
  0-vs-1 one; quadratic weights would reward near misses more than graded qrels do). Both equal
  ``sklearn.metrics.cohen_kappa_score(people, judge, labels=scale[, weights="linear"])``;
- ``precision:L`` / ``recall:L``: of the pairs the judge labelled L, the share people labelled
  L; of the pairs people labelled L, the share the judge labelled L;
- ``bias``: the judge's relevant share minus people's (relevant: label >= T, by default every
  label above the lowest). Positive: the judge calls more documents relevant than people do.

Each has a percentile bootstrap CI over topics: topics are drawn with replacement (numpy,
``default_rng(seed)``), their per-topic confusion tables summed, and the statistic recomputed,
all resamples of a block at once. NaN (``null`` in JSON) marks an undefined value (kappa when
both sides used one label; a precision of a label the judge never gave), never 0.

Sampling for calibration (:func:`stratified_sample`): pairs are drawn per judge's label with
equal allocation (N / number of labels each), capped by what a label has; what a rare label
cannot take goes to the others, evenly. So rare labels, the ones whose precision matters most,
are covered. Note that the sample over-represents rare labels: per-label precision stays
unbiased, but agreement, kappa and recall on such a sample describe the sample, not the pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from pooljudge.annotate.agreement import _ratio, _records, kappa_from_tables
from pooljudge.annotate.consensus import consensus_qrels
from pooljudge.annotate.consensus_policies import Policy

from pooljudge.errors import InputError, UsageError

__all__ = [
    "BLOCK",
    "Calibration",
    "bootstrap_intervals",
    "calibrate",
    "confusion_tables",
    "label_sources",
    "paired_labels",
    "stratified_sample",
    "table_statistics",
]

BLOCK = 1000  # bootstrap resamples computed at once
SUGGESTION_SUBSETS = ("all", "no suggestion shown", "suggestion shown")


@dataclass(frozen=True)
class Calibration:
    """What :func:`calibrate` measured: the confusion matrix (people × judge), the statistics
    with their CIs (``statistic, value, ci_low, ci_high``), and the main ones per suggestion
    subset (``subset, n, agreement, kappa[, kappa_linear]``)."""

    confusion: pd.DataFrame
    statistics: pd.DataFrame
    by_suggestion: pd.DataFrame
    settings: dict[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {"settings": self.settings,
                "confusion": {"people_rows": [int(v) for v in self.confusion.index],
                              "judge_columns": [int(v) for v in self.confusion.columns],
                              "counts": self.confusion.to_numpy().tolist()},
                "statistics": _records(self.statistics),
                "by_suggestion": _records(self.by_suggestion)}


def label_sources(judgments: pd.DataFrame, scale: Sequence[int], *, automatic: str,
                  policy: Policy) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(people's qrels decided by ``policy``, the judge's labels): both ``topic, doc, label``.

    InputError when ``automatic`` labelled nothing in the campaign.
    """
    mine = (judgments["annotator"] == automatic).to_numpy()
    votes = judgments["kind"].to_numpy() == "judgment" if "kind" in judgments else True
    auto = judgments.loc[mine & votes, ["topic", "doc", "label"]]
    if auto.empty:
        raise InputError(f"the automatic judge {automatic!r} labelled no pair of this campaign")
    machine = (judgments["source"] == "automatic").to_numpy() if "source" in judgments else False
    people = judgments.loc[~mine & ~machine]
    if people.empty:
        human = pd.DataFrame({"topic": [], "doc": [], "label": []}).astype({"label": np.int64})
    else:
        human = consensus_qrels(people, tuple(scale), policy)[0]
    auto = auto.astype({"topic": str, "doc": str, "label": np.int64}).reset_index(drop=True)
    return human.astype({"topic": str, "doc": str}), auto


def paired_labels(human: pd.DataFrame, auto: pd.DataFrame,
                  shown: pd.DataFrame | None = None) -> pd.DataFrame:
    """``topic, doc, human, auto, suggestion_shown`` of the pairs both labelled, by topic and
    document. ``shown`` (``topic, doc, suggested``, people's latest judgments): a pair counts
    as shown a suggestion when any person's judgment of it was made with one."""
    pairs = human.rename(columns={"label": "human"})[["topic", "doc", "human"]].merge(
        auto.rename(columns={"label": "auto"})[["topic", "doc", "auto"]], on=["topic", "doc"])
    pairs["suggestion_shown"] = False
    if shown is not None and len(shown):
        seen = shown.loc[shown["suggested"].notna(), ["topic", "doc"]].astype(str)
        keys = pd.MultiIndex.from_frame(pairs[["topic", "doc"]])
        pairs["suggestion_shown"] = keys.isin(pd.MultiIndex.from_frame(seen))
    return pairs.sort_values(["topic", "doc"], ignore_index=True)


def confusion_tables(human: np.ndarray, auto: np.ndarray, topics: np.ndarray,
                     scale: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(topic names, per-topic confusion tables T × L × L): ``[t, i, j]`` counts the pairs of
    topic t that people labelled ``scale[i]`` and the judge ``scale[j]``."""
    values = np.asarray(sorted(scale))
    codes, names = pd.factorize(pd.Series(topics, dtype=str), sort=True)
    width = len(values)
    flat = ((codes * width + np.searchsorted(values, human)) * width
            + np.searchsorted(values, auto))
    tables = np.bincount(flat, minlength=len(names) * width * width)
    return np.asarray(names, dtype=object), tables.reshape(len(names), width, width)


def table_statistics(tables: np.ndarray, scale: Sequence[int],
                     relevant: int) -> dict[str, np.ndarray]:
    """The statistics of every L × L table of ``tables`` (any leading shape), NaN where
    undefined; see the module docstring for their definitions."""
    tables = np.asarray(tables, dtype=np.int64)
    values = np.asarray(sorted(scale))
    n = tables.sum(axis=(-2, -1))
    people, judge = tables.sum(axis=-1), tables.sum(axis=-2)
    diagonal = np.diagonal(tables, axis1=-2, axis2=-1)
    out = {"n": n.astype(float), "agreement": _ratio(diagonal.sum(axis=-1), n),
           "kappa": kappa_from_tables(tables)}
    if len(values) > 2:
        out["kappa_linear"] = kappa_from_tables(tables, "linear")
    positive = values >= relevant
    out["judge_relevant_share"] = _ratio(judge[..., positive].sum(axis=-1), n)
    out["people_relevant_share"] = _ratio(people[..., positive].sum(axis=-1), n)
    out["bias"] = out["judge_relevant_share"] - out["people_relevant_share"]
    for i, value in enumerate(values):
        out[f"precision:{value}"] = _ratio(diagonal[..., i], judge[..., i])
        out[f"recall:{value}"] = _ratio(diagonal[..., i], people[..., i])
    return out


def bootstrap_intervals(tables: np.ndarray, scale: Sequence[int], relevant: int, *,
                        resamples: int, seed: int, confidence: float
                        ) -> dict[str, tuple[float, float]]:
    """Percentile CIs of every statistic, resampling the T topic tables with replacement;
    NaN bounds with fewer than two topics or no resamples. Reproducible for a given ``seed``."""
    n_topics = len(tables)
    names = list(table_statistics(tables.sum(axis=0), scale, relevant))
    if n_topics < 2 or resamples < 1:
        return {name: (float("nan"), float("nan")) for name in names}
    rng = np.random.default_rng(seed)
    flat = tables.reshape(n_topics, -1)
    draws: dict[str, list[np.ndarray]] = {name: [] for name in names}
    for start in range(0, resamples, BLOCK):
        size = min(BLOCK, resamples - start)
        picks = rng.integers(0, n_topics, size=(size, n_topics))
        offsets = np.arange(size)[:, None] * n_topics
        times = np.bincount((picks + offsets).ravel(), minlength=size * n_topics)
        sums = (times.reshape(size, n_topics) @ flat).reshape(size, *tables.shape[1:])
        for name, values in table_statistics(sums, scale, relevant).items():
            draws[name].append(values)
    tail = (1.0 - confidence) / 2
    out = {}
    for name in names:
        values = np.concatenate(draws[name])
        values = values[np.isfinite(values)]
        out[name] = ((float(np.quantile(values, tail)), float(np.quantile(values, 1 - tail)))
                     if len(values) else (float("nan"), float("nan")))
    return out


def calibrate(pairs: pd.DataFrame, scale: Sequence[int], *, relevant: int | None = None,
              resamples: int = 1000, seed: int = 0, confidence: float = 0.95) -> Calibration:
    """Measure the judge on ``pairs`` (``topic, doc, human, auto`` [+ ``suggestion_shown``]).

    ``relevant`` defaults to the second label of the ascending scale. InputError when no pair
    has both labels.
    """
    if pairs.empty:
        raise InputError("no pair is labelled both by people and by the automatic judge")
    values = sorted(scale)
    if relevant is None:
        relevant = values[1] if len(values) > 1 else values[0] + 1
    human, auto = pairs["human"].to_numpy(np.int64), pairs["auto"].to_numpy(np.int64)
    topics, tables = confusion_tables(human, auto, pairs["topic"].to_numpy(), values)
    point = table_statistics(tables.sum(axis=0), values, relevant)
    intervals = bootstrap_intervals(tables, values, relevant, resamples=resamples, seed=seed,
                                    confidence=confidence)
    statistics = pd.DataFrame(
        [(name, float(value), *intervals[name]) for name, value in point.items() if name != "n"],
        columns=["statistic", "value", "ci_low", "ci_high"])
    confusion = pd.DataFrame(tables.sum(axis=0), index=pd.Index(values, name="people"),
                             columns=pd.Index(values, name="judge"))
    settings = {"pairs": len(pairs), "topics": len(topics), "relevant_from": int(relevant),
                "ci": {"confidence": confidence, "resamples": resamples, "seed": seed,
                       "method": "percentile bootstrap over topics"},
                "kappa_weights": "linear" if len(values) > 2 else None}
    return Calibration(confusion, statistics, _by_suggestion(pairs, values, relevant), settings)


def _by_suggestion(pairs: pd.DataFrame, values: list[int], relevant: int) -> pd.DataFrame:
    """n, agreement and kappa on all pairs, on pairs no person saw a suggestion for, and on
    pairs where one did (anchoring shows as higher agreement with suggestions)."""
    shown = (pairs["suggestion_shown"].to_numpy(bool) if "suggestion_shown" in pairs
             else np.zeros(len(pairs), dtype=bool))
    rows: list[dict[str, object]] = []
    for subset, keep in zip(SUGGESTION_SUBSETS, (np.ones_like(shown), ~shown, shown),
                            strict=True):
        chosen = pairs[keep]
        _, tables = confusion_tables(chosen["human"].to_numpy(np.int64),
                                     chosen["auto"].to_numpy(np.int64),
                                     chosen["topic"].to_numpy(), values)
        stats = table_statistics(tables.sum(axis=0), values, relevant)
        rows.append({"subset": subset, "n": int(keep.sum()),
                     **{k: float(stats[k]) for k in ("agreement", "kappa", "kappa_linear")
                        if k in stats}})
    return pd.DataFrame(rows)


def stratified_sample(candidates: pd.DataFrame, n: int, *, seed: int = 0) -> np.ndarray:
    """``n`` of the candidate pairs (``pair_id, label``: the judge's label), stratified by
    label with equal allocation capped by availability (see the module docstring); returned in
    judging order: labels interleaved round-robin (rarest first), random within a label, so
    any first part of the list covers every label it can. All candidates when ``n`` exceeds
    them. UsageError for a negative ``n``."""
    if n < 0:
        raise UsageError(f"n must be >= 0, got {n}")
    rng = np.random.default_rng(seed)
    groups = {int(label): rng.permutation(ids.to_numpy(np.int64))
              for label, ids in candidates.groupby("label", sort=True)["pair_id"]}
    quota = _allocate({label: len(ids) for label, ids in groups.items()}, n)
    rarest = sorted(groups, key=lambda label: (len(groups[label]), label))
    taken = [groups[label][:quota[label]] for label in rarest]
    rounds = [ids[i] for i in range(max((len(t) for t in taken), default=0))
              for ids in taken if i < len(ids)]
    return np.asarray(rounds, dtype=np.int64)


def _allocate(available: dict[int, int], n: int) -> dict[int, int]:
    """Equal shares of ``n`` over the labels, capped by ``available``, the rest spread evenly
    over the labels with room left (lower labels first for an uneven remainder)."""
    quota = dict.fromkeys(available, 0)
    left = min(n, sum(available.values()))
    while left > 0:
        open_labels = [label for label in sorted(available) if quota[label] < available[label]]
        share = max(left // len(open_labels), 1)
        for label in open_labels:
            take = min(share, available[label] - quota[label], left)
            quota[label] += take
            left -= take
    return quota
