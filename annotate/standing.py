"""Where each annotator stands: judgments, pace, label shares, pairs left, agreement, drift.

Definitions (kind ``judgment`` only; adjudications are not an annotator's own judging):

- A pair counts for an annotator by its *latest* version: a label (status ``label``) counts in
  ``judgments`` and the label shares, a can't-judge answer in ``cannot_judge`` (apart, never a
  label), a withdrawal (an undo) nowhere.
- ``judged_today``: pairs whose latest version is a label written today, the UTC calendar day
  of ``now`` (00:00 to 24:00 UTC, whatever the annotator's time zone).
- ``median_seconds``: the median of the seconds of version-1 judgments made in the judging page
  (source ``human``, seconds recorded): the time a first look at a pair takes.
- ``pairs_left``: from the progress counters (:func:`pooljudge.annotate.store.progress`), never
from the
  judgments: per topic, the pairs the annotator has not answered (labelled, or a standing
  can't-judge answer), at most the judgments the topic still needs; summed. It is an upper
  bound: another annotator may take a pair first.
- ``kappa``: the mean of Cohen's kappa of the annotator with each other participant over the
  pairs both labelled (:func:`pooljudge.annotate.agreement.pairwise_agreement`); ``<NA>`` when no
  kappa is
  defined. ``co_judged``: the annotator's labelled pairs that another participant labelled too.
- Drift: the annotator's labels in the order written, in blocks of ``block``; each block's
  share of relevant labels (all but the lowest label of the scale, as in the agreement report).

Two readers, both over rows the store reads (:mod:`pooljudge.annotate.store.stats`):
:func:`standing`
for the judging page (one annotator, bounded reads: the newest :data:`RECENT` rows, and today's
rows only when those are all from today) and :func:`annotator_statistics` for admins (one query
over the campaign's judgments; callers cache it).
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, time

import numpy as np
import pandas as pd
from pooljudge.annotate import store
from pooljudge.annotate.agreement import pairwise_agreement
from pooljudge.annotate.judgment_codes import code_judgments
from pooljudge.annotate.records import LabelScale
from sqlmodel import Session

from pooljudge.errors import UsageError

__all__ = ["RECENT", "TODAY_CAP", "AnnotatorStatistics", "Standing", "annotator_statistics",
           "day_start", "pairs_left", "standing"]

RECENT = 200
"""Newest judgment rows :func:`standing` reads for the median and the label shares."""
TODAY_CAP = 2000
"""Most of today's rows :func:`standing` counts (a day beyond it shows ``2000+``)."""


def day_start(now: datetime | None = None) -> datetime:
    """00:00 UTC of ``now``'s day (naive UTC, as the store keeps times; default: now)."""
    return datetime.combine((now or datetime.now(UTC)).date(), time())


@dataclass(frozen=True)
class Standing:
    """One annotator's figures for the judging page.

    ``labels`` maps each label of the scale to its count among the latest versions within the
    annotator's newest judgment rows, and ``window`` is the number of pairs they count (pairs,
    like every other figure of the page, not versions: a changed label counts once);
    ``median_seconds`` is None without a timed first judgment.
    ``today_capped``: today's counts stopped at :data:`TODAY_CAP` rows (there are more).
    """

    judged_today: int
    cannot_judge_today: int
    median_seconds: float | None
    labels: dict[int, int]
    window: int
    pairs_left: int
    today_capped: bool = False

    @property
    def shares(self) -> dict[int, float]:
        """Each label's share of :attr:`labels` (all 0 when nothing is labelled)."""
        total = sum(self.labels.values())
        return {k: (v / total if total else 0.0) for k, v in self.labels.items()}


def standing(session: Session, *, annotator_id: int, scale: LabelScale,
             progress_frame: pd.DataFrame, now: datetime | None = None,
             recent: int = RECENT) -> Standing:
    """The judging page's figures for one annotator (definitions in the module's docstring).

    ``progress_frame`` is :func:`pooljudge.annotate.store.progress` with ``annotator_id`` (read
    already by
    the page). Reads the annotator's newest ``recent`` rows, and today's rows only when all of
    those are from today (at most :data:`TODAY_CAP` of them); never the other annotators'
    judgments.
    """
    start = day_start(now)
    # (created_at, version, status, label, source, seconds, latest)
    rows = store.recent_judgment_rows(session, annotator_id=annotator_id, limit=recent)
    latest = [r for r in rows if r[6]]
    capped = False
    if len(rows) == recent and rows and rows[-1][0] >= start:
        today = store.status_counts_since(session, annotator_id=annotator_id, start=start,
                                          cap=TODAY_CAP)
        capped = sum(today.values()) >= TODAY_CAP
    else:
        today = Counter(r[2] for r in latest if r[0] >= start)
    labels = Counter(r[3] for r in latest if r[2] == "label")
    seconds = [r[5] for r in rows if r[1] == 1 and r[4] == "human" and r[5] is not None]
    return Standing(
        judged_today=int(today.get("label", 0)),
        cannot_judge_today=int(today.get("cannot_judge", 0)),
        median_seconds=float(statistics.median(seconds)) if seconds else None,
        labels={v: labels.get(v, 0) for v in scale.values}, window=sum(labels.values()),
        pairs_left=pairs_left(progress_frame), today_capped=capped)


def pairs_left(frame: pd.DataFrame) -> int:
    """Σ over topics of min(pairs − ``annotator_done``, ``judgments_needed − judgments_done``),
    at least 0 each: the pairs a :func:`pooljudge.annotate.store.progress` frame with
    ``annotator_done``
    says its annotator could still be given."""
    if frame.empty:
        return 0
    column = {c: frame[c].to_numpy() for c in ("pairs", "judgments_needed", "judgments_done")}
    done = frame["annotator_done"].to_numpy() if "annotator_done" in frame else 0
    left = np.minimum(column["pairs"] - done,
                      column["judgments_needed"] - column["judgments_done"])
    return int(np.maximum(left, 0).sum())


@dataclass(frozen=True)
class AnnotatorStatistics:
    """Tidy frames of :func:`annotator_statistics`, one row per annotator (and label, block).

    - ``summary``: annotator, role, judgments, cannot_judge, judged_today, median_seconds,
      pairs_left, co_judged, kappa;
    - ``labels``: annotator, label, name, judgments, share (every label of the scale);
    - ``drift``: annotator, block (1, 2 …), judgments, until (time of its last label),
      relevant_share.
    """

    summary: pd.DataFrame
    labels: pd.DataFrame
    drift: pd.DataFrame


def annotator_statistics(session: Session, *, campaign: str, now: datetime | None = None,
                         block: int = 50) -> AnnotatorStatistics:
    """Every active participant's figures (definitions in the module's docstring), by name.

    One query over the campaign's judgments (kind ``judgment``) plus the progress counters
    (:func:`pooljudge.annotate.store.campaign_judgment_rows`); pandas does the rest. UsageError for
    a
    ``block`` below 1."""
    if block < 1:
        raise UsageError(f"block must be >= 1, got {block}")
    read = store.campaign_judgment_rows(session, campaign=campaign)
    people, rows, scale = read.people, read.rows, read.scale
    latest = rows.sort_values(["version"]).drop_duplicates(["pair_id", "annotator_id"],
                                                           keep="last")
    labelled = latest.loc[latest["status"] == "label"].astype({"label": "int64"})
    summary = _summary(people, rows, latest, labelled, day_start(now))
    summary["pairs_left"] = _pairs_left_by_id(read, summary["annotator_id"], latest)
    summary = summary.merge(_agreement(labelled, scale), on="annotator_id", how="left")
    summary["co_judged"] = summary["co_judged"].fillna(0).astype("int64")
    columns = ["annotator", "role", "judgments", "cannot_judge", "judged_today",
               "median_seconds", "pairs_left", "co_judged", "kappa"]
    return AnnotatorStatistics(summary=summary[columns].reset_index(drop=True),
                               labels=_label_shares(people, labelled, scale),
                               drift=_drift(people, labelled, scale, block))


def _timed(rows: pd.DataFrame) -> pd.DataFrame:
    """Version-1 judgments made in the judging page with their seconds recorded."""
    return rows.loc[(rows["version"] == 1) & (rows["source"] == "human")
                    & rows["seconds"].notna()]


def _summary(people: pd.DataFrame, rows: pd.DataFrame, latest: pd.DataFrame,
             labelled: pd.DataFrame, start: datetime) -> pd.DataFrame:
    """Counts and median seconds per person (0 and None for those without judgments)."""
    by = people["annotator_id"]
    today = labelled.loc[labelled["created_at"] >= start]
    frame = people.assign(
        judgments=by.map(labelled.groupby("annotator_id").size()),
        cannot_judge=by.map(latest.loc[latest["status"] == "cannot_judge"]
                            .groupby("annotator_id").size()),
        judged_today=by.map(today.groupby("annotator_id").size()))
    frame = frame.fillna({"judgments": 0, "cannot_judge": 0, "judged_today": 0}).astype(
        {"judgments": "int64", "cannot_judge": "int64", "judged_today": "int64"})
    medians = _timed(rows).groupby("annotator_id")["seconds"].median()
    frame["median_seconds"] = by.map(medians).astype("Float64")
    return frame


def _pairs_left_by_id(read: store.CampaignJudgmentRows, ids: pd.Series,
                      latest: pd.DataFrame) -> list[int]:
    """:func:`pairs_left` of each annotator id: the topics' counters, and as each person's
    ``annotator_done`` their labelled pairs (counters) plus their standing can't-judge answers,
    as :func:`pooljudge.annotate.store.progress` counts them for one annotator."""
    topics = read.topics
    unsure = (latest.loc[latest["status"] == "cannot_judge"]
              .groupby(["annotator_id", "topic_id"]).size().rename("n").reset_index())
    answered = pd.concat([read.counted, unsure]).groupby(["annotator_id", "topic_id"])["n"].sum()
    return [pairs_left(topics.assign(annotator_done=topics["topic_id"].map(
        answered.get(int(i), pd.Series(dtype="int64"))).fillna(0).astype("int64")))
        for i in ids]


def _agreement(labelled: pd.DataFrame, scale: LabelScale) -> pd.DataFrame:
    """Per annotator id: ``co_judged`` and ``kappa`` (mean pairwise Cohen's kappa, Float64)."""
    empty = pd.DataFrame({"annotator_id": pd.Series(dtype="int64"),
                          "co_judged": pd.Series(dtype="int64"),
                          "kappa": pd.Series(dtype="Float64")})
    if labelled.empty:
        return empty
    shared = labelled.groupby("pair_id")["annotator_id"].transform("size") >= 2
    co = labelled.loc[shared].groupby("annotator_id").size().rename("co_judged")
    frame = pd.DataFrame({"annotator": labelled["annotator_id"], "topic": labelled["topic_id"],
                          "doc": labelled["pair_id"], "label": labelled["label"]})
    pairs = pairwise_agreement(code_judgments(frame, scale.values), spec=None)
    both = pd.concat([pairs[["a", "cohen_kappa"]].rename(columns={"a": "annotator_id"}),
                      pairs[["b", "cohen_kappa"]].rename(columns={"b": "annotator_id"})])
    kappa = both.groupby("annotator_id")["cohen_kappa"].mean().rename("kappa")
    kappa.index = kappa.index.astype("int64")  # coded annotators are strings
    result = pd.concat([co, kappa], axis=1).rename_axis("annotator_id").reset_index()
    result["annotator_id"] = result["annotator_id"].astype("int64")
    return result.astype({"kappa": "Float64"}) if len(result) else empty


def _label_shares(people: pd.DataFrame, labelled: pd.DataFrame,
                  scale: LabelScale) -> pd.DataFrame:
    """annotator, label, name, judgments, share: one row per person and label of the scale."""
    counts = labelled.groupby(["annotator_id", "label"]).size()
    rows = [(name, lab.value, lab.name, int(counts.get((aid, lab.value), 0)))
            for aid, name in zip(people["annotator_id"], people["annotator"], strict=True)
            for lab in scale.labels]
    frame = pd.DataFrame(rows, columns=["annotator", "label", "name", "judgments"])
    totals = frame.groupby("annotator")["judgments"].transform("sum")
    frame["share"] = (frame["judgments"] / totals.where(totals > 0)).fillna(0.0)
    return frame.astype({"label": "int64", "judgments": "int64"})


def _drift(people: pd.DataFrame, labelled: pd.DataFrame, scale: LabelScale,
           block: int) -> pd.DataFrame:
    """annotator, block, judgments, until, relevant_share: each person's labels in the order
    written, ``block`` at a time."""
    columns = ["annotator", "block", "judgments", "until", "relevant_share"]
    values = sorted(scale.values)
    relevant = values[1] if len(values) > 1 else values[0] + 1
    names = dict(zip(people["annotator_id"], people["annotator"], strict=True))
    ordered = labelled.loc[labelled["annotator_id"].isin(names)].sort_values(
        ["annotator_id", "created_at"], kind="stable")
    if ordered.empty:
        return pd.DataFrame(columns=columns).astype({"block": "int64", "judgments": "int64",
                                                     "relevant_share": "float64"})
    ordered = ordered.assign(
        block=ordered.groupby("annotator_id").cumcount() // block + 1,
        relevant=(ordered["label"] >= relevant).astype("float64"))
    frame = ordered.groupby(["annotator_id", "block"]).agg(
        judgments=("label", "size"), until=("created_at", "max"),
        relevant_share=("relevant", "mean")).reset_index()
    frame.insert(0, "annotator", frame.pop("annotator_id").map(names))
    return frame.sort_values(["annotator", "block"], ignore_index=True)[columns]
