"""The judgments of a campaign as columns, read with one streamed query and no object per row.

:func:`read_judgments` is the engine of :func:`pooljudge.annotate.store.judgments_frame`. The
judgment rows
are read from the driver's cursor in chunks of :data:`CHUNK` (a server-side cursor on
PostgreSQL), without SQLAlchemy rows and without a join: the annotator's name and the pair's
topic and document keys come from small look-ups of the campaign (annotators, pairs, topics and
documents by id), put in place by integer codes. Each chunk's columns become numpy arrays at
once; text columns (``kind``, ``source``, ``comment``, ``status``, ``rationale``) are kept as
codes into their distinct values, so memory grows by a few bytes per judgment. Column types
are pandas' own inference over the values, as if the rows had been passed to
``pandas.DataFrame`` (ints, floats with NaN for None, datetimes, strings), except ``label``
(see :func:`read_judgments`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import timedelta

import numpy as np
import pandas as pd
import pyarrow as pa
import sqlalchemy as sa
from pooljudge.annotate.store.common import campaign_row
from pooljudge.annotate.store.models import Annotator, Document, Judgment, Pair, Topic
from sqlmodel import Session

from pooljudge.errors import UsageError

__all__ = ["CHUNK", "FRAME_COLUMNS", "LABELLED", "judgment_times", "judgments_frame",
           "read_judgments"]

FRAME_COLUMNS = ("annotator", "topic", "doc", "label", "version", "kind", "source", "created_at",
                 "seconds", "position", "comment", "status", "rationale")
CHUNK = 100_000
LABELLED = ("label",)
"""The default ``states`` of a latest-only frame: the pairs an annotator labelled."""

_J, _P = Judgment.__table__, Pair.__table__
_KEYED = ("annotator", "topic", "doc")  # from the look-ups, not the judgment row
_ROW = ("id", "pair_id", "annotator_id", "version", "kind", "status")  # always read
_INTS = ("id", "pair_id", "annotator_id", "label", "version")  # integers (label: NULL too)
_TEXTS = ("kind", "source", "comment", "status", "rationale")  # codes into distinct values
_TYPES = {"version": "int64", "seconds": "float64"}


def judgments_frame(session: Session, *, campaign: str, latest_only: bool = True,
                    kind: str | None = None, columns: Sequence[str] = FRAME_COLUMNS,
                    states: Sequence[str] = LABELLED) -> pd.DataFrame:
    """Every judgment row of the campaign, or only the latest version per pair, annotator and
    kind whose status is in ``states`` (default: labels only, so withdrawn labels and
    can't-judge answers are left out; add ``"cannot_judge"`` to get those answers).

    Columns: annotator, topic, doc, label, version, kind, source, created_at, seconds,
    position, comment, status, rationale (or the subset ``columns``); rows in the order they
    were written. One streamed query, no object per row
    (:func:`pooljudge.annotate.store.frames.read_judgments`).
    """
    return read_judgments(session, campaign_id=campaign_row(session, campaign).id,
                          latest_only=latest_only, kind=kind, columns=columns, states=states)


def judgment_times(session: Session, *, campaign: str, hours: float | None = 24
                   ) -> pd.DataFrame:
    """Columns annotator, created_at, seconds of the first judgments (version 1, kind
    judgment) of the queue's participants (``annotator.human``): the judgments that make
    progress, so label changes and non-human imports never inflate a pace. Only the last
    ``hours`` before the newest such judgment (all with None); ordered by time."""
    row = campaign_row(session, campaign)
    first = (sa.select(Annotator.name, Judgment.created_at, Judgment.seconds)
             .join(Pair, Pair.id == Judgment.pair_id)
             .join(Annotator, Annotator.id == Judgment.annotator_id)
             .where(Pair.campaign_id == row.id, Judgment.kind == "judgment",
                    Judgment.version == 1, Annotator.human))
    if hours is not None:
        times = first.subquery()
        newest = session.execute(sa.select(sa.func.max(times.c.created_at))).scalar_one()
        if newest is not None:
            first = first.where(Judgment.created_at >= newest - timedelta(hours=hours))
    rows = session.execute(first.order_by(Judgment.created_at)).all()
    return pd.DataFrame(rows, columns=["annotator", "created_at", "seconds"]).astype(
        {"seconds": "float64"})


def read_judgments(session: Session, *, campaign_id: int, latest_only: bool = True,
                   kind: str | None = None, columns: Sequence[str] = FRAME_COLUMNS,
                   states: Sequence[str] = LABELLED) -> pd.DataFrame:
    """The campaign's judgment rows (only the latest version per pair, annotator and kind when
    ``latest_only``; only ``kind`` when given) as a frame of ``columns``, a subset of
    :data:`FRAME_COLUMNS` in any order; rows in the order they were written (by id).

    A latest-only frame keeps only the rows whose status is in ``states``: by default labels,
    so a withdrawn label or a can't-judge answer leaves no row and ``label`` is never missing;
    ``states=("label", "cannot_judge")`` adds the can't-judge answers. Full history
    (``latest_only`` false) has every row, withdrawals included.

    ``version`` is int64 and ``seconds`` float64 even when there are no rows; ``label`` is
    int64, or pandas' nullable Int64 when a row without a label (a withdrawal, a can't-judge
    answer) is in the frame. UsageError for an unknown column name.
    """
    unknown = [c for c in columns if c not in FRAME_COLUMNS]
    if unknown:
        raise UsageError(f"unknown judgment column(s) {', '.join(unknown)}")
    one_kind = () if kind is None else ("kind",)  # a constant column, not read
    row_columns = [c for c in _ROW if c not in one_kind]
    fetched = [*row_columns, *(c for c in columns
                               if c not in (*_KEYED, *row_columns, *one_kind))]
    query = sa.select(*(_J.c[c] for c in fetched)).where(_J.c.pair_id.in_(
        sa.select(_P.c.id).where(_P.c.campaign_id == campaign_id)))
    if kind is not None:
        query = query.where(_J.c.kind == kind)
    chunks = {name: _Chunks(name) for name in fetched}
    for fields in _fetch(session, query):
        for name, field in zip(fetched, fields, strict=True):
            chunks[name].add(field)
    row = {name: chunks[name].codes() for name in row_columns}
    order = np.argsort(row["id"], kind="stable")  # the order they were written
    if latest_only:
        order = order[_is_latest(row["pair_id"], row["annotator_id"], row.get("kind"),
                                 row["version"])[order]]
        wanted = np.isin(np.asarray(chunks["status"].distinct, dtype=object), list(states))
        order = order[np.append(wanted, False)[row["status"][order]]]
    data = {name: chunks[name].take(order) for name in fetched if name in columns}
    if one_kind and "kind" in columns:
        data["kind"] = _texts(np.array([kind], dtype=object), np.zeros(len(order), np.int64))
    data |= _keys(session, campaign_id, [c for c in columns if c in _KEYED],
                  row["pair_id"][order], row["annotator_id"][order])
    frame = pd.DataFrame({name: data[name] for name in columns}, columns=list(columns))
    if "label" in frame.columns:
        frame["label"] = _labels(frame["label"].to_numpy(np.int64),
                                 chunks["label"].missing(order))
    return frame.astype({c: t for c, t in _TYPES.items() if c in frame.columns})


def _labels(values: np.ndarray, missing: np.ndarray) -> pd.Series | np.ndarray:
    """The label column: int64, or nullable Int64 with NA where a row has no label."""
    if not missing.any():
        return values
    labels = pd.array(values, dtype="Int64")
    labels[missing] = pd.NA
    return pd.Series(labels)


def _is_latest(pair: np.ndarray, annotator: np.ndarray, kind: np.ndarray | None,
               version: np.ndarray) -> np.ndarray:
    """True where no row of the same pair, annotator and kind (None: all one kind) has a
    higher version."""
    if not (version > 1).any():
        return np.ones(len(version), dtype=bool)
    keys = [pair, annotator] if kind is None else [pair, annotator, kind]
    highest = pd.Series(version).groupby(keys).transform("max")
    return version == highest.to_numpy()


def _fetch(session: Session, query: sa.Select) -> Iterator[list[np.ndarray]]:
    """``query``'s rows, :data:`CHUNK` at a time, as one object array per column (views of
    one block per chunk: copy what is kept).

    The driver's cursor is read directly (a named, server-side one on PostgreSQL), so no
    SQLAlchemy row is made; the columns' own result processors (e.g. SQLite's text to
    datetime) still convert the values, as a query through SQLAlchemy would.
    """
    connection = session.connection()
    dialect = connection.dialect
    compiled = query.compile(dialect=dialect)
    params = compiled.construct_params()
    if compiled.positional:
        params = tuple(params[name] for name in compiled.positiontup)
    driver = connection.connection.dbapi_connection
    postgres = dialect.name == "postgresql"
    cursor = driver.cursor(name="pooljudge_judgments") if postgres else driver.cursor()
    try:
        cursor.execute(str(compiled), params)
        types = [c.type for c in query.selected_columns]
        processors = [t._cached_result_processor(dialect, d[1])
                      for t, d in zip(types, cursor.description, strict=True)]
        while rows := cursor.fetchmany(CHUNK):
            block = np.array(rows, dtype=object).reshape(len(rows), len(processors))
            yield [block[:, i] if convert is None
                   else np.array(list(map(convert, block[:, i])), dtype=object)
                   for i, convert in enumerate(processors)]
    finally:
        cursor.close()


class _Chunks:
    """One column's values, chunk by chunk: int64 arrays, codes into distinct texts (None as
    code -1), or object arrays left for pandas to type."""

    def __init__(self, name: str) -> None:
        self.integer, self.text = name in _INTS, name in _TEXTS
        self.parts: list[np.ndarray] = []
        self.nulls: list[np.ndarray] = []  # integers: where the value was NULL
        self.uniques: list[np.ndarray] = []
        self.joined: np.ndarray | None = None
        self.distinct = np.zeros(0, dtype=object)

    def add(self, field: np.ndarray) -> None:
        if self.integer:
            null = np.equal(field, None)
            self.nulls.append(null)
            self.parts.append(np.where(null, 0, field).astype(np.int64))
        elif self.text:
            codes, uniques = pd.factorize(field)
            self.parts.append(codes)
            self.uniques.append(np.asarray(uniques, dtype=object))
        else:
            self.parts.append(field.copy())

    def missing(self, order: np.ndarray) -> np.ndarray:
        """An integer column's NULLs at the rows ``order`` (NULL is read as 0)."""
        nulls = np.concatenate(self.nulls) if self.nulls else np.zeros(0, dtype=bool)
        return nulls[order]

    def codes(self) -> np.ndarray:
        """Every value (int columns) or every code (text columns), all chunks in one array."""
        if self.joined is None:
            self.joined = self._join()
        return self.joined

    def _join(self) -> np.ndarray:
        if not self.parts:
            return np.zeros(0, dtype=np.int64 if self.integer or self.text else object)
        if not self.text:
            return np.concatenate(self.parts)
        # Renumber every chunk's codes into the distinct values of all chunks.
        merged, self.distinct = pd.factorize(np.concatenate(self.uniques))
        merged = np.append(merged, -1)  # a chunk's code -1 (None) stays -1
        starts = np.cumsum([0, *(len(u) for u in self.uniques)])
        return np.concatenate([merged[np.where(part >= 0, start + part, len(merged) - 1)]
                               for part, start in zip(self.parts, starts, strict=False)])

    def take(self, order: np.ndarray) -> np.ndarray | pd.Series:
        """The rows ``order`` of the column, typed as pandas types a list of the values."""
        values = self.codes()[order] if len(order) else np.zeros(0, dtype=object)
        if self.text and len(order):
            return _texts(np.asarray(self.distinct, dtype=object), values)
        return pd.Series(values).infer_objects() if values.dtype == object else values


def _texts(distinct: np.ndarray, codes: np.ndarray) -> pd.Series | np.ndarray:
    """``distinct[codes]`` (code -1: None) as pandas types it: strings (taken in pyarrow, not
    one Python object per row), except with a None, or nothing but None (then object)."""
    if len(codes) and len(distinct) and codes.min() >= 0:
        return pd.Series(pa.array(distinct.tolist(), pa.large_string()).take(pa.array(codes)),
                         dtype="str")
    return pd.Series(np.append(distinct, None)[codes]).infer_objects()


def _keys(session: Session, campaign_id: int, wanted: list[str], pair_id: np.ndarray,
          annotator_id: np.ndarray) -> dict[str, np.ndarray]:
    """The ``annotator``, ``topic`` and ``doc`` columns of the rows, from the ids, by look-up."""
    out: dict[str, np.ndarray] = {}
    if "annotator" in wanted:
        out["annotator"] = _lookup(session, sa.select(Annotator.id, Annotator.name).where(
            Annotator.campaign_id == campaign_id), annotator_id)
    if "topic" in wanted or "doc" in wanted:
        pairs = _columns(session, sa.select(Pair.id, Pair.topic_id, Pair.document_id)
                         .where(Pair.campaign_id == campaign_id).order_by(Pair.id))
        row = np.searchsorted(pairs[0], pair_id)
        for name, model, column in (("topic", Topic, 1), ("doc", Document, 2)):
            if name in wanted:
                out[name] = _lookup(session, sa.select(model.id, model.key).where(
                    model.campaign_id == campaign_id), pairs[column][row])
    return out


def _lookup(session: Session, query: sa.Select, ids: np.ndarray) -> np.ndarray:
    """The text of each of ``ids`` (all present) by ``query``'s (id, text) rows."""
    keys, texts = _columns(session, query.order_by(query.selected_columns[0]), int, object)
    return _texts(texts, np.searchsorted(keys, ids)) if len(ids) else texts[:0]


def _columns(session: Session, query: sa.Select, *types: type) -> list[np.ndarray]:
    """``query``'s columns as arrays (int64 unless ``types`` says otherwise)."""
    parts = list(_fetch(session, query))
    dtypes = [np.int64 if t is int else t for t in types or (int,) * len(query.selected_columns)]
    return [np.concatenate([part[i].astype(d) for part in parts] or [np.zeros(0, d)])
            for i, d in enumerate(dtypes)]
