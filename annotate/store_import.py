"""Import judgments in bulk: every row checked first, then all stored in one transaction.

The first bad row (in file order) is reported as ``path:line`` and nothing is stored. Versions
continue each (pair, annotator, kind)'s existing versions, in file order. A participant's first
judgment of a pair counts towards the overlap (taking an open slot, or the slot of their own
live claim); imported label sources (``qrels``, ``llm``…) never count.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
import sqlalchemy as sa
from sqlmodel import Session

from annotate.models import Annotator, Claim, Document, Judgment, Pair, Topic
from annotate.records import JUDGMENT_KINDS, JUDGMENT_SOURCES, LabelScale
from annotate.store_annotators import add_label_source
from annotate.store_common import campaign_row, refresh_statistics, utcnow
from annotate.store_progress import count_judged
from pooljudge.errors import InputError

__all__ = ["import_judgments"]

_BATCH = 5000


def import_judgments(
    session: Session, *, campaign: str, frame: pd.DataFrame, path: str | None = None,
    lines: Sequence[int] | None = None, label_sources: Iterable[str] = (),
    source: str = "import",
) -> int:
    """Store the rows of ``frame`` (columns annotator, topic, doc, label; optional time,
    seconds, comment, source, kind) as judgments of ``campaign``; the number stored.

    ``lines`` gives each row's line number in ``path`` for error messages (default: row + 2,
    after a header). Names in ``label_sources`` unknown to the campaign are created as
    non-human annotators; any other unknown annotator is an error. ``source`` is the default
    for rows without one.
    """
    row = campaign_row(session, campaign)
    frame = frame.reset_index(drop=True)
    lines = np.arange(2, len(frame) + 2) if lines is None else np.asarray(lines)
    if frame.empty:
        raise InputError("no judgments to import", path=path)
    for name in sorted(set(label_sources)):
        add_label_source(session, campaign_id=row.id, name=name)
    data = _resolve(session, row.id, frame, source)
    scale = LabelScale.from_data(json.loads(row.scale)).values
    _validate(data, scale, path, lines)
    data = _with_versions(session, data)
    _count_towards_overlap(session, data)
    count_judged(session, firsts=data.loc[data["first"] & (data["kind"] == "judgment"),
                                          ["annotator_id", "pair_id"]])
    records = pd.DataFrame({
        "pair_id": data["pair_id"], "annotator_id": data["annotator_id"], "kind": data["kind"],
        "version": data["version"], "label": data["label_value"], "source": data["source"],
        "created_at": data["created_at"], "seconds": data["seconds_value"],
        "position": None, "comment": data["comment"],
    }).astype(object).where(lambda f: f.notna(), None).to_dict("records")
    table = Judgment.__table__
    for start in range(0, len(records), _BATCH):
        session.execute(sa.insert(table), records[start:start + _BATCH])
    refresh_statistics(session, "judgment", "pair", "annotator", "annotator_topic")
    return len(records)


def _resolve(session: Session, campaign_id: int, frame: pd.DataFrame, source: str
             ) -> pd.DataFrame:
    """Attach ids and parsed values to every row (NaN where a look-up or parse fails)."""
    data = pd.DataFrame({c: frame[c].astype(str).str.strip()
                         for c in ("annotator", "topic", "doc", "label")})
    names = pd.DataFrame(session.execute(sa.select(
        Annotator.name, Annotator.id, Annotator.human, Annotator.role)
        .where(Annotator.campaign_id == campaign_id, Annotator.active)).all(),
        columns=["annotator", "annotator_id", "human", "role"])
    pairs = pd.DataFrame(session.execute(
        sa.select(Topic.key, Document.key, Pair.id).select_from(Pair)
        .join(Topic, Topic.id == Pair.topic_id).join(Document, Document.id == Pair.document_id)
        .where(Pair.campaign_id == campaign_id)).all(), columns=["topic", "doc", "pair_id"])
    data = data.merge(names, on="annotator", how="left", sort=False)
    data = data.merge(pairs, on=["topic", "doc"], how="left", sort=False)
    data["known_topic"] = data["topic"].isin(set(pairs["topic"]))
    data["known_doc"] = data["doc"].isin(set(pairs["doc"]))
    data["label_value"] = pd.to_numeric(data["label"], errors="coerce")
    data["kind"] = _optional(frame, "kind", "judgment")
    data["source"] = _optional(frame, "source", source)
    data["comment"] = frame["comment"].where(frame["comment"].astype(str).str.strip() != "") \
        if "comment" in frame else None
    data["seconds_value"] = pd.to_numeric(_optional(frame, "seconds", ""), errors="coerce")
    data["seconds_raw"] = _optional(frame, "seconds", "")
    time_raw = _optional(frame, "time", "")
    parsed = pd.to_datetime(time_raw.where(time_raw != ""), errors="coerce", utc=True,
                            format="ISO8601")
    data["time_raw"] = time_raw
    data["created_at"] = parsed.dt.tz_convert(None).astype("datetime64[us]").fillna(
        pd.Timestamp(utcnow()))
    return data


def _optional(frame: pd.DataFrame, column: str, default: str) -> pd.Series:
    if column not in frame:
        return pd.Series([default] * len(frame), dtype=object)
    values = frame[column].fillna("").astype(str).str.strip().reset_index(drop=True)
    return values.where(values != "", default).astype(object)


def _validate(data: pd.DataFrame, scale: tuple[int, ...], path: str | None,
              lines: np.ndarray) -> None:
    """Raise InputError at the first row (in file order) that fails any check."""
    value = data["label_value"]
    checks = [
        (data["annotator_id"].isna(), lambda r: f"unknown annotator {r.annotator!r}"),
        (~data["known_topic"], lambda r: f"unknown topic {r.topic!r}"),
        (~data["known_doc"], lambda r: f"unknown document {r.doc!r}"),
        (data["pair_id"].isna(), lambda r: f"topic {r.topic!r}, document {r.doc!r} is not "
                                           "in the pool"),
        (value.isna() | (value != value.round()), lambda r: f"label is not an integer: "
                                                            f"{r.label!r}"),
        (~value.isin(scale), lambda r: f"label {r.label} is not on the scale {list(scale)}"),
        (~data["kind"].isin(JUDGMENT_KINDS), lambda r: f"unknown kind {r.kind!r}"),
        (~data["source"].isin(JUDGMENT_SOURCES), lambda r: f"unknown source {r.source!r}"),
        ((data["seconds_raw"] != "") & ~(data["seconds_value"] >= 0),
         lambda r: f"seconds is not a number >= 0: {r.seconds_raw!r}"),
        ((data["time_raw"] != "") & data["created_at"].isna(), lambda r: "unreadable time"),
        ((data["kind"] == "adjudication") & ~data["role"].isin(["adjudicator", "admin"]),
         lambda r: f"annotator {r.annotator!r} is not an adjudicator"),
    ]
    first: tuple[int, str] | None = None
    for mask, message in checks:
        bad = mask.fillna(True).to_numpy(dtype=bool)
        if bad.any():
            i = int(np.argmax(bad))
            if first is None or i < first[0]:
                first = (i, message(data.iloc[i]))
    if first is not None:
        raise InputError(first[1], path=path, line=int(lines[first[0]]) if path else None)


def _with_versions(session: Session, data: pd.DataFrame) -> pd.DataFrame:
    """Add ``version`` (existing max + order in file) and ``first`` (no earlier version)."""
    data = data.astype({"pair_id": "int64", "annotator_id": "int64"})
    existing = pd.DataFrame(session.execute(
        sa.select(Judgment.pair_id, Judgment.annotator_id, Judgment.kind,
                  sa.func.max(Judgment.version))
        .where(Judgment.annotator_id.in_(sorted(set(data["annotator_id"].tolist()))))
        .group_by(Judgment.pair_id, Judgment.annotator_id, Judgment.kind)).all(),
        columns=["pair_id", "annotator_id", "kind", "previous"])
    keys = ["pair_id", "annotator_id", "kind"]
    data = data.merge(existing, on=keys, how="left", sort=False)
    previous = data["previous"].fillna(0).astype("int64")
    data["version"] = previous + data.groupby(keys, sort=False).cumcount() + 1
    data["first"] = data["version"] == 1
    return data


def _count_towards_overlap(session: Session, data: pd.DataFrame) -> None:
    """Participants' first judgments: judged += 1; open slots -= 1 (or their claim released)."""
    firsts = data[data["first"] & (data["kind"] == "judgment") & data["human"].astype(bool)]
    if firsts.empty:
        return
    claims = pd.DataFrame(session.execute(
        sa.select(Claim.pair_id, Claim.annotator_id)
        .where(Claim.annotator_id.in_(sorted(set(firsts["annotator_id"].tolist()))))).all(),
        columns=["pair_id", "annotator_id"])
    held = firsts.merge(claims, on=["pair_id", "annotator_id"], how="inner")
    for pair_id, annotator_id in held[["pair_id", "annotator_id"]].itertuples(index=False):
        session.execute(sa.delete(Claim).where(Claim.pair_id == int(pair_id),
                                               Claim.annotator_id == int(annotator_id)))
    counts = firsts.groupby("pair_id").size().rename("n").to_frame()
    counts["m"] = counts["n"] - held.groupby("pair_id").size().reindex(counts.index).fillna(0)
    pair = Pair.__table__
    statement = sa.update(pair).where(pair.c.id == sa.bindparam("pid")).values(
        judged=pair.c.judged + sa.bindparam("n"),
        open_slots=sa.case((pair.c.open_slots > sa.bindparam("m"),
                            pair.c.open_slots - sa.bindparam("m")), else_=0))
    params = [{"pid": int(p), "n": int(n), "m": int(m)}
              for p, n, m in counts.itertuples(index=True)]
    for start in range(0, len(params), _BATCH):
        session.execute(statement, params[start:start + _BATCH])
