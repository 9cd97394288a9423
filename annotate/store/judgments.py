"""Judgments: append a version (any state), an annotator's history, others' labels."""

from __future__ import annotations

import json
import math

import sqlalchemy as sa
from pooljudge.annotate.records import (
    JUDGMENT_KINDS,
    JUDGMENT_SOURCES,
    JUDGMENT_STATUSES,
    JudgmentRecord,
    LabelScale,
    PairView,
)
from pooljudge.annotate.store.common import (
    ZERO,
    judgment_record,
    load_pair_view,
    recount_slots,
    run,
    utcnow,
)
from pooljudge.annotate.store.models import Annotator, Campaign, Claim, Judgment, Pair
from pooljudge.annotate.store.progress_counters import count_judged, count_rows_pg
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = [
    "ALREADY_JUDGED",
    "DuplicateWrite",
    "NotCurrent",
    "history",
    "others_labels",
    "pair_view",
    "recent_seconds",
    "record_judgment",
]


class NotCurrent(InputError):
    """A label for a pair other than the one the annotator holds: nothing is written."""


class DuplicateWrite(InputError):
    """The judgment was already written (a double submit, or the same annotator in another
    tab or server); nothing new was stored."""


ALREADY_JUDGED = "you have already judged this pair (in another tab or window); nothing stored"


def record_judgment(
    session: Session, *, annotator_id: int, pair_id: int, label: int | None,
    seconds: float | None = None, position: int | None = None, comment: str | None = None,
    source: str = "human", kind: str = "judgment", expected_version: int | None = None,
    status: str = "label", rationale: str | None = None, suggested: int | None = None,
    current: bool = False,
) -> JudgmentRecord:
    """Append a judgment: version = previous version of (pair, annotator, kind) + 1.

    ``suggested``: the label an automatic judge suggested to the person on screen (stored in
    ``judgment.suggested``; None: no suggestion was shown).

    States (``status``): the latest version decides. ``label`` labels the pair; ``withdrawn``
    (an undo) is as if never judged; ``cannot_judge`` answers it without a label (a reason in
    ``rationale`` is required), so it never counts towards the overlap K and its slot opens
    for another annotator. Counters follow every change of state (kind ``judgment``):
    ``pair.judged`` and ``annotator_topic.judged`` count labelled pairs (+1 when the pair
    becomes labelled, -1 when a label is withdrawn or replaced by a can't-judge answer), and
    ``pair.open_slots`` is recounted whenever a claim or a label goes.

    Releases the annotator's claim on the pair. A participant's label of a pair they had not
    labelled, without a live claim (its lease ended, or an earlier answer being changed),
    takes an open slot, and fails with InputError when the pair has meanwhile got its K
    annotators. ``current`` (the judging page, for the pair it shows as new): refused with
    :class:`NotCurrent`, nothing written, when the annotator holds a claim on another pair, so a
    label can only land on the pair they were handed. ``expected_version`` (1 for a first
    judgment, n + 1 to change version n)
    turns a repeated submit into DuplicateWrite instead of a new version. InputError for a
    label outside the scale, an unknown pair, a bad kind, source or status, or an
    adjudication by someone who is not an adjudicator or admin.

    Sessions of one annotator (tabs, servers): on PostgreSQL the first statement locks the
    annotator's row, so their judgments are serialised; a first judgment of a pair that
    another session of theirs judged meanwhile raises DuplicateWrite (:data:`ALREADY_JUDGED`),
    never a second version 1 and never a count towards the overlap.
    """
    me = _context(session, annotator_id, pair_id, kind)
    if current:
        _check_current(session, annotator_id, pair_id)
    _check_values(me, label=label, kind=kind, source=source, seconds=seconds)
    _check_status(status, label=label, rationale=rationale)
    if source == "human":
        _check_campaign_rules(me, status=status, label=label, rationale=rationale)
    version = 1 if me.previous is None else me.previous + 1
    if expected_version is not None and version != expected_version:
        raise DuplicateWrite(ALREADY_JUDGED if expected_version == 1
                             else f"version {version - 1} of this judgment already exists")
    first = kind == "judgment" and me.previous is None
    change = (0 if kind != "judgment"
              else int(status == "label") - int(me.previous_status == "label"))
    values = {"pair_id": pair_id, "annotator_id": annotator_id, "kind": kind,
              "version": version, "label": None if label is None else int(label),
              "source": source, "created_at": utcnow(), "seconds": seconds,
              "position": position, "comment": comment or None, "status": status,
              "rationale": (rationale or "").strip() or None}
    try:
        if change > 0 and me.human and _postgres(session):
            record = _record_first_of_claimed(session, me, values, suggested)
            if record is not None:
                return record
        claimed = run(session, _RELEASE_CLAIM, aid=annotator_id, pid=pair_id).first()
        if first and claimed is None and _judged_meanwhile(session, values):
            raise DuplicateWrite(ALREADY_JUDGED)
        _count_change(session, me, pair_id, change, claimed=claimed is not None)
        if change:
            count_judged(session, annotator_id=annotator_id, topic_id=me.topic_id, n=change)
        if position is None:
            values["position"] = claimed[0] if claimed is not None else me.previous_position
        new_id = run(session, _INSERT, **values, suggested=suggested).scalar_one()
    except sa.exc.IntegrityError:
        raise DuplicateWrite("this judgment was written concurrently; nothing stored") from None
    return JudgmentRecord(id=new_id, **values)


def history(session: Session, *, annotator_id: int, limit: int = 20
            ) -> list[tuple[PairView, JudgmentRecord]]:
    """The annotator's latest judgment of each pair they answered (kind judgment; latest
    state a label or a can't-judge answer, never a withdrawal), newest first."""
    newer = sa.exists().where(
        Judgment.pair_id == _latest.pair_id, Judgment.annotator_id == _latest.annotator_id,
        Judgment.kind == _latest.kind, Judgment.version > _latest.version)
    rows = session.execute(
        sa.select(_latest).where(_latest.annotator_id == annotator_id,
                                 _latest.kind == "judgment", _latest.status != "withdrawn",
                                 ~newer)
        .order_by(_latest.created_at.desc(), _latest.id.desc()).limit(limit)
    ).scalars().all()
    return [(load_pair_view(session, r.pair_id, r.position), judgment_record(r)) for r in rows]


def recent_seconds(session: Session, *, annotator_id: int, limit: int = 20
                   ) -> list[float | None]:
    """Seconds spent on the annotator's ``limit`` newest judgment rows (kind judgment, every
    version), newest first; None where no time was recorded (e.g. imported rows).

    One backward walk of the index ``(annotator_id, created_at)``; no document is loaded."""
    return list(run(session, _RECENT_SECONDS, aid=annotator_id, n=limit).scalars())


def others_labels(session: Session, *, annotator_id: int, pair_id: int) -> list[tuple[str, int]]:
    """Other annotators' latest labels (kind judgment) of ``pair_id``: (name, label) by name;
    an annotator whose latest version is a withdrawal or a can't-judge answer is left out.

    Reads only the pair's own judgment rows (the unique index starts with ``pair_id``)."""
    newer = sa.exists().where(
        Judgment.pair_id == _latest.pair_id, Judgment.annotator_id == _latest.annotator_id,
        Judgment.kind == _latest.kind, Judgment.version > _latest.version)
    rows = session.execute(
        sa.select(Annotator.name, _latest.label).join(Annotator,
                                                      Annotator.id == _latest.annotator_id)
        .where(_latest.pair_id == pair_id, _latest.kind == "judgment",
               _latest.status == "label", _latest.annotator_id != annotator_id, ~newer)
        .order_by(Annotator.name)
    ).all()
    return [(name, int(label)) for name, label in rows]


def pair_view(session: Session, *, annotator_id: int, pair_id: int) -> PairView:
    """The view of a pair the annotator holds a claim on or has judged; InputError otherwise."""
    claim = session.execute(sa.select(Claim.position).where(
        Claim.annotator_id == annotator_id, Claim.pair_id == pair_id)).first()
    if claim is not None:
        return load_pair_view(session, pair_id, claim[0])
    judged = session.execute(
        sa.select(Judgment.position).where(Judgment.annotator_id == annotator_id,
                                           Judgment.pair_id == pair_id)
        .order_by(Judgment.id.desc()).limit(1)
    ).first()
    if judged is None:
        raise InputError(f"pair {pair_id} is neither claimed nor judged by annotator "
                         f"{annotator_id}")
    return load_pair_view(session, pair_id, judged[0])


_latest = sa.orm.aliased(Judgment, name="j")


def _context(session: Session, annotator_id: int, pair_id: int, kind: str) -> sa.Row:
    """In one query: the annotator, the campaign's scale, whether the pair is in that campaign,
    and the annotator's latest version (and its position) of this pair and kind."""
    row = run(session, _CONTEXT, aid=annotator_id, pid=pair_id, kind=kind).first()
    if row is None or not row.active:
        raise InputError(f"no active annotator with id {annotator_id}")
    if row.pair is None:
        raise InputError(f"pair {pair_id} is not in annotator {row.name!r}'s campaign")
    return row


def _check_values(me: sa.Row, *, label: int, kind: str, source: str,
                  seconds: float | None) -> None:
    if kind not in JUDGMENT_KINDS:
        raise InputError(f"unknown judgment kind {kind!r}")
    if source not in JUDGMENT_SOURCES:
        raise InputError(f"unknown judgment source {source!r}")
    if kind == "adjudication" and me.role not in ("adjudicator", "admin"):
        raise InputError(f"annotator {me.name!r} is not an adjudicator")
    if seconds is not None and not (math.isfinite(seconds) and seconds >= 0):
        raise InputError(f"seconds must be a finite number >= 0, got {seconds!r}")
    values = LabelScale.from_data(json.loads(me.scale)).values
    if label is not None and (isinstance(label, bool) or label not in values):
        raise InputError(f"label {label!r} is not on the scale {list(values)}")


def _check_status(status: str, *, label: int | None, rationale: str | None) -> None:
    """A label row has a label; a withdrawal or a can't-judge answer has none, and a
    can't-judge answer has a reason. InputError otherwise."""
    if status not in JUDGMENT_STATUSES:
        raise InputError(f"unknown judgment status {status!r}")
    if (status == "label") != (label is not None):
        raise InputError("a label is required" if status == "label"
                         else f"a {status.replace('_', ' ')} row carries no label")
    if status == "cannot_judge" and not (rationale or "").strip():
        raise InputError("say why you cannot judge this pair (a reason is required)")


def _check_campaign_rules(me: sa.Row, *, status: str, label: int | None,
                          rationale: str | None) -> None:
    """A person's row: "I can't judge this" only where the campaign offers it, and a rationale
    with every label the campaign names in ``rationale_labels``. InputError otherwise."""
    if status == "cannot_judge" and not me.cannot_judge:
        raise InputError("this campaign does not offer \"I can't judge this\"")
    needs = json.loads(me.rationale_labels or "[]")
    if status == "label" and label in needs and not (rationale or "").strip():
        raise InputError(f"label {label} needs a rationale in this campaign: say why")


def _postgres(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def _check_current(session: Session, annotator_id: int, pair_id: int) -> None:
    """NotCurrent when the annotator's live claim is on a pair other than ``pair_id``."""
    held = run(session, _HELD, aid=annotator_id).scalar_one_or_none()
    if held is not None and held != pair_id:
        raise NotCurrent(f"pair {pair_id} is not the pair you hold now (pair {held}): "
                         "its label was not stored")


def _record_first_of_claimed(session: Session, me: sa.Row, values: dict,
                             suggested: int | None = None) -> JudgmentRecord | None:
    """PostgreSQL: a participant's label of a pair they hold a claim on and had not labelled
    (a first judgment, or a label after a withdrawal or a can't-judge answer), in one
    statement; None (nothing written) when they hold no claim on it."""
    row = run(session, _FIRST_OF_CLAIMED_PG, pid=values["pair_id"], aid=values["annotator_id"],
              tid=me.topic_id, suggested=suggested, **{k: v for k, v in values.items()
                                  if k not in ("pair_id", "annotator_id")}).first()
    if row is None:
        return None
    return JudgmentRecord(id=row.id, **{**values, "position": row.position})


def _judged_meanwhile(session: Session, values: dict) -> bool:
    """Whether the annotator's judgment of this pair and kind exists now (committed by another
    session of theirs after this transaction's first read, which waited for it)."""
    return run(session, _JUDGED, pid=values["pair_id"], aid=values["annotator_id"],
               kind=values["kind"]).scalar()


def _count_change(session: Session, me: sa.Row, pair_id: int, change: int, *,
                  claimed: bool) -> None:
    """A participant's change of state on ``pair_id`` in its counters: +1 takes the claim's
    slot (or an open one), -1 gives the label's slot back; a released claim whose slot no
    label took is given back too (``open_slots`` recounted)."""
    if not me.human:
        return
    if change > 0:
        _count_label(session, pair_id, claimed=claimed)
    elif change < 0:
        run(session, _UNCOUNT, pid=pair_id)
        recount_slots(session, pair_id)
    elif claimed:
        recount_slots(session, pair_id)


def _count_label(session: Session, pair_id: int, *, claimed: bool) -> None:
    """Count a participant's new label of ``pair`` towards the overlap."""
    if claimed:
        run(session, _COUNT_CLAIMED, pid=pair_id)
    elif run(session, _COUNT_UNCLAIMED, pid=pair_id).rowcount == 0:
        raise InputError("this pair has meanwhile been judged by enough annotators (the claim "
                         "expired); nothing stored")


def _context_statement() -> sa.Select:
    """Annotator, scale, pair membership and latest version (with its position and status);
    binds ``aid``, ``pid``, ``kind``."""
    a, c, p, j = Annotator.__table__, Campaign.__table__, Pair.__table__, Judgment.__table__
    latest = (sa.select(j.c.version).where(j.c.pair_id == sa.bindparam("pid"),
                                           j.c.annotator_id == sa.bindparam("aid"),
                                           j.c.kind == sa.bindparam("kind"))
              .order_by(j.c.version.desc()).limit(1))
    return (
        sa.select(a.c.name, a.c.role, a.c.human, a.c.active, c.c.scale, c.c.cannot_judge,
                  c.c.rationale_labels, p.c.id.label("pair"),
                  p.c.topic_id,
                  latest.scalar_subquery().label("previous"),
                  latest.with_only_columns(j.c.position).scalar_subquery()
                  .label("previous_position"),
                  latest.with_only_columns(j.c.status).scalar_subquery()
                  .label("previous_status"))
        .select_from(a.join(c, c.c.id == a.c.campaign_id).outerjoin(
            p, sa.and_(p.c.id == sa.bindparam("pid"), p.c.campaign_id == a.c.campaign_id)))
        .where(a.c.id == sa.bindparam("aid"))
        .with_for_update(of=a)  # one writer per annotator at a time (see .assignment)
    )


_P, _C = Pair.__table__, Claim.__table__
_CONTEXT = _context_statement()
_HELD = sa.select(_C.c.pair_id).where(_C.c.annotator_id == sa.bindparam("aid"))
_RELEASE_CLAIM = (sa.delete(_C).where(_C.c.annotator_id == sa.bindparam("aid"),
                                      _C.c.pair_id == sa.bindparam("pid"))
                  .returning(_C.c.position))
_COUNT_CLAIMED = (sa.update(_P).where(_P.c.id == sa.bindparam("pid"))
                  .values(judged=_P.c.judged + 1))
_UNCOUNT = sa.update(_P).where(_P.c.id == sa.bindparam("pid")).values(judged=_P.c.judged - 1)
_COUNT_UNCLAIMED = (sa.update(_P).where(_P.c.id == sa.bindparam("pid"), _P.c.open_slots > ZERO)
                    .values(judged=_P.c.judged + 1, open_slots=_P.c.open_slots - 1))
_INSERT = sa.insert(Judgment.__table__).returning(Judgment.__table__.c.id)
_JUDGED = sa.select(sa.exists().where(Judgment.__table__.c.pair_id == sa.bindparam("pid"),
                                      Judgment.__table__.c.annotator_id == sa.bindparam("aid"),
                                      Judgment.__table__.c.kind == sa.bindparam("kind")))


def _first_of_claimed_statement() -> sa.Insert:
    """PostgreSQL: release the annotator's claim on the pair, count the judgment on the pair and
    in the annotator's progress, and insert it (position: the given one, else the claim's), in
    one statement of data-modifying CTEs, each of which does nothing when there was no claim.
    Binds pid, aid, tid and the other judgment columns by name; returns (id, position)."""
    j = Judgment.__table__
    released = _RELEASE_CLAIM.cte("released")
    counted = (sa.update(_P).where(_P.c.id == sa.bindparam("pid"),
                                   sa.exists(sa.select(released.c.position)))
               .values(judged=_P.c.judged + 1).returning(_P.c.id).cte("counted"))
    aid, tid = sa.bindparam("aid", type_=sa.Integer), sa.bindparam("tid", type_=sa.Integer)
    progress = (count_rows_pg(sa.select(aid, tid, sa.literal(1, sa.Integer)).select_from(released))
                .returning(sa.literal_column("1")).cte("progress"))
    given = {c: sa.bindparam(c, type_=j.c[c].type)
             for c in ("kind", "version", "label", "source", "created_at", "seconds", "comment",
                       "status", "rationale", "suggested")}
    row = sa.select(
        sa.bindparam("pid", type_=sa.Integer), aid, given["kind"], given["version"],
        given["label"], given["source"], given["created_at"], given["seconds"],
        sa.func.coalesce(sa.bindparam("position", type_=sa.Integer), released.c.position),
        given["comment"], given["status"], given["rationale"], given["suggested"],
    ).select_from(released)
    columns = ["pair_id", "annotator_id", "kind", "version", "label", "source", "created_at",
               "seconds", "position", "comment", "status", "rationale", "suggested"]
    return (sa.insert(j).from_select(columns, row).returning(j.c.id, j.c.position)
            .add_cte(counted, progress))


_FIRST_OF_CLAIMED_PG = _first_of_claimed_statement()
_J = Judgment.__table__
_RECENT_SECONDS = (sa.select(_J.c.seconds)
                   .where(_J.c.annotator_id == sa.bindparam("aid"), _J.c.kind == "judgment")
                   .order_by(_J.c.created_at.desc(), _J.c.id.desc()).limit(sa.bindparam("n")))
