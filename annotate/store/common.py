"""Helpers shared by the store modules: clock, row look-ups, row-to-record conversion."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import sqlalchemy as sa
from pooljudge.annotate.records import (
    CampaignInfo,
    JudgmentRecord,
    LabelScale,
    PairView,
    PassageContext,
)
from pooljudge.annotate.store.models import (
    Annotator,
    Campaign,
    Claim,
    Document,
    Judgment,
    Pair,
    ReviewTopic,
    Topic,
)
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = [
    "RECOUNT_SLOTS",
    "VIEW_COLUMNS",
    "ZERO",
    "annotator_row",
    "campaign_info",
    "campaign_row",
    "judgment_record",
    "load_pair_view",
    "lock_annotators",
    "pair_view_of",
    "recount_slots",
    "refresh_statistics",
    "run",
    "utcnow",
]

# A literal 0 (not a bound parameter), so ``open_slots > ZERO`` matches the partial indexes'
# ``WHERE open_slots > 0`` even under prepared statements and generic plans.
ZERO = sa.literal_column("0")


def _recount_slots() -> sa.Update:
    """``pair.open_slots`` set anew from its definition for the pair ``:pid``: max(K −
    ``pair.judged`` − claims on it, 0), and 0 in a certified review topic (its queue is
    closed, :mod:`pooljudge.annotate.store.review`). Used wherever a claim ends (lease over,
    skip, annotator removed), instead of adding the slot back: the pair may have got its K
    judgments meanwhile (by import), and then no slot may reopen."""
    pair, claim, campaign = Pair.__table__, Claim.__table__, Campaign.__table__
    claims = sa.select(sa.func.count()).where(claim.c.pair_id == pair.c.id).scalar_subquery()
    overlap = (sa.select(campaign.c.overlap).where(campaign.c.id == pair.c.campaign_id)
               .scalar_subquery())
    free = overlap - pair.c.judged - claims
    review = ReviewTopic.__table__
    closed = sa.exists().where(review.c.topic_id == pair.c.topic_id,
                               review.c.phase == "certified")
    return (sa.update(pair).where(pair.c.id == sa.bindparam("pid"))
            .values(open_slots=sa.case((closed, ZERO), (free > ZERO, free), else_=ZERO)))


RECOUNT_SLOTS = _recount_slots()
_LOCK_PAIR = (sa.select(Pair.__table__.c.id).where(Pair.__table__.c.id == sa.bindparam("pid"))
              .with_for_update())


def recount_slots(session: Session, pair_id: int) -> None:
    """Set ``pair.open_slots`` anew (:data:`RECOUNT_SLOTS`) after a claim on it ended.

    PostgreSQL: the pair row is locked first, by a statement of its own, so the recount's
    snapshot is taken once every transaction that changed the pair has committed. Counted in the
    locking statement itself, the claims would be read from the snapshot taken before the wait
    while ``judged`` is read from the newest row: a claim released together with its judgment
    would count twice and a slot would be lost (measured: one lost judgment in 200 with one
    annotator in seven sessions). SQLite writers are serialised; the lock is a no-op there.
    """
    run(session, _LOCK_PAIR, pid=pair_id)
    run(session, RECOUNT_SLOTS, pid=pair_id)


def utcnow() -> datetime:
    """The current time in UTC, naive (the store keeps every time as naive UTC)."""
    return datetime.now(UTC).replace(tzinfo=None)


def campaign_row(session: Session, name: str) -> Campaign:
    """The campaign called ``name``; InputError when there is none."""
    row = session.execute(sa.select(Campaign).where(Campaign.name == name)).scalar_one_or_none()
    if row is None:
        raise InputError(f"no campaign named {name!r}")
    return row


def campaign_info(row: Campaign) -> CampaignInfo:
    """The record of a campaign row."""
    return CampaignInfo(
        id=row.id, name=row.name, scale=LabelScale.from_data(json.loads(row.scale)),
        overlap=row.overlap, order=row.judging_order, assign_mode=row.assign_mode,
        guidelines=row.guidelines, show_others_labels=row.show_others_labels,
        cannot_judge=bool(row.cannot_judge),
        rationale_labels=tuple(json.loads(row.rationale_labels or "[]")),
        highlight_narrative=bool(row.highlight_narrative),
        min_dwell_ms=int(row.min_dwell_ms),
    )


def annotator_row(session: Session, annotator_id: int, *, participant: bool = False,
                  lock: bool = False) -> Annotator:
    """The active annotator ``annotator_id``; InputError when unknown or removed.

    ``participant`` also requires a member of the judging queue (not an imported label source).
    ``lock`` takes the row's ``FOR UPDATE`` lock (PostgreSQL), which every writing transaction
    of an annotator's judging takes first (see :mod:`pooljudge.annotate.store.assignment`).
    """
    row = session.get(Annotator, annotator_id, with_for_update=lock or None)
    if row is None or not row.active:
        raise InputError(f"no active annotator with id {annotator_id}")
    if participant and not row.human:
        raise InputError(f"annotator {row.name!r} is an imported label source, not a judge")
    return row


def lock_annotators(session: Session, annotator_ids) -> None:
    """Take the ``FOR UPDATE`` locks of these annotators' rows, in id order (PostgreSQL; SQLite
    writers are serialised anyway). Every writer of an annotator's judgments takes it first
    (see :mod:`pooljudge.annotate.store.assignment`), so a bulk write waits for their judging
    transactions and
    then reads the versions those wrote, and the id order keeps two bulk writes from
    deadlocking."""
    ids = sorted({int(i) for i in annotator_ids})
    if ids:
        session.execute(sa.select(Annotator.id).where(Annotator.id.in_(ids))
                        .order_by(Annotator.id).with_for_update())


def judgment_record(row: Judgment) -> JudgmentRecord:
    """The record of a judgment row."""
    return JudgmentRecord(
        id=row.id, pair_id=row.pair_id, annotator_id=row.annotator_id, version=row.version,
        label=row.label, kind=row.kind, source=row.source, created_at=row.created_at,
        seconds=row.seconds, position=row.position, comment=row.comment, status=row.status,
        rationale=row.rationale,
    )


def refresh_statistics(session: Session, *tables: str) -> None:
    """``ANALYZE`` the tables after a bulk write, so the planner sees their new sizes at once.

    Without it, PostgreSQL plans the first claims after a big import with stale statistics
    (a new annotator believed to have no judgments), and an anti-join by materialising that
    annotator's judgments can take seconds instead of probing the judgment index per pair.
    SQLite, whose planner needs no statistics for these queries, is left alone.
    """
    if session.get_bind().dialect.name != "postgresql":
        return
    for table in tables:
        session.execute(sa.text(f"ANALYZE {table}"))


def run(session: Session, statement, **params) -> sa.CursorResult:
    """Execute a prebuilt Core statement on the session's connection (the hot paths' way:
    no ORM layer, and the compiled form is cached because the statement object is reused)."""
    return session.connection().execute(statement, params)


_T, _D, _P = Topic.__table__, Document.__table__, Pair.__table__
_PARENT = _D.alias("parent_document")


def _of_parent(column: sa.Column) -> sa.ScalarSelect:
    """``column`` of the document's parent (NULL for a whole document), correlated with the
    enclosing query's ``document``: selects that join the document need no change."""
    return (sa.select(_PARENT.c[column.name]).where(_PARENT.c.id == _D.c.parent)
            .scalar_subquery().label(f"parent_{column.name}"))


VIEW_COLUMNS = (_T.c.key, _T.c.title, _T.c.description, _T.c.narrative, _D.c.key, _D.c.title,
                _D.c.text, _of_parent(_D.c.key), _of_parent(_D.c.title), _of_parent(_D.c.text),
                _D.c.passage_start, _D.c.passage_end)
"""The columns of a PairView after its pair id, in order (topic, then document, then the
passage's document and offsets, NULL for a whole document)."""
_TEXTS = 7  # the topic's and the document's texts, the PairView's fields before ``position``
_VIEW = (
    sa.select(*VIEW_COLUMNS)
    .select_from(_P.join(_T, _T.c.id == _P.c.topic_id).join(_D, _D.c.id == _P.c.document_id))
    .where(_P.c.id == sa.bindparam("pid"))
)


def load_pair_view(session: Session, pair_id: int, position: int | None) -> PairView:
    """The annotator-facing view of pair ``pair_id`` (topic and document text only)."""
    row = run(session, _VIEW, pid=pair_id).one_or_none()
    if row is None:
        raise InputError(f"no pair with id {pair_id}")
    return pair_view_of(pair_id, position, row)


def pair_view_of(pair_id: int, position: int | None, texts) -> PairView:
    """A PairView from the :data:`VIEW_COLUMNS` values ``texts`` (with its passage's context
    when the document is a passage)."""
    parent_key, parent_title, parent_text, start, end = texts[_TEXTS:len(VIEW_COLUMNS)]
    passage = (None if parent_key is None
               else PassageContext(parent_key, parent_title, parent_text, int(start), int(end)))
    return PairView(pair_id, *texts[:_TEXTS], position, passage)
