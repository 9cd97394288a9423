"""Nugget assignments (revision 0013): an assessor's label of an (answer, nugget) cell —
``support``, ``partial_support`` or ``not_support`` — appended as a new version, the latest
deciding (as judgments do). A person's label is authorised first in its own transaction; a file
of labels (a model's, another tool's) is imported whole or not at all.

Cells are read back for the active nuggets only: a merged or deleted nugget's labels stay in
the store but no longer count.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.records import ANNOTATOR_ROLES, NUGGET_LABELS
from pooljudge.annotate.store.access import Credential, authorize
from pooljudge.annotate.store.annotators import add_label_source
from pooljudge.annotate.store.common import utcnow
from pooljudge.annotate.store.models import Annotator, Campaign, Topic
from pooljudge.annotate.store.nugget_models import (
    Nugget,
    NuggetAssignment,
    NuggetSetting,
    RagAnswer,
    table_of,
)
from pooljudge.annotate.store.nugget_queue import answer_holders
from pooljudge.annotate.store.nuggets import campaign_pk
from sqlmodel import Session

from pooljudge.errors import InputError
from pooljudge.formats.nugget_assignments import AnswerRef, AssignmentRow

__all__ = ["CELL_COLUMNS", "import_nugget_assignments", "nugget_cells", "nugget_suggestions",
           "record_nugget_assignment"]

CELL_COLUMNS = ("answer", "topic", "run", "nugget", "importance", "assessor", "label",
                "created_at")
_X, _N, _A, _T, _P = (table_of(NuggetAssignment), table_of(Nugget), table_of(RagAnswer),
                      table_of(Topic), table_of(Annotator))
_NEWER = _X.alias("newer")
_S, _C = table_of(NuggetSetting), table_of(Campaign)


def _last_version(session: Session, answer_id: int, nugget_id: int, annotator_id: int) -> int:
    return session.execute(sa.select(sa.func.coalesce(sa.func.max(_X.c.version), 0)).where(
        _X.c.answer_id == answer_id, _X.c.nugget_id == nugget_id,
        _X.c.annotator_id == annotator_id)).scalar_one()


def record_nugget_assignment(session: Session, *, credential: Credential, campaign: str,
                             answer: str, nugget: str, label: str,
                             seconds: float | None = None, suggested: str | None = None) -> int:
    """The logged-in person labels (``answer``, ``nugget``) with ``label``; the version
    written, with ``suggested``, the model's label shown as a pre-assignment (None: none was
    shown). InputError for an unknown answer, a nugget that is not an active nugget of the
    answer's topic, a label outside :data:`NUGGET_LABELS`, negative seconds, a first label on
    an answer that as many others as the campaign's overlap already hold
    (:mod:`pooljudge.annotate.store.nugget_queue`); NotAllowed for a login without a role in
    ``campaign``."""
    who = authorize(session, credential=credential, campaign=campaign, roles=ANNOTATOR_ROLES)
    for value in (label, *([suggested] if suggested is not None else [])):
        if value not in NUGGET_LABELS:
            raise InputError(f"a label is one of {', '.join(NUGGET_LABELS)}, not {value!r}")
    if seconds is not None and not seconds >= 0:
        raise InputError(f"seconds must be >= 0, not {seconds!r}")
    found = session.execute(
        sa.select(_A.c.id, _N.c.id).select_from(_A.join(_N, _N.c.topic_id == _A.c.topic_id))
        .where(_A.c.campaign_id == who.campaign_id, _A.c.key == answer, _N.c.key == nugget,
               _N.c.state == "active")).one_or_none()
    if found is None:
        raise InputError(f"no answer {answer!r} with an active nugget {nugget!r} of its topic")
    _check_overlap(session, who.campaign_id, found[0], who.id)
    version = _last_version(session, found[0], found[1], who.id) + 1
    session.execute(sa.insert(_X).values(answer_id=found[0], nugget_id=found[1],
                                         annotator_id=who.id, version=version, label=label,
                                         created_at=utcnow(), seconds=seconds,
                                         suggested=suggested))
    return version


def _check_overlap(session: Session, campaign_id: int, answer_id: int, annotator_id: int) -> None:
    """InputError when ``annotator_id`` does not hold the answer yet and the overlap's number
    of others do. The answer's row is locked first (PostgreSQL; SQLite's write transaction
    is exclusive), so two first labels of the same answer are counted one after the other."""
    overlap = session.execute(sa.select(_S.c.overlap).where(
        _S.c.campaign_id == campaign_id)).scalar()
    if overlap is None:
        return
    session.execute(sa.select(_A.c.id).where(_A.c.id == answer_id).with_for_update()).one()
    mine = session.execute(sa.select(_X.c.id).where(
        _X.c.answer_id == answer_id, _X.c.annotator_id == annotator_id).limit(1)).first()
    if mine is not None:
        return
    holders = session.execute(answer_holders(campaign_id).where(
        _X.c.answer_id == answer_id)).all()
    if holders and holders[0][1] >= overlap:
        raise InputError(f"this answer already has its {overlap} assessor"
                         f"{'s' if overlap > 1 else ''} (the campaign's overlap): it was "
                         "taken meanwhile")


def import_nugget_assignments(session: Session, *, campaign: str, rows: Sequence[AssignmentRow],
                              path: str | None = None, assessor: str | None = None,
                              label_sources: Iterable[str] = (),
                              answers: Sequence[AnswerRef] = ()) -> int:
    """Store ``rows`` (from :mod:`pooljudge.formats.nugget_assignments`) as labels of
    ``campaign``, each a new version of its cell, in file order; the number stored.

    A row's assessor is its own or ``assessor``; names in ``label_sources`` unknown to the
    campaign are created as label sources (non-human annotators). Every row is checked before
    the first write, the first bad one raising InputError at ``path:line``: no assessor, an
    unknown assessor, an answer id the campaign lacks or of another topic or run, no answer (or
    several) of the run to the topic when the row names none, a text no active nugget of the
    topic has.
    """
    cid = campaign_pk(session, campaign)
    stored = session.execute(sa.select(_A.c.key, _A.c.id, _T.c.key, _A.c.run).select_from(
        _A.join(_T, _T.c.id == _A.c.topic_id)).where(_A.c.campaign_id == cid)).all()
    by_key = {key: (aid, topic, run) for key, aid, topic, run in stored}
    by_run: dict[tuple[str, str], list[int]] = {}
    for _, aid, topic, run in stored:
        by_run.setdefault((topic, run), []).append(aid)
    for ref in answers:
        _answer_of(ref, by_key, by_run, path)
    nuggets = {(topic, text): nid for nid, topic, text in session.execute(
        sa.select(_N.c.id, _T.c.key, _N.c.text).select_from(_N.join(_T, _T.c.id == _N.c.topic_id))
        .where(_N.c.campaign_id == cid, _N.c.state == "active")).all()}
    people = dict(session.execute(sa.select(_P.c.name, _P.c.id).where(
        _P.c.campaign_id == cid, _P.c.active)).all())
    sources = set(label_sources)
    cells = []
    for item in rows:
        name = item.assessor or assessor
        if name is None:
            raise InputError("no assessor: name one (--assessor)", path=path, line=item.line)
        if name not in people and name not in sources:
            raise InputError(f"campaign {campaign!r} has no annotator {name!r}", path=path,
                             line=item.line)
        answer_id = _answer_of(item, by_key, by_run, path)
        nugget_id = nuggets.get((item.topic, item.nugget_text))
        if nugget_id is None:
            raise InputError(f"topic {item.topic!r} has no active nugget {item.nugget_text!r}",
                             path=path, line=item.line)
        cells.append((answer_id, nugget_id, name, item.label))
    for name in sorted({c[2] for c in cells} - set(people)):
        people[name] = add_label_source(session, campaign_id=cid, name=name)
    versions = _versions(session, cid)
    now, values = utcnow(), []
    for answer_id, nugget_id, name, label in cells:
        cell = (answer_id, nugget_id, people[name])
        versions[cell] = versions.get(cell, 0) + 1
        values.append({"answer_id": answer_id, "nugget_id": nugget_id,
                       "annotator_id": people[name], "version": versions[cell], "label": label,
                       "created_at": now, "seconds": None})
    if values:
        session.execute(sa.insert(_X), values)
    return len(values)


def _versions(session: Session, campaign_id: int) -> dict[tuple[int, int, int], int]:
    """The last stored version of every assessed cell of the campaign (one grouped query)."""
    return {(a, n, p): v for a, n, p, v in session.execute(
        sa.select(_X.c.answer_id, _X.c.nugget_id, _X.c.annotator_id, sa.func.max(_X.c.version))
        .select_from(_X.join(_A, _A.c.id == _X.c.answer_id))
        .where(_A.c.campaign_id == campaign_id)
        .group_by(_X.c.answer_id, _X.c.nugget_id, _X.c.annotator_id)).all()}


def _answer_of(item: AssignmentRow | AnswerRef, by_key: dict, by_run: dict,
               path: str | None) -> int:
    """The id of the answer a row names (by id, else the run's one answer to the topic)."""
    if item.answer is not None:
        found = by_key.get(item.answer)
        if found is None:
            raise InputError(f"no answer {item.answer!r}", path=path, line=item.line)
        if found[1:] != (item.topic, item.run):
            raise InputError(f"answer {item.answer!r} is run {found[2]!r}'s answer to topic "
                             f"{found[1]!r}", path=path, line=item.line)
        return found[0]
    candidates = by_run.get((item.topic, item.run), [])
    if len(candidates) != 1:
        raise InputError(f"run {item.run!r} has {len(candidates) or 'no'} answers to topic "
                         f"{item.topic!r}" + (": name one with answer_id" if candidates else ""),
                         path=path, line=item.line)
    return candidates[0]


def nugget_suggestions(session: Session, *, campaign: str, answer: str
                       ) -> dict[str, tuple[str, str]]:
    """Active nugget key -> (label, judge) of the model pre-assignment to show for ``answer``:
    the latest labels of the campaign's suggesting judge (``campaign.suggest_from``, set by
    ``pooljudge calibrate suggest``); empty when it names none or the judge has not labelled
    the answer. One query."""
    cid = campaign_pk(session, campaign)
    judge = _P.alias("judge")
    found = session.execute(
        sa.select(_N.c.key, _X.c.label, judge.c.name)
        .select_from(_X.join(_A, _A.c.id == _X.c.answer_id).join(_N, _N.c.id == _X.c.nugget_id)
                     .join(judge, judge.c.id == _X.c.annotator_id)
                     .join(_C, sa.and_(_C.c.id == judge.c.campaign_id,
                                       _C.c.suggest_from == judge.c.name)))
        .where(_A.c.campaign_id == cid, _A.c.key == answer, _N.c.state == "active")
        .order_by(_X.c.version)).all()
    return {key: (label, name) for key, label, name in found}  # the latest version wins


def nugget_cells(session: Session, *, campaign: str,
                 with_suggested: bool = False) -> pd.DataFrame:
    """The latest label of every assessed (answer, active nugget, assessor) cell of
    ``campaign``: columns :data:`CELL_COLUMNS` (and ``suggested``, the pre-assignment shown
    with the label or None, when ``with_suggested``), sorted by topic (stored order), answer,
    nugget position, assessor.

    One query reads the cells as ids (the answers', nuggets' and assessors' texts are read
    once each and joined in numpy: 360,000 cells in about a second on SQLite, where the query
    with every text column took 6 s).
    """
    cid = campaign_pk(session, campaign)
    newer = sa.exists().where(_NEWER.c.answer_id == _X.c.answer_id,
                              _NEWER.c.nugget_id == _X.c.nugget_id,
                              _NEWER.c.annotator_id == _X.c.annotator_id,
                              _NEWER.c.version > _X.c.version)
    found = session.execute(
        sa.select(_X.c.answer_id, _X.c.nugget_id, _X.c.annotator_id, _X.c.label,
                  sa.type_coerce(_X.c.created_at, sa.String), _X.c.suggested)
        .select_from(_X.join(_A, _A.c.id == _X.c.answer_id).join(_N, _N.c.id == _X.c.nugget_id))
        .where(_A.c.campaign_id == cid, _N.c.state == "active", ~newer)).all()
    columns = list(zip(*found, strict=True)) if found else [()] * 6
    answers = _lookup(session, sa.select(_A.c.id, _A.c.key, _T.c.key, _T.c.id, _A.c.run)
                      .select_from(_A.join(_T, _T.c.id == _A.c.topic_id))
                      .where(_A.c.campaign_id == cid), columns[0])
    nuggets = _lookup(session, sa.select(_N.c.id, _N.c.key, _N.c.importance, _N.c.position)
                      .where(_N.c.campaign_id == cid), columns[1])
    people = _lookup(session, sa.select(_P.c.id, _P.c.name).where(_P.c.campaign_id == cid),
                     columns[2])
    frame = pd.DataFrame({"answer": answers[0], "topic": answers[1], "run": answers[3],
                          "nugget": nuggets[0], "importance": nuggets[1],
                          "assessor": people[0], "label": np.asarray(columns[3], dtype=object),
                          "created_at": pd.to_datetime(pd.Series(columns[4], dtype=object))})
    if with_suggested:
        frame["suggested"] = pd.Series(list(columns[5]), dtype=object)  # None: none shown
    order = np.lexsort((people[0].astype(str), nuggets[2].astype(np.int64),
                        answers[0].astype(str), answers[2].astype(np.int64)))
    return frame.iloc[order].reset_index(drop=True)


def _lookup(session: Session, query: sa.Select, ids: Sequence[int]) -> list[np.ndarray]:
    """For each id of ``ids``, the other columns of ``query``'s row with that id (its first
    column), one object array per column."""
    rows = session.execute(query).all()
    table = pd.DataFrame([tuple(r) for r in rows]).set_index(0) if rows else None
    width = len(query.selected_columns) - 1
    if table is None:
        return [np.empty(0, dtype=object) for _ in range(width)]
    positions = table.index.get_indexer(np.asarray(ids, dtype=np.int64))
    return [table.iloc[:, i].to_numpy(dtype=object)[positions] for i in range(width)]
