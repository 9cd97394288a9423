"""Import judgments in bulk: every row checked first, then all stored in one transaction.

The first bad row (in file order) is reported as ``path:line`` and nothing is stored. Versions
continue each (pair, annotator, kind)'s existing versions, in file order, and a row may carry a
``status`` (``label``, ``withdrawn``, ``cannot_judge``: a full-history export imports back
unchanged). The counters follow each sequence's change of state, from its latest stored version
to its last row in the file: a participant's pair that becomes labelled counts towards the
overlap (taking an open slot, or the slot of their own live claim), one that stops being
labelled gives its slot back; imported label sources (``qrels``, ``llm``…) never count.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.records import (
    JUDGMENT_KINDS,
    JUDGMENT_SOURCES,
    JUDGMENT_STATUSES,
    LabelScale,
)
from pooljudge.annotate.store.annotators import add_label_source
from pooljudge.annotate.store.common import (
    campaign_row,
    lock_annotators,
    recount_slots,
    refresh_statistics,
    utcnow,
)
from pooljudge.annotate.store.models import Annotator, Claim, Document, Judgment, Pair, Topic
from pooljudge.annotate.store.progress_counters import count_judged
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = ["COLUMNS", "REQUIRED", "check_columns", "import_judgments"]

REQUIRED = ("annotator", "topic", "doc", "label")
# ``created_at`` is another name of ``time``; ``version``, when given, must be the version the
# row gets (so an export imports back unchanged, and nothing is renumbered without a word).
COLUMNS = (*REQUIRED, "time", "created_at", "seconds", "comment", "source", "kind", "version",
           "status", "rationale")
_BATCH = 5000
_SEQUENCE = ["pair_id", "annotator_id", "kind"]  # one sequence of versions
_INTEGER = r"[+-]?\d+"
# ISO 8601: a date, optionally a time (to the microsecond) and an offset; no offset means UTC.
_ISO_TIME = (r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?"
             r"(?:Z|[+-]\d{2}(?::?\d{2})?)?)?")


def import_judgments(
    session: Session, *, campaign: str, frame: pd.DataFrame, path: str | None = None,
    lines: Sequence[int] | np.ndarray | None = None, label_sources: Iterable[str] = (),
    source: str = "import",
) -> int:
    """Store the rows of ``frame`` (columns annotator, topic, doc, label; optional time,
    seconds, comment, source, kind, version, status, rationale: :data:`COLUMNS`) as judgments
    of ``campaign``; the number stored.

    Every value is stored exactly as written or the whole frame is refused: a column twice or
    unknown; an empty annotator, topic or doc; a status other than label (the default),
    withdrawn or cannot_judge; a label row without a label that is a decimal integer on the
    scale (``1.0`` is refused), another row with one, a cannot_judge row without a rationale;
    seconds not finite or negative; a time not ISO 8601 (``2024-05-01T10:00:00Z``,
    ``...+02:00``, a date alone; no offset means UTC; at most microseconds); a version other
    than the one the row gets. Empty optional values take their defaults (time: now).

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
    check_columns([str(c) for c in frame.columns], path=path, line=1 if path else None)
    frame = frame.rename(columns={"created_at": "time"})
    data = _resolve(session, row.id, frame, source)
    scale = LabelScale.from_data(json.loads(row.scale)).values
    _validate(data, _checks(data, scale), path, lines)
    lock_annotators(session, data["annotator_id"])  # judging them meanwhile waits
    data = _with_versions(session, data)
    _validate(data, _version_checks(data), path, lines)
    _count_changes(session, data)
    records = pd.DataFrame({
        "pair_id": data["pair_id"], "annotator_id": data["annotator_id"], "kind": data["kind"],
        "version": data["version"], "label": data["label_value"], "source": data["source"],
        "created_at": data["created_at"], "seconds": data["seconds_value"],
        "position": None, "comment": data["comment"], "status": data["status"],
        "rationale": data["rationale"],
    }).astype(object).where(lambda f: f.notna(), None).to_dict("records")
    table = Judgment.__table__
    for start in range(0, len(records), _BATCH):
        session.execute(sa.insert(table), records[start:start + _BATCH])
    refresh_statistics(session, "judgment", "pair", "annotator", "annotator_topic")
    return len(records)


def check_columns(columns: Sequence[str], *, path: str | None = None, line: int | None = None,
                  hint: str = "") -> None:
    """Refuse a header (or a JSON object's keys) with a column twice, a required one missing
    (``hint`` is added to that message), a column not in :data:`COLUMNS`, or both ``time``
    and its alias ``created_at``."""
    seen: set[str] = set()
    twice = [c for c in columns if c in seen or seen.add(c)]
    if twice:
        raise InputError(f"column {twice[0]!r} appears twice", path=path, line=line)
    missing = [c for c in REQUIRED if c not in seen]
    unknown = ", ".join(repr(c) for c in columns if c not in COLUMNS)
    if missing:
        also = f"; unknown column(s) {unknown}" if unknown else ""
        raise InputError(f"missing column(s) {', '.join(missing)}{also}{hint}", path=path,
                         line=line)
    if unknown:
        raise InputError(f"unknown column(s) {unknown}; known: {', '.join(COLUMNS)}",
                         path=path, line=line)
    if {"time", "created_at"} <= seen:
        raise InputError("both time and created_at (the same column under two names)",
                         path=path, line=line)


def _resolve(session: Session, campaign_id: int, frame: pd.DataFrame, source: str
             ) -> pd.DataFrame:
    """Attach ids and parsed values to every row (NaN where a look-up or parse fails)."""
    data = pd.DataFrame({c: frame[c].fillna("").astype(str).str.strip() for c in REQUIRED})
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
    return pd.concat([data, _values(frame, source)], axis=1)


def _values(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    """The optional columns and the label, parsed; NaN/NaT where a value does not parse."""
    label = frame["label"].fillna("").astype(str).str.strip().reset_index(drop=True)
    exact = label.str.fullmatch(_INTEGER)
    seconds = _optional(frame, "seconds", "")
    time_raw = _optional(frame, "time", "")
    iso = time_raw.str.fullmatch(_ISO_TIME)
    parsed = pd.to_datetime(time_raw.where(iso), errors="coerce", utc=True, format="ISO8601")
    created = parsed.dt.tz_convert(None).astype("datetime64[us]")
    version = _optional(frame, "version", "")
    return pd.DataFrame({
        "label_value": pd.to_numeric(label.where(exact), errors="coerce"),
        "kind": _optional(frame, "kind", "judgment"),
        "source": _optional(frame, "source", source),
        "comment": _texts(frame, "comment"),
        "status": _optional(frame, "status", "label"),
        "rationale": _texts(frame, "rationale").str.strip(),
        "seconds_raw": seconds,
        "seconds_value": pd.to_numeric(seconds, errors="coerce"),
        "time_raw": time_raw,
        "time_value": created,
        "created_at": created.fillna(pd.Timestamp(utcnow())),
        "version_raw": version,
        "version_given": pd.to_numeric(version.where(version.str.fullmatch(_INTEGER)),
                                       errors="coerce"),
    })


def _texts(frame: pd.DataFrame, column: str) -> pd.Series:
    """A free-text column as written; None where empty or blank."""
    if column not in frame:
        return pd.Series([None] * len(frame), dtype=object)
    text = frame[column].fillna("").astype(str).reset_index(drop=True)
    return text.where(text.str.strip() != "", None)


def _optional(frame: pd.DataFrame, column: str, default: str) -> pd.Series:
    if column not in frame:
        return pd.Series([default] * len(frame), dtype=object)
    values = frame[column].fillna("").astype(str).str.strip().reset_index(drop=True)
    return values.where(values != "", default).astype(object)


def _checks(data: pd.DataFrame, scale: tuple[int, ...]) -> list[tuple[pd.Series, Callable]]:
    """(bad-row mask, message of a row) of every rule, in the order they are reported."""
    value, seconds = data["label_value"], data["seconds_value"]
    labelled = data["status"] == "label"
    empty = [(data[c] == "", lambda r, c=c: f"empty {c}") for c in REQUIRED if c != "label"]
    return [*empty,
        (~data["status"].isin(JUDGMENT_STATUSES),
         lambda r: f"unknown status {r.status!r}; known: {', '.join(JUDGMENT_STATUSES)}"),
        (labelled & (data["label"] == ""), lambda r: "empty label"),
        (~labelled & (data["label"] != ""),
         lambda r: f"a {r.status} row carries no label, got {r.label!r}"),
        ((data["status"] == "cannot_judge") & data["rationale"].isna(),
         lambda r: "a cannot_judge row needs a rationale (the reason)"),
        (data["annotator_id"].isna(), lambda r: f"unknown annotator {r.annotator!r}"),
        (~data["known_topic"], lambda r: f"unknown topic {r.topic!r}"),
        (~data["known_doc"], lambda r: f"unknown document {r.doc!r}"),
        (data["pair_id"].isna(), lambda r: f"topic {r.topic!r}, document {r.doc!r} is not "
                                           "in the pool"),
        (labelled & value.isna(), lambda r: f"label is not an integer: {r.label!r}"),
        (labelled & ~value.isin(scale),
         lambda r: f"label {r.label} is not on the scale {list(scale)}"),
        (~data["kind"].isin(JUDGMENT_KINDS), lambda r: f"unknown kind {r.kind!r}"),
        (~data["source"].isin(JUDGMENT_SOURCES), lambda r: f"unknown source {r.source!r}"),
        ((data["seconds_raw"] != "") & ~(np.isfinite(seconds) & (seconds >= 0)),
         lambda r: f"seconds is not a finite number >= 0: {r.seconds_raw!r}"),
        ((data["time_raw"] != "") & data["time_value"].isna(),
         lambda r: f"time is not an ISO 8601 date and time such as 2024-05-01T10:00:00Z, "
                   f"2024-05-01T12:00:00+02:00 or (UTC) 2024-05-01T10:00:00: {r.time_raw!r}"),
        ((data["version_raw"] != "") & data["version_given"].isna(),
         lambda r: f"version is not an integer: {r.version_raw!r}"),
        ((data["kind"] == "adjudication") & ~data["role"].isin(["adjudicator", "admin"]),
         lambda r: f"annotator {r.annotator!r} is not an adjudicator"),
    ]


def _validate(data: pd.DataFrame, checks: list[tuple[pd.Series, Callable]], path: str | None,
              lines: np.ndarray) -> None:
    """Raise InputError at the first row (in file order) that fails any check."""
    first: tuple[int, str] | None = None
    for mask, message in checks:
        bad = mask.fillna(True).to_numpy(dtype=bool)
        if bad.any():
            i = int(np.argmax(bad))
            if first is None or i < first[0]:
                first = (i, message(data.iloc[i]))
    if first is not None:
        raise InputError(first[1], path=path, line=int(lines[first[0]]) if path else None)


def _version_checks(data: pd.DataFrame) -> list[tuple[pd.Series, Callable]]:
    """A given version must be the one the row gets (existing versions + order in file)."""
    wrong = data["version_given"].notna() & (data["version_given"] != data["version"])
    return [(wrong, lambda r: f"version {r.version_raw} given, but this row is version "
                              f"{r.version} (stored versions continue, in file order)")]


def _with_versions(session: Session, data: pd.DataFrame) -> pd.DataFrame:
    """Add ``version`` (existing latest + order in file) and ``previous_status`` (the status of
    the latest stored version; None when there is none)."""
    data = data.astype({"pair_id": "int64", "annotator_id": "int64"})
    newer = sa.orm.aliased(Judgment, name="newer")
    later = sa.exists().where(newer.pair_id == Judgment.pair_id,
                              newer.annotator_id == Judgment.annotator_id,
                              newer.kind == Judgment.kind, newer.version > Judgment.version)
    existing = pd.DataFrame(session.execute(
        sa.select(Judgment.pair_id, Judgment.annotator_id, Judgment.kind, Judgment.version,
                  Judgment.status)
        .where(Judgment.annotator_id.in_(sorted(set(data["annotator_id"].tolist()))), ~later)
    ).all(), columns=["pair_id", "annotator_id", "kind", "previous", "previous_status"])
    data = data.merge(existing, on=_SEQUENCE, how="left", sort=False)
    previous = data["previous"].fillna(0).astype("int64")
    data["version"] = previous + data.groupby(_SEQUENCE, sort=False).cumcount() + 1
    return data


def _count_changes(session: Session, data: pd.DataFrame) -> None:
    """Each (pair, annotator) sequence of kind judgment, from its stored state to its last row
    in the file: ``annotator_topic.judged`` += the change in "labelled" (-1, 0, +1); for
    participants also ``pair.judged``, a slot taken (their own claim's, else an open one) for
    a new label and given back for a label gone. Their claim on a pair they answered (label
    or can't judge) is released."""
    last = data[data["kind"] == "judgment"].groupby(_SEQUENCE, sort=False).tail(1)
    last = last.assign(n=(last["status"] == "label").astype("int64")
                       - (last["previous_status"] == "label").astype("int64"))
    count_judged(session, firsts=last.loc[last["n"] != 0, ["annotator_id", "pair_id", "n"]])
    people = last[last["human"].astype(bool)]
    held = _release_claims(session, people[people["status"] != "withdrawn"])
    gained, lost = people[people["n"] > 0], people[people["n"] < 0]
    counts = gained.groupby("pair_id").size().rename("n").to_frame()
    counts["m"] = counts["n"] - gained.merge(held, on=["pair_id", "annotator_id"]).groupby(
        "pair_id").size().reindex(counts.index).fillna(0)
    counts = pd.concat([counts, lost.groupby("pair_id").size().rename("n").mul(-1).to_frame()
                        .assign(m=0)]).groupby(level=0).sum()
    pair = Pair.__table__
    statement = sa.update(pair).where(pair.c.id == sa.bindparam("pid")).values(
        judged=pair.c.judged + sa.bindparam("n"),
        open_slots=sa.case((pair.c.open_slots > sa.bindparam("m"),
                            pair.c.open_slots - sa.bindparam("m")), else_=0))
    params = [{"pid": int(p), "n": int(n), "m": int(m)}
              for p, n, m in counts.itertuples(index=True)]
    for start in range(0, len(params), _BATCH):
        session.execute(statement, params[start:start + _BATCH])
    released = held.merge(people[people["n"] <= 0], on=["pair_id", "annotator_id"])
    for pair_id in sorted({*lost["pair_id"].tolist(), *released["pair_id"].tolist()}):
        recount_slots(session, int(pair_id))  # a slot given back: open_slots by definition


def _release_claims(session: Session, answered: pd.DataFrame) -> pd.DataFrame:
    """Delete the participants' claims on the pairs they ``answered``; (pair_id, annotator_id)
    of the claims deleted."""
    none = pd.DataFrame({"pair_id": [], "annotator_id": []}, dtype="int64")
    if answered.empty:
        return none
    claims = pd.DataFrame(session.execute(
        sa.select(Claim.pair_id, Claim.annotator_id)
        .where(Claim.annotator_id.in_(sorted(set(answered["annotator_id"].tolist()))))).all(),
        columns=["pair_id", "annotator_id"]).astype("int64")
    held = answered[["pair_id", "annotator_id"]].merge(claims, on=["pair_id", "annotator_id"])
    for pair_id, annotator_id in held.itertuples(index=False):
        session.execute(sa.delete(Claim).where(Claim.pair_id == int(pair_id),
                                               Claim.annotator_id == int(annotator_id)))
    return held if not held.empty else none
